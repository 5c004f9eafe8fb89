"""An answer read as plain data: copied into built-in types by their own methods, under bounds.

:func:`custody_lab.teaching.answers.normalise` reads every answer through :func:`plain` first. An
answer is the learner's object, so nothing of its own runs: a subclass of a built-in type (a
``str`` whose ``strip`` raises) is copied with the base type's methods, an object is judged by its
real type and never by a ``__class__`` it sets, and what an answer may hold is bounded
(:data:`MAX_ANSWER_DEPTH`, :data:`MAX_ANSWER_ITEMS`, :data:`MAX_ANSWER_CHARS`,
:data:`MAX_NUMBER_DIGITS`): past a bound it is not read further, and the :class:`FormProblem` says
which bound.
"""

from __future__ import annotations

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_ANSWER_DEPTH",
    "MAX_ANSWER_ITEMS",
    "MAX_NUMBER_DIGITS",
    "NUMBER_TOO_LONG",
    "FormProblem",
    "Plain",
    "is_too_long",
    "plain",
]

from dataclasses import dataclass
from typing import TypeGuard, TypeVar

_T = TypeVar("_T")


@dataclass(frozen=True)
class FormProblem:
    """An answer in the wrong form (the right idea may be inside it): its name and its hint.

    A *blocking* problem makes the answer wrong whatever its value; a non-blocking one is a remark
    on the form of an answer that was read fairly (``"13,950"`` read as ``13950``).
    """

    name: str
    hint: str
    blocking: bool = True


#: The most digits a number answer may have (as a number or as text). Every answer in the lab is far
#: shorter; the bound keeps a number inside what ``float`` holds (about 308 digits) and far below
#: the 4,300 digits Python's ``int()`` reads from text.
MAX_NUMBER_DIGITS = 300
#: How deeply lists, tuples, sets and dicts may nest inside an answer.
MAX_ANSWER_DEPTH = 32
#: How many items (all levels together) an answer's lists, tuples, sets and dicts may hold.
MAX_ANSWER_ITEMS = 100_000
#: How many characters (and bytes) an answer's text may hold, all its strings together.
MAX_ANSWER_CHARS = 1_000_000
#: A whole number beyond this has more than :data:`MAX_NUMBER_DIGITS` digits.
_NUMBER_BOUND = 10**MAX_NUMBER_DIGITS

#: The form problem of a number of more than :data:`MAX_NUMBER_DIGITS` digits.
NUMBER_TOO_LONG = FormProblem(
    "number-too-long",
    f"This number has more than {MAX_NUMBER_DIGITS} digits, and no answer here is anywhere near that "
    "long: check what your cell computed.",
)
_TOO_DEEP = FormProblem(
    "answer-too-deep",
    f"This answer nests lists or dicts more than {MAX_ANSWER_DEPTH} levels deep; no answer here "
    "does: give the value itself.",
)
_TOO_MUCH_TEXT = FormProblem(
    "answer-too-long",
    f"This answer holds more than {MAX_ANSWER_CHARS:,} characters of text, and no answer here is anywhere "
    "near that long: check what your cell computed.",
)
_TOO_MANY_ITEMS = FormProblem(
    "answer-too-large",
    f"This answer holds more than {MAX_ANSWER_ITEMS:,} items in its lists and dicts; no answer here "
    "does: give the value itself.",
)


def is_too_long(value: object) -> bool:
    """Whether a number answer has more than :data:`MAX_NUMBER_DIGITS` digits (its value is never
    converted: ``float()`` would overflow, ``str()`` may refuse)."""
    return isinstance(value, int) and not isinstance(value, bool) and not -_NUMBER_BOUND < value < _NUMBER_BOUND


@dataclass(frozen=True)
class Plain:
    """An answer as the lab reads it (:func:`plain`).

    Attributes:
        value: the answer, with every built-in subclass copied into its built-in type.
        data: whether the answer is plain data all the way down (``None``, ``...``, numbers, text,
            bytes, and lists, tuples, sets and dicts of them); an answer that is not may run its
            own code when compared, so :func:`~custody_lab.exercises.check` guards that.
        problem: a blocking form problem (a number of too many digits, too deep, too many items).
    """

    value: object
    data: bool
    problem: FormProblem | None = None


_SCALARS = (type(None), type(...), bool, int, float, complex, str, bytes, bytearray)


