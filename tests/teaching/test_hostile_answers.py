"""Issue 24 §4: ``check()`` answers every answer — huge numbers, numbers written with thousands of
digits, built-in subclasses whose own methods raise, answers nested or sized past every bound, and
objects whose own code raises — with a :class:`CheckResult`, never a traceback, and never with the
expected answer in its feedback."""

from __future__ import annotations

import html
import operator
import re

import pytest

import custody_lab.teaching.exercises as ex
from custody_lab.exercises import CheckResult, Exercise, all_exercises, check, reset_progress, reveal
from custody_lab.teaching import answers

IDS = [e.id for e in all_exercises()]


class LoudStr(str):
    """A str whose own methods raise: the lab must read the characters without calling them."""

    def strip(self, chars: str | None = None) -> str:
        raise RuntimeError("LoudStr.strip")

    def __len__(self) -> int:
        raise RuntimeError("LoudStr.__len__")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("LoudStr.__eq__")

    __hash__ = str.__hash__


class LoudList(list):
    def __len__(self) -> int:
        raise RuntimeError("LoudList.__len__")

    def __iter__(self):
        raise RuntimeError("LoudList.__iter__")


class LoudDict(dict):
    def __len__(self) -> int:
        raise RuntimeError("LoudDict.__len__")

    def items(self):
        raise RuntimeError("LoudDict.items")

    def __iter__(self):
        raise RuntimeError("LoudDict.__iter__")


class LoudInt(int):
    def __index__(self) -> int:
        raise RuntimeError("LoudInt.__index__")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("LoudInt.__eq__")

    __hash__ = int.__hash__


