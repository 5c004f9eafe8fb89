"""The audit's deeper exercises: templates read via completion, tool results block by block.

- **Templates** (MCP ``completion/complete``, 2025-06-18 and later): for each variable of a
  resource template the audit uses a value the user gave (``--template-values NAME=JSON``), else
  asks the server to complete it — with an empty prefix, then with each of :data:`PROBES` (a
  server may complete only what it can validate, as the reference server does for
  ``resourceId``). The template is expanded with the lab's own RFC 6570 engine
  (:mod:`custody_lab.protocol.uri_templates`) and read like any resource; with no value known it is
  reported "not read: no value known".
- **Tool results**: every content block of a tool the user named with ``--allow-calls`` is
  reported with its custody (:func:`~custody_lab.live.live_receipts.count_blocks`, the receipts'
  own count): text (bytes, sha256), images and audio (declared MIME type against the sniffed one,
  bytes, sha256), embedded resources (URI, MIME type, bytes, sha256) and resource links (an
  address: URI, declared MIME type and size; nothing is fetched unless ``--follow-links`` asks for
  the second read, recorded separately, through the same gate), with totals per result.
- **Prompts** (MCP ``prompts/get``): each listed prompt is got once, its arguments valued like a
  template's variables (the user's, else completion with the values found so far as context);
  every block of its messages is counted like a tool result's (:func:`audit_prompt`).
- **Structured content** is validated against the tool's ``outputSchema`` with ``jsonschema``
  (the schema's own ``$schema`` when it names one, else Draft 2020-12, the default dialect of MCP
  2025-11-25 and 2026-07-28), in a worker process killed at the exchange's ``--timeout``
  (:mod:`~custody_lab.live.schema_check`: a schema can make the check exponential); whether a
  TextContent block carries the same JSON is noted (MCP 2025-06-18 and later: a tool returning
  structured content SHOULD also return it serialized in a TextContent block, for older clients).
"""

from __future__ import annotations

__all__ = [
    "PROBES",
    "Exercise",
    "PromptExercise",
    "audit_prompt",
    "audit_template",
    "content_blocks",
    "follow_link",
    "structured_check",
    "template_values",
]

import json
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any

import anyio
import mcp.types as mt
from mcp import Client
from mcp.shared.exceptions import MCPError

from ..core.receipts import canonical_json
from ..core.text import visible
from ..protocol.uri_templates import UriTemplateError, parse
from .audit_fields import (
    declared_prompt_fields,
    declared_template_fields,
    fields_from_prompt,
    fields_from_receipt,
    prompt_details,
    receipt_details,
    unexercised_fields,
)
from .audit_report import CapabilityAudit
from .content_counts import count_blocks
from .limits import DEFAULT_TIMEOUT
from .live_receipts import LiveReceipt, wire_fields
from .recorder import Recorder
from .schema_check import check_in_worker

#: Prefixes tried, after the empty one, when a server completes nothing for an empty prefix.
PROBES: tuple[str, ...] = ("1", "a")


async def template_values(
    client: Client, template: str, names: tuple[str, ...], given: Mapping[str, object], timeout: float
) -> tuple[dict[str, object], dict[str, str]]:
    """A value for each variable of ``template``: the user's, else the server's first completion.

    Returns:
        ``(values, how)``: the values found, and for every name how its value was found or why
        none was (``"--template-values"``, ``"completion/complete (prefix '1')"``, ``"no value
        known: …"``).
    """
    ref = mt.ResourceTemplateReference(type="ref/resource", uri=template)
    return await _values(client, ref, names, given, timeout)


