"""What a server lists, as the client reads it: resources, templates, tools and prompts, every page.

The recorder needs the listing before any exchange: a read's shape (listed or templated) and MIME
type, and a tool's declared side effects, come from it. :class:`ServerListing` follows every
``nextCursor`` (``""`` is a cursor too) up to :data:`~custody_lab.live.limits.MAX_PAGES` pages,
:data:`~custody_lab.live.limits.MAX_LISTED_ITEMS` items and
:data:`~custody_lab.live.limits.MAX_LISTING_BYTES` bytes of items per listing (the lab's host
policy: MCP's pagination, 2024-11-05 to 2026-07-28, leaves the page size to the server and
bounds no listing), reads no further once one is reached, and notes the cut
and where it fell; :func:`match_template` says which template a URI belongs to, with the lab's own
RFC 6570 engine (the one ``custody-lab serve`` uses as well).
"""

from __future__ import annotations

__all__ = ["ServerListing", "match_template"]

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import mcp.types as mt
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from ..core.text import visible
from ..protocol.uri_templates import UriTemplateError, match
from .limits import MAX_LISTED_ITEMS, MAX_LISTING_BYTES, MAX_PAGES, bounded
from .live_errors import LiveError, first_problem
from .live_receipts import check_size


def match_template(templates: Iterable[str], uri: str) -> tuple[str, dict[str, Any]] | None:
    """The first of ``templates`` that ``uri`` matches, with its parameters; ``None`` otherwise.

    A template the lab's engine cannot read is skipped (it matches nothing).

    Example:
        >>> match_template(["kb://{doc}", "crm://customer/{id}"], "crm://customer/fixture-17")
        ('crm://customer/{id}', {'id': 'fixture-17'})
    """
    for template in templates:
        try:
            params = match(template, uri)
        except UriTemplateError:
            continue
        if params is not None:
            return template, dict(params)
    return None


