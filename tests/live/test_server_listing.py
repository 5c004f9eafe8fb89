"""What a server lists: every page (an empty cursor too) up to the page, item and byte bounds, malformed listings refused."""

from __future__ import annotations

from typing import Any

import mcp.types as mt
import pytest
from mcp.shared.exceptions import MCPError

from custody_lab.live import server_listing
from custody_lab.live.live_errors import LiveError
from custody_lab.live.server_listing import ServerListing, match_template

from ..timing import scaled


class PagedClient:
    """Stands in for ``mcp.Client``: serves ``pages`` of resources, each pointing at the next by cursor."""

    def __init__(self, pages: list[tuple[list[dict[str, Any]], str | None]], *, tools: list[dict] | None = None):
        self.pages = pages
        self.cursors: list[str | None] = []
        self.tool_list = tools
        caps: dict[str, Any] = {"resources": {}}
        if tools is not None:
            caps["tools"] = {}
        self.server_capabilities = mt.ServerCapabilities.model_validate(caps)

    async def list_resources(self, cursor: str | None = None, cache_mode: str = "use") -> mt.ListResourcesResult:
        self.cursors.append(cursor)
        items, after = self.pages[min(len(self.cursors), len(self.pages)) - 1]
        return mt.ListResourcesResult.model_validate({"resources": items, "nextCursor": after})

    async def list_resource_templates(self, cursor: str | None = None, cache_mode: str = "use") -> Any:
        return mt.ListResourceTemplatesResult.model_validate(
            {"resourceTemplates": [{"uriTemplate": "kb://{doc}", "name": "doc"}]}
        )

    async def list_tools(self, cursor: str | None = None, cache_mode: str = "use") -> mt.ListToolsResult:
        if self.tool_list is None:
            raise AssertionError("tools/list was sent to a server that offers no tools")
        return mt.ListToolsResult.model_validate({"tools": self.tool_list})


def resource(uri: str) -> dict[str, str]:
    return {"uri": uri, "name": uri.rsplit("/", 1)[-1]}


def test_the_first_template_a_uri_matches_wins_and_an_unreadable_template_matches_nothing():
    templates = ["x://{broken", "crm://customer/{id}", "crm://{path}"]
    got = match_template(templates, "crm://customer/fixture-17")
    assert got == ("crm://customer/{id}", {"id": "fixture-17"}), f"expected the first readable match, got {got}"
    assert match_template(templates, "kb://handbook") is None, match_template(templates, "kb://handbook")


def test_a_listed_uri_is_described_by_its_listing_never_as_a_template_instance():
    listing = ServerListing()
    listed = mt.Resource(uri="crm://customer/listed", name="listed")
    template = mt.ResourceTemplate(uri_template="crm://customer/{id}", name="customer")
    listing.listed[listed.uri] = listed
    listing.templates.append(template)
    assert listing.described("crm://customer/listed") == (None, listed), listing.described("crm://customer/listed")
    assert listing.described("crm://customer/9") == (("crm://customer/{id}", {"id": "9"}), template)
    assert listing.described("kb://other") == (None, None), listing.described("kb://other")


@pytest.mark.anyio
async def test_every_page_is_followed_and_an_empty_cursor_is_a_cursor_too():
    client = PagedClient([([resource("kb://a")], ""), ([resource("kb://b")], "next"), ([resource("kb://c")], None)])
    listing = ServerListing()
    await listing.load(client, scaled(5))  # type: ignore[arg-type]
    assert list(listing.listed) == ["kb://a", "kb://b", "kb://c"], f"expected three pages, got {list(listing.listed)}"
    assert client.cursors == [None, "", "next"], f"expected the cursors None, '', 'next'; sent {client.cursors}"
    assert [t.uri_template for t in listing.templates] == ["kb://{doc}"] and listing.tools == {}, listing.tools
    assert listing.notes == [], listing.notes


@pytest.mark.anyio
async def test_a_listing_longer_than_the_page_cap_is_cut_and_the_cut_noted(monkeypatch):
    monkeypatch.setattr(server_listing, "MAX_PAGES", 3)
    client = PagedClient([([resource("kb://again")], "more")])  # every page offers one more
    listing = ServerListing()
    await listing.load(client, scaled(5))  # type: ignore[arg-type]
    assert len(client.cursors) == 3, f"expected 3 pages asked for, got {len(client.cursors)}"
    expected = ["resources/list: stopped after 3 pages (3 items); the server offered more"]
    assert listing.notes == expected, f"expected {expected}, got {listing.notes}"


class EndlessClient(PagedClient):
    """Every page offers ``per_page`` new resources (each ``padding`` characters of description) and more."""

    def __init__(self, per_page: int, padding: int = 0) -> None:
        super().__init__([])
        self.per_page, self.padding, self.items_sent = per_page, padding, 0

    async def list_resources(self, cursor: str | None = None, cache_mode: str = "use") -> mt.ListResourcesResult:
        self.cursors.append(cursor)
        page = len(self.cursors)
        items = [
            {"uri": f"kb://{page}/{i}", "name": f"n{i}", "description": "d" * self.padding}
            for i in range(self.per_page)
        ]
        self.items_sent += len(items)
        return mt.ListResourcesResult.model_validate({"resources": items, "nextCursor": f"p{page + 1}"})


