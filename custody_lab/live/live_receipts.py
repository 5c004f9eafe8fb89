"""Live receipts: the one builder both ends of a live exchange use.

Two parts of the lab see a live exchange, each from its own end: the recording client
(:class:`~custody_lab.live.recorder.Recorder`, behind ``LabSession`` and the audit) and the log of
``custody-lab serve`` (:class:`~custody_lab.live.serve_middleware.ServedExchanges`). Both hand
what was on the wire — the request, the wire mapping of the result or the error, the listing's
entry for the resource or tool, whether the server's state changed — to the functions here, which
turn it into :class:`Facts`, then a :class:`~custody_lab.Case` plus exchange facts that
:func:`~custody_lab.route` decides through :data:`~custody_lab.core.rules.LIVE_RULES`, then the
extended receipt. Each rule below is decided here once, so the same exchange gives the same
receipt at both ends; only the client has a response cache (``cache``), a gate (``allowed``) and
follows links (``followUp``), and it adds those itself.

**Size** (``custody.bytes``) is the number of UTF-8 bytes of what was on the wire, never a count of
characters:

- a contents item (read, or embedded in a tool result): the UTF-8 bytes of its ``text``, or the
  decoded bytes of its ``blob`` (:func:`~custody_lab.protocol.blobs.read_contents`);
- ``structuredContent``: the UTF-8 bytes of its canonical JSON (compact, key order kept,
  non-ASCII kept: what ``JSON.stringify`` writes, :func:`~custody_lab.core.receipts.canonical_json`);
- a result with no structured content, embed or link: every inline block that arrived (the UTF-8
  bytes of text blocks, the decoded bytes of image and audio blocks), in order; ``custody.mime``
  names each MIME type they carried, comma-separated when they differ (``text/plain, image/png``);
- a ``resource_link``: the size it declares (nothing else arrived; a link the client follows takes
  the bytes of that second read).

**Every block is counted** besides: ``contentBlocks`` lists each content block of a tool result
(:func:`~custody_lab.live.content_counts.count_blocks`: type, MIME type and where it is known from,
bytes, sha256; a link's declared size) and ``contentTotals`` the blocks and bytes per type and in
all, so a result whose custody names its first embed or link still shows every other block that
reached the model. A MIME type is *known* only when the wire carried it (a text block is
``text/plain`` by its type); one only sniffed from the bytes is marked ``"sniffed"``.

**Declared side effects** of a tool: the lab's ``_meta`` declaration
(:data:`~custody_lab.live.meta_keys.SIDE_EFFECTS_KEY`, ``true`` or ``false``) when the tool sets it,
else nobody declared (``None``; seed 000 refuses such a call before it runs). A tool annotation is
never the declaration: ``readOnlyHint`` is a hint (MCP 2025-03-26 and later, "Tools", tool
annotations: clients MUST consider annotations untrusted unless they come from a trusted server,
and the schema adds that clients should never make tool use decisions on annotations from an
untrusted server). The lab's host policy therefore *shows* the hint (``hints.toolAnnotations``,
``sideEffectsEvidence.readOnlyHint``) and lets it decide nothing: the same exchange with
``readOnlyHint`` true, false or absent gets the same decision. A resource read declares none by
contract. The receipt's ``sideEffects`` is the declaration or what the state ledger showed,
whichever says "yes"; a tool *declared* free of side effects whose call changed the ledger is
``read-only-hint-violated`` (the code's name is the lab's; the declaration it checks is the
``_meta`` one).

**Provenance fallback.** MCP 2026-07-28 has no provenance field: a resource's contents carry
``uri``, ``mimeType`` and ``text`` or ``blob`` ("Resources", resource contents), a tool result its
content blocks, ``structuredContent`` and ``isError`` ("Tools", tool result), and ``_meta`` is left
to implementations ("Basic", general fields). Where the content came from is therefore the host's
to say. The lab's host policy: the string under ``_meta``
:data:`~custody_lab.live.meta_keys.PROVENANCE_KEY` on the contents item, the link, the embedded
resource or the result, when the server sent one (``provenanceSource.source`` is
``"server _meta"``); otherwise, for an exchange that was performed and answered without error, the
server's own name for itself from the initialization, ``serverInfo`` ``name@version`` ("Basic",
lifecycle; source ``"host"``); otherwise none, a provenance gap. ``provenanceSource`` also records
the method, the URI and the retrieval time: the host always names what it asked.
"""

