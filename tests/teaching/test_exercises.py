"""The exercise framework: the two-way gate over every registered exercise, hints, panels, escaping."""

from __future__ import annotations

import html
import math
import re
import sys
import types
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import custody_lab.teaching.exercises as ex
from custody_lab.exercises import (
    NO_EXAMPLE,
    CheckResult,
    Exercise,
    ExerciseError,
    Mistake,
    UnknownExercise,
    all_exercises,
    check,
    get,
    input_for,
    literal_or_text,
    progress,
    register,
    reset_progress,
    reveal,
)
from custody_lab.teaching.exercise_sets import SET_MODULES, set_exercises
from custody_lab.teaching.feedback import markdown_html

EXERCISES = all_exercises()
IDS = [e.id for e in EXERCISES]
MISTAKES = [(e.id, m) for e in EXERCISES for m in e.mistakes]


class _BrokenRepr:
    def __repr__(self) -> str:
        raise ValueError("no repr for you")


class _ExplodingEq:
    def __eq__(self, other: object) -> bool:
        raise TypeError("cannot compare")

    __hash__ = object.__hash__


#: Answers of many types; no exercise may raise on any of them.
HOSTILE_ANSWERS: list[object] = [
    None,
    True,
    False,
    0,
    -1,
    10**40,
    1.5,
    math.nan,
    math.inf,
    3 + 4j,
    Decimal("105"),
    Fraction(1, 3),
    "",
    " ",
    "x" * 10_000,
    "<script>alert(1)</script>",
    "\x00\ud800",
    b"",
    b"\xff" * 50,
    bytearray(b"abc"),
    [],
    [1, 2],
    (),
    {},
    {"a": 1},
    {1, 2},
    object(),
    _BrokenRepr(),
    _ExplodingEq(),
    type,
    len,
    range(3),
    Ellipsis,
]


@pytest.fixture(autouse=True)
def _fresh_progress():
    reset_progress()
    yield
    reset_progress()


# --------------------------------------------------------------------------------------------
# The two-way gate
# --------------------------------------------------------------------------------------------


def test_there_are_registered_exercises_and_at_least_four_blob_exercises():
    assert EXERCISES, "no exercises registered"
    blob = [e.id for e in all_exercises("blob")]
    assert len(blob) >= 4, f"expected at least 4 blob exercises, got {blob}"


def test_blob_exercises_rise_in_difficulty():
    levels = [e.level for e in all_exercises("blob")]
    assert levels == sorted(levels) and levels[0] < levels[-1], f"levels: {levels}"


@pytest.mark.parametrize("exercise_id", IDS)
def test_every_reference_answer_passes_its_own_check(exercise_id):
    answer = reveal(exercise_id)
    result = check(exercise_id, answer)
    assert result.passed and result.status == "passed", (
        f"{exercise_id}: reference {answer!r} expected to pass; got {result}"
    )


@pytest.mark.parametrize("exercise_id", IDS)
def test_every_stub_fails_and_is_reported_as_not_answered(exercise_id):
    exercise = get(exercise_id)
    result = check(exercise_id, exercise.stub)
    assert not result.passed, f"{exercise_id}: the stub {exercise.stub!r} passed"
    assert result.status == "not-answered" and "not answered yet" in result.message, result.message
    assert "replace the `...`" in result.message or exercise.stub is not ..., result.message
    assert exercise.input_label in result.message, result.message


@pytest.mark.parametrize("exercise_id", IDS)
def test_every_exercise_lists_typical_mistakes_each_with_an_example(exercise_id):
    exercise = get(exercise_id)
    assert exercise.mistakes, f"{exercise_id} lists no typical mistake"
    missing = [m.name for m in exercise.mistakes if m.example is NO_EXAMPLE]
    assert not missing, f"{exercise_id}: mistakes without an example answer: {missing}"


@pytest.mark.parametrize(("exercise_id", "mistake"), MISTAKES, ids=[f"{i}:{m.name}" for i, m in MISTAKES])
def test_every_typical_mistake_gets_its_own_hint(exercise_id, mistake):
    result = check(exercise_id, mistake.example)
    assert not result.passed, f"{exercise_id}: the example of {mistake.name} passed"
    assert result.mistake == mistake.name, (
        f"{exercise_id}: example {mistake.example!r} expected mistake {mistake.name!r}, got {result.mistake!r}"
    )
    assert result.hint == mistake.hint
    assert exercise_id in str(result) and "Hint:" in str(result)


