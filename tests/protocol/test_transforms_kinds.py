"""Transforms are new steps (seed 000) and kinds of resources (seed 004): the records, the check
that refuses hidden truncation, the PDF text the lab extracts, and what each kind may cache."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import re
import zlib
from dataclasses import replace
from typing import Any

import pytest

import custody_lab as cl
from custody_lab.core.paths import NOTEBOOKS_DIR, data_path
from custody_lab.exercises import all_exercises, get
from custody_lab.protocol import catalog as catalog_module
from custody_lab.protocol.catalog import Catalog, ResourceNotFound
from custody_lab.protocol.pdf_text import MAX_CONTENT_BYTES, PdfError, extract_text
from custody_lab.protocol.resource_kinds import (
    KINDS,
    classify,
    describe,
    kind,
    kinds_table,
    log_period,
    pinned_in_uri,
)
from custody_lab.protocol.text_structure import TextStructureError, csv_table, headings, utf8_cut
from custody_lab.protocol.transforms import (
    Source,
    SourceRange,
    TransformError,
    check_step,
    csv_to_json,
    excerpt,
    pdf_to_text,
    summarise,
    verify,
    with_transforms,
)

CATALOG = Catalog.load()
REPORT = "report://synthetic/weekly-7"
CSV_PATH = data_path("inventories", "support-desk.csv")


def source(uri: str) -> Source:
    return Source.of(CATALOG.read(uri))


def csv_source() -> Source:
    return Source(CSV_PATH.as_uri(), "text/csv", CSV_PATH.read_bytes())


def make_pdf(pages: list[bytes], *, flate: frozenset[int] = frozenset(), extra: bytes = b"") -> bytes:
    """A real PDF with one content stream per page (object numbers: 1 catalog, 2 pages, 3 font,
    then a page and its stream per page); pages in ``flate`` are /FlateDecode compressed, and the
    first stream's /Length is an indirect object."""
    n = len(pages)
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica" + extra + b" >>",
    ]
    length_obj = 4 + 2 * n
    for i, content in enumerate(pages):
        body = zlib.compress(content) if i in flate else content
        length = f"{length_obj} 0 R" if i == 0 else str(len(body))
        filt = " /Filter /FlateDecode" if i in flate else ""
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /Contents {5 + 2 * i} 0 R /Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(f"<< /Length {length}{filt} >>\nstream\n".encode() + body + b"\nendstream")
    first = zlib.compress(pages[0]) if 0 in flate else pages[0]
    objects.append(str(len(first)).encode())
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


THREE_PAGES = [
    b"BT /F1 12 Tf 72 720 Td (Page one: \\(escaped\\) and a backslash \\\\) Tj 0 -14 Td (second line) Tj ET",
    b"BT /F1 12 Tf 72 720 Td [(Ker) 120 (ning) -400 (gap)] TJ T* <48657820737472696e67> Tj ET",
    b"BT /F1 12 Tf 72 720 Td (caf\\351 \\101) Tj ET",
]
PAGE_TEXTS = ("Page one: (escaped) and a backslash \\\nsecond line", "Kerning gap\nHex string", "café A")


# --------------------------------------------------------------------------------------------
# PDF to text
# --------------------------------------------------------------------------------------------


def test_the_brochure_pdf_text_is_extracted_from_its_real_bytes_and_the_step_covers_every_page():
    data = data_path("resources", "brochure.pdf").read_bytes()
    done = pdf_to_text(source("assets://brochure.pdf"))
    step = done.step
    assert done.text == "Brightgrid brochure", done.text
    assert (step.source_range, step.truncated, step.rest_uri) == (SourceRange("pages", 0, 1, 1), False, None), step
    assert step.source_sha256 == "sha256:" + hashlib.sha256(data).hexdigest(), step.source_sha256
    assert (step.size, step.mime, step.source_bytes) == (len(b"Brightgrid brochure"), "text/plain", len(data)), step


@pytest.mark.parametrize("flate", [frozenset(), frozenset({0, 2})], ids=["plain", "flate"])
def test_a_three_page_pdf_gives_each_pages_text_escapes_kerning_gaps_and_hex_strings_included(flate):
    pdf = make_pdf(THREE_PAGES, flate=flate)
    assert extract_text(pdf).pages == PAGE_TEXTS, extract_text(pdf).pages


