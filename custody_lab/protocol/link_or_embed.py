"""Link or embed? The bytes a tool result puts into context over a session, for both shapes.

Seed 001 ("Resource link vs embedded resource") gives the rule as a size × reuse table: embed only
small content used once; return a ``resource_link`` when the content is large or reused, so the
client fetches it once and serves repeats from its cache. The advisor
(:func:`custody_lab.core.advisor.advise`) already applies that rule; this module puts numbers on it.

The cost model (a teaching model, stated so it can be argued with):

* **embed**: every call carries an embedded-resource block, ``{"type": "resource", "resource":
  {"uri", "mimeType", "text" | "blob"}}``, with the whole payload inside. A binary payload travels
  as base64, about 4/3 of its bytes (:func:`custody_lab.blobs.overhead`).
* **link with a client cache**: every call carries a small ``resource_link`` block (``{"type":
  "resource_link", "uri", "name", "mimeType"}``); the first use fetches the content once with
  ``resources/read`` (one contents item), and later calls are answered from the cache. This is the
  link's worst case: a client may also never fetch it at all.

Block sizes are the lengths of their compact JSON (:func:`custody_lab.core.receipts.canonical_json`),
so the numbers are bytes you could count in a transcript.

Seed 001 also states an invariant: the URI inside a link or an embed must be the URI the resource
is registered under, or the client can neither match it against its cache nor follow
``notifications/resources/updated`` for it. MCP itself lets a link name a resource the server never
listed (tools, "Resource Links", 2025-06-18 and later), so the lab applies the invariant, as its
host policy, to registered resources: :func:`same_uri_invariant` tells a registered resource named
by another URI (and suggests its registered URI) from an unlisted one (valid; nothing to suggest).

The module is pure (standard library only); the views layer draws the costs and shows a check
(:mod:`custody_lab.views.context_costs`).
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MIME",
    "DEFAULT_NAME",
    "DEFAULT_URI",
    "ShapeCosts",
    "UriInvariantCheck",
    "Verdict",
    "compare_shapes",
    "embedded_resource_block",
    "resource_link_block",
    "same_uri_invariant",
]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..core.advisor import Advice, advise
from ..core.errors import CaseError
from ..core.model import Policy
from ..core.receipts import canonical_json
from .blobs import overhead
from .catalog import Catalog, ReadResult, ResourceEntry, TemplateEntry

#: The seed's large generated report (seed 000, case "generated-report").
DEFAULT_URI = "report://synthetic/weekly-7"
DEFAULT_NAME = "weekly-report-7"
DEFAULT_MIME = "text/html"


def _json_size(value: Any) -> int:
    return len(canonical_json(value).encode("utf-8"))


def resource_link_block(uri: str, name: str, mime_type: str | None = None, **extra: Any) -> dict[str, Any]:
    """A tool result's ``resource_link`` content block (seed 001, "Response shapes").

    Example:
        >>> block = resource_link_block("report://synthetic/weekly-7", "weekly-report-7", "text/html")
        >>> block["type"], block["uri"], block["mimeType"]
        ('resource_link', 'report://synthetic/weekly-7', 'text/html')
    """
    block: dict[str, Any] = {"type": "resource_link", "uri": uri, "name": name}
    if mime_type is not None:
        block["mimeType"] = mime_type
    block.update(extra)
    return block


def embedded_resource_block(result: ReadResult) -> dict[str, Any]:
    """A tool result's embedded ``resource`` block carrying what a catalog read returned.

    Example:
        >>> block = embedded_resource_block(Catalog.load().read("kb://shipping"))
        >>> block["type"], block["resource"]["uri"]
        ('resource', 'kb://shipping')
    """
    return {"type": "resource", "resource": dict(result.item)}


@dataclass(frozen=True)
class ShapeCosts:
    """Bytes entering context over ``reuse`` calls, embed vs link-with-cache, and the advice.

    Attributes:
        payload_bytes: the content's size in bytes.
        reuse: how many calls in the session return the same content.
        budget: the host's inline (embed) budget in bytes.
        binary: whether the payload travels as base64 (``blob``).
        advice: what :func:`custody_lab.core.advisor.advise` recommends, with its reasons.
        link_block_bytes: one ``resource_link`` block.
        embed_block_bytes: one embedded-resource block, payload included.
        fetch_bytes: the one ``resources/read`` contents item fetched on first use of a link.
        embed_cumulative: bytes in context after call 1, 2, ... N when embedding.
        link_cumulative: the same when linking (with a client cache).
    """

    payload_bytes: int
    reuse: int
    budget: int
    binary: bool
    advice: Advice
    link_block_bytes: int
    embed_block_bytes: int
    fetch_bytes: int
    embed_cumulative: tuple[int, ...]
    link_cumulative: tuple[int, ...]

    @property
    def shape(self) -> str | None:
        """The recommended shape (``"resource-link"`` or ``"embedded-resource"``)."""
        return self.advice.shape

    @property
    def embed_total(self) -> int:
        return self.embed_cumulative[-1]

    @property
    def link_total(self) -> int:
        return self.link_cumulative[-1]

    @property
    def saved(self) -> int:
        """Bytes the link saves over the session (negative when embedding is cheaper)."""
        return self.embed_total - self.link_total

    @property
    def embed_over_budget(self) -> bool:
        """Whether one embed block's payload exceeds the inline budget."""
        return self.payload_bytes > self.budget

    @property
    def break_even(self) -> int | None:
        """The first call after which the link has cost fewer bytes in total, or ``None``."""
        for call, (embed, link) in enumerate(zip(self.embed_cumulative, self.link_cumulative), 1):
            if link < embed:
                return call
        return None

    def rows(self) -> list[dict[str, int]]:
        """One row per call: call, embed and link bytes so far."""
        return [
            {"call": i, "embed_bytes": embed, "link_bytes": link}
            for i, (embed, link) in enumerate(zip(self.embed_cumulative, self.link_cumulative), 1)
        ]

    def summary(self) -> str:
        """The comparison in one or two sentences."""
        carried = "base64 characters" if self.binary else "bytes"
        parts = [
            f"{self.reuse} call{'s' if self.reuse != 1 else ''} returning {self.payload_bytes:,} "
            f"{'binary ' if self.binary else ''}bytes: embedding puts {self.embed_total:,} bytes "
            f"into context, a link with a client cache {self.link_total:,}"
        ]
        if self.saved > 0:
            parts.append(f"the link saves {self.saved:,} ({self.saved / self.embed_total:.0%})")
        elif self.saved < 0:
            parts.append(f"embedding is {-self.saved:,} bytes cheaper")
        else:
            parts.append("both cost the same")
        if self.binary:
            parts.append(f"the payload travels as {overhead(self.payload_bytes):,} {carried}")
        return "; ".join(parts) + "."


