"""The predict-then-check panel, driven as a learner drives it: type a prediction, press the button."""

from __future__ import annotations

import html
import re

import pytest

import custody_lab as cl
from custody_lab.exercises import ExerciseError, input_for, progress, reset_progress
from custody_lab.widgets import CaseExplorer, PredictPanel

PREDICTIONS = ["route-01", "route-02"]


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


@pytest.fixture(scope="module")
def explorer():
    return CaseExplorer("approve-draft", chart=False)


def visible_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def predict(panel: PredictPanel, typed: str) -> None:
    panel.prediction.value = typed
    panel.apply_button.click()


@pytest.mark.parametrize("exercise_id", PREDICTIONS)
@pytest.mark.parametrize("typed", ["", "   ", "..."])
def test_an_empty_prediction_applies_nothing(explorer, exercise_id, typed):
    explorer.load("customer-record")
    before = explorer.case
    panel = PredictPanel(exercise_id, explorer)
    predict(panel, typed)
    assert panel.result is not None and panel.result.status == "not-answered", panel.result
    assert not panel.applied and explorer.case == before, (
        f"{exercise_id}, typed {typed!r}: expected the explorer left on customer-record, got {explorer.case.id}"
    )
    assert "Nothing was applied" in panel.output.value
    assert exercise_id not in progress(), "an empty box must not count as an attempt"


@pytest.mark.parametrize("exercise_id", PREDICTIONS)
def test_a_right_prediction_passes_and_the_explorer_then_shows_the_changed_case(explorer, exercise_id):
    explorer.load("customer-record")  # the learner has wandered off to another case
    panel = PredictPanel(exercise_id, explorer)
    change = input_for(exercise_id)
    predict(panel, cl.route(change.case()).outcome)  # computed here: reveal() would count as "revealed"
    assert panel.result is not None and panel.result.passed, panel.result
    assert panel.applied and explorer.baseline.id == change.case_id, explorer.baseline.id
    assert explorer.case == change.case(), f"explorer {explorer.case} != the exercise's change {change.case()}"
    assert explorer.decision == cl.route(change.case()), explorer.decision
    (field,) = change.changes
    assert field in visible_text(explorer.diff.value), f"the diff line should name {field}: {explorer.diff.value}"
    assert progress()[exercise_id] in (True, "passed"), progress()


@pytest.mark.parametrize(("exercise_id", "wrong"), [("route-01", "embedded-resource"), ("route-02", "stale-content")])
def test_a_wrong_prediction_gets_its_hint_and_the_change_is_still_applied_but_not_spelled_out(
    explorer, exercise_id, wrong
):
    panel = PredictPanel(exercise_id, explorer)
    predict(panel, wrong)
    assert panel.result is not None and panel.result.status == "wrong" and panel.result.hint, panel.result
    assert "Hint:" in panel.output.value
    assert panel.applied and explorer.case == input_for(exercise_id).case()
    shown = visible_text(panel.output.value)
    assert cl.route(input_for(exercise_id).case()).outcome not in shown, (
        f"{exercise_id}: the panel's own feedback shows the answer: {shown}"
    )


def test_pressing_twice_applies_the_one_change_once(explorer):
    panel = PredictPanel("route-01", explorer)
    predict(panel, "resource-link")
    explorer.set(bytes=12000)  # the learner drags the slider on
    predict(panel, "embedded-resource")
    assert explorer.case.bytes == 4097 and explorer.case == input_for("route-01").case(), explorer.case


def test_without_an_explorer_the_panel_builds_one_and_shows_it_only_after_a_prediction():
    panel = PredictPanel("route-02")
    assert panel.explorer in panel.children and panel.explorer.layout.display == "none"
    predict(panel, "")
    assert panel.explorer.layout.display == "none", "an empty prediction must not show the outcome"
    predict(panel, "templated-resource")
    assert panel.explorer.layout.display != "none" and panel.explorer.case == input_for("route-02").case()


