"""The host's side of elicitation (MCP 2026-07-28): show the request, let a person answer, record it.

Under MCP 2026-07-28 a server that needs the user answers ``tools/call``, ``resources/read`` or
``prompts/get`` with an **input-required result** (``resultType: "input_required"``, an
``inputRequests`` map and an opaque ``requestState``); the client answers each request and retries
with ``inputResponses`` and the same ``requestState`` (basic/patterns/mrtr). An elicitation inside
it is **form mode** (the data passes through the client: a schema of flat fields) or **URL mode**
(the user goes to a URL; the data never passes through the client). The person's answer is
``accept`` (with content, in form mode), ``decline`` or ``cancel`` (client/elicitation).

:class:`ElicitationDesk` is the lab's host at that moment (the SDK ``Client``'s elicitation
callback). Its rules are the lab's host policy, after the specification:

- it **never answers on the user's behalf**: a request is answered only by an :class:`Answer` a
  person gave for that tool or URI (the host's record, with an approver from
  :mod:`~custody_lab.live.approvers`); anything else is declined, and the log says nobody answered;
- a **form-mode request for a secret** (a password, an API key, a token, payment credentials:
  :func:`asks_for_secret`) is declined without being shown, because MCP 2026-07-28 says servers
  MUST NOT ask for these in form mode and MUST use URL mode;
- every request is logged with its text made visible (:func:`~custody_lab.core.text.visible`),
  which is what the host must show before anything is sent: the server that asks, the message, the
  fields (or the full URL in URL mode).

An ``accept`` approves that one interaction, with the content sent: not the tool, not other
arguments, not a later call. The recorder turns the log into the receipt's ``inputRequired`` block
and the exchange facts ``elicitation`` and ``formAsksSecret`` (the rules in
:mod:`custody_lab.core.rules` decide on them).
"""

from __future__ import annotations

__all__ = ["SECRET_WORDS", "Action", "Answer", "ElicitationDesk", "asks_for_secret", "shown_request"]

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp.types as mt

from ..core.text import visible
from .approvers import check_approver

#: Words that name a secret a form must not ask for (MCP 2026-07-28, client/elicitation: "passwords,
#: API keys, access tokens, or payment credentials"); compared case-folded, word by word (any run of
#: punctuation or ``_`` separates words).
SECRET_WORDS: tuple[str, ...] = (
    "password",
    "passphrase",
    "api key",
    "apikey",
    "access token",
    "token",
    "secret",
    "private key",
    "credential",
    "credentials",
    "card number",
    "credit card",
    "cvv",
    "cvc",
    "pin",
)

#: What a person may answer to an elicitation (MCP 2025-06-18 and later).
Action = Literal["accept", "decline", "cancel"]


def _words(text: object) -> str:
    return " " + re.sub(r"[\W_]+", " ", str(text).casefold()) + " "


def asks_for_secret(params: Mapping[str, Any]) -> str | None:
    """Which secret a **form-mode** elicitation asks for (the lab's host policy), or ``None``.

    Reads the field names, titles and descriptions of ``requestedSchema`` and the message: a form
    whose message merely mentions a password but asks for nothing of the kind still asks for one.
    A URL-mode request is never a form asking for a secret (the secret goes to the URL).

    Example:
        >>> asks_for_secret({"mode": "form", "message": "Link it", "requestedSchema":
        ...     {"type": "object", "properties": {"api_key": {"type": "string"}}}})
        "the field 'api_key' names an api key"
        >>> asks_for_secret({"mode": "form", "message": "Delete note 7?", "requestedSchema":
        ...     {"type": "object", "properties": {"confirm": {"type": "boolean"}}}}) is None
        True
        >>> asks_for_secret({"mode": "url", "message": "Sign in", "url": "https://x.example/key"}) is None
        True
    """
    if params.get("mode", "form") != "form":
        return None
    schema = params.get("requestedSchema") or {}
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    places: list[tuple[str, object]] = []
    for name, spec in (properties or {}).items() if isinstance(properties, Mapping) else ():
        places.append((f"the field {visible(repr(str(name)))}", name))
        if isinstance(spec, Mapping):
            places += [(f"the field {visible(repr(str(name)))}", spec.get(k, "")) for k in ("title", "description")]
    places.append(("the message", params.get("message", "")))
    for where, text in places:
        found = next((w for w in SECRET_WORDS if f" {w} " in _words(text)), None)
        if found is not None:
            return f"{where} names a{'n' if found[0] in 'aeiou' else ''} {found}"
    return None


