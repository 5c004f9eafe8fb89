"""Predict, then check: the learner writes the outcome they expect, then sees what happens.

``PredictPanel("route-01", explorer)`` shows a prediction exercise (one whose input is a
:class:`~custody_lab.teaching.exercise_sets._changes.CaseChange`), a box for the predicted
outcome and one button. Pressing it checks the prediction through the exercise engine
(:func:`~custody_lab.exercises.check`) and only then applies the change in the
:class:`~custody_lab.views.widgets.explorer.CaseExplorer`, exactly as the learner would with the
controls, so the explorer's outcome, trace and diff show what really happens. An empty box is
"not answered yet" and applies nothing: the prediction comes first.

The panel holds no routing logic: the explorer routes, the engine judges. Its own feedback is
the engine's result, which never contains the expected outcome.

``PredictThenSee("uri-02", demo)`` is the same pattern for any demonstration, not only a case
change: the demonstration (``demo()``, any displayable value or widget) stays hidden, and is not
even computed, until the learner has written a prediction and the engine has judged it. A notebook
run top to bottom therefore shows the question, never its answer.
"""

from __future__ import annotations

__all__ = ["PredictPanel", "PredictThenSee"]

from collections.abc import Callable

import ipywidgets as widgets

from ..core.errors import CustodyLabError
from ..views.html import code, escape, small
from ..views.widgets.controls import READ_ON_SUBMIT, fits_words, wrapping_row
from ..views.widgets.explorer import CaseExplorer
from .exercise_sets import CaseChange
from .exercises import CheckResult, Exercise, ExerciseError, check, get, input_for
from .feedback import exercise_heading_html, markdown_html


def _prediction_box(exercise: Exercise) -> widgets.Text:
    """The box a learner types a prediction into (both panels)."""
    return widgets.Text(
        value="",
        placeholder=f"type {exercise.wanted}",
        description="I predict:",
        **READ_ON_SUBMIT,  # the value reaches the kernel before a click on Check
        layout=widgets.Layout(flex="1 1 220px", width="auto", min_width="200px"),
    )


def _primary_button(words: str, icon: str, tooltip: str) -> widgets.Button:
    return widgets.Button(description=words, button_style="primary", icon=icon, layout=fits_words(), tooltip=tooltip)


class PredictPanel(widgets.VBox):
    """A prediction box and one button that checks the prediction, then applies the change.

    Args:
        exercise_id: a prediction exercise (its input is a one-input ``CaseChange``).
        explorer: the explorer the change is applied to; when omitted the panel builds its own
            (without the chart) and shows it only after the first prediction.

    Attributes:
        exercise: the :class:`~custody_lab.exercises.Exercise`.
        change: the :class:`CaseChange` the button applies.
        explorer: the :class:`CaseExplorer` it applies the change to.
        prediction: the ``Text`` box the learner types the expected outcome into.
        apply_button: ``apply_button.click()`` checks and applies programmatically.
        output: the ``HTML`` widget with the check result (escaped) and what was applied.
        result: the last :class:`~custody_lab.exercises.CheckResult`, or ``None``.
        applied: whether the change has been applied to the explorer.

    Raises:
        ExerciseError: the exercise's input is not a ``CaseChange`` of exactly one input (not a
            prediction exercise).

    Example:
        >>> panel = PredictPanel("route-02")
        >>> panel.apply_button.click()  # nothing predicted yet: nothing applied
        >>> panel.result.status, panel.applied
        ('not-answered', False)
    """

    def __init__(self, exercise_id: str, explorer: CaseExplorer | None = None) -> None:
        self.exercise: Exercise = get(exercise_id)
        change = input_for(exercise_id)
        if not isinstance(change, CaseChange) or len(change.changes) != 1:
            what = f"{len(change.changes)} changed inputs" if isinstance(change, CaseChange) else type(change).__name__
            raise ExerciseError(
                f"exercise {exercise_id}: PredictPanel needs an exercise whose input is a one-input "
                f"CaseChange (a case and the one input to change); its input is {what}"
            )
        self.change = change
        self.result: CheckResult | None = None
        self.applied = False
        own = explorer is None
        self.explorer = CaseExplorer(change.case_id, chart=False) if explorer is None else explorer
        self.prediction = _prediction_box(self.exercise)
        self.apply_button = _primary_button(
            "Apply the change and check", "play", f"check your prediction for {self.exercise.id}, then apply the change"
        )
        self.output = widgets.HTML(f"<div>{small('Write your prediction, then press the button.')}</div>")
        self.apply_button.on_click(self._on_apply)
        children: list[widgets.Widget] = [
            widgets.HTML(exercise_heading_html(self.exercise)),
            widgets.HTML(markdown_html(self.exercise.prompt)),
            widgets.HTML(small(f"The change: {code(change.describe())}")),
            wrapping_row([self.prediction, self.apply_button]),
            self.output,
        ]
        if own:
            self.explorer.layout.display = "none"  # shown once a prediction is written
            children.append(self.explorer)
        super().__init__(children, layout=widgets.Layout(border="1px solid #cccccc", padding="6px"))

    def _on_apply(self, _button: object = None) -> None:
        answer = self.exercise.parse_answer(self.prediction.value)
        self.result = check(self.exercise.id, answer)
        if self.result.status == "not-answered":
            self.output.value = self.result._repr_html_() + small(
                "Nothing was applied: write what you expect first, then press the button again."
            )
            return
        self.explorer.load(self.change.case_id)
        self.explorer.set(**self.change.changes)
        self.explorer.layout.display = None
        self.applied = True
        self.output.value = self.result._repr_html_() + small(
            f"Applied in the explorer: {code(self.change.describe())}. Read its "
            "outcome, trace and diff line to see why."
        )


