"""The rubric's ``readable`` step: is the file an archive at all, line by line and field by field?

An archive is read back from a file anyone may have edited, so nothing in it is assumed: every
line must be one JSON object of a known ``kind``, with each field of the type
:mod:`.archive` writes (a list where a list is written, a whole number for ``row``...). Each
problem names the line and the field; the other steps run only on an archive that is readable,
so a malformed file gets messages, never a traceback.
"""

from __future__ import annotations

__all__ = ["FIELD_TYPES", "parse_archive", "shape_problems"]

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.errors import PolicyError
from ...core.model import Policy
from ...core.text import visible
from .archive import ARCHIVE_FORMAT

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
    "consent": {"tool": (str,), "approvedBy": (str, None), "arguments": (dict,)},
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


def parse_archive(text: str, name: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The lines of an archive's text that are JSON objects with a ``kind``, and a problem for each
    line that is not (naming the line)."""
    lines: list[dict[str, Any]] = []
    problems = []
    for n, raw in enumerate(text.splitlines(), start=1):
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
    for n, line in enumerate(lines, start=1):
        if not isinstance(line, Mapping) or not isinstance(line.get("kind"), str):
            problems.append(f"line {n}: not an archive line (field 'kind')")
            kinds.append(None)
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
    if isinstance(header, Mapping) and header.get("kind") == "header":
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
