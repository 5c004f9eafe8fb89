"""The exercise sets: one module per topic, the one list of them, and the readers they share."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from custody_lab.teaching import exercise_sets
from custody_lab.teaching.exercise_sets import (
    _answers,
    actors,
    agent,
    authorise,
    blobs,
    budget,
    fixes,
    flows,
    hints,
    hosts,
    kinds,
    link_choice,
    links,
    live,
    present,
    primitives,
    receipt,
    revision,
    route,
    server_review,
    transform,
    uri_expand,
    uri_match,
    whatif,
    wire,
)
from custody_lab.teaching.exercises import ExerciseError

#: Every topic module, imported by name above: a set added to the package but not here fails
#: the first test below, so a new topic gets its place in this registry test too.
MODULES: dict[str, types.ModuleType] = {
    m.__name__.rsplit(".", 1)[1]: m
    for m in (
        actors,
        agent,
        authorise,
        blobs,
        budget,
        fixes,
        flows,
        hints,
        hosts,
        kinds,
        link_choice,
        links,
        live,
        present,
        primitives,
        receipt,
        revision,
        route,
        server_review,
        transform,
        uri_expand,
        uri_match,
        whatif,
        wire,
    )
}
SETS_DIR = Path(exercise_sets.__file__).parent


def test_set_modules_lists_every_topic_module_of_the_package_once():
    on_disk = {p.stem for p in SETS_DIR.glob("*.py") if not p.name.startswith("_")}
    listed = exercise_sets.SET_MODULES
    assert len(listed) == len(set(listed)), f"SET_MODULES repeats a topic: {listed}"
    assert set(listed) == on_disk == set(MODULES), (
        f"on disk {sorted(on_disk)}, SET_MODULES {sorted(listed)}, imported here {sorted(MODULES)}"
    )


def test_the_registered_exercises_are_each_modules_exercises_in_lesson_order():
    expected = [e.id for name in exercise_sets.SET_MODULES for e in MODULES[name].EXERCISES]
    got = [e.id for e in exercise_sets.set_exercises()]
    assert got == expected, f"expected {expected[:5]}…, got {got[:5]}…"
    assert len(got) >= 50, f"only {len(got)} exercises registered"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_topic_numbers_its_exercises_under_one_prefix(name):
    ids = [e.id for e in MODULES[name].EXERCISES]
    prefixes = {i.rsplit("-", 1)[0] for i in ids}
    numbers = [i.rsplit("-", 1)[1] for i in ids]
    assert len(prefixes) == 1, f"{name}: exercises under several prefixes: {ids}"
    assert all(n.isdigit() and len(n) == 2 for n in numbers), f"{name}: ids must be topic-NN: {ids}"


def test_two_sets_sharing_an_id_are_refused_with_both_module_names(monkeypatch):
    twin = types.ModuleType(f"{exercise_sets.__name__}.twin_of_route")
    twin.EXERCISES = (route.EXERCISES[0],)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, twin.__name__, twin)
    with pytest.raises(ExerciseError) as caught:
        exercise_sets.set_exercises(("route", "twin_of_route"))
    message = str(caught.value)
    assert route.EXERCISES[0].id in message and "route" in message and "twin_of_route" in message, message


@pytest.mark.parametrize("bad", [(), ["not", "a", "tuple"], ("not an exercise",)])
def test_a_set_without_a_tuple_of_exercises_is_refused_by_name(monkeypatch, bad):
    broken = types.ModuleType(f"{exercise_sets.__name__}.broken_set")
    broken.EXERCISES = bad  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, broken.__name__, broken)
    with pytest.raises(ExerciseError, match="broken_set"):
        exercise_sets.set_exercises(("broken_set",))


@pytest.mark.parametrize(
    ("answer", "expected"),
    [(105, 105.0), (" 105 ", None), ("1,800", None), (True, None), (12.5, 12.5), (None, None)],
)
def test_a_number_answer_is_a_number_never_a_guess_from_text_or_a_flag(answer, expected):
    assert _answers.number(answer) == expected, f"number({answer!r}): expected {expected!r}"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [(" Keep-Cached ", "keep-cached"), (["keep-cached"], None), (7, None), (b"keep-cached", None)],
)
def test_a_code_answer_is_one_text_compared_without_case_or_spaces(answer, expected):
    assert _answers.code(answer) == expected, f"code({answer!r}): expected {expected!r}"


def test_names_are_compared_as_sets_and_never_as_one_string():
    assert _answers.same_names([" bytes", "shape "], ["shape", "bytes"])
    assert not _answers.same_names(["bytes"], ["bytes", "shape"])
    assert not _answers.same_names("bytes, shape", ["bytes", "shape"]), "a single string is not a list of names"
