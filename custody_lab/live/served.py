"""The receipts of what a server served: a middleware that logs each answered request.

``custody-lab serve`` (:mod:`~custody_lab.live.serve`) adds :class:`ServedExchanges` to the lab
server with :meth:`~custody_lab.live.server.LabServer.observe`. For each ``resources/read`` and
``tools/call`` it builds a :class:`~custody_lab.Case` from what the server actually sent (the URI,
MIME type and provenance of the contents, the size and sha256 of its bytes, whether the server's
state ledger changed across the exchange) and :func:`~custody_lab.route` decides it through the
same loop as the simulator and the recording client; the extended receipt goes into the log.

Who initiated an exchange is not on the wire. These receipts name the initiator by the lab's host
policy: a read is the application's (MCP 2026-07-28, "Resources": resources are
application-driven) and a tool call the model's ("Tools": model-controlled). The server grants
every request it receives (it has no authorization of its own), so ``permissionChecked`` here says
only that the lab's server served it; the host's gate is the client's check.
"""

from __future__ import annotations

__all__ = ["ServedExchanges"]

import os
from collections.abc import Callable, Mapping
from typing import Any

import mcp.types as mt
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from ..core.errors import CustodyLabError
from ..core.model import OPERATIONS, Case, Policy
from ..core.receipts import canonical_json, digest, extended_receipt
from ..core.router import route
from ..core.text import visible
from ..protocol.blobs import BlobError, read_contents
from ..protocol.uri_templates import match
from .keys import OPERATION_KEY, PROVENANCE_KEY, URI_KEY
from .serve import ReceiptLog
from .server import LabServer
from .values import utc_now


def _as_dict(result: Any) -> dict[str, Any]:
    if isinstance(result, BaseModel):
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(result) if isinstance(result, Mapping) else {}


def _meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj.get("_meta")
    return dict(meta) if isinstance(meta, Mapping) else {}


