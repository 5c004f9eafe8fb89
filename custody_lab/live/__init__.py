"""Live mode: a real MCP server in the same process, receipts recorded from the real protocol.

The seed's simulator "does not connect to a server" (seed 000, "Run six context-delivery cases")
and ends with the real assignment: compare the real integration field by field. This package does
that with the official Python SDK (``mcp`` 2.x) and no network:

- :mod:`~custody_lab.live.server`: the lab server (the six seed cases as real capabilities, plus a
  logo blob and a state ledger), runnable in-process or over stdio
  (``python -m custody_lab.live.server``);
- :mod:`~custody_lab.live.session`: :class:`LabSession`, an MCP client session that records;
- :mod:`~custody_lab.live.recorder`: the :class:`Recorder` that turns every exchange into an
  extended custody receipt built from the actual response, decided by the same rule loop;
- :mod:`~custody_lab.live.values` (frames, the gate, receipts, errors),
  :mod:`~custody_lab.live.transport` (the frame-recording streams) and
  :mod:`~custody_lab.live.keys` (the ``_meta`` keys server and client share);
- :mod:`~custody_lab.live.compare`: the simulator's receipt beside the live one, field by field;
- :mod:`~custody_lab.live.hostile`: a misbehaving server and what the client makes of it
  (``python -m custody_lab.live.hostile`` over stdio);
- :mod:`~custody_lab.live.agent_context`: context assembly for an autonomous agent (seed 003);
- :mod:`~custody_lab.live.audit`: ``custody-lab audit -- COMMAND…`` for your own server;
- :mod:`~custody_lab.live.serve`: ``custody-lab serve`` for any client, and its receipt log.

``import custody_lab`` never imports ``mcp``. This package's names load their module on first
use (``custody_lab.live.LabSession`` imports ``mcp``, over a second), so the main CLI can import
``custody_lab.live.command`` without paying for ``mcp``.
"""

from __future__ import annotations

from ..core.lazy import lazy_exports

__all__ = [
    "COMPARED_FIELDS",
    "DEFAULT_TIMEOUT",
    "FIXTURE_EXCHANGES",
    "HANDOVER_NOTE",
    "HANDOVER_URI",
    "HOSTILE_EXPECTED",
    "NOT_COMPARED",
    "CaseComparison",
    "ConsentLog",
    "Exchange",
    "FieldDiff",
    "Frame",
    "Gate",
    "HostileServer",
    "LabServer",
    "LabSession",
    "LabState",
    "LiveError",
    "LiveReceipt",
    "LiveTimeout",
    "Recorder",
    "assemble_context",
    "audit_client",
    "audit_command",
    "compare_fixture",
    "compare_receipts",
    "comparison_html",
    "comparison_table",
    "fence_lookalikes",
    "format_report",
    "listing_html",
    "present",
    "receipt_html",
    "receipt_log",
    "record_fixture",
    "record_wire",
    "resolve_read_tool_call",
    "rows_html",
    "run_hostile_tour",
    "run_sync",
]

#: public name -> the submodule that defines it
_EXPORTS: dict[str, str] = {
    "DEFAULT_TIMEOUT": "values",
    "FIXTURE_EXCHANGES": "values",
    "Exchange": "values",
    "Frame": "values",
    "Gate": "values",
    "LiveError": "values",
    "LiveReceipt": "values",
    "LiveTimeout": "values",
    "run_sync": "values",
    "Recorder": "recorder",
    "LabSession": "session",
    "record_fixture": "session",
    "COMPARED_FIELDS": "compare",
    "NOT_COMPARED": "compare",
    "CaseComparison": "compare",
    "FieldDiff": "compare",
    "compare_fixture": "compare",
    "compare_receipts": "compare",
    "LabServer": "server",
    "LabState": "server",
    "HostileServer": "hostile",
    "run_hostile_tour": "hostile",
    "assemble_context": "agent_context",
    "audit_command": "audit",
    "receipt_log": "serve",
    # used by the lessons (notebooks import only public paths: docs/design.md, "Public surface")
    "comparison_html": "compare",
    "comparison_table": "compare",
    "listing_html": "compare",
    "receipt_html": "compare",
    "rows_html": "compare",
    "HANDOVER_NOTE": "hostile",
    "HANDOVER_URI": "hostile",
    "HOSTILE_EXPECTED": "hostile",
    "fence_lookalikes": "agent_context",
    "resolve_read_tool_call": "agent_context",
    "audit_client": "audit",
    "format_report": "audit_report",
    "ConsentLog": "presentation",
    "present": "presentation",
    "record_wire": "wire",
}
_EXPORTS = {name: f"{__name__}.{module}" for name, module in _EXPORTS.items()}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
