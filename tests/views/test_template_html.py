"""The template reader's steps as HTML: each variable's role and risk, the caret, the preview, the read, escaped."""

from __future__ import annotations

import re

import pytest

from custody_lab.protocol.catalog import Catalog
from custody_lab.protocol.template_reading import (
    parse_error,
    preview,
    read_template,
    template_problem,
    template_variables,
)
from custody_lab.views.template_html import outcome_html, preview_html, problem_html, variables_html


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def _rows(page: str) -> list[list[str]]:
    body = page.split("<tbody>", 1)[1]
    return [
        [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]


def test_each_variable_is_a_row_with_its_role_whether_needed_and_how_it_is_used():
    rows = _rows(variables_html(template_variables("logs://{service}/{+path}{?level}{/seg*}")))
    got = [row[:4] for row in rows]
    expected = [
        ["service", "path", "required", "{service}"],
        ["path", "path", "required", "{+path}"],
        ["level", "query", "optional", "{?level}"],
        ["seg", "path", "required", "{/seg}"],
    ]
    assert got == expected, f"expected {expected}, got {got}"
    notes = {row[0]: row[4] for row in rows}
    assert "reserved expansion" in notes["path"] and "never fill it from untrusted input" in notes["path"], notes
    assert notes["seg"].startswith("exploded: type a comma-separated list"), notes
    assert notes["service"] == notes["level"] == "", f"a plain variable needs no warning, got {notes}"


def test_a_template_error_shows_the_reason_escaped_and_a_caret_under_the_character():
    page = problem_html(template_problem(parse_error("x://<b>{a}")))
    assert "<b>{a}" not in page and "x://&lt;b&gt;{a}\n    ^ position 4" in page, page
    assert "Nothing is read until the template is fixed" in page, page
    assert preview_html(preview("x://<b>{a}", {"a": "1"})) == page, "a preview of a bad template is its problem"


def test_a_preview_shows_the_expanded_uri_and_says_whether_it_can_be_read():
    ready = preview_html(preview("orders://{order_id}", {"order_id": "A-1002"}))
    assert "<code>orders://A-1002</code>" in ready and "✓ ready to read" in ready, ready
    assert "<code>order_id</code> = <code>&#x27;A-1002&#x27;</code>" in ready, ready
    empty = preview_html(preview("orders://{order_id}", {}))
    assert "undefined (skipped)" in empty and "✗ not ready" in empty and "order_id is required" in empty, empty


def test_a_read_record_shows_its_facts_and_its_text_under_the_untrusted_label(catalog):
    page = outcome_html(read_template(catalog, "orders://{order_id}", {"order_id": "A-1002"}))
    for fact in ("<code>orders://{order_id}</code>", "{&quot;order_id&quot;: &quot;A-1002&quot;}", "application/json"):
        assert fact in page, f"expected {fact!r} among the read's facts"
    assert "UNTRUSTED DATA" in page and "&quot;customerId&quot;: &quot;fixture-17&quot;" in page, page[-800:]


def test_a_missing_record_is_error_32602_naming_the_uri_never_an_empty_answer(catalog):
    page = outcome_html(read_template(catalog, "orders://{order_id}", {"order_id": "A-9999"}))
    assert "Error -32602 · Resource not found</b> for <code>orders://A-9999</code>" in page, page
    assert "no record has order_id=&#x27;A-9999&#x27;" in page and "never an empty answer" in page, page


def test_nothing_is_read_when_a_required_variable_is_empty(catalog):
    page = outcome_html(read_template(catalog, "orders://{order_id}", {}))
    assert page.startswith('<div class="custody-not-ready"') and "Nothing was read." in page, page


@pytest.mark.parametrize(
    ("uri", "shown", "not_shown"),
    [
        ("assets://logo.png", "An image (png, 105 bytes): drawn below as a picture.", "hex preview"),
        ("assets://brochure.pdf", "<b>hex preview</b>", "An image"),
    ],
)
def test_a_binary_read_is_drawn_when_it_is_an_image_and_shown_in_hex_otherwise(catalog, uri, shown, not_shown):
    page = outcome_html(read_template(catalog, uri, {}))
    assert shown in page and not_shown not in page, f"{uri}: expected {shown!r}, not {not_shown!r}"
    assert "<code>blob</code>" in page, f"{uri}: a binary read is carried as a blob"