def compare_shapes(
    payload_bytes: int,
    reuse: int,
    budget: int = 4096,
    *,
    binary: bool = False,
    separate_permission: bool = False,
    changes_often: bool = False,
    uri: str = DEFAULT_URI,
    name: str = DEFAULT_NAME,
    mime_type: str = DEFAULT_MIME,
) -> ShapeCosts:
    """Bytes entering context over ``reuse`` calls for embed vs link, and the advisor's pick.

    Args:
        payload_bytes: the content's size in bytes (≥ 0).
        reuse: how many calls in one session return the same content (≥ 1).
        budget: the host's inline budget in bytes (seed 000's policy: 4096).
        binary: the payload is bytes sent as a base64 ``blob`` (4/3 larger) rather than text.
        separate_permission: the content needs a permission of its own, beyond the tool call's
            (seed 000: a link; the advisor's input of the same name). It changes the advice, not
            the bytes.
        changes_often: the content is likely to change after the call (seed 000: a link). It
            changes the advice, not the bytes.
        uri, name, mime_type: the resource the blocks refer to (their JSON counts too).

    Raises:
        CaseError / PolicyError: (ValueErrors) for a negative size, reuse below 1 or a bad budget.

    Example:
        >>> c = compare_shapes(18000, 5)
        >>> c.shape, c.embed_total, c.link_total, c.break_even
        ('resource-link', 90505, 18610, 2)
        >>> compare_shapes(300, 1).shape, compare_shapes(300, 1, separate_permission=True).shape
        ('embedded-resource', 'resource-link')
    """
    for flag, value in (
        ("binary", binary),
        ("separate_permission", separate_permission),
        ("changes_often", changes_often),
    ):
        if not isinstance(value, bool):
            raise CaseError(f"{flag} must be true or false; got {value!r}", flag)
    advice = advise(
        "model",
        "generate",
        payload_bytes=payload_bytes,
        reuse=reuse,
        separate_permission=separate_permission,
        changes_often=changes_often,
        policy=Policy(embed_limit_bytes=budget),
    )
    field_name = "blob" if binary else "text"
    carried = overhead(payload_bytes) if binary else payload_bytes
    link_block = _json_size(resource_link_block(uri, name, mime_type))
    item_wrapper = _json_size({"uri": uri, "mimeType": mime_type, field_name: ""})
    embed_block = (
        _json_size({"type": "resource", "resource": {"uri": uri, "mimeType": mime_type, field_name: ""}}) + carried
    )
    fetch = item_wrapper + carried
    embed_cumulative = tuple(embed_block * call for call in range(1, reuse + 1))
    link_cumulative = tuple(link_block * call + fetch for call in range(1, reuse + 1))
    return ShapeCosts(
        payload_bytes=payload_bytes,
        reuse=reuse,
        budget=budget,
        binary=binary,
        advice=advice,
        link_block_bytes=link_block,
        embed_block_bytes=embed_block,
        fetch_bytes=fetch,
        embed_cumulative=embed_cumulative,
        link_cumulative=link_cumulative,
    )


