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
    "PROGRESS_FROM_BYTES",
    "LoadResult",
    "Progress",
    "load_cases",
    "load_fixture",
    "load_policy",
    "load_table",
    "parse_cases",
    "progress_line",
    "read_cases",
]

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .errors import CaseError, CaseFileError, Problem, UnknownCaseError
from .model import FIELD_SPECS, Case, Policy, describe, short
from .tables import Entry, Table, load_policy, parse_table, read_table
from .text import visible

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


#: ``progress(done, total)``: how many bytes of the file have been read and validated, of how many.
Progress = Callable[[int, int], None]
#: A case file at least this large shows on the terminal how far its loading has got.
PROGRESS_FROM_BYTES = 4 << 20


def progress_line(path: str | Path, stream: TextIO | None = None) -> Progress | None:
    """A ``progress`` callback that writes "reading FILE: 40% of 96.0 MB" to ``stream`` (stderr),
    for a file of :data:`PROGRESS_FROM_BYTES` or more (``None`` for a smaller one): one line
    rewritten in place on a terminal, a line per tenth otherwise. ``route`` and ``sweep`` use it;
    a notebook shows a bar instead (the views layer), never this.

    Example:
        >>> progress_line(__file__) is None  # a small file loads without a word
        True
    """
    try:
        size = os.stat(path).st_size
    except OSError:
        return None
    if size < PROGRESS_FROM_BYTES:
        return None
    out = stream if stream is not None else sys.stderr
    name, tty, shown = visible(Path(path).name), out.isatty(), [-1]

    def show(done: int, total: int) -> None:
        percent = done * 100 // total if total else 100
        if not tty:
            percent -= percent % 10
        if percent <= shown[0]:
            return
        shown[0] = percent
        line = f"reading {name}: {percent:3d}% of {total / 1e6:.1f} MB"
        if tty:
            print("\r" + line, end="\n" if percent == 100 else "", file=out, flush=True)
        else:
            print(line, file=out, flush=True)

    return show


