"""The text equivalents of the what-if plots: the same numbers as a table, and a one-paragraph alt text.

A chart is a picture of a table. Each function here computes the table a plot in :mod:`.plots`
draws (the plot reads its numbers from here, so the two cannot drift apart) and a short
description for a screen reader or a reader who would rather not decode hatches:

* :func:`outcome_share_text` — per value of one input, how many rows get each outcome;
* :func:`bytes_shape_text` — per shape, the size bands with one result, their accepted share and
  their refusals;
* :func:`policy_comparison_text` — per outcome, how many cases before and after.

Nothing here draws or imports matplotlib.
"""

from __future__ import annotations

__all__ = [
    "ChartText",
    "bytes_shape_text",
    "outcome_counts_by",
    "outcome_share_text",
    "policy_comparison_text",
    "runs",
    "shape_size_cells",
]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import CaseError
from ..core.model import SHAPES, Policy
from .columns import OUTCOMES
from .compare import Comparison
from .validation import as_policy


@dataclass(frozen=True)
class ChartText:
    """What a chart shows, without the picture.

    Attributes:
        alt: one or two sentences: what is drawn, over how many rows, and the largest finding.
        table: the chart's numbers, one row per bar, band or outcome.
    """

    alt: str
    table: pd.DataFrame


def runs(values: list[Any]) -> list[tuple[int, int]]:
    """[start, stop) index ranges of consecutive equal values.

    Example:
        >>> runs([1, 1, 2, 1])
        [(0, 2), (2, 3), (3, 4)]
    """
    found, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            found.append((start, i))
            start = i
    return found


def outcome_counts_by(swept: pd.DataFrame, by: str) -> pd.DataFrame:
    """Rows: the values of ``by``; columns: the outcomes that occur, in outcome order; cells: row counts.

    Raises:
        CaseError: ``swept`` has no ``outcome`` or no ``by`` column, or no rows.

    Example:
        >>> from custody_lab.sweep import grid, sweep
        >>> outcome_counts_by(sweep(grid()), "initiator").index.tolist()
        ['application', 'model']
    """
    if "outcome" not in swept.columns or by not in swept.columns:
        missing = "outcome" if "outcome" not in swept.columns else by
        raise CaseError(f"outcome_share needs a swept frame with an {missing!r} column", missing)
    table = pd.crosstab(swept[by].astype(object).where(swept[by].notna(), "(missing)"), swept["outcome"])
    table = table.loc[:, [o for o in OUTCOMES if o in table.columns and table[o].sum() > 0]]
    if table.empty:
        raise CaseError("outcome_share needs at least one row", by)
    return table


def _share(n: int, total: int) -> str:
    return f"{n / total:.0%}" if total else "0%"


def outcome_share_text(swept: pd.DataFrame, by: str = "shape") -> ChartText:
    """The text equivalent of :func:`.plots.outcome_share`: counts and shares per value of ``by``.

    Example:
        >>> from custody_lab.sweep import grid, sweep
        >>> text = outcome_share_text(sweep(grid()), by="initiator")
        >>> text.table.columns.tolist()[:4]
        ['initiator', 'rows', 'most common outcome', 'its share']
        >>> text.alt.startswith("Stacked bars, one per initiator value")
        True
    """
    counts = outcome_counts_by(swept, by)
    rows = []
    for value, line in counts.iterrows():
        total = int(line.sum())
        top = max(line.index, key=lambda o: (int(line[o]), -OUTCOMES.index(o)))
        rows.append(
            {
                by: str(value),
                "rows": total,
                "most common outcome": top,
                "its share": _share(int(line[top]), total),
                "all outcomes": ", ".join(
                    f"{o} {int(line[o])} ({_share(int(line[o]), total)})" for o in line.index if line[o]
                ),
            }
        )
    table = pd.DataFrame(rows)
    total = int(counts.to_numpy().sum())
    overall = counts.sum(axis=0)
    top = max(overall.index, key=lambda o: (int(overall[o]), -OUTCOMES.index(o)))
    alt = (
        f"Stacked bars, one per {by} value ({len(counts)} bars, {total:,} rows): each bar splits into the share "
        f"of rows with each outcome. Overall the most common outcome is {top} "
        f"({_share(int(overall[top]), total)} of rows)."
    )
    return ChartText(alt, table)


def _mix_counts(swept: pd.DataFrame) -> dict[tuple[str, int], dict[str, int]]:
    refusals = swept.groupby(["shape", "bytes", "rejection"], observed=True).size()
    per_cell: dict[tuple[str, int], dict[str, int]] = {}
    for shape, size, code, count in refusals.reset_index().itertuples(index=False, name=None):
        per_cell.setdefault((str(shape), int(size)), {})[str(code)] = int(count)
    return per_cell


