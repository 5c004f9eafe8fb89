"""Check panels: one exercise with an answer box and a Check button, and a progress summary.

Thin views over :mod:`custody_lab.exercises`: the panel reads the typed text with the exercise's
own ``parse`` (``105`` becomes a number, ``image/png`` stays text), calls
:func:`~custody_lab.exercises.check` and shows the :class:`~custody_lab.exercises.CheckResult`'s
escaped HTML. Nothing typed can raise into the notebook. The HTML itself is built in
:mod:`custody_lab.teaching.feedback`; these classes only wire widgets to it.
"""

from __future__ import annotations

__all__ = ["ExercisePanel", "ProgressPanel"]

import ipywidgets as widgets

from ..views.html import small
from ..views.widgets.controls import READ_ON_SUBMIT, fits_words, wrapping_row
from .exercises import (
    TRIES_BEFORE_SHOW,
    CheckResult,
    Exercise,
    all_exercises,
    check,
    get,
    reveal,
    wrong_tries,
)
from .feedback import (
    answer_read_as_html,
    exercise_heading_html,
    markdown_html,
    progress_counts,
    progress_html,
    progress_text,
    revealed_html,
)
from .progress_store import record as progress_record


class ExercisePanel(widgets.VBox):
    """One exercise: its prompt, an answer box, a **Check** button and the result.

    Attributes:
        exercise: the :class:`~custody_lab.exercises.Exercise`.
        answer: the ``Text`` box the learner types into (empty means "not answered yet").
        check_button: the ``Button``; ``check_button.click()`` checks programmatically.
        output: the ``HTML`` widget showing the last result (escaped).
        result: the last :class:`~custody_lab.exercises.CheckResult`, or ``None``.
        show_button: the **Show me** ``Button``; hidden until two wrong tries, it shows the
            reference answer in ``shown`` and progress records the exercise as revealed.
        shown: the ``HTML`` widget the reference answer appears in (empty until asked for).

    Example:
        >>> panel = ExercisePanel("blob-01")
        >>> panel.answer.value = "105"
        >>> panel.check_button.click()
        >>> panel.result.passed
        True
    """

    def __init__(self, exercise_id: str) -> None:
        self.exercise: Exercise = get(exercise_id)
        ex = self.exercise
        self.result: CheckResult | None = None
        self.heading = widgets.HTML(exercise_heading_html(ex))
        self.prompt = widgets.HTML(markdown_html(ex.prompt))
        self.answer = widgets.Text(
            value="",
            placeholder=f"type {ex.wanted}",
            description="Answer:",
            **READ_ON_SUBMIT,  # the value reaches the kernel before a click on Check
            layout=widgets.Layout(flex="1 1 220px", width="auto", min_width="200px"),
        )
        self.check_button = widgets.Button(
            description="Check",
            button_style="primary",
            icon="check",
            tooltip=f"check your answer to {ex.id}",
            layout=fits_words(),
        )
        self.show_button = widgets.Button(
            description="Show me",
            icon="eye",
            tooltip=f"show the answer to {ex.id} (progress records it as shown, not solved)",
            layout=fits_words(display="" if wrong_tries(ex.id) >= TRIES_BEFORE_SHOW else "none"),
        )
        self.read_as = widgets.HTML("")
        self.output = widgets.HTML(f"<div>{small('Type an answer and press Check.')}</div>")
        self.shown = widgets.HTML("")
        self.check_button.on_click(self._on_check)
        self.show_button.on_click(self._on_show)
        super().__init__(
            [
                self.heading,
                self.prompt,
                wrapping_row([self.answer, self.check_button, self.show_button]),
                self.read_as,
                self.output,
                self.shown,
            ],
            layout=widgets.Layout(border="1px solid #cccccc", padding="6px"),
        )

    def _on_check(self, _button: object = None) -> None:
        answer = self.exercise.parse_answer(self.answer.value)
        self.result = check(self.exercise.id, answer)
        self.read_as.value = answer_read_as_html(self.result.actual)
        self.output.value = self.result._repr_html_()
        if self.result.can_show:
            self.show_button.layout.display = ""

    def _on_show(self, _button: object = None) -> None:
        self.shown.value = revealed_html(self.exercise, reveal(self.exercise.id))


class ProgressPanel(widgets.VBox):
    """Which exercises were passed (on the first try, or after how many wrong tries), tried, shown,
    or not tried yet, with a Refresh button.

    ``prefix`` picks the exercises: one id prefix (``"blob"``), a tuple of them
    (``("route", "receipt")``, for a notebook whose exercises have two topics), or ``None`` for all.

    Attributes:
        table: the ``HTML`` widget holding the summary.
        refresh_button: press it (or call :meth:`refresh`) after checking more answers.
        counts: ``{"passed": n, "tried": n, "revealed": n, "not tried": n}`` after the last refresh.
        text: the same summary as plain text (:func:`~custody_lab.teaching.feedback.progress_text`).
    """

    def __init__(self, prefix: str | tuple[str, ...] | None = None) -> None:
        self.prefix = prefix if prefix is None or isinstance(prefix, str) else tuple(prefix)
        self.counts: dict[str, int] = {}
        self.text = ""
        self.table = widgets.HTML()
        self.refresh_button = widgets.Button(description="Refresh", icon="refresh")
        self.refresh_button.on_click(lambda _b: self.refresh())
        super().__init__([self.refresh_button, self.table])
        self.refresh()

    def refresh(self) -> None:
        """Redraw the table from the progress record (the file, read again)."""
        exercises = all_exercises(self.prefix)
        record = progress_record()
        self.counts = progress_counts(exercises, record)
        self.table.value = progress_html(exercises, record)
        self.text = progress_text(exercises, record)
