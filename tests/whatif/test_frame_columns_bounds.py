"""A sweep frame's column names are checked in one pass (issue 24 §1): a name repeated is found
by counting once, and an extra column is compared only with the case fields of about its length,
which finds exactly the misspellings a search over every field finds."""

from __future__ import annotations

import difflib
import random

import pandas as pd
import pytest

from custody_lab.core.errors import CaseError
from custody_lab.core.model import FIELD_SPECS
from custody_lab.whatif import validation
from custody_lab.whatif.validation import columns_of

REQUIRED = {"initiator": ["model"], "shape": ["resource-link"], "bytes": [10], "current": [True], "allowed": [True]}


def frame_with(extra: list[str]) -> pd.DataFrame:
    return pd.DataFrame({**REQUIRED, "sideEffects": [None], **{name: [1] for name in extra}})


def test_a_name_repeated_among_40000_columns_is_named():
    frame = frame_with([f"c{i}" for i in range(40_000)])
    frame.columns = [*frame.columns[:-1], "c7"]
    with pytest.raises(CaseError) as caught:
        columns_of(frame)
    assert caught.value.field == "c7" and "appears more than once" in str(caught.value), str(caught.value)


def test_40000_extra_columns_that_resemble_no_field_are_accepted():
    cols = columns_of(frame_with([f"note-{i}" for i in range(40_000)]))
    assert cols.n == 1 and "uri" not in cols.given, cols.given


def test_a_misspelt_field_far_down_a_wide_frame_is_still_refused():
    with pytest.raises(CaseError) as caught:
        columns_of(frame_with([*(f"c{i}" for i in range(20_000)), "provenence"]))
    assert "did you mean 'provenance'?" in str(caught.value) and caught.value.field == "provenence"


def test_comparing_only_fields_of_about_the_same_length_finds_what_comparing_every_field_finds():
    rng = random.Random(24)
    letters = "abcdeimnoprstuvyCERS"
    names = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 34))) for _ in range(20_000)]
    names += [f[:-1] for f in FIELD_SPECS] + [f + "s" for f in FIELD_SPECS] + [f.upper() for f in FIELD_SPECS]
    differ = []
    for name in names:
        everywhere = difflib.get_close_matches(name, list(FIELD_SPECS), n=1, cutoff=validation._CUTOFF)
        near = validation._NEAR_BY_LENGTH.get(len(name))
        by_length = difflib.get_close_matches(name, near, n=1, cutoff=validation._CUTOFF) if near else []
        if everywhere != by_length:
            differ.append((name, everywhere, by_length))
    assert not differ, differ[:5]
    assert sum(1 for n in names if difflib.get_close_matches(n, list(FIELD_SPECS), n=1, cutoff=0.85)) > 20
