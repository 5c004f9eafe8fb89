"""The sample catalog as people see it: every server-written field escaped under the untrusted label."""

from __future__ import annotations

import pytest

from custody_lab.protocol.catalog import Catalog, ResourceEntry, TemplateEntry
from custody_lab.protocol.determinism import CountingCatalog, check_deterministic
from custody_lab.views.catalog_html import (
    RESOURCE_COLUMNS,
    TEMPLATE_COLUMNS,
    determinism_html,
    entry_html,
    resources_table,
    templates_table,
    untrusted_text_html,
)

HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.mark.parametrize(
    ("entry", "address"),
    [
        (ResourceEntry("x://1", HOSTILE, title=HOSTILE, description=HOSTILE, mime_type="text/plain"), "x://1"),
        (TemplateEntry("x://{id}", HOSTILE, title=HOSTILE, description=HOSTILE), "x://{id}"),
    ],
    ids=["resource", "template"],
)
def test_every_field_of_an_entry_is_escaped_under_the_untrusted_label(entry, address):
    page = entry_html(entry)
    assert "<img" not in page, f"{address}: the server's markup reached the page: {page}"
    assert page.count("&lt;img src=x onerror=") == 3, f"{address}: expected name, title and description escaped"
    assert "UNTRUSTED DATA" in page and address in page, page
    assert ("uri" if isinstance(entry, ResourceEntry) else "uriTemplate") in page, page


def test_resource_text_is_escaped_and_a_long_one_says_how_much_was_left_out():
    page = untrusted_text_html("<script>alert(1)</script>", "tickets://T-501")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page, page
    assert "tickets://T-501" in page and "UNTRUSTED DATA" in page, page
    long = untrusted_text_html("a" * 4100 + "TAIL", "kb://long", limit=4000)
    assert "… 104 more characters not shown" in long and "TAIL" not in long, long[-300:]
    assert "more characters" not in untrusted_text_html("a" * 4000, "kb://exact", limit=4000)


def test_the_determinism_verdict_says_whether_two_reads_agreed_with_each_digest(catalog):
    good = determinism_html(check_deterministic(catalog.read, "kb://shipping"))
    bad_report = check_deterministic(CountingCatalog.load().read, "kb://shipping")
    bad = determinism_html(bad_report)
    assert "✓ DETERMINISTIC" in good and "NOT DETERMINISTIC" not in good, good
    assert "✗ NOT DETERMINISTIC" in bad, bad
    for n, digest in enumerate(bad_report.digests, 1):
        assert f"read {n}" in bad and digest[:16] + "…" in bad, f"read {n}'s digest {digest[:16]} is not shown"


def test_the_resources_table_lists_every_resource_with_its_kind(catalog):
    table = resources_table(catalog)
    assert tuple(table.columns) == RESOURCE_COLUMNS, list(table.columns)
    assert table["uri"] == [e.uri for e in catalog.resources], table["uri"]
    kinds = dict(zip(table["uri"], table["kind"]))
    want = {"kb://shipping": "text", "assets://logo.png": "image", "assets://brochure.pdf": "data"}
    assert {u: kinds[u] for u in want} == want, kinds


def test_the_templates_table_lists_each_templates_variables_in_order(catalog):
    table = templates_table(catalog)
    assert tuple(table.columns) == TEMPLATE_COLUMNS, list(table.columns)
    got = dict(zip(table["uriTemplate"], table["variables"]))
    assert got["orders://{order_id}"] == "order_id", got
    assert got["logs://{service}/{day}{?level}"] == "service, day, level", got


def test_the_tables_escape_server_text_when_shown_as_html(catalog):
    hostile = Catalog(resources=(ResourceEntry("x://1", "n", title=HOSTILE, mime_type="text/plain"),), templates=())
    page = resources_table(hostile).to_html()
    assert "<img" not in page and "&lt;img" in page, page