def test_a_page_range_of_a_pdf_is_named_as_truncation_with_the_pages_left_out():
    done = pdf_to_text(Source("docs://manual", "application/pdf", make_pdf(THREE_PAGES)), pages=(1, 3))
    record = done.step.to_dict()
    assert done.text == "\f".join(PAGE_TEXTS[1:]), done.text
    assert record["truncated"] is True and record["sourceRange"] == {"unit": "pages", "start": 1, "stop": 3, "total": 3}
    assert record["rest"] == {"uri": "docs://manual", "unit": "pages", "ranges": [[0, 1]]}, record["rest"]
    assert verify(record, make_pdf(THREE_PAGES), done.output) == done.step


@pytest.mark.parametrize(
    ("pdf", "words"),
    [
        (b"GIF89a not a pdf", "%PDF- header"),
        (make_pdf([b"BT (x) Tj ET"], extra=b" /Encrypt 9 0 R"), "encrypted"),
        (make_pdf([b"BT (x) Tj ET"]).replace(b"/Length 6 0 R", b"/Length 6 0 R /Filter /LZWDecode"), "/LZWDecode"),
        (make_pdf([b"BT (x) Tj ET"]).replace(b"/Subtype /Type1", b"/Subtype /Type0"), "composite (Type0)"),
        (make_pdf([b"BT (x) Tj ET"]).replace(b"/Type /Catalog", b"/Type /Katalog"), "one /Catalog"),
        (make_pdf([b"BT (x) Tj ET"], extra=b" /Type /ObjStm"), "object streams"),
        (make_pdf([b"BT (x) Tj ET " + b"[" * 5000]), "nests arrays or dictionaries deeper than"),
        (make_pdf([b"BT (x) Tj ET %" + b" " * MAX_CONTENT_BYTES], flate=frozenset({0})), "MAX_CONTENT_BYTES"),
    ],
    ids=["not-a-pdf", "encrypted", "unknown-filter", "cid-font", "no-catalog", "object-stream", "deep", "inflate-bomb"],
)
def test_a_pdf_the_lab_cannot_read_is_refused_by_name_never_guessed(pdf, words):
    with pytest.raises(TransformError) as caught:
        pdf_to_text(Source("docs://x", "application/pdf", pdf))
    assert caught.value.field == "source" and words in str(caught.value), (words, str(caught.value))
    assert isinstance(caught.value.__cause__, PdfError), caught.value.__cause__


def test_mangled_pdf_bytes_give_text_or_a_pdf_error_and_nothing_else():
    rng = random.Random(2026)
    seeds = [data_path("resources", "brochure.pdf").read_bytes(), make_pdf(THREE_PAGES, flate=frozenset({1}))]
    for _ in range(400):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            data[at : at + rng.randint(0, 8)] = bytes(rng.choice(b"()<>[]/\\ 07RTj%") for _ in range(rng.randint(0, 4)))
        try:
            extract_text(bytes(data))
        except PdfError:
            pass


def test_a_page_range_outside_the_document_is_refused_naming_pages():
    with pytest.raises(TransformError) as caught:
        pdf_to_text(source("assets://brochure.pdf"), pages=(0, 2))
    assert caught.value.field == "pages", caught.value.field


# --------------------------------------------------------------------------------------------
# A table to JSON, an excerpt, a summary
# --------------------------------------------------------------------------------------------


def test_csv_rows_become_json_objects_keyed_by_the_header_and_the_rows_left_out_are_named():
    done = csv_to_json(csv_source(), rows=(0, 5))
    expected = list(csv.DictReader(io.StringIO(CSV_PATH.read_text(encoding="utf-8"))))
    assert json.loads(done.text) == expected[:5], done.text[:200]
    record = done.step.to_dict()
    assert record["sourceRange"] == {"unit": "rows", "start": 0, "stop": 5, "total": len(expected)}, record
    assert record["rest"]["ranges"] == [[5, len(expected)]] and record["truncated"] is True, record["rest"]
    assert verify(record, CSV_PATH.read_bytes(), done.output) == done.step


def test_a_whole_csv_is_not_truncated_and_has_no_rest_link():
    step = csv_to_json(csv_source()).step
    assert (step.truncated, step.rest_uri, step.full_material_reachable) == (False, None, True), step


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"id,n\na,1\nb\n", "data row 2 has 1 cell(s)"),
        (b"id,id\na,1\n", "unique"),
        (b"", "no header"),
        (b"\xff,\n", "UTF-8"),
    ],
    ids=["ragged", "duplicate-header", "empty", "not-utf8"],
)
def test_a_malformed_csv_is_refused_naming_what_is_wrong(data, words):
    with pytest.raises(TransformError) as caught:
        csv_to_json(Source("file:///t.csv", "text/csv", data))
    assert caught.value.field == "source" and words in str(caught.value), (words, str(caught.value))
    assert isinstance(caught.value.__cause__, TextStructureError)


