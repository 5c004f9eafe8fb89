"""The sample server catalog: listing by kind, reads, templates, -32602, determinism, hostile text."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from custody_lab.blobs import decode
from custody_lab.core.errors import CustodyLabError
from custody_lab.protocol.catalog import (
    Catalog,
    CatalogError,
    ReadResult,
    ResourceEntry,
    ResourceNotFound,
    TemplateEntry,
    kind_of_mime,
    transport_of,
)
from custody_lab.protocol.determinism import CountingCatalog, check_deterministic
from custody_lab.views.catalog_html import (
    determinism_html,
    entry_html,
    resources_table,
    templates_table,
    untrusted_text_html,
)

DATA = Path(__file__).resolve().parents[2] / "data"
LISTED = [
    "kb://returns-policy",
    "kb://shipping",
    "kb://handbook/v4",
    "assets://logo.png",
    "db://shop/schema",
    "logs://api/today",
    "status://service/current",
]
TEMPLATES = ["orders://{order_id}", "crm://customer/{id}", "logs://{service}/{day}{?level}"]
HOSTILE_URI = "tickets://T-501"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def all_listed(catalog: Catalog) -> list[str]:
    uris = [e.uri for e in catalog.resources]
    assert uris, "the catalog lists no resources"
    return uris


# --------------------------------------------------------------------------------------------
# Listing
# --------------------------------------------------------------------------------------------


def test_the_catalog_lists_the_seed_resources_and_templates(catalog):
    uris = [e.uri for e in catalog.resources]
    for uri in LISTED + [HOSTILE_URI]:
        assert uri in uris, f"{uri} missing from {uris}"
    templates = [t.uri_template for t in catalog.templates]
    assert templates == TEMPLATES, templates


def test_every_entry_has_uri_name_title_description_and_mime_type(catalog):
    entries = list(catalog.resources) + list(catalog.templates)
    assert entries
    for entry in entries:
        d = entry.to_dict()
        for key in ("name", "title", "description", "mimeType"):
            assert d.get(key), f"{d} lacks {key}"
        assert d.get("uri") or d.get("uriTemplate"), d


@pytest.mark.parametrize(
    ("mime", "kind"),
    [
        ("text/plain", "text"),
        ("text/markdown", "text"),
        ("TEXT/HTML; charset=utf-8", "text"),
        ("image/png", "image"),
        ("image/svg+xml", "image"),
        ("application/json", "data"),
        ("application/sql", "data"),
        ("application/pdf", "data"),
        (None, "data"),
        ("", "data"),
    ],
)
def test_kind_follows_the_mime_type_as_in_seed_004(mime, kind):
    assert kind_of_mime(mime) == kind, f"{mime!r}: expected {kind}, got {kind_of_mime(mime)}"


def test_the_table_lists_resources_by_kind(catalog):
    table = resources_table(catalog)
    assert list(table.columns) == ["uri", "name", "title", "kind", "mimeType"]
    assert len(table) == len(catalog.resources) > 0
    kinds = dict(zip(table["uri"], table["kind"]))
    assert kinds["kb://shipping"] == "text"
    assert kinds["assets://logo.png"] == "image"
    assert kinds["db://shop/schema"] == "data"
    assert set(table["kind"]) == {"text", "image", "data"}


def test_the_table_escapes_a_hostile_title_when_rendered_as_html(catalog):
    page = resources_table(catalog).to_html()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_templates_table_names_the_variables(catalog):
    table = templates_table(catalog)
    assert list(table["variables"]) == ["order_id", "id", "service, day, level"]


def test_list_results_have_the_mcp_shapes(catalog):
    listed = catalog.list_resources()["resources"]
    assert listed and all("uri" in r and "name" in r for r in listed)
    templates = catalog.list_templates()["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == TEMPLATES


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "transport", "size"),
    [
        ("kb://shipping", "text", None),
        ("kb://handbook/v4", "text", 1800),
        ("assets://logo.png", "blob", 105),
        ("assets://brochure.pdf", "blob", None),
        ("status://service/current", "text", 580),
        ("report://synthetic/weekly-7", "text", 18000),
        ("crm://customer/fixture-17", "text", 920),
    ],
)
def test_a_read_returns_mcp_contents_with_text_or_blob(catalog, uri, transport, size):
    result = catalog.read(uri)
    assert isinstance(result, ReadResult)
    assert len(result.contents) == 1
    item = result.item
    assert item["uri"] == uri and item["mimeType"] == result.mime_type
    assert ("text" in item) != ("blob" in item), item.keys()
    assert result.transport == transport, f"{uri}: expected {transport}, got {result.transport}"
    if size is not None:
        assert result.size == size, f"{uri}: expected {size} bytes, got {result.size}"
    assert result.to_dict() == {"contents": [item]}


def test_sizes_match_the_seed_cases_that_name_the_same_uri(catalog, fixture):
    matched = [c for c in fixture.cases if catalog.resolve(c.uri) is not None]
    assert len(matched) >= 4, [c.id for c in matched]
    for case in matched:
        assert catalog.read(case.uri).size == case.bytes, case.id
        assert catalog.read(case.uri).mime_type == case.mime, case.id


def test_the_logo_blob_is_the_course_blob(catalog):
    item = catalog.read("assets://logo.png").item
    assert len(item["blob"]) == 140 and decode(item["blob"]) == (DATA / "resources/logo.png").read_bytes()


@pytest.mark.parametrize("uri", LISTED + ["assets://brochure.pdf", HOSTILE_URI])
def test_every_listed_resource_matches_its_declared_type(catalog, uri):
    reading = catalog.read(uri).reading()
    assert not reading.mime_mismatch, f"{uri}: {reading.mismatch_reason}"


def test_digest_is_the_sha256_of_the_content_bytes(catalog):
    import hashlib

    for uri in all_listed(catalog):
        result = catalog.read(uri)
        assert result.sha256 == hashlib.sha256(result.data).hexdigest() == result.reading().sha256


@pytest.mark.parametrize(
    ("uri", "params"),
    [
        ("orders://A-1001", {"order_id": "A-1001"}),
        ("crm://customer/fixture-17", {"id": "fixture-17"}),
        ("logs://api/2026-09-04", {"service": "api", "day": "2026-09-04"}),
        ("logs://billing/2026-09-04?level=warn", {"service": "billing", "day": "2026-09-04", "level": "warn"}),
    ],
)
def test_a_templated_read_records_the_template_and_its_parameters(catalog, uri, params):
    result = catalog.read(uri)
    assert result.template is not None and result.entry is None
    assert result.params == params, f"{uri}: expected {params}, got {result.params}"


def test_an_order_record_reads_as_json_text(catalog):
    result = catalog.read("orders://A-1002")
    assert result.transport == "text" and result.mime_type == "application/json"
    assert json.loads(result.text)["id"] == "A-1002"


def test_a_log_read_says_which_day_and_level_it_covers(catalog):
    text = catalog.read("logs://api/2026-09-04?level=error").text
    header, *lines = text.splitlines()
    assert "2026-09-04T00:00:00Z to 2026-09-04T23:59:59Z" in header and "level error" in header
    assert lines and all(" ERROR " in line for line in lines), lines


def test_logs_today_is_the_dated_log_of_the_servers_today(catalog):
    today = catalog.read("logs://api/today")
    dated = catalog.read(f"logs://api/{catalog.server['today']}")
    assert today.item["uri"] == "logs://api/today" and today.entry is not None
    assert today.text.splitlines()[1:] == dated.text.splitlines()[1:]
    assert catalog.server["today"] in today.text.splitlines()[0]


def test_listed_uris_win_over_templates_that_also_match(catalog):
    result = catalog.read("logs://api/today")
    assert result.entry is not None and result.entry.uri == "logs://api/today"


def test_expand_fills_in_a_template(catalog):
    assert catalog.expand("orders://{order_id}", {"order_id": "A-1002"}) == "orders://A-1002"
    uri = catalog.expand("logs://{service}/{day}{?level}", {"service": "api", "day": "2026-09-04", "level": "error"})
    assert uri == "logs://api/2026-09-04?level=error"
    assert catalog.read(uri).params["level"] == "error"


def test_an_expanded_value_cannot_escape_its_segment(catalog):
    uri = catalog.expand("orders://{order_id}", {"order_id": "../A-1001"})
    assert uri == "orders://..%2FA-1001"
    with pytest.raises(ResourceNotFound):
        catalog.read(uri)


# --------------------------------------------------------------------------------------------
# Not found: -32602
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "uri",
    [
        "orders://A-9999",
        "tickets://T-999",
        "crm://customer/",
        "crm://customer/nobody",
        "logs://api/2026-01-01",
        "logs://api/2026-09-04?level=fatal",
        "kb://shipping/",
        "",
        42,
        None,
    ],
)
def test_a_missing_resource_answers_minus_32602(catalog, uri):
    with pytest.raises(ResourceNotFound) as info:
        catalog.read(uri)
    error = info.value
    assert error.code == -32602 and error.uri == uri
    assert error.to_error() == {"code": -32602, "message": "Resource not found", "data": {"uri": uri}}
    assert isinstance(error, CustodyLabError) and isinstance(error, LookupError)


def test_a_missing_record_says_which_template_matched(catalog):
    with pytest.raises(ResourceNotFound, match=r"orders://\{order_id\} matches.*A-9999"):
        catalog.read("orders://A-9999")


# --------------------------------------------------------------------------------------------
# Deterministic reads, and a bad read caught by digest
# --------------------------------------------------------------------------------------------


def test_every_listed_resource_reads_deterministically(catalog):
    for uri in all_listed(catalog):
        report = check_deterministic(catalog.read, uri, times=3)
        assert report.deterministic, f"{uri}: {report.message}"
        assert len(set(report.digests)) == 1 and report.first_difference is None


def test_counting_reads_outside_the_data_is_fine(catalog):
    before = catalog.reads["kb://shipping"]
    first, second = catalog.read("kb://shipping"), catalog.read("kb://shipping")
    assert catalog.reads["kb://shipping"] == before + 2
    assert first.data == second.data and first.sha256 == second.sha256


def test_a_read_that_changes_state_is_caught_by_digest():
    bad = CountingCatalog.load()
    report = check_deterministic(bad.read, "kb://shipping")
    assert not report.deterministic, report.message
    assert report.digests[0] != report.digests[1]
    assert report.first_difference is not None
    assert bad.read("kb://shipping").text.endswith("(viewed 3 times)\n")
    assert "NOT DETERMINISTIC" in determinism_html(report)


def test_the_determinism_verdict_says_it_in_words_and_escapes_the_uri(catalog):
    hostile = "kb://<img src=x onerror=alert(1)>"
    report = check_deterministic(lambda _uri: catalog.read("kb://shipping"), hostile)
    page = determinism_html(report)
    assert report.deterministic and "✓ DETERMINISTIC" in page and "NOT DETERMINISTIC" not in page, page
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page, page


def test_check_deterministic_needs_two_reads(catalog):
    with pytest.raises(CatalogError, match="times"):
        check_deterministic(catalog.read, "kb://shipping", times=1)


# --------------------------------------------------------------------------------------------
# Hostile text is data
# --------------------------------------------------------------------------------------------


def test_the_hostile_entry_is_shown_escaped_under_an_untrusted_label(catalog):
    entry = catalog.entry(HOSTILE_URI)
    assert entry is not None and "<img" in (entry.title or "") and "ignore" in (entry.description or "").lower()
    page = entry_html(entry)
    assert "UNTRUSTED DATA" in page
    assert "<img" not in page and "<script>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;script&gt;" in page
    # the protocol entry is data and builds no HTML: only the views layer shows it
    assert not hasattr(entry, "_repr_html_"), "ResourceEntry must not render itself (views/catalog_html does)"


def test_hostile_resource_text_is_shown_escaped_under_an_untrusted_label(catalog):
    text = catalog.read(HOSTILE_URI).text
    assert text is not None and "<script>" in text
    page = untrusted_text_html(text, HOSTILE_URI)
    assert "UNTRUSTED DATA" in page and "<script>" not in page and "&lt;script&gt;" in page


def test_a_hostile_description_changes_nothing_the_catalog_does(catalog):
    entry = catalog.entry(HOSTILE_URI)
    assert catalog.kind_of(entry) == "text"
    assert catalog.read(HOSTILE_URI).mime_type == "text/plain"
    with pytest.raises(ResourceNotFound):
        catalog.read("orders://A-9999")  # "refund every order" is just text


def test_long_untrusted_text_is_cut_and_says_so():
    page = untrusted_text_html("x" * 5000, "a://b", limit=100)
    assert "4,900 more characters not shown" in page


# --------------------------------------------------------------------------------------------
# Loading errors and purity
# --------------------------------------------------------------------------------------------


def _copy_catalog(tmp_path: Path, mutate) -> Path:
    shutil.copytree(DATA / "resources", tmp_path / "resources")
    shutil.copytree(DATA / "records", tmp_path / "records")
    raw = json.loads((DATA / "catalog.json").read_text())
    mutate(raw)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda raw: raw["resources"].append(dict(raw["resources"][0])), "listed twice"),
        (lambda raw: raw["resources"][0].update(file="resources/nope.txt"), "missing"),
        (lambda raw: raw["resources"][0].pop("name"), "'name'"),
        (lambda raw: raw["resources"][0].update(alias="x://y"), "exactly one of 'file' or 'alias'"),
        (lambda raw: raw["templates"][0].update(uriTemplate="orders://{order_id"), "invalid uriTemplate"),
        (lambda raw: raw["templates"][0].update(keys=["nope"]), "'keys'"),
        (lambda raw: raw["templates"][0].update(reader="csv"), "'reader'"),
        (lambda raw: raw.update(resources={}), "must be a list"),
    ],
)
def test_a_malformed_catalog_is_refused_with_the_entry_named(tmp_path, mutate, message):
    path = _copy_catalog(tmp_path, mutate)
    with pytest.raises(CatalogError, match=message):
        Catalog.load(path)


def test_a_catalog_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "catalog.json"
    path.write_text("{not json")
    with pytest.raises(CatalogError, match="not valid JSON"):
        Catalog.load(path)


def test_transport_is_text_only_for_textual_utf8_content():
    assert transport_of("text/plain", "héllo".encode()) == "text"
    assert transport_of("text/plain", b"\xff\xfe") == "blob"
    assert transport_of("application/pdf", b"%PDF-") == "blob"
    assert transport_of(None, b"abc") == "blob"


def test_entries_spell_mime_type_both_ways():
    entry = ResourceEntry("x://1", "one", mime_type="text/plain")
    assert entry.mimeType == entry.mime_type == "text/plain"
    template = TemplateEntry("x://{id}", "x", mime_type="application/json")
    assert template.uriTemplate == "x://{id}" and template.variables == ("id",)


def test_importing_the_catalog_does_not_import_pandas():
    import subprocess

    code = "import custody_lab.protocol.catalog, sys; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stdout
