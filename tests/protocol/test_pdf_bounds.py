"""The PDF reader cannot be bombed (issue 24 §1): a content budget that counts every use of a
stream, an input budget, and scans that stay linear on hostile bytes.

Nothing here times anything. A bound is shown by what the reader counts (:class:`PdfBudget`: the
page-content bytes it spent, the most it asked the decompressor for, the bytes its scanners
examined) and by the Python memory a reading allocates (``tracemalloc``, which counts bytes, not
seconds). Each hostile file is built here, in code, and named for what it does.
"""

from __future__ import annotations

import tracemalloc
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from custody_lab.protocol import pdf_text
from custody_lab.protocol.pdf_text import (
    MAX_CONTENT_BYTES,
    MAX_DEPTH,
    MAX_PDF_BYTES,
    PdfBudget,
    PdfBudgetError,
    PdfError,
    extract_text,
)
from custody_lab.protocol.transforms import Source, TransformError, pdf_to_text

CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"


def pdf_of(objects: list[bytes]) -> bytes:
    """A PDF whose objects are numbered from 1 in the order given."""
    out = bytearray(b"%PDF-1.4\n")
    for number, body in enumerate(objects, start=1):
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    return bytes(out + b"trailer\n<< /Root 1 0 R >>\n%%EOF\n")


def stream(body: bytes, *, flate: bool = False) -> bytes:
    data = zlib.compress(body, 9) if flate else body
    return (
        f"<< /Length {len(data)}{' /Filter /FlateDecode' if flate else ''} >>\nstream\n".encode()
        + data
        + (b"\nendstream")
    )


def one_page(contents: bytes, *streams: bytes) -> bytes:
    """Catalog 1, pages 2, page 3 with ``/Contents contents``, then the streams from object 4."""
    page = b"<< /Type /Page /Parent 2 0 R /Contents " + contents + b" >>"
    return pdf_of([CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, *streams])


def one_stream_used(times: int, body: bytes, *, flate: bool = True) -> bytes:
    """One content stream (object 4) that the page lists ``times`` times."""
    return one_page(b"[" + b" ".join([b"4 0 R"] * times) + b"]", stream(body, flate=flate))


def peak_bytes(read: Callable[[], Any]) -> int:
    """The most Python memory ``read`` held at once (its answer or its refusal kept out)."""
    tracemalloc.start()
    try:
        read()
    except PdfError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


# --------------------------------------------------------------------------------------------
# The content budget
# --------------------------------------------------------------------------------------------


def test_a_16_mb_deflate_stream_used_ten_times_by_a_17_kb_file_is_refused_naming_the_content_budget():
    bomb = one_stream_used(10, b" " * (16 * 1024 * 1024))
    assert len(bomb) < 17_500, len(bomb)  # the file: 16.7 KB
    spent = PdfBudget()
    with pytest.raises(PdfBudgetError) as caught:
        extract_text(bomb, budget=spent)
    assert caught.value.budget == "MAX_CONTENT_BYTES" and "MAX_CONTENT_BYTES" in str(caught.value), str(caught.value)
    assert caught.value.limit == MAX_CONTENT_BYTES
    assert spent.largest_request <= MAX_CONTENT_BYTES + 1, ("the decompressor was asked for", spent.largest_request)
    assert spent.content_bytes <= MAX_CONTENT_BYTES, spent


def test_the_bomb_costs_the_budget_in_memory_not_the_160_mb_it_would_inflate_to():
    bomb = one_stream_used(10, b" " * (16 * 1024 * 1024))
    peak = peak_bytes(lambda: extract_text(bomb))
    assert peak < 4 * MAX_CONTENT_BYTES, f"reading the bomb held {peak:,} bytes at once"


def test_every_use_of_a_stream_counts_against_the_budget_and_its_text_is_shown_each_time():
    body = b"BT (again) Tj ET"
    spent = PdfBudget()
    assert extract_text(one_stream_used(3, body), budget=spent).pages == ("again\nagain\nagain",)
    assert spent.content_bytes == 3 * len(body), spent
    small = PdfBudget(max_content_bytes=2 * len(body) + 1)
    with pytest.raises(PdfBudgetError) as caught:
        extract_text(one_stream_used(3, body), budget=small)
    assert caught.value.budget == "MAX_CONTENT_BYTES" and small.content_bytes == 2 * len(body), small


