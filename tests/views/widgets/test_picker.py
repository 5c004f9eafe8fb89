"""The Picker: interact's controls, a result rendered into an HTML value, no Output widget."""

from __future__ import annotations

import ipywidgets as W
import pytest

from custody_lab.core.errors import CustodyLabError
from custody_lab.views.widgets.picker import Picker, result_html


def test_a_list_becomes_a_dropdown_and_a_bool_a_checkbox_each_starting_at_its_first_value():
    seen = []
    p = Picker(lambda uri, digest: seen.append((uri, digest)), uri=("kb://a", "kb://b"), digest=False)
    assert isinstance(p.controls["uri"], W.Dropdown) and isinstance(p.controls["digest"], W.Checkbox)
    assert seen == [("kb://a", False)], f"shown once at start with the first values; got {seen}"


def test_changing_a_control_shows_the_new_result_in_the_html_value():
    p = Picker(lambda uri: f"<{uri}>", uri=["kb://a", "kb://b"])
    p.controls["uri"].value = "kb://b"
    assert p.result == "<kb://b>"
    assert "&lt;kb://b&gt;" in p.output.value and "<kb://b>" not in p.output.value, p.output.value


def test_the_picker_holds_no_output_widget_so_its_cell_sends_no_output_to_capture():
    p = Picker(lambda uri: uri, uri=["kb://a"])
    assert not any(isinstance(child, W.Output) for child in p.children), p.children


def test_an_object_with_its_own_html_is_shown_as_that_html():
    class Shown:
        def _repr_html_(self) -> str:
            return "<table><tr><td>x</td></tr></table>"

    assert result_html(Shown()) == "<table><tr><td>x</td></tr></table>"
    assert result_html(None) == ""


def test_plain_text_has_its_control_characters_made_visible_and_escaped():
    html = result_html("a\x1b<b>")
    assert "\\x1b" in html and "&lt;b&gt;" in html and "\x1b" not in html, html


def test_a_refusal_of_the_lab_is_shown_in_place_of_the_result():
    def refuse(uri: str) -> str:
        raise CustodyLabError(f"no resource <{uri}>")

    p = Picker(refuse, uri=["kb://none"])
    assert p.result is None and "no resource &lt;kb://none&gt;" in p.output.value, p.output.value


@pytest.mark.parametrize("choice", ["kb://a", [], 3])
def test_a_choice_that_is_neither_a_list_nor_a_bool_is_refused_with_its_name(choice):
    with pytest.raises(TypeError, match="^uri: "):
        Picker(lambda uri: uri, uri=choice)