# --------------------------------------------------------------------------------------------
# Seed 001's invariant: the URI in a link or an embed is the URI the resource is registered under
# --------------------------------------------------------------------------------------------


#: What a same-URI check found: the registered URI; a registered resource under another URI; a
#: resource the server never registered (valid under MCP); or no link or embed at all.
Verdict = Literal["same-uri", "registered-under-another-uri", "unlisted", "malformed"]


@dataclass(frozen=True)
class UriInvariantCheck:
    """Whether a link/embed block names its resource by the URI it is registered under.

    What MCP says and what the lab adds, kept apart (tools, "Resource Links", 2025-06-18,
    2025-11-25 and 2026-07-28 alike): a linked resource need **not** appear in ``resources/list``,
    so a link to an unregistered URI is valid and the client simply reads it. Seed 001's caching
    advice, the lab's host policy, is about a *registered* resource: its link or embed carries
    exactly the registered URI. So the check suggests a registered URI only when the block
    itself identifies that resource (its ``name`` is the registered one, or its URI is the
    registered URI with a query, a fragment, a trailing slash or another letter case added), never
    because two URIs merely look alike.

    Attributes:
        ok: the URI resolves in the catalog (a listed URI, or a template's existing record).
        block_type: ``"resource_link"`` or ``"resource"``, or ``None`` for a malformed block.
        uri: the URI found in the block, or ``None``.
        registered_as: the listed URI or the ``uriTemplate`` it resolves to, or ``None``.
        problems: why the check fails (empty when ``ok``); for an unlisted URI, what the client
            cannot reuse (not a fault under MCP).
        warnings: other custody concerns that do not break the invariant (a different
            ``mimeType``; embedded bytes that differ from a fresh read).
        suggestion: the registered URI of the resource the block describes under another URI.
    """

    ok: bool
    block_type: str | None
    uri: str | None
    registered_as: str | None
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    suggestion: str | None = None

    @property
    def verdict(self) -> Verdict:
        """``same-uri``, ``registered-under-another-uri``, ``unlisted`` or ``malformed``."""
        if self.ok:
            return "same-uri"
        if self.block_type is None or self.uri is None:
            return "malformed"
        return "registered-under-another-uri" if self.suggestion else "unlisted"

    @property
    def message(self) -> str:
        if self.ok:
            text = f"{self.block_type} names {self.uri!r}, registered as {self.registered_as!r}"
        else:
            text = "; ".join(self.problems)
            if self.suggestion:
                text += f" (the resource it describes is registered as {self.suggestion!r})"
        if self.warnings:
            text += "; also: " + "; ".join(self.warnings)
        return text

    def __str__(self) -> str:
        prefix = {
            "same-uri": "✓ same URI: ",
            "registered-under-another-uri": "✗ a registered resource under another URI: ",
            "unlisted": "ⓘ not registered (valid under MCP): ",
            "malformed": "✗ not a link or an embed: ",
        }[self.verdict]
        return prefix + self.message


