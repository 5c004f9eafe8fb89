"""The capstone's first step: the design review of a server's inventory, one input per fix.

Route every capability of the server's inventory (the lab's inventory format, read by
:func:`custody_lab.load_cases`), then fix each refusal by changing **one** design input
(:func:`change_one_input`, :func:`review_design`) or keep it refused with a written reason.
Every capstone step raises :class:`CapstoneError`, defined here.
"""

from __future__ import annotations

__all__ = [
    "DESIGN_INPUTS",
    "GIVEN_INVENTORY",
    "CapstoneError",
    "DesignRow",
    "Fix",
    "change_one_input",
    "design_table",
    "review_design",
    "unknown_names",
]

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ...core.errors import CaseError, CustodyLabError
from ...core.model import FIELDS, Case, Decision, Policy
from ...core.paths import data_path
from ...core.router import route
from ...core.rules import RULES
from ...core.text import visible

#: The given server's inventory: six capabilities of a small notes server, four refused as designed.
GIVEN_INVENTORY = data_path("capstone", "notes-server.csv")

#: The inputs a design fix may change: every case field except its id and its free text.
DESIGN_INPUTS: tuple[str, ...] = tuple(f.name for f in FIELDS if f.name != "id" and f.kind != "text")


class CapstoneError(CustodyLabError, ValueError):
    """A capstone step was given something it cannot use; ``.where`` names the capability, line
    or file, ``.field`` the input or archive field."""

    def __init__(self, message: str, *, where: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.where = where
        self.field = field


@dataclass(frozen=True)
class Fix:
    """The one design input changed to fix a refusal: which, from what, to what."""

    field: str
    before: Any
    after: Any

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "before": self.before, "after": self.after}


def change_one_input(case: Case, change: Mapping[str, Any]) -> tuple[Case, Fix]:
    """``case`` with exactly one design input changed, and the :class:`Fix` that says which.

    Example:
        >>> big = Case.from_dict({"id": "export", "initiator": "model", "operation": "generate",
        ...     "shape": "embedded-resource", "uri": "export://all.md", "mime": "text/markdown",
        ...     "bytes": 52000, "current": True, "allowed": True, "sideEffects": False, "provenance": "n@1"})
        >>> fixed, fix = change_one_input(big, {"shape": "resource-link"})
        >>> route(fixed).outcome, fix.before
        ('resource-link', 'embedded-resource')

    Raises:
        CapstoneError: not exactly one input, not a design input (``id``, ``title`` and
            ``description`` decide nothing), a value equal to the current one, or a value the
            case model refuses (the message names the capability and the field).
    """
    where = case.id
    if not isinstance(change, Mapping) or len(change) != 1:
        names = ", ".join(repr(k) for k in change) if isinstance(change, Mapping) else repr(change)
        raise CapstoneError(
            f"capability {where!r}: a fix changes exactly one design input, as {{'field': value}}; got {names}",
            where=where,
        )
    ((name, value),) = change.items()
    if name not in DESIGN_INPUTS:
        raise CapstoneError(
            f"capability {where!r}: {name!r} is not a design input; the inputs are {', '.join(DESIGN_INPUTS)}",
            where=where,
            field=str(name),
        )
    before = case.get(name)
    if before == value and type(before) is type(value):
        raise CapstoneError(f"capability {where!r}: {name!r} is {before!r} already; change it", where=where, field=name)
    try:
        fixed = Case.from_dict({**case.to_dict(), name: value})
    except CaseError as e:
        raise CapstoneError(f"capability {where!r}: {e}", where=where, field=name) from e
    return fixed, Fix(name, before, value)


@dataclass(frozen=True)
class DesignRow:
    """One capability of the design review: as designed, as fixed, and what the router decides."""

    row: int  #: the capability's position in the inventory, from 1 (its CSV line is ``row + 1``)
    designed: Case
    case: Case  #: the case as reviewed (``designed`` with the fix applied, if any)
    before: Decision
    decision: Decision
    fix: Fix | None = None
    reason: str | None = None

    @property
    def status(self) -> Literal["accepted", "fixed", "refused"]:
        if not self.decision.accepted:
            return "refused"
        return "fixed" if self.fix is not None else "accepted"


def unknown_names(kind: str, names: Iterable[str], known: Sequence[str]) -> None:
    """Raise :class:`CapstoneError` naming every one of ``names`` that is not in ``known``.

    Example:
        >>> unknown_names("fixes", ["index"], ["index", "note"])  # all known: nothing happens
    """
    missing = [n for n in names if n not in known]
    if missing:
        raise CapstoneError(
            f"{kind} name {', '.join(repr(visible(n)) for n in missing)}, which the inventory does not have; "
            f"its capabilities are {', '.join(known)}",
            where=missing[0],
        )


def review_design(
    cases: Sequence[Case],
    *,
    fixes: Mapping[str, Mapping[str, Any]] | None = None,
    reasons: Mapping[str, str] | None = None,
    policy: Policy | None = None,
) -> tuple[DesignRow, ...]:
    """Route every capability, apply each one-input fix, and keep the written reasons.

    Args:
        cases: the inventory (``cl.load_cases(path)``).
        fixes: capability id -> ``{"input": new value}`` (exactly one input each).
        reasons: capability id -> why it stays refused (the rubric asks one for every refusal).
        policy: the host policy (the seed's by default).

    Raises:
        CapstoneError: a fix or reason names a capability the inventory lacks, two capabilities
            share an id, or a fix is not one design input (see :func:`change_one_input`).
    """
    fixes, reasons = dict(fixes or {}), dict(reasons or {})
    ids = [c.id for c in cases]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise CapstoneError(f"the inventory names {', '.join(map(repr, twice))} more than once", where=twice[0])
    unknown_names("fixes", fixes, ids)
    unknown_names("reasons", reasons, ids)
    rows = []
    for n, designed in enumerate(cases, start=1):
        case, fix = designed, None
        if designed.id in fixes:
            case, fix = change_one_input(designed, fixes[designed.id])
        before = route(designed, policy)
        rows.append(DesignRow(n, designed, case, before, route(case, policy), fix, reasons.get(designed.id)))
    return tuple(rows)


def design_table(rows: Iterable[DesignRow]) -> list[dict[str, Any]]:
    """The review as rows for a table: outcome as designed, the fix, the outcome now, the reason,
    and for a refusal the test of the rule that refuses it (the rule table's own words).

    Text from the inventory is passed through :func:`~custody_lab.core.text.visible` (a table
    renderer escapes it again for HTML).
    """
    tests = {rule.code: rule.test for rule in RULES}
    out = []
    for r in rows:
        fix = f"{r.fix.field}: {r.fix.before!r} → {r.fix.after!r}" if r.fix else ""
        out.append(
            {
                "row": r.row,
                "id": visible(r.case.id),
                "as designed": r.before.outcome,
                "fix (one input)": visible(fix),
                "now": r.decision.outcome,
                "status": r.status,
                "reason": visible(r.reason or ""),
                "refused by": tests.get(r.decision.rejection or "", ""),
            }
        )
    return out
