"""Exercises with a Check: named exercises, a checker that explains itself, and a progress record.

A learner's cell ends with ``check("blob-01", answer)``. The result is a :class:`CheckResult`
value (never only printed), so a notebook shows it through ``_repr_html_`` and a test can assert
on it. Feedback follows the lab's style guide (``STYLE.md``, "Exercises"): it names the input and
the learner's value, **never the expected one** (only :func:`reveal` gives that, and progress then
records the exercise as "revealed", not "passed"); it says whether the answer is of the right
*kind* (a number, a URI, a rejection code, a list); it recognises an unfilled stub (``...``,
``None``, ``""``); each typical mistake an exercise lists gets its own hint, and any other wrong
answer gets the exercise's first general hint, then, from the second wrong try on, its second,
more pointed one. Every answer is first normalised the same way
(:mod:`custody_lab.teaching.answers`), and progress is kept in a small JSON file between kernel
restarts, shared safely by any number of kernels (:mod:`custody_lab.teaching.progress_store`).

Exercise definitions live in :mod:`custody_lab.teaching.exercise_sets`, one module per topic,
listed in its ``SET_MODULES``. They are registered lazily, the first time :func:`get`,
:func:`check`, :func:`all_exercises`, :func:`reveal` or :func:`progress` needs them, so
``import custody_lab`` stays light.

The two-way gate (``tests/teaching/test_exercises.py``) runs over every registered exercise: every reference
answer passes, every stub fails as "not answered", and every listed mistake's example answer gets
that mistake's own hint.

This module is pure logic: no HTML and no ipywidgets. How a result looks is
:mod:`custody_lab.teaching.feedback` (built on :mod:`custody_lab.views.html`); the Check-button
panel is :class:`custody_lab.teaching.panels.ExercisePanel`.
"""

from __future__ import annotations

__all__ = [
    "NO_EXAMPLE",
    "TRIES_BEFORE_SHOW",
    "CheckResult",
    "Exercise",
    "ExerciseError",
    "Mistake",
    "Status",
    "UnknownExercise",
    "all_exercises",
    "check",
    "get",
    "input_for",
    "is_stub",
    "literal_or_text",
    "progress",
    "progress_file",
    "register",
    "reset_progress",
    "reveal",
    "short_repr",
    "wrong_tries",
]

import ast
import functools
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core.errors import CustodyLabError
from . import answers, progress_store
from .answers import describe_kind, given_kind, is_unanswered, kind_matches, normal_expected, normal_uri, normalise

#: A repr shortened for messages (:func:`custody_lab.teaching.answers.short_repr`).
short_repr = answers.short_repr

Status = Literal["passed", "wrong", "not-answered"]

#: How many wrong tries before the second hint and the "Show me" button appear.
TRIES_BEFORE_SHOW = 2

#: Exercise ids are a topic and a two-digit number: ``blob-01``, ``uri-03``.
_ID = re.compile(r"^[a-z][a-z0-9]*-\d{2}$")


class _NoExample:
    """The marker for a :class:`Mistake` defined without an example answer."""

    _instance: _NoExample | None = None

    def __new__(cls) -> _NoExample:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_EXAMPLE"


#: A mistake without an example fails the gate in ``tests/teaching/test_exercises.py``.
NO_EXAMPLE = _NoExample()


class ExerciseError(CustodyLabError, ValueError):
    """An exercise definition is malformed (bad id, duplicate id, a mistake without a name...)."""