def shown_request(params: Mapping[str, Any]) -> dict[str, Any]:
    """What the host shows before anything is sent: mode, message, fields or URL, made visible.

    Example:
        >>> shown_request({"mode": "url", "message": "Sign in\\x1b[2J", "url": "https://x.example/a"})
        {'mode': 'url', 'message': 'Sign in\\\\x1b[2J', 'url': 'https://x.example/a'}
    """
    mode = str(params.get("mode", "form"))
    shown: dict[str, Any] = {"mode": visible(mode), "message": visible(str(params.get("message", "")))}
    if mode == "url":
        shown["url"] = visible(str(params.get("url", "")))
        return shown
    schema = params.get("requestedSchema") or {}
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    shown["fields"] = [visible(str(k)) for k in properties] if isinstance(properties, Mapping) else []
    return shown


@dataclass(frozen=True)
class Answer:
    """A person's answer to the elicitation of one tool call or read (the host's record).

    Attributes:
        target: the tool name or resource URI whose request this answers.
        action: ``"accept"``, ``"decline"`` or ``"cancel"``.
        by: who answered: a named person (``{"person": "Dana Ruiz"}``); checked like every approver.
        content: the form's values sent with ``accept`` (form mode only).
        arguments: for a tool call, the arguments the person saw (a call with other arguments is
            another request: this answer does not answer it); ``None`` for a read.

    Raises:
        ApproverError: ``by`` is not an approver (a model, an agent, free text).
    """

    target: str
    action: Action
    by: Mapping[str, str]
    content: Mapping[str, Any] | None = None
    arguments: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.action not in ("accept", "decline", "cancel"):
            raise ValueError(f"action must be accept, decline or cancel; got {visible(repr(self.action))}")
        object.__setattr__(self, "by", check_approver(self.by))


@dataclass
class ElicitationDesk:
    """The host's elicitation callback: answers only with a person's :class:`Answer` for that target.

    Attributes:
        answers: the answers people gave, by target (the latest for a target wins).
        target: the tool or URI of the exchange under way (the recorder sets it).
        arguments: the arguments of that tool call (``None`` for a read).
        server: the name of the server asking, as the connection reported it (the host shows it).
        log: one entry per request seen: what was shown, the answer sent, who answered.
    """

    answers: Sequence[Answer] = ()
    target: str | None = None
    arguments: Mapping[str, Any] | None = None
    server: str | None = None
    log: list[dict[str, Any]] = field(default_factory=list)

    def answer_for(self, target: str | None, arguments: Mapping[str, Any] | None = None) -> Answer | None:
        """The latest answer a person gave for ``target`` called with exactly ``arguments``."""
        wanted = dict(arguments or {})
        return next(
            (a for a in reversed(self.answers) if a.target == target and dict(a.arguments or {}) == wanted), None
        )

    def decide(self, params: Mapping[str, Any], key: str | None = None) -> dict[str, Any]:
        """The host's answer to one elicitation request and its log entry (no I/O).

        Example:
            >>> yes = Answer("delete_note", "accept", {"person": "Dana Ruiz"}, {"confirm": True}, {"note_id": "7"})
            >>> desk = ElicitationDesk([yes])
            >>> desk.target, desk.arguments = "delete_note", {"note_id": "7"}
            >>> form = {"mode": "form", "message": "Delete note 7?", "requestedSchema": {"type": "object",
            ...     "properties": {"confirm": {"type": "boolean"}}}}
            >>> entry = desk.decide(form)
            >>> entry["sent"], entry["answeredBy"]
            ({'action': 'accept', 'content': {'confirm': True}}, {'person': 'Dana Ruiz'})
            >>> desk.arguments = {"note_id": "8"}
            >>> desk.decide(form)["sent"], desk.decide(form)["answeredBy"]
            ({'action': 'decline'}, None)
        """
        secret = asks_for_secret(params)
        answer = None if secret else self.answer_for(self.target, self.arguments)
        sent: dict[str, Any] = {"action": answer.action if answer else "decline"}
        if answer is not None and answer.action == "accept" and answer.content is not None:
            sent["content"] = dict(answer.content)
        if secret:
            why = f"refused by the lab's host policy: a form asks for a secret ({secret}); not shown, declined"
        elif answer is None:
            why = "no person answered this request: the host declines rather than answer for them"
        else:
            why = f"answered by a person ({visible(str(answer.by.get('person', answer.by)))})"
        entry = {
            "server": None if self.server is None else visible(self.server),
            "key": key,
            "target": self.target,
            "arguments": None if self.arguments is None else dict(self.arguments),
            "shown": shown_request(params),
            "secret": secret,
            "sent": sent,
            "answeredBy": dict(answer.by) if answer else None,
            "why": why,
        }
        self.log.append(entry)
        return entry

    async def __call__(self, context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        """The SDK ``Client``'s elicitation callback."""
        wire = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        sent = self.decide(wire, str(getattr(context, "request_id", "")) or None)["sent"]
        return mt.ElicitResult(action=sent["action"], content=sent.get("content"))
