"""The top-level public paths (``from custody_lab.catalog import …``) hand out the very objects of
the modules that define them, and each answers one documented call as its docstring says.

``tests/test_public_api.py`` checks the paths against the design page and for type checkers; here
each path is imported by name, as a notebook imports it.
"""

from __future__ import annotations

import ast
import inspect
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

import custody_lab as cl
from custody_lab import (
    blobs,
    capstone,
    catalog,
    chart,
    hosts,
    link_or_embed,
    revisions,
    transforms,
    uri_templates,
    widgets,
)

PATHS = [blobs, capstone, catalog, chart, hosts, link_or_embed, revisions, transforms, uri_templates, widgets]


def sources(path: ModuleType) -> dict[str, str]:
    """Each name the path's own file imports, and the module it imports it from (``from .x import *``
    brings in that module's ``__all__``; the widgets' panels are imported under ``TYPE_CHECKING``)."""
    found: dict[str, str] = {}
    tree = ast.parse(Path(inspect.getfile(path)).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            source = f"custody_lab.{node.module}"
            for alias in node.names:
                names = import_module(source).__all__ if alias.name == "*" else [alias.name]
                found.update(dict.fromkeys(names, source))
    return found


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.__name__)
def test_every_name_a_path_promises_is_the_very_object_its_defining_module_holds(path):
    imported = sources(path)
    assert path.__all__, f"{path.__name__} promises no names"
    wrong = []
    for name in path.__all__:
        if name not in imported:
            wrong.append(f"{name}: not imported from any module by {path.__name__}")
            continue
        value = getattr(path, name)
        held = getattr(import_module(imported[name]), name)
        if value is not held:
            wrong.append(f"{name}: {path.__name__} gives {value!r}, {imported[name]} holds {held!r}")
        if inspect.isclass(value) or inspect.isfunction(value):
            defined = getattr(import_module(value.__module__), name, None)
            if defined is not value:
                wrong.append(f"{name}: not the object {value.__module__} defines ({defined!r})")
    assert not wrong, f"{path.__name__}:\n" + "\n".join(wrong)


def test_an_unknown_name_on_the_lazy_widgets_path_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="no attribute 'NoSuchPanel'"):
        widgets.NoSuchPanel  # noqa: B018


# --------------------------------------------------------------------------------------------
# One documented call through each path
# --------------------------------------------------------------------------------------------


def test_blobs_decodes_and_encodes_base64_as_documented():
    actual = (blobs.decode("TUNQ"), blobs.encode(b"MCP"), blobs.decoded_size("QUI="))
    assert actual == (b"MCP", "TUNQ", 2), f"decode('TUNQ'), encode(b'MCP'), decoded_size('QUI='): got {actual}"
    with pytest.raises(blobs.BlobError):
        blobs.decode("TUN")


def test_capstone_reviews_the_given_inventory_with_one_fix_and_one_reason():
    rows = capstone.review_design(
        cl.load_cases(capstone.GIVEN_INVENTORY),
        fixes={"export-notes": {"shape": "resource-link"}},
        reasons={"audit-log": "the log holds other learners' notes"},
    )
    table = {row["id"]: (row["as designed"], row["now"], row["status"]) for row in capstone.design_table(rows)}
    actual = (table["export-notes"], table["audit-log"], table["notes-index"])
    expected = (
        ("embed-over-budget", "resource-link", "fixed"),
        ("permission-denied", "permission-denied", "refused"),
        ("listed-resource", "listed-resource", "accepted"),
    )
    assert actual == expected, f"the notes server with export-notes fixed: expected {expected}, got {actual}"


def test_catalog_reads_a_template_and_refuses_a_missing_resource():
    outcome = catalog.read_template(catalog.Catalog.load(), "orders://{order_id}", {"order_id": "A-1002"})
    assert outcome.status == "read" and outcome.result is not None, f"orders://A-1002: got {outcome}"
    assert outcome.result.params == {"order_id": "A-1002"}, f"expected the matched params, got {outcome.result.params}"
    with pytest.raises(catalog.ResourceNotFound):
        catalog.Catalog.load().read("orders://A-9999")


def test_chart_advises_embedding_a_small_resource_and_linking_a_large_one():
    actual = (chart.region_advice("embedded-resource", 760), chart.region_advice("embedded-resource", 9000))
    expected = ("embedded-resource", "resource-link")
    assert actual == expected, f"region_advice at 760 and 9000 bytes: expected {expected}, got {actual}"


def test_link_or_embed_compares_the_two_shapes_over_a_session():
    c = link_or_embed.compare_shapes(18000, 5)
    actual = (c.shape, c.embed_total, c.link_total, c.break_even, link_or_embed.compare_shapes(300, 1).shape)
    expected = ("resource-link", 90505, 18610, 2, "embedded-resource")
    assert actual == expected, f"compare_shapes(18000, 5) and (300, 1): expected {expected}, got {actual}"


def test_revisions_classifies_a_versioned_and_a_moving_uri():
    actual = (revisions.classify("invoices://2026-09").revision, revisions.classify("status://service/current").kind)
    assert actual == ("2026-09", "moving"), f"expected ('2026-09', 'moving'), got {actual}"


def test_transforms_records_an_excerpt_and_where_the_rest_is():
    done = transforms.excerpt(transforms.Source("kb://n", "text/plain", b"one\ntwo\nthree\n"), 10)
    actual = (done.text, done.step.source_range.describe(), done.step.rest_uri, done.step.truncated)
    expected = ("one\ntwo\n", "bytes 1–8 of 14", "kb://n", True)
    assert actual == expected, f"a 10-byte excerpt of 14 bytes: expected {expected}, got {actual}"


def test_uri_templates_expands_and_matches_back():
    uri = uri_templates.expand("crm://customer/{id}", {"id": "fixture 17/eu"})
    actual = (uri, uri_templates.match("crm://customer/{id}", uri))
    expected = ("crm://customer/fixture%2017%2Feu", {"id": "fixture 17/eu"})
    assert actual == expected, f"expand then match 'fixture 17/eu': expected {expected}, got {actual}"


def test_widgets_case_explorer_flips_the_outcome_when_bytes_pass_the_limit():
    explorer = widgets.CaseExplorer("approve-draft", chart=False)
    before = explorer.decision.outcome
    after = explorer.set(bytes=9000).outcome
    assert (before, after) == ("embedded-resource", "embed-over-budget"), (
        f"approve-draft, bytes 760 → 9000: expected ('embedded-resource', 'embed-over-budget'), got {(before, after)}"
    )
