"""What-if analysis: route a whole grid or inventory at once (public path of :mod:`custody_lab.whatif`).

    from custody_lab.sweep import sweep, grid, flips, compare, load_inventory

The code lives in :mod:`custody_lab.whatif`; this module only re-exports it, and loads pandas the
first time one of its names is used (``import custody_lab`` imports this module, so it stays light).
"""

from __future__ import annotations

from .core.lazy import lazy_exports

_W = "custody_lab.whatif"
#: public name -> the module that defines it
_EXPORTS = {
    "DEFAULT_AXES": f"{_W}.grid",
    "OUTCOMES": f"{_W}.columns",
    "OUTCOME_DTYPE": f"{_W}.columns",
    "PRESENT": f"{_W}.grid",
    "REJECTION_DTYPE": f"{_W}.columns",
    "SHAPE_DTYPE": f"{_W}.columns",
    "Codes": f"{_W}.columns",
    "Comparison": f"{_W}.compare",
    "Text": f"{_W}.columns",
    "Tri": f"{_W}.columns",
    "VectorOps": f"{_W}.columns",
    "compare": f"{_W}.compare",
    "flips": f"{_W}.flips",
    "grid": f"{_W}.grid",
    "load_inventory": f"{_W}.io",
    "load_policy": "custody_lab.core.tables",
    "outcome_counts": f"{_W}.sweep",
    "read_grid": f"{_W}.io",
    "read_grid_and_policy": f"{_W}.io",
    "sweep": f"{_W}.sweep",
    "to_frame": f"{_W}.io",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