from __future__ import annotations

__all__ = [
    "OBSERVED_BY",
    "RESULT_HINTS",
    "Facts",
    "LiveReceipt",
    "build_receipt",
    "call_facts",
    "check_size",
    "count_blocks",
    "declared_side_effects",
    "failed",
    "meta_of",
    "provenance_of",
    "read_facts",
    "read_only_hint",
    "take_call_result",
    "take_read_result",
    "undeclared_side_effects",
    "utc_now",
    "wire_fields",
]

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

from ..core.model import MAX_BYTES, OPERATIONS, Case, Decision, Policy
from ..core.receipts import canonical_json, digest, extended_receipt, server_hints
from ..core.router import route
from ..core.text import visible
from ..protocol.blobs import BlobError, read_contents
from .content_counts import count_blocks
from .limits import MAX_TEXT_CHARS
from .live_errors import LiveError
from .meta_keys import OPERATION_KEY, PROVENANCE_KEY, SIDE_EFFECTS_KEY, URI_KEY

#: The result fields 2026-07-28 adds that the extended receipt records (as hints).
RESULT_HINTS = ("ttlMs", "cacheScope", "resultType")

#: How side effects were observed: the server's state ledger before and after the exchange (the
#: client digests the ledger resource; ``serve`` compares the ledger itself, the same observation).
_OBSERVED_BY = "state digest before/after"
#: The same, for other receipt builders (:mod:`~custody_lab.live.prompt_receipts`).
OBSERVED_BY = _OBSERVED_BY
_CONTRACT_ONLY = "protocol contract only (no state resource to observe)"