class UnknownExercise(CustodyLabError, KeyError):
    """No exercise has this id; the message lists the ids that exist.

    Attributes:
        exercise_id: the id that was asked for.
    """

    def __init__(self, exercise_id: object, known: list[str]) -> None:
        self.exercise_id = exercise_id
        listing = ", ".join(known) if known else "(none registered)"
        super().__init__(f"no exercise {exercise_id!r}; the exercises are: {listing}")

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0])


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer and the hint it deserves.

    Attributes:
        name: a short code, unique within its exercise (``"counted-base64-characters"``).
        detect: ``detect(answer) -> bool``; true when the answer shows this mistake. It may assume
            nothing about the answer's type: a ``TypeError`` or ``ValueError`` counts as "no".
        hint: what to do about it, in one or two plain sentences.
        example: one wrong answer that shows the mistake; the gate checks that it gets this hint.
    """

    name: str
    detect: Callable[[object], bool]
    hint: str
    example: object = NO_EXAMPLE


def literal_or_text(text: str) -> object:
    """Read a typed answer: a Python literal when it is one (``105``, ``'abc'``, ``b'..'``),
    otherwise the text itself, stripped. An empty box is the stub ``...``.

    Example:
        >>> literal_or_text("105"), literal_or_text(" image/png "), literal_or_text("")
        (105, 'image/png', Ellipsis)
    """
    stripped = text.strip()
    if not stripped or stripped == "...":
        return ...
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return stripped


def _stripped_text(text: str) -> object:
    """The typed text, stripped; a blank box, ``...`` or ``None`` typed as such is the stub ``...``."""
    stripped = text.strip()
    return ... if is_unanswered(stripped) or stripped == "None" else stripped


@dataclass(frozen=True)
class Exercise:
    """One exercise: what to do, the reference answer, and how an answer is judged.

    Attributes:
        id: ``topic-NN`` (``"blob-01"``); the name a learner passes to :func:`check`.
        title: a short heading.
        prompt: the task, in Markdown (trusted lab text).
        reference: returns the reference answer (what :func:`reveal` shows a facilitator).
        input_label: names the input the learner works on (``"the blob of assets://logo.png"``).
        expected: returns the value a correct answer must equal (by ``compare``); defaults to
            ``reference``.
        compare: ``compare(answer, expected) -> bool``; ``==`` by default.
        stub: the learner's starting value, usually ``...``.
        mistakes: typical mistakes, checked in order; the first whose ``detect`` is true wins.
        level: difficulty, 1 (warm-up) upwards.
        wanted: what the answer should be, in words, for the "not answered yet" message.
        parse: turns the text typed in a Check panel into an answer (:func:`literal_or_text` by
            default; ``"text"`` keeps the text as a string).
        given: returns the input itself (the blob, the bytes, the URI...), so a notebook cell can
            start from ``input_for("blob-01")``; ``None`` when the prompt holds everything.
        kind: the kind of answer wanted (``"number"``, ``"uri"``, ``"code"``, ``"list"``,
            ``"text"``...; see :mod:`custody_lab.teaching.answers`); ``None`` reads it from the
            reference answer. It decides the normalisation (``"105"`` is a number only where a
            number is wanted) and the "right kind" part of the feedback.
        hints: general hints for a wrong answer no listed mistake explains: the first after one
            wrong try, the second (more pointed) from the second wrong try on. Neither may hold
            the answer.
        why: the answer's one-line reason, for a facilitator's discussion (``custody-lab solutions``):
            the fact that decides it, derived from the rule table, the advisor or a scenario where it can be.
    """

    id: str
    title: str
    prompt: str
    reference: Callable[[], object]
    input_label: str
    expected: Callable[[], object] | None = None
    compare: Callable[[object, object], bool] = operator.eq
    stub: object = ...
    mistakes: tuple[Mistake, ...] = ()
    level: int = 1
    wanted: str = "your answer"
    parse: Callable[[str], object] | Literal["text"] = literal_or_text
    given: Callable[[], object] | None = None
    kind: str | None = None
    hints: tuple[str, ...] = ()
    why: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ExerciseError(f"exercise id must look like 'topic-NN' (e.g. 'blob-01'); got {self.id!r}")
        if self.expected is None:
            object.__setattr__(self, "expected", self.reference)
        if self.parse == "text":
            object.__setattr__(self, "parse", _stripped_text)
        object.__setattr__(self, "mistakes", tuple(self.mistakes))
        object.__setattr__(self, "hints", tuple(self.hints))
        names = [m.name for m in self.mistakes]
        if len(set(names)) != len(names) or not all(names):
            raise ExerciseError(f"exercise {self.id}: mistake names must be non-empty and unique; got {names}")
        if not isinstance(self.level, int) or self.level < 1:
            raise ExerciseError(f"exercise {self.id}: level must be a whole number ≥ 1; got {self.level!r}")

    def expected_value(self) -> object:
        """The value a correct answer must match."""
        assert self.expected is not None  # set in __post_init__
        return self.expected()

    def wanted_kind(self) -> str:
        """The kind of answer wanted: :attr:`kind`, or the kind of the reference answer."""
        return self.kind if self.kind is not None else answers.kind_of(self.reference())

    def general_hint(self, tries: int) -> str:
        """The general hint after ``tries`` wrong tries (the second one from the second try on)."""
        hints = self.hints or (
            f"Read the task again and work on {self.input_label} with the lab's own functions; "
            f"the answer wanted is {self.wanted}.",
            "Compare your answer with the task one step at a time: which step of the task did "
            "your value skip or do twice?",
        )
        return hints[min(max(tries, 1), len(hints)) - 1]

    def parse_answer(self, text: str) -> object:
        """An answer from the text typed in a Check panel (an empty box is the stub ``...``)."""
        assert callable(self.parse)
        return self.parse(text)


@dataclass(frozen=True)
class CheckResult:
    """What :func:`check` found. Renders itself in a notebook (``_repr_html_``, all text escaped).

    It carries the learner's answer but never the expected one (``STYLE.md``, "Exercises"): the
    reference answer is only given on request, by :func:`reveal`.

    Attributes:
        exercise_id: which exercise.
        passed: whether the answer is correct.
        message: one or two sentences naming the input and the learner's value.
        actual: the learner's answer, as given.
        hint: the specific hint of the detected mistake, or ``None``.
        mistake: the detected mistake's name, or ``None``.
        status: ``"passed"``, ``"wrong"`` or ``"not-answered"`` (an unfilled stub).
        title: the exercise's title, for display.
        given_kind: the kind of the (normalised) answer, in words (``"a number"``).
        kind_right: whether that is the kind wanted (``None`` when not answered).
        tries: wrong tries of this exercise so far, this one included.
        can_show: whether the reference may now be shown on request (after two wrong tries).
        remark: a note on the answer's form when it was read fairly despite it (``"13,950"``
            read as ``13950``), or ``None``; never about its value.
    """

    exercise_id: str
    passed: bool
    message: str
    actual: object = field(repr=False)
    hint: str | None = None
    mistake: str | None = None
    status: Status = "wrong"
    title: str = ""
    given_kind: str = ""
    kind_right: bool | None = None
    tries: int = 0
    can_show: bool = False
    remark: str | None = None

    def headline(self) -> str:
        """``✓ Correct``, ``✗ Not yet`` or ``… Not answered yet``: a symbol *and* words."""
        return {
            "passed": "✓ Correct",
            "wrong": "✗ Not yet",
            "not-answered": "… Not answered yet",
        }[self.status]

    def __str__(self) -> str:
        lines = [f"{self.headline()} — {self.exercise_id}: {self.message}"]
        if self.hint:
            lines.append(f"Hint: {self.hint}")
        if self.remark:
            lines.append(f"Note: {self.remark}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from .feedback import check_result_html  # the views layer, loaded only when shown

        return check_result_html(self)


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

_REGISTRY: dict[str, Exercise] = {}
_loaded = False


def register(exercise: Exercise) -> Exercise:
    """Add an exercise to the registry and return it (so a set module can keep a name for it).

    Re-registering an id from the module that defined it (``importlib.reload``) replaces it; the
    same id from another module is an error.

    Raises:
        ExerciseError: for a duplicate id, or a value that is not an :class:`Exercise`.
    """
    if not isinstance(exercise, Exercise):
        raise ExerciseError(f"register() takes an Exercise, got {type(exercise).__name__}")
    old = _REGISTRY.get(exercise.id)
    if old is not None and _origin(old) != _origin(exercise):
        raise ExerciseError(
            f"exercise id {exercise.id!r} is already registered by {_origin(old)}; "
            f"{_origin(exercise)} must use another id"
        )
    _REGISTRY[exercise.id] = exercise
    return exercise


def _origin(exercise: Exercise) -> str:
    return getattr(exercise.reference, "__module__", None) or "?"


def _ensure_loaded() -> None:
    """Register every exercise of :data:`~custody_lab.teaching.exercise_sets.SET_MODULES`, once."""
    global _loaded
    if not _loaded:
        from .exercise_sets import set_exercises

        for exercise in set_exercises():
            register(exercise)
        _loaded = True


def _sort_key(exercise_id: str) -> tuple[str, int]:
    topic, _, number = exercise_id.rpartition("-")
    return topic, int(number)


def get(exercise_id: str) -> Exercise:
    """The exercise with this id.

    Raises:
        UnknownExercise: a ``KeyError`` whose message lists the known ids.

    Example:
        >>> get("blob-01").input_label
        'the blob of assets://logo.png'
    """
    _ensure_loaded()
    try:
        return _REGISTRY[exercise_id]
    except (KeyError, TypeError) as e:  # TypeError: an unhashable id
        raise UnknownExercise(exercise_id, sorted(_REGISTRY, key=_sort_key)) from e


def all_exercises(prefix: str | tuple[str, ...] | None = None) -> list[Exercise]:
    """Every registered exercise (those whose id starts with ``prefix``, or with any of a tuple of
    prefixes), in id order.

    Example:
        >>> [e.id for e in all_exercises("blob")][:2]
        ['blob-01', 'blob-02']
        >>> [e.id for e in all_exercises(("uri-01", "blob-01"))]
        ['blob-01', 'uri-01']
    """
    _ensure_loaded()
    if prefix is not None and not isinstance(prefix, str):
        prefix = tuple(prefix)
        if not all(isinstance(p, str) for p in prefix):
            raise ExerciseError(f"all_exercises() takes a prefix or a tuple of prefixes (text); got {prefix!r}")
    ids = sorted(_REGISTRY, key=_sort_key)
    return [_REGISTRY[i] for i in ids if prefix is None or i.startswith(prefix)]


def input_for(exercise_id: str) -> object:
    """The input an exercise works on (``None`` when its prompt holds everything).

    Example:
        >>> input_for("blob-01")[:12]
        'iVBORw0KGgoA'
    """
    exercise = get(exercise_id)
    return exercise.given() if exercise.given is not None else None


def reveal(exercise_id: str) -> object:
    """The reference answer, on request (a "Show me" button, or a facilitator).

    Progress then records the exercise as ``"revealed"`` rather than solved, unless it was
    already passed. (``custody-lab solutions`` reads the references without recording anything.)

    Example:
        >>> reset_progress()
        >>> reveal("blob-01")
        105
        >>> progress()["blob-01"]
        'revealed'
    """
    exercise = get(exercise_id)
    progress_store.change(exercise.id, progress_store.revealed)
    return exercise.reference()


def progress_file() -> Path | None:
    """The JSON file progress is kept in (``None``: in memory only); see
    :mod:`custody_lab.teaching.progress_store` for where it lives and ``$CUSTODY_LAB_PROGRESS``."""
    return progress_store.progress_path()


def progress() -> dict[str, str]:
    """Each exercise tried so far and its state: ``"passed"`` (at least once), ``"tried"`` (not
    passed yet) or ``"revealed"`` (the reference was shown before it was passed).

    A check on the untouched stub does not count as a try. The record survives a kernel restart
    (:func:`progress_file`). How each pass was reached (on the first try, or after how many wrong
    tries) is kept beside it, and the progress panel (``ProgressPanel``) shows it.
    """
    _ensure_loaded()
    return {key: entry["state"] for key, entry in progress_store.record().items()}


def wrong_tries(exercise_id: str) -> int:
    """How many wrong tries of this exercise are recorded (kept across kernel restarts)."""
    return progress_store.entry(get(exercise_id).id)["tries"]


def reset_progress() -> None:
    """Forget every try and reveal, and delete the progress file."""
    progress_store.clear()


# --------------------------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------------------------


def _truthy(call: Callable[[], object]) -> bool:
    """Run a detect/compare call; an answer of the wrong type counts as "no match".

    Only ``TypeError`` and ``ValueError`` are caught (the brief's contract): detectors guard with
    ``isinstance`` themselves, and the gate in ``tests/teaching/test_exercises.py`` throws answers of many
    types at every exercise to prove that none raises.
    """
    try:
        return bool(call())
    except (TypeError, ValueError):
        return False


def is_stub(exercise: Exercise, answer: object) -> bool:
    """Whether ``answer`` is still a blank (``...``, ``None``, ``""``) or the exercise's stub value."""
    if is_unanswered(answer) or answer is exercise.stub:
        return True
    if exercise.stub is Ellipsis or exercise.stub is None:
        return False
    return type(answer) is type(exercise.stub) and _truthy(lambda: answer == exercise.stub)


@dataclass(frozen=True)
class _Reading:
    """What :func:`check` read from an answer before recording anything."""

    answer: object
    stub: bool
    passed: bool = False
    shown: str = ""
    given_kind: str = ""
    kind_right: bool | None = None
    form: answers.FormProblem | None = None
    remark: str | None = None
    mistake: Mistake | None = None


def _read(exercise: Exercise, read: answers.Plain) -> _Reading:
    """Everything :func:`check` learns from the answer: all the answer's own code it runs, runs here."""
    wanted_kind = exercise.wanted_kind()
    if read.problem is not None:  # past a bound: read no further than its kind
        shown, kind, right = (
            short_repr(read.value),
            given_kind(read.value, wanted_kind),
            kind_matches(read.value, wanted_kind),
        )
        return _Reading(read.value, False, shown=shown, given_kind=kind, kind_right=right, form=read.problem)
    given, _ = normalise(read.value, wanted_kind)
    if is_stub(exercise, given):
        return _Reading(answer=given, stub=True)
    expected = exercise.expected_value()
    answer, form = normalise(read.value, wanted_kind, expected)
    expected = normal_uri(expected) if wanted_kind == "uri" and isinstance(expected, str) else normal_expected(expected)
    remark = form.hint if form is not None and not form.blocking else None
    form = form if form is not None and form.blocking else None
    passed = form is None and _truthy(lambda: exercise.compare(answer, expected))
    mistake = None
    if not passed and form is None:
        mistake = next((m for m in exercise.mistakes if _truthy(functools.partial(m.detect, answer))), None)
    return _Reading(
        answer=answer,
        stub=False,
        passed=passed,
        shown=short_repr(answer),
        given_kind=given_kind(answer, wanted_kind),
        kind_right=kind_matches(answer, wanted_kind),
        form=form,
        remark=remark,
        mistake=mistake,
    )


def check(exercise_id: str, answer: object) -> CheckResult:
    """Check an answer; return a result that names the input and the given value, never the expected one.

    Never raises for any answer value: a detector or comparison that fails on an answer of an
    unexpected type counts as "no match"; a built-in subclass is read as its built-in value
    (:func:`~custody_lab.teaching.answers.plain`); a number of too many digits, an answer past the
    size bounds and an object whose own methods raise are wrong, with a hint that says so. An
    unknown ``exercise_id`` raises :class:`UnknownExercise` (a ``KeyError``) listing the ids.

    Example:
        >>> check("blob-01", ...).status
        'not-answered'
        >>> r = check("blob-01", 140)
        >>> r.passed, r.mistake, "105" in str(r)
        (False, 'counted-base64-characters', False)
        >>> check("blob-01", "9" * 5000).mistake
        'number-too-long'
        >>> check("blob-01", 105).passed
        True
    """
    exercise = get(exercise_id)
    read = answers.plain(answer)
    try:
        seen = _read(exercise, read)
    except Exception as e:  # the top level for an answer's own code (see the docstring)
        if read.data:
            raise  # plain data cannot run code of its own: this is the lab's bug, and must show
        name, problem = answers.type_name(answer), answers.raised(answer, e)
        seen = _Reading(answer, False, shown=f"<a {name} object>", given_kind="a value of another type", form=problem)
    common: dict[str, Any] = {"exercise_id": exercise.id, "actual": seen.answer, "title": exercise.title}
    if seen.stub:
        shown = "`...`" if exercise.stub is Ellipsis else f"`{short_repr(exercise.stub)}`"
        return CheckResult(
            passed=False,
            status="not-answered",
            message=(
                f"not answered yet: replace the {shown} with {exercise.wanted} (the input: {exercise.input_label})."
            ),
            **common,
        )

    tries = progress_store.change(exercise.id, lambda entry: progress_store.tried(entry, seen.passed))["tries"]
    common.update(given_kind=seen.given_kind, kind_right=seen.kind_right, tries=tries, remark=seen.remark)
    if seen.passed:
        return CheckResult(
            passed=True,
            status="passed",
            message=f"for {exercise.input_label}, {seen.shown} is right.",
            **common,
        )
    wanted_kind = exercise.wanted_kind()
    kind_words = (
        f"{seen.given_kind}, the right kind"
        if seen.kind_right
        else f"{seen.given_kind}, but {describe_kind(wanted_kind)} is wanted"
    )
    message = f"for {exercise.input_label} you gave {seen.shown} ({kind_words}): not yet."
    common.update(message=message, passed=False, status="wrong", can_show=tries >= TRIES_BEFORE_SHOW)
    if seen.form is not None:
        return CheckResult(hint=seen.form.hint, mistake=seen.form.name, **common)
    if seen.mistake is not None:
        return CheckResult(hint=seen.mistake.hint, mistake=seen.mistake.name, **common)
    return CheckResult(hint=exercise.general_hint(tries), **common)