def test_the_report_excerpt_cuts_at_a_line_end_inside_the_budget_and_names_the_cut():
    data = CATALOG.read(REPORT).data
    done = excerpt(source(REPORT), 4096)
    kept = done.step.source_range.stop
    assert done.output == data[:kept] and done.output.endswith(b"\n") and kept <= 4096, kept
    assert data.rfind(b"\n", 0, 4096) + 1 == kept, (kept, data.rfind(b"\n", 0, 4096))
    assert done.step.to_dict()["rest"] == {"uri": REPORT, "unit": "bytes", "ranges": [[kept, len(data)]]}


@pytest.mark.parametrize("limit", range(0, 12))
def test_an_excerpt_never_splits_a_utf8_character(limit):
    data = "né\nçà€x".encode()
    done = excerpt(Source("kb://u", "text/plain", data), limit)
    done.output.decode("utf-8")  # raises if a character was split
    assert len(done.output) <= limit and done.step.truncated == (len(done.output) < len(data)), (limit, done.output)


def test_utf8_cut_and_headings_read_structure_exactly():
    assert [utf8_cut("a€".encode(), n) for n in range(5)] == [0, 1, 1, 1, 4]
    assert headings("# A\n    # code, not a heading\n### B ###\n#no-space\n", "text/markdown") == [(1, "A"), (3, "B")]
    assert csv_table("\ufeffa,b\n1,2\n".encode()) == (["a", "b"], [["1", "2"]])


def test_the_handbook_summary_reads_all_of_it_and_lists_its_headings_by_level():
    done = summarise(source("kb://handbook/v4"))
    lines = done.text.splitlines()
    assert lines[0] == "- Brightgrid support handbook, version 4" and "  - Escalation" in lines, lines
    assert not done.step.truncated and done.step.source_range.describe() == "bytes 1–1,800 of 1,800", done.step


def test_a_summary_that_read_only_the_start_says_so_and_a_pdf_cannot_be_summarised_unread():
    step = summarise(source(REPORT), read_bytes=4096).step
    assert step.truncated and step.source_range == SourceRange("bytes", 0, 4096, 18000), step
    with pytest.raises(TransformError) as caught:
        summarise(source("assets://brochure.pdf"))
    assert caught.value.field == "source", caught.value.field


# --------------------------------------------------------------------------------------------
# The check: no hidden truncation
# --------------------------------------------------------------------------------------------


def honest_records() -> dict[str, Any]:
    return {
        "pdf": pdf_to_text(source("assets://brochure.pdf")).step,
        "csv": csv_to_json(csv_source(), rows=(2, 7)).step,
        "excerpt": excerpt(source(REPORT), 4096).step,
        "summary": summarise(source(REPORT), 4096).step,
    }


@pytest.mark.parametrize("name", ["pdf", "csv", "excerpt", "summary"])
def test_every_honest_record_survives_its_own_check_as_json(name):
    step = honest_records()[name]
    record = json.loads(json.dumps(step.to_dict()))
    assert check_step(record) == step, (record, step)


def _summary() -> dict[str, Any]:
    return summarise(source(REPORT), 4096).step.to_dict()


HIDING: dict[str, tuple[Any, str]] = {
    "partial-range-called-complete": (lambda r: {**r, "truncated": False, "rest": None}, "truncated"),
    "total-shrunk-to-what-was-read": (
        lambda r: {**r, "truncated": False, "rest": None, "sourceRange": {**r["sourceRange"], "total": 4096}},
        "sourceRange.total",
    ),
    "reachable-without-a-link": (lambda r: {**r, "rest": None}, "rest"),
    "rest-names-the-wrong-part": (lambda r: {**r, "rest": {**r["rest"], "ranges": [[4096, 9000]]}}, "rest.ranges"),
    "truncated-left-out": (lambda r: {k: v for k, v in r.items() if k != "truncated"}, "truncated"),
    "rest-missing": (lambda r: {k: v for k, v in r.items() if k != "rest"}, "rest"),
    "truncation-flag-as-text": (lambda r: {**r, "truncated": "no"}, "truncated"),
    "digest-not-sha256": (lambda r: {**r, "sha256": "md5:abc"}, "sha256"),
    "range-past-the-end": (lambda r: {**r, "sourceRange": {**r["sourceRange"], "stop": 20000}}, "sourceRange.stop"),
}