async def _values(
    client: Client,
    ref: mt.ResourceTemplateReference | mt.PromptReference,
    names: tuple[str, ...],
    given: Mapping[str, object],
    timeout: float,
) -> tuple[dict[str, object], dict[str, str]]:
    values: dict[str, object] = {}
    how: dict[str, str] = {}
    can_complete = client.server_capabilities.completions is not None
    for name in names:
        if name in given:
            values[name], how[name] = given[name], "--template-values"
            continue
        if not can_complete:
            how[name] = "no value known: the server declares no completions capability"
            continue
        how[name] = "no value known: completion/complete offered none"
        for prefix in ("", *PROBES):
            try:
                # the values found so far go along as context (completion/complete's
                # context.arguments, MCP 2025-06-18 and later): a server may complete one
                # argument only once it knows another, as the reference server's prompts do
                context = {k: _as_argument(v) for k, v in values.items()} or None
                with anyio.fail_after(timeout):
                    result = await client.complete(ref, {"name": name, "value": prefix}, context_arguments=context)
            except TimeoutError:
                how[name] = f"no value known: completion/complete got no answer within {timeout:g} s"
                break
            except MCPError as e:
                how[name] = f"no value known: completion/complete answered error {e.code}: {visible(e.error.message)}"
                break
            if result.completion.values:
                values[name] = result.completion.values[0]
                how[name] = f"completion/complete (prefix {prefix!r})"
                break
    return values, how


def content_blocks(result: mt.CallToolResult | mt.GetPromptResult) -> list[dict[str, Any]]:
    """Every content block of a tool result (or of a prompt's messages) with its custody.

    The counting is :func:`~custody_lab.live.live_receipts.count_blocks`, the receipts' own; a
    ``resource_link`` gets ``followed`` (``None`` until ``--follow-links`` reads it). Nothing is fetched.

    Example:
        >>> r = mt.CallToolResult(content=[mt.TextContent(type="text", text="hi")])
        >>> content_blocks(r)[0]["bytes"], content_blocks(r)[0]["type"]
        (2, 'text')
    """
    wire = wire_fields(result) or {}
    if isinstance(result, mt.GetPromptResult):
        raw = [m.get("content") for m in wire.get("messages") or ()]
    else:
        raw = list(wire.get("content") or ())
    entries, _ = count_blocks([b for b in raw if isinstance(b, Mapping)])
    for entry in entries:
        if entry["type"] == "resource_link":
            entry["followed"] = None
    return entries


async def structured_check(
    result: mt.CallToolResult,
    output_schema: Mapping[str, Any] | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    tool: str = "",
    left: float | None = None,
) -> dict[str, Any] | None:
    """``structuredContent`` against ``outputSchema``, and whether a TextContent fallback carries it.

    Returns ``None`` when the result has no structured content and the tool declares no schema.
    An ``isError`` result is not checked (``toolError`` true, ``valid`` ``None``): it reports a
    failure, and the report shows the server's error text instead. The schema check runs in a
    worker process killed after ``timeout`` seconds (:func:`~custody_lab.live.schema_check.check_in_worker`):
    a check that was cut has ``valid`` ``None`` and ``stopped`` saying why, naming ``tool``.
    ``left`` (seconds) is what the caller's bound leaves for start-up and check together, when it
    has one: the worker's start-up (an interpreter and ``jsonschema``, slow on a loaded machine)
    may take all of it, the check itself ``timeout``; without ``left`` start-up gets ``timeout``.

    Example:
        >>> r = mt.CallToolResult(content=[mt.TextContent(type="text", text='{"t": 3}')], structured_content={"t": 3})
        >>> schema = {"type": "object", "properties": {"t": {"type": "string"}}}
        >>> c = anyio.run(structured_check, r, schema)
        >>> c["valid"], c["error"], c["textFallback"]
        (False, "3 is not of type 'string' (at t)", True)
    """
    content = result.structured_content
    if content is None and output_schema is None:
        return None
    texts = [b.text for b in result.content if isinstance(b, mt.TextContent)]
    fallback = False
    for text in texts:
        try:
            fallback = fallback or json.loads(text) == content
        except ValueError:
            continue
    check: dict[str, Any] = {
        "present": content is not None,
        "outputSchema": output_schema is not None,
        "dialect": None,
        "valid": None,
        "error": None,
        "stopped": None,
        "textFallback": fallback,
        "toolError": bool(result.is_error),
    }
    if result.is_error:
        # a tool error is not a structured result: the schema binds the results a tool returns
        # (MCP 2025-06-18 and later), and the report shows the error itself, not a schema failure
        return check
    if output_schema is None or content is None:
        if output_schema is not None:
            check["valid"], check["error"] = (
                False,
                "the tool declares an outputSchema but returned no structuredContent",
            )
        return check
    verdict: dict[str, Any] = {"stopped": "the audit's time bound ran out first"}
    with anyio.move_on_after(float("inf") if left is None else left):
        verdict = await check_in_worker(dict(output_schema), content, timeout, start_timeout=left)
    check["dialect"] = verdict.get("dialect")
    if verdict.get("stopped"):
        name = f" of tool {visible(repr(tool))}" if tool else ""
        check["stopped"] = f"outputSchema check{name} stopped: {verdict['stopped']}"
    elif verdict.get("schemaError") is not None:
        check["valid"] = False
        check["error"] = f"the outputSchema is not a valid schema: {_cut(visible(verdict['schemaError']))}"
    elif verdict.get("unresolvable") is not None:
        check["valid"] = False
        check["error"] = (
            f"the outputSchema has a $ref that does not resolve within it (the lab fetches nothing): "
            f"{_cut(visible(verdict['unresolvable']))}"
        )
    else:
        check["valid"] = bool(verdict.get("valid"))
        if not check["valid"]:
            where = "/".join(str(p) for p in verdict.get("path") or ())
            check["error"] = _cut(visible(verdict.get("error"))) + (f" (at {_cut(visible(where))})" if where else "")
    return check


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


