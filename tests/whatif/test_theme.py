"""The two chart themes: text that meets 4.5:1, the theme chosen by argument, variable or default, glyphs the font has."""

from __future__ import annotations

import pytest

from custody_lab.whatif.theme import MIN_TEXT, THEME_VARIABLE, THEMES, Theme, ThemeError, contrast, drawable, theme_of


@pytest.mark.parametrize(
    ("text", "expected"), [("✅ done", "✓ done"), ("❌", "✗"), ("plain-id", "plain-id"), ("a🦜b", "a[U+1F99C]b")]
)
def test_drawable_replaces_only_what_the_chart_font_lacks(text, expected):
    assert drawable(text) == expected, f"{text!r}: expected {expected!r}, got {drawable(text)!r}"


def test_drawable_spells_out_a_lock_keeps_whitespace_and_maps_coloured_dots_to_plain_ones():
    for text, expected in (("🔒 a\tb\nc 🔓", "[lock] a\tb\nc [unlock]"), ("🔴🟢⭕", "●●○")):
        assert drawable(text) == expected, f"{text!r}: expected {expected!r}, got {drawable(text)!r}"


@pytest.mark.parametrize("name", list(THEMES))
@pytest.mark.parametrize("role", ["text", "muted"])
def test_every_theme_text_colour_meets_4_5_to_1_on_the_background_and_on_label_boxes(name, role):
    look = THEMES[name]
    for under in ("background", "box"):
        ratio = contrast(getattr(look, role), getattr(look, under))
        assert ratio >= 4.5, f"{name}: {role} on {under} is {ratio:.2f}:1, below 4.5:1"


@pytest.mark.parametrize(("a", "b", "ratio"), [("#000000", "#ffffff", 21.0), ("#777777", "#777777", 1.0)])
def test_contrast_is_the_wcag_ratio_whichever_colour_comes_first(a, b, ratio):
    assert contrast(a, b) == contrast(b, a) == pytest.approx(ratio), f"{a} on {b}: expected {ratio}"


def test_the_argument_wins_over_the_variable_which_wins_over_light(monkeypatch):
    monkeypatch.setenv(THEME_VARIABLE, " Dark ")
    assert theme_of().name == "dark", "the variable, trimmed and in any case, names the theme"
    assert theme_of("light").name == "light", "an argument wins over the variable"
    custom = Theme("mine", *(["#000000"] * 10))
    assert theme_of(custom) is custom, "a Theme is used as it is"
    monkeypatch.setenv(THEME_VARIABLE, "")
    assert theme_of().name == "light", "an empty variable means light"


@pytest.mark.parametrize(
    ("argument", "variable", "where"), [("sepia", None, "theme:"), (None, "sepia", THEME_VARIABLE)]
)
def test_an_unknown_theme_is_refused_naming_where_it_came_from(monkeypatch, argument, variable, where):
    if variable is not None:
        monkeypatch.setenv(THEME_VARIABLE, variable)
    with pytest.raises(ThemeError) as err:
        theme_of(argument)
    said = str(err.value)
    assert said.startswith(where) and "'sepia'" in said and "light, dark" in said, said
    assert isinstance(err.value, ValueError), type(err.value).__mro__


def test_the_rc_settings_paint_figure_axes_and_saved_file_in_the_background():
    for look in THEMES.values():
        rc = look.rc()
        faces = {rc["figure.facecolor"], rc["axes.facecolor"], rc["savefig.facecolor"]}
        assert faces == {look.background}, f"{look.name}: backgrounds {faces}"
        assert rc["text.color"] == look.text and rc["xtick.labelcolor"] == look.text, rc
    assert MIN_TEXT == 9.0, f"the projector minimum is 9 pt, got {MIN_TEXT}"