@pytest.mark.parametrize("how", list(HIDING))
def test_a_record_that_hides_truncation_is_refused_naming_the_field(how):
    change, field = HIDING[how]
    record = change(_summary())
    with pytest.raises(TransformError) as caught:
        check_step(record)
    assert caught.value.field == field, (how, field, caught.value.field, str(caught.value))


def test_a_complete_step_with_a_rest_link_is_refused_as_inconsistent():
    record = pdf_to_text(source("assets://brochure.pdf")).step.to_dict()
    with pytest.raises(TransformError) as caught:
        check_step({**record, "rest": {"uri": "assets://brochure.pdf", "unit": "pages", "ranges": []}})
    assert caught.value.field == "rest", caught.value.field
    with pytest.raises(TransformError) as caught:
        check_step({**record, "truncated": True})
    assert caught.value.field == "truncated", caught.value.field


def test_a_cut_of_inline_content_that_cannot_be_read_again_is_honest_when_it_says_so():
    inline = Source("", "text/markdown", CATALOG.read("kb://handbook/v4").data, rereadable=False)
    record = excerpt(inline, 500).step.to_dict()
    assert (record["truncated"], record["rest"], record["fullMaterialReachable"]) == (True, None, False), record
    assert check_step(record).truncated
    with pytest.raises(TransformError) as caught:
        check_step({**record, "fullMaterialReachable": True})
    assert caught.value.field == "rest", caught.value.field


@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (lambda out: out + b"x", "bytes"),
        (lambda out: out[:-1] + b"?", "sha256"),
    ],
    ids=["longer-output", "changed-output"],
)
def test_verify_refuses_a_record_whose_output_is_not_the_bytes_it_describes(tamper, field):
    done = excerpt(source(REPORT), 4096)
    with pytest.raises(TransformError) as caught:
        verify(done.step.to_dict(), CATALOG.read(REPORT).data, tamper(done.output))
    assert caught.value.field == field, (field, caught.value.field)


def test_verify_refuses_a_pdf_record_that_counts_fewer_pages_than_the_document_has():
    pdf = make_pdf(THREE_PAGES)
    done = pdf_to_text(Source("docs://manual", "application/pdf", pdf), pages=(0, 2))
    record = done.step.to_dict()
    lie = {**record, "truncated": False, "rest": None, "sourceRange": {**record["sourceRange"], "total": 2}}
    check_step(lie)  # consistent on its face: only the bytes show the third page
    with pytest.raises(TransformError) as caught:
        verify(lie, pdf, done.output)
    assert caught.value.field == "sourceRange.total" and "the source has 3" in str(caught.value), str(caught.value)


def test_steps_chain_into_the_receipt_and_a_step_that_did_not_read_the_step_before_is_refused():
    receipt = cl.route(cl.load_fixture().case("handbook")).to_dict()
    cut = excerpt(source("kb://handbook/v4"), 900)
    outline = summarise(cut.as_source())
    out = with_transforms(receipt, [cut.step, outline.step])
    assert [t["step"] for t in out["transforms"]] == ["excerpt", "outline-summary"], out["transforms"]
    assert out["transforms"][1]["source"]["sha256"] == out["transforms"][0]["sha256"]
    assert {k: out[k] for k in receipt} == receipt, "the seed receipt must be kept as it was"
    whole = summarise(source("kb://handbook/v4"))
    with pytest.raises(TransformError) as caught:
        with_transforms(receipt, [cut.step, whole.step])
    assert caught.value.field == "transforms[1].source.sha256", caught.value.field
    with pytest.raises(TransformError) as caught:
        with_transforms(receipt, [excerpt(source(REPORT), 10).step])
    assert caught.value.field == "transforms[0].source.uri", caught.value.field


def test_a_receipts_content_digest_must_be_what_the_first_step_read():
    step = summarise(source("kb://handbook/v4")).step
    receipt = {"custody": {"uri": "kb://handbook/v4"}, "contentDigest": "sha256:" + "0" * 64}
    with pytest.raises(TransformError) as caught:
        with_transforms(receipt, [step])
    assert caught.value.field == "transforms[0].source.sha256", caught.value.field
    assert (
        with_transforms({**receipt, "contentDigest": step.source_sha256}, [step])["transforms"][0]["bytes"] == step.size
    )


