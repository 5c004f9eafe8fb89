"""Which notebook asks each exercise: read from the notebooks' own calls, one notebook per exercise."""

from __future__ import annotations

import json

from custody_lab.core.paths import NOTEBOOKS_DIR
from custody_lab.exercises import all_exercises
from custody_lab.teaching.placement import exercise_notebooks


def test_every_registered_exercise_is_asked_by_exactly_one_notebook():
    where = exercise_notebooks()
    ids = [e.id for e in all_exercises()]
    assert ids, "no exercise is registered"
    unasked = [i for i in ids if i not in where]
    twice = {i: nbs for i, nbs in where.items() if len(nbs) != 1}
    assert not unasked, f"exercises no notebook asks: {unasked}"
    assert not twice, f"exercises asked by more than one notebook: {twice}"
    assert set(where) <= set(ids), f"notebooks ask unregistered ids: {sorted(set(where) - set(ids))}"


def _notebook(tmp_path, name, *cells):
    doc = {"cells": [{"cell_type": kind, "source": source} for kind, source in cells], "nbformat": 4}
    (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")


def test_only_code_cells_that_call_an_ask_count(tmp_path):
    _notebook(
        tmp_path,
        "01-a.ipynb",
        ("markdown", 'check("route-01", x) is how you answer'),
        ("code", ["answer = ...\n", 'check("route-02", answer)']),
        ("code", "ExercisePanel('blob-03')  # and recheck(\"uri-04\")"),
    )
    _notebook(tmp_path, "02-b.ipynb", ("code", 'PredictPanel("route-02")\nPredictThenSee( "actor-01", 1)'))
    (tmp_path / "03-broken.ipynb").write_text("{not json", encoding="utf-8")
    assert exercise_notebooks(tmp_path) == {
        "route-02": ("01-a.ipynb", "02-b.ipynb"),
        "blob-03": ("01-a.ipynb",),
        "actor-01": ("02-b.ipynb",),
    }


def test_a_missing_notebooks_folder_places_nothing(tmp_path):
    assert exercise_notebooks(tmp_path / "gone") == {}
    assert exercise_notebooks(NOTEBOOKS_DIR), "the repository's notebooks ask no exercise"