@pytest.mark.anyio
async def test_a_listing_is_cut_at_the_item_bound_and_the_note_names_the_page_and_item(monkeypatch):
    monkeypatch.setattr(server_listing, "MAX_LISTED_ITEMS", 7)
    client = EndlessClient(per_page=3)
    listing = ServerListing()
    await listing.load(client, scaled(5))  # type: ignore[arg-type]
    assert len(client.cursors) == 3, f"expected the listing to stop at page 3, it asked for {len(client.cursors)}"
    assert list(listing.listed) == [f"kb://{p}/{i}" for p in (1, 2) for i in range(3)] + ["kb://3/0"], listing.listed
    expected = [
        "resources/list: cut at page 3, item 2: kept the first 7 items, the lab's bound per listing; "
        "the server offered more"
    ]
    assert listing.notes == expected, f"expected {expected}, got {listing.notes}"


@pytest.mark.anyio
async def test_a_listing_that_ends_exactly_at_the_item_bound_is_not_called_cut(monkeypatch):
    monkeypatch.setattr(server_listing, "MAX_LISTED_ITEMS", 2)
    client = PagedClient([([resource("kb://a")], "more"), ([resource("kb://b")], None)])
    listing = ServerListing()
    await listing.load(client, scaled(5))  # type: ignore[arg-type]
    assert list(listing.listed) == ["kb://a", "kb://b"] and listing.notes == [], (listing.listed, listing.notes)


@pytest.mark.anyio
async def test_a_listing_is_cut_before_the_item_that_would_pass_the_byte_bound(monkeypatch):
    one = len(mt.Resource(uri="kb://1/0", name="n0", description="d" * 1000).model_dump_json(by_alias=True))
    monkeypatch.setattr(server_listing, "MAX_LISTING_BYTES", 5 * one + one // 2)  # room for five and a half
    client = EndlessClient(per_page=2, padding=1000)
    listing = ServerListing()
    await listing.load(client, scaled(5))  # type: ignore[arg-type]
    assert len(listing.listed) == 5 and len(client.cursors) == 3, (list(listing.listed), client.cursors)
    assert len(listing.notes) == 1, listing.notes
    note = listing.notes[0]
    assert note.startswith("resources/list: cut at page 3, item 2: kept 5 items of "), note
    assert "would pass the lab's bound of" in note and note.endswith("bytes per listing; the server offered more")


@pytest.mark.anyio
async def test_a_server_offering_page_after_page_costs_no_more_than_the_bounds():
    client = EndlessClient(per_page=5000)  # the server: pages of 5,000 new resources, without end
    listing = ServerListing()
    await listing.load(client, scaled(5))  # type: ignore[arg-type]
    assert len(listing.listed) == server_listing.MAX_LISTED_ITEMS == 1000, len(listing.listed)
    assert len(client.cursors) == 1, f"expected no page after the first, asked for {len(client.cursors)}"
    assert listing.notes == [
        "resources/list: cut at page 1, item 1001: kept the first 1000 items, the lab's bound per listing; "
        "the server offered more"
    ], listing.notes


@pytest.mark.anyio
async def test_listing_again_has_the_same_bounds_and_its_cut_is_noted_as_the_second_listing(monkeypatch):
    monkeypatch.setattr(server_listing, "MAX_LISTED_ITEMS", 4)
    client = EndlessClient(per_page=3)
    listing = ServerListing()
    uris = await listing.resource_uris(client, scaled(5))  # type: ignore[arg-type]
    assert uris == ["kb://1/0", "kb://1/1", "kb://1/2", "kb://2/0"], uris
    assert listing.notes == [
        "resources/list (listed again): cut at page 2, item 2: kept the first 4 items, the lab's bound per "
        "listing; the server offered more"
    ], listing.notes
    assert listing.listed == {}, "listing again does not change the listing"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("client", "message"),
    [
        (PagedClient([([{"uri": " ", "name": "blank"}], None)]), "resources/list item 0 ('blank') has an empty URI"),
        (PagedClient([([{"uri": "kb://x", "name": "x", "size": -1}], None)]), "resources/list item 0 ('kb://x')"),
        (
            PagedClient([([], None)], tools=[{"name": "", "inputSchema": {"type": "object"}}]),
            "tools/list item 0 has an empty name",
        ),
    ],
    ids=["empty-uri", "negative-size", "empty-tool-name"],
)
async def test_a_malformed_listing_is_refused_naming_the_item(client, message):
    with pytest.raises(LiveError) as err:
        await ServerListing().load(client, scaled(5))
    assert message in str(err.value), f"expected {message!r} in {str(err.value)!r}"


@pytest.mark.anyio
async def test_an_error_answer_to_a_listing_is_a_live_error_naming_the_method_and_code():
    class Failing(PagedClient):
        async def list_resources(self, cursor=None, cache_mode="use"):
            raise MCPError(-32603, "listing\x1b[2J broke")

    with pytest.raises(LiveError) as err:
        await ServerListing().load(Failing([]), scaled(5))  # type: ignore[arg-type]
    said = str(err.value)
    assert said.startswith("resources/list answered with error -32603: listing") and "\x1b" not in said, said
    assert err.value.method == "resources/list", err.value.method