@pytest.mark.parametrize("flate", [False, True], ids=["plain", "flate"])
def test_a_stream_just_inside_the_budget_is_read_and_one_byte_more_is_refused(flate):
    body = b"BT (fits) Tj ET %" + b" " * 983
    fits = PdfBudget(max_content_bytes=len(body))
    assert extract_text(one_stream_used(1, body, flate=flate), budget=fits).pages == ("fits",)
    with pytest.raises(PdfBudgetError):
        extract_text(one_stream_used(1, body, flate=flate), budget=PdfBudget(max_content_bytes=len(body) - 1))


def test_the_decompressor_is_never_asked_for_more_than_what_is_left_plus_one_byte():
    spent = PdfBudget(max_content_bytes=5000)
    with pytest.raises(PdfBudgetError):
        extract_text(one_stream_used(2, b" " * 4000), budget=spent)
    assert spent.largest_request == 5001, spent  # the first use: all 5,000 bytes left, asked for 5,001


def test_nested_filters_count_every_stage_against_the_budget():
    inner = zlib.compress(b"BT (deep) Tj ET " + b" " * 3000)
    body = zlib.compress(inner)
    twice = f"<< /Length {len(body)} /Filter [/FlateDecode /FlateDecode] >>\nstream\n".encode() + body + b"\nendstream"
    spent = PdfBudget()
    assert extract_text(one_page(b"4 0 R", twice), budget=spent).pages == ("deep",)
    assert spent.content_bytes == len(inner) + 3016, spent  # both stages' output


def test_a_file_over_the_input_budget_is_refused_unread_naming_it():
    big = b"%PDF-1.4\n" + b" " * MAX_PDF_BYTES
    with pytest.raises(TransformError) as caught:
        pdf_to_text(Source("docs://big", "application/pdf", big))
    assert isinstance(caught.value.__cause__, PdfBudgetError) and caught.value.__cause__.budget == "MAX_PDF_BYTES"
    assert "MAX_PDF_BYTES" in str(caught.value) and f"{len(big):,} bytes" in str(caught.value), str(caught.value)


# --------------------------------------------------------------------------------------------
# Linear scans: what the scanners examine stays a small multiple of the input
# --------------------------------------------------------------------------------------------

HOSTILE_HEADERS: dict[str, Callable[[int], bytes]] = {
    "unclosed-literals": lambda n: b"%PDF-1.4\n" + b"1 0 obj (" * n,
    "unclosed-hex-strings": lambda n: b"%PDF-1.4\n" + b"1 0 obj <" * n,
    "hex-strings-closed-at-the-very-end": lambda n: b"%PDF-1.4\n" + b"1 0 obj <" * n + b">",
    "arrays-never-closed": lambda n: b"%PDF-1.4\n" + b"1 0 obj [ 1 2 " * n,
    "nested-literals-never-closed": lambda n: b"%PDF-1.4\n" + b"1 0 obj ((()" * n,
}


@pytest.mark.parametrize("name", list(HOSTILE_HEADERS))
def test_an_object_header_repeated_inside_a_broken_object_is_scanned_once_not_once_per_header(name):
    for n in (1000, 8000):
        data = HOSTILE_HEADERS[name](n)
        spent = PdfBudget()
        with pytest.raises(PdfError):
            extract_text(data, budget=spent)
        assert spent.scanned <= 4 * len(data), (name, n, len(data), spent.scanned)


def test_4000_stream_objects_do_not_each_copy_the_rest_of_the_file():
    objects = [CATALOG, b"<< /Type /Pages /Kids [] /Count 0 >>"] + [stream(b"0123456789")] * 4000
    data = pdf_of(objects)
    assert extract_text(data).pages == ()
    peak = peak_bytes(lambda: extract_text(data))
    assert peak < 20 * len(data), f"{len(data):,} bytes of PDF held {peak:,} bytes at once"


def test_object_headers_inside_a_stream_are_its_bytes_never_objects():
    fake = b"BT (1 0 obj << /Type /Catalog >> endobj) Tj ET 1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj"
    assert extract_text(one_page(b"4 0 R", stream(fake))).pages == ("1 0 obj << /Type /Catalog >> endobj",)


