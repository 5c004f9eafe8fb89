"""Columns of Python objects (whatif/object_columns.py) are decided exactly as one value at a time
is, whichever way the reduction goes: a few distinct objects looked up by address, objects
factorized by address, or every value visited in C."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custody_lab.core.errors import CaseError
from custody_lab.core.model import INITIATORS, SHAPES
from custody_lab.core.rules import ScalarOps
from custody_lab.sweep import sweep
from custody_lab.whatif import _identity
from custody_lab.whatif import object_columns as oc
from custody_lab.whatif.validation import _choice, columns_of

#: The three ways a column of objects can be reduced, forced by shrinking the module's limits.
PATHS = ("slots", "factorize", "every value")

ODD = [None, float("nan"), pd.NA, 1, b"model", np.str_("model"), "Model", "model ", "\u3000", "\x85", "\x1c", ""]


@contextmanager
def forced(path: str):
    with pytest.MonkeyPatch.context() as mp:
        if path == "factorize":
            mp.setattr(_identity, "_slots", lambda sample: None)
        elif path == "every value":
            mp.setattr(_identity, "_FEW", -1)
        yield


def objects(draw_values: list, repeat: int) -> np.ndarray:
    """The values repeated as the *same* objects (a few distinct objects over many rows)."""
    out = np.empty(len(draw_values) * repeat, dtype=object)
    for i in range(repeat):
        out[i * len(draw_values) : (i + 1) * len(draw_values)] = draw_values
    return out


def scalar_kind(v):
    if isinstance(v, str):
        return "blank" if ScalarOps().blank(v) else "text"
    if v is None or (pd.api.types.is_scalar(v) and pd.isna(v)):
        return "missing"
    return "not text"


text_values = st.lists(st.one_of(st.sampled_from(ODD), st.text(max_size=3)), min_size=1, max_size=8)


@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=150, deadline=None)
@given(values=text_values, repeat=st.integers(1, 3))
def test_text_masks_say_missing_and_blank_as_one_value_at_a_time_does(path, values, repeat):
    arr = objects(values, repeat)
    kinds = [scalar_kind(v) for v in arr]
    with forced(path):
        got = oc.text_masks(arr)
    if "not text" in kinds:
        assert got is None, f"{path}: {values!r} holds a non-text value; expected None, got {got}"
        return
    assert got is not None, f"{path}: {values!r}: expected masks, got None"
    want = ([k == "missing" for k in kinds], [k == "blank" for k in kinds])
    assert (got[0].tolist(), got[1].tolist()) == want, f"{path}: {values!r}: expected {want}, got {got}"


@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.one_of(st.sampled_from(ODD + list(SHAPES)), st.text(max_size=2)), min_size=1, max_size=8))
def test_enum_codes_are_each_values_own_code_in_the_closed_set(path, values):
    arr = objects(values, 2)
    want = [_choice(SHAPES, v) for v in arr]
    with forced(path):
        got = oc.enum_codes(arr, SHAPES, _choice, strings=False)
    if got is None:  # only when a present value is not a str: the caller then asks row by row
        assert any(scalar_kind(v) == "not text" for v in arr), f"{path}: {values!r}: expected codes, got None"
        return
    assert got.tolist() == want, f"{path}: {values!r}: expected {want}, got {got.tolist()}"


def test_an_object_first_seen_far_below_the_first_rows_gets_its_own_code():
    arr = np.array(["application"] * 70_000, dtype=object)
    arr[69_001] = "".join(["mod", "el"])  # objects of their own, first seen far down
    arr[69_002] = "".join(["nob", "ody"])
    arr[5] = "".join(["appli", "cation"])
    codes = oc.enum_codes(arr, INITIATORS, _choice, strings=False)
    got = None if codes is None else (codes[69_001], codes[69_002], codes[5])
    assert got == (1, -1, 0), f"expected rows 69001, 69002, 5 -> model 1, nobody -1, application 0; got {got}"
    assert codes is not None and (np.delete(codes, [69_001, 69_002]) == 0).all(), "expected every other row 0"


def test_a_bad_value_far_below_the_first_rows_is_named_by_its_row():
    n = 70_000
    frame = pd.DataFrame(
        {
            "initiator": np.array(["model"] * n, dtype=object),
            "shape": np.array(["resource-link"] * n, dtype=object),
            "bytes": np.zeros(n, dtype=np.int64),
            "current": True,
            "allowed": True,
            "sideEffects": False,
            "uri": np.array(["u://x"] * n, dtype=object),
        }
    ).astype({"initiator": object, "shape": object, "uri": object})  # (pandas would infer str)
    frame.loc[66_666, "initiator"] = "nobody"
    frame.loc[66_667, "uri"] = 7
    with pytest.raises(CaseError) as e:
        columns_of(frame)
    assert "row 66666: 'nobody'" in str(e.value), f"expected row 66666 named, got {e.value}"
    frame.loc[66_666, "initiator"] = "model"
    with pytest.raises(CaseError) as e:
        columns_of(frame)
    assert e.value.field == "uri" and "row 66667: 7" in str(e.value), f"expected uri row 66667, got {e.value}"


@pytest.mark.parametrize("na_value", [pd.NA, np.nan])
def test_a_python_string_column_with_missing_values_is_read_as_the_router_reads_each(na_value):
    values = ["u://a", None, " ", "\u2003", "b", "", None] * 700  # distinct enough: every value path
    s = pd.Series(["".join(list(v)) if v else v for v in values], dtype=pd.StringDtype("python", na_value=na_value))
    masks = oc.text_masks(s.to_numpy(dtype=object), na_value=s.dtype.na_value)
    want_na = [v is None for v in values]
    want_blank = [v is not None and ScalarOps().blank(v) for v in values]
    assert masks is not None and masks[0].tolist() == want_na and masks[1].tolist() == want_blank, (
        f"{na_value!r}: expected missing {want_na[:7]} and blank {want_blank[:7]}…, got {masks}"
    )


def test_a_missing_object_other_than_the_dtypes_own_is_still_read_as_missing():
    arr = np.array(["".join(["u", str(i)]) for i in range(5000)], dtype=object)
    arr[4321] = np.nan  # not pd.NA: the quick address test misses it, the comparison refuses it
    with forced("every value"):
        masks = oc.text_masks(arr, na_value=pd.NA)
    assert masks is not None and np.flatnonzero(masks[0]).tolist() == [4321], f"expected row 4321 missing, got {masks}"


@pytest.mark.parametrize("layout", ["shared objects", "separate objects"])
def test_object_and_python_string_frames_sweep_as_the_arrow_frame(layout):
    rng = np.random.default_rng(7)
    n = 20_000
    pick = lambda options: [options[k] for k in rng.integers(0, len(options), n)]  # noqa: E731
    texts = ["u://a", " ", "", "\u3000", "p@1", None]
    data = {
        "initiator": pick(list(INITIATORS)),
        "shape": pick(list(SHAPES)),
        "bytes": rng.integers(0, 9000, n),
        "current": rng.random(n) < 0.8,
        "allowed": rng.random(n) < 0.9,
        "sideEffects": rng.random(n) < 0.3,
        "uri": pick(texts),
        "mime": pick(texts),
        "provenance": pick(texts),
    }
    if layout == "separate objects":
        for name in ("initiator", "shape", "uri", "mime", "provenance"):
            data[name] = ["".join(list(v)) if v else v for v in data[name]]
    base = pd.DataFrame(data)
    names = ["initiator", "shape", "uri", "mime", "provenance"]
    want = sweep(base.astype(dict.fromkeys(names, "str")))["outcome"].tolist()
    for dtype in (object, pd.StringDtype("python")):
        got = sweep(base.astype(dict.fromkeys(names, dtype)))["outcome"].tolist()
        diff = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert not diff, f"{layout}, {dtype}: rows {diff[:5]} differ from the arrow frame"


@pytest.mark.parametrize("path", PATHS)
def test_a_true_false_nan_flag_column_is_read_as_one_value_at_a_time_and_a_stray_value_is_named(path):
    """Object flag columns as ``pd.DataFrame`` builds them (True/False with NaN or None): unknown
    side effects, a missing ``requiresCurrent`` false, and anything else named by its row."""
    n = 9_000
    flags = np.array([True, False, np.nan, None, np.True_, np.False_], dtype=object)[np.arange(n) % 6]
    frame = pd.DataFrame(
        {
            "initiator": "application",
            "shape": "listed-resource",
            "bytes": np.zeros(n, dtype=np.int64),
            "current": False,
            "allowed": True,
            "sideEffects": pd.Series(flags, dtype=object),
            "requiresCurrent": pd.Series(flags, dtype=object),
            "uri": "u://x",
            "mime": "m/x",
            "provenance": "p",
        }
    )
    with forced(path):
        got = sweep(frame)["outcome"].astype(str).tolist()
    # True requires current content (and this is not current); False and missing do not.
    want = {0: "stale-content", 1: "listed-resource", 4: "stale-content", 5: "listed-resource"}
    expected = [want.get(i % 6, "side-effects-unknown") for i in range(n)]
    assert got == expected, f"{path}: expected {expected[:6]} repeated, got {got[:6]}..."
    frame.loc[8_765, "sideEffects"] = "yes"
    with forced(path), pytest.raises(CaseError) as e:
        columns_of(frame)
    assert e.value.field == "sideEffects" and "row 8765: 'yes'" in str(e.value), f"{path}: got {e.value}"


def _flag_frame(flags: np.ndarray) -> pd.DataFrame:
    n = len(flags)
    return pd.DataFrame(
        {
            "initiator": "application",
            "shape": "listed-resource",
            "bytes": np.zeros(n, dtype=np.int64),
            "current": False,
            "allowed": True,
            "sideEffects": False,
            "requiresCurrent": pd.Series(flags, dtype=object),
            "uri": "u://x",
            "mime": "m/x",
            "provenance": "p",
        }
    )


@pytest.mark.parametrize("many_missing_objects", [False, True])
def test_a_flag_column_of_the_true_and_false_objects_reads_every_other_object_as_route_does(many_missing_objects):
    """The True and False singletons are found by address; every other object in the column (a
    numpy.bool_, None, NaN, pd.NA, or thousands of distinct NaN objects) is still read as one value
    at a time is, and 1, 1.0, "True" or numpy's 1 are refused by row, though 1 == True."""
    n = 20_000
    flags = np.array([True, False], dtype=object)[np.arange(n) % 2]
    odd = {101: np.True_, 202: np.False_, 303: None, 404: float("nan"), 505: pd.NA, 606: np.True_}
    for row, value in odd.items():
        flags[row] = value
    if many_missing_objects:  # more distinct objects than are decided one object at a time
        flags[1_000:10_000:2] = [float("nan") for _ in range(1_000, 10_000, 2)]
    got = sweep(_flag_frame(flags))["outcome"].astype(str).tolist()
    # requiresCurrent True on content that is not current: stale; False or missing: accepted.
    expected = ["stale-content" if v is True or v is np.True_ else "listed-resource" for v in flags]
    diff = [i for i, (a, b) in enumerate(zip(got, expected)) if a != b]
    assert not diff, f"rows {diff[:5]} differ: {[(got[i], expected[i]) for i in diff[:5]]}"
    for stray in (1, 1.0, "True", np.int64(1), 0):
        bad = flags.copy()
        bad[12_345] = stray
        with pytest.raises(CaseError) as e:
            columns_of(_flag_frame(bad))
        assert e.value.field == "requiresCurrent" and "row 12345" in str(e.value), f"{stray!r}: got {e.value}"
