"""Every numeric control of every widget uses exactly the number typed, or says beside itself why not.

Issue 27 §1: an ``IntText`` turned a typed ``1e9`` into 19 and ``12.5`` into 125, and a slider's
readout clamped ``25000`` to its end, all without a word. Each numeric control is now a
:class:`~custody_lab.views.widgets.controls.StrictIntSlider` whose readout is off and whose box the
lab reads itself; tests/test_browser_layout.py types the same numbers in a real browser.
"""

from __future__ import annotations

import html

import ipywidgets as W
import pytest

from custody_lab.views.context_costs import budget_panel
from custody_lab.views.widgets.controls import NumberError, StrictIntSlider, read_whole_number
from custody_lab.widgets import (
    BlobViewer,
    CaseExplorer,
    ExercisePanel,
    LinkOrEmbedCalculator,
    PredictPanel,
    PredictThenSee,
    TemplateReader,
    WhatIfPanel,
)

#: What the issue's browser run typed into each control, and the reason a refused one must give.
TYPED = [
    ("1e9", None, "exponent"),
    ("12.5", None, "no decimal point"),
    ("25000", 25000, None),
    ("-5", None, "or more"),
    ("abc", None, "not a whole number"),
    ("1,800", None, "without separators"),
]

WIDGETS = {
    "explorer": lambda: CaseExplorer("handbook", chart=False),
    "what-if": lambda: WhatIfPanel(chart=False),
    "calculator": LinkOrEmbedCalculator,
    "budget panel": budget_panel,
    "template reader": TemplateReader,
    "blob viewer": BlobViewer,
}


def _walk(widget: W.Widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def _numeric(widget: W.Widget) -> list[W.Widget]:
    return [w for w in _walk(widget) if isinstance(w, (W.IntSlider, W.IntText, W.FloatText, W.FloatSlider))]


def _controls() -> list[tuple[str, str]]:
    return [(name, s.description) for name, make in WIDGETS.items() for s in _numeric(make())]


@pytest.mark.parametrize("name", WIDGETS)
def test_every_numeric_control_is_a_strict_slider_with_its_box_and_note_beside_it(name):
    widget = WIDGETS[name]()
    for control in _numeric(widget):
        assert isinstance(control, StrictIntSlider), f"{name}: {type(control).__name__} {control.description!r}"
        assert not control.readout, f"{name}: {control.description!r} shows a readout (a typed readout clamps)"
        assert control.row.children[:3] == (control, control.box, control.note), f"{name}: {control.description!r}"
        assert any(w is control.row for w in _walk(widget)), f"{name}: {control.description!r}'s row is not shown"


def test_the_widgets_have_the_numeric_controls_the_issue_lists():
    assert len(_controls()) >= 9, _controls()


@pytest.mark.parametrize(("typed", "used", "why"), TYPED)
@pytest.mark.parametrize(("name", "description"), _controls())
def test_each_number_typed_is_used_exactly_or_refused_beside_the_control(name, description, typed, used, why):
    widget = WIDGETS[name]()
    (control,) = [s for s in _numeric(widget) if s.description == description]
    before = control.value
    if used is not None and control is getattr(widget, "pager", None):
        used, why = None, "goes up to"  # a page beyond the last is refused, not clamped
    control.box.value = typed
    note = html.unescape(control.note.value)
    if used is None:
        assert control.value == before, f"{name} / {description}: typed {typed!r}, value moved to {control.value}"
        assert why in note and repr(typed) in note, f"{name} / {description}: typed {typed!r}, note {note!r}"
        assert "nothing was changed" in note, note
    else:
        got = (control.value, control.box.value, note)
        assert got == (used, typed, ""), f"{name} / {description}: typed {typed!r}, got {got}"


def test_a_number_typed_after_a_refusal_clears_the_note():
    slider = StrictIntSlider(value=5, min=1, max=10, description="reuse")
    slider.box.value = "x"
    assert "reuse" in slider.note.value
    slider.box.value = "7"
    assert (slider.value, slider.note.value) == (7, ""), (slider.value, slider.note.value)


@pytest.mark.parametrize(
    ("text", "low", "high", "expected"),
    [("0", 0, None, 0), (" 42 ", 0, None, 42), ("+3", 1, None, 3), ("10", 1, 10, 10), ("007", 0, None, 7)],
)
def test_plain_digits_are_read_exactly(text, low, high, expected):
    assert read_whole_number(text, "n", low, high) == expected


@pytest.mark.parametrize(
    ("text", "low", "high", "why"),
    [
        ("", 0, None, "type a whole number"),
        ("11", 1, 10, "goes up to 10"),
        ("0", 1, None, "must be 1 or more"),
        ("1_000", 0, None, "without separators"),
        ("1.5e3", 0, None, "exponent"),
        ("9" * 16, 0, None, "more than 15 digits"),
        ("0x10", 0, None, "not a whole number"),
        ("٣", 0, None, "not a whole number"),  # an Arabic-Indic digit: int() reads it, the box does not
    ],
)
def test_anything_but_plain_digits_in_range_is_refused_naming_the_control(text, low, high, why):
    with pytest.raises(NumberError, match=why) as caught:
        read_whole_number(text, "page", low, high)
    assert caught.value.control == "page" and str(caught.value).startswith("page: "), str(caught.value)


BUTTON_READ_BOXES = {
    "exercise answer": lambda: ExercisePanel("blob-01").answer,
    "prediction": lambda: PredictPanel("route-02").prediction,
    "prediction then see": lambda: PredictThenSee("blob-01", lambda: "shown").prediction,
    "pasted blob": lambda: BlobViewer().blob_box,
    "declared MIME": lambda: BlobViewer().mime_box,
    "pasted case": lambda: CaseExplorer("handbook", chart=False).paste,
    "number box": lambda: StrictIntSlider(value=1, min=0, max=5).box,
}


@pytest.mark.parametrize("name", BUTTON_READ_BOXES)
def test_every_box_a_button_reads_sends_its_value_before_the_click(name):
    # sent as typed, a busy kernel got the click before the last keystrokes (issue 27 §1)
    box = BUTTON_READ_BOXES[name]()
    assert box.continuous_update is False, f"{name}: continuous_update={box.continuous_update}"
