"""Audit your own MCP server: which custody fields can each capability supply?

``custody-lab audit -- COMMAND [ARG ...]`` starts the server over stdio, lists its resources,
templates and tools, and exercises only what is safe:

- every listed resource is read (the protocol makes reads read-only; if the server lists the lab's
  state resource ``state://lab/ledger`` the audit also *observes* whether a read changed state);
- templates are not read (they need arguments only a conversation supplies); their declared facts
  are reported;
- a tool is called only when it declares ``readOnlyHint: true`` and needs no arguments, or when
  ``--allow-calls NAME`` names it (then it is called once with no arguments). A tool that may
  mutate is never called otherwise.

For each capability the report says, per custody field (seed 000, "Ship a context-custody
receipt": actor, authority, identity, size, freshness, side effects), whether the server supplied
it (✓), could not (✗, a *gap* — "the missing field is a design issue"), or was not exercised (?).
"""

from __future__ import annotations

__all__ = [
    "AUDIT_FIELDS",
    "AuditError",
    "AuditReport",
    "CapabilityAudit",
    "FieldSupport",
    "audit_client",
    "audit_command",
    "format_report",
    "parse_allow_calls",
]

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import anyio
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from .keys import PROVENANCE_KEY, SIDE_EFFECTS_KEY, STATE_URI, URI_KEY
from .recorder import Recorder
from .values import Gate, LiveError, LiveReceipt, run_sync

#: The custody fields reported for every capability.
AUDIT_FIELDS: tuple[str, ...] = (
    "actor",
    "server",
    "uri",
    "mime",
    "bytes",
    "digest",
    "provenance",
    "sideEffects",
)


class AuditError(LiveError):
    """The audit could not run (the command did not start, or did not speak MCP in time)."""


@dataclass(frozen=True)
class FieldSupport:
    """One custody field of one capability: supplied (True), a gap (False) or unknown (None)."""

    field: str
    supplied: bool | None
    how: str


@dataclass(frozen=True)
class CapabilityAudit:
    """What the audit learned about one resource, template or tool."""

    kind: Literal["resource", "template", "tool"]
    name: str
    exercised: bool
    why: str
    outcome: str | None
    fields: tuple[FieldSupport, ...]

    @property
    def gaps(self) -> tuple[FieldSupport, ...]:
        return tuple(f for f in self.fields if f.supplied is False)


@dataclass(frozen=True)
class AuditReport:
    """The whole audit: the server, the protocol, and every capability."""

    command: tuple[str, ...]
    server: dict[str, Any]
    protocol_version: str
    capabilities: tuple[CapabilityAudit, ...]

    @property
    def gaps(self) -> list[tuple[str, FieldSupport]]:
        return [(c.name, g) for c in self.capabilities for g in c.gaps]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["gaps"] = [{"capability": n, **asdict(g)} for n, g in self.gaps]
        return out


def _server_field(server: dict[str, Any]) -> FieldSupport:
    if server.get("name") and server.get("version"):
        return FieldSupport("server", True, f"{server['name']} {server['version']}")
    return FieldSupport("server", False, "the server did not report a name and version")


