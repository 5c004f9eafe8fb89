"""custody_lab: who initiates context, which shape carries it, and the receipt that keeps custody.

The public face of the lab's pure core. Heavy modules (pandas, matplotlib, ipywidgets, mcp) are
imported only where they are used, so ``import custody_lab`` stays light.
"""

from __future__ import annotations

from typing import Any

from . import sweep as _sweep_module
from .core.advisor import Advice, advise, advise_case
from .core.errors import CaseError, CaseFileError, CustodyLabError, PolicyError, Problem
from .core.loading import LoadResult, load_cases, load_fixture, parse_cases, read_cases
from .core.model import SHAPES, Case, Custody, Decision, Policy, TraceStep
from .core.receipts import canonical_json, digest, extended_receipt, fixture_payload, receipt
from .core.router import route
from .core.rules import RULES, Rule

__all__ = [
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
    "TraceStep",
    "advise",
    "advise_case",
    "canonical_json",
    "digest",
    "extended_receipt",
    "fixture_payload",
    "load_cases",
    "load_fixture",
    "parse_cases",
    "read_cases",
    "receipt",
    "route",
    "sweep",
]

__version__ = "0.1.0"


# ``cl.sweep`` is the function and ``custody_lab.sweep`` the module of the same name (both public,
# DESIGN.md). Python binds a package attribute to a submodule when it first imports it, so the
# light module is imported above, once (its names load pandas on first use), and that binding is
# dropped here: the module stays in sys.modules, so a later ``from custody_lab.sweep import grid``
# finds it loaded and leaves the package alone, and the name ``sweep`` resolves in __getattr__
# below, to the function.
globals().pop("sweep")


def __getattr__(name: str) -> Any:
    # ``sweep`` needs pandas: import it on first use, not with the package.
    if name == "sweep":
        return _sweep_module.sweep
    raise AttributeError(f"module 'custody_lab' has no attribute {name!r}")
