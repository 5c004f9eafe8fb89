"""The rubric's ``readable`` step: is the file an archive at all, line by line and field by field?

An archive is read back from a file anyone may have edited, so nothing in it is assumed: every
line must be one JSON object of a known ``kind``, with each field of the type
:mod:`.archive` writes (a list where a list is written, a whole number for ``row``...). Each
problem names the line and the field; the other steps run only on an archive that is readable,
so a malformed file gets messages, never a traceback.

Whatever a line holds, it is first walked once, without recursion (:func:`json_problem`): it must be
made of JSON values only (objects with text keys, lists, text, whole or finite numbers, true,
false, null), nest at most :data:`MAX_DEPTH` levels, and hold no number beyond
:data:`MAX_SAFE_INTEGER` (the receipts are JSON that JavaScript reads, seed 000; NaN, Infinity and
``1e999`` are not JSON numbers, RFC 8259 §6). A file larger than :data:`MAX_ARCHIVE_BYTES` is not
read, and one of more than :data:`MAX_ARCHIVE_LINES` lines is not parsed (its lines are counted up
to the bound and no further: one finding names it). Ids are compared in one form, :func:`normal_id`.
"""

from __future__ import annotations

__all__ = [
    "FIELD_TYPES",
    "MAX_ARCHIVE_BYTES",
    "MAX_ARCHIVE_LINES",
    "MAX_DEPTH",
    "MAX_SAFE_INTEGER",
    "describe_line",
    "json_problem",
    "normal_id",
    "parse_archive",
    "shape_problems",
]

import json
import math
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...core.errors import PolicyError
from ...core.model import Policy
from ...core.text import is_hidden, visible
from .archive import ARCHIVE_FORMAT

#: The deepest nesting of objects and lists in one archive line (a line the archive writes nests
#: four levels: a live line's receipt, its custody, and a consent's arguments one or two more).
MAX_DEPTH = 32
#: The largest whole number (either sign) an archive may hold: JavaScript's
#: ``Number.MAX_SAFE_INTEGER`` (ECMA-262), beyond which a JSON number does not read back the same.
MAX_SAFE_INTEGER = 2**53 - 1
#: The largest archive file :func:`~.rubric.check_archive` reads (16 MiB; a good archive of a
#: server with a thousand capabilities is under 1 MiB).
MAX_ARCHIVE_BYTES = 16 * 1024 * 1024
#: The most lines an archive may have (such a good archive has about one line per capability):
#: 2,000,000 short lines fit in 16 MiB and would cost a gigabyte as parsed objects.
MAX_ARCHIVE_LINES = 10_000
#: What ``str.splitlines`` ends a line at, so lines are numbered as before, one at a time.
_LINE_END = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")

_Types = tuple[type | None, ...]

#: Each kind of line, its fields and the JSON types each may have (``None``: JSON null).
FIELD_TYPES: dict[str, dict[str, _Types]] = {
    "header": {
        "format": (str,),
        "server": (dict,),
        "protocol": (str, None),
        "policy": (dict,),
        "inventory": (str, None),
    },
    "design": {
        "id": (str,),
        "row": (int,),
        "case": (dict,),
        "fix": (dict, None),
        "receipt": (dict,),
        "reason": (str, None),
    },
    "consent": {"tool": (str,), "approvedBy": (dict, str, None), "arguments": (dict,)},
    "live": {
        "capability": (str,),
        "name": (str,),
        "exercised": (bool,),
        "why": (str,),
        "receipt": (dict, None),
        "gaps": (list,),
        "reason": (str, None),
    },
    "summary": {"receipts": (list,), "counts": (dict,)},
}
_ITEM = {"line": (int,), "kind": (str,), "id": (str,), "sha256": (str,)}
_FIX = {"field": (str,)}
_NAMES: dict[type | None, str] = {
    bool: "true or false",
    int: "a whole number",
    str: "text",
    dict: "an object",
    list: "a list",
    None: "null",
}