class ServedExchanges:
    """Server middleware that appends every answered request to a :class:`ReceiptLog`.

    Add it with :meth:`LabServer.observe` so it sees each result as the client does (after the
    lab's provenance stamp). It only observes: the result and any error pass through unchanged.

    Args:
        lab: the server being observed (its state ledger shows side effects; its listing, shapes).
        log: where the entries go.
        clock: the time written as ``servedAt`` and ``retrievedAt``.
    """

    def __init__(self, lab: LabServer, log: ReceiptLog, *, clock: Callable[[], str] = utc_now) -> None:
        self.lab, self.log, self.clock = lab, log, clock
        self.seq = 0
        #: tells one server process's entries from another's in a log several runs appended to
        self.run_id = f"{os.getpid()}@{clock()}"
        self._listed: set[str] | None = None
        self._templates: list[str] = []
        self._tools: dict[str, mt.Tool] = {}

    async def _load(self) -> None:
        if self._listed is None:
            self._listed = {r.uri for r in await self.lab.mcp.list_resources()}
            self._templates = [t.uri_template for t in await self.lab.mcp.list_resource_templates()]
            self._tools = {t.name: t for t in await self.lab.mcp.list_tools()}

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
                self._write(ctx, params, _as_dict(result), error, changed)
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
        receipt: dict[str, Any] | None = None
        if method == "resources/read" and isinstance(target, str):
            receipt = self._read_receipt(target, result, error, changed, at)
        elif method == "tools/call" and isinstance(target, str):
            receipt = self._call_receipt(target, result, error, changed, at)
        else:
            counts = {k: len(v) for k, v in result.items() if isinstance(v, list)}
            entry["items"] = counts or None
        entry["outcome"] = None if receipt is None else receipt.get("selected") or receipt.get("rejection")
        entry["receipt"] = receipt
        self.log.append(entry)

    def _read_receipt(
        self, uri: str, result: dict[str, Any], error: dict[str, Any] | None, changed: bool, at: str
    ) -> dict[str, Any]:
        params = next((p for t in self._templates if (p := match(t, uri)) is not None), None)
        templated = uri not in (self._listed or set()) and params is not None
        fields: dict[str, Any] = {"uri": uri, "mime": None, "bytes": 0, "provenance": None}
        extra: dict[str, Any] = {"delivery": "read"}
        items = [i for i in result.get("contents", ()) if isinstance(i, Mapping)]
        if items:
            fields.update(self._contents(items[0], extra))
            extra["contentsItems"] = len(items)
        case = {
            "id": uri,
            "initiator": "application",
            "operation": "read-template" if templated else "read",
            "shape": "templated-resource" if templated else "listed-resource",
            "sideEffects": changed,
            **fields,
        }
        exchange = {"requestedUri": uri, "observedSideEffects": changed}
        return self._receipt(case, exchange, error, at, "resources/read", uri, extra, params if templated else None)

    def _contents(self, item: Mapping[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        """URI, MIME type, size and provenance of one contents item, from the bytes themselves."""
        prov = _meta(item).get(PROVENANCE_KEY)
        out: dict[str, Any] = {
            "uri": item.get("uri"),
            "mime": item.get("mimeType"),
            "bytes": 0,
            "provenance": prov if isinstance(prov, str) else None,
        }
        try:
            reading = read_contents(item)
        except BlobError as e:
            extra["contentError"] = str(e)
            return out
        out["bytes"] = reading.size_bytes
        extra["contentDigest"] = "sha256:" + reading.sha256
        return out

    def _call_receipt(
        self, name: str, result: dict[str, Any], error: dict[str, Any] | None, changed: bool, at: str
    ) -> dict[str, Any]:
        tool = self._tools.get(name)
        hint = tool.annotations.read_only_hint if tool and tool.annotations else None
        declared = None if hint is None else not hint
        op = (tool.meta or {}).get(OPERATION_KEY) if tool else None
        meta = _meta(result)
        fields: dict[str, Any] = {"uri": meta.get(URI_KEY), "mime": None, "bytes": 0, "provenance": None}
        if isinstance(meta.get(PROVENANCE_KEY), str):
            fields["provenance"] = meta[PROVENANCE_KEY]
        blocks = [b for b in result.get("content", ()) if isinstance(b, Mapping)]
        extra: dict[str, Any] = {"contentTypes": [b.get("type") for b in blocks]}
        embedded = [
            b["resource"] for b in blocks if b.get("type") == "resource" and isinstance(b.get("resource"), Mapping)
        ]
        links = [b for b in blocks if b.get("type") == "resource_link"]
        shape = "structured-tool-result"
        if embedded:
            shape, extra["delivery"] = "embedded-resource", "embedded"
            fields.update({k: v for k, v in self._contents(embedded[0], extra).items() if v is not None})
        elif links:
            shape, extra["delivery"] = "resource-link", "linked"
            size = links[0].get("size")
            fields.update(
                uri=links[0].get("uri"), mime=links[0].get("mimeType"), bytes=size if isinstance(size, int) else 0
            )
            prov = _meta(links[0]).get(PROVENANCE_KEY)
            fields["provenance"] = prov if isinstance(prov, str) else fields["provenance"]
        elif "structuredContent" in result:
            body = canonical_json(result["structuredContent"])
            fields.update(mime="application/json", bytes=len(body.encode("utf-8")))
            extra.update(delivery="structured", contentDigest="sha256:" + digest(body))
        case = {
            "id": name,
            "initiator": "model",
            "operation": op if op in OPERATIONS else ("mutate" if declared else "calculate"),
            "shape": shape,
            "sideEffects": changed if declared is None else (declared or changed),
            **fields,
        }
        exchange = {
            "declaredSideEffects": declared,
            "observedSideEffects": changed,
            "toolError": bool(result.get("isError")),
        }
        return self._receipt(case, exchange, error, at, "tools/call", name, extra, None)

    def _receipt(
        self,
        fields: dict[str, Any],
        exchange: dict[str, Any],
        error: dict[str, Any] | None,
        at: str,
        method: str,
        target: str,
        extra: dict[str, Any],
        template_params: dict[str, Any] | None,
    ) -> dict[str, Any]:
        if error is not None:
            exchange["errorCode"] = error["code"]
        case = Case(
            id=fields["id"],
            initiator=fields["initiator"],
            operation=fields["operation"],
            shape=fields["shape"],
            uri=fields["uri"] or None,
            mime=fields["mime"] or None,
            bytes=fields["bytes"],
            current=True,
            allowed=True,
            side_effects=fields["sideEffects"],
            provenance=fields["provenance"] or None,
        )
        decision = route(case, Policy(now=at), exchange=exchange)
        info = {"name": self.lab.mcp.name, "version": self.lab.mcp.version}
        served = {"method": method, "target": target, "server": info, "servedBy": "custody-lab serve"}
        return extended_receipt(
            decision, template_params=template_params, extra={**served, **extra, "exchange": exchange}
        )
