"""Exercise definitions, one module per topic, and the one list of those modules.

Each set module defines its exercises as values and lists them in ``EXERCISES``; it registers
nothing itself. :func:`set_exercises` imports every module named in :data:`SET_MODULES` and
returns their exercises, and :mod:`custody_lab.teaching.exercises` registers what it returns, the
first time an exercise is needed (so ``import custody_lab`` stays light).

To add a topic, create ``custody_lab/teaching/exercise_sets/<topic>.py`` with an ``EXERCISES``
tuple and add ``<topic>`` to :data:`SET_MODULES`; ``tests/teaching/test_exercises.py`` fails while a set
module is missing from the list or two sets share an id. Modules whose name starts with ``_``
(``_answers``: how answers are read; ``_changes``: a seed case with inputs changed) are helpers of
these sets, not sets; the one helper name the rest of the teaching layer uses, :class:`CaseChange`
(the predict panel applies it), is re-exported here.
"""

from __future__ import annotations

__all__ = ["SET_MODULES", "CaseChange", "set_exercises"]

from importlib import import_module

from ..exercises import Exercise, ExerciseError
from ._changes import CaseChange

#: The topic modules, in lesson order. Adding a topic is one edit here.
SET_MODULES: tuple[str, ...] = (
    "route",
    "fixes",
    "receipt",
    "actors",
    "primitives",
    "uri_expand",
    "uri_match",
    "revision",
    "blobs",
    "kinds",
    "transform",
    "links",
    "link_choice",
    "budget",
    "authorise",
    "whatif",
    "live",
    "wire",
    "hints",
    "agent",
    "present",
    "flows",
    "hosts",
    "server_review",
)


def set_exercises(modules: tuple[str, ...] = SET_MODULES) -> tuple[Exercise, ...]:
    """Every exercise of the named set modules, module by module, each id once.

    Raises:
        ExerciseError: a module has no ``EXERCISES`` tuple of exercises, or two exercises share
            an id (the message names both modules).

    Example:
        >>> [e.id for e in set_exercises(("uri_match",))]
        ['uri-04', 'uri-07', 'uri-08']
    """
    found: list[Exercise] = []
    owner: dict[str, str] = {}
    for name in modules:
        module = import_module(f"{__name__}.{name}")
        exercises = getattr(module, "EXERCISES", None)
        if not isinstance(exercises, tuple) or not exercises or not all(isinstance(e, Exercise) for e in exercises):
            raise ExerciseError(f"exercise set {name}: EXERCISES must be a non-empty tuple of Exercise values")
        for exercise in exercises:
            if exercise.id in owner:
                raise ExerciseError(f"exercise id {exercise.id!r} is defined by both {owner[exercise.id]} and {name}")
            owner[exercise.id] = name
            found.append(exercise)
    return tuple(found)
