"""Receipts of context that flows the other way: an exchange completed in two steps, and a task.

An **input-required exchange** (MCP 2026-07-28, basic/patterns/mrtr) is one request answered
``resultType: "input_required"``, the host's answers, and a retry with a new JSON-RPC id carrying
``inputResponses`` and the ``requestState`` echoed unchanged. Its receipt (``inputRequired``) says:

- what each request asked, as the host showed it (made visible), and what the host sent back, with
  who answered (a person the host named, or nobody: the lab's host never answers for the user);
- what the retry carried: the responses by key, and the ``requestState`` echoed as received
  (opaque: the client MUST NOT inspect or change it);
- that the first result is not cacheable (server/utilities/caching, 2026-07-28: interim
  ``input_required`` results are not cacheable and carry no caching hints), and that the final
  result is not cached either (results of a retry carrying ``inputResponses`` or ``requestState``
  MUST NOT be cached), with the final result's own freshness claim (``ttlMs``, ``cacheScope``).

A **task** (the ``io.modelcontextprotocol/tasks`` extension, SEP-2663) gets a ``task`` block: its id,
every status the client saw while polling, when it was created, when its result was **produced**
(the completed task's ``lastUpdatedAt``) and when the client fetched it. A deferred result's
freshness is the moment it was produced.

The exchange facts ``elicitation`` (the last action the host sent) and ``formAsksSecret`` feed the
rules ``secret-asked-in-form`` and ``consent-not-given`` (:mod:`custody_lab.core.rules`).
"""

from __future__ import annotations

__all__ = [
    "APP_MIME",
    "FINAL_RESULT",
    "FIRST_RESULT",
    "NO_AUTHORITY",
    "input_required_block",
    "asked_block",
    "presentation_block",
    "retry_block",
    "take_flows",
    "task_block",
]

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.text import shorten, visible
from .live_receipts import Facts

#: The MIME type of an MCP Apps page (the ``io.modelcontextprotocol/ui`` extension).
APP_MIME = "text/html;profile=mcp-app"
#: What server-supplied presentation may do (the lab's host policy, after seed 000's presentation boundary).
NO_AUTHORITY = (
    "none: the host renders it (an icon as an image; a ui:// page in a sandboxed frame under its CSP) "
    "and nothing drawn there approves anything"
)

#: Why the first (``input_required``) result is not cacheable (MCP 2026-07-28).
FIRST_RESULT = (
    "interim input_required results are not cacheable and carry no caching hints "
    "(MCP 2026-07-28, server/utilities/caching)"
)
#: Why the final result of a retry is not cached (MCP 2026-07-28).
FINAL_RESULT = (
    "a result produced by a retry carrying inputResponses or requestState MUST NOT be cached "
    "(MCP 2026-07-28, server/utilities/caching)"
)


def input_required_block(entries: Sequence[Mapping[str, Any]], final: Mapping[str, Any] | None) -> dict[str, Any]:
    """The receipt's ``inputRequired`` block from the host's log of one exchange's requests.

    Args:
        entries: the :class:`~custody_lab.live.elicitation.ElicitationDesk` log entries of the exchange.
        final: the final result's freshness claim (``ttlMs``, ``cacheScope``), or ``None`` (no result).

    Example:
        >>> entry = {"key": "confirm_delete", "shown": {"mode": "form", "message": "Delete note 7?"},
        ...     "secret": None, "sent": {"action": "decline"}, "answeredBy": None, "why": "nobody answered"}
        >>> block = input_required_block([entry], {"ttlMs": None, "cacheScope": None})
        >>> block["retryCarried"]["inputResponses"], block["firstResult"]["cacheable"]
        ({'confirm_delete': {'action': 'decline'}}, False)
    """
    people = [dict(e["answeredBy"]) for e in entries if e.get("answeredBy")]
    return {
        "requests": [
            {
                "key": e.get("key"),
                "server": e.get("server"),
                "shown": e["shown"],
                "secret": e.get("secret"),
                "why": e["why"],
            }
            for e in entries
        ],
        "retryCarried": {
            "inputResponses": {str(e.get("key")): e["sent"] for e in entries},
            "requestState": "echoed exactly as received (opaque to the client: MCP 2026-07-28)",
        },
        "answeredBy": people[-1] if people else None,
        "firstResult": {"resultType": "input_required", "cacheable": False, "why": FIRST_RESULT},
        "finalResult": {"cached": False, "why": FINAL_RESULT, **(dict(final) if final else {})},
    }


