"""Notebook 03's tables (custody_lab.protocol.template_examples): the operator examples, what a
listing costs beside one template, and the lab's engine beside another one."""

from __future__ import annotations

import json

import pytest

from custody_lab.protocol.catalog import Catalog
from custody_lab.protocol.template_examples import (
    EXAMPLE_VALUES,
    TRICKY_CASES,
    compare_engines,
    describe_error,
    listing_cost,
    operator_examples,
)
from custody_lab.protocol.template_reading import parse_error


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


OPERATOR_TABLE = {
    "orders://{order_id}": "orders://A-1002",
    "kb://{name}": "kb://returns%20policy%2Fv2",
    "kb://{+name}": "kb://returns%20policy/v2",
    "kb://handbook/v4{#name}": "kb://handbook/v4#returns%20policy/v2",
    "files://report{.day}": "files://report.2026-09-04",
    "files://docs{/segments}": "files://docs/guides,returns",
    "files://docs{/segments*}": "files://docs/guides/returns",
    "logs://api{;day,level,empty}": "logs://api;day=2026-09-04;empty",
    "logs://api/2026-09-04{?level,limit}": "logs://api/2026-09-04?limit=50",
    "logs://api/2026-09-04{?empty}": "logs://api/2026-09-04?empty=",
    "logs://api/2026-09-04?page=2{&limit}": "logs://api/2026-09-04?page=2&limit=50",
    "orders://{order_id:1}": "orders://A",
    "search://orders{?filter*}": "search://orders?status=shipped&tier=plus",
    "search://orders{?filter}": "search://orders?filter=status,shipped,tier,plus",
}


def test_the_operator_table_says_what_the_notebook_claims():
    rows = operator_examples()
    assert rows, "no examples"
    actual = {row["template"]: row["expands to"] for row in rows}
    assert actual == OPERATOR_TABLE
    operators = {row["operator"].strip("{}").rstrip("*").replace("var", "").replace(":n", "") for row in rows}
    assert operators == {"", "+", "#", ".", "/", ";", "?", "&"}, f"every operator appears: {operators}"
    assert EXAMPLE_VALUES["level"] is None and EXAMPLE_VALUES["empty"] == ""


def test_listing_a_million_orders_costs_megabytes_against_one_template_entry(catalog):
    cost = listing_cost(catalog.template("orders://{order_id}"), {"order_id": "A-1002"})
    assert cost.item == {"uri": "orders://A-1002", "name": "order A-1002", "mimeType": "application/json"}
    assert cost.item_bytes == len(json.dumps(cost.item, separators=(",", ":")))
    assert cost.listing_bytes == 1_000_000 * cost.item_bytes > 50_000_000
    assert cost.template_bytes < 500 and cost.ratio > 100_000


class _FakeEngine:
    """Stands in for another engine: refuses every template whose text holds 'bad'."""

    def __init__(self, template: str) -> None:
        if "bad" in template:
            raise ValueError(f"I refuse {template!r}")
        self.template = template

    def expand(self, values):
        raise TypeError("values must be strings")

    def match(self, uri):
        return {"seen": uri}


def test_compare_engines_turns_exceptions_into_cells():
    rows = compare_engines(
        [("x://{a}", {"a": 1}, "x://1"), ("x://{bad}", {"bad": "v"}, "x://v")], _FakeEngine, other_name="fake"
    )
    assert len(rows) == 2
    assert rows[0]["lab: expand"] == "'x://1'" and rows[0]["fake: expand"].startswith("raises TypeError")
    assert rows[0]["fake: match"] == "{'seen': 'x://1'}"
    assert rows[1]["fake: expand"] == rows[1]["fake: match"] == "raises ValueError: I refuse 'x://{bad}'"
    assert set(rows[0]) == {"template", "values", "lab: expand", "fake: expand", "uri", "lab: match", "fake: match"}


def test_describe_error_is_short_and_names_the_position():
    text = describe_error(parse_error("kb://my docs/{id}"), limit=60)
    assert text.startswith("raises UriTemplateError at 7: character ' '") and len(text) == 60, text


# What notebook 03 says about the MCP SDK, row by row (it runs the SDK installed in the venv).
SDK_CLAIMS = {
    "orders://{order_id}": ("'orders://A%2F1'", "'orders://A%2F1'", "{'order_id': 'A/1'}", "{'order_id': 'A/1'}"),
    "files://{name}{.ext}": (
        "'files://report.tar.gz'",
        "'files://report.tar.gz'",
        "raises AmbiguousTemplateError",
        "{'ext': 'gz', 'name': 'report.tar'}",
    ),
    "logs://{service}{?level}": (
        "'logs://api?level=error'",
        "'logs://api?level=error'",
        "None",
        "{'service': 'api', 'level': 'error'}",
    ),
    "docs://{+path}": ("'docs://a/b?x=1'", "'docs://a/b?x=1'", "{'path': 'a/b?x=1'}", "None"),
    "orders://{order_id:4}": (
        "'orders://A-10'",
        "raises InvalidUriTemplate at 9: Prefix",
        "{'order_id': 'A-10'}",
        "raises InvalidUriTemplate at 9: Prefix",
    ),
    "search://{?tags*}": (
        "'search://?tags=red&tags=blue'",
        "raises InvalidUriTemplate at 9: Explode",
        "{'tags': ['red', 'blue']}",
        "raises InvalidUriTemplate at 9: Explode",
    ),
    "kb://my docs/{id}": (
        "raises UriTemplateError at 7",
        "'kb://my docs/a'",
        "raises UriTemplateError at 7",
        "{'id': 'a'}",
    ),
    "orders://{order-id}": (
        "raises UriTemplateError at 15",
        "raises InvalidUriTemplate at 9",
        "raises UriTemplateError at 15",
        "raises InvalidUriTemplate at 9",
    ),
}


def test_the_lab_and_the_mcp_sdk_differ_exactly_as_notebook_03_says():
    from mcp.shared import uri_template as sdk  # a hard dependency: missing, the test fails

    rows = compare_engines(TRICKY_CASES, sdk.UriTemplate.parse)
    assert [row["template"] for row in rows] == list(SDK_CLAIMS), "TRICKY_CASES and the claims drifted"
    for row in rows:
        expected = SDK_CLAIMS[row["template"]]
        actual = (row["lab: expand"], row["SDK: expand"], row["lab: match"], row["SDK: match"])
        for want, got in zip(expected, actual):
            assert got.startswith(want), f"{row['template']}: expected a cell starting {want!r}, got {got!r}"
