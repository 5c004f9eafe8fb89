"""custody_lab: who initiates context, which shape carries it, and the receipt that keeps custody.

The public face of the lab's pure core (``docs/design.md`` lists every public path and what it
holds). Heavy modules (pandas, matplotlib, ipywidgets, mcp) are imported only where they are used,
so ``import custody_lab`` stays light.

``cl.sweep`` is the public module :mod:`custody_lab.sweep`, and that module is callable:
``cl.sweep(frame, policy)`` runs :func:`custody_lab.sweep.sweep` (pandas loads on that first call).
Type checkers see ``cl.sweep`` as that function, through the ``TYPE_CHECKING`` import below.
"""

from typing import TYPE_CHECKING

# First: on a Python older than 3.11 this stops with one line (what to install) before the imports
# below fail with a traceback. This file and python_check.py parse on every Python 3.
from . import python_check  # noqa: F401
from .core.advisor import Advice, advise, advise_case, size_reuse_table
from .core.errors import CaseError, CaseFileError, CustodyLabError, PolicyError, Problem
from .core.explain import diff, flip_sentence
from .core.loading import LoadResult, load_cases, load_fixture, parse_cases, read_cases
from .core.model import APPLICATION_SHAPES, MODEL_SHAPES, SHAPES, Case, Custody, Decision, Policy, TraceStep
from .core.paths import data_path, work_folder
from .core.receipts import actor_labels, canonical_json, digest, extended_receipt, fixture_payload, receipt
from .core.router import route
from .core.rules import RESOURCE_NOT_FOUND_CODES, RULES, Rule
from .core.text import visible
from .views.table import Table

if TYPE_CHECKING:
    from .whatif.sweep import sweep
else:
    from . import sweep  # the callable module (light: its names load pandas on first use)

__all__ = [
    "APPLICATION_SHAPES",
    "MODEL_SHAPES",
    "RESOURCE_NOT_FOUND_CODES",
    "RULES",
    "SHAPES",
    "Advice",
    "Case",
    "CaseError",
    "CaseFileError",
    "Custody",
    "CustodyLabError",
    "Decision",
    "LoadResult",
    "Policy",
    "PolicyError",
    "Problem",
    "Rule",
    "Table",
    "TraceStep",
    "actor_labels",
    "advise",
    "advise_case",
    "canonical_json",
    "data_path",
    "diff",
    "digest",
    "extended_receipt",
    "fixture_payload",
    "flip_sentence",
    "load_cases",
    "load_fixture",
    "parse_cases",
    "read_cases",
    "receipt",
    "route",
    "size_reuse_table",
    "sweep",
    "visible",
    "work_folder",
]

__version__ = "0.1.0"