def test_a_panel_given_an_explorer_does_not_add_a_second_one(explorer):
    panel = PredictPanel("route-01", explorer)
    assert panel.explorer is explorer and explorer not in panel.children


def test_a_hostile_prediction_is_escaped(explorer):
    panel = PredictPanel("route-01", explorer)
    predict(panel, "<img src=x onerror=alert(1)>")
    assert "<img" not in panel.output.value and "&lt;img src=x onerror=alert(1)&gt;" in panel.output.value


@pytest.mark.parametrize("exercise_id", ["route-03", "receipt-01", "blob-01"])
def test_an_exercise_whose_input_is_not_a_one_input_change_is_refused_by_name(exercise_id):
    # route-03 changes two inputs, receipt-01 gives a receipt, blob-01 a base64 string
    with pytest.raises(ExerciseError, match=exercise_id):
        PredictPanel(exercise_id)


# --------------------------------------------------------------------------------------------
# PredictThenSee: any demonstration stays hidden (and uncomputed) until a prediction is judged
# --------------------------------------------------------------------------------------------


class _Demo:
    def __init__(self, value: object = "the demonstration") -> None:
        self.calls = 0
        self.value = value

    def __call__(self) -> object:
        self.calls += 1
        return self.value


@pytest.mark.parametrize("typed", ["", "   ", "..."])
def test_predict_then_see_shows_and_computes_nothing_before_a_prediction(typed):
    from custody_lab.widgets import PredictThenSee

    demo = _Demo()
    panel = PredictThenSee("blob-01", demo)
    panel.prediction.value = typed
    panel.show_button.click()
    assert panel.result is not None and panel.result.status == "not-answered"
    assert (panel.shown, demo.calls, panel.demo_area.children) == (False, 0, ())
    assert "Nothing is shown yet" in visible_text(panel.output.value)
    assert progress().get("blob-01") in (None, "not-tried")


@pytest.mark.parametrize(("typed", "status"), [("140", "wrong"), ("105", "passed")])
def test_predict_then_see_judges_first_then_shows_the_demonstration_once(typed, status):
    from custody_lab.widgets import PredictThenSee

    demo = _Demo()
    panel = PredictThenSee("blob-01", demo)
    panel.prediction.value = typed
    panel.show_button.click()
    assert panel.result is not None and panel.result.status == status
    assert panel.shown and demo.calls == 1
    (area,) = panel.demo_area.children
    assert area.outputs[0]["data"]["text/plain"] == "'the demonstration'"
    panel.show_button.click()  # a second try re-judges but does not show the demonstration twice
    assert demo.calls == 1
    # the feedback is the engine's: a wrong prediction never carries the expected value
    if status == "wrong":
        assert "105" not in visible_text(panel.output.value)


def test_predict_then_see_places_a_widget_demonstration_itself():
    import ipywidgets as widgets

    from custody_lab.widgets import PredictThenSee

    shown = widgets.HTML("what happens")
    panel = PredictThenSee("blob-01", _Demo(shown))
    panel.prediction.value = "105"
    panel.show_button.click()
    assert panel.demo_area.children == (shown,)


def test_predict_then_see_shows_a_lab_refusal_as_words_not_a_traceback():
    from custody_lab.core.errors import CustodyLabError
    from custody_lab.widgets import PredictThenSee

    def refuses() -> object:
        raise CustodyLabError("template <bad> is refused")

    panel = PredictThenSee("blob-01", refuses)
    panel.prediction.value = "105"
    panel.show_button.click()
    text = panel.output.value
    assert "The demonstration stopped: template &lt;bad&gt; is refused" in text
    assert not panel.shown


def test_predict_then_see_needs_a_function_and_a_known_exercise():
    from custody_lab.exercises import UnknownExercise
    from custody_lab.widgets import PredictThenSee

    with pytest.raises(ExerciseError, match="demo must be a function"):
        PredictThenSee("blob-01", "not callable")  # type: ignore[arg-type]
    with pytest.raises(UnknownExercise):
        PredictThenSee("blob-99", _Demo())