@pytest.mark.parametrize("exercise_id", IDS)
def test_mistake_hints_are_distinct_within_an_exercise(exercise_id):
    hints = [m.hint for m in get(exercise_id).mistakes]
    assert len(set(hints)) == len(hints), f"{exercise_id}: two mistakes share a hint"


@pytest.mark.parametrize("exercise_id", IDS)
@pytest.mark.parametrize("answer", HOSTILE_ANSWERS, ids=lambda a: type(a).__name__)
def test_check_never_raises_for_an_answer_of_any_type(exercise_id, answer):
    result = check(exercise_id, answer)
    assert isinstance(result, CheckResult)
    assert isinstance(result._repr_html_(), str) and isinstance(str(result), str)


@pytest.mark.parametrize("exercise_id", IDS)
def test_an_exercise_with_an_input_gives_it(exercise_id):
    exercise = get(exercise_id)
    if exercise.given is not None:
        assert input_for(exercise_id) is not None


# --------------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------------


def test_a_wrong_answer_without_a_known_mistake_names_the_input_the_answer_and_its_kind_but_not_the_expected_one():
    result = check("blob-01", 7)
    assert result.status == "wrong" and result.mistake is None, result
    assert result.hint == get("blob-01").hints[0], (
        f"first wrong try: expected the first general hint, got {result.hint!r}"
    )
    for part in ("the blob of assets://logo.png", "7", "a number, the right kind"):
        assert part in result.message, f"{part!r} missing from {result.message!r}"
    for shown in (result.message, str(result), visible_text(result._repr_html_())):
        assert "105" not in shown, f"check('blob-01', 7): the expected 105 is shown: {shown!r}"
    assert not hasattr(result, "expected"), "a CheckResult must not carry the expected answer"
    assert reveal("blob-01") == 105, "the expected answer stays available through reveal()"


