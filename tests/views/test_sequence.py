"""Sequence diagrams: one tuple of steps drawn as a picture and told as a numbered list, labels kept as data."""

from __future__ import annotations

import io

import matplotlib.image as mpimg
import pytest

from custody_lab.views.html import ViewError
from custody_lab.views.sequence import (
    Sequence,
    Step,
    alt_text,
    figure_png,
    sequence_figure,
    sequence_html,
    sequence_text,
)
from custody_lab.whatif.theme import THEMES

READ = Sequence(
    "Read the handbook",
    (
        Step("model", "user / host", "local", "asks for the handbook"),
        Step("user / host", "user / host", "approval", "the user approves"),
        Step("user / host", "client", "gate", "permission checked"),
        Step("client", "server", "request", "#1 resources/read kb://handbook/v4", 0),
        Step("server", "server", "action", "reads the file"),
        Step("server", "client", "response", "#1 result", 1),
        Step("server", "client", "notification", "notifications/resources/updated", 2),
    ),
    "The host's client issues the read and the server serves it; the model never talks to the server.",
    roles=(("user / host", "initiates"), ("server", "serves")),
)


def _texts(fig) -> dict[str, str]:
    return {t.get_gid(): t.get_text() for t in fig.axes[0].texts if t.get_gid()}


def test_a_step_on_an_unknown_lifeline_is_refused_naming_the_step():
    with pytest.raises(ViewError, match=r"step 2: receiver 'database'"):
        Sequence("t", (Step("client", "server", "request", "a", 0), Step("client", "database", "request", "b")))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("steps", "roles", "message"),
    [
        ((Step("client", "server", "shout", "x"),), (), "step 1: kind 'shout'"),  # type: ignore[arg-type]
        ((), (("database", "stores"),), "roles: 'database' is not one of"),
    ],
)
def test_an_unknown_kind_or_role_lifeline_is_refused_naming_it(steps, roles, message):
    with pytest.raises(ViewError, match=message):
        Sequence("t", steps, roles=roles)


def test_the_text_lists_the_title_the_roles_every_step_in_order_and_the_caption():
    lines = sequence_text(READ).splitlines()
    assert lines[:2] == ["Read the handbook", "Roles: user / host initiates; server serves"], lines[:2]
    assert lines[5] == "4. client → server (request, frame 1): #1 resources/read kb://handbook/v4", lines[5]
    assert lines[6] == "5. server (action): reads the file", lines[6]
    assert len(lines) == 2 + len(READ.steps) + 1 and lines[-1] == READ.caption, lines


def test_the_picture_numbers_every_step_and_draws_an_arrow_only_for_what_travels():
    drawn = _texts(sequence_figure(READ, theme="light"))
    numbers = [drawn[f"number:{n}"] for n in range(1, len(READ.steps) + 1)]
    assert numbers == [str(n) for n in range(1, 8)], numbers
    assert drawn["label:3"] == "GATE · permission checked", drawn["label:3"]
    assert drawn["role:server"] == "serves" and drawn["caption"] == READ.caption, drawn
    fig = sequence_figure(READ, theme="light")
    arrows = sorted(
        int(p.get_gid().split(":")[1]) for p in fig.axes[0].patches if (p.get_gid() or "").startswith("arrow:")
    )
    assert arrows == [1, 4, 6, 7], (
        f"expected arrows for the local, request, response and notification steps, got {arrows}"
    )


def test_a_hostile_step_label_is_drawn_as_plain_text():
    seq = Sequence("$x^2$ <b>", (Step("server", "client", "notification", "<script>x</script> $y$", 0),))
    drawn = _texts(sequence_figure(seq))
    assert [drawn["title"], drawn["label:1"]] == ["$x^2$ <b>", "<script>x</script> $y$"], drawn
    assert all(not t.get_usetex() for t in sequence_figure(seq).axes[0].texts), "a label was given to TeX"


def test_a_long_label_is_cut_in_the_picture_but_whole_in_the_text():
    label = "#9 resources/read " + "x" * 80
    seq = Sequence("t", (Step("client", "server", "request", label, 0),))
    drawn = _texts(sequence_figure(seq))["label:1"]
    assert len(drawn) == 50 and drawn.endswith("…") and label.startswith(drawn[:-1]), drawn
    assert label in sequence_text(seq), "the text equivalent must keep the whole label"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_png_is_drawn_on_the_themes_background(theme):
    png = figure_png(sequence_figure(READ, theme=theme))
    assert png[:8] == b"\x89PNG\r\n\x1a\n", f"{theme}: not a PNG"
    corner = mpimg.imread(io.BytesIO(png))[2, -2][:3]
    rgb = "#" + "".join(f"{round(float(v) * 255):02x}" for v in corner)
    assert rgb == THEMES[theme].background, f"{theme}: corner pixel {rgb}, background {THEMES[theme].background}"


def test_the_html_shows_the_picture_with_alt_text_and_the_same_steps_escaped():
    seq = Sequence("<b>t</b>", (*READ.steps, Step("server", "client", "response", "<img src=x>", 3)))
    html = sequence_html(seq, theme="light")
    assert f'alt="Sequence diagram: &lt;b&gt;t&lt;/b&gt;. {len(seq.steps)} steps (4 frames on the wire)' in html, html[
        :400
    ]
    assert html.count("<li>") == len(seq.steps), f"{html.count('<li>')} items for {len(seq.steps)} steps"
    assert "<img src=x>" not in html and "&lt;img src=x&gt;" in html, "a step label reached the page as markup"
    assert alt_text(seq).startswith("Sequence diagram: <b>t</b>. 8 steps (4 frames"), alt_text(seq)