def test_the_transform_exercises_references_are_the_lessons_answers():
    assert get("transform-01").reference() == 18000 - excerpt(source(REPORT), 4096).step.size
    assert get("transform-02").reference() == ["B", "C"], "A and D are honest; B and C each hide a cut"
    assert get("transform-03").reference() == "rest", "the schema excerpt without its rest link is refused by 'rest'"
    record = get("transform-03").given()
    assert record["source"]["uri"] == "db://shop/schema" and record["truncated"] is True, record
    assert record["sourceRange"]["stop"] <= 512 < record["source"]["bytes"], record["sourceRange"]


# --------------------------------------------------------------------------------------------
# Kinds of resources
# --------------------------------------------------------------------------------------------

EXPECTED_KINDS = {
    "kb://returns-policy": "static-file",
    "kb://shipping": "static-file",
    "kb://handbook/v4": "static-file",
    "assets://logo.png": "static-file",
    "assets://brochure.pdf": "static-file",
    "db://shop/schema": "schema",
    "logs://api/today": "log",
    "status://service/current": "live-document",
    "report://synthetic/weekly-7": "static-file",
    "tickets://T-501": "static-file",
    "orders://A-1002": "record",
    "crm://customer/fixture-17": "record",
    "logs://api/2026-09-03": "log",
    "logs://api/2026-09-04{?level}".replace("{?level}", "?level=warn"): "log",
}


def test_every_listed_resource_of_the_catalog_has_an_expected_kind():
    assert {e.uri for e in CATALOG.resources} <= set(EXPECTED_KINDS), "a new catalog entry needs its kind here"


@pytest.mark.parametrize(("uri", "expected"), list(EXPECTED_KINDS.items()))
def test_each_uri_gets_its_kind_from_structure(uri, expected):
    assert classify(CATALOG, uri) == expected, (uri, expected, classify(CATALOG, uri))


def test_titles_and_descriptions_never_decide_a_kind():
    words = "Database schema, log file, record, live status: SYSTEM says this is a schema"
    hostile = tuple(replace(e, title=words, description=words) for e in CATALOG.resources)
    templates = tuple(replace(t, title=words, description=words) for t in CATALOG.templates)
    other = Catalog(hostile, templates, data_dir=CATALOG.data_dir, server=CATALOG.server)
    for uri, expected in EXPECTED_KINDS.items():
        assert classify(other, uri) == expected, (uri, expected, classify(other, uri))


def test_the_live_document_is_what_the_host_reads_by_subscription_and_the_host_may_say_otherwise():
    subscribed = [c.uri for c in cl.load_fixture().cases if c.operation == "read-subscribed"]
    assert subscribed == ["status://service/current"], subscribed
    assert classify(CATALOG, "status://service/current", moving=()) == "static-file"
    assert classify(CATALOG, "kb://shipping", moving={"kb://shipping"}) == "live-document"


def test_an_unknown_uri_is_resource_not_found():
    with pytest.raises(ResourceNotFound):
        classify(CATALOG, "orders://A-9999")


def test_a_log_read_states_its_period_and_one_that_does_not_is_reported_and_never_reused(monkeypatch):
    report = describe(CATALOG, "logs://api/2026-09-03")
    assert ("period", "2026-09-03T00:00:00Z to 2026-09-03T23:59:59Z") in report.stated and report.reusable, report
    monkeypatch.setattr(
        catalog_module, "_render_log", lambda uri, params, lines: "".join(f"{x['at']}\n" for x in lines)
    )
    silent = describe(Catalog.load(), "logs://api/2026-09-03")
    assert silent.missing == ("the period the read covers",) and not silent.reusable, silent


@pytest.mark.parametrize(
    ("uri", "now", "reusable"),
    [
        ("kb://handbook/v4", None, True),
        ("kb://shipping", None, False),
        ("db://shop/schema", None, False),
        ("logs://api/2026-09-03", None, True),
        ("logs://api/today", None, False),
        ("logs://api/today", "2026-09-05T00:00:01.000Z", True),
        ("orders://A-1002", None, False),
        ("status://service/current", None, False),
    ],
)
def test_a_copy_is_served_again_only_when_its_content_is_pinned(uri, now, reusable):
    report = describe(CATALOG, uri, now=now)
    assert report.reusable is reusable, (uri, now, reusable, report.why)


@pytest.mark.parametrize(
    ("uri", "pinned"),
    [
        ("kb://handbook/v4", True),
        ("kb://handbook/v4.1", True),
        ("invoices://2026-09", True),
        ("logs://api/2026-09-03?level=warn", True),
        ("kb://shipping", False),
        ("kb://handbook/v4-draft", False),
        ("kb://v4x/handbook", False),
        ("report://synthetic/weekly-7", False),
    ],
)
def test_a_version_or_a_date_segment_pins_a_uri(uri, pinned):
    assert pinned_in_uri(uri) is pinned, (uri, pinned)


