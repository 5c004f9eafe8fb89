"""What ``custody-lab audit`` says about context that flowed the other way (MCP 2026-07-28).

A server may answer a read, a call or a prompt with an input-required result and ask the user (an
elicitation), answer a call with a task (the ``io.modelcontextprotocol/tasks`` extension), and
declare extensions such as MCP Apps (``io.modelcontextprotocol/ui``). The audit's client declares
the elicitation capability and the tasks extension so that a server *can* do these, and then:

- shows every request made visible (the mode, the message, the fields or the full URL);
- **never answers on the user's behalf**: it declines, unless a consent given on the command line
  names that request (``--answer TARGET=JSON``: the tool or URI, the arguments it was called with,
  the action and who answered); a form-mode request for a secret is declined unshown whatever the
  consents say (the lab's host policy after MCP 2026-07-28, client/elicitation);
- follows a task to its end and says when its result was produced;
- names the extensions the server declares (what they add is reported, never trusted).

The receipts carry the same blocks as the lab's own client (:mod:`~custody_lab.live.flow_receipts`)
and are decided by the same rules (``secret-asked-in-form``, ``consent-not-given``).
"""

from __future__ import annotations

__all__ = ["AnswerError", "flow_lines", "parse_answers"]

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.text import visible
from .approvers import ApproverError
from .elicitation import Answer


class AnswerError(ValueError):
    """An ``--answer`` item that is not ``TARGET=JSON`` with an action and who answered."""


def parse_answers(items: Sequence[str]) -> tuple[Answer, ...]:
    """``--answer`` items as the people's answers the audit may send.

    Each item is ``TARGET=JSON``: the tool name or resource URI, then a JSON object with
    ``action`` (``accept``, ``decline`` or ``cancel``), ``by`` (the person who answered: a name, or
    ``{"person": NAME}``), and optionally ``content`` (the form's values, for ``accept``) and
    ``arguments`` (the call's arguments the answer is for; none by default).

    Example:
        >>> [a] = parse_answers(['delete_note={"action": "accept", "by": "Dana Ruiz", '
        ...     '"content": {"confirm": true}, "arguments": {"note_id": "7"}}'])
        >>> a.target, a.action, a.by, dict(a.arguments)
        ('delete_note', 'accept', {'person': 'Dana Ruiz'}, {'note_id': '7'})

    Raises:
        AnswerError: an item is malformed; the message names ``--answer``, its position and why.
    """
    out: list[Answer] = []
    for n, item in enumerate(items, 1):
        where = f"--answer #{n} ({visible(repr(item))})"
        target, sep, raw = item.partition("=")
        if not sep or not target.strip():
            raise AnswerError(f"{where}: give TARGET=JSON (a tool name or resource URI, then a JSON object)")
        try:
            spec = json.loads(raw)
        except json.JSONDecodeError as e:
            raise AnswerError(f"{where}: the part after '=' is not JSON ({e.msg})") from e
        if not isinstance(spec, dict):
            raise AnswerError(f"{where}: the JSON must be an object with 'action' and 'by'")
        by: Any = spec.get("by")
        by = {"person": by} if isinstance(by, str) else by
        action: Any = spec.get("action")
        content, arguments = spec.get("content"), spec.get("arguments")
        if not all(x is None or isinstance(x, dict) for x in (content, arguments)):
            raise AnswerError(f"{where}: 'content' and 'arguments' must be JSON objects")
        try:
            out.append(Answer(target.strip(), action, by, content, arguments))
        except (ApproverError, ValueError) as e:
            raise AnswerError(f"{where}: {e}") from e
    return tuple(out)


def _asked(entry: Mapping[str, Any]) -> str:
    shown = entry.get("shown") or {}
    what = f"{visible(shown.get('mode'))} {visible(repr(shown.get('message', '')))}"
    if shown.get("mode") == "url":
        what += f" url {visible(shown.get('url'))}"
    else:
        what += f" fields {', '.join(map(visible, shown.get('fields') or ())) or 'none'}"
    arguments = entry.get("arguments")
    called = f" {visible(json.dumps(arguments, sort_keys=True))}" if arguments else ""
    return (
        f"ASKED: {visible(repr(entry.get('target')))}{called} asked the user ({what}) → sent "
        f"{visible(entry['sent']['action'])}: {visible(entry.get('why'))}"
    )


def flow_lines(
    asked: Sequence[Mapping[str, Any]], tasks: Sequence[Mapping[str, Any]], extensions: Mapping[str, Any] | None
) -> tuple[str, ...]:
    """The report's lines about context that flowed back: extensions, each request, each task.

    Example:
        >>> entry = {"target": "link_calendar", "shown": {"mode": "form", "message": "Key?", "fields": ["api_key"]},
        ...     "sent": {"action": "decline"}, "why": "refused"}
        >>> flow_lines([entry], [], {"io.modelcontextprotocol/tasks": {}})[1]
        "ASKED: 'link_calendar' asked the user (form 'Key?' fields api_key) → sent decline: refused"
    """
    lines = []
    if extensions:
        names = ", ".join(visible(str(k)) for k in extensions)
        lines.append(f"DECLARES: extensions {names} (what they add is reported here, never trusted)")
    lines += [_asked(e) for e in asked]
    for t in tasks:
        final = t.get("final") or {}
        lines.append(
            f"TASK: {visible(repr(t.get('tool')))} → task {visible((t.get('created') or {}).get('taskId'))}: "
            f"{', '.join(map(visible, t.get('polls') or ()))}; result produced at "
            f"{visible(final.get('lastUpdatedAt') if final.get('status') == 'completed' else None)}"
        )
    return tuple(lines)
