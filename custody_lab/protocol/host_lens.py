"""The host lens: one result, read by each host profile — the exact text that reaches the model,
the log the host writes, the budgets it charges, and the custody rules it keeps or breaks.

A server cannot know which form of its result a host puts into the model's context. The lens takes
one result (a ``tools/call`` result: ``content`` and perhaps ``structuredContent``; or a
``resources/read`` result: ``contents``) and reads it the way each profile of
:mod:`custody_lab.protocol.host_profiles` would. Everything it decides goes through the one rule
table: a case's own verdict comes from :func:`custody_lab.core.router.route`, an embed is authorised
by :func:`custody_lab.protocol.budgets.authorise_embed`, a link's follow-up read is routed as a case,
the budgets are a :class:`~custody_lab.protocol.budgets.Ledger`, and what the host did is checked
by :data:`custody_lab.core.rules.HOST_RULES`.

Choices the lens makes (the lab's host policy, the same for every profile):

- The model is assumed to ask for every link a profile offers ``on-request``, so its follow-up read
  shows; a profile that reads links ``never`` only shows the link.
- A block whose ``audience`` lists ``"user"`` and not ``"assistant"`` is a user-only block.
- What enters the model's context is written one part per line: a text block's text; the
  ``structuredContent`` as compact JSON; a link or a withheld embed as ``resource_link`` or
  ``resource`` and a compact JSON line with its URI (and ``notRead`` saying why its contents are not
  there); placed contents as their text (binary contents as one bracketed line naming the size).
- Only resource contents (embeds, links read, resource reads) are cut or refused for room; text
  blocks, ``structuredContent`` and the lines naming a resource are charged to the content budget
  whole (the line breaks between parts are not charged).

Token counts are :func:`~custody_lab.protocol.budgets.approx_tokens` (bytes / 4, rounded up): no
model's tokenizer. The module is pure (standard library only).
"""

from __future__ import annotations

__all__ = [
    "SHAPES",
    "HostReading",
    "LensInput",
    "differences",
    "lens",
    "read_result",
    "sample_result",
]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.model import Case, Decision, Policy
from ..core.receipts import canonical_json
from ..core.router import route
from ..core.rules import CHECKED_BEFORE_THE_EXCHANGE, HOST_FACTS, HOST_RULES, ScalarOps
from .budgets import BUDGETS, BudgetLimits, Ledger, approx_tokens, authorise_embed, contents_bytes
from .host_profiles import HostProfile, load_host_profiles

_FILLER = "Quarterly figures for the support desk: tickets opened, closed, reopened, and waiting. "