def task_block(entry: Mapping[str, Any], fetched_at: str) -> dict[str, Any]:
    """The receipt's ``task`` block from the :class:`~custody_lab.live.lab_tasks.TaskPoller` log entry.

    Example:
        >>> entry = {"created": {"taskId": "task-1", "createdAt": "T0"}, "polls": ["working", "completed"],
        ...     "final": {"status": "completed", "lastUpdatedAt": "T1"}}
        >>> b = task_block(entry, "T2")
        >>> b["producedAt"], b["fetchedAt"], b["freshnessFrom"]
        ('T1', 'T2', 'producedAt')
    """
    final = entry.get("final") or {}
    created = entry.get("created") or {}
    done = final.get("status") == "completed"
    return {
        "extension": "io.modelcontextprotocol/tasks",
        "taskId": created.get("taskId"),
        "createdAt": created.get("createdAt"),
        "polls": list(entry.get("polls") or ()),
        "status": final.get("status"),
        "producedAt": final.get("lastUpdatedAt") if done else None,
        "fetchedAt": fetched_at,
        "freshnessFrom": "producedAt",
    }


def presentation_block(described: Mapping[str, Any] | None, mime: str | None) -> dict[str, Any] | None:
    """What the server supplied for the host to render (icons, an MCP Apps page), or ``None``.

    Icons exist since MCP 2025-11-25 (``icons`` on tools, resources, prompts and the server); a
    ``ui://`` page served as ``text/html;profile=mcp-app`` is the MCP Apps extension's.

    Example:
        >>> presentation_block({"_meta": {"ui": {"resourceUri": "ui://notes/panel.html"}}}, None)["ui"]
        'ui://notes/panel.html'
        >>> presentation_block({"name": "x"}, "text/plain") is None
        True
    """
    described = described or {}
    given = [i for i in described.get("icons") or () if isinstance(i, Mapping)]
    icons = [visible(str(shorten(str(i.get("src", "")), 80))) for i in given]
    ui = ((described.get("_meta") or {}).get("ui") or {}).get("resourceUri")
    if not icons and ui is None and mime != APP_MIME:
        return None
    block: dict[str, Any] = {"icons": icons, "ui": visible(str(ui)) if ui else None, "authority": NO_AUTHORITY}
    if mime == APP_MIME:
        block["page"] = "an MCP Apps page: rendered in a sandboxed frame, never as the host's own markup"
    return block


def asked_block(result: Mapping[str, Any]) -> dict[str, Any]:
    """What an ``input_required`` result asked, as a log line says it (``serve``: the server's end).

    Example:
        >>> ask = {"method": "elicitation/create", "params": {"mode": "form", "message": "Key?",
        ...     "requestedSchema": {"type": "object", "properties": {"api_key": {"type": "string"}}}}}
        >>> b = asked_block({"resultType": "input_required", "inputRequests": {"k": ask}, "requestState": "s"})
        >>> b["requests"][0]["secret"], b["cacheable"]
        ("the field 'api_key' names an api key", False)
    """
    from .elicitation import asks_for_secret, shown_request

    requests = []
    for key, request in (result.get("inputRequests") or {}).items():
        params = request.get("params") if isinstance(request, Mapping) else None
        params = params if isinstance(params, Mapping) else {}
        method = request.get("method") if isinstance(request, Mapping) else None
        entry: dict[str, Any] = {"key": visible(str(key)), "method": visible(str(method))}
        if method == "elicitation/create":
            entry |= {"shown": shown_request(params), "secret": asks_for_secret(params)}
        requests.append(entry)
    return {"requests": requests, "requestState": "requestState" in result, "cacheable": False, "why": FIRST_RESULT}


def retry_block(params: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a retry carried, as the server received it: the action of each response and the field
    names it filled (never their values: a form's answers are the person's data), or ``None``.

    Example:
        >>> retry_block({"inputResponses": {"k": {"action": "accept", "content": {"confirm": True}}},
        ...     "requestState": "v1.x"})
        {'inputResponses': {'k': {'action': 'accept', 'fields': ['confirm']}}, 'requestState': True}
    """
    responses = params.get("inputResponses")
    if not isinstance(responses, Mapping) and "requestState" not in params:
        return None
    carried: dict[str, Any] = {}
    for key, answer in (responses or {}).items():
        answer = answer if isinstance(answer, Mapping) else {}
        content = answer.get("content")
        fields = [visible(str(k)) for k in content] if isinstance(content, Mapping) else []
        carried[visible(str(key))] = {"action": visible(str(answer.get("action"))), "fields": fields}
    return {"inputResponses": carried, "requestState": params.get("requestState") is not None}


def take_flows(f: Facts, entries: Sequence[Mapping[str, Any]], tasks: Sequence[Mapping[str, Any]], now: str) -> None:
    """Put the input-required and task facts of one exchange into ``f`` (nothing when there were none)."""
    if entries:
        final = None
        if f.hints is not None:
            result = f.hints.get("result") or {}
            final = {"ttlMs": result.get("ttlMs"), "cacheScope": result.get("cacheScope")}
        f.extra["inputRequired"] = input_required_block(entries, final)
        f.exchange["elicitation"] = entries[-1]["sent"]["action"]
        f.exchange["formAsksSecret"] = any(e.get("secret") for e in entries)
    if tasks:
        f.extra["task"] = task_block(tasks[-1], now)
    shown = presentation_block(f.described, f.mime)
    if shown is not None:
        f.extra["serverPresentation"] = shown