def _json_name(value: object) -> str:
    for kind, name in (
        (bool, "true/false"),
        (int, "a number"),
        (float, "a number"),
        (str, "text"),
        (dict, "an object"),
        (list, "a list"),
    ):
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def _is(value: object, types: _Types) -> bool:
    for kind in types:
        if kind is None and value is None:
            return True
        if kind is int and isinstance(value, bool):
            continue
        if kind is not None and isinstance(value, kind):
            return True
    return False


def _fields(where: str, obj: Mapping[str, Any], spec: Mapping[str, _Types]) -> list[str]:
    out = []
    for name, types in spec.items():
        if name not in obj:
            out.append(f"{where}: field {name!r} is missing")
        elif not _is(obj[name], types):
            wanted = " or ".join(_NAMES[t] for t in types)
            out.append(f"{where}: field {name!r} is {_json_name(obj[name])}, not {wanted}")
    return out


def _path(parts: Sequence[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def json_problem(value: object) -> str | None:
    """What makes ``value`` something other than plain JSON an archive can hold, naming where;
    ``None`` when it is plain JSON (walked once, iteratively: any depth costs no recursion).

    Example:
        >>> json_problem({"receipt": {"custody": {"bytes": float("nan")}}})
        'receipt.custody.bytes is NaN or an infinity, not a JSON number'
        >>> json_problem({"ids": [["a"]]}) is None, json_problem({1: "x"})
        (True, 'a key 1 is not text')
    """
    stack: list[tuple[object, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        item, parts = stack.pop()
        where = _path(parts) or "the line"
        where = where if len(where) <= 80 else where[:79] + "…"
        if len(parts) > MAX_DEPTH:
            return f"{where} nests deeper than {MAX_DEPTH} levels"
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, int):
            if abs(item) > MAX_SAFE_INTEGER:
                return f"{where} is a number beyond ±{MAX_SAFE_INTEGER} (2**53 - 1), which JSON does not read back"
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return f"{where} is NaN or an infinity, not a JSON number"
            continue
        if isinstance(item, Mapping):
            for key in item:
                if not isinstance(key, str):
                    shown = (
                        repr(key) if key is None or isinstance(key, int | float) else f"of type {type(key).__name__}"
                    )
                    return f"{f'{where}: ' if parts else ''}a key {visible(shown)[:40]} is not text"
            stack += [(v, (*parts, k)) for k, v in reversed(list(item.items()))]
        elif isinstance(item, (list, tuple)):
            stack += [(v, (*parts, i)) for i, v in reversed(list(enumerate(item)))]
        else:
            return f"{where} is a {visible(type(item).__name__)}, not a JSON value"
    return None


def normal_id(text: str) -> str:
    """The one form in which the rubric compares ids: Unicode NFKC, every character a reader
    cannot see (:func:`~custody_lab.core.text.is_hidden`) dropped, white space trimmed and each run made one
    space. An id that is not already in this form is a finding, never silently matched.

    Example:
        >>> normal_id("audit-log "), normal_id("audit\u200b-log"), normal_id("ａudit-log")
        ('audit-log', 'audit-log', 'audit-log')
    """
    kept = "".join(ch for ch in unicodedata.normalize("NFKC", text) if not is_hidden(ch))
    return " ".join(kept.split())


def describe_line(n: int, line: Mapping[str, Any]) -> str:
    """How a problem names line ``n`` of a readable archive: its number, kind and capability.

    Example:
        >>> describe_line(4, {"kind": "design", "id": "audit-log "})
        "line 4 (design 'audit-log ')"
    """
    name = line.get("id") if line["kind"] == "design" else line.get("name", line.get("tool"))
    return f"line {n} ({visible(line['kind'])} {visible(repr(name))})"


def _lines(text: str) -> Iterator[str]:
    r"""``text.splitlines()``, one line at a time (no list of every line is made).

    Example:
        >>> list(_lines("a\r\nb\x85c\n")) == "a\r\nb\x85c\n".splitlines()
        True
    """
    start = 0
    for end in _LINE_END.finditer(text):
        yield text[start : end.start()]
        start = end.end()
    if start < len(text):
        yield text[start:]


def parse_archive(text: str, name: str) -> tuple[list[dict[str, Any]], list[str]]:
    r"""The lines of an archive's text that are JSON objects with a ``kind``, and a problem for each
    line that is not (naming the line); an archive of more than :data:`MAX_ARCHIVE_LINES` lines is
    not parsed, and that is its one problem.

    Example:
        >>> parse_archive('{"kind": "header"}\nnot json', "a.jsonl")[1]
        ['a.jsonl line 2: not JSON (Expecting value: line 1 column 1 (char 0))']
    """
    lines: list[dict[str, Any]] = []
    problems = []
    if sum(1 for _ in zip(range(MAX_ARCHIVE_LINES + 1), _lines(text), strict=False)) > MAX_ARCHIVE_LINES:
        return [], [f"{visible(name)}: more than {MAX_ARCHIVE_LINES:,} lines, over the archive limit; not read"]
    for n, raw in enumerate(_lines(text), start=1):
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError) as e:
            problems.append(f"{visible(name)} line {n}: not JSON ({visible(e)})")
            continue
        if not isinstance(line, dict) or not isinstance(line.get("kind"), str):
            problems.append(f"{visible(name)} line {n}: not an archive line (field 'kind')")
            continue
        lines.append(line)
    if not lines and not problems:
        problems.append(f"{visible(name)}: the archive is empty")
    return lines, problems


def shape_problems(lines: Sequence[object]) -> list[str]:
    """Every line or field that is not what :func:`~.archive.write_archive` writes (empty: readable)."""
    problems: list[str] = []
    if not lines:
        return ["the archive has no lines"]
    kinds: list[object] = []
    safe = True  # the header is plain JSON (its policy can be read)
    for n, line in enumerate(lines, start=1):
        if not isinstance(line, Mapping) or not isinstance(line.get("kind"), str):
            problems.append(f"line {n}: not an archive line (field 'kind')")
            kinds.append(None)
            continue
        unsafe = json_problem(line)
        if unsafe is not None:
            problems.append(f"line {n} ({visible(line['kind'])}): {unsafe}")
            kinds.append(line["kind"])
            safe = safe and n != 1
            continue
        kind = line["kind"]
        kinds.append(kind)
        where = f"line {n} ({visible(kind)})"
        if kind not in FIELD_TYPES:
            problems.append(
                f"{where}: kind {visible(repr(kind))} is not one of {', '.join(FIELD_TYPES)} (field 'kind')"
            )
            continue
        problems += _fields(where, line, FIELD_TYPES[kind])
        if kind == "design" and isinstance(line.get("fix"), Mapping):
            problems += _fields(f"{where}, its fix", line["fix"], _FIX)
        if kind == "live" and isinstance(line.get("gaps"), list) and not all(isinstance(g, str) for g in line["gaps"]):
            problems.append(f"{where}: field 'gaps' holds something that is not a field name")
        if kind == "summary" and isinstance(line.get("receipts"), list):
            for i, item in enumerate(line["receipts"]):
                if not isinstance(item, Mapping):
                    problems.append(f"{where}: receipts[{i}] is {_json_name(item)}, not an object (field 'receipts')")
                else:
                    problems += _fields(f"{where}, receipts[{i}]", item, _ITEM)
    if kinds[0] != "header":
        problems.append("line 1: the first line is not the header (field 'kind')")
    if kinds[-1] != "summary":
        problems.append(f"line {len(lines)}: the last line is not the summary (field 'kind')")
    for kind in ("header", "summary"):
        if kinds.count(kind) > 1:
            problems.append(f"the archive has {kinds.count(kind)} {kind} lines; it has one")
    header = lines[0]
    if safe and isinstance(header, Mapping) and header.get("kind") == "header":
        if isinstance(header.get("format"), str) and header["format"] != ARCHIVE_FORMAT:
            problems.append(
                f"line 1: format {visible(repr(header['format']))} is not {ARCHIVE_FORMAT} (field 'format')"
            )
        if isinstance(header.get("policy"), dict):
            try:
                Policy.from_dict(header["policy"])
            except (PolicyError, TypeError) as e:
                problems.append(f"line 1: the header's policy is not a policy ({visible(e)}) (field 'policy')")
    return problems
