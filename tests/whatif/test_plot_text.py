"""The what-if plots' text equivalents: the plot's own numbers as a table, and an alt text naming the finding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from custody_lab.core.errors import CaseError
from custody_lab.sweep import compare, grid, sweep
from custody_lab.whatif.plot_text import (
    bytes_shape_text,
    outcome_counts_by,
    outcome_share_text,
    policy_comparison_text,
    runs,
    shape_size_cells,
)

SWEPT = pd.DataFrame(
    {
        "kind": ["a", "a", "a", "b", None],
        "outcome": ["permission-denied", "listed-resource", "listed-resource", "stale-content", "listed-resource"],
    }
)


@pytest.mark.parametrize(
    ("values", "expected"),
    [([], []), ([7], [(0, 1)]), ([1, 1, 2, 1], [(0, 2), (2, 3), (3, 4)]), (["x"] * 3, [(0, 3)])],
)
def test_runs_are_the_index_ranges_of_equal_neighbours(values, expected):
    assert runs(values) == expected, f"runs({values}): expected {expected}, got {runs(values)}"


def test_counts_by_a_column_keep_outcome_order_and_name_missing_values():
    counts = outcome_counts_by(SWEPT, "kind")
    assert counts.columns.tolist() == ["listed-resource", "permission-denied", "stale-content"], counts.columns
    assert counts.index.tolist() == ["(missing)", "a", "b"], counts.index
    assert counts.loc["a"].tolist() == [2, 1, 0], counts.loc["a"].tolist()


@pytest.mark.parametrize(
    ("frame", "missing"),
    [(SWEPT.drop(columns="outcome"), "'outcome'"), (SWEPT, "'shape'"), (SWEPT.iloc[:0], "at least one row")],
)
def test_counts_of_a_frame_without_the_columns_or_rows_are_refused_naming_what_is_missing(frame, missing):
    with pytest.raises(CaseError, match=missing):
        outcome_counts_by(frame, "shape" if missing == "'shape'" else "kind")


def test_the_share_table_gives_each_values_most_common_outcome_and_the_alt_the_overall_one():
    text = outcome_share_text(SWEPT, by="kind")
    row = text.table.set_index("kind").loc["a"]
    got = (row["rows"], row["most common outcome"], row["its share"], row["all outcomes"])
    expected = (3, "listed-resource", "67%", "listed-resource 2 (67%), permission-denied 1 (33%)")
    assert got == expected, f"kind a: expected {expected}, got {got}"
    assert text.alt.startswith("Stacked bars, one per kind value (3 bars, 5 rows)"), text.alt
    assert text.alt.endswith("the most common outcome is listed-resource (60% of rows)."), text.alt


def test_a_tie_for_most_common_goes_to_the_outcome_listed_first():
    tied = pd.DataFrame({"kind": ["a", "a"], "outcome": ["stale-content", "listed-resource"]})
    row = outcome_share_text(tied, by="kind").table.iloc[0]
    assert (row["most common outcome"], row["its share"]) == ("listed-resource", "50%"), row.to_dict()


def test_the_bytes_map_splits_a_shape_where_its_result_changes_at_the_embed_limit():
    swept = sweep(grid(bytes=[10, 20, 5000]))
    text = bytes_shape_text(swept)
    embedded = text.table[text.table["shape"] == "embedded-resource"]
    bands = embedded[["from bytes", "to bytes", "rows", "accepted"]].values.tolist()
    assert bands == [[10, 20, 96, "12%"], [5000, 5000, 48, "0%"]], bands
    assert "embed-over-budget 19%" in embedded.iloc[1]["refusals"], embedded.iloc[1]["refusals"]
    listed = text.table[text.table["shape"] == "listed-resource"]
    assert listed[["from bytes", "to bytes"]].values.tolist() == [[10, 5000]], "a read's result does not change by size"
    assert "embed limit of 4096 bytes; 6 bands" in text.alt and f"{len(swept):,} rows" in text.alt, text.alt
    assert "embed limit of 2048 bytes" in bytes_shape_text(swept, {"embedLimitBytes": 2048}).alt


def test_the_bytes_map_cells_hold_the_accepted_share_per_shape_and_size():
    swept = sweep(grid(bytes=[10, 5000]))
    sizes, shapes, accepted, totals, refusals = shape_size_cells(swept)
    assert sizes.tolist() == [10, 5000] and shapes[0] == "listed-resource", (sizes, shapes)
    share = accepted.loc["embedded-resource", 5000]
    assert share == 0.0 and totals[("embedded-resource", 5000)] == 48, (share, totals[("embedded-resource", 5000)])
    assert refusals[("embedded-resource", 5000)]["embed-over-budget"] == 9, refusals[("embedded-resource", 5000)]
    with pytest.raises(CaseError, match="'accepted'"):
        shape_size_cells(swept.drop(columns="accepted"))


def test_the_comparison_table_counts_each_outcome_before_and_after_and_names_the_largest_change():
    comparison = compare(grid(), None, {"embedLimitBytes": 2048})
    text = policy_comparison_text(comparison)
    table = text.table.set_index("outcome")
    assert (table["change"] == table["after"] - table["before"]).all(), table
    assert table["before"].sum() == table["after"].sum() == comparison.cases, table.sum()
    assert table.loc["embed-over-budget", "change"] == 36 == np.abs(table["change"]).max(), table["change"]
    assert text.alt.endswith(f"{comparison.changed:,} cases change outcome. The largest change is embed-over-budget.")


def test_a_comparison_where_nothing_changes_names_no_largest_change():
    text = policy_comparison_text(compare(grid(bytes=[100]), None, None))
    assert (text.table["change"] == 0).all() and "largest change" not in text.alt, text.alt
