"""Transforms as recorded steps: PDF to text, CSV to JSON, an excerpt, a summary; no record hides a cut.

The public path of :mod:`custody_lab.protocol.transforms` (lesson 04): notebooks and learners type
``from custody_lab.transforms import …``; the code lives there, and this module only re-exports it.
"""

from .protocol.transforms import *  # noqa: F403  (a re-export: the names are that module's __all__)
from .protocol.transforms import __all__ as __all__