Exercise = Callable[[str, str, Callable[[], Awaitable[LiveReceipt]]], Awaitable[LiveReceipt | None]]
PromptExercise = Callable[[str, str, Callable[[], Awaitable[dict[str, Any]]]], Awaitable[dict[str, Any] | None]]


async def audit_template(
    recorder: Recorder, template: Any, given: dict[str, object], server: dict[str, Any], exercise: Exercise
) -> CapabilityAudit:
    """Read one template with a value per variable (the user's, else completion), or say why not."""
    name = template.uri_template
    declared = declared_template_fields(template, server)
    try:
        parsed = parse(name)
    except UriTemplateError as e:
        return CapabilityAudit(
            "template", name, False, f"not read: the lab's RFC 6570 engine refuses it ({e})", None, declared
        )
    values, how = await template_values(recorder.client, name, parsed.variable_names, given, recorder.timeout)
    details: dict[str, Any] = {"templateValues": how}
    if len(values) < len(parsed.variable_names):
        return CapabilityAudit(
            "template",
            name,
            False,
            "not read: no value known (give --template-values NAME=JSON)",
            None,
            declared,
            details,
        )
    try:
        uri = parsed.expand(values)
    except UriTemplateError as e:
        return CapabilityAudit(
            "template", name, False, f"not read: the values do not expand ({e})", None, declared, details
        )
    details["expandedUri"] = uri
    live = await exercise("template", name, partial(recorder.read, uri, case_id=name, cache_mode="bypass"))
    if live is None:
        why = "not exercised: the audit's time bound ran out first"
        return CapabilityAudit("template", name, False, why, None, declared, details, skipped=True)
    details.update(receipt_details(live.receipt))
    if template.mime_type:
        details["listedMime"] = template.mime_type
    rec = live.receipt
    if not rec.get("performed", True) and not rec.get("exchange", {}).get("timedOut"):
        why = f"not read: the gate refused {visible(uri)}; nothing was fetched"
        return CapabilityAudit(
            "template", name, False, why, live.outcome, fields_from_receipt(live, server), details, skipped=True
        )
    why = f"template read as {uri} (" + "; ".join(f"{k}: {v}" for k, v in how.items()) + ")"
    return CapabilityAudit("template", name, True, why, live.outcome, fields_from_receipt(live, server), details)