def _fields_from_receipt(live: LiveReceipt, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    rec, custody = live.receipt, live.receipt["custody"]
    tool = rec["method"] == "tools/call"
    performed = rec.get("performed", True) and "error" not in rec
    arrived = rec.get("contentDigest") is not None
    uri_how = "the contents item / link / embed carries it"
    if tool and rec.get("delivery") in ("structured", "text"):
        uri_how = f"only through _meta {URI_KEY}: a structured result has no URI field"
    evidence = rec.get("sideEffectsEvidence") or {}
    fields = [
        FieldSupport("actor", True, f"{custody['actor']} (derived from {rec['method']})"),
        _server_field(server),
        FieldSupport(
            "uri", custody["uri"] is not None if performed else None, uri_how if custody["uri"] else "no URI came back"
        ),
        FieldSupport(
            "mime",
            bool(custody["mime"]) if performed else None,
            f"mimeType {custody['mime']}" if custody["mime"] else "no MIME type came back",
        ),
        FieldSupport(
            "bytes",
            arrived if performed else None,
            "counted from the content that arrived" if arrived else "no content to count",
        ),
        FieldSupport(
            "digest",
            arrived if performed else None,
            "sha256 of the content that arrived" if arrived else "no content to digest",
        ),
        FieldSupport(
            "provenance",
            custody["provenance"] is not None if performed else None,
            f"_meta {PROVENANCE_KEY}"
            if custody["provenance"]
            else f"MCP has no provenance field; the server puts none in _meta {PROVENANCE_KEY}",
        ),
        FieldSupport(
            "sideEffects",
            evidence.get("declared") is not None,
            str(evidence.get("source", "not stated"))
            + ("; observed by state digest" if evidence.get("observed") is not None else ""),
        ),
    ]
    return tuple(fields)


def _declared_tool_fields(tool: Any, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    ann = tool.annotations
    declared = ann is not None and ann.read_only_hint is not None
    lab = isinstance((tool.meta or {}).get(SIDE_EFFECTS_KEY), bool)
    how = (
        "annotations.readOnlyHint"
        if declared
        else f"_meta {SIDE_EFFECTS_KEY}"
        if lab
        else "no readOnlyHint and no declaration: the lab would refuse to call it"
    )
    unknown = "not exercised (the tool may mutate or needs arguments)"
    return (
        FieldSupport("actor", True, "model (derived from tools/call)"),
        _server_field(server),
        *(FieldSupport(f, None, unknown) for f in ("uri", "mime", "bytes", "digest", "provenance")),
        FieldSupport("sideEffects", declared or lab, how),
    )


def _declared_template_fields(template: Any, server: dict[str, Any]) -> tuple[FieldSupport, ...]:
    prov = (template.meta or {}).get(PROVENANCE_KEY)
    unknown = "not exercised (a template needs arguments)"
    return (
        FieldSupport("actor", True, "application (derived from resources/read)"),
        _server_field(server),
        FieldSupport("uri", True, f"expands {template.uri_template}"),
        FieldSupport(
            "mime",
            bool(template.mime_type),
            f"declared {template.mime_type}" if template.mime_type else "no declared MIME type",
        ),
        FieldSupport("bytes", None, unknown),
        FieldSupport("digest", None, unknown),
        FieldSupport("provenance", True if prov else None, f"declared in _meta: {prov}" if prov else unknown),
        FieldSupport("sideEffects", True, "read-only by protocol contract"),
    )


def parse_allow_calls(items: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``NAME`` or ``NAME={"json": "arguments"}`` -> {name: arguments}.

    Example:
        >>> parse_allow_calls(["a", 'b={"x": 1}'])
        {'a': {}, 'b': {'x': 1}}
    """
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep:
            out[name] = {}
            continue
        try:
            args = json.loads(raw)
        except json.JSONDecodeError as e:
            raise AuditError(f"--allow-calls {item!r}: the arguments after '=' are not JSON ({e})") from e
        if not isinstance(args, dict):
            raise AuditError(f"--allow-calls {item!r}: the arguments must be a JSON object")
        out[name] = args
    return out


async def audit_client(
    client: Client,
    *,
    allow_calls: Sequence[str] = (),
    timeout: float = 10.0,
    command: Sequence[str] = (),
) -> AuditReport:
    """Audit an entered ``mcp.Client`` (any transport).

    Args:
        allow_calls: tools to call even if they may mutate, as ``NAME`` (no arguments) or
            ``NAME={"arg": "value"}``.
    """
    allowed = parse_allow_calls(allow_calls)
    recorder = Recorder(client, gate=Gate(deny=()), state_uri=STATE_URI, timeout=timeout)
    await recorder.load_listing()
    info = client.server_info
    server = {"name": info.name if info else None, "version": info.version if info else None}
    caps: list[CapabilityAudit] = []
    for uri in recorder.listed:
        live = await recorder.read(uri, case_id=uri, cache_mode="bypass")
        caps.append(
            CapabilityAudit(
                "resource",
                uri,
                True,
                "listed resource: reads are safe",
                live.outcome,
                _fields_from_receipt(live, server),
            )
        )
    for template in recorder.templates:
        caps.append(
            CapabilityAudit(
                "template",
                template.uri_template,
                False,
                "template: needs arguments, not read",
                None,
                _declared_template_fields(template, server),
            )
        )
    for name, tool in recorder.tools.items():
        ann = tool.annotations
        read_only = ann is not None and ann.read_only_hint is True
        required = (tool.input_schema or {}).get("required") or []
        if name in allowed or (read_only and not required):
            why = "allowed by --allow-calls" if name in allowed else "declares readOnlyHint and needs no arguments"
            recorder.allow_unknown_side_effects = name in allowed
            live = await recorder.call(name, allowed.get(name, {}), case_id=name)
            recorder.allow_unknown_side_effects = False
            caps.append(CapabilityAudit("tool", name, True, why, live.outcome, _fields_from_receipt(live, server)))
        else:
            why = (
                "needs arguments " + ", ".join(map(str, required))
                if read_only
                else "may mutate (no readOnlyHint: true); name it with --allow-calls to call it"
            )
            caps.append(CapabilityAudit("tool", name, False, why, None, _declared_tool_fields(tool, server)))
    return AuditReport(tuple(command), server, client.protocol_version, tuple(caps))


async def _audit_stdio(command: Sequence[str], allow_calls: Sequence[str], timeout: float) -> AuditReport:
    params = StdioServerParameters(command=command[0], args=list(command[1:]), env=dict(os.environ), cwd=os.getcwd())
    try:
        with anyio.fail_after(timeout * 12):
            async with Client(params, mode="auto", read_timeout_seconds=timeout, cache=None) as client:
                return await audit_client(client, allow_calls=allow_calls, timeout=timeout, command=command)
    except TimeoutError as e:
        raise AuditError(
            f"{' '.join(command)!r} did not finish the audit within {timeout * 12:g} s (does it speak MCP on stdio?)"
        ) from e
    except OSError as e:
        raise AuditError(f"cannot start {command[0]!r}: {e}") from e
    except MCPError as e:
        raise AuditError(f"{' '.join(command)!r} answered with an MCP error: {e}") from e


def audit_command(command: Sequence[str], *, allow_calls: Sequence[str] = (), timeout: float = 10.0) -> AuditReport:
    """Start ``command`` as an MCP server over stdio and audit it (synchronous; for the CLI).

    Raises:
        AuditError: the command did not start or did not answer in time.
    """
    if not command:
        raise AuditError("no server command given")

    async def go() -> AuditReport:
        return await _audit_stdio(list(command), allow_calls, timeout)

    return run_sync(go)


_MARK = {True: "✓", False: "✗", None: "?"}


def _plain(text: object) -> str:
    """Server text for a terminal: control characters (ANSI escapes included) shown, not obeyed."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


def format_report(report: AuditReport) -> str:
    """The report as text: one row per capability, a mark per custody field, then every gap."""
    name_w = max([len(c.name) for c in report.capabilities] + [10])
    head = f"{'kind':<8}  {'capability':<{name_w}}  ran  " + "  ".join(f"{f:<10}" for f in AUDIT_FIELDS)
    lines = [
        f"server: {_plain(report.server.get('name'))} {_plain(report.server.get('version'))} · "
        f"protocol {report.protocol_version} · command: {' '.join(report.command)}",
        "✓ supplied   ✗ cannot supply (a custody gap)   ? not exercised",
        head,
        "-" * len(head),
    ]
    for c in report.capabilities:
        marks = {f.field: _MARK[f.supplied] for f in c.fields}
        lines.append(
            f"{c.kind:<8}  {_plain(c.name):<{name_w}}  {'yes' if c.exercised else 'no ':<3}  "
            + "  ".join(f"{marks.get(f, ' '):<10}" for f in AUDIT_FIELDS)
        )
    lines.append("")
    for c in report.capabilities:
        lines.append(f"{c.kind} {_plain(c.name)}: {c.why}" + (f" → {c.outcome}" if c.outcome else ""))
        for g in c.gaps:
            lines.append(f"    gap: {g.field} — {_plain(g.how)}")
    lines.append("")
    lines.append(f"{len(report.gaps)} custody gap(s) across {len(report.capabilities)} capabilities")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - convenience: python -m custody_lab.live.audit CMD…
    print(format_report(audit_command(sys.argv[1:])))
