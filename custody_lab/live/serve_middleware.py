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
every request that reaches it: it checks no per-request permission (over HTTP only a request with
the run's token gets this far, :mod:`~custody_lab.live.serve_http`, and that token is one for every
caller), so ``permissionChecked`` here says only that the lab's server served it; the host's gate is
the client's check. A cached answer
never reaches the server, so every logged answer is current.

Every request gets exactly one line (§2 of issue 23). An ``initialize`` line records the protocol
revision the server *negotiated* (the ``protocolVersion`` of its answer; before the handshake
commits the session still reports the SDK's default) beside the one the client asked for. A request
the SDK turns away before any handler runs (for its protocol version: ``-32022`` unsupported,
``-32600`` an envelope on a handshake connection, ``-32020`` a header that contradicts the body;
or any other transport refusal) never reaches this middleware, so the transport watchers of
:mod:`~custody_lab.live.serve_refusals` hand it to :meth:`ServedExchanges.refused`, which writes its
line with the error the client was sent.
"""

from __future__ import annotations

__all__ = ["REACHED_KEY", "ServedExchanges"]

import os
from collections.abc import Callable, Mapping
from typing import Any

import mcp.types as mt
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from ..core.errors import CustodyLabError
from ..core.model import Policy
from ..core.text import visible
from .flow_receipts import FINAL_RESULT, asked_block, retry_block, task_block
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

#: The ASGI scope key under which an HTTP request's watcher learns that the request reached the
#: middleware (a list the middleware appends to; see :mod:`~custody_lab.live.serve_refusals`).
REACHED_KEY = "org.custody-lab/reached"


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
        #: tasks this server created, by id: the tool and arguments, for the receipt of the result
        self._tasks: dict[str, tuple[str, dict[str, Any]]] = {}
        #: ids of stdio requests that reached the middleware and whose answer has not gone out yet
        self.reached_ids: set[Any] = set()

    async def _load(self) -> None:
        if self._listed is None:
            self._listed = {r.uri: wire_fields(r) or {} for r in await self.lab.mcp.list_resources()}
            templates = await self.lab.mcp.list_resource_templates()
            self._templates = {t.uri_template: wire_fields(t) or {} for t in templates}
            self._tools = {t.name: wire_fields(t) or {} for t in await self.lab.mcp.list_tools()}

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.request_id is None:  # a notification: nothing was served
            return await call_next(ctx)
        self._mark_reached(ctx)
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

    def _mark_reached(self, ctx: Any) -> None:
        scope = getattr(getattr(ctx, "request", None), "scope", None)
        marker = scope.get(REACHED_KEY) if isinstance(scope, Mapping) else None
        if isinstance(marker, list):
            marker.append(ctx.request_id)  # HTTP: this POST's watcher reads it
        else:
            self.reached_ids.add(ctx.request_id)  # stdio: one connection, ids are its own

    def refused(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        error: Mapping[str, Any],
        *,
        requested_version: str | None,
        http_status: int | None = None,
    ) -> None:
        """Log a request the SDK answered with ``error`` before any handler (or this middleware) ran.

        The line has no receipt (nothing was served) and no ``protocolVersion`` (no session served it);
        ``requestedVersion`` is the revision the request asked for (its envelope, its
        ``MCP-Protocol-Version`` header or its ``initialize`` params), ``error`` what it was answered.
        """
        self.seq += 1
        code, message = error.get("code"), error.get("message")
        entry: dict[str, Any] = {
            "seq": self.seq,
            "run": self.run_id,
            "servedAt": self.clock(),
            "method": method,
            "target": _target(method, dict(params or {})),
            "protocolVersion": None,
            "requestedVersion": requested_version,
            "error": {
                "code": code if isinstance(code, int) else None,
                "message": message if isinstance(message, str) else None,
            },
            "refused": True,
            "outcome": None,
            "receipt": None,
        }
        if http_status is not None:
            entry["httpStatus"] = http_status
        self.log.append(entry)

    def _write(
        self, ctx: Any, params: dict[str, Any], result: dict[str, Any], error: dict[str, Any] | None, changed: bool
    ) -> None:
        self.seq += 1
        at = self.clock()
        method = str(ctx.method)
        target = _target(method, params)
        entry: dict[str, Any] = {
            "seq": self.seq,
            "run": self.run_id,
            "servedAt": at,
            "method": method,
            "target": target,
            "protocolVersion": ctx.protocol_version,
            "error": error,
        }
        if method == "initialize":
            # ctx.protocol_version is the session's before the handshake commits; the answer says
            # what was negotiated (no answer: nothing was).
            negotiated = result.get("protocolVersion")
            entry["protocolVersion"] = negotiated if isinstance(negotiated, str) else None
            requested = params.get("protocolVersion")
            entry["requestedVersion"] = requested if isinstance(requested, str) else None
        if self._flowed(entry, method, target, params, result):
            return
        f: Facts | None = None
        if method == "tasks/get" and result.get("status") == "completed" and result.get("taskId") in self._tasks:
            name, task_arguments = self._tasks.pop(result["taskId"])
            f = call_facts(name, task_arguments, tool=self._tools.get(name))
            take_call_result(f, result.get("result") or {}, observed=changed)
            f.extra["task"] = task_block({"created": result, "polls": ["completed"], "final": result}, at)
        elif method == "resources/read" and isinstance(target, str):
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
        carried = retry_block(params) if method in ("resources/read", "tools/call") else None
        if f is not None and carried is not None:
            f.extra["inputRequired"] = {"retryCarried": carried, "finalResult": {"cached": False, "why": FINAL_RESULT}}
            actions = [r["action"] for r in carried["inputResponses"].values()]
            if actions:
                f.exchange["elicitation"] = actions[-1]
        if f is not None:
            if error is not None:
                failed(f, f"{error['code']}: {error['message']}", errorCode=error["code"])
            server = {"name": self.lab.mcp.name, "version": self.lab.mcp.version}
            live = build_receipt(f, server=server, protocol_version=ctx.protocol_version, policy=self.policy, now=at)
            receipt = live.receipt
        entry["outcome"] = None if receipt is None else receipt.get("selected") or receipt.get("rejection")
        entry["receipt"] = receipt
        self.log.append(entry)

    def _flowed(
        self, entry: dict[str, Any], method: str, target: Any, params: Mapping[str, Any], result: Mapping[str, Any]
    ) -> bool:
        """Log an answer that delivered nothing yet (``input_required``, or a task created); True if so.

        Neither is a receipt: no content reached the client. An ``input_required`` line says what was
        asked (made visible) and that it is not cacheable; a task line, the task, whose receipt is
        written when a ``tasks/get`` answers it completed.
        """
        kind = result.get("resultType")
        if kind == "input_required":
            entry["inputRequired"] = asked_block(result)
        elif kind == "task" and method == "tools/call" and isinstance(result.get("taskId"), str):
            arguments = params.get("arguments")
            self._tasks[result["taskId"]] = (str(target), dict(arguments) if isinstance(arguments, Mapping) else {})
            entry["task"] = {k: result.get(k) for k in ("taskId", "status", "createdAt", "pollIntervalMs")}
        else:
            return False
        entry["outcome"], entry["receipt"] = kind, None
        self.log.append(entry)
        return True


def _target(method: str, params: Mapping[str, Any]) -> str | None:
    """What a request names: a read's URI, a call's or a prompt's name, a completion's reference."""
    if method == "resources/read":
        target = params.get("uri")
    elif method == "completion/complete":
        ref = params.get("ref")
        target = (ref.get("uri") or ref.get("name")) if isinstance(ref, Mapping) else None
    else:
        target = params.get("name")
    return target if isinstance(target, str) else None