class Boom:
    """An object of its own class: every method a reader might call raises."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("Boom.__eq__")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("Boom.__ne__")

    def __repr__(self) -> str:
        raise RuntimeError("Boom.__repr__")

    def __len__(self) -> int:
        raise RuntimeError("Boom.__len__")

    def __bool__(self) -> bool:
        raise RuntimeError("Boom.__bool__")

    __hash__ = object.__hash__


def _nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth):
        value = [value]
    return value


#: Each hostile answer, by what it is, and the mistake the lab names (None: any wrong result).
HOSTILE = {
    "an int of 401 digits (float() overflows)": (10**400, "number-too-long"),
    "an int of 5,001 digits (str() refuses)": (-(10**5000), "number-too-long"),
    "400 digits as text": ("9" * 400, None),
    "5,000 digits as text (int() refuses)": ("9" * 5000, None),
    "5,000 digits with thousands separators": ("1," + ",".join(["000"] * 1700), None),
    "400 digits and a fraction as text": ("1" * 400 + ".5", None),
    "a str subclass whose strip, __len__ and __eq__ raise": (LoudStr(" no "), None),
    "a list subclass whose __len__ and __iter__ raise": (LoudList(["x"]), None),
    "a dict subclass whose items, __len__ and __iter__ raise": (LoudDict(a="x"), None),
    "an int subclass whose __index__ and __eq__ raise": (LoudInt(987_654), None),
    "an int of 401 digits inside a list": ([1, 10**400], "number-too-long"),
    "an int of 401 digits as a dict value": ({"bytes": 10**400}, "number-too-long"),
    "lists nested 100 deep": (_nested(100), "answer-too-deep"),
    "200,000 items": (list(range(200_000)), "answer-too-large"),
    "a list holding an object whose methods raise": ([Boom()], None),
}


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


def _feedback(result: CheckResult) -> str:
    page = html.unescape(re.sub(r"<[^>]+>", " ", result._repr_html_()))
    return f"{result.message}\n{result}\n{page}"


@pytest.mark.parametrize("exercise_id", IDS)
@pytest.mark.parametrize(("answer", "mistake"), list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_hostile_answer_gets_a_wrong_result_that_hides_the_expected_one(exercise_id, answer, mistake):
    result = check(exercise_id, answer)
    assert isinstance(result, CheckResult) and result.status == "wrong", f"{exercise_id}: {result}"
    if mistake is not None:
        assert result.mistake == mistake, f"{exercise_id}: expected the mistake {mistake}, got {result.mistake}"
    expected = str(reveal(exercise_id))
    shown = _feedback(result)
    if len(expected) >= 4:  # a one-digit reference is in any sentence with a number in it
        assert expected not in shown, f"{exercise_id}: the feedback shows the expected {expected!r}: {shown!r}"


@pytest.mark.parametrize("digits", [309, 400, 4301, 5000])
def test_a_number_answer_of_too_many_digits_is_wrong_with_a_hint_that_says_so(digits):
    for answer in (10 ** (digits - 1), "9" * digits, f" '{'9' * digits}' "):
        result = check("blob-01", answer)
        assert (result.status, result.mistake) == ("wrong", "number-too-long"), (digits, type(answer), result)
        assert f"more than {answers.MAX_NUMBER_DIGITS} digits" in result.hint, result.hint


def test_a_number_of_the_most_digits_allowed_is_still_read_as_a_number():
    result = check("blob-01", "1" * answers.MAX_NUMBER_DIGITS)
    assert result.mistake != "number-too-long" and result.given_kind == "a number", result


def test_a_builtin_subclass_is_read_as_its_builtin_value_without_calling_its_methods():
    assert check("blob-01", LoudStr(" 105 ")).passed, "the characters ' 105 ' are the right answer"
    assert check("blob-01", LoudInt(105)).passed, "the int 105 is the right answer"
    found = answers.plain(LoudDict(a=LoudList([LoudStr("x")])))
    assert found.value == {"a": ["x"]} and type(found.value["a"][0]) is str, found  # type: ignore[index]


def test_an_answer_whose_own_code_raises_gets_a_result_naming_its_class():
    exercise = Exercise(
        id="hostile-01",
        title="compares with ==",
        prompt="p",
        reference=lambda: "right",
        input_label="the test input",
        compare=operator.eq,  # the default: runs the answer's own __eq__
        kind="text",
    )
    ex._REGISTRY[exercise.id] = exercise
    try:
        result = check("hostile-01", Boom())
    finally:
        del ex._REGISTRY[exercise.id]
    assert (result.status, result.mistake) == ("wrong", "answer-raised"), result
    assert "Boom" in result.hint and "RuntimeError" in result.hint and "right" not in _feedback(result), result


def test_a_fault_of_the_lab_itself_is_not_hidden_as_the_answers_fault():
    def broken(answer: object, expected: object) -> bool:
        raise RuntimeError("a bug in the lab's compare")

    exercise = Exercise(
        id="hostile-02", title="t", prompt="p", reference=lambda: "right", input_label="x", compare=broken
    )
    ex._REGISTRY[exercise.id] = exercise
    try:
        with pytest.raises(RuntimeError, match="a bug in the lab's compare"):
            check("hostile-02", "plain text")  # plain data runs no code of its own: the fault is the lab's
    finally:
        del ex._REGISTRY[exercise.id]


# -- an object that lies about its class, and text too long to read (issue 39 §3) -------------------------


class _SaysInt:
    __class__ = int  # isinstance(x, int) is True; int's own methods refuse it


class _SaysStr:
    __class__ = str


class _SaysList:
    __class__ = list


class _SaysDict:
    __class__ = dict


@pytest.mark.parametrize("liar", [_SaysInt, _SaysStr, _SaysList, _SaysDict], ids=lambda c: c.__name__)
def test_an_answer_whose_class_lies_gets_a_result_on_every_exercise(liar):
    from custody_lab.exercises import all_exercises, check

    exercises = list(all_exercises())
    assert len(exercises) > 50
    for exercise in exercises:
        result = check(exercise.id, liar())
        assert not result.passed, exercise.id
    assert answers.plain(liar()).data is False


def test_an_answer_of_a_hundred_megabytes_is_refused_unread_with_a_form_hint():
    from custody_lab.exercises import check
    from custody_lab.teaching.answer_copy import MAX_ANSWER_CHARS

    huge = "x" * 100_000_000
    found = answers.plain(huge)
    assert found.problem is not None and found.problem.name == "answer-too-long", found.problem
    assert answers.plain("x" * MAX_ANSWER_CHARS).problem is None  # the bound itself is allowed
    assert answers.plain(["x" * (MAX_ANSWER_CHARS // 2)] * 3).problem.name == "answer-too-long"  # all strings together
    assert answers.plain(b"x" * (MAX_ANSWER_CHARS + 1)).problem.name == "answer-too-long"
    result = check("route-01", huge)
    assert not result.passed and f"{MAX_ANSWER_CHARS:,} characters" in str(result), str(result)[:300]
