"""Link vs embed: bytes in context over N calls, the advisor's pick, the same-URI invariant (the views: tests/views)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from custody_lab.blobs import overhead
from custody_lab.core.advisor import advise, size_reuse_table
from custody_lab.core.errors import CaseError, PolicyError
from custody_lab.core.model import Policy
from custody_lab.core.receipts import canonical_json
from custody_lab.protocol.catalog import Catalog
from custody_lab.protocol.link_or_embed import (
    DEFAULT_URI,
    compare_shapes,
    embedded_resource_block,
    resource_link_block,
    same_uri_invariant,
)
from custody_lab.views.context_costs import uri_check_html


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


# --------------------------------------------------------------------------------------------
# The cost model
# --------------------------------------------------------------------------------------------


def test_the_seed_report_costs_five_embeds_or_one_fetch_and_five_links():
    costs = compare_shapes(18000, 5)
    link = len(canonical_json(resource_link_block(DEFAULT_URI, "weekly-report-7", "text/html")))
    assert costs.link_block_bytes == link
    assert costs.embed_total == 5 * costs.embed_block_bytes
    assert costs.link_total == 5 * link + costs.fetch_bytes
    assert costs.embed_block_bytes > 18000 and costs.fetch_bytes > 18000
    assert costs.shape == "resource-link" and costs.embed_over_budget
    assert costs.break_even == 2 and costs.saved > 70000, costs.summary()


def test_an_embed_block_is_exactly_the_json_of_the_block():
    costs = compare_shapes(36, 1, uri="kb://shipping", name="shipping", mime_type="text/plain")
    block = {"type": "resource", "resource": {"uri": "kb://shipping", "mimeType": "text/plain", "text": "x" * 36}}
    assert costs.embed_block_bytes == len(canonical_json(block))


def test_a_binary_payload_travels_as_base64():
    text, binary = compare_shapes(105, 1), compare_shapes(105, 1, binary=True)
    assert binary.embed_block_bytes - text.embed_block_bytes == overhead(105) - 105 == 35
    assert "140 base64 characters" in binary.summary()


def test_small_content_used_once_is_cheaper_embedded_and_the_advisor_embeds_it():
    costs = compare_shapes(300, 1)
    assert costs.shape == "embedded-resource"
    assert costs.saved < 0 and costs.break_even is None and not costs.embed_over_budget
    assert "embedding is" in costs.summary()


@pytest.mark.parametrize(
    ("size", "reuse", "shape"),
    [
        (512, 1, "embedded-resource"),
        (512, 5, "resource-link"),
        (18000, 1, "resource-link"),
        (18000, 5, "resource-link"),
    ],
)
def test_the_calculator_agrees_with_seed_001s_table(size, reuse, shape):
    assert compare_shapes(size, reuse).shape == shape
    row = next(
        r for r in size_reuse_table(small=512, large=18000, high_reuse=5) if r["bytes"] == size and r["times"] == reuse
    )
    assert row["shape"] == shape, row


def test_the_budget_moves_the_advice():
    assert compare_shapes(5000, 1, budget=4096).shape == "resource-link"
    assert compare_shapes(5000, 1, budget=8192).shape == "embedded-resource"
    assert compare_shapes(5000, 1, budget=8192).advice == advise(
        "model", "generate", payload_bytes=5000, reuse=1, policy=Policy(embed_limit_bytes=8192)
    )


@given(size=st.integers(0, 200_000), reuse=st.integers(1, 50), binary=st.booleans())
def test_cumulative_bytes_grow_with_every_call_and_linking_wins_once_reused(size, reuse, binary):
    costs = compare_shapes(size, reuse, binary=binary)
    for series in (costs.embed_cumulative, costs.link_cumulative):
        assert len(series) == reuse
        assert all(b > a for a, b in zip(series, series[1:])), series
    assert costs.link_cumulative[0] > costs.embed_cumulative[0], "one use: the link costs more"
    cheaper = [
        i for i, (embed, link) in enumerate(zip(costs.embed_cumulative, costs.link_cumulative), 1) if link < embed
    ]
    assert costs.break_even == (cheaper[0] if cheaper else None)
    if reuse >= 2 and size >= 200:
        assert costs.break_even == 2, "content of 200+ bytes reused twice: the link wins at call 2"
    assert len(costs.rows()) == reuse


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"payload_bytes": -1, "reuse": 1}, CaseError),
        ({"payload_bytes": 10, "reuse": 0}, CaseError),
        ({"payload_bytes": 10, "reuse": 1, "budget": -5}, PolicyError),
        ({"payload_bytes": 10, "reuse": 1, "binary": "yes"}, CaseError),
    ],
)
def test_bad_inputs_are_refused_with_a_value_error(kwargs, error):
    with pytest.raises(error):
        compare_shapes(**kwargs)
    assert issubclass(error, ValueError)


# --------------------------------------------------------------------------------------------
# The same-URI invariant (seed 001)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "uri",
    [
        "report://synthetic/weekly-7",
        "kb://shipping",
        "assets://logo.png",
        "orders://A-1002",
        "crm://customer/fixture-17",
    ],
)
def test_a_link_to_a_registered_uri_keeps_the_invariant(catalog, uri):
    check = same_uri_invariant(resource_link_block(uri, "x"), catalog)
    assert check.ok and check.problems == (), check.message
    assert check.block_type == "resource_link" and check.uri == uri
    assert "✓" in str(check) and "SAME URI" in uri_check_html(check)


@pytest.mark.parametrize(
    ("uri", "name", "suggestion"),
    [
        ("report://weekly-7", "weekly-report-7", "report://synthetic/weekly-7"),  # named as the report
        ("report://synthetic/weekly-7?download=1", "x", "report://synthetic/weekly-7"),
        ("report://synthetic/weekly-7#top", "x", "report://synthetic/weekly-7"),
        ("kb://shipping/", "x", "kb://shipping"),
        ("kb://Shipping", "x", "kb://shipping"),
    ],
)
def test_a_registered_resource_under_another_uri_is_flagged_with_its_registered_uri(catalog, uri, name, suggestion):
    check = same_uri_invariant(resource_link_block(uri, name), catalog)
    assert not check.ok and check.verdict == "registered-under-another-uri", check
    assert "not the URI this resource is registered under" in check.message
    assert check.suggestion == suggestion, check.suggestion
    assert "ANOTHER URI" in uri_check_html(check) and suggestion in uri_check_html(check)


@pytest.mark.parametrize(
    ("uri", "name", "mime"),
    [
        ("export://weekly-7/2026-09-04.csv", "weekly-7-export", "text/csv"),  # link-02's valid export
        ("report://weekly-7", "x", None),  # looks like the report, but nothing says it is
        ("orders://A-9999", "order-A-9999", None),
        ("report://weekly-7", "weekly-report-7", "text/csv"),  # the report's name, another MIME type
    ],
)
def test_a_link_to_a_resource_never_registered_is_valid_and_gets_no_suggestion(catalog, uri, name, mime):
    # MCP (tools, "Resource Links", 2025-06-18 and later): a linked resource need not be listed. The
    # check must not suggest relabelling it with a registered URI (the fix link-02 penalises).
    check = same_uri_invariant(resource_link_block(uri, name, mime), catalog)
    assert not check.ok and check.verdict == "unlisted" and check.suggestion is None, check
    assert "valid" in check.message and "did you mean" not in check.message, check.message
    page = uri_check_html(check)
    assert "VALID UNDER MCP" in page and "report://synthetic/weekly-7" not in page, page


def test_link_02s_two_links_get_the_verdicts_link_02_teaches(catalog):
    from custody_lab.exercises import input_for, reveal

    first, export = (same_uri_invariant(block, catalog) for block in input_for("link-02"))
    assert (first.verdict, first.suggestion) == ("registered-under-another-uri", reveal("link-02")), first
    assert (export.verdict, export.suggestion) == ("unlisted", None), export


def test_an_embed_of_a_catalog_read_keeps_the_invariant(catalog):
    block = embedded_resource_block(catalog.read("kb://shipping"))
    check = same_uri_invariant(block, catalog)
    assert check.ok and check.block_type == "resource" and check.warnings == ()


def test_an_embed_with_stale_content_keeps_the_invariant_but_warns(catalog):
    block = {"type": "resource", "resource": {"uri": "kb://shipping", "mimeType": "text/plain", "text": "an old copy"}}
    check = same_uri_invariant(block, catalog)
    assert check.ok and any("differs" in w for w in check.warnings), check.warnings


def test_a_different_mime_type_is_a_warning(catalog):
    check = same_uri_invariant(resource_link_block("kb://shipping", "s", "text/html"), catalog)
    assert check.ok and any("mimeType" in w for w in check.warnings)


@pytest.mark.parametrize(
    "block",
    [
        None,
        5,
        "kb://shipping",
        {},
        {"type": "text", "text": "hi"},
        {"type": "resource_link"},
        {"type": "resource_link", "uri": ""},
        {"type": "resource"},
        {"type": "resource", "resource": "x"},
    ],
)
def test_a_malformed_block_is_reported_not_raised(catalog, block):
    check = same_uri_invariant(block, catalog)
    assert not check.ok and check.problems and check.verdict == "malformed", check
