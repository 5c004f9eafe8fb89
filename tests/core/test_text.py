"""Untrusted text made visible: controls, bidi overrides and zero-width characters, nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from custody_lab.core.text import INVISIBLE, visible, visible_controls


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


@pytest.mark.parametrize("ch", sorted(INVISIBLE))
def test_bidi_overrides_and_zero_width_characters_are_shown_by_visible_only(ch):
    escape = f"\\u{ord(ch):04x}" if ord(ch) > 0xFF else f"\\x{ord(ch):02x}"
    assert visible(f"a{ch}b") == f"a{escape}b", (ch, visible(f"a{ch}b"))
    assert visible_controls(f"a{ch}b") == f"a{ch}b"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters=sorted(INVISIBLE))))
def test_ordinary_text_is_never_changed(text):
    assert visible(text) == text


@given(st.text())
def test_the_result_has_no_control_or_invisible_character_left(text):
    out = visible(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in INVISIBLE for c in out), repr(out)


@given(
    st.recursive(st.text(), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3))
)
def test_terminal_json_is_the_same_json_value_with_nothing_raw_left(value):
    import json

    from custody_lab.core.text import terminal_json

    out = terminal_json(value)
    assert json.loads(out) == value
    assert not any(0x7F <= ord(c) <= 0x9F or c in INVISIBLE for c in out), repr(out)


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
