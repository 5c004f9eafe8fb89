"""Read case files (JSON or CSV) and report every bad row without losing a good one.

JSON files hold either a list of cases or an object ``{"cases": [...], "adversarial": [...],
"policy": {...}}`` where each adversarial entry is a seed case with one input changed::

    {"id": "oversize-embed", "from": "approve-draft", "change": {"bytes": 9000},
     "expect": "embed-over-budget"}

CSV files have one case a row under a header of the seed's camelCase keys; an empty cell means
"absent", ``true``/``false`` are booleans and ``bytes`` is a whole number. Reading cells and files is
:mod:`custody_lab.core.tables` (the one reader, shared with the what-if sweep); this module turns
each entry into a validated :class:`~custody_lab.core.model.Case`.
"""

from __future__ import annotations

__all__ = [
    "Fixture",
    "LoadResult",
    "load_cases",
    "load_fixture",
    "load_policy",
    "parse_cases",
    "read_cases",
]

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CaseError, CaseFileError, Problem, UnknownCaseError
from .model import Case, Policy
from .tables import Entry, Table, load_policy, parse_table, read_table

_VARIANT_KEYS = ("id", "from", "change", "expect")


@dataclass(frozen=True)
class LoadResult:
    """What a case file held: the valid cases, every problem, and the file's policy if it had one."""

    source: str
    cases: list[Case]
    problems: list[Problem]
    policy: Policy | None = None
    expected: dict[str, str] = field(default_factory=dict)  # id -> expected outcome, when given

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Fixture:
    """The seed fixture: its policy, the six seed cases and the four adversarial variants."""

    policy: Policy
    cases: list[Case]
    adversarial: list[Case]
    expected: dict[str, str]

    @property
    def all_cases(self) -> list[Case]:
        return self.cases + self.adversarial

    def case(self, case_id: str) -> Case:
        """The fixture case with this id.

        Raises:
            UnknownCaseError: (a ``KeyError``) listing the ids, when there is no such case.

        Example:
            >>> load_fixture().case("handbook").shape
            'listed-resource'
        """
        for c in self.all_cases:
            if c.id == case_id:
                return c
        raise UnknownCaseError(case_id, [c.id for c in self.all_cases])


def _collect(
    entries: tuple[Entry, ...], variants: tuple[Entry, ...], problems: list[Problem]
) -> tuple[list[Case], list[Case], dict[str, str]]:
    cases: list[Case] = []
    by_id: dict[str, tuple[Case, dict[str, Any], str]] = {}
    expected: dict[str, str] = {}

    def add(where: str, mapping: Any, into: list[Case]) -> None:
        try:
            case = Case.from_dict(mapping)
        except CaseError as e:
            problems.append(Problem(where, e.field, str(e)))
            return
        if case.id in by_id:
            problems.append(Problem(where, "id", f"duplicate id {case.id!r} (first seen at {by_id[case.id][2]})"))
            return
        by_id[case.id] = (case, dict(mapping), where)
        into.append(case)

    for entry in entries:
        if entry.problem is not None:
            problems.append(entry.problem)
        else:
            add(entry.where, entry.value, cases)
    adversarial: list[Case] = []
    for entry in variants:
        where, variant = entry.where, entry.value
        if not isinstance(variant, Mapping):
            problems.append(Problem(where, None, "an adversarial variant must be an object"))
            continue
        unknown = [k for k in variant if k not in _VARIANT_KEYS]
        missing = [k for k in ("id", "from", "change") if k not in variant]
        if unknown or missing:
            bad = unknown[0] if unknown else missing[0]
            what = "unknown key" if unknown else "missing key"
            problems.append(Problem(where, bad, f"{what} {bad!r} in a variant (keys: {', '.join(_VARIANT_KEYS)})"))
            continue
        base = by_id.get(variant["from"])
        if base is None:
            problems.append(
                Problem(where, "from", f"variant {variant['id']!r} starts from unknown case {variant['from']!r}")
            )
            continue
        if not isinstance(variant["change"], Mapping) or not variant["change"]:
            problems.append(Problem(where, "change", "'change' must be an object of fields to change"))
            continue
        mapping = {**base[1], **variant["change"], "id": variant["id"]}
        before = len(adversarial)
        add(where, mapping, adversarial)
        if len(adversarial) > before and "expect" in variant:
            expected[variant["id"]] = str(variant["expect"])
    return cases, adversarial, expected


def _load(table: Table) -> tuple[LoadResult, list[Case]]:
    """Validate every entry of a table as a case; the adversarial cases are also returned alone."""
    problems = list(table.problems)
    cases, adversarial, expected = _collect(table.entries, table.variants, problems)
    return LoadResult(table.source, cases + adversarial, problems, table.policy, expected), adversarial


def parse_cases(text: str, *, fmt: str, source: str = "<text>") -> LoadResult:
    """Parse case text in ``fmt`` ("json" or "csv"); never raises for bad rows, reports them.

    Raises:
        CaseFileError: for a format that is neither.

    Example:
        >>> r = parse_cases("id,initiator\\nx,robot\\n", fmt="csv", source="c.csv")
        >>> r.cases, [(p.location, p.field) for p in r.problems]
        ([], [('c.csv line 2', 'initiator')])
    """
    return _load(parse_table(text, fmt=fmt, source=source))[0]


def read_cases(path: str | Path) -> LoadResult:
    """Read a case file and return the good cases together with every problem found.

    Raises:
        CaseFileError: only when the file cannot be read at all (its rows' problems are returned).
    """
    return _load(read_table(path))[0]


def load_cases(path: str | Path) -> list[Case]:
    """Read every case in a JSON or CSV file.

    Raises:
        CaseFileError: listing every bad row (file, line and field); its ``.cases`` holds the
            good rows, so nothing valid is lost.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> [c.id for c in load_cases(data_path("cases.json"))][:2]
        ['handbook', 'customer-record']
    """
    result = read_cases(path)
    if result.problems:
        raise CaseFileError(str(path), result.problems, result.cases)
    return result.cases


def load_fixture(path: str | Path | None = None) -> Fixture:
    """The seed fixture from ``data/cases.json`` (or ``path``): policy, six cases, four variants.

    Raises:
        CaseFileError: when the file cannot be read or has a bad entry.
    """
    from .paths import data_path

    p = Path(path) if path is not None else data_path("cases.json")
    result, adversarial = _load(read_table(p))
    if result.problems:
        raise CaseFileError(str(p), result.problems, result.cases)
    seed = [c for c in result.cases if c not in adversarial]
    return Fixture(result.policy or Policy(), seed, adversarial, result.expected)
