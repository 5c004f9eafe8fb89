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
    "how_passed",
    "progress_counts",
    "progress_html",
    "progress_text",
    "revealed_html",
]

import re
from collections.abc import Iterable, Mapping

from ..views.html import Kind, box, escape, small
from .answers import is_unanswered
from .exercises import CheckResult, Exercise, short_repr
from .progress_store import Entry

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


#: A progress record: each exercise's entry, or (as ``progress()`` gives it) just its state.
_Record = Mapping[str, "Entry | str"]


def _entry(exercise: Exercise, record: _Record) -> Entry:
    found = record.get(exercise.id)
    if isinstance(found, str):
        return {"state": found, "tries": 0, "passed_after": None}
    if found is None or found.get("state") not in _MARKS:
        return {"state": "not tried", "tries": 0, "passed_after": None}
    return found


def how_passed(entry: Entry) -> str:
    """An entry's state in words, with how a pass was reached: on the first try, after how many
    wrong tries, or (a record from before the lab counted them) with the tries not recorded; a
    shown answer is never a pass.

    Example:
        >>> how_passed({"state": "passed", "tries": 0, "passed_after": 0})
        '✓ passed on the first try'
        >>> how_passed({"state": "passed", "tries": 40, "passed_after": 37})
        '✓ passed after 37 wrong tries'
        >>> how_passed({"state": "passed", "tries": 0, "passed_after": None})
        '✓ passed (the tries before it were not recorded)'
        >>> how_passed({"state": "revealed", "tries": 2, "passed_after": None})
        '◐ answer shown, not solved (after 2 wrong tries)'
    """
    state, tries, after = entry["state"], entry["tries"], entry.get("passed_after")
    if state == "passed":
        if after is None:
            return f"{_MARKS['passed']} (the tries before it were not recorded)"
        return f"{_MARKS['passed']} " + ("on the first try" if after == 0 else f"after {_tries(after)}")
    if state in ("tried", "revealed") and tries:
        return f"{_MARKS[state]} (after {_tries(tries)})"
    return _MARKS.get(state, _MARKS["not tried"])


def _tries(n: int) -> str:
    return "1 wrong try" if n == 1 else f"{n} wrong tries"


def progress_counts(exercises: Iterable[Exercise], record: _Record) -> dict[str, int]:
    """How many exercises are passed, tried (not passed yet), revealed and not tried.

    Example:
        >>> from custody_lab.exercises import all_exercises
        >>> progress_counts(all_exercises("blob")[:3], {"blob-01": "passed", "blob-02": "revealed"})
        {'passed': 1, 'tried': 0, 'revealed': 1, 'not tried': 1}
    """
    counts = dict.fromkeys(_MARKS, 0)
    for exercise in exercises:
        counts[_entry(exercise, record)["state"]] += 1
    return counts


def _summary(exercises: list[Exercise], record: _Record) -> str:
    counts = progress_counts(exercises, record)
    first = sum(1 for ex in exercises if _entry(ex, record).get("passed_after") == 0)
    return (
        f"{counts['passed']} passed ({first} on the first try) · {counts['tried']} tried, "
        f"not passed yet · {counts['revealed']} answer shown · {counts['not tried']} not tried"
    )


def progress_html(exercises: Iterable[Exercise], record: _Record) -> str:
    """A summary line and one table row per exercise: id, title, level and how it stands (how
    it was passed: :func:`how_passed`).

    Example:
        >>> from custody_lab.exercises import all_exercises
        >>> three = {"state": "passed", "tries": 3, "passed_after": 3}
        >>> page = progress_html(all_exercises("blob")[:1], {"blob-01": three})
        >>> "✓ passed after 3 wrong tries" in page
        True
    """
    exercises = list(exercises)
    rows = "".join(
        f"<tr><td><code>{escape(ex.id)}</code></td><td>{escape(ex.title)}</td>"
        f"<td>{ex.level}</td><td>{escape(how_passed(_entry(ex, record)))}</td></tr>"
        for ex in exercises
    )
    return box(
        f"<b>{escape(_summary(exercises, record))}</b>"
        f"<table><tr><th>exercise</th><th>title</th><th>level</th><th>status</th></tr>{rows}</table>",
        cls="custody-progress",
    )


def progress_text(exercises: Iterable[Exercise], record: _Record) -> str:
    """The same summary as plain text, one line per exercise (for a terminal or a test).

    Example:
        >>> from custody_lab.exercises import all_exercises
        >>> first = {"state": "passed", "tries": 0, "passed_after": 0}
        >>> print(progress_text(all_exercises("blob")[:1], {"blob-01": first}))
        1 passed (1 on the first try) · 0 tried, not passed yet · 0 answer shown · 0 not tried
        blob-01  ✓ passed on the first try
    """
    exercises = list(exercises)
    lines = [_summary(exercises, record)]
    width = max((len(ex.id) for ex in exercises), default=0)
    lines += [f"{ex.id:<{width}}  {how_passed(_entry(ex, record))}" for ex in exercises]
    return "\n".join(lines)