def _filler(n: int, head: str = "") -> str:
    """Exactly ``n`` bytes of ASCII text beginning with ``head`` (a deterministic stand-in body)."""
    text = head + _FILLER * (n // len(_FILLER) + 2)
    return text.encode("ascii", errors="replace")[:n].decode("ascii")


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _cut(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


@dataclass(frozen=True)
class LensInput:
    """One result and what the host knows around it.

    Attributes:
        tool: the tool that returned the result (or the read's name for a ``resources/read``).
        result: the result's JSON: ``content`` (+ ``structuredContent``), or ``contents``.
        linked: what a follow-up read of each link's URI returns (a contents item by URI).
        denied: the URIs the caller may not read (the host's permission gate says no).
        provenance: who vouches for the result (the lab's receipt field; MCP has none).
        operation, side_effects: what the call was, for the embed's and the link's cases.
        limits: the three budgets (the content limit is also the embed limit).
        tools: tool definitions charged to ``tool-definitions`` (as ``tools/list`` returns them).
        listing: a ``resources/list`` result charged to ``resource-catalog``.
        decision: the case's verdict from the rule table, when the result stands for a case.
    """

    tool: str
    result: Mapping[str, Any]
    linked: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    denied: frozenset[str] = frozenset()
    provenance: str = "unknown"
    operation: str = "calculate"
    side_effects: bool = False
    limits: BudgetLimits = BudgetLimits()
    tools: tuple[Mapping[str, Any], ...] = ()
    listing: Mapping[str, Any] | None = None
    decision: Decision | None = None

    @classmethod
    def from_case(cls, case: Case | Mapping[str, Any], policy: Policy | None = None) -> LensInput:
        """The result a case stands for, with a stand-in body of exactly ``bytes`` bytes.

        ``listed-resource`` and ``templated-resource`` become a ``resources/read`` result (the
        application reads it); ``resource-link`` a link block, with the linked contents ready for a
        follow-up; ``embedded-resource`` an embed; ``structured-tool-result`` a ``structuredContent``
        object of exactly ``bytes`` bytes as compact JSON with its serialization in a text block.

        Example:
            >>> inp = LensInput.from_case({"id": "r", "initiator": "model", "operation": "calculate",
            ...     "shape": "structured-tool-result", "uri": "urn:r", "mime": "application/json",
            ...     "bytes": 40, "current": True, "allowed": True, "sideEffects": False, "provenance": "p@1"})
            >>> len(canonical_json(inp.result["structuredContent"]))
            40
        """
        c = case if isinstance(case, Case) else Case.from_dict(case)
        policy = policy or Policy()
        decision = route(c, policy)
        uri, mime = c.uri or "", c.mime or "text/plain"
        body = _filler(c.bytes, f"{c.id}: ")
        linked: dict[str, Mapping[str, Any]] = {}
        result: dict[str, Any]
        if c.shape in ("listed-resource", "templated-resource"):
            result = {"contents": [{"uri": uri, "mimeType": mime, "text": body}]}
        elif c.shape == "resource-link":
            result = {"content": [{"type": "resource_link", "uri": uri, "name": c.id, "mimeType": mime}]}
            linked = {uri: {"uri": uri, "mimeType": mime, "text": body}}
        elif c.shape == "embedded-resource":
            result = {"content": [{"type": "resource", "resource": {"uri": uri, "mimeType": mime, "text": body}}]}
        else:
            doc = {"value": _filler(max(0, c.bytes - len('{"value":""}')), f"{c.id}: ")}
            result = {"content": [{"type": "text", "text": canonical_json(doc)}], "structuredContent": doc}
        return cls(
            tool=c.id,
            result=result,
            linked=linked,
            provenance=c.provenance or "unknown",
            operation=c.operation,
            side_effects=bool(c.side_effects),
            limits=BudgetLimits(content=policy.embed_limit_bytes),
            decision=decision,
        )


@dataclass(frozen=True)
class HostReading:
    """What one profile did with one result.

    Attributes:
        profile: the host profile.
        model_text: the exact text that reaches the model (UTF-8).
        log: the receipt the host writes (its shape depends on the profile's ``logs``).
        ledger: the budgets charged (tool definitions, resource catalog, content).
        facts: the :data:`~custody_lab.core.rules.HOST_FACTS` observed.
        broken: the codes of the host rules that fired, in the table's order.
    """

    profile: HostProfile
    model_text: str
    log: dict[str, Any]
    ledger: Ledger
    facts: dict[str, bool]
    broken: tuple[str, ...]

    @property
    def model_bytes(self) -> int:
        """Bytes of ``model_text`` as UTF-8."""
        return _size(self.model_text)

    @property
    def tokens(self) -> int:
        """≈ tokens of ``model_text`` (bytes / 4, rounded up)."""
        return approx_tokens(self.model_bytes)

    @property
    def kept(self) -> tuple[str, ...]:
        """The codes of the host rules that did not fire."""
        return tuple(r.code for r in HOST_RULES if r.code not in self.broken)

    def to_dict(self) -> dict[str, Any]:
        """The reading as JSON-ready data (the model's text, its size, the log, the budgets, the rules)."""
        return {
            "profile": self.profile.id,
            "modelText": self.model_text,
            "bytes": self.model_bytes,
            "tokens": self.tokens,
            "log": self.log,
            "budgets": {b: self.ledger.used(b) for b in BUDGETS},
            "broken": list(self.broken),
        }


def _is_user_only(block: Mapping[str, Any]) -> bool:
    annotations = block.get("annotations")
    audience = annotations.get("audience") if isinstance(annotations, Mapping) else None
    return isinstance(audience, list) and "user" in audience and "assistant" not in audience


def _ref(kind: str, uri: object, **more: object) -> str:
    """One line naming a link or a withheld resource (its fields as compact JSON, quoted data)."""
    return f"{kind} " + canonical_json({"uri": uri, **{k: v for k, v in more.items() if v is not None}})


class _Reader:
    """Reads one result under one profile, building the model's text, the log entries and facts."""

    def __init__(self, inp: LensInput, profile: HostProfile) -> None:
        self.inp, self.p = inp, profile
        self.parts: list[str] = []
        self.entries: list[dict[str, Any]] = []
        self.facts = dict.fromkeys(HOST_FACTS, False)
        ledger = Ledger(inp.limits)
        for tool in inp.tools:
            ledger = ledger.log_tool(tool)
        if inp.listing is not None:
            ledger = ledger.log_listing(inp.listing)
        self.ledger = ledger

    def room(self) -> int:
        return max(0, self.inp.limits.content - self.ledger.used("content"))

    def enter(self, text: str, item: str) -> int:
        self.parts.append(text)
        self.ledger = self.ledger.log("content", item, _size(text))
        return _size(text)

    def note(self, part: str, kind: str, **entry: Any) -> None:
        self.entries.append({"part": part, "type": kind, **{k: v for k, v in entry.items() if v is not None}})

    # -- contents, with the profile's over-budget handling --------------------------------------

    def contents(self, part: str, kind: str, item: Mapping[str, Any], *, actor: str, checked: bool) -> None:
        uri = item.get("uri")
        size = contents_bytes(item) if ("text" in item or "blob" in item) else 0
        text = item.get("text")
        if not isinstance(text, str):
            line = f"[binary contents: {size} bytes of {item.get('mimeType')}, not placed as text]"
            reached = self.enter(line, str(uri))
            self.note(part, kind, uri=uri, actor=actor, permissionChecked=checked, bytes=size, reached=reached)
            return
        room = self.room()
        if size <= room:
            reached = self.enter(text, str(uri))
            self.note(part, kind, uri=uri, actor=actor, permissionChecked=checked, bytes=size, reached=reached)
        elif self.p.over_budget == "refused":
            self.enter(_ref(kind, uri, bytes=size, notRead="over the content budget"), str(uri))
            self.note(part, kind, uri=uri, actor=actor, permissionChecked=checked, bytes=size, reached=0,
                      withheld="embed-over-budget" if kind == "resource" else "over the content budget")  # fmt: skip
        else:
            shown = _cut(text, room)
            n = _size(shown)
            if self.p.over_budget == "truncated-recorded":
                marker = f"\n[cut: {n} of {size} bytes shown; the rest stays at {canonical_json(uri)}]"
                self.enter(shown + marker, str(uri))
                cut = {"originalBytes": size, "shownBytes": n, "remainsAt": uri}
                self.note(part, kind, uri=uri, actor=actor, permissionChecked=checked, bytes=size, reached=n, cut=cut)
            else:
                self.enter(shown, str(uri))
                self.facts["cutUnrecorded"] = True
                self.note(part, kind, uri=uri, actor=actor, permissionChecked=checked, bytes=n, reached=n)

    # -- each kind of block ----------------------------------------------------------------------

    def link(self, part: str, block: Mapping[str, Any]) -> None:
        uri = block.get("uri")
        name, mime = block.get("name"), block.get("mimeType")
        target = self.inp.linked.get(uri) if isinstance(uri, str) else None
        if self.p.links == "never" or target is None:
            why = "this host does not read links" if self.p.links == "never" else "its contents are not recorded"
            self.enter(_ref("resource_link", uri, name=name, mimeType=mime, notRead=why), str(uri))
            self.note(part, "resource_link", uri=uri, reached=0, note=why)
            return
        may_read = uri not in self.inp.denied
        if self.p.links == "silently":
            self.facts["linkReadUnchecked"] = True
            self.facts["linkLaundered"] = self.facts["linkLaundered"] or not may_read
            self.facts["linkUriUnlogged"] = self.p.logs == "tool-name-only"
            self.contents(part, "resource_link", target, actor="host", checked=False)
            return
        decision = route(
            {
                "id": f"{self.inp.tool}:link",
                "initiator": "application",
                "operation": "read",
                "shape": "listed-resource",
                "uri": uri,
                "mime": target.get("mimeType", mime),
                "bytes": contents_bytes(target),
                "current": True,
                "allowed": may_read,
                "sideEffects": False,
                "provenance": self.inp.provenance,
            }
        )
        if not decision.accepted:
            self.enter(_ref("resource_link", uri, name=name, mimeType=mime, notRead=decision.rejection), str(uri))
            self.note(part, "resource_link", uri=uri, actor="model proposed, host executed", permissionChecked=True,
                      reached=0, withheld=decision.rejection)  # fmt: skip
            return
        self.facts["linkUriUnlogged"] = self.p.logs == "tool-name-only"
        self.contents(part, "resource_link", target, actor="model proposed, host executed", checked=True)

    def embed(self, part: str, block: Mapping[str, Any]) -> None:
        item = block.get("resource")
        item = item if isinstance(item, Mapping) else {}
        if self.p.embeds == "trusted":
            self.facts["embedUnauthorised"] = True
            self.contents(part, "resource", item, actor="server", checked=False)
            return
        verdict = authorise_embed(
            block,
            tool=self.inp.tool,
            may_read=lambda u: u not in self.inp.denied,
            provenance=self.inp.provenance,
            operation=self.inp.operation,
            side_effects=self.inp.side_effects,
            policy=Policy(embed_limit_bytes=self.room()),
        )
        rejection = verdict.decision.rejection
        if verdict.revealed or rejection == "embed-over-budget":
            self.contents(part, "resource", item, actor="server", checked=True)
            return
        self.enter(_ref("resource", verdict.uri, notRead=rejection), verdict.uri)
        self.note(part, "resource", uri=verdict.uri, actor="server", permissionChecked=True, bytes=verdict.bytes,
                  reached=0, withheld=rejection)  # fmt: skip

    def block(self, i: int, block: Mapping[str, Any]) -> None:
        part, kind = f"content[{i}]", str(block.get("type"))
        if _is_user_only(block):
            if self.p.user_blocks == "kept-from-model":
                self.note(part, kind, reached=0, note="audience user: shown to the person only")
                return
            self.facts["userBlockToModel"] = True
        if kind == "text":
            text = str(block.get("text", ""))
            self.note(part, kind, bytes=_size(text), reached=self.enter(text, part))
        elif kind == "resource_link":
            self.link(part, block)
        elif kind == "resource":
            self.embed(part, block)
        else:
            data = block.get("data")
            size = len(data) if isinstance(data, str) else 0
            line = f"[{kind}: {size} base64 characters of {block.get('mimeType')}, not placed as text]"
            self.note(part, kind, bytes=size, reached=self.enter(line, part))

    # -- the whole result ------------------------------------------------------------------------

    def read(self) -> HostReading:
        inp, result = self.inp, self.inp.result
        decision = inp.decision
        gated = decision is not None and not decision.accepted
        if "contents" in result:
            if gated and decision is not None:
                self.note("contents", "contents", reached=0, withheld=decision.rejection)
            else:
                for i, item in enumerate(result.get("contents") or ()):
                    if isinstance(item, Mapping):
                        self.contents(f"contents[{i}]", "contents", item, actor="application", checked=True)
        elif gated and decision is not None and decision.rejection in CHECKED_BEFORE_THE_EXCHANGE:
            self.note("call", "tools/call", reached=0, withheld=decision.rejection)
        else:
            structured = result.get("structuredContent")
            use_structured = structured is not None and self.p.content in ("structured-when-present", "both")
            use_blocks = self.p.content in ("blocks", "both") or structured is None
            if use_blocks:
                for i, block in enumerate(result.get("content") or ()):
                    if isinstance(block, Mapping):
                        self.block(i, block)
            elif result.get("content"):
                self.note("content", "content", reached=0, note="not read: this host reads structuredContent")
            if use_structured:
                text = canonical_json(structured)
                self.note(
                    "structuredContent", "structured", bytes=_size(text), reached=self.enter(text, "structuredContent")
                )
        self.facts["budgetsCombined"] = self.p.logs != "per-budget"
        return HostReading(
            profile=self.p,
            model_text="\n".join(self.parts),
            log=self.log(),
            ledger=self.ledger,
            facts=dict(self.facts),
            broken=tuple(r.code for r in HOST_RULES if r.fires(self.facts, None, ScalarOps())),
        )

    def log(self) -> dict[str, Any]:
        if self.p.logs == "tool-name-only":
            return {"tool": self.inp.tool, "bytes": self.ledger.total}
        out: dict[str, Any] = {"tool": self.inp.tool, "entries": self.entries}
        if self.p.logs == "combined":
            out["bytes"] = self.ledger.total
        else:
            out["budgets"] = {b: self.ledger.used(b) for b in BUDGETS}
        return out


def read_result(inp: LensInput, profile: HostProfile) -> HostReading:
    """How one host profile reads one result.

    Example:
        >>> from custody_lab.protocol.host_profiles import profile
        >>> link = {"type": "resource_link", "uri": "report://7", "mimeType": "text/plain"}
        >>> inp = LensInput("report", {"content": [link]},
        ...                 linked={"report://7": {"uri": "report://7", "mimeType": "text/plain", "text": "secret"}},
        ...                 denied=frozenset({"report://7"}))
        >>> read_result(inp, profile("eager-fetcher")).model_text
        'secret'
        >>> read_result(inp, profile("custodian")).model_text
        'resource_link {"uri":"report://7","mimeType":"text/plain","notRead":"permission-denied"}'
    """
    return _Reader(inp, profile).read()


def lens(inp: LensInput, profiles: Sequence[HostProfile] | None = None) -> tuple[HostReading, ...]:
    """Every profile's reading of one result (the lab's profiles when ``profiles`` is omitted)."""
    return tuple(read_result(inp, p) for p in (load_host_profiles() if profiles is None else profiles))


def differences(readings: Sequence[HostReading]) -> list[list[str]]:
    """The profiles grouped by the exact text they put into the model's context.

    One group means every host reads the result alike; more mean the server cannot know which of
    them reaches the model.

    Example:
        >>> inp = LensInput("t", {"content": [{"type": "text", "text": "hi"}]})
        >>> differences(lens(inp))
        [['custodian', 'plain-reader', 'both-forms', 'eager-fetcher']]
    """
    groups: dict[str, list[str]] = {}
    for r in readings:
        groups.setdefault(r.model_text, []).append(r.profile.id)
    return list(groups.values())


#: The result shapes :func:`sample_result` builds (the widget's first control).
SHAPES = ("text", "structured", "structured + text", "link", "embed")


def sample_result(
    shape: str = "link",
    size: int = 6000,
    *,
    user_only: bool = False,
    link_readable: bool = True,
    uri: str = "report://weekly/7",
) -> LensInput:
    """A result of one shape, ``size`` bytes of payload, for the lens's widget to vary one input at a time.

    ``user_only`` adds an ``audience: ["user"]`` annotation to the payload's block (a
    ``structuredContent`` object has no annotations: MCP puts them on content blocks);
    ``link_readable`` says whether the caller may read ``uri`` (for a link or an embed).

    Example:
        >>> inp = sample_result("embed", 100, link_readable=False)
        >>> inp.result["content"][0]["resource"]["uri"], sorted(inp.denied)
        ('report://weekly/7', ['report://weekly/7'])
    """
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}")
    body = _filler(size, "Weekly report 7: ")
    ann = {"annotations": {"audience": ["user"]}} if user_only else {}
    linked: dict[str, Mapping[str, Any]] = {}
    result: dict[str, Any]
    if shape == "text":
        result = {"content": [{"type": "text", "text": body, **ann}]}
    elif shape in ("structured", "structured + text"):
        doc = {"value": _filler(max(0, size - len('{"value":""}')), "Weekly report 7: ")}
        blocks = [{"type": "text", "text": canonical_json(doc), **ann}] if shape == "structured + text" else []
        result = {"content": blocks, "structuredContent": doc}
    elif shape == "link":
        result = {
            "content": [{"type": "resource_link", "uri": uri, "name": "weekly-7", "mimeType": "text/plain", **ann}]
        }
        linked = {uri: {"uri": uri, "mimeType": "text/plain", "text": body}}
    else:
        result = {
            "content": [{"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain", "text": body}, **ann}]
        }
    denied = frozenset() if link_readable else frozenset({uri})
    return LensInput("make_report", result, linked=linked, denied=denied, provenance="report-tool@2")
