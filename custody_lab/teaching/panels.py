"""Check panels: one exercise with an answer box and a Check button, and a progress summary.

Thin views over :mod:`custody_lab.exercises`: the panel reads the typed text with the exercise's
own ``parse`` (``105`` becomes a number, ``image/png`` stays text), calls
:func:`~custody_lab.exercises.check` and shows the :class:`~custody_lab.exercises.CheckResult`'s
escaped HTML. Nothing typed can raise into the notebook.
"""

from __future__ import annotations

__all__ = ["ExercisePanel", "ProgressPanel", "markdown_html"]

import html
import re

import ipywidgets as widgets

from .exercises import CheckResult, Exercise, all_exercises, check, get, progress, short_repr

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _inline(text: str) -> str:
    """Escape, then turn `code` and **bold** into HTML (the only inline marks prompts use)."""
    out = []
    last = 0
    for m in _CODE.finditer(text):
        out.append(_BOLD.sub(r"<b>\1</b>", html.escape(text[last : m.start()])))
        out.append(f"<code>{html.escape(m.group(1))}</code>")
        last = m.end()
    out.append(_BOLD.sub(r"<b>\1</b>", html.escape(text[last:])))
    return "".join(out)


def markdown_html(text: str) -> str:
    """The small Markdown subset exercise prompts use: paragraphs, ``-`` lists, `code`, **bold**.

    Everything else is escaped, so the result is safe to put in an HTML widget.

    Example:
        >>> markdown_html("Use `decode` on **bytes** <now>")
        '<p>Use <code>decode</code> on <b>bytes</b> &lt;now&gt;</p>'
    """
    blocks = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if lines and all(line.lstrip().startswith("- ") for line in lines):
            items = "".join(f"<li>{_inline(line.lstrip()[2:])}</li>" for line in lines)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append(f"<p>{_inline(' '.join(line.strip() for line in lines))}</p>")
    return "".join(blocks)


class ExercisePanel(widgets.VBox):
    """One exercise: its prompt, an answer box, a **Check** button and the result.

    Attributes:
        exercise: the :class:`~custody_lab.exercises.Exercise`.
        answer: the ``Text`` box the learner types into (empty means "not answered yet").
        check_button: the ``Button``; ``check_button.click()`` checks programmatically.
        output: the ``HTML`` widget showing the last result (escaped).
        result: the last :class:`~custody_lab.exercises.CheckResult`, or ``None``.

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
        self.heading = widgets.HTML(
            f'<h4 style="margin:4px 0">{html.escape(ex.id)} · {html.escape(ex.title)} '
            f"<small>(level {ex.level})</small></h4>"
        )
        self.prompt = widgets.HTML(markdown_html(ex.prompt))
        self.answer = widgets.Text(
            value="",
            placeholder=f"type {ex.wanted}",
            description="Answer:",
            layout=widgets.Layout(flex="1 1 auto", width="auto"),
        )
        self.check_button = widgets.Button(
            description="Check",
            button_style="primary",
            icon="check",
            tooltip=f"check your answer to {ex.id}",
        )
        self.read_as = widgets.HTML("")
        self.output = widgets.HTML('<div style="color:#555"><small>Type an answer and press Check.</small></div>')
        self.check_button.on_click(self._on_check)
        super().__init__(
            [self.heading, self.prompt, widgets.HBox([self.answer, self.check_button]), self.read_as, self.output],
            layout=widgets.Layout(border="1px solid #cccccc", padding="6px"),
        )

    def _on_check(self, _button: object = None) -> None:
        answer = self.exercise.parse_answer(self.answer.value)
        self.result = check(self.exercise.id, answer)
        if answer is ...:
            self.read_as.value = ""
        else:
            self.read_as.value = (
                f"<small>Your answer was read as <code>{html.escape(short_repr(answer))}</code> "
                f"({html.escape(type(answer).__name__)}).</small>"
            )
        self.output.value = self.result._repr_html_()


class ProgressPanel(widgets.VBox):
    """Which exercises were passed, tried, or not tried yet in this kernel, with a Refresh button.

    Attributes:
        table: the ``HTML`` widget holding the summary.
        refresh_button: press it (or call :meth:`refresh`) after checking more answers.
        counts: ``{"passed": n, "tried": n, "not tried": n}`` after the last refresh.
    """

    def __init__(self, prefix: str | None = None) -> None:
        self.prefix = prefix
        self.counts: dict[str, int] = {}
        self.table = widgets.HTML()
        self.refresh_button = widgets.Button(description="Refresh", icon="refresh")
        self.refresh_button.on_click(lambda _b: self.refresh())
        super().__init__([self.refresh_button, self.table])
        self.refresh()

    def refresh(self) -> None:
        """Redraw the table from :func:`custody_lab.exercises.progress`."""
        record = progress()
        rows = []
        counts = {"passed": 0, "tried": 0, "not tried": 0}
        for ex in all_exercises(self.prefix):
            if ex.id not in record:
                state, mark = "not tried", "· not tried"
            elif record[ex.id]:
                state, mark = "passed", "✓ passed"
            else:
                state, mark = "tried", "✗ tried, not passed yet"
            counts[state] += 1
            rows.append(
                f"<tr><td><code>{html.escape(ex.id)}</code></td><td>{html.escape(ex.title)}</td>"
                f"<td>{ex.level}</td><td>{html.escape(mark)}</td></tr>"
            )
        self.counts = counts
        summary = (
            f"<b>{counts['passed']} passed</b> · {counts['tried']} tried, not passed yet · "
            f"{counts['not tried']} not tried"
        )
        self.table.value = (
            f'<div style="font-family:sans-serif">{summary}<table>'
            "<tr><th>exercise</th><th>title</th><th>level</th><th>status</th></tr>"
            f"{''.join(rows)}</table></div>"
        )
