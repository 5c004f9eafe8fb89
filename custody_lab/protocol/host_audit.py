"""The host lens over an audit: for each tool result ``custody-lab audit`` recorded from a server,
which host profiles would read it differently (``custody-lab audit --hosts``).

The audit's JSON (:meth:`custody_lab.live.audit_report.AuditReport.to_dict`) keeps each result's
*shape*, not its text: every content block's type, byte count, annotations and URI, a link's declared
size, and whether ``structuredContent`` came back (with a text fallback or not). So the lens over an
audit rebuilds each result with stand-in text of the recorded sizes (a text fallback stands for the
same JSON as the ``structuredContent``) and reports, per profile, the bytes that would reach the
model and the host rules it would break; two profiles whose stand-in texts differ read the result
differently. The exact bytes need the result itself: :func:`custody_lab.protocol.host_lens.lens`.

A link whose size was not declared has no stand-in contents: every profile shows it unread. The
audit does not know which URIs a learner's users may not read, so nothing is denied here. The
module is pure (standard library only); it reads the audit's JSON as data.
"""

from __future__ import annotations

__all__ = [
    "audit_inputs",
    "format_hosts",
    "hosts_rows",
]

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.receipts import canonical_json
from ..core.text import visible
from .host_lens import LensInput, differences, lens
from .host_profiles import HostProfile, load_host_profiles

_STAND_IN = "x"


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _structured_stand_in(size: int) -> dict[str, str]:
    return {"value": _STAND_IN * max(0, size - len('{"value":""}'))}


def _input_of(cap: Mapping[str, Any]) -> LensInput | None:
    details = cap.get("details")
    if not isinstance(details, Mapping) or not isinstance(details.get("blocks"), list):
        return None
    structured = details.get("structured") if isinstance(details.get("structured"), Mapping) else None
    present = bool(structured and structured.get("present"))
    fallback = bool(structured and structured.get("textFallback"))
    found = details.get("custody")
    custody: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    blocks: list[dict[str, Any]] = []
    linked: dict[str, Mapping[str, Any]] = {}
    doc: dict[str, str] | None = None
    first_text = next((b for b in details["blocks"] if isinstance(b, Mapping) and b.get("type") == "text"), None)
    if present:
        size = _int(first_text.get("bytes")) if fallback and first_text is not None else _int(custody.get("bytes"))
        doc = _structured_stand_in(size or 0)
    for b in details["blocks"]:
        if not isinstance(b, Mapping):
            continue
        kind = b.get("type")
        ann = {"annotations": dict(b["annotations"])} if isinstance(b.get("annotations"), Mapping) else {}
        size = _int(b.get("bytes")) or 0
        uri, mime = b.get("uri"), b.get("mime") or b.get("mimeType")
        if kind == "text":
            text = canonical_json(doc) if (doc is not None and fallback and b is first_text) else _STAND_IN * size
            blocks.append({"type": "text", "text": text, **ann})
        elif kind == "resource_link":
            blocks.append({"type": "resource_link", "uri": uri, "mimeType": mime, **ann})
            declared = _int(b.get("declaredSize"))
            if isinstance(uri, str) and declared is not None:
                linked[uri] = {"uri": uri, "mimeType": mime, "text": _STAND_IN * declared}
        elif kind == "resource":
            blocks.append(
                {"type": "resource", "resource": {"uri": uri, "mimeType": mime, "text": _STAND_IN * size}, **ann}
            )
        else:
            blocks.append({"type": kind, "mimeType": mime, "data": _STAND_IN * size, **ann})
    result: dict[str, Any] = {"content": blocks}
    if doc is not None:
        result["structuredContent"] = doc
    provenance = custody.get("provenance")
    return LensInput(
        str(cap.get("name")), result, linked=linked, provenance=provenance if isinstance(provenance, str) else "unknown"
    )


def audit_inputs(report: Mapping[str, Any]) -> list[tuple[str, LensInput]]:
    """Each exercised tool result of an audit's JSON, rebuilt for the lens (name, input).

    Example:
        >>> report = {"capabilities": [{"kind": "tool", "name": "t", "exercised": True, "details": {
        ...     "blocks": [{"type": "text", "bytes": 3, "annotations": {"audience": ["user"]}}]}}]}
        >>> [(name, inp.result["content"][0]["text"]) for name, inp in audit_inputs(report)]
        [('t', 'xxx')]
    """
    out = []
    for cap in report.get("capabilities") or ():
        if isinstance(cap, Mapping) and cap.get("kind") == "tool" and cap.get("exercised"):
            inp = _input_of(cap)
            if inp is not None:
                out.append((str(cap.get("name")), inp))
    return out


def hosts_rows(report: Mapping[str, Any], profiles: Sequence[HostProfile] | None = None) -> list[dict[str, Any]]:
    """For each exercised tool result: per profile, the bytes that would reach the model and the host
    rules broken; and the groups of profiles that read it alike (``readings``: more than one group
    means the server cannot know which reading its user's host makes).

    Example:
        >>> report = {"capabilities": [{"kind": "tool", "name": "t", "exercised": True, "details": {
        ...     "blocks": [{"type": "text", "bytes": 3, "annotations": {"audience": ["user"]}}]}}]}
        >>> row = hosts_rows(report)[0]
        >>> row["bytes"], row["readings"]
        ({'custodian': 0, 'plain-reader': 3, 'both-forms': 0, 'eager-fetcher': 3}, 2)
    """
    rows = []
    for name, inp in audit_inputs(report):
        readings = lens(inp, load_host_profiles() if profiles is None else profiles)
        rows.append(
            {
                "tool": name,
                "bytes": {r.profile.id: r.model_bytes for r in readings},
                "broken": {r.profile.id: list(r.broken) for r in readings},
                "groups": differences(readings),
                "readings": len(differences(readings)),
            }
        )
    return rows


def format_hosts(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows for a terminal: one block per tool result (server text made visible).

    Example:
        >>> print(format_hosts([{"tool": "t", "bytes": {"a": 3, "b": 0}, "broken": {"a": [], "b": ["x"]},
        ...     "groups": [["a"], ["b"]], "readings": 2}]))
        Host profiles (hypothetical hosts; the lab's data/hosts/profiles.json)
        t: read 2 different ways
          a: 3 bytes reach the model; keeps every host rule
          b: 0 bytes reach the model; breaks x
    """
    lines = ["Host profiles (hypothetical hosts; the lab's data/hosts/profiles.json)"]
    if not rows:
        lines.append("  no tool result was exercised: call tools with --allow-calls to see how hosts read them")
    for row in rows:
        n = row["readings"]
        how = "every profile reads it alike" if n == 1 else f"read {n} different ways"
        lines.append(f"{visible(row['tool'])}: {how}")
        for pid, size in row["bytes"].items():
            broken = row["broken"][pid]
            rules = f"breaks {', '.join(broken)}" if broken else "keeps every host rule"
            lines.append(f"  {visible(pid)}: {size:,} bytes reach the model; {rules}")
    return "\n".join(lines)
