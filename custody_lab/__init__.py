"""custody_lab: who initiates context, which shape carries it, and the receipt that keeps custody.

The public face of the lab's pure core. Heavy modules (pandas, matplotlib, ipywidgets, mcp) are
imported only where they are used, so ``import custody_lab`` stays light.
"""

from __future__ import annotations

from typing import Any

from .advisor import Advice, advise, advise_case
from .errors import CaseError, CaseFileError, CustodyLabError, PolicyError, Problem
from .loading import LoadResult, load_cases, load_fixture, parse_cases, read_cases
from .model import SHAPES, Case, Custody, Decision, Policy, TraceStep
from .receipts import canonical_json, digest, extended_receipt, fixture_payload, receipt
from .router import route, route_all
from .rules import RULES, Rule

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
    "route_all",
    "sweep",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # ``sweep`` needs pandas; import it on first use, not with the package.
    if name == "sweep":
        from .sweep import sweep

        return sweep
    raise AttributeError(f"module 'custody_lab' has no attribute {name!r}")
