"""Read case files (JSON or CSV) and report every bad row without losing a good one.

JSON files hold either a list of cases or an object ``{"cases": [...], "adversarial": [...],
"policy": {...}}`` where each adversarial entry is a seed case with one input changed::

    {"id": "oversize-embed", "from": "approve-draft", "change": {"bytes": 9000},
     "expect": "embed-over-budget"}

CSV files have one case a row under a header of the seed's camelCase keys; an empty cell means
"absent", ``true``/``false`` are booleans and ``bytes`` is a whole number.
"""

from __future__ import annotations

__all__ = ["Fixture", "LoadResult", "load_cases", "load_fixture", "parse_cases", "read_cases"]

import csv
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import CaseError, CaseFileError, PolicyError, Problem
from .model import FIELDS, Case, Policy

_TOP_KEYS = ("fixture", "policy", "cases", "adversarial")
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
        """The fixture case with this id; KeyError lists the ids when it is unknown."""
        for c in self.all_cases:
            if c.id == case_id:
                return c
        ids = ", ".join(c.id for c in self.all_cases)
        raise KeyError(f"no fixture case {case_id!r}; the cases are: {ids}")


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _array_items(text: str, start: int, decoder: json.JSONDecoder) -> Iterator[tuple[int, Any]]:
    """Yield (line, value) for each element of the JSON array whose '[' is at ``start``."""
    i = _skip_ws(text, start + 1)
    if i < len(text) and text[i] == "]":
        return
    while True:
        value, end = decoder.raw_decode(text, i)
        yield _line_of(text, i), value
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        return


def _object_members(text: str, start: int, decoder: json.JSONDecoder) -> Iterator[tuple[str, int]]:
    """Yield (key, value start index) for each member of the JSON object at ``start``."""
    i = _skip_ws(text, start + 1)
    if i < len(text) and text[i] == "}":
        return
    while True:
        key, end = decoder.raw_decode(text, i)
        i = _skip_ws(text, end)
        i = _skip_ws(text, i + 1)  # past ':'
        yield key, i
        _, end = decoder.raw_decode(text, i)
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
            continue
        return


def _lines_of_array(text: str, key: str | None) -> list[int]:
    """Line numbers of the elements of the top-level array (or of ``obj[key]``)."""
    decoder = json.JSONDecoder()
    start = _skip_ws(text, 0)
    if key is not None:
        for k, pos in _object_members(text, start, decoder):
            if k == key:
                start = pos
                break
        else:
            return []
    return [line for line, _ in _array_items(text, start, decoder)]


def _csv_value(name: str, raw: str) -> Any:
    spec = next((f for f in FIELDS if f.name == name), None)
    text = raw.strip()
    if spec is None:
        return raw
    if text == "" or (spec.nullable and text.lower() == "null"):
        return None
    if spec.kind == "bool":
        low = text.lower()
        return {"true": True, "false": False}.get(low, text)
    if spec.kind == "int":
        try:
            return int(text)
        except ValueError:
            return text
    return raw


def _collect(
    source: str,
    entries: list[tuple[str, Any]],
    variants: list[tuple[str, Any]],
    problems: list[Problem],
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

    for where, mapping in entries:
        add(where, mapping, cases)
    adversarial: list[Case] = []
    for where, variant in variants:
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


def _parse_json(text: str, source: str) -> tuple[LoadResult, list[Case]]:
    problems: list[Problem] = []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        problems.append(Problem(f"{source} line {e.lineno} column {e.colno}", None, f"not valid JSON: {e.msg}"))
        return LoadResult(source, [], problems), []
    policy: Policy | None = None
    if isinstance(data, list):
        raw_cases, raw_variants, key = data, [], None
    elif isinstance(data, Mapping):
        for k in data:
            if k not in _TOP_KEYS:
                problems.append(
                    Problem(source, str(k), f"unknown top-level key {k!r} (expected: {', '.join(_TOP_KEYS)})")
                )
        raw_cases = data.get("cases", [])
        raw_variants = data.get("adversarial", [])
        key = "cases"
        if "policy" in data:
            try:
                policy = Policy.from_dict(data["policy"])
            except PolicyError as e:
                problems.append(Problem(f"{source} (policy)", e.field, str(e)))
        for name, value in (("cases", raw_cases), ("adversarial", raw_variants)):
            if not isinstance(value, list):
                problems.append(Problem(source, name, f"{name!r} must be a list"))
        if not isinstance(raw_cases, list):
            raw_cases = []
        if not isinstance(raw_variants, list):
            raw_variants = []
    else:
        problems.append(Problem(source, None, "a case file must hold a list of cases or an object with 'cases'"))
        return LoadResult(source, [], problems), []
    lines = _lines_of_array(text, key)
    var_lines = _lines_of_array(text, "adversarial") if raw_variants else []

    def where(i: int, lines_: list[int], name: str) -> str:
        line = f" line {lines_[i]}" if i < len(lines_) else ""
        return f"{source}{line} ({name}[{i}])"

    entries = [(where(i, lines, key or "cases"), m) for i, m in enumerate(raw_cases)]
    variants = [(where(i, var_lines, "adversarial"), v) for i, v in enumerate(raw_variants)]
    cases, adversarial, expected = _collect(source, entries, variants, problems)
    return LoadResult(source, cases + adversarial, problems, policy, expected), adversarial


def _parse_csv(text: str, source: str) -> LoadResult:
    problems: list[Problem] = []
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return LoadResult(source, [], [Problem(source, None, "the CSV file is empty: expected a header row")])
    header = [h.strip() for h in header]
    entries: list[tuple[str, Any]] = []
    start = reader.line_num + 1
    for row in reader:
        line = start
        start = reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        where = f"{source} line {line}"
        if len(row) != len(header):
            problems.append(
                Problem(where, None, f"row has {len(row)} values but the header names {len(header)} columns")
            )
            continue
        mapping = {h: _csv_value(h, cell) for h, cell in zip(header, row)}
        entries.append((where, {k: v for k, v in mapping.items() if v is not None}))
    cases, _, _ = _collect(source, entries, [], problems)
    return LoadResult(source, cases, problems)


def parse_cases(text: str, *, fmt: str, source: str = "<text>") -> LoadResult:
    """Parse case text in ``fmt`` ("json" or "csv"); never raises for bad rows, reports them."""
    if fmt == "json":
        return _parse_json(text, source)[0]
    if fmt == "csv":
        return _parse_csv(text, source)
    raise ValueError(f"unknown case file format {fmt!r}: expected 'json' or 'csv'")


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".json", ".csv"):
        raise CaseFileError(str(path), [Problem(str(path), None, "expected a .json or .csv file")])
    return suffix[1:]


def read_cases(path: str | Path) -> LoadResult:
    """Read a case file and return the good cases together with every problem found."""
    p = Path(path)
    fmt = _format_of(p)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CaseFileError(str(p), [Problem(str(p), None, f"cannot read the file: {e}")]) from e
    return parse_cases(text, fmt=fmt, source=p.name)


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
    """The seed fixture from ``data/cases.json`` (or ``path``): policy, six cases, four variants."""
    from .paths import data_path

    p = Path(path) if path is not None else data_path("cases.json")
    text = p.read_text(encoding="utf-8")
    result, adversarial = _parse_json(text, p.name)
    if result.problems:
        raise CaseFileError(str(p), result.problems, result.cases)
    seed = [c for c in result.cases if c not in adversarial]
    return Fixture(result.policy or Policy(), seed, adversarial, result.expected)
