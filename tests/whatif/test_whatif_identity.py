"""The what-if layer's facts by identity (custody_lab/whatif/_identity.py): what a mark on an Arrow
array survives and what it does not, and what object addresses are."""

from __future__ import annotations

import gc

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from custody_lab.sweep import sweep
from custody_lab.whatif._identity import (
    IdentityCache,
    IdentityMarks,
    addresses,
    per_object,
    rows_holding,
    rows_holding_either,
)
from custody_lab.whatif.arrow_text import known_masks, mark_without_blanks


def test_a_mark_goes_with_its_array_and_a_new_array_given_the_same_id_is_not_marked():
    marks = IdentityMarks()
    a = pa.chunked_array([["kb://a"]])
    marks.add(a)
    key = id(a)
    assert a in marks and len(marks) == 1
    del a
    gc.collect()
    assert len(marks) == 0, "the mark outlived its array"
    reused = None
    kept = []  # keep every candidate alive, so each gets a new address
    for _ in range(10_000):
        b = pa.chunked_array([["kb://b"]])
        if id(b) == key:
            reused = b
            break
        kept.append(b)
    if reused is not None:  # CPython reuses the freed memory at once, in practice
        assert reused not in marks, "a new array at a freed array's address was taken as marked"


def test_a_lookup_compares_identity_not_only_the_id():
    marks = IdentityMarks()
    a, b = pa.chunked_array([["x"]]), pa.chunked_array([["x"]])
    marks.add(a)
    marks._by_id[id(b)] = a  # as if b had a's id: the entry names another object
    assert b not in marks and a in marks


def test_a_slice_a_rebuilt_column_and_an_assignment_are_unmarked_and_checked_in_full():
    s = mark_without_blanks(pd.Series(["u://a", None, "u://c"], dtype="str"))
    assert known_masks(s) is not None
    assert known_masks(s.iloc[1:]) is None, "a slice is a new array: it must be checked in full"
    assert known_masks(pd.Series(list(s), dtype="str")) is None
    changed = s.copy()
    changed.iloc[0] = " "
    assert known_masks(changed) is None and known_masks(s) is not None
    frame = pd.DataFrame(
        {
            "initiator": ["model"] * 3,
            "shape": ["resource-link"] * 3,
            "bytes": [1] * 3,
            "current": [True] * 3,
            "allowed": [True] * 3,
            "sideEffects": [False] * 3,
            "mime": ["m/x"] * 3,
            "provenance": ["p"] * 3,
        }
    )
    got = sweep(frame.assign(uri=changed))["outcome"].tolist()
    assert got == ["custody-incomplete"] * 2 + ["resource-link"], got


def test_a_copy_that_shares_the_immutable_array_keeps_the_mark_and_decides_as_a_full_check():
    s = mark_without_blanks(pd.Series(["u://a", None], dtype="str"))
    copied = s.copy()
    shared = copied.array.__arrow_array__() is s.array.__arrow_array__()
    assert (known_masks(copied) is not None) == shared, "a mark must follow the array object, nothing else"
    full = pd.Series(list(s), dtype="str")
    frame = pd.DataFrame({"initiator": ["model"] * 2, "shape": ["resource-link"] * 2, "bytes": [1, 1]})
    frame = frame.assign(current=True, allowed=True, sideEffects=False, mime="m/x", provenance="p")
    assert sweep(frame.assign(uri=copied))["outcome"].tolist() == sweep(frame.assign(uri=full))["outcome"].tolist()


def test_addresses_are_the_objects_ids_and_only_a_contiguous_object_array_has_them():
    values = np.array(["a", None, 3, "a"], dtype=object)
    assert addresses(values).tolist() == [id(v) for v in values]
    with pytest.raises(ValueError):
        addresses(values[::2])
    with pytest.raises(ValueError):
        addresses(np.arange(3))


def test_equal_strings_that_are_separate_objects_are_decided_separately_and_alike():
    a, b = "model", "".join(["mod", "el"])
    assert a == b and a is not b
    values = np.array([a, b, a, b], dtype=object)
    calls: list[str] = []
    got = per_object(values, lambda v: calls.append(v) or len(v), np.int8)
    assert got is not None and got.tolist() == [5, 5, 5, 5], got
    assert len(calls) == 2, f"expected one call per distinct object, got {calls}"
    assert rows_holding(values, a).tolist() == [True, False, True, False]


def test_a_kept_result_goes_with_its_array_and_a_new_array_given_the_same_id_gets_none():
    cache = IdentityCache()
    a = pa.chunked_array([["kb://a"]])
    cache.put(a, "codes", np.array([3], dtype=np.int8))
    key = id(a)
    assert cache.get(a, "codes").tolist() == [3] and cache.get(a, "masks") is None
    del a
    gc.collect()
    assert len(cache) == 0, "the result outlived its array"
    kept = []
    for _ in range(10_000):
        b = pa.chunked_array([["kb://b"]])
        if id(b) == key:
            assert cache.get(b, "codes") is None, "a new array at a freed array's address got its result"
            break
        kept.append(b)


def test_a_kept_result_is_read_only():
    cache, a = IdentityCache(), pa.chunked_array([["kb://a"]])
    cache.put(a, "masks", (np.zeros(1, dtype=bool), np.ones(1, dtype=bool)))
    with pytest.raises(ValueError):
        cache.get(a, "masks")[1][0] = False


def test_sweeping_a_plain_frame_again_after_a_change_reads_the_changed_columns():
    """The second sweep of the same plain frame reuses what the first read from each Arrow
    column; a column changed in between is a new array and is read again."""
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "initiator": ["model", "application", "model"],
            "shape": ["embedded-resource"] * 3,
            "uri": ["kb://a", "kb://b", "kb://c"],
            "mime": ["text/plain"] * 3,
            "bytes": [10, 10, 10],
            "current": [True, True, True],
            "allowed": [True, True, True],
            "sideEffects": [False, False, False],
            "provenance": ["kb", "kb", "kb"],
        }
    )
    first = sweep(frame)
    assert sweep(frame)["outcome"].tolist() == first["outcome"].tolist()
    changed = frame.copy()
    changed.loc[1, "initiator"] = "nobody"
    with pytest.raises(Exception, match="initiator"):
        sweep(changed)
    changed = frame.copy()
    changed.loc[0, "uri"] = "  "
    changed.loc[2, "shape"] = "resource-link"
    objects = pd.DataFrame({c: pd.Series(changed[c].tolist(), dtype=object) for c in changed.columns})
    again = sweep(changed)
    assert again["outcome"].tolist() == sweep(objects)["outcome"].tolist()  # Python objects: no Arrow array
    assert again["outcome"][0] != first["outcome"][0] and again["outcome"][2] != first["outcome"][2]
    assert sweep(frame)["outcome"].tolist() == first["outcome"].tolist()


def test_rows_holding_either_is_identity_row_by_row_across_blocks():
    """Over several blocks and a ragged last one: a row holds ``a`` only when it is that very
    object, and "neither" excludes exactly ``a`` and ``b`` (an equal value that is another object
    is neither)."""
    a, b = "".join(["te", "xt"]), True
    twin = "".join(["tex", "t"])  # equal to a, another object
    pool = np.array([a, b, twin, 1, None, np.True_, False], dtype=object)
    values = pool[np.random.default_rng(7).integers(0, len(pool), 200_003)]
    holds_a, neither = rows_holding_either(values, a, b)
    assert holds_a.tolist() == [v is a for v in values]
    assert neither.tolist() == [v is not a and v is not b for v in values]
