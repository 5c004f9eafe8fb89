"""Live mode: a real MCP server in the same process, receipts recorded from the real protocol.

The seed's simulator "does not connect to a server" (seed 000, "Run six context-delivery cases")
and ends with the real assignment: compare the real integration field by field. This package does
that with the official Python SDK (``mcp`` 2.x) and no network:

- :mod:`~custody_lab.live.lab_server`: the lab server (the six seed cases as real capabilities,
  plus a logo blob and a state ledger), runnable in-process or over stdio
  (``python -m custody_lab.live.lab_server``), over :mod:`~custody_lab.live.lab_content` (its URIs,
  files, provenance and per-resource freshness claims) and :mod:`~custody_lab.live.lab_prompts` (its
  prompts and completions);
- :mod:`~custody_lab.live.session`: :class:`LabSession`, an MCP client session that records, and
  ``run_sync`` for plain Python;
- :mod:`~custody_lab.live.recorder`: the :class:`Recorder`'s exchange steps (the gate first, the
  bounded request, the state ledger before and after, the cache, a link's follow-up), over
  :mod:`~custody_lab.live.server_listing` (what the server lists, every page);
- :mod:`~custody_lab.live.live_receipts`: the one receipt builder, for the recording client and for
  ``custody-lab serve`` alike (the size, side-effect and provenance rules);
- :mod:`~custody_lab.live.gate` (the caller's permission check and the checks made with it),
  :mod:`~custody_lab.live.limits` (timeouts, page and text limits),
  :mod:`~custody_lab.live.live_errors`, :mod:`~custody_lab.live.fixture_exchanges` (the six seed
  exchanges), :mod:`~custody_lab.live.transport` (the frame-recording streams) and
  :mod:`~custody_lab.live.meta_keys` (the ``_meta`` keys server and client share);
- :mod:`~custody_lab.live.receipt_diff`: the simulator's receipt beside the live one, field by
  field; :mod:`~custody_lab.live.receipt_tables`: receipts and listings as HTML tables;
- :mod:`~custody_lab.live.hostile_server`: a misbehaving server and what the client makes of it
  (``python -m custody_lab.live.hostile_server`` over stdio);
- :mod:`~custody_lab.live.agent_context`: context assembly for an autonomous agent (seed 003);
- :mod:`~custody_lab.live.audit`: ``custody-lab audit -- COMMAND…`` for your own server;
- :mod:`~custody_lab.live.serve_command`: ``custody-lab serve`` for any client, which
  :mod:`~custody_lab.live.serve_middleware` logs into :mod:`~custody_lab.live.serve_log` (and
  :mod:`~custody_lab.live.serve_refusals`, for the requests the SDK refuses before any handler);
- :mod:`~custody_lab.live.live_commands`: the ``live`` and ``audit`` subcommands;
- context that flows the other way (MCP 2026-07-28): :mod:`~custody_lab.live.lab_flows` (what
  ``LabServer(flows=True)`` adds), :mod:`~custody_lab.live.lab_tasks` (the tasks extension, both
  ends), :mod:`~custody_lab.live.elicitation` (the host's side of elicitation),
  :mod:`~custody_lab.live.flow_receipts` and :mod:`~custody_lab.live.flow_wire` (``record_flows``).

``import custody_lab`` never imports ``mcp``. This package's names load their module on first
use (``custody_lab.live.LabSession`` imports ``mcp``, over a second), so the main CLI can import
``custody_lab.live.live_commands`` without paying for ``mcp``; type checkers read the
``TYPE_CHECKING`` imports below, so every name has its real type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_exports, typed_exports

__all__ = [
    "Answer",
    "COMPARED_FIELDS",
    "CaseComparison",
    "ConsentLog",
    "DEFAULT_TIMEOUT",
    "Exchange",
    "FIXTURE_EXCHANGES",
    "FRESHNESS",
    "FieldDiff",
    "Frame",
    "Freshness",
    "Gate",
    "HANDOVER_NOTE",
    "HANDOVER_URI",
    "HOSTILE_EXPECTED",
    "HostileServer",
    "LabServer",
    "LabSession",
    "LabState",
    "LiveError",
    "LiveReceipt",
    "LiveTimeout",
    "NOT_COMPARED",
    "Recorder",
    "asks_for_secret",
    "assemble_context",
    "audit_client",
    "audit_command",
    "audit_url",
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
    "record_flows",
    "record_wire",
    "resolve_read_tool_call",
    "run_hostile_tour",
    "run_sync",
]

if TYPE_CHECKING:
    from .agent_context import assemble_context, resolve_read_tool_call
    from .audit import audit_client, audit_command
    from .audit_report import format_report
    from .audit_transport import audit_url
    from .elicitation import Answer, asks_for_secret
    from .fences import fence_lookalikes
    from .fixture_exchanges import FIXTURE_EXCHANGES, Exchange
    from .flow_wire import record_flows
    from .gate import Gate
    from .hostile_server import HANDOVER_NOTE, HANDOVER_URI, HOSTILE_EXPECTED, HostileServer, run_hostile_tour
    from .lab_server import FRESHNESS, Freshness, LabServer, LabState
    from .limits import DEFAULT_TIMEOUT
    from .live_errors import LiveError, LiveTimeout
    from .live_receipts import LiveReceipt
    from .presentation import ConsentLog, present
    from .receipt_diff import (
        COMPARED_FIELDS,
        NOT_COMPARED,
        CaseComparison,
        FieldDiff,
        compare_fixture,
        compare_receipts,
        comparison_html,
        comparison_table,
    )
    from .receipt_tables import listing_html, receipt_html
    from .recorder import Recorder
    from .serve_log import receipt_log
    from .session import LabSession, record_fixture, run_sync
    from .transport import Frame
    from .wire import record_wire

#: each name loads from the module the TYPE_CHECKING imports above name (the one table)
__getattr__, __dir__ = lazy_exports(__name__, typed_exports(__name__, __file__))