async def follow_link(
    recorder: Recorder, tool: str, block: dict[str, Any], server: dict[str, Any], exercise: Exercise
) -> CapabilityAudit:
    """A resource_link read as a second, separately recorded read through the same gate."""
    uri = block["uri"]
    live = await exercise("link", uri, partial(recorder.read, uri, case_id=f"{tool} → {uri}", cache_mode="bypass"))
    if live is None:
        why = "not exercised: the audit's time bound ran out first"
        return CapabilityAudit("link", uri, False, why, None, unexercised_fields(server), skipped=True)
    rec = live.receipt
    fields = fields_from_receipt(live, server)
    sent = rec.get("performed", True)
    # resolved: the server answered the read with contents (MCP 2026-07-28, server/tools §Resource
    # Links: a link is "a URI that can be subscribed to or fetched by the client")
    block["followed"] = {
        "accepted": live.accepted,
        "bytes": rec["custody"]["bytes"],
        "digest": rec.get("contentDigest"),
        "resolved": bool(sent) and "error" not in rec,
        "error": None if not sent or "error" not in rec else visible(rec["error"]),
    }
    details = {**receipt_details(rec), "from": tool}
    if not sent:  # the gate refused it: reported, never fetched some other way
        why = f"blocked follow-up of a link from {tool!r}: {visible(rec.get('error', 'refused'))}"
        return CapabilityAudit("link", uri, False, why, live.outcome, fields, details, skipped=True)
    if "error" in rec:
        why = f"follow-up of a link from {tool!r} failed: {visible(rec['error'])}"
    else:
        declared = block.get("declaredSize")
        said = "the link declared no size" if declared is None else f"the link declared {declared} bytes"
        why = f"second read of a link from {tool!r} ({said}; size and digest from this read)"
    return CapabilityAudit("link", uri, True, why, live.outcome, fields, details)


def _as_argument(value: object) -> str:
    """A prompt argument is a string (MCP ``prompts/get``): a JSON string as it is, else its JSON."""
    return value if isinstance(value, str) else canonical_json(value)


async def audit_prompt(
    recorder: Recorder, prompt: Any, given: dict[str, object], server: dict[str, Any], exercise: PromptExercise
) -> CapabilityAudit:
    """Get one prompt once, with a value for each required argument (the user's, else completion).

    An optional argument with no value known is left out; a required one makes the prompt "not
    got: no value known" (nothing is invented). Every block of its messages is receipted like a
    tool result's blocks, embedded resources included.
    """
    name = prompt.name
    arguments = list(prompt.arguments or ())
    names = tuple(a.name for a in arguments)
    ref = mt.PromptReference(type="ref/prompt", name=name)
    values, how = await _values(recorder.client, ref, names, given, recorder.timeout) if names else ({}, {})
    details: dict[str, Any] = {"argumentValues": how}
    missing = [a.name for a in arguments if a.required and a.name not in values]
    if missing:
        why = (
            f"not got: no value known for required argument {', '.join(visible(repr(m)) for m in missing)} "
            "(give --template-values NAME=JSON)"
        )
        return CapabilityAudit("prompt", name, False, why, None, declared_prompt_fields(server), details)
    args = {k: _as_argument(v) for k, v in values.items()}
    rec = await exercise("prompt", name, partial(recorder.get_prompt, name, args))
    if rec is None:
        why = "not exercised: the audit's time bound ran out first"
        return CapabilityAudit("prompt", name, False, why, None, declared_prompt_fields(server), details, skipped=True)
    details.update(prompt_details(rec))
    if "error" in rec:
        why = f"prompts/get answered no prompt: {visible(rec['error'])}"
    else:
        got = "; ".join(f"{k}: {v}" for k, v in how.items())
        why = f"got once with prompts/get ({rec['messages']} message(s){'; ' + got if got else ''})"
    # not routed: a prompt is none of the seed's shapes, so it has no outcome (its why says what happened)
    return CapabilityAudit("prompt", name, True, why, None, fields_from_prompt(rec, server), details)