def plain(answer: object) -> Plain:
    """The answer with every subclass of a built-in type copied into that type, its own methods never
    called, and what makes it unreadable (a bound it exceeds), if anything.

    Example:
        >>> class Loud(str):
        ...     def strip(self, chars=None):
        ...         raise RuntimeError("my strip")
        >>> found = plain([Loud(" kb://a ")])
        >>> type(found.value[0]).__name__, found.value, found.data, found.problem
        ('str', [' kb://a '], True, None)
        >>> plain(10**400).problem.name, plain({"n": [10**400]}).problem.name, plain(object()).data
        ('number-too-long', 'number-too-long', False)
    """
    budget = [MAX_ANSWER_ITEMS, MAX_ANSWER_CHARS]
    try:
        value, data = _plain(answer, 0, budget)
    except _Unreadable as e:
        return Plain(answer, _plain_type(answer), e.problem)
    return Plain(value, data)


class _Unreadable(Exception):
    def __init__(self, problem: FormProblem) -> None:
        super().__init__(problem.name)
        self.problem = problem


def _plain_type(answer: object) -> bool:
    return type(answer) in (*_SCALARS, list, tuple, set, frozenset, dict)


def _is(value: object, kind: type[_T]) -> TypeGuard[_T]:
    """``isinstance`` by the real type only: an object whose ``__class__`` says ``int`` is no int."""
    return issubclass(type(value), kind)


def _spend_text(length: int, budget: list[int]) -> None:
    budget[1] -= length
    if budget[1] < 0:
        raise _Unreadable(_TOO_MUCH_TEXT)


def _plain(value: object, depth: int, budget: list[int]) -> tuple[object, bool]:
    """``value`` copied into built-in types (the base type's own methods only), and whether it is data."""
    if type(value) in _SCALARS:
        if is_too_long(value):
            raise _Unreadable(NUMBER_TOO_LONG)
        if isinstance(value, str | bytes | bytearray):  # exactly one of them: its type is in _SCALARS
            _spend_text(len(value), budget)
        return value, True
    if _is(value, str):
        _spend_text(str.__len__(value), budget)
        return str.__getitem__(value, slice(None)), True  # the base type's slice
    if _is(value, int):
        if is_too_long(number := int.__pos__(value)):
            raise _Unreadable(NUMBER_TOO_LONG)
        return number, True
    if _is(value, float):
        return float.__pos__(value), True
    if _is(value, complex):
        return complex.__pos__(value), True
    if _is(value, bytes):
        _spend_text(bytes.__len__(value), budget)
        return bytes.__getitem__(value, slice(None)), True
    if _is(value, bytearray):
        _spend_text(bytearray.__len__(value), budget)
        return bytearray(bytearray.copy(value)), True
    if not issubclass(type(value), (list, tuple, set, frozenset, dict)):
        return value, False
    if depth >= MAX_ANSWER_DEPTH:
        raise _Unreadable(_TOO_DEEP)
    if _is(value, dict):
        pairs = list(dict.items(dict.copy(value)))
    elif _is(value, list):
        pairs = list.copy(value)
    elif _is(value, tuple):
        pairs = list(tuple.__getitem__(value, slice(None)))
    elif _is(value, set):
        pairs = list(set.copy(value))
    elif _is(value, frozenset):
        pairs = list(frozenset.copy(value))
    else:  # unreachable: the kinds above are every one the check before lets through
        return value, False
    budget[0] -= len(pairs)
    if budget[0] < 0:
        raise _Unreadable(_TOO_MANY_ITEMS)
    data = True
    if _is(value, dict):
        items: dict[object, object] = {}
        for k, v in pairs:
            (key, key_data), (item, item_data) = _plain(k, depth + 1, budget), _plain(v, depth + 1, budget)
            data = data and key_data and item_data
            if not key_data:
                return value, False  # a key of its own class: keep the dict as given (guarded)
            items[key] = item
        return items, data
    copied = []
    for v in pairs:
        item, item_data = _plain(v, depth + 1, budget)
        data = data and item_data
        copied.append(item)
    if not data:
        return value, False
    if _is(value, list):
        return copied, True
    if _is(value, tuple):
        return tuple(copied), True
    return (set(copied) if _is(value, set) else frozenset(copied)), True
