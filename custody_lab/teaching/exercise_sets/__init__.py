"""Exercise definitions, one module per topic; importing this package registers them all.

:mod:`custody_lab.exercises` imports this package lazily, the first time an exercise is needed.
To add a topic, create ``custody_lab/teaching/exercise_sets/<topic>.py`` (calling
:func:`custody_lab.exercises.register` for each exercise) and add its name to ``SET_MODULES``.
"""

from __future__ import annotations

__all__ = ["SET_MODULES"]

from importlib import import_module

#: The topic modules, in lesson order. Adding a topic is one edit here.
SET_MODULES: tuple[str, ...] = ("uri_templates", "blobs")

for _name in SET_MODULES:
    import_module(f"{__name__}.{_name}")
