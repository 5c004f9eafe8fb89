"""What enters a model's context: three budgets, logged and limited separately, and the permission
an embedded result needs before it may enter at all.

Seed 000 ("Budget large context without hiding truncation"): a host with many capabilities may
defer tool definitions without losing policy, but deferred *definitions* and deferred *content*
are different concerns. A tool catalog decides which operations are visible, a resource catalog
which addresses are discoverable. Each budget is logged on its own line, so a small tool schema
cannot conceal a giant embedded result, and a giant resource list cannot crowd out the document
the user selected.

The three budgets and what a host does with an entry its budget has no room for are the lab's
host policy; MCP sets none of these limits:

====================  ==============================================  ==============================
budget                what it counts (bytes)                          no room left: the host ...
====================  ==============================================  ==============================
``tool-definitions``  each tool definition as ``tools/list`` returns  defers it (name only until the
                      it, as compact JSON (or its deferred stub)      model selects the tool)
``resource-catalog``  each ``resources/list`` entry put in context,   leaves it to the next page
                      as compact JSON                                 (``nextCursor``)
``content``           the decoded bytes of contents an embedded       returns a ``resource_link``
                      result or a read puts into context              instead of the bytes
====================  ==============================================  ==============================

MCP facts used here (2025-06-18, 2025-11-25 and 2026-07-28 alike): ``tools/list`` and
``resources/list`` are paginated with an opaque cursor and a client MUST NOT assume a page size
(server utilities, "Pagination"); a tool result may carry an embedded ``resource`` block with the
contents inside (tools, "Embedded Resources"); and the tools specification's Security
Considerations say servers MUST implement proper access controls, while clients SHOULD validate
tool results before passing them to the model.

**Authorise before embedding** (seed 000, "Recheck authority at every read boundary"). An embedded
resource is a read the *server* made on the caller's behalf: the host never chose to read that URI.
When the caller may not read it, the bytes that arrived are evidence of a server-side policy
problem, not consent; approving the tool call approved running the tool, not reading the URI.
:func:`authorise_embed` routes the embed as a case through the one rule table, so the receipt says
``permission-denied`` and :meth:`Ledger.log_embed` lets none of its bytes into the content budget.
(A re-read after permission is revoked is the same gate at a later boundary: notebook 07 and
exercise ``live-01`` teach it.)

The lab counts bytes, which a transcript can check; :func:`approx_tokens` divides by four, a rough
rule of thumb and not any model's tokenizer. The module is pure (standard library only).
"""

from __future__ import annotations

__all__ = [
    "BUDGETS",
    "CROWDED_OUT",
    "OVERFLOW",
    "Admission",
    "Budget",
    "BudgetLimits",
    "EmbedVerdict",
    "Ledger",
    "LedgerEntry",
    "approx_tokens",
    "authorise_embed",
    "contents_bytes",
    "deferred_stub",
    "every_record_listed",
    "json_bytes",
    "reached",
    "withheld",
]

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from ..core.errors import BudgetError, PolicyError
from ..core.model import Decision, Policy
from ..core.receipts import canonical_json
from ..core.router import route
from .blobs import BlobError, read_contents
from .uri_templates import expand

Budget = Literal["tool-definitions", "resource-catalog", "content"]

#: The three budgets, in the order a host usually assembles them into context.
BUDGETS: tuple[Budget, ...] = ("tool-definitions", "resource-catalog", "content")

#: What the lab's host policy does with an entry its own budget has no room left for.
OVERFLOW: dict[str, str] = {
    "tool-definitions": "deferred: only its name is shown until the model selects the tool",
    "resource-catalog": "left to the next page of the listing (nextCursor)",
    "content": "not embedded: a resource_link names it, and the client reads it if it needs it",
}

#: Why one combined limit drops an entry: whatever came earlier, of any kind, spent the room.
CROWDED_OUT = "crowded out: entries before it spent the one combined limit"

_DEFAULT_CONTENT_LIMIT = Policy().embed_limit_bytes


def json_bytes(value: Any) -> int:
    """The length in bytes of a value's compact JSON (as it would appear in a transcript).

    Example:
        >>> json_bytes({"name": "export_everything"})
        28
    """
    return len(canonical_json(value).encode("utf-8"))


def approx_tokens(size: int) -> int:
    """A rough token figure for ``size`` bytes: a quarter, rounded up (a rule of thumb only).

    Example:
        >>> approx_tokens(9000), approx_tokens(1)
        (2250, 1)
    """
    return math.ceil(size / 4)


