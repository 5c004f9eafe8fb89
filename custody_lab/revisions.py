"""Versioned and moving URIs: which revision a read names, what a host may cache, what a citation proves.

The public path of :mod:`custody_lab.protocol.revisions` (lesson 03): notebooks and learners type
``from custody_lab.revisions import …``; the code lives there, and this module only re-exports it.
"""

from .protocol.revisions import *  # noqa: F403  (a re-export: the names are that module's __all__)
from .protocol.revisions import __all__ as __all__