@pytest.mark.parametrize(
    "unit",
    [b"1 ", b"q ", b"/a", b"()", b"[]", b"<>", b"()'", b"<</a 1>>", b"[(a)-300(b)]TJ "],
    ids=["numbers", "operators", "names", "strings", "arrays", "hex", "quote-ops", "dicts", "TJ"],
)
def test_content_the_budget_admits_is_scanned_in_one_pass_whatever_its_tokens(unit):
    body = unit * (60_000 // len(unit))
    spent = PdfBudget()
    extract_text(one_stream_used(1, body), budget=spent)
    assert spent.content_bytes == len(body) and spent.scanned <= 2 * (len(body) + 1000), (unit, spent)


def test_a_literal_of_nested_parentheses_is_scanned_once():
    body = b"BT (" + b"()" * 20_000 + b") Tj ET"
    spent = PdfBudget()
    assert extract_text(one_page(b"4 0 R", stream(body))).pages == ("()" * 20_000,)
    extract_text(one_page(b"4 0 R", stream(body)), budget=spent)
    assert spent.scanned <= 3 * len(body) + 1000, spent


def test_pages_that_share_one_font_dictionary_check_it_once(monkeypatch):
    n = 300
    kids = " ".join(f"{i + 4} 0 R" for i in range(n)).encode()
    fonts = b"<< /Font << " + b" ".join(b"/F%d 1 0 R" % i for i in range(n)) + b" >> >>"
    data = pdf_of(
        [CATALOG, b"<< /Type /Pages /Kids [" + kids + b"] >>", fonts] + [b"<< /Type /Page /Resources 3 0 R >>"] * n
    )
    calls = [0]
    resolve = pdf_text._resolve

    def counted(objects: Any, value: Any) -> Any:
        calls[0] += 1
        return resolve(objects, value)

    monkeypatch.setattr(pdf_text, "_resolve", counted)
    assert extract_text(data).pages == ("",) * n
    assert calls[0] <= 10 * n, f"{calls[0]:,} look-ups for {n} pages sharing {n} fonts (one check per page: {n * n:,})"


def test_a_deep_page_tree_is_walked_without_recursion_and_in_order():
    depth = 5000  # far past Python's recursion limit: node i holds node i + 1, then a page of its own
    first_leaf = 3 + depth
    first_stream = first_leaf + depth - 1
    nodes = [b"<< /Type /Pages /Kids [%d 0 R %d 0 R] >>" % (4 + i, first_leaf + i) for i in range(depth - 1)]
    leaves = [b"<< /Type /Page /Contents %d 0 R >>" % (first_stream + i) for i in range(depth - 1)]
    texts = [stream(b"BT (%d) Tj ET" % i) for i in range(depth - 1)]
    data = pdf_of([CATALOG, b"<< /Type /Pages /Kids [3 0 R] >>", *nodes, b"<< /Type /Page >>", *leaves, *texts])
    pages = extract_text(data).pages
    assert pages == ("", *(str(i) for i in reversed(range(depth - 1)))), pages[:3]


# --------------------------------------------------------------------------------------------
# Every refusal is a PdfError naming its cause
# --------------------------------------------------------------------------------------------


def test_nesting_up_to_max_depth_is_read_and_one_level_more_is_refused():
    deep = b"[" * MAX_DEPTH + b"(in)" + b"]" * MAX_DEPTH
    assert extract_text(one_page(b"4 0 R", stream(b"BT " + deep + b" TJ ET"))).pages == ("",)
    with pytest.raises(PdfError, match=f"deeper than {MAX_DEPTH}"):
        extract_text(one_page(b"4 0 R", stream(b"BT [" + deep + b"] TJ ET")))


@pytest.mark.parametrize(
    "content",
    [b"BT 1" + b"0" * 5000 + b" 0 Td ET", b"BT [(a) -" + b"9" * 5000 + b" (b)] TJ ET"],
    ids=["in-an-operand", "in-a-TJ-array"],
)
def test_a_number_of_thousands_of_digits_is_a_pdf_error_not_a_python_value_error(content):
    with pytest.raises(PdfError, match="more than 20 digits"):
        extract_text(one_page(b"4 0 R", stream(content)))