def deferred_stub(tool: Mapping[str, Any]) -> dict[str, Any]:
    """What a host that defers tool definitions shows for a tool: its name (and title, if any).

    The full definition (description, ``inputSchema``, annotations) is loaded when the model
    selects the tool. Deferring changes what is *visible*, not what is *allowed*: the lab's
    host policy still passes every call through the gate, with the full definition loaded.

    Raises:
        BudgetError: the tool has no ``name`` string.

    Example:
        >>> deferred_stub({"name": "lookup", "title": "Look up", "inputSchema": {"type": "object"}})
        {'name': 'lookup', 'title': 'Look up'}
    """
    name = tool.get("name") if isinstance(tool, Mapping) else None
    if not isinstance(name, str) or not name:
        raise BudgetError(f"a tool definition needs a 'name' string; got {tool!r:.80}", "name")
    stub: dict[str, Any] = {"name": name}
    if isinstance(tool.get("title"), str):
        stub["title"] = tool["title"]
    return stub


def _contents_item(value: Mapping[str, Any]) -> Mapping[str, Any]:
    """The contents item of an embedded ``resource`` block, or the value itself (a contents item)."""
    if value.get("type") == "resource":
        item = value.get("resource")
        if not isinstance(item, Mapping):
            raise BudgetError("an embedded resource block needs a 'resource' object", "resource")
        return item
    return value


def contents_bytes(value: Mapping[str, Any]) -> int:
    """The decoded size of an embedded ``resource`` block's contents, or of a contents item.

    Text counts as its UTF-8 bytes, a ``blob`` as its decoded bytes (not its base64 length).

    Raises:
        BudgetError: the value is not a block or contents item with ``text`` or ``blob``
            (raised from the contents reader's error, which names the field).

    Example:
        >>> contents_bytes({"type": "resource", "resource": {"uri": "kb://a", "text": "héllo"}})
        6
    """
    if not isinstance(value, Mapping):
        raise BudgetError(f"content must be a contents item or an embedded resource block; got {value!r:.80}")
    item = _contents_item(value)
    try:
        return read_contents(item).size_bytes
    except BlobError as e:
        raise BudgetError(f"content {item.get('uri', '')!r}: {e}", getattr(e, "field", None)) from e


def every_record_listed(template: Mapping[str, Any], values: Iterable[Mapping[str, object]]) -> dict[str, Any]:
    """The ``resources/list`` result of a server that lists every record of a template one by one.

    Seed 000 ("Separate listed resources from URI templates") advises against it: list the
    template once and let the application fill it in. This builds the listing that advice avoids,
    so its size can be logged in the resource-catalog budget.

    Example:
        >>> t = {"uriTemplate": "crm://customer/{id}", "name": "customer", "mimeType": "application/json"}
        >>> every_record_listed(t, [{"id": "c-1"}])["resources"]
        [{'uri': 'crm://customer/c-1', 'name': 'customer-1', 'mimeType': 'application/json'}]
    """
    pattern, name = template.get("uriTemplate"), template.get("name")
    if not isinstance(pattern, str) or not isinstance(name, str):
        raise BudgetError("a resource template needs 'uriTemplate' and 'name' strings", "uriTemplate")
    resources = []
    for i, params in enumerate(values, 1):
        entry = {"uri": expand(pattern, params), "name": f"{name}-{i}"}
        if isinstance(template.get("mimeType"), str):
            entry["mimeType"] = template["mimeType"]
        resources.append(entry)
    return {"resources": resources}


