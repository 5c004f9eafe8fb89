"""The server's end of live receipts: a middleware that logs each request ``custody-lab serve`` answers.

``custody-lab serve`` (:mod:`~custody_lab.live.serve_command`) adds :class:`ServedExchanges` to the
lab server with :meth:`~custody_lab.live.lab_server.LabServer.observe`. For each
``resources/read`` and ``tools/call`` it hands what the server actually sent (the result as it goes
on the wire, or the error) and whether the server's state ledger changed across the exchange to
the same receipt builder the lab's own client uses (:mod:`~custody_lab.live.live_receipts`), so
the same exchange gets the same receipt at both ends; the receipt goes into the
:class:`~custody_lab.live.serve_log.ReceiptLog`.

Who initiated an exchange is not on the wire. These receipts name the initiator by the lab's host
policy: a read is the application's (MCP 2026-07-28, "Resources": resources are
application-driven) and a tool call the model's ("Tools": model-controlled). The server grants
every request it receives (it has no authorization of its own), so ``permissionChecked`` here says
only that the lab's server served it; the host's gate is the client's check. A cached answer
never reaches the server, so every logged answer is current.
"""

from __future__ import annotations

__all__ = ["ServedExchanges"]

import os
from collections.abc import Callable, Mapping
from typing import Any

import mcp.types as mt
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from ..core.errors import CustodyLabError
from ..core.model import Policy
from ..core.text import visible
from .lab_server import LabServer
from .live_receipts import (
    Facts,
    build_receipt,
    call_facts,
    failed,
    read_facts,
    take_call_result,
    take_read_result,
    utc_now,
    wire_fields,
)
from .serve_log import ReceiptLog
from .server_listing import match_template


class ServedExchanges:
    """Server middleware that appends every answered request to a :class:`ReceiptLog`.

    Add it with :meth:`LabServer.observe` so it sees each result as the client does (after the
    lab's provenance stamp). It only observes: the result and any error pass through unchanged.

    Args:
        lab: the server being observed (its state ledger shows side effects; its listing, shapes).
        log: where the entries go.
        clock: the time written as ``servedAt`` and ``retrievedAt``.
        policy: the host policy the receipts are decided under (the default policy when omitted).
    """

    def __init__(
        self, lab: LabServer, log: ReceiptLog, *, clock: Callable[[], str] = utc_now, policy: Policy | None = None
    ) -> None:
        self.lab, self.log, self.clock = lab, log, clock
        self.policy = policy or Policy()
        self.seq = 0
        #: tells one server process's entries from another's in a log several runs appended to
        self.run_id = f"{os.getpid()}@{clock()}"
        self._listed: dict[str, dict[str, Any]] | None = None
        self._templates: dict[str, dict[str, Any]] = {}
        self._tools: dict[str, dict[str, Any]] = {}

    async def _load(self) -> None:
        if self._listed is None:
            self._listed = {r.uri: wire_fields(r) or {} for r in await self.lab.mcp.list_resources()}
            templates = await self.lab.mcp.list_resource_templates()
            self._templates = {t.uri_template: wire_fields(t) or {} for t in templates}
            self._tools = {t.name: wire_fields(t) or {} for t in await self.lab.mcp.list_tools()}

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.request_id is None:  # a notification: nothing was served
            return await call_next(ctx)
        await self._load()
        params = dict(ctx.params or {})
        before = self.lab.state.ledger()
        error: dict[str, Any] | None = None
        result: Any = None
        try:
            result = await call_next(ctx)
        except MCPError as e:
            error = {"code": e.code, "message": e.error.message}
            raise
        except ValidationError as e:
            error = {"code": mt.INVALID_PARAMS, "message": f"invalid params: {e.error_count()} problem(s)"}
            raise
        finally:
            changed = before != self.lab.state.ledger()
            try:
                self._write(ctx, params, wire_fields(result) or {}, error, changed)
            except CustodyLabError as e:  # a result the lab cannot describe is logged, still served
                self.log.append({"seq": self.seq, "method": ctx.method, "logError": visible(e)})
        return result

    def _write(
        self, ctx: Any, params: dict[str, Any], result: dict[str, Any], error: dict[str, Any] | None, changed: bool
    ) -> None:
        self.seq += 1
        at = self.clock()
        method = str(ctx.method)
        target = params.get("uri") if method == "resources/read" else params.get("name")
        entry: dict[str, Any] = {
            "seq": self.seq,
            "run": self.run_id,
            "servedAt": at,
            "method": method,
            "target": target if isinstance(target, str) else None,
            "protocolVersion": ctx.protocol_version,
            "error": error,
        }
        f: Facts | None = None
        if method == "resources/read" and isinstance(target, str):
            matched = None if target in (self._listed or {}) else match_template(self._templates, target)
            listed = (self._listed or {}).get(target) or (self._templates.get(matched[0]) if matched else None)
            f = read_facts(target, listed=listed, matched=matched)
            if error is None:
                take_read_result(f, result, observed=changed)
        elif method == "tools/call" and isinstance(target, str):
            arguments = params.get("arguments")
            f = call_facts(target, arguments if isinstance(arguments, Mapping) else {}, tool=self._tools.get(target))
            if error is None:
                take_call_result(f, result, observed=changed)
        else:
            counts = {k: len(v) for k, v in result.items() if isinstance(v, list)}
            entry["items"] = counts or None
        receipt: dict[str, Any] | None = None
        if f is not None:
            if error is not None:
                failed(f, f"{error['code']}: {error['message']}", errorCode=error["code"])
            server = {"name": self.lab.mcp.name, "version": self.lab.mcp.version}
            live = build_receipt(f, server=server, protocol_version=ctx.protocol_version, policy=self.policy, now=at)
            receipt = live.receipt
        entry["outcome"] = None if receipt is None else receipt.get("selected") or receipt.get("rejection")
        entry["receipt"] = receipt
        self.log.append(entry)
