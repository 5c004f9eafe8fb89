"""Untrusted text made visible: controls, bidi overrides and zero-width characters, nothing else."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from custody_lab.core.text import INVISIBLE, terminal_json, visible, visible_controls

#: The general categories nothing from a server may keep raw in a terminal line or a page.
HIDDEN = ("Cc", "Cf", "Zl", "Zp")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),  # ANSI clear screen
        ("line\rover", "line\\x0dover"),  # carriage return would overwrite the line
        ("a\nb", "a\\x0ab"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("\x7f", "\\x7f"),
        ("\x00", "\\x00"),
    ],
)
def test_every_control_character_is_shown_as_an_escape(raw, shown):
    assert visible_controls(raw) == shown, (raw, shown, visible_controls(raw))
    assert visible(raw) == shown


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


@pytest.mark.parametrize("ch", sorted(INVISIBLE))
def test_bidi_overrides_and_zero_width_characters_are_shown_by_visible_only(ch):
    assert visible(f"a{ch}b") == f"a{_escape(ch)}b", (ch, visible(f"a{ch}b"))
    if ch not in "\u2028\u2029":  # the two line breaks are escaped by visible_controls too
        assert visible_controls(f"a{ch}b") == f"a{ch}b"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp"))))
def test_ordinary_text_is_never_changed(text):
    assert visible(text) == text


@given(st.text())
def test_the_result_has_no_control_or_invisible_character_left(text):
    out = visible(text)
    assert not any(unicodedata.category(c) in HIDDEN or c in INVISIBLE for c in out), repr(out)


@given(
    st.recursive(st.text(), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3))
)
def test_terminal_json_is_the_same_json_value_with_nothing_raw_left(value):
    import json

    from custody_lab.core.text import terminal_json

    out = terminal_json(value)
    assert json.loads(out) == value
    assert not any(c != "\n" and (unicodedata.category(c) in HIDDEN or c in INVISIBLE) for c in out), repr(out)


#: The bidirectional formatting characters of Unicode UAX #9, written out here rather than read
#: from ``INVISIBLE``, so a character dropped from that set fails a test instead of leaving it.
BIDI_FORMATTING = {
    "\u202a": "LRE (left-to-right embedding)",
    "\u202b": "RLE (right-to-left embedding)",
    "\u202c": "PDF (pop directional formatting)",
    "\u202d": "LRO (left-to-right override)",
    "\u202e": "RLO (right-to-left override)",
    "\u2066": "LRI (left-to-right isolate)",
    "\u2067": "RLI (right-to-left isolate)",
    "\u2068": "FSI (first strong isolate)",
    "\u2069": "PDI (pop directional isolate)",
}


@pytest.mark.parametrize("ch", sorted(BIDI_FORMATTING), ids=lambda ch: BIDI_FORMATTING[ch].split()[0])
def test_every_bidi_embedding_override_and_isolate_is_escaped_for_a_terminal_and_a_page(ch):
    from custody_lab.core.text import terminal_json

    escape = f"\\u{ord(ch):04x}"
    actual = (visible(f"invoice{ch}fdp.exe"), terminal_json(f"invoice{ch}fdp.exe", indent=None))
    expected = (f"invoice{escape}fdp.exe", f'"invoice{escape}fdp.exe"')
    assert actual == expected, f"{BIDI_FORMATTING[ch]}: expected {expected}, got {actual}"


#: Characters that split a line or hide text, written out here (not read from ``INVISIBLE``), each
#: with why it matters.
SPLIT_OR_HIDE = {
    "\u2028": "LINE SEPARATOR: an id holding it prints as two lines",
    "\u2029": "PARAGRAPH SEPARATOR: the same, as a paragraph break",
    "\U000e0001": "LANGUAGE TAG: the tag block's first character",
    "\U000e003c": "TAG LESS-THAN SIGN: invisible, yet a '<' to a reader that decodes tags",
    "\U000e0063": "TAG LATIN SMALL LETTER C",
    "\U000e007f": "CANCEL TAG: the block's last character",
    "\u2062": "INVISIBLE TIMES",
    "\u180e": "MONGOLIAN VOWEL SEPARATOR",
    "\u206a": "INHIBIT SYMMETRIC SWAPPING (deprecated format character)",
    "\ufff9": "INTERLINEAR ANNOTATION ANCHOR",
}


@pytest.mark.parametrize("ch", sorted(SPLIT_OR_HIDE), ids=lambda ch: f"U+{ord(ch):04X}")
def test_line_separators_tag_characters_and_other_format_characters_are_escaped(ch):
    units = ch.encode("utf-16-be")  # JSON escapes a character beyond U+FFFF as its surrogate pair
    json_escape = "".join(f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2))
    actual = (visible(f"id{ch}x"), terminal_json(f"id{ch}x", indent=None))
    expected = (f"id{_escape(ch)}x", f'"id{json_escape}x"')
    assert actual == expected, f"{SPLIT_OR_HIDE[ch]}: expected {expected}, got {actual}"
    assert "\n" not in terminal_json({"id": f"a{ch}b"}).splitlines()[1], "the value must stay on one line"


def test_a_closing_tag_spelled_in_tag_characters_is_shown_character_by_character():
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "</context>")
    assert visible(f"ok{hidden}") == "ok" + "".join(f"\\U{0xE0000 + ord(c):08x}" for c in "</context>")


def test_every_format_character_this_python_knows_is_escaped():
    import sys

    hidden = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")]
    assert len(hidden) > 150, len(hidden)  # Unicode 14 has 163 Cf, one Zl and one Zp
    raw = [f"U+{ord(ch):04X}" for ch in hidden if visible(ch) == ch or terminal_json(ch)[1:-1] == ch]
    assert raw == [], f"left raw: {raw}"


def test_visible_controls_escapes_the_line_separators_but_not_the_other_format_characters():
    assert visible_controls("a\u2028b\u2029c\u202ed") == "a\\u2028b\\u2029c\u202ed"


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_route_prints_an_id_with_a_line_separator_on_one_line(tmp_path, capsys, as_json):
    import json

    from custody_lab.cli import main

    cases = json.loads((Path(__file__).parents[2] / "data" / "cases.json").read_text(encoding="utf-8"))["cases"][:2]
    cases[0]["id"] = "handbook\u2028accepted  forged-line\U000e0041"
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": cases}, ensure_ascii=False), encoding="utf-8")
    assert main(["route", *(["--json"] if as_json else []), str(path)]) == 0
    out = capsys.readouterr().out
    raw = [f"U+{ord(c):04X}" for c in out if c != "\n" and unicodedata.category(c) in HIDDEN]
    assert raw == [], f"route printed raw {raw}: {out!r}"
    if as_json:
        assert json.loads(out)[0]["id"] == cases[0]["id"], out
    else:
        assert len(out.splitlines()) == 2 and "handbook\\u2028accepted" in out, out


@pytest.mark.parametrize("ch", ["\u2028", "\u2029", "\U000e003c", "\u2066"], ids=lambda ch: f"U+{ord(ch):04X}")
def test_the_html_module_shows_the_same_characters_in_a_page(ch):
    from custody_lab.views.html import cell, code, escape, pre, untrusted

    for shown in (untrusted(f"a{ch}b"), code(f"a{ch}b"), cell(f"a{ch}b"), pre(f"a{ch}b"), escape(f"a{ch}b")):
        assert ch not in shown and _escape(ch) in shown, f"U+{ord(ch):04X} reached the page raw: {shown!r}"


def test_a_lone_surrogate_is_shown_as_an_escape_so_printing_it_cannot_fail():
    import json

    parsed = json.loads('{"id": "a\\ud800b"}')["id"]  # what a server's JSON can hold
    assert visible(parsed) == "a\\ud800b" and terminal_json(parsed, indent=None) == '"a\\ud800b"'
    assert json.loads(terminal_json(parsed)) == parsed
    terminal_json(parsed).encode("utf-8")  # what a terminal's print does: must not raise


def test_escape_shows_hiding_characters_but_keeps_a_lab_texts_line_breaks_and_tabs():
    from custody_lab.views.html import escape

    assert escape("one\ntwo\tthree <b>") == "one\ntwo\tthree &lt;b&gt;"
    assert escape("x\u202ey\U000e0041") == "x\\u202ey\\U000e0041"


def test_hidden_characters_are_listed_once_each_made_visible():
    from custody_lab.core.text import hidden_characters, is_hidden

    assert hidden_characters("a\u200bb\u200bc\x1b") == ["\\u200b", "\\x1b"]
    assert hidden_characters("Dana\u3164Ruiz") == ["\\u3164"]  # a Hangul filler is a letter, and blank
    assert not is_hidden(" ") and not is_hidden("\n") and is_hidden("\u2800")
