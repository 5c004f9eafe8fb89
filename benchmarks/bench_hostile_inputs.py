"""What does a hostile input cost, next to an honest one of its kind? A script that prints.

    python benchmarks/bench_hostile_inputs.py [--repeat 3] [--only pdf|csv|summary] [--quick]

Issue 24 §1 found small files that cost minutes and hundreds of megabytes: a 16.7 KB PDF whose
one 16 MB deflate stream is used ten times, unclosed PDF strings that made the object scan
quadratic, 4,000 stream objects that each copied the rest of the file, a CSV header of 40,000
unknown columns, and Markdown/HTML that the heading readers took over a second to read. This
script builds each of those inputs (and the worst token mixes the budgets still admit) in code,
reads each one in a fresh child process, and prints what the reader answered (text, or the
refusal and the budget it names), the time (best of ``--repeat``), the peak memory of the child
process (its high-water mark, and how much the reading added to it), and both set against an
honest input of the same kind measured in the same run (a 1 MB PDF of a 100-page report with an
image, a 5,000-row inventory CSV, a 1 MB handbook in Markdown and HTML).

The lab's stated bound for the PDF reader, the CSV header check and the summariser: any input up
to 1 MB answers within 1 s and 100 MB. Nothing here asserts it; the figures are read, not tested
(``tests/test_benchmarks.py`` only runs the script on ``--quick`` sizes).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import io
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000


# --------------------------------------------------------------------------------------------
# PDF inputs
# --------------------------------------------------------------------------------------------


def pdf_of(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    for number, body in enumerate(objects, start=1):
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    return bytes(out + b"trailer\n<< /Root 1 0 R >>\n%%EOF\n")


def stream(body: bytes, flate: bool = True, extra: bytes = b"") -> bytes:
    data = zlib.compress(body, 9) if flate else body
    head = f"<< /Length {len(data)}{' /Filter /FlateDecode' if flate else ''}".encode() + extra + b" >>"
    return head + b"\nstream\n" + data + b"\nendstream"


CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"


def one_page(contents: bytes, *rest: bytes) -> bytes:
    page = b"<< /Type /Page /Parent 2 0 R /Contents " + contents + b" >>"
    return pdf_of([CATALOG, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page, *rest])


def content_bomb(unit: bytes, size: int) -> bytes:
    """One page whose one compressed stream inflates to ``size`` bytes of ``unit`` repeated."""
    return one_page(b"4 0 R", stream(unit * (size // len(unit))))


def realistic_pdf(quick: bool) -> bytes:
    """A report: 100 pages of 50 text lines each (compressed), one font, a 900 KB image."""
    pages, lines = (10, 50) if quick else (100, 50)
    rng = random.Random(24)
    words = "custody receipt resource provenance budget embedded listed template reread host".split()
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(pages)).encode()
    objects = [CATALOG, b"<< /Type /Pages /Kids [" + kids + b"] >>", b"<< /Type /Font /Subtype /Type1 >>"]
    image = bytes(rng.getrandbits(8) for _ in range(90_000 if quick else 900_000))
    objects.append(stream(image, flate=False, extra=b" /Type /XObject /Subtype /Image /Width 600 /Height 500"))
    for p in range(pages):
        body = b"".join(
            b"BT /F1 10 Tf 72 %d Td (%s) Tj ET\n" % (760 - 14 * n, " ".join(rng.choices(words, k=9)).encode())
            for n in range(lines)
        )
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>" % (6 + 2 * p)
        )
        objects.append(stream(body))
    return pdf_of(objects)


def pdf_cases(quick: bool) -> dict[str, Callable[[], bytes]]:
    from custody_lab.protocol.pdf_text import MAX_CONTENT_BYTES

    k = 10 if quick else 1
    budget = MAX_CONTENT_BYTES // k
    return {
        "16 MB deflate stream used 10 times (16.7 KB)": lambda: one_page(
            b"[" + b" ".join([b"4 0 R"] * 10) + b"]", stream(b" " * (16 * 1024 * 1024 // k))
        ),
        "unclosed '(' after each 'obj' (47 KB)": lambda: b"%PDF-1.4\n" + b"1 0 obj (" * (47_000 // 9 // k),
        "unclosed '(' after each 'obj' (1 MB)": lambda: b"%PDF-1.4\n" + b"1 0 obj (" * (MB // 9 // k),
        "unclosed '<' after each 'obj' (1 MB)": lambda: b"%PDF-1.4\n" + b"1 0 obj <" * (MB // 9 // k),
        "'<' after each 'obj', one '>' at the end (1 MB)": lambda: b"%PDF-1.4\n" + b"1 0 obj <" * (MB // 9 // k) + b">",
        "4,000 stream objects": lambda: pdf_of(
            [CATALOG, b"<< /Type /Pages /Kids [] >>"] + [stream(b"0123456789", flate=False)] * (4000 // k)
        ),
        "content of empty arrays '[]' up to the budget": lambda: content_bomb(b"[]", budget - 64),
        "content of hex strings '<>' up to the budget": lambda: content_bomb(b"<>", budget - 64),
        'content of "()\'" text operators up to the budget': lambda: content_bomb(b"()'", budget - 64),
        "one string of nested '()' up to the budget": lambda: one_page(
            b"4 0 R", stream(b"BT (" + b"()" * ((budget - 64) // 2) + b") Tj ET")
        ),
        "an object of 500,000 numbers (1 MB)": lambda: pdf_of([b"[" + b"1 " * (MB // 2 // k) + b"]"]),
        "an object of 140,000 distinct names (1 MB)": lambda: pdf_of(
            [b"[" + b"".join(b"/n%d" % i for i in range(MB // 7 // k)) + b"]"]
        ),
        "25,000 pages sharing 25,000 fonts (1.8 MB)": lambda: pdf_of(
            [
                CATALOG,
                b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % (i + 4) for i in range(25_000 // k)) + b"] >>",
                b"<< /Font << " + b"".join(b"/F%d 1 0 R " % i for i in range(25_000 // k)) + b">> >>",
            ]
            + [b"<< /Type /Page /Resources 3 0 R >>"] * (25_000 // k)
        ),
        "a content bomb and 1 MB of numbers in one file": lambda: one_page(
            b"4 0 R", stream(b"[]" * ((budget - 64) // 2)), b"[" + b"1 " * (MB // 2 // k) + b"]"
        ),
        "numbers up to the input budget (2 MiB, over 1 MB)": lambda: pdf_of(
            [b"[" + b"1 " * ((2 << 20) // 2 // k - 40) + b"]"]
        ),
    }


def read_pdf(data: bytes) -> str:
    from custody_lab.protocol.pdf_text import PdfBudgetError, PdfError, extract_text

    try:
        pages = extract_text(data).pages
    except PdfBudgetError as e:
        return f"refused: {e.budget}"
    except PdfError as e:
        return f"refused: {str(e)[:48]}"
    return f"{len(pages)} page(s), {sum(map(len, pages)):,} chars"


# --------------------------------------------------------------------------------------------
# CSV inputs (written to a file: route and load_inventory read paths)
# --------------------------------------------------------------------------------------------

HEADER = "id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance,requiresCurrent"


def realistic_csv(quick: bool) -> bytes:
    rows = [HEADER]
    for i in range(500 if quick else 5000):
        model = i % 2 == 0
        rows.append(
            f"case-{i:06d},{'model' if model else 'application'},{'generate' if model else 'read'},"
            f"{'resource-link' if model else 'listed-resource'},kb://records/{i}/summary,application/json,"
            f"{(i * 7919) % 20000},true,{str(i % 11 != 0).lower()},false,records-server@{i % 97},false"
        )
    return ("\n".join(rows) + "\n").encode()


def wide_csv(quick: bool) -> bytes:
    n = 4_000 if quick else 40_000
    names = ["id", *(f"extra{i}" for i in range(n))]
    return (",".join(names) + "\n" + ",".join(["x"] * len(names)) + "\n").encode()


def _csv_path(data: bytes) -> Path:
    path = Path(tempfile.mkdtemp()) / "input.csv"
    path.write_bytes(data)
    return path


def run_route(data: bytes) -> str:
    from custody_lab.cli import main

    path = _csv_path(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["route", str(path)])
    lines = (out.getvalue() + err.getvalue()).count("\n")
    return f"exit {code}, {lines:,} lines printed"


def run_load_inventory(data: bytes) -> str:
    from custody_lab.core.errors import CaseFileError
    from custody_lab.sweep import load_inventory

    try:
        frame = load_inventory(_csv_path(data))
    except CaseFileError as e:
        return f"refused: {len(e.problems)} problem(s)"
    return f"{len(frame):,} rows"


def run_csv_to_json(data: bytes) -> str:
    from custody_lab.protocol.transforms import Source, csv_to_json

    done = csv_to_json(Source("file:///input.csv", "text/csv", data))
    return f"{done.step.source_range.total:,} row(s), {done.step.size:,} bytes of JSON"


# --------------------------------------------------------------------------------------------
# Markdown and HTML inputs
# --------------------------------------------------------------------------------------------


def realistic_markdown(quick: bool) -> bytes:
    section = "## Escalation\n\nA support agent escalates a ticket when the customer asks twice.\n\n" * 3
    return ("# Support handbook\n\n" + section * ((MB // 10 if quick else MB) // len(section))).encode()


def realistic_html(quick: bool) -> bytes:
    section = "<h2>Week 7</h2><p class='note'>Sales rose in <b>three</b> regions &amp; fell in one.</p>\n" * 3
    return ("<html><body><h1>Weekly report</h1>" + section * ((MB // 10 if quick else MB) // len(section))).encode()


def summary_cases(quick: bool) -> dict[str, tuple[str, Callable[[], bytes]]]:
    n = MB // 10 if quick else MB
    return {
        "a heading line of a million spaces": ("text/markdown", lambda: b"# a" + b" " * n + b"x"),
        "'# ' then ' #' half a million times": ("text/markdown", lambda: b"# " + b" #" * (n // 2) + b"x"),
        "250,000 one-letter headings": ("text/markdown", lambda: b"# h\n" * (n // 4)),
        "'</' half a million times": ("text/html", lambda: b"</" * (n // 2)),
        "'<' a million times": ("text/html", lambda: b"<" * n),
        "unclosed attribute quotes, repeated": ("text/html", lambda: b"<h1><a b='" * (n // 10)),
        "100,000 headings": ("text/html", lambda: b"<h1>x</h1>" * (n // 10)),
    }


def run_summary(mime: str) -> Callable[[bytes], str]:
    def run(data: bytes) -> str:
        from custody_lab.protocol.transforms import Source, summarise

        done = summarise(Source("kb://input", mime, data))
        return f"{done.text.count(chr(10)):,} heading(s){', truncated' if done.step.truncated else ''}"

    return run


# --------------------------------------------------------------------------------------------
# The cases, each measured in a child process
# --------------------------------------------------------------------------------------------


def cases(quick: bool) -> list[tuple[str, str, bool, Callable[[], bytes], Callable[[bytes], str]]]:
    """(group, name, is the reference, build, read) for every case."""
    out: list[tuple[str, str, bool, Callable[[], bytes], Callable[[bytes], str]]] = [
        ("pdf", "reference: a 100-page report with an image (1 MB)", True, lambda: realistic_pdf(quick), read_pdf)
    ]
    out += [("pdf", name, False, build, read_pdf) for name, build in pdf_cases(quick).items()]
    for what, run in (("route", run_route), ("load_inventory", run_load_inventory), ("csv_to_json", run_csv_to_json)):
        out.append(("csv", f"reference: {what}, a 5,000-row inventory", True, lambda: realistic_csv(quick), run))
        out.append(("csv", f"{what}, a header of 40,000 unknown columns", False, lambda: wide_csv(quick), run))
    for mime, build in (("text/markdown", realistic_markdown), ("text/html", realistic_html)):
        make = functools.partial(build, quick)
        out.append(("summary", f"reference: a 1 MB handbook ({mime})", True, make, run_summary(mime)))
        out += [
            ("summary", name, False, make, run_summary(kind))
            for name, (kind, make) in summary_cases(quick).items()
            if kind == mime
        ]
    return out


def measure_here(index: int, quick: bool, repeat: int) -> dict[str, Any]:
    """In the child: build the input, then read it ``repeat`` times (the best time is kept)."""
    _, _, _, build, read = cases(quick)[index]
    data = build()
    import custody_lab.cli  # noqa: F401 - every reader imported before the clock and the memory baseline
    import custody_lab.protocol.transforms  # noqa: F401
    import custody_lab.sweep  # noqa: F401

    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best, answer = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        answer = read(data)
        best = min(best, time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "bytes": len(data),
        "answer": answer,
        "seconds": best,
        "peak_mb": peak / 1024,
        "added_mb": (peak - before) / 1024,
    }


def measure(index: int, quick: bool, repeat: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(index), "--repeat", str(repeat), *(["--quick"] if quick else [])],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise SystemExit(f"case {index} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="reads per case; the best time is printed")
    parser.add_argument("--only", choices=("pdf", "csv", "summary"), help="one group of cases")
    parser.add_argument("--quick", action="store_true", help="inputs a tenth of the size (for the test suite)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure_here(args.child, args.quick, args.repeat)))
        return
    sizes = " (--quick: a tenth of the sizes)" if args.quick else ""
    print(f"hostile inputs{sizes}; best of {args.repeat}; each case in a fresh process")
    print(f"{'case':58} {'input':>11} {'ms':>8} {'peak MB':>8} {'+MB':>6} {'x ref ms':>9} {'x ref +MB':>9}  answer")
    reference: dict[str, Any] = {}
    for index, (group, name, is_reference, _, _) in enumerate(cases(args.quick)):
        if args.only and group != args.only:
            continue
        got = measure(index, args.quick, args.repeat)
        if is_reference:
            reference = got
        ms, added = 1000 * float(got["seconds"]), float(got["added_mb"])
        ref_ms = 1000 * float(reference["seconds"])
        ref_added = max(float(reference["added_mb"]), 1.0)
        ratio = "" if is_reference else f"{ms / ref_ms:9.2f} {added / ref_added:9.2f}"
        print(
            f"{name[:58]:58} {got['bytes']:>11,} {ms:8.1f} {float(got['peak_mb']):8.1f} {added:6.1f} "
            f"{ratio:>19}  {got['answer']}"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