def utc_now() -> str:
    """The current UTC time in the seed's receipt format (milliseconds, ``Z``).

    Example:
        >>> len(utc_now()), utc_now().endswith("Z")
        (24, True)
    """
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def wire_fields(obj: Any, keys: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """An SDK object as the wire mapping the server sent: only the fields it set, by their wire
    names (only ``keys`` when given); ``None`` for ``None``; a mapping is taken as it is."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        wire = dict(obj)
    else:
        wire = obj.model_dump(by_alias=True, mode="json", exclude_unset=True, exclude_none=True)
    return {k: v for k, v in wire.items() if not keys or k in keys}


def meta_of(obj: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``_meta`` object of a wire mapping (``{}`` when there is none or it is not an object)."""
    meta = (obj or {}).get("_meta")
    return dict(meta) if isinstance(meta, Mapping) else {}


def _meta_str(obj: Mapping[str, Any] | None, key: str) -> str | None:
    value = meta_of(obj).get(key)
    return value if isinstance(value, str) else None


def check_size(size: Any, what: str) -> None:
    """A declared ``size`` must be a byte count the lab can hold (0 to ``MAX_BYTES``).

    ``size`` is the SDK model's value, which pydantic's lax mode may have coerced (``true`` to 1,
    ``"12"`` to 12). Behind the audit's transport guards the wire value has decided already: a
    ``size`` that is not a non-negative JSON integer never reaches the model
    (:func:`~custody_lab.live.wire_checks.refuse_odd_sizes`), so here only one past ``MAX_BYTES``
    is left to refuse.

    Raises:
        LiveError: naming ``what`` declared it.
    """
    if size is None:
        return
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_BYTES:
        raise LiveError(
            f"{what} declares size {visible(repr(size))}: a size is a whole number of bytes from 0 to {MAX_BYTES}"
        )


@dataclass(frozen=True)
class LiveReceipt:
    """One recorded exchange: the decision, its extended receipt, and what actually came back.

    Attributes:
        case_id: the fixture case (or a name you chose) this exchange stands for.
        decision: the router's decision on the case built from the actual response and the
            exchange's facts (one loop over ``LIVE_RULES``: at most one failed step).
        receipt: the JSON-ready extended receipt (seed shape + live fields).
        content: the bytes or text that came back (for display; never decisive), or ``None``.
        frames: the JSON-RPC frames of this exchange when the session records them.
    """

    case_id: str
    decision: Decision
    receipt: dict[str, Any]
    content: str | bytes | None = None
    frames: tuple[Any, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.decision.accepted

    @property
    def outcome(self) -> str:
        """The selected shape, or the rejection code."""
        return self.decision.outcome

    @property
    def rejection(self) -> str | None:
        return self.decision.rejection


@dataclass
class Facts:
    """What one exchange established, before it becomes a Case and a receipt."""

    case_id: str
    initiator: Literal["application", "model"]
    operation: str
    shape: str
    method: str
    target: str
    uri: str | None = None
    mime: str | None = None
    size: int = 0
    provenance: str | None = None
    current: bool = True
    allowed: bool = True
    side_effects: bool | None = None
    requires_current: bool = False
    content: str | bytes | None = None
    content_digest: str | None = None
    delivery: str = "none"
    performed: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    #: what was observed about the exchange itself (keys of ``EXCHANGE_FACTS``), for the router
    exchange: dict[str, Any] = field(default_factory=dict)
    #: explanations for people, keyed by the check each one explains (never decisive)
    notes: dict[str, str] = field(default_factory=dict)
    template_params: dict[str, Any] | None = None
    #: what the listing said about the resource or tool (wire keys), for the receipt's hints
    described: dict[str, Any] | None = None
    #: what the server said about the answer (wire keys), for the 2026-07-28 fields of the receipt
    hints: dict[str, Any] | None = None


def declared_side_effects(tool: Mapping[str, Any] | None) -> tuple[bool | None, str]:
    """What a listed tool (its wire mapping) declares about side effects, and where it says so.

    Only the lab's ``_meta`` declaration counts; a ``readOnlyHint`` is shown elsewhere and declares
    nothing (the module docstring says why).

    Example:
        >>> declared_side_effects({"name": "t", "_meta": {"org.custody-lab/sideEffects": True}})
        (True, '_meta org.custody-lab/sideEffects')
        >>> declared_side_effects({"name": "t", "annotations": {"readOnlyHint": True}})[0] is None
        True
    """
    if tool is None:
        return None, "unknown tool (not in tools/list)"
    declared = meta_of(tool).get(SIDE_EFFECTS_KEY)
    if isinstance(declared, bool):
        return declared, f"_meta {SIDE_EFFECTS_KEY}"
    annotations = tool.get("annotations")
    return None, undeclared_side_effects(annotations if isinstance(annotations, Mapping) else None)


#: The tool annotations MCP defines (2025-03-26 and later, 2026-07-28 included), by wire name.
_TOOL_HINT_KEYS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def undeclared_side_effects(hints: Mapping[str, Any] | None) -> str:
    """Why a tool's side effects are unknown: it lacks the lab's declaration (which this names), and
    each annotation it did set (``hints``, by wire name) is a hint that declares nothing.

    Example:
        >>> undeclared_side_effects(None)
        'nobody declared: no lab declaration (the _meta key org.custody-lab/sideEffects, true or false)'
        >>> undeclared_side_effects({"destructiveHint": True}).split("; ")[1]
        'its destructiveHint: true is a hint and declares nothing'
        >>> undeclared_side_effects({"readOnlyHint": False, "destructiveHint": True}).split("; ")[1]
        'its readOnlyHint: false and destructiveHint: true are hints and declare nothing'
    """
    given = hints or {}
    set_ = [f"{k}: {str(given[k]).lower()}" for k in _TOOL_HINT_KEYS if isinstance(given.get(k), bool)]
    said = ""
    if set_:
        said = f"; its {' and '.join(set_)} " + (
            "is a hint and declares nothing" if len(set_) == 1 else "are hints and declare nothing"
        )
    return f"nobody declared: no lab declaration (the _meta key {SIDE_EFFECTS_KEY}, true or false){said}"


def read_only_hint(tool: Mapping[str, Any] | None) -> bool | None:
    """The tool's ``readOnlyHint`` as the server sent it (``None``: not set), for display only.

    Example:
        >>> read_only_hint({"name": "t", "annotations": {"readOnlyHint": True}}), read_only_hint({"name": "t"})
        (True, None)
    """
    annotations = (tool or {}).get("annotations")
    hint = annotations.get("readOnlyHint") if isinstance(annotations, Mapping) else None
    return hint if isinstance(hint, bool) else None


def read_facts(
    uri: str,
    *,
    listed: Mapping[str, Any] | None,
    matched: tuple[str, dict[str, Any]] | None,
    case_id: str | None = None,
    operation: str | None = None,
    requires_current: bool = False,
) -> Facts:
    """The facts of a ``resources/read`` of ``uri`` before it is sent (the application initiates).

    Args:
        listed: the wire mapping of the listed resource, or of the template ``matched`` came from.
        matched: ``(template, parameters)`` when ``uri`` is not listed but matched a template.
    """
    f = Facts(
        case_id=case_id or uri,
        initiator="application",
        operation=operation or ("read-template" if matched else "read"),
        shape="templated-resource" if matched else "listed-resource",
        method="resources/read",
        target=uri,
        uri=uri,
        mime=listed.get("mimeType") if listed else None,
        requires_current=requires_current,
        template_params=dict(matched[1]) if matched else None,
        exchange={"requestedUri": uri},
        described=dict(listed) if listed else None,
    )
    if matched:
        f.extra["template"] = matched[0]
    # a resource read declares no side effects by contract, answered or not (a failed read's
    # receipt says sideEffects false, and its evidence says why)
    f.extra["sideEffectsEvidence"] = {"declared": False, "observed": None, "source": _CONTRACT_ONLY}
    return f


def call_facts(
    name: str, arguments: Mapping[str, Any], *, tool: Mapping[str, Any] | None, case_id: str | None = None
) -> Facts:
    """The facts of a ``tools/call`` before it is sent (the model initiates), with what ``tool`` declares."""
    declared, source = declared_side_effects(tool)
    op = meta_of(tool).get(OPERATION_KEY)
    f = Facts(
        case_id=case_id or name,
        initiator="model",
        operation=op if op in OPERATIONS else ("mutate" if declared else "calculate"),
        shape="structured-tool-result",
        method="tools/call",
        target=name,
        side_effects=declared,
        exchange={"declaredSideEffects": declared},
        described=dict(tool) if tool else None,
    )
    f.extra["arguments"] = dict(arguments)
    f.extra["sideEffectsEvidence"] = {
        "declared": declared,
        "observed": None,
        "source": source,
        "readOnlyHint": read_only_hint(tool),  # shown, never decisive
    }
    return f


def failed(f: Facts, message: str, **facts: Any) -> None:
    """An exchange that got no usable answer (``facts``: ``timedOut=True`` or ``errorCode=...``)."""
    f.exchange.update(facts)
    f.performed = not facts.get("timedOut", False)
    f.extra["error"] = message
    if f.side_effects is None and f.initiator == "application":
        f.side_effects = False


def _hints(result: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k in RESULT_HINTS}


def take_read_result(f: Facts, result: Mapping[str, Any], *, observed: bool | None) -> None:
    """Fill ``f`` from a ``resources/read`` result (its wire mapping) and what the ledger showed."""
    f.exchange["observedSideEffects"] = observed
    # a resource read declares no side effects by contract; only the state ledger can say
    f.side_effects = bool(observed) if observed is not None else False
    f.hints = {"result": _hints(result), "described": f.described}
    contents = [c for c in result.get("contents") or () if isinstance(c, Mapping)]
    if not contents:
        f.extra["error"] = "the server answered with no contents"
        f.uri = None
        return
    item = contents[0]
    f.extra["contentsItems"] = len(contents)
    _take_contents(f, item, delivery="read")
    if item.get("uri") != f.target:
        f.notes["uri-mismatch"] = f"asked for {f.target!r}, the contents item says {item.get('uri')!r}"
    f.extra["sideEffectsEvidence"] = {
        "declared": False,
        "observed": observed,
        "source": _OBSERVED_BY if observed is not None else _CONTRACT_ONLY,
    }


def _take_contents(f: Facts, item: Mapping[str, Any], *, delivery: str) -> None:
    """URI, MIME type, size, digest and provenance from one contents item (the bytes themselves)."""
    f.delivery = delivery
    f.uri = item.get("uri")
    f.mime = item.get("mimeType")
    f.provenance = _meta_str(item, PROVENANCE_KEY) or f.provenance
    text = item.get("text")
    if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
        f.extra["contentError"] = (
            f"text contents of {len(text)} characters exceed the {MAX_TEXT_CHARS} limit; not copied"
        )
        return
    try:
        reading = read_contents(item)
    except BlobError as e:
        f.extra["contentError"] = str(e)
        return
    f.size = reading.size_bytes
    f.content_digest = "sha256:" + reading.sha256
    f.content = reading.text if reading.kind == "text" else reading.data
    f.extra["mimeCheck"] = {
        "declared": reading.declared_mime,
        "sniffed": reading.sniffed_mime,
        "mismatch": reading.mime_mismatch,
        "reason": reading.mismatch_reason,
    }


def take_call_result(f: Facts, result: Mapping[str, Any], *, observed: bool | None) -> None:
    """Fill ``f`` from a ``tools/call`` result (its wire mapping) and what the ledger showed.

    A link is kept as a link (its declared size; ``followUp`` is ``None``): following it is the
    client's second read, which the recorder adds.
    """
    tool = f.described
    f.hints = {"result": _hints(result), "tool": tool}
    declared = f.exchange.get("declaredSideEffects")
    evidence = f.extra["sideEffectsEvidence"]
    evidence["observed"] = f.exchange["observedSideEffects"] = observed
    if observed is not None:
        f.side_effects = observed if declared is None else (declared or observed)
        if declared is False and observed:
            f.notes["read-only-hint-violated"] = (
                f"{f.target!r} declared read-only ({evidence['source']}) but the state digest changed"
            )
    f.provenance = _meta_str(result, PROVENANCE_KEY)
    blocks = [b for b in result.get("content") or () if isinstance(b, Mapping)]
    entries, totals = count_blocks(blocks)
    f.extra["contentTypes"] = [b.get("type") for b in blocks]
    f.extra["contentBlocks"], f.extra["contentTotals"] = entries, totals
    if result.get("isError"):
        text = " ".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
        f.uri = _meta_str(result, URI_KEY)
        f.exchange["toolError"] = True
        f.extra["error"] = f.notes["tool-error"] = text[:500]
        return
    embedded = [b for b in blocks if b.get("type") == "resource" and isinstance(b.get("resource"), Mapping)]
    links = [b for b in blocks if b.get("type") == "resource_link"]
    if embedded:
        f.shape = "embedded-resource"
        f.hints["described"] = dict(embedded[0])
        _take_contents(f, embedded[0]["resource"], delivery="embedded")
    elif links:
        f.shape = "resource-link"
        f.hints["described"] = dict(links[0])
        _take_link(f, links[0])
    else:
        structured = result.get("structuredContent")
        f.delivery = "structured" if structured is not None else "text"
        f.uri = _meta_str(result, URI_KEY)
        if structured is not None:
            body = canonical_json(structured)
            f.mime = "application/json"
            f.extra["outputSchema"] = bool(tool and tool.get("outputSchema"))
            f.size = len(body.encode("utf-8"))
            f.content_digest = "sha256:" + digest(body)
        else:
            body = "".join(b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str))
            # every inline block reached the model: an image beside the text is counted too
            f.mime = ", ".join(totals["mimeTypes"]) or None
            f.size = totals["inlineBytes"]
            f.content_digest = totals["inlineDigest"] if entries else "sha256:" + digest(body)
        f.content = body


def _take_link(f: Facts, link: Mapping[str, Any]) -> None:
    """Keep a ``resource_link`` as a link: its URI, MIME type, declared size and provenance."""
    f.delivery = "linked"
    size = link.get("size")
    check_size(size, f"{f.method} {visible(f.target)!r}: the resource_link to {visible(str(link.get('uri')))!r}")
    f.uri, f.mime = link.get("uri"), link.get("mimeType")
    f.size = size or 0
    f.provenance = _meta_str(link, PROVENANCE_KEY) or f.provenance
    f.extra["link"] = {"uri": f.uri, "mimeType": f.mime, "declaredSize": size, "name": link.get("name")}
    f.extra["followUp"] = None


def provenance_of(f: Facts, server: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The receipt's provenance and its source (the fallback rule in this module's docstring).

    Example:
        >>> f = Facts("c", "application", "read", "listed-resource", "resources/read", "kb://a")
        >>> provenance_of(f, {"name": "srv", "version": "1.0"})
        ('srv@1.0', 'host')
        >>> f.provenance = "docs@4"
        >>> provenance_of(f, {"name": "srv", "version": "1.0"})
        ('docs@4', 'server _meta')
    """
    if f.provenance:
        return f.provenance, "server _meta"
    if f.performed and "error" not in f.extra and server.get("name") and server.get("version"):
        return f"{server['name']}@{server['version']}", "host"
    return None, None


def build_receipt(
    f: Facts, *, server: Mapping[str, Any], protocol_version: str | None, policy: Policy, now: str
) -> LiveReceipt:
    """Decide ``f`` through the live rules and write its extended receipt.

    Args:
        server: ``{"name", "version"}`` as the initialization reported them.
        protocol_version: the revision the session negotiated.
        policy: the host policy (its ``now`` is replaced by ``now``, the retrieval time).
        now: when the answer arrived (``custody.retrievedAt``).
    """
    provenance, source = provenance_of(f, server)
    case = Case(
        id=f.case_id,
        initiator=f.initiator,
        operation=f.operation,
        shape=f.shape,  # type: ignore[arg-type]
        uri=f.uri or None,
        mime=f.mime or None,
        bytes=f.size,
        current=f.current,
        allowed=f.allowed,
        side_effects=f.side_effects,
        provenance=provenance,
        requires_current=f.requires_current,
    )
    decision = route(case, replace(policy, now=now), exchange=f.exchange)
    status = {step.code: step.status for step in decision.trace}
    extra: dict[str, Any] = {
        "provenanceSource": {"source": source, "method": f.method, "uri": f.uri, "retrievedAt": now},
        "method": f.method,
        "target": f.target,
        "server": {"name": server.get("name"), "version": server.get("version")},
        "protocolVersion": protocol_version,
        "performed": f.performed,
        "delivery": f.delivery,
        "contentDigest": f.content_digest,
        **f.extra,
        "exchange": dict(f.exchange),
        "liveChecks": [{"code": code, "status": status[code], "detail": text} for code, text in f.notes.items()],
    }
    if f.hints is not None:
        received = f.size if f.content_digest else None
        extra["hints"] = server_hints(retrieved_at=now, bytes_received=received, **f.hints)
    receipt = extended_receipt(decision, template_params=f.template_params, extra=extra)
    return LiveReceipt(f.case_id, decision, receipt, f.content)
