"""How the exercise sets read a learner's answer: as text, as a number, as a position.

An answer may be anything a learner types or computes, so every reader here guards the type
itself and returns ``None`` for "not that kind of answer"; a mistake detector built on them never
raises (the gate in ``tests/teaching/test_exercises.py`` throws answers of many types at every exercise).
One home for these readers, shared by every set module.
"""

from __future__ import annotations

__all__ = [
    "Option",
    "code",
    "is_one_of",
    "names",
    "number",
    "one_option_mistakes",
    "same_names",
    "same_number",
    "same_text",
    "shape_of",
    "text",
    "the_one",
    "whole_number",
]

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..exercises import ExerciseError, Mistake

_Seen = TypeVar("_Seen")


@dataclass(frozen=True)
class Option(Generic[_Seen]):
    """One choice of a one-option exercise and the observation that makes it true: ``holds(seen)``
    says whether the choice is right for what the package observed (``seen``), so the reference is
    computed, never typed in."""

    code: str
    text: str
    holds: Callable[[_Seen], bool]


def the_one(exercise_id: str, options: tuple[Option[_Seen], ...], seen: _Seen, what: str = "hold") -> str:
    """The code of the one option that holds for ``seen`` (the exercise's computed reference).

    Raises:
        ExerciseError: none or several hold (the exercise is built wrong; the message names them).
    """
    holding = [o.code for o in options if o.holds(seen)]
    if len(holding) != 1:
        raise ExerciseError(f"{exercise_id}: exactly one option must {what}; {holding} do: {seen}")
    return holding[0]


def text(answer: object) -> str | None:
    """The answer as stripped text, or ``None`` when it is not a string.

    Example:
        >>> text("  orders://A-1002 \\n"), text(105)
        ('orders://A-1002', None)
    """
    return answer.strip() if isinstance(answer, str) else None


def names(answer: object) -> frozenset[str] | None:
    """A non-empty list, tuple or set of strings as a set of stripped strings; ``None`` otherwise.

    Example:
        >>> sorted(names([" bytes", "shape "])), names("bytes, shape"), names([]), names(["a", 1])
        (['bytes', 'shape'], None, None, None)
    """
    if not isinstance(answer, list | tuple | set | frozenset) or not answer:
        return None
    found = [text(item) for item in answer]
    if any(name is None for name in found):
        return None
    return frozenset(name for name in found if name is not None)


def same_names(answer: object, expected: object) -> bool:
    """A ``compare`` for list answers in any order: the answer's :func:`names` equal the expected list's.

    Example:
        >>> same_names([" b", "a"], ["a", "b"]), same_names(["a"], ["a", "b"]), same_names("a", ["a"])
        (True, False, False)
    """
    return isinstance(expected, list) and names(answer) == frozenset(expected)


def is_one_of(answer: object, *candidates: str) -> bool:
    """Whether the answer, as stripped text, is one of ``candidates``.

    Example:
        >>> is_one_of(" de ", "de", "müller"), is_one_of(["de"], "de")
        (True, False)
    """
    return text(answer) in candidates


def same_text(answer: object, expected: object) -> bool:
    """A ``compare`` for text answers: the stripped answer equals the expected string.

    Example:
        >>> same_text("kb://a%20b ", "kb://a%20b"), same_text(b"kb://a%20b", "kb://a%20b")
        (True, False)
    """
    return text(answer) == expected


def number(answer: object) -> float | None:
    """The answer as a number, or ``None`` (booleans are not numbers here).

    Example:
        >>> number(105), number(True), number("105")
        (105.0, None, None)
    """
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return None
    return float(answer)


def same_number(answer: object, expected: object) -> bool:
    """A ``compare`` for numeric answers: ``105`` and ``105.0`` match ``105``; ``True`` never does.

    Example:
        >>> same_number(105.0, 105), same_number(True, 1)
        (True, False)
    """
    value = number(answer)
    return value is not None and value == expected


def whole_number(answer: object) -> int | None:
    """The answer as an int, or ``None`` (booleans and floats with a fraction are not positions).

    Example:
        >>> whole_number(15), whole_number(15.0), whole_number(15.5), whole_number(False)
        (15, 15, None, None)
    """
    if isinstance(answer, bool):
        return None
    if isinstance(answer, int):
        return answer
    if isinstance(answer, float) and answer.is_integer():
        return int(answer)
    return None


def code(answer: object) -> str | None:
    """The answer as stripped, lowercased text (an option or rejection code), or ``None``.

    Example:
        >>> code(" Keep-Cached "), code(["keep-cached"])
        ('keep-cached', None)
    """
    found = text(answer)
    return None if found is None else found.lower()


def one_option_mistakes(codes: Collection[str], *, many: str, other: str) -> tuple[Mistake, Mistake]:
    """The two mistakes every "answer with the code of one option" exercise shares.

    ``more-than-one-option`` (two codes in one answer, or a list of several) and ``not-an-option``
    (text that is no listed code); ``many`` and ``other`` are their example answers.

    Example:
        >>> several, stray = one_option_mistakes(("a-1", "b-2"), many="a-1, b-2", other="c-3")
        >>> several.detect("a-1 b-2"), stray.detect("c-3"), stray.detect("a-1")
        (True, True, False)
    """
    listed = frozenset(codes)
    return (
        Mistake(
            "more-than-one-option",
            lambda a: (
                sum(c in (code(a) or "") for c in listed) > 1 or (isinstance(a, list | tuple | set) and len(a) > 1)
            ),
            "Choose one option: they exclude each other.",
            example=many,
        ),
        Mistake(
            "not-an-option",
            lambda a: (found := code(a)) is not None and found != "" and found not in listed,
            "Answer with the code of one option exactly as listed, not with a rejection code, a method "
            "name or a sentence.",
            example=other,
        ),
    )


_SHAPE_ALIASES = {
    "link": "resource-link",
    "resource-link": "resource-link",
    "embed": "embedded-resource",
    "embedded": "embedded-resource",
    "embedded-resource": "embedded-resource",
    "resource": "embedded-resource",  # the MCP content type of an embed is "resource"
    "structured": "structured-tool-result",
    "structured-content": "structured-tool-result",
    "structured-tool-result": "structured-tool-result",
    "listed-resource": "listed-resource",
    "templated-resource": "templated-resource",
}


def shape_of(answer: object) -> str | None:
    """An answer as one of the five shape names (``"link"`` → ``"resource-link"``), or ``None``.

    Example:
        >>> shape_of(" Embed "), shape_of("resource_link"), shape_of(3)
        ('embedded-resource', 'resource-link', None)
    """
    text_answer = text(answer)
    if text_answer is None:
        return None
    key = text_answer.lower().replace("_", "-").replace(" ", "-")
    return _SHAPE_ALIASES.get(key, key)
