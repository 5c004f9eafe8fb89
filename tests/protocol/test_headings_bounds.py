"""Summarising Markdown and HTML is bounded (issue 24 §1): one linear pass over at most
``MAX_SUMMARY_BYTES``, a record that names any cut, and the same headings as before.

"The same headings as before" is checked against the readers this one replaced: the ATX regex
``^ {0,3}(#{1,6})\\s+(.*?)(?:\\s+#+)?\\s*$`` (quadratic on a long line of spaces) and the standard
library's ``html.parser`` (quadratic on ``</`` repeated), on many small documents built here.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser

import pytest

from custody_lab.protocol.text_structure import headings
from custody_lab.protocol.transforms import MAX_SUMMARY_BYTES, Source, TransformError, check_step, summarise

from ..timing import scaled

OLD_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")


class _OldHeadings(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.level: int | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self.level, self.text = int(tag[1]), []

    def handle_endtag(self, tag: str) -> None:
        if self.level is not None and tag == f"h{self.level}":
            self.found.append((self.level, " ".join("".join(self.text).split())))
            self.level = None

    def handle_data(self, data: str) -> None:
        if self.level is not None:
            self.text.append(data)


def old_html(text: str) -> list[tuple[int, str]]:
    parser = _OldHeadings()
    parser.feed(text)
    parser.close()
    return parser.found


def test_atx_headings_are_read_as_the_old_regex_read_them():
    rng = random.Random(2024)
    alphabet = ["#", "#", " ", " ", "\t", "a", "b", "\u3000", "\x1c"]
    lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(40_000)]
    lines += ["# A", "## B ##", "#  ##", "# ##", "####### no", "   ### x #", "    # code", "#\tTab\t#\t"]
    differ = []
    for line in lines:  # "\x1c" is a line end to str.splitlines, so some of these are two lines
        found = (OLD_ATX.match(part) for part in line.splitlines())
        old = [(len(m.group(1)), m.group(2)) for m in found if m]
        if headings(line, "text/markdown") != old:
            differ.append((line, old, headings(line, "text/markdown")))
    assert not differ, differ[:5]
    assert sum(1 for line in lines if OLD_ATX.match(line)) > 5000, "the sample must hold many headings"


HTML_PIECES = [
    "<h1>", "</h1>", "<h2>", "</h2>", "<H1 class='a>b'>", "x", " ", "&amp;", "&lt;", "<!-- c -->", "<b>", "</b>",
    "<br/>", "<script>", "</script>", "<p>", "\n", "<!DOCTYPE html>", "</H2 >", "<h3/>", "é", " < ", "<<", "a<3",
]  # fmt: skip


def test_html_headings_are_read_as_the_standard_librarys_parser_read_them():
    rng = random.Random(7)
    documents = ["".join(rng.choice(HTML_PIECES) for _ in range(rng.randint(0, 12))) for _ in range(20_000)]
    differ = [(d, old_html(d), headings(d, "text/html")) for d in documents if old_html(d) != headings(d, "text/html")]
    assert not differ, differ[:5]
    assert sum(1 for d in documents if old_html(d)) > 3000, "the sample must hold many headings"


#: Inputs of 1 MB on which the old readers were quadratic (or worse), and what the new one reads.
HOSTILE = {
    "a heading line of a million spaces": ("text/markdown", '"# a" + " " * 1_000_000 + "x"', 1),
    "a million '#' and spaces": ("text/markdown", '"# " + " #" * 500_000 + "x"', 1),
    "half a million '</'": ("text/html", '"</" * 500_000', 0),
    "a million '<'": ("text/html", '"<" * 1_000_000', 0),
    "an attribute quote never closed, repeated": ("text/html", '"<h1><a b=\'" * 100_000', 0),
    "headings never closed": ("text/html", '"<h1>x" * 200_000', 0),
    "a quarter million headings": ("text/markdown", '"# h\\n" * 250_000', 250_000),
}


def test_hostile_markdown_and_html_of_a_megabyte_are_summarised_in_one_pass():
    """Run in a child process under a deadline a thousand times what one pass takes: a reader
    that went quadratic again would never finish (this is a guard, not a timing)."""
    script = textwrap.dedent(
        """
        import sys
        from custody_lab.protocol.transforms import Source, summarise
        for mime, expr in zip(sys.argv[1::2], sys.argv[2::2]):
            done = summarise(Source("kb://x", mime, eval(expr).encode()))
            print(done.text.count("\\n"), done.step.truncated)
        """
    )
    args = [part for mime, expr, _ in HOSTILE.values() for part in (mime, expr)]
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=scaled(300), check=True
    ).stdout.split("\n")
    assert out[: len(HOSTILE)] == [f"{n} False" for _, _, n in HOSTILE.values()], dict(zip(HOSTILE, out))


def test_a_source_over_the_budget_is_summarised_from_its_start_and_the_record_names_the_rest():
    data = b"# Top\n" + b"text\n" * (MAX_SUMMARY_BYTES // 5) + b"# Past the budget\n"
    done = summarise(Source("kb://long", "text/markdown", data))
    step = check_step(done.step.to_dict())
    assert done.text == "- Top\n", done.text
    assert (step.source_range.stop, step.source_range.total) == (MAX_SUMMARY_BYTES, len(data)), step.source_range
    assert step.truncated and step.rest_uri == "kb://long", step


def test_reading_more_than_the_budget_is_refused_naming_it():
    with pytest.raises(TransformError) as caught:
        summarise(Source("kb://x", "text/markdown", b"# a\n"), read_bytes=MAX_SUMMARY_BYTES + 1)
    assert caught.value.field == "read_bytes" and "MAX_SUMMARY_BYTES" in str(caught.value), str(caught.value)


@pytest.mark.parametrize(
    ("mime", "unit"), [("text/markdown", b"###### a\n"), ("text/html", b"<h6>a</h6>")], ids=["markdown", "html"]
)
def test_the_outline_is_never_longer_than_twice_what_was_read(mime, unit):
    data = unit * 10_000
    done = summarise(Source("kb://x", mime, data))
    assert done.text.count("\n") == 10_000 and done.step.size <= 2 * len(data), (done.step.size, len(data))