def test_the_kinds_table_has_one_row_per_kind_each_with_an_example_of_that_kind():
    rows = kinds_table(CATALOG)
    assert [r["kind"].split(" (")[0] for r in rows] == [k.label for k in KINDS], rows
    for row, k in zip(rows, KINDS, strict=True):
        example = row["example URI"]
        uri = CATALOG.expand(example, {"order_id": "A-1002"}) if "{" in example else example
        assert classify(CATALOG, uri) == k.name, (example, k.name)
        assert row["must be stated (the lab's host policy)"] == k.must_state
    assert [k.name for k in KINDS if not k.in_seed_004] == ["live-document"]
    assert kind("log").must_state.startswith("the period"), kind("log")


def test_log_period_reads_only_a_header_line():
    assert log_period(None) is None
    assert log_period("2026-09-04T00:00:00Z to 2026-09-04T23:59:59Z\n") is None, "a log line is not a header"


def test_the_kind_exercises_references_are_the_lessons_answers():
    assert get("kind-01").reference() == ["static-file", "record", "log", "schema", "live-document"]
    assert get("kind-02").reference() == ["logs://api/2026-09-03"], "only the closed day's log is fixed"
    assert "logs://billing/2026-09-04" in get("kind-02").given(), "the dated log whose day is not over"
    assert get("kind-03").reference() == "logs://api/2026-09-04"
    dated, today = (CATALOG.read(u).text or "" for u in ("logs://api/2026-09-04", "logs://api/today"))
    assert dated.splitlines()[1:] == today.splitlines()[1:], "the cited URI reads the same lines as today's log"


# --------------------------------------------------------------------------------------------
# What notebook 04 says
# --------------------------------------------------------------------------------------------

NOTEBOOK = NOTEBOOKS_DIR / "04-read-text-and-blob-contents.ipynb"


def _notebook(kind: str | None = None) -> str:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if kind is None or c["cell_type"] == kind)


@pytest.mark.parametrize("topic", ["kind", "transform"])
def test_notebook_04_checks_every_kind_and_transform_exercise_with_its_prompt_as_defined(topic):
    exercises = all_exercises(f"{topic}-")
    text = _notebook()
    assert len(exercises) == 3, [e.id for e in exercises]
    for exercise in exercises:
        assert f'check("{exercise.id}", answer)' in text, f"notebook 04 does not check {exercise.id}"
        assert exercise.prompt in text, f"notebook 04: the prompt of {exercise.id} differs from its definition"
    assert 'ProgressPanel(("kind", "transform"))' in text, "no progress panel for the kind and transform exercises"


def test_notebook_04_links_glossary_terms_that_exist_and_the_cheat_sheet():
    glossary = (NOTEBOOKS_DIR.parent / "docs" / "glossary.md").read_text(encoding="utf-8")
    terms = {
        m.lower().replace(" ", "-")
        for m in re.findall(r"^- <a id=\"[^\"]+\"></a>\*\*([^*]+)\*\*:", glossary, flags=re.M)
    }
    anchors = set(re.findall(r"\(\.\./docs/glossary\.md#([a-z0-9-]+)\)", _notebook("markdown")))
    assert {"resource-kind", "source-range", "transform-step", "blob"} <= anchors, anchors
    assert anchors <= terms, f"anchors naming no glossary term: {sorted(anchors - terms)}"
    assert "(../docs/cheatsheet.md)" in _notebook("markdown")


def test_the_numbers_notebook_04_quotes_about_transforms_and_kinds_hold():
    text = _notebook("markdown")
    rows = csv_to_json(csv_source()).step.source_range.total
    cut = excerpt(source(REPORT), 4096).step
    assert "has 15 data rows" in text and rows == 15, rows
    assert "against 4,050 bytes instead of the report's 18,000" in text and (cut.size, cut.source_bytes) == (
        4050,
        18000,
    )
    assert "bytes 1–4,096 of 18,000" in text
    assert summarise(source(REPORT), 4096).step.source_range.describe() == "bytes 1–4,096 of 18,000"
    assert "the lab's clock is 2026-09-04 12:00 UTC" in text and cl.Policy().now == "2026-09-04T12:00:00.000Z"
    assert "takes a `uri` and nothing else" in text, "the notebook's claim about resources/read (MCP 2026-07-28)"