def _block_uri(block: object) -> tuple[str | None, str | None, Mapping[str, Any] | None, str | None]:
    """(block_type, uri, the mapping holding uri/mimeType, problem)."""
    if not isinstance(block, Mapping):
        return None, None, None, f"a content block must be an object, got {type(block).__name__}"
    kind = block.get("type")
    if kind == "resource_link":
        holder: Any = block
    elif kind == "resource":
        holder = block.get("resource")
        if not isinstance(holder, Mapping):
            return "resource", None, None, "an embedded resource block needs a 'resource' object"
    else:
        return (None, None, None, f"type must be 'resource_link' or 'resource' (a link or an embed); got {kind!r}")
    uri = holder.get("uri")
    if not isinstance(uri, str) or not uri:
        return kind, None, holder, f"the {kind} block has no 'uri' string"
    return kind, uri, holder, None


def _bare(uri: str) -> str:
    """A URI without its query, fragment and trailing slashes, case-folded: what a registered URI
    and a decorated copy of it have in common."""
    for mark in ("#", "?"):
        uri = uri.split(mark, 1)[0]
    return uri.rstrip("/").casefold()


def _described(block: Mapping[str, Any], holder: Mapping[str, Any], uri: str, catalog: Catalog) -> str | None:
    """The registered URI of the resource this block describes under another URI, or ``None``.

    The block must say so itself: a ``resource_link`` whose ``name`` is a listed resource's name
    (and whose ``mimeType``, when given, agrees), or a URI that is a listed URI with a query, a
    fragment, a trailing slash or another letter case added. A URI that only *looks* like a listed
    one (an export named like a report) describes nothing registered: MCP lets a link name it.
    """
    name = block.get("name") if block.get("type") == "resource_link" else None
    declared = holder.get("mimeType")
    for entry in catalog.resources:
        if name is not None and name == entry.name and declared in (None, entry.mime_type):
            return entry.uri
    bare = _bare(uri)
    return next((entry.uri for entry in catalog.resources if _bare(entry.uri) == bare), None)


def same_uri_invariant(block: object, catalog: Catalog) -> UriInvariantCheck:
    """Check seed 001's invariant for one tool-result block: its URI is registered in ``catalog``.

    Never raises for a malformed block: that is reported as a problem.

    Example:
        >>> catalog = Catalog.load()
        >>> same_uri_invariant(resource_link_block("kb://shipping", "shipping"), catalog).verdict
        'same-uri'
        >>> check = same_uri_invariant(resource_link_block("kb://shipping/", "shipping"), catalog)
        >>> check.verdict, check.suggestion
        ('registered-under-another-uri', 'kb://shipping')
        >>> same_uri_invariant(resource_link_block("export://run-3.csv", "run-3", "text/csv"), catalog).verdict
        'unlisted'
    """
    kind, uri, holder, problem = _block_uri(block)
    if problem is not None:
        return UriInvariantCheck(False, kind, uri, None, (problem,))
    assert uri is not None and holder is not None and isinstance(block, Mapping)
    registered = catalog.resolve(uri)
    if registered is None:
        described = _described(block, holder, uri, catalog)
        if described is not None:
            why = (
                f"{uri!r} is not the URI this resource is registered under: a client cannot match "
                "it against its cached copy or the update notifications it subscribed to"
            )
        else:
            why = (
                f"{uri!r} names nothing this server registers. That is valid: MCP does not require "
                "a linked resource to be listed, and the client reads it with resources/read; there "
                "is simply no cached copy or subscription to reuse for it"
            )
        return UriInvariantCheck(False, kind, uri, None, (why,), suggestion=described)
    registered_as = registered.uri if isinstance(registered, ResourceEntry) else registered.uri_template
    warnings: list[str] = []
    declared = holder.get("mimeType")
    expected_mime = registered.mime_type
    if declared is not None and expected_mime is not None and declared != expected_mime:
        warnings.append(f"mimeType {declared!r} differs from the registered {expected_mime!r}")
    if kind == "resource" and ("text" in holder or "blob" in holder):
        fresh = catalog.read(uri).item
        field_name = "text" if "text" in holder else "blob"
        if holder.get(field_name) != fresh.get(field_name):
            warnings.append("the embedded content differs from what resources/read returns now")
    if isinstance(registered, TemplateEntry):
        registered_as = f"{registered.uri_template} (record {uri})"
    return UriInvariantCheck(True, kind, uri, registered_as, (), tuple(warnings))
