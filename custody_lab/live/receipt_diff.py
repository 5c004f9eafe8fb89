"""The simulator's receipt beside the live one, field by field, with every difference named.

Seed 000 ("Ship a context-custody receipt") ends with the assignment this module carries out:
archive the fixture's receipt, "then compare the real integration field by field". A custody field
the real integration cannot produce is a design issue, so a missing value is a difference too.

Which fields are compared (and why the others are not):

- ``accepted`` and ``outcome`` (the selected shape or the rejection code): the decision itself.
- ``custody.actor``: who decided the transfer. No frame carries it: live mode records the host
  path that issued the exchange (a read the host's code asks for is the application's, a tool call
  stands for the model's proposal; a read the model proposes keeps both labels, notebook 08).
- ``custody.permissionChecked``, ``custody.uri``, ``custody.mime``, ``custody.provenance``,
  ``custody.bytes``, ``custody.sideEffects``: the custody record; live values come from the
  response (bytes are counted from the content that arrived, provenance from ``_meta``).

Not compared: ``custody.retrievedAt`` (the simulator pins ``policy.now``; live records the clock),
and everything only one side has (the live digest of the content, server name, method, cache
flag, template parameters, frames).
"""

from __future__ import annotations

__all__ = [
    "COMPARED_FIELDS",
    "NOT_COMPARED",
    "CaseComparison",
    "FieldDiff",
    "compare_fixture",
    "compare_receipts",
    "comparison_html",
    "comparison_table",
]

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.loading import Fixture, load_fixture
from ..core.receipts import canonical_json
from ..core.router import route
from ..views.html import table

#: The fields both sides must agree on, as dotted paths into the receipt.
COMPARED_FIELDS: tuple[str, ...] = (
    "accepted",
    "outcome",
    "custody.actor",
    "custody.permissionChecked",
    "custody.uri",
    "custody.mime",
    "custody.provenance",
    "custody.bytes",
    "custody.sideEffects",
)

#: Fields deliberately left out of the comparison, with the reason.
NOT_COMPARED: dict[str, str] = {
    "custody.retrievedAt": "the simulator pins policy.now; live mode records the real clock",
    "digest": "the receipt digest covers retrievedAt, so it differs whenever the time does",
    "contentDigest, server, method, cache, templateParams": "only live mode observes them",
}

_MISSING = object()


def _get(receipt: Mapping[str, Any], path: str) -> Any:
    if path == "outcome":
        return receipt.get("selected") if receipt.get("accepted") else receipt.get("rejection")
    value: Any = receipt
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


@dataclass(frozen=True)
class FieldDiff:
    """One compared field: the simulated value, the live value, and whether they agree."""

    field: str
    simulated: Any
    live: Any

    @property
    def agrees(self) -> bool:
        return (
            self.simulated is not _MISSING
            and self.live is not _MISSING
            and (type(self.simulated) is type(self.live) and self.simulated == self.live)
        )

    def explain(self) -> str:
        """A sentence naming the difference (empty when they agree)."""
        if self.agrees:
            return ""
        if self.live is _MISSING or self.live is None:
            return f"{self.field}: live mode could not supply it (simulator: {_show(self.simulated)})"
        return f"{self.field}: simulator {_show(self.simulated)}, live {_show(self.live)}"


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    return canonical_json(value)


@dataclass(frozen=True)
class CaseComparison:
    """One case: every compared field, simulated beside live."""

    case_id: str
    fields: tuple[FieldDiff, ...]
    live: Mapping[str, Any]
    simulated: Mapping[str, Any]

    @property
    def agrees(self) -> bool:
        return all(f.agrees for f in self.fields)

    @property
    def differences(self) -> tuple[FieldDiff, ...]:
        return tuple(f for f in self.fields if not f.agrees)


def compare_receipts(simulated: Mapping[str, Any], live: Mapping[str, Any]) -> tuple[FieldDiff, ...]:
    """Compare two receipts on :data:`COMPARED_FIELDS`.

    Example:
        >>> sim = {"accepted": True, "selected": "listed-resource", "custody": {"bytes": 1800}}
        >>> live = {"accepted": True, "selected": "listed-resource", "custody": {"bytes": 1799}}
        >>> [d.explain() for d in compare_receipts(sim, live) if d.field == "custody.bytes"]
        ['custody.bytes: simulator 1800, live 1799']
    """
    return tuple(FieldDiff(p, _get(simulated, p), _get(live, p)) for p in COMPARED_FIELDS)


def compare_fixture(live_receipts: Iterable[Any], fixture: Fixture | None = None) -> list[CaseComparison]:
    """Each seed case's simulated receipt beside its live one.

    Args:
        live_receipts: :class:`~custody_lab.live.live_receipts.LiveReceipt` values (or receipt dicts)
            whose ``id`` names a seed case.
        fixture: the seed fixture (``data/cases.json`` when omitted).

    Returns:
        One comparison per seed case, in the fixture's order; a case with no live receipt
        compares against an empty receipt, so every field is named as missing.
    """
    fixture = fixture or load_fixture()
    by_id: dict[str, Mapping[str, Any]] = {}
    for r in live_receipts:
        receipt = getattr(r, "receipt", r)
        by_id[receipt["id"]] = receipt
    out = []
    for case in fixture.cases:
        simulated = route(case, fixture.policy).to_dict()
        live = by_id.get(case.id, {})
        out.append(CaseComparison(case.id, compare_receipts(simulated, live), live, simulated))
    return out


def comparison_table(comparisons: Sequence[CaseComparison]) -> str:
    """A plain-text table: one row per case, then every difference named."""
    rows = [("case", "agrees", "simulated", "live", "bytes", "provenance")]
    for c in comparisons:
        rows.append(
            (
                c.case_id,
                "yes" if c.agrees else "NO",
                str(_get(c.simulated, "outcome")),
                str(_get(c.live, "outcome")) if c.live else "(no receipt)",
                f"{_show(_get(c.simulated, 'custody.bytes'))}/{_show(_get(c.live, 'custody.bytes'))}",
                str(_show(_get(c.live, "custody.provenance"))),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for c in comparisons:
        for d in c.differences:
            lines.append(f"  {c.case_id}: {d.explain()}")
    return "\n".join(lines)


def comparison_html(comparisons: Sequence[CaseComparison]) -> str:
    """An HTML table of the comparison; every value is escaped (it may come from a server)."""
    rows = [
        (c.case_id if i == 0 else "", d.field, _show(d.simulated), _show(d.live), "✓" if d.agrees else "✗ differs")
        for c in comparisons
        for i, d in enumerate(c.fields)
    ]
    return table(rows, head=("case", "field", "simulated", "live", ""))