def shape_size_cells(
    swept: pd.DataFrame,
) -> tuple[np.ndarray, list[str], pd.DataFrame, pd.Series, dict[tuple[str, int], dict[str, int]]]:
    """The numbers behind the bytes × shape map: sizes, shapes, accepted share, row counts, refusals per cell.

    Raises:
        CaseError: a column the map needs is missing, or the frame has no rows.
    """
    for col in ("bytes", "shape", "outcome", "accepted"):
        if col not in swept.columns:
            raise CaseError(f"bytes_shape_map needs a swept frame with a {col!r} column", col)
    if swept.empty:
        raise CaseError("bytes_shape_map needs at least one row", "bytes")
    sizes = np.sort(swept["bytes"].unique())
    shapes = [s for s in SHAPES if (swept["shape"] == s).any()]
    accepted = swept.pivot_table(
        index="shape", columns="bytes", values="accepted", aggfunc="mean", observed=True
    ).reindex(index=shapes, columns=sizes)
    totals = swept.groupby(["shape", "bytes"], observed=True).size()
    return sizes, shapes, accepted, totals, _mix_counts(swept)


def bytes_shape_text(swept: pd.DataFrame, policy: Policy | Mapping[str, Any] | None = None) -> ChartText:
    """The text equivalent of :func:`.plots.bytes_shape_map`: one row per band of sizes with one result.

    Example:
        >>> from custody_lab.sweep import grid, sweep
        >>> text = bytes_shape_text(sweep(grid(bytes=[10, 20, 5000])))
        >>> text.table.loc[text.table["shape"] == "embedded-resource", ["from bytes", "to bytes"]].values.tolist()
        [[10, 20], [5000, 5000]]
    """
    p = as_policy(policy)
    sizes, shapes, accepted, totals, per_cell = shape_size_cells(swept)
    rows = []
    for shape in shapes:
        shares = [None if np.isnan(v) else round(float(v), 4) for v in accepted.loc[shape].to_numpy()]
        keys = [tuple(sorted(per_cell.get((shape, int(b)), {}).items())) for b in sizes]
        for start, stop in runs(list(zip(shares, keys))):
            if shares[start] is None:
                continue
            band = [int(b) for b in sizes[start:stop]]
            n = int(sum(int(totals.get((shape, b), 0)) for b in band))
            refused: dict[str, int] = {}
            for b in band:
                for code, count in per_cell.get((shape, b), {}).items():
                    refused[code] = refused.get(code, 0) + count
            rows.append(
                {
                    "shape": shape,
                    "from bytes": band[0],
                    "to bytes": band[-1],
                    "rows": n,
                    "accepted": f"{shares[start]:.0%}",
                    "refusals": ", ".join(
                        f"{c} {_share(k, n)}" for c, k in sorted(refused.items(), key=lambda kv: -kv[1])
                    ),
                }
            )
    table = pd.DataFrame(rows, columns=["shape", "from bytes", "to bytes", "rows", "accepted", "refusals"])
    alt = (
        f"A map of share accepted by shape (rows: {', '.join(shapes)}) and payload size "
        f"({int(sizes[0])}–{int(sizes[-1])} bytes, {len(swept):,} rows), with a dashed line at the embed limit "
        f"of {p.embed_limit_bytes} bytes; {len(table)} bands of sizes with one result."
    )
    return ChartText(alt, table)


def policy_comparison_text(comparison: Comparison) -> ChartText:
    """The text equivalent of :func:`.plots.policy_comparison`: cases per outcome before and after.

    Example:
        >>> from custody_lab.sweep import compare, grid
        >>> text = policy_comparison_text(compare(grid(), None, {"embedLimitBytes": 2048}))
        >>> text.table.columns.tolist()
        ['outcome', 'before', 'after', 'change']
    """
    summary = comparison.summary
    if summary.empty:
        raise CaseError("policy_comparison needs a comparison of at least one case", None)
    table = pd.DataFrame(
        {
            "outcome": [str(o) for o in summary.index],
            "before": summary["before"].astype(int).to_numpy(),
            "after": summary["after"].astype(int).to_numpy(),
        }
    )
    table["change"] = table["after"] - table["before"]
    moved = table.loc[table["change"] != 0]
    biggest = (
        f" The largest change is {moved.iloc[int(np.argmax(moved['change'].abs().to_numpy()))]['outcome']}."
        if len(moved)
        else ""
    )
    alt = (
        f"Paired bars per outcome: how many of {comparison.cases:,} cases get it before and after the policy "
        f"change; {comparison.changed:,} cases change outcome.{biggest}"
    )
    return ChartText(alt, table)
