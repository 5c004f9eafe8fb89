"""The HTML module's colours read in both JupyterLab themes: a style that paints a background also
sets its text colour, and a text colour with no background of its own follows the theme."""

from __future__ import annotations

import re

import pytest

from custody_lab.views import html

STYLES = {
    **{f"KINDS[{k}]": v for k, v in html.KINDS.items()},
    **{f"ROW_STYLES[{k}]": v for k, v in html.ROW_STYLES.items()},
    **{f"TONES[{k}]": v for k, v in html.TONES.items()},
}


def declarations(style: str) -> dict[str, str]:
    return dict(
        (name.strip(), value.strip()) for name, _, value in (d.partition(":") for d in style.split(";")) if value
    )


@pytest.mark.parametrize("name", sorted(STYLES))
def test_a_background_comes_with_its_own_text_colour_and_a_bare_colour_follows_the_theme(name):
    css = declarations(STYLES[name])
    if "background" in css:
        assert "color" in css, f"{name} = {STYLES[name]!r} paints a background but inherits the theme's text colour"
    elif "color" in css:
        colour = css["color"]
        assert colour == "inherit" or re.match(r"var\(--jp-", colour), (
            f"{name} = {STYLES[name]!r}: a fixed text colour on the theme's background is unreadable in one theme"
        )


def test_the_muted_note_of_a_case_without_text_follows_the_theme():
    from custody_lab import load_fixture
    from custody_lab.views.widgets.render import untrusted_html

    shown = untrusted_html(load_fixture().case("handbook"))
    assert "var(--jp-ui-font-color2" in shown and "#555555)" in shown, shown