@dataclass(frozen=True)
class BudgetLimits:
    """The three limits in bytes (the lab's host policy; MCP sets none of them).

    Attributes:
        tool_definitions: room for tool definitions (default 8,192).
        resource_catalog: room for ``resources/list`` entries (default 4,096).
        content: room for contents (default: the embed limit of the seed's policy, 4,096).
    """

    tool_definitions: int = 8192
    resource_catalog: int = 4096
    content: int = _DEFAULT_CONTENT_LIMIT

    def __post_init__(self) -> None:
        for name in ("tool_definitions", "resource_catalog", "content"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise PolicyError(f"the {name} limit must be a whole number of bytes ≥ 0; got {value!r}", name)

    def of(self, budget: str) -> int:
        """The limit of one budget, by its name in :data:`BUDGETS`.

        Example:
            >>> BudgetLimits().of("content")
            4096
        """
        return int(getattr(self, _attribute(budget)))

    @property
    def total(self) -> int:
        """The three limits added up: what a host with one combined number would allow."""
        return self.tool_definitions + self.resource_catalog + self.content


def _attribute(budget: str) -> str:
    if budget not in BUDGETS:
        raise BudgetError(f"no budget {budget!r}; the budgets are {', '.join(BUDGETS)}", "budget")
    return budget.replace("-", "_")


@dataclass(frozen=True)
class LedgerEntry:
    """One thing logged against a budget: what it is and how many bytes it would put into context."""

    budget: Budget
    item: str
    bytes: int
    note: str = ""


@dataclass(frozen=True)
class Admission:
    """Whether a ledger entry got into context, and why not when it did not."""

    entry: LedgerEntry
    admitted: bool
    reason: str = ""


@dataclass(frozen=True)
class Ledger:
    """The context of one turn, logged entry by entry against three budgets.

    A ``Ledger`` is a value: each ``log...`` method returns a new ledger with one more entry.

    Example:
        >>> ledger = Ledger().log("tool-definitions", "export_everything", 150)
        >>> ledger = ledger.log("content", "export://all", 9000)
        >>> ledger.over(), ledger.combined_over(), ledger.hidden()
        (('content',), False, ('content',))
    """

    limits: BudgetLimits = BudgetLimits()
    entries: tuple[LedgerEntry, ...] = ()

    # -- logging ---------------------------------------------------------------------------

    def log(self, budget: str, item: str, size: int, note: str = "") -> Ledger:
        """A new ledger with one more entry of ``size`` bytes against ``budget``.

        Raises:
            BudgetError: an unknown budget (``field="budget"``) or a size that is not a whole
                number ≥ 0 (``field="bytes"``).
        """
        _attribute(budget)
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise BudgetError(f"{item!r}: bytes must be a whole number ≥ 0; got {size!r}", "bytes")
        entry = LedgerEntry(cast(Budget, budget), str(item), size, note)
        return replace(self, entries=(*self.entries, entry))

    def log_tool(self, tool: Mapping[str, Any], *, deferred: bool = False) -> Ledger:
        """Log one tool definition as ``tools/list`` returns it, or its deferred stub."""
        stub = deferred_stub(tool)
        shown = stub if deferred else tool
        return self.log("tool-definitions", stub["name"], json_bytes(shown), "deferred" if deferred else "")

    def log_listing(self, listing: Mapping[str, Any]) -> Ledger:
        """Log every entry of a ``resources/list`` result (``{"resources": [...]}``), one by one."""
        resources = listing.get("resources") if isinstance(listing, Mapping) else None
        if not isinstance(resources, list):
            raise BudgetError("a resources/list result needs a 'resources' list", "resources")
        ledger = self
        for i, entry in enumerate(resources):
            uri = entry.get("uri") if isinstance(entry, Mapping) else None
            if not isinstance(uri, str):
                raise BudgetError(f"resources[{i}] has no 'uri' string", f"resources[{i}].uri")
            ledger = ledger.log("resource-catalog", uri, json_bytes(entry))
        return ledger

    def log_contents(self, value: Mapping[str, Any], note: str = "") -> Ledger:
        """Log an embedded ``resource`` block's (or a contents item's) decoded bytes as content."""
        uri = _contents_item(value).get("uri") if isinstance(value, Mapping) else None
        return self.log("content", str(uri), contents_bytes(value), note)

    def log_embed(self, verdict: EmbedVerdict) -> Ledger:
        """Log an embed after :func:`authorise_embed`: its bytes if accepted, none if refused."""
        if verdict.revealed:
            return self.log("content", verdict.uri, verdict.bytes, f"embedded by {verdict.tool}")
        return self.log("content", verdict.uri, 0, f"withheld: {verdict.decision.rejection}")

    # -- reading ---------------------------------------------------------------------------

    def used(self, budget: str) -> int:
        """Bytes logged against one budget."""
        _attribute(budget)
        return sum(e.bytes for e in self.entries if e.budget == budget)

    @property
    def total(self) -> int:
        """Bytes logged against all three budgets: the one combined number."""
        return sum(e.bytes for e in self.entries)

    def over(self) -> tuple[Budget, ...]:
        """The budgets whose logged bytes exceed their own limit."""
        return tuple(b for b in BUDGETS if self.used(b) > self.limits.of(b))

    def combined_over(self) -> bool:
        """Whether the combined number exceeds the three limits added up."""
        return self.total > self.limits.total

    def hidden(self) -> tuple[Budget, ...]:
        """The budgets over their own limit while the combined number says all is well."""
        return () if self.combined_over() else self.over()

    def admit(self) -> tuple[Admission, ...]:
        """What the lab's host policy lets into context: each budget fills only its own room.

        Entries are taken in order; once an entry does not fit its budget's remaining room, it and
        the later entries of *that* budget are withheld (:data:`OVERFLOW` says what happens to
        them). The other budgets are untouched.

        Example:
            >>> ledger = Ledger(BudgetLimits(resource_catalog=100)).log("resource-catalog", "a", 80)
            >>> ledger = ledger.log("resource-catalog", "b", 80).log("content", "kb://doc", 1800)
            >>> [(a.entry.item, a.admitted) for a in ledger.admit()]
            [('a', True), ('b', False), ('kb://doc', True)]
        """
        spent = dict.fromkeys(BUDGETS, 0)
        full: set[str] = set()
        out = []
        for e in self.entries:
            if e.budget not in full and spent[e.budget] + e.bytes <= self.limits.of(e.budget):
                spent[e.budget] += e.bytes
                out.append(Admission(e, True))
            else:
                full.add(e.budget)
                out.append(Admission(e, False, OVERFLOW[e.budget]))
        return tuple(out)

    def admit_combined(self, limit: int | None = None) -> tuple[Admission, ...]:
        """What a host with one combined number lets in: the context fills in order and is cut.

        Once an entry does not fit the combined ``limit`` (the three limits added up when
        omitted), it and every later entry are dropped, whatever their budget: the end of the
        context is cut off (the truncation seed 000 warns about).

        Example:
            >>> ledger = Ledger().log("resource-catalog", "list", 20000).log("content", "kb://doc", 1800)
            >>> [(a.entry.item, a.admitted) for a in ledger.admit_combined()]
            [('list', False), ('kb://doc', False)]
        """
        room = self.limits.total if limit is None else limit
        spent, cut = 0, False
        out = []
        for e in self.entries:
            cut = cut or spent + e.bytes > room
            if cut:
                out.append(Admission(e, False, CROWDED_OUT))
            else:
                spent += e.bytes
                out.append(Admission(e, True))
        return tuple(out)

    def lines(self) -> list[dict[str, Any]]:
        """One row per budget, then the combined row: entries, bytes, ≈ tokens, limit, status."""
        rows = []
        for b in BUDGETS:
            used, limit = self.used(b), self.limits.of(b)
            rows.append(_line(b, sum(e.budget == b for e in self.entries), used, limit))
        rows.append(_line("combined (one number)", len(self.entries), self.total, self.limits.total))
        return rows

    def summary(self) -> str:
        """The ledger in one or two sentences: what each budget and the combined number say."""
        parts = [f"{b}: {self.used(b):,} of {self.limits.of(b):,} bytes" for b in BUDGETS]
        text = "; ".join(parts) + f". Combined: {self.total:,} of {self.limits.total:,} bytes."
        if self.hidden():
            text += f" One combined number says 'within budget' and hides: {', '.join(self.hidden())} over its limit."
        elif self.over():
            text += f" Over its own limit: {', '.join(self.over())}."
        return text


def reached(admissions: Iterable[Admission], item: str, budget: str | None = "content") -> int:
    """How many bytes of ``item`` got into context under these admissions (0 when withheld).

    The same URI can be logged in two budgets (a listed resource's catalog entry and its
    contents), so ``budget`` picks one: the content by default, any budget with ``None``.

    Example:
        >>> ledger = Ledger().log("resource-catalog", "kb://doc", 90).log("content", "kb://doc", 1800)
        >>> reached(ledger.admit(), "kb://doc"), reached(ledger.admit(), "kb://doc", None)
        (1800, 1890)
        >>> reached(Ledger().log("resource-catalog", "list", 20000).log("content", "kb://doc", 1800).admit_combined(), "kb://doc")
        0
    """
    if budget is not None:
        _attribute(budget)
    return sum(
        a.entry.bytes
        for a in admissions
        if a.admitted and a.entry.item == item and (budget is None or a.entry.budget == budget)
    )


def withheld(admissions: Iterable[Admission]) -> list[dict[str, Any]]:
    """The entries kept out of context, grouped by budget and reason: how many, how many bytes.

    Example:
        >>> ledger = Ledger().log("content", "kb://a", 3000).log("content", "kb://b", 3000)
        >>> [(w["budget"], w["entries"], w["bytes"]) for w in withheld(ledger.admit())]
        [('content', 1, 3000)]
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for a in admissions:
        if not a.admitted:
            groups.setdefault((a.entry.budget, a.reason), []).append(a.entry.bytes)
    return [
        {"budget": budget, "entries": len(sizes), "bytes": sum(sizes), "why": why}
        for (budget, why), sizes in groups.items()
    ]


def _line(name: str, entries: int, used: int, limit: int) -> dict[str, Any]:
    status = f"over by {used - limit:,}" if used > limit else "within"
    return {
        "budget": name,
        "entries": entries,
        "bytes": used,
        "≈ tokens": approx_tokens(used),
        "limit": limit,
        "status": status,
    }


# --------------------------------------------------------------------------------------------
# Authorise before embedding
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EmbedVerdict:
    """What the host decides about one embedded resource that arrived in a tool result.

    Attributes:
        tool: the tool whose result carried the embed.
        uri: the embedded resource's URI.
        bytes: its decoded size.
        may_read: whether the caller may read that URI (the host's permission gate).
        decision: the router's decision on the embed as a case (the one rule table).
    """

    tool: str
    uri: str
    bytes: int
    may_read: bool
    decision: Decision

    @property
    def receipt(self) -> dict[str, Any]:
        """The custody receipt of the embed (the seed's shape)."""
        return self.decision.to_dict()

    @property
    def revealed(self) -> bool:
        """Whether the embedded bytes may enter the model's context."""
        return self.decision.accepted

    @property
    def server_should_have_checked(self) -> bool:
        """True when the server embedded a resource its caller may not read (a server-side problem)."""
        return not self.may_read

    def explain(self) -> str:
        """The verdict in plain words (the URI is untrusted text: escape it before HTML)."""
        if self.revealed:
            return f"{self.tool} embedded {self.uri!r} ({self.bytes:,} bytes); the caller may read it: accepted."
        if self.server_should_have_checked:
            return (
                f"{self.tool} embedded {self.uri!r}, which the caller may not read: permission-denied. "
                "The host never chose to read it; the server should have checked before embedding. "
                f"The {self.bytes:,} bytes that arrived are withheld from the model, and approving "
                "the tool call does not approve reading that URI."
            )
        return f"{self.tool} embedded {self.uri!r}: refused, {self.decision.rejection}."


def authorise_embed(
    block: Mapping[str, Any],
    *,
    tool: str,
    may_read: Callable[[str], bool],
    provenance: str,
    operation: str = "calculate",
    side_effects: bool = False,
    policy: Policy | None = None,
) -> EmbedVerdict:
    """Decide an embedded ``resource`` block the way the lab decides any case: through the rule table.

    The embed becomes a model-initiated case of shape ``embedded-resource`` with the block's URI,
    MIME type and decoded size, and ``allowed`` = ``may_read(uri)``. Rules fire in their order:
    a caller who may not read the URI gets ``permission-denied`` before size is even considered.

    Args:
        block: a tool result's ``{"type": "resource", "resource": {...}}`` block.
        tool: the tool that returned it (the receipt's case id is ``"<tool>:embed"``).
        may_read: the caller's permission check for a URI (the host's gate).
        provenance: who vouches for the content (MCP has no such field; the lab's receipt does).
        operation, side_effects: what the tool call was (a read-only calculation by default).
        policy: the host policy (the seed's 4,096-byte embed limit when omitted).

    Raises:
        BudgetError: the block is not an embedded resource with a URI and contents.

    Example:
        >>> block = {"type": "resource", "resource": {"uri": "crm://customer/fixture-99",
        ...     "mimeType": "application/json", "text": '{"id": "fixture-99"}'}}
        >>> v = authorise_embed(block, tool="export_customer", provenance="crm-fixture@99",
        ...                     may_read=lambda uri: not uri.startswith("crm://customer/fixture-99"))
        >>> v.decision.rejection, v.revealed, v.server_should_have_checked
        ('permission-denied', False, True)
    """
    if not isinstance(block, Mapping) or block.get("type") != "resource":
        raise BudgetError("an embedded resource block has type 'resource'", "type")
    item = _contents_item(block)
    uri = item.get("uri")
    if not isinstance(uri, str) or not uri:
        raise BudgetError("the embedded resource has no 'uri' string", "resource.uri")
    size = contents_bytes(block)
    allowed = bool(may_read(uri))
    decision = route(
        {
            "id": f"{tool}:embed",
            "initiator": "model",
            "operation": operation,
            "shape": "embedded-resource",
            "uri": uri,
            "mime": item.get("mimeType"),
            "bytes": size,
            "current": True,
            "allowed": allowed,
            "sideEffects": side_effects,
            "provenance": provenance,
        },
        policy,
    )
    return EmbedVerdict(tool=tool, uri=uri, bytes=size, may_read=allowed, decision=decision)