class ServerListing:
    """A server's resources, templates and tools, as the client listed them.

    Attributes:
        listed: listed resources by URI.
        templates: resource templates, in the order listed.
        tools: tools by name.
        prompts: prompts by name (only after :meth:`load_prompts`, which the audit calls).
        notes: what the listing left out (a page, item or byte bound that cut it, and where), for reports.
    """

    def __init__(self) -> None:
        self.listed: dict[str, mt.Resource] = {}
        self.templates: list[mt.ResourceTemplate] = []
        self.tools: dict[str, mt.Tool] = {}
        self.prompts: dict[str, mt.Prompt] = {}
        self.notes: list[str] = []

    async def load(self, client: Client, timeout: float) -> None:
        """List resources, templates and tools, every page (what the server's capabilities offer).

        Raises:
            LiveError: a listing is malformed (an empty URI or tool name, a size that is not a size,
                a result of the wrong shape) or the server answered it with an error.
            LiveTimeout: a page got no answer within ``timeout`` seconds.
        """
        caps = client.server_capabilities
        if caps.resources is not None:
            resources = await self._all(
                "resources/list",
                lambda c: client.list_resources(cursor=c, cache_mode="bypass"),
                "resources",
                timeout,
            )
            for i, r in enumerate(resources):
                if not r.uri.strip():
                    raise LiveError(f"resources/list item {i} ({visible(r.name)!r}) has an empty URI")
                check_size(r.size, f"resources/list item {i} ({visible(r.uri)!r})")
            self.listed = {r.uri: r for r in resources}
            self.templates = await self._all(
                "resources/templates/list",
                lambda c: client.list_resource_templates(cursor=c, cache_mode="bypass"),
                "resource_templates",
                timeout,
            )
        if caps.tools is not None:
            tools = await self._all(
                "tools/list", lambda c: client.list_tools(cursor=c, cache_mode="bypass"), "tools", timeout
            )
            self.tools = _by_name("tools/list", tools)

    async def resource_uris(self, client: Client, timeout: float) -> list[str]:
        """The URIs ``resources/list`` lists now, every page within the same bounds as :meth:`load`
        (for comparing with :attr:`listed`: the listing itself is not changed; a cut is noted).

        Raises:
            LiveError: the listing is malformed or the server answered it with an error.
            LiveTimeout: a page got no answer within ``timeout`` seconds.
        """
        if client.server_capabilities.resources is None:
            return []
        resources = await self._all(
            "resources/list",
            lambda c: client.list_resources(cursor=c, cache_mode="bypass"),
            "resources",
            timeout,
            said="resources/list (listed again)",
        )
        return [r.uri for r in resources]

    async def load_prompts(self, client: Client, timeout: float) -> None:
        """List the server's prompts, every page, when its capabilities offer them.

        Raises:
            LiveError: a prompt has an empty name, the result is malformed, or an error answered it.
            LiveTimeout: a page got no answer within ``timeout`` seconds.
        """
        if client.server_capabilities.prompts is None:
            return
        prompts = await self._all(
            "prompts/list", lambda c: client.list_prompts(cursor=c, cache_mode="bypass"), "prompts", timeout
        )
        self.prompts = _by_name("prompts/list", prompts)

    async def _all(
        self,
        method: str,
        fetch: Callable[[str | None], Awaitable[Any]],
        key: str,
        timeout: float,
        *,
        said: str | None = None,
    ) -> list[Any]:
        """Every item of every page, until the server offers no more or a bound is reached (noted
        under ``said``, the method by default, with the page and item where the listing was cut)."""
        said = said or method
        items: list[Any] = []
        held = 0  # bytes of the items kept, each as compact JSON
        cursor: str | None = None
        for page in range(1, MAX_PAGES + 1):
            try:
                result = await bounded(method, f"page {page}", fetch(cursor), timeout)
            except MCPError as e:
                raise LiveError(
                    f"{method} answered with error {e.code}: {visible(e.error.message)}", method=method
                ) from e
            except ValidationError as e:
                raise LiveError(f"{method} answered a malformed result: {first_problem(e)}", method=method) from e
            for n, item in enumerate(getattr(result, key), start=1):
                if len(items) == MAX_LISTED_ITEMS:
                    self.notes.append(
                        f"{said}: cut at page {page}, item {n}: kept the first {MAX_LISTED_ITEMS} items, the lab's "
                        "bound per listing; the server offered more"
                    )
                    return items
                cost = len(item.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8"))
                if held + cost > MAX_LISTING_BYTES:
                    self.notes.append(
                        f"{said}: cut at page {page}, item {n}: kept {len(items)} items of {held:,} bytes, and this "
                        f"one ({cost:,} bytes) would pass the lab's bound of {MAX_LISTING_BYTES:,} bytes per listing; "
                        "the server offered more"
                    )
                    return items
                held += cost
                items.append(item)
            cursor = result.next_cursor
            if cursor is None:
                return items
            if page == MAX_PAGES:
                self.notes.append(
                    f"{said}: stopped after {MAX_PAGES} pages ({len(items)} items); the server offered more"
                )
        return items

    def match_template(self, uri: str) -> tuple[str, dict[str, Any]] | None:
        """The first listed template ``uri`` matches, with its parameters; ``None`` otherwise."""
        return match_template((t.uri_template for t in self.templates), uri)

    def described(self, uri: str) -> tuple[tuple[str, dict[str, Any]] | None, Any]:
        """How the listing describes ``uri``: ``(matched template or None, the listed resource or
        the template it matched, or None)``. A listed URI is never read as a template."""
        if uri in self.listed:
            return None, self.listed[uri]
        matched = self.match_template(uri)
        template = next((t for t in self.templates if matched and t.uri_template == matched[0]), None)
        return matched, template


_Named = TypeVar("_Named", mt.Tool, mt.Prompt)


def _by_name(method: str, items: list[_Named]) -> dict[str, _Named]:
    """A listing's tools or prompts by name; an empty name is the server's error (the item is named)."""
    for i, item in enumerate(items):
        if not item.name.strip():
            raise LiveError(f"{method} item {i} has an empty name ({visible(repr(item.name))})")
    return {item.name: item for item in items}