class PredictThenSee(widgets.VBox):
    """A prediction box and one button: the prediction is checked, then the demonstration shown.

    Args:
        exercise_id: any registered exercise; its prompt is the question the panel asks.
        demo: called once, after the first answered prediction; what it returns (a widget, or any
            value a notebook can display) is shown under the feedback. It is never called before.
        button_text: the button's words.

    Attributes:
        exercise: the :class:`~custody_lab.exercises.Exercise`.
        prediction: the ``Text`` box the learner types the prediction into.
        show_button: ``show_button.click()`` checks and shows programmatically.
        output: the ``HTML`` widget with the check result (escaped).
        demo_area: the box the demonstration is shown in (the widget ``demo`` returned, or an
            ``Output`` holding the value).
        result: the last :class:`~custody_lab.exercises.CheckResult`, or ``None``.
        shown: whether the demonstration has been shown.

    Example:
        >>> calls = []
        >>> panel = PredictThenSee("blob-01", lambda: calls.append(1) or "the decoded size")
        >>> panel.show_button.click()  # nothing predicted yet: nothing computed, nothing shown
        >>> panel.result.status, panel.shown, calls
        ('not-answered', False, [])
        >>> panel.prediction.value = "140"
        >>> panel.show_button.click()
        >>> panel.result.status, panel.shown, calls
        ('wrong', True, [1])
    """

    def __init__(
        self, exercise_id: str, demo: Callable[[], object], *, button_text: str = "Check my prediction, then show"
    ) -> None:
        if not callable(demo):
            raise ExerciseError(
                f"PredictThenSee({exercise_id!r}, demo): demo must be a function the panel calls after "
                f"the prediction; got {type(demo).__name__}"
            )
        self.exercise: Exercise = get(exercise_id)
        self._demo = demo
        self.result: CheckResult | None = None
        self.shown = False
        self.prediction = _prediction_box(self.exercise)
        self.show_button = _primary_button(
            button_text, "eye", f"check your prediction for {self.exercise.id}, then show what happens"
        )
        self.output = widgets.HTML(f"<div>{small('Write your prediction, then press the button.')}</div>")
        self.demo_area = widgets.VBox()
        self.show_button.on_click(self._on_show)
        super().__init__(
            [
                widgets.HTML(exercise_heading_html(self.exercise)),
                widgets.HTML(markdown_html(self.exercise.prompt)),
                wrapping_row([self.prediction, self.show_button]),
                self.output,
                self.demo_area,
            ],
            layout=widgets.Layout(border="1px solid #cccccc", padding="6px"),
        )

    def _on_show(self, _button: object = None) -> None:
        answer = self.exercise.parse_answer(self.prediction.value)
        self.result = check(self.exercise.id, answer)
        if self.result.status == "not-answered":
            self.output.value = self.result._repr_html_() + small(
                "Nothing is shown yet: write what you expect first, then press the button again."
            )
            return
        self.output.value = self.result._repr_html_()
        if self.shown:
            return
        try:
            shown = self._demo()
        except CustodyLabError as error:  # the lab's own refusal is part of the lesson, not a crash
            self.output.value += small(f"The demonstration stopped: {escape(str(error))}")
            return
        self.shown = True
        self.output.value += small("What really happens is below; compare it with your prediction.")
        if isinstance(shown, widgets.Widget):
            self.demo_area.children = (shown,)
        else:
            area = widgets.Output()
            area.append_display_data(shown)
            self.demo_area.children = (area,)
