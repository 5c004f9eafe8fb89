"""How the teaching layer looks: a check result, an exercise's prompt and a progress table, as HTML.

Strings only (no ipywidgets), built on the one HTML module, :mod:`custody_lab.views.html`: every
answer, title and prompt goes through its ``escape``, and a result is one of its boxes (``ok``,
``error`` or ``note``; each kind differs in border style as well as colour). The panels of
:mod:`custody_lab.teaching.panels` and ``CheckResult._repr_html_`` call these functions.

What a learner sees never holds the expected answer (``STYLE.md``, "Exercises"): a wrong try
shows their own answer, whether its kind is right, and a hint; the reference answer comes only
on request, from ``reveal(id)`` or the panel's Show me button (:func:`revealed_html`).
"""

from __future__ import annotations

__all__ = [
    "answer_read_as_html",
    "check_result_html",
    "exercise_heading_html",
    "markdown_html",
    "progress_counts",
    "progress_html",
    "revealed_html",
]

import re
from collections.abc import Iterable, Mapping

from ..views.html import Kind, box, escape, small
from .answers import is_unanswered
from .exercises import CheckResult, Exercise, short_repr

#: The box of each check status.
_KIND: dict[str, Kind] = {"passed": "ok", "wrong": "error", "not-answered": "note"}

#: What the progress table says for each state, a symbol and words.
_MARKS = {
    "passed": "✓ passed",
    "tried": "✗ tried, not passed yet",
    "revealed": "◐ answer shown, not solved",
    "not tried": "· not tried",
}

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


def check_result_html(result: CheckResult) -> str:
    """A check result as a box: headline, message and hint, every piece escaped; the lab's own
    `code` marks in a message or hint are shown as ``<code>`` (the learner's answer is never read as
    marks).

    Example:
        >>> from custody_lab.exercises import check
        >>> page = check_result_html(check("blob-01", "<b>140</b>"))
        >>> "✗ Not yet" in page and "&lt;b&gt;140&lt;/b&gt;" in page and "105" not in page
        True
    """
    title = f" · {escape(result.title)}" if result.title else ""
    parts = [
        f'<div style="font-weight:bold">{escape(result.headline())} — <code>{escape(result.exercise_id)}</code>'
        f"{title}</div>",
        f"<div>{_message_html(result)}</div>",
    ]
    if result.hint:
        parts.append(f"<div><b>Hint:</b> {_inline(result.hint)}</div>")
    if result.remark:
        parts.append(f"<div><b>Note:</b> {_inline(result.remark)}</div>")
    return box("".join(parts), _KIND[result.status], cls=f"custody-check custody-check-{result.status}")


def _message_html(result: CheckResult) -> str:
    """The message with the lab's `code` marks as ``<code>``; the learner's own answer in it stays
    text exactly as typed (escaped, its backticks and asterisks shown as they are).

    Example:
        >>> from custody_lab.exercises import check
        >>> page = _message_html(check("blob-01", "`x` <b>"))
        >>> "`x` &lt;b&gt;" in page and "<code>" not in page
        True
    """
    shown = short_repr(result.actual) if result.status != "not-answered" else ""
    before, found, after = result.message.partition(shown) if shown else (result.message, "", "")
    return _inline(before) + escape(found) + (_inline(after) if found else "")


def revealed_html(exercise: Exercise, answer: object) -> str:
    """The reference answer, shown on request (the Show me button), escaped.

    Example:
        >>> from custody_lab.exercises import get
        >>> "<code>105</code>" in revealed_html(get("blob-01"), 105)
        True
    """
    return box(
        f"<div><b>◐ The answer</b> to <code>{escape(exercise.id)}</code>: <code>{escape(short_repr(answer))}</code>"
        "</div><div>Your progress records this exercise as <i>answer shown</i>, not solved. Work through "
        "why it is right, then try the next one.</div>",
        "note",
        cls="custody-check custody-check-revealed",
    )


def answer_read_as_html(answer: object) -> str:
    """How a Check panel read the typed text (``""`` for an empty box).

    Example:
        >>> answer_read_as_html(105)
        '<small>Your answer was read as <code>105</code> (int).</small>'
    """
    if is_unanswered(answer):
        return ""
    return small(
        f"Your answer was read as <code>{escape(short_repr(answer))}</code> ({escape(type(answer).__name__)})."
    )


def exercise_heading_html(exercise: Exercise) -> str:
    """An exercise's heading: id, title and level.

    Example:
        >>> from custody_lab.exercises import get
        >>> exercise_heading_html(get("blob-01"))[:40]
        '<h4 style="margin:4px 0">blob-01 · How m'
    """
    return (
        f'<h4 style="margin:4px 0">{escape(exercise.id)} · {escape(exercise.title)} '
        f"{small(f'(level {exercise.level})')}</h4>"
    )


def _inline(text: str) -> str:
    """Escape, then turn `code` and **bold** into HTML (the only inline marks prompts use)."""
    out = []
    last = 0
    for m in _CODE.finditer(text):
        out.append(_BOLD.sub(r"<b>\1</b>", escape(text[last : m.start()])))
        out.append(f"<code>{escape(m.group(1))}</code>")
        last = m.end()
    out.append(_BOLD.sub(r"<b>\1</b>", escape(text[last:])))
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


def _state(exercise: Exercise, record: Mapping[str, str]) -> str:
    state = record.get(exercise.id)
    return state if state in _MARKS else "not tried"


def progress_counts(exercises: Iterable[Exercise], record: Mapping[str, str]) -> dict[str, int]:
    """How many exercises are passed, tried (not passed yet), revealed and not tried.

    Example:
        >>> from custody_lab.exercises import all_exercises
        >>> progress_counts(all_exercises("blob")[:3], {"blob-01": "passed", "blob-02": "revealed"})
        {'passed': 1, 'tried': 0, 'revealed': 1, 'not tried': 1}
    """
    counts = dict.fromkeys(_MARKS, 0)
    for exercise in exercises:
        counts[_state(exercise, record)] += 1
    return counts


def progress_html(exercises: Iterable[Exercise], record: Mapping[str, str]) -> str:
    """A summary line and one table row per exercise: id, title, level and state.

    Example:
        >>> from custody_lab.exercises import all_exercises
        >>> "✓ passed" in progress_html(all_exercises("blob")[:1], {"blob-01": "passed"})
        True
    """
    exercises = list(exercises)
    counts = progress_counts(exercises, record)
    rows = "".join(
        f"<tr><td><code>{escape(ex.id)}</code></td><td>{escape(ex.title)}</td>"
        f"<td>{ex.level}</td><td>{escape(_MARKS[_state(ex, record)])}</td></tr>"
        for ex in exercises
    )
    summary = (
        f"<b>{counts['passed']} passed</b> · {counts['tried']} tried, not passed yet · "
        f"{counts['revealed']} answer shown · {counts['not tried']} not tried"
    )
    return box(
        f"{summary}<table><tr><th>exercise</th><th>title</th><th>level</th><th>status</th></tr>{rows}</table>",
        cls="custody-progress",
    )
