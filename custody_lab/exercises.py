"""Checked exercises: ``check(id, answer)``, hints that never give the answer away, ``reveal(id)``.

The public path of :mod:`custody_lab.teaching.exercises` (the teaching layer): notebooks and learners type
``from custody_lab.exercises import …``; the code lives there, and this module only re-exports it.
"""

from .teaching.exercises import *  # noqa: F403  (a re-export: the names are that module's __all__)
from .teaching.exercises import __all__ as __all__