class _Reporter:
    """Calls ``progress`` about once per percent of the file, and once at the end."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress = progress
        self.total = total
        self.step = max(total // 100, 1)
        self.next = 0

    def __call__(self, done: int) -> None:
        if self.progress is not None and done >= self.next:
            self.progress(min(done, self.total), self.total)
            self.next = done + self.step

    def finish(self) -> None:
        if self.progress is not None:
            self.progress(self.total, self.total)


def _problems_of(where: str, e: CaseError) -> list[Problem]:
    return [Problem(where, p.field, str(p)) for p in e.problems]


def _all_problems(entry: Entry) -> list[Problem]:
    """A row's cell problems and those of its other fields, in the field table's order."""
    found = list(entry.problems)
    bad = {p.field for p in found}
    try:
        Case.from_dict(entry.value)
    except CaseError as e:
        found += [p for p in _problems_of(entry.where, e) if p.field not in bad]
    order = {name: i for i, name in enumerate(FIELD_SPECS)}
    return sorted(found, key=lambda p: order.get(p.field or "", -1))


def _variant(where: str, variant: Any, by_id: dict[str, tuple[Case, Entry]]) -> Mapping[str, Any] | list[Problem]:
    """The case mapping an adversarial variant describes, or its problems (all of them)."""
    if not isinstance(variant, Mapping):
        return [Problem(where, None, f"an adversarial variant must be an object; got {describe(variant)}")]
    problems = [
        Problem(where, str(k), f"unknown key {short(k)} in a variant (keys: {', '.join(_VARIANT_KEYS)})")
        for k in variant
        if k not in _VARIANT_KEYS
    ]
    problems += [
        Problem(where, k, f"missing key {k!r} in a variant (keys: {', '.join(_VARIANT_KEYS)})")
        for k in ("id", "from", "change")
        if k not in variant
    ]
    base_id, change = variant.get("from"), variant.get("change")
    if "from" in variant and not isinstance(base_id, str):
        problems.append(Problem(where, "from", f"'from' must be the id of a case (a string); got {describe(base_id)}"))
    elif "from" in variant and base_id not in by_id:
        problems.append(
            Problem(where, "from", f"variant {short(variant.get('id'))} starts from unknown case {short(base_id)}")
        )
    if "change" in variant and (not isinstance(change, Mapping) or not change):
        problems.append(Problem(where, "change", "'change' must be an object of fields to change"))
    if problems or not isinstance(base_id, str) or not isinstance(change, Mapping):
        return problems
    return {**by_id[base_id][0].to_dict(), **change, "id": variant["id"]}


def _load(table: Table, progress: Progress | None = None) -> tuple[LoadResult, list[Case]]:
    """Validate every entry of a table as a case; the adversarial cases are also returned alone."""
    problems = list(table.problems)
    cases: list[Case] = []
    adversarial: list[Case] = []
    by_id: dict[str, tuple[Case, Entry]] = {}
    expected: dict[str, str] = {}
    report = _Reporter(progress, table.size)

    def add(entry: Entry, mapping: Any, into: list[Case]) -> bool:
        # entry.where is only read for a problem: a JSON file's lines are counted only then
        try:
            case = Case.from_dict(mapping)
        except CaseError as e:
            problems.extend(_problems_of(entry.where, e))
            return False
        if case.id in by_id:
            first = by_id[case.id][1].where
            problems.append(Problem(entry.where, "id", f"duplicate id {short(case.id)} (first seen at {first})"))
            return False
        by_id[case.id] = (case, entry.place())  # the place only: the row's cells are not kept
        into.append(case)
        return True

    seen = 0
    for entry in table.entries:
        seen += 1
        if not entry.problems:
            add(entry, entry.value, cases)
        elif isinstance(entry.value, Mapping):  # the cells that could be read: their problems too
            problems.extend(_all_problems(entry))
        else:
            problems.extend(entry.problems)
        report(entry.offset)
    for entry in table.variants:
        seen += 1
        made = _variant(entry.where, entry.value, by_id)
        if isinstance(made, list):
            problems.extend(made)
        elif add(entry, made, adversarial) and "expect" in entry.value:
            expected[entry.value["id"]] = str(entry.value["expect"])
    report.finish()
    if not seen and not problems:
        problems.append(Problem(table.source, None, "the file holds no cases (a header or an empty list only)"))
    return LoadResult(table.source, cases + adversarial, problems, table.policy, expected), adversarial


def load_table(table: Table, progress: Progress | None = None) -> LoadResult:
    """Validate every entry of a parsed table as a case (the one loader, whoever parsed the file).

    ``read_cases`` calls it on what :func:`~custody_lab.core.tables.read_table` parsed; the
    what-if readers call it on the same parse when a file is not one they accept whole, so the
    problems they report are this function's, of the one parse.

    Example:
        >>> from custody_lab.core.tables import parse_table
        >>> r = load_table(parse_table("id,bytes\\nx,1\\n", fmt="csv", source="g.csv"))
        >>> [(p.location, p.field) for p in r.problems][:2]
        [('g.csv line 2', 'initiator'), ('g.csv line 2', 'operation')]
    """
    return _load(table, progress)[0]


def parse_cases(text: str, *, fmt: str, source: str = "<text>") -> LoadResult:
    """Parse case text in ``fmt`` ("json" or "csv"); never raises for bad rows, reports them.

    Raises:
        CaseFileError: for a format that is neither.

    Example:
        >>> text = "id,initiator,operation,shape,bytes,current,allowed\\nx,robot,read,listed-resource,-1,true,yes\\n"
        >>> r = parse_cases(text, fmt="csv", source="c.csv")
        >>> r.cases, [(p.location, p.field) for p in r.problems]
        ([], [('c.csv line 2', 'initiator'), ('c.csv line 2', 'bytes'), ('c.csv line 2', 'allowed')])
    """
    return load_table(parse_table(text, fmt=fmt, source=source))


def read_cases(path: str | Path, *, progress: Progress | None = None) -> LoadResult:
    """Read a case file and return the good cases together with every problem found.

    A bad row's problems are all listed (a row with three bad fields gives three problems, each
    with the row's location and its field); a file that holds no cases is a problem too.

    Args:
        path: a ``.json`` or ``.csv`` file.
        progress: called as ``progress(done, total)`` with the bytes read and validated so far,
            about once per percent of the file and once at the end (for a bar or a status line).

    Raises:
        CaseFileError: only when the file cannot be read at all (its rows' problems are returned).

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> seen = []
        >>> r = read_cases(data_path("cases.json"), progress=lambda done, total: seen.append(done == total))
        >>> len(r.cases), seen[-1]
        (10, True)
    """
    return load_table(read_table(path), progress)


def load_cases(path: str | Path, *, progress: Progress | None = None) -> list[Case]:
    """Read every case in a JSON or CSV file.

    Raises:
        CaseFileError: listing every bad row (file, line and field); its ``.cases`` holds the
            good rows, so nothing valid is lost.

    Example:
        >>> from custody_lab.core.paths import data_path
        >>> [c.id for c in load_cases(data_path("cases.json"))][:2]
        ['handbook', 'customer-record']
    """
    result = read_cases(path, progress=progress)
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