def visible_text(page: str) -> str:
    """What a learner reads in an HTML result: the text between the tags, unescaped."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _shown(result: CheckResult) -> dict[str, str]:
    return {"message": result.message, "str": str(result), "html": visible_text(result._repr_html_())}


def _revealing(exercise_id: str, answer: object) -> list[str]:
    """Where a wrong answer's feedback shows the expected value (beyond the learner's own answer)."""
    expected = str(reveal(exercise_id))
    result = check(exercise_id, answer)
    assert not result.passed, f"{exercise_id}: {answer!r} was meant to be wrong"
    return [where for where, text in _shown(result).items() if expected in text]


@pytest.mark.parametrize("exercise_id", IDS)
@pytest.mark.parametrize("wrong", ["zz-not-it", 987_654, ["zz"]], ids=["text", "number", "list"])
def test_a_wrong_answer_never_shows_the_expected_one(exercise_id, wrong):
    leaks = _revealing(exercise_id, wrong)
    assert not leaks, f"check({exercise_id!r}, {wrong!r}) shows the expected {reveal(exercise_id)!r} in {leaks}"


#: The mistakes whose example answer does not itself contain the expected value (most of them).
CLEAN_MISTAKES = [(i, m) for i, m in MISTAKES if str(reveal(i)) not in str(m.example) + ex.short_repr(m.example)]


def test_most_mistake_examples_are_free_of_the_expected_value():
    assert len(CLEAN_MISTAKES) >= len(MISTAKES) * 3 // 4, f"only {len(CLEAN_MISTAKES)} of {len(MISTAKES)}"


@pytest.mark.parametrize(("exercise_id", "mistake"), CLEAN_MISTAKES, ids=[f"{i}:{m.name}" for i, m in CLEAN_MISTAKES])
def test_a_typical_mistake_gets_a_hint_that_does_not_give_the_answer_away(exercise_id, mistake):
    leaks = _revealing(exercise_id, mistake.example)
    expected = reveal(exercise_id)
    assert not leaks, f"{exercise_id}: the feedback to {mistake.example!r} shows the expected {expected!r} in {leaks}"


def test_counting_base64_characters_gets_the_specific_hint():
    result = check("blob-01", 140)
    assert result.mistake == "counted-base64-characters"
    assert "base64 characters" in (result.hint or "")


def test_html_result_shows_a_symbol_and_words_not_colour_only():
    assert "✓ Correct" in check("blob-01", 105)._repr_html_()
    assert "✗ Not yet" in check("blob-01", 1)._repr_html_()
    assert "Not answered yet" in check("blob-01", ...)._repr_html_()


def test_hostile_answers_are_escaped_in_the_html_result():
    hostile = "<img src=x onerror=alert(1)>"
    page = check("blob-02", hostile)._repr_html_()
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page, page


def test_long_answers_are_shortened_in_messages():
    result = check("blob-03", "A" * 5000)
    assert len(result.message) < 400, len(result.message)


# --------------------------------------------------------------------------------------------
# Registry and progress
# --------------------------------------------------------------------------------------------


def test_an_unknown_exercise_raises_a_key_error_listing_the_known_ids():
    with pytest.raises(KeyError) as info:
        check("blob-99", 1)
    assert isinstance(info.value, UnknownExercise)
    assert "blob-01" in str(info.value) and "blob-99" in str(info.value)


def test_reveal_gives_the_reference_answer_and_progress_records_it_as_revealed_not_passed():
    assert reveal("blob-01") == 105
    assert reveal("blob-03") == "Pj+//xA="
    assert progress() == {"blob-01": "revealed", "blob-03": "revealed"}, progress()
    check("blob-01", 105)
    assert progress()["blob-01"] == "revealed", "a pass after the reveal is still not 'solved'"


def test_progress_records_passes_and_attempts_but_not_stubs():
    for blank in (..., None, "", "  ", "..."):
        check("blob-01", blank)
    assert "blob-01" not in progress(), progress()
    check("blob-01", 140)
    assert progress()["blob-01"] == "tried"
    check("blob-01", 105)
    check("blob-01", 1)
    assert progress()["blob-01"] == "passed", "a pass stays recorded after a later wrong try"


SETS_DIR = Path(ex.__file__).parent / "exercise_sets"


def test_every_set_module_on_disk_is_listed_in_set_modules():
    on_disk = sorted(p.stem for p in SETS_DIR.glob("*.py") if not p.stem.startswith("_"))
    assert on_disk, f"no exercise set modules found in {SETS_DIR}"
    assert on_disk == sorted(SET_MODULES), f"set modules on disk {on_disk} != SET_MODULES {sorted(SET_MODULES)}"


@pytest.mark.parametrize("module", SET_MODULES)
def test_every_listed_set_module_contributes_registered_exercises(module):
    own = [e.id for e in set_exercises((module,))]
    assert own, f"exercise set {module} defines no exercises"
    missing = [i for i in own if i not in IDS]
    assert not missing, f"exercise set {module}: {missing} are not in the registry {IDS}"


def test_the_registry_holds_exactly_the_exercises_of_the_set_modules_each_id_once():
    ids = [e.id for e in set_exercises()]
    assert len(ids) == len(set(ids)), f"duplicate ids across the sets: {ids}"
    assert sorted(ids) == sorted(IDS), f"set modules give {sorted(ids)}, the registry holds {sorted(IDS)}"


def _fake_set(monkeypatch, name: str, **attributes: object) -> str:
    module = types.ModuleType(f"custody_lab.teaching.exercise_sets.{name}")
    for key, value in attributes.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return name


def test_two_set_modules_defining_the_same_id_are_refused_naming_both(monkeypatch):
    twin = _fake_set(monkeypatch, "twin", EXERCISES=(get("blob-01"),))
    with pytest.raises(ExerciseError, match=r"'blob-01' is defined by both blobs and twin"):
        set_exercises(("blobs", twin))


@pytest.mark.parametrize("exercises", [None, (), [get("blob-01")], ("blob-01",)], ids=repr)
def test_a_set_module_without_a_tuple_of_exercises_is_refused(monkeypatch, exercises):
    attributes = {} if exercises is None else {"EXERCISES": exercises}
    empty = _fake_set(monkeypatch, "empty", **attributes)
    with pytest.raises(ExerciseError, match="exercise set empty: EXERCISES must be a non-empty tuple"):
        set_exercises((empty,))


@pytest.mark.parametrize(("bad_id",), [("Blob-01",), ("blob1",), ("blob-1",), ("",), ("blob-001",)])
def test_exercise_ids_must_look_like_topic_dash_two_digits(bad_id):
    with pytest.raises(ExerciseError):
        Exercise(id=bad_id, title="t", prompt="p", reference=lambda: 1, input_label="x")


def test_registering_an_id_from_another_module_is_refused():
    def reference() -> int:
        return 1

    reference.__module__ = "somewhere.else"
    with pytest.raises(ExerciseError, match="already registered"):
        register(Exercise(id="blob-01", title="t", prompt="p", reference=reference, input_label="x"))


def test_a_stub_of_none_is_detected_as_not_answered():
    def reference() -> str:
        return "x"

    exercise = register(
        Exercise(id="test-01", title="t", prompt="p", reference=reference, input_label="the test input", stub=None)
    )
    try:
        assert check("test-01", None).status == "not-answered"
        assert check("test-01", "x").passed
    finally:
        ex._REGISTRY.pop(exercise.id)


def test_a_detector_that_raises_type_error_counts_as_no_match():
    def boom(answer: object) -> bool:
        raise TypeError("wrong type")

    exercise = register(
        Exercise(
            id="test-02",
            title="t",
            prompt="p",
            reference=lambda: 1,
            input_label="x",
            mistakes=(Mistake("boom", boom, "never shown", example=2),),
        )
    )
    try:
        result = check("test-02", 2)
        assert result.status == "wrong" and result.mistake is None
    finally:
        ex._REGISTRY.pop(exercise.id)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("105", 105),
        ("  image/png ", "image/png"),
        ("", ...),
        ("...", ...),
        ("b'ab'", b"ab"),
        ("'105'", "105"),
        ("Pj+//xA=", "Pj+//xA="),
    ],
)
def test_typed_answers_are_read_as_literals_or_text(typed, expected):
    assert literal_or_text(typed) == expected, f"{typed!r} -> {literal_or_text(typed)!r}"


# --------------------------------------------------------------------------------------------
# The Check panel and the progress panel
# --------------------------------------------------------------------------------------------


def test_exercise_panel_shows_the_hint_then_success():
    from custody_lab.teaching.panels import ExercisePanel

    panel = ExercisePanel("blob-01")
    assert "blob-01" in panel.heading.value and "<code>decode</code>" in panel.prompt.value
    panel.check_button.click()
    assert panel.result is not None and panel.result.status == "not-answered"
    assert "Not answered yet" in panel.output.value

    panel.answer.value = "140"
    panel.check_button.click()
    assert panel.result.mistake == "counted-base64-characters"
    assert "Hint:" in panel.output.value and "base64 characters" in panel.output.value
    assert "int" in panel.read_as.value

    panel.answer.value = "105"
    panel.check_button.click()
    assert panel.result.passed and "✓ Correct" in panel.output.value


def test_exercise_panel_keeps_text_answers_as_text():
    from custody_lab.teaching.panels import ExercisePanel

    panel = ExercisePanel("blob-03")
    panel.answer.value = "Pj+//xA="
    panel.check_button.click()
    assert panel.result.passed, panel.result.message


def test_exercise_panel_escapes_a_hostile_answer():
    from custody_lab.teaching.panels import ExercisePanel

    panel = ExercisePanel("blob-02")
    panel.answer.value = "<img src=x onerror=alert(1)>"
    panel.check_button.click()
    for html_text in (panel.output.value, panel.read_as.value):
        assert "<img" not in html_text, html_text
    assert "&lt;img src=x onerror=alert(1)&gt;" in panel.output.value


@pytest.mark.parametrize("exercise_id", IDS)
def test_every_exercise_has_a_panel_whose_reference_text_passes(exercise_id):
    from custody_lab.teaching.panels import ExercisePanel

    panel = ExercisePanel(exercise_id)
    reference = reveal(exercise_id)
    panel.answer.value = reference if isinstance(reference, str) else repr(reference)
    panel.check_button.click()
    assert panel.result.passed, f"{exercise_id}: typed {panel.answer.value!r}: {panel.result}"


def test_progress_panel_counts_passed_tried_and_not_tried():
    from custody_lab.teaching.panels import ProgressPanel

    panel = ProgressPanel("blob")
    total = len(all_exercises("blob"))
    assert panel.counts == {"passed": 0, "tried": 0, "revealed": 0, "not tried": total}
    check("blob-01", 105)
    check("blob-02", "image/png")
    reveal("blob-03")
    panel.refresh_button.click()
    assert panel.counts == {"passed": 1, "tried": 1, "revealed": 1, "not tried": total - 3}, panel.counts
    for mark in ("✓ passed", "✗ tried", "◐ answer shown"):
        assert mark in panel.table.value, f"{mark!r} missing from {panel.table.value!r}"


def test_progress_panel_takes_a_tuple_of_prefixes_and_shows_exactly_their_exercises():
    from custody_lab.teaching.panels import ProgressPanel

    panel = ProgressPanel(("uri", "blob"))
    wanted = {e.id for e in all_exercises() if e.id.startswith(("uri-", "blob-"))}
    shown = set(re.findall(r"<code>([a-z]+-\d{2})</code>", panel.table.value))
    assert wanted and shown == wanted, f"prefixes ('uri', 'blob'): expected {sorted(wanted)}, shown {sorted(shown)}"
    assert sum(panel.counts.values()) == len(wanted), panel.counts
    check("uri-01", "wrong on purpose")
    check("blob-01", 105)
    panel.refresh()
    assert panel.counts["passed"] == 1 and panel.counts["tried"] == 1, panel.counts


def test_markdown_html_escapes_everything_but_code_and_bold():
    out = markdown_html("a `<b>` **bold** <i>x</i>\n\n- one\n- two")
    assert out == (
        "<p>a <code>&lt;b&gt;</code> <b>bold</b> &lt;i&gt;x&lt;/i&gt;</p><ul><li>one</li><li>two</li></ul>"
    ), out


def test_a_check_results_html_shows_the_labs_code_marks_as_code_never_as_backticks():
    """Issue 37 §4: 11 outputs in notebook 05 and 3 in 09 (the capstone, now 10) showed Markdown backticks literally."""
    seen = 0
    for exercise_id, mistake in MISTAKES:
        result = check(exercise_id, mistake.example)
        if "`" in (result.hint or "") + result.message and "`" not in ex.short_repr(result.actual):
            seen += 1
            text = visible_text(result._repr_html_())
            assert "`" not in text, f"check({exercise_id!r}, {mistake.example!r}) shows backticks: {text!r}"
            assert "<code>" in result._repr_html_().split("</div>", 1)[1], result._repr_html_()
    assert seen >= 10, f"only {seen} results had a `code` mark to render"
    stub = check("capstone-02", ...)._repr_html_()
    assert "replace the <code>...</code> with" in stub, stub


def test_a_learners_backticks_and_tags_stay_text_in_the_html():
    page = check("blob-01", "`<b>x</b>` **y**")._repr_html_()
    assert "`&lt;b&gt;x&lt;/b&gt;` **y**" in page, page
    assert "<b>x</b>" not in page and "<b>y</b>" not in page, page


def test_the_progress_panel_says_how_each_exercise_was_passed():
    """Issue 37 §4: first try, after N wrong tries, or shown; a blind enumeration is not a plain pass."""
    from custody_lab.teaching.exercise_sets.primitives import DECIDERS
    from custody_lab.teaching.panels import ProgressPanel

    assert check("primitive-02", reveal("primitive-02")).status == "passed"  # after a reveal: shown
    assert check(
        "primitive-04", {"primitive": "tool", "shape": "structured-tool-result", "decided_by": "validated_fields"}
    ).passed
    tries = 0
    for primitive in ("resource", "tool"):  # try every answer, blind
        for shape in ("listed-resource", "templated-resource", "resource-link", "embedded-resource"):
            for fact in DECIDERS:
                if check("primitive-01", {"primitive": primitive, "shape": shape, "decided_by": fact}).passed:
                    break
                tries += 1
            else:
                continue
            break
        else:
            continue
        break
    assert tries >= 2, tries
    panel = ProgressPanel("primitive")
    rows = dict(re.findall(r"<code>(primitive-\d\d)</code>.*?<td>\d</td><td>([^<]*)</td>", panel.table.value))
    assert rows["primitive-01"] == f"✓ passed after {tries} wrong tries", rows
    assert rows["primitive-04"] == "✓ passed on the first try", rows
    assert rows["primitive-02"].startswith("◐ answer shown"), rows
    assert rows["primitive-03"] == "· not tried", rows
    assert "(1 on the first try)" in panel.table.value and "1 on the first try" in panel.text, panel.text
    assert f"primitive-01  ✓ passed after {tries} wrong tries" in panel.text, panel.text
