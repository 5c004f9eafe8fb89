"""What-if analysis: route a whole grid or inventory at once (public path of :mod:`custody_lab.whatif`).

    from custody_lab.sweep import sweep, grid, flips, compare, load_inventory

The code lives in :mod:`custody_lab.whatif`; this module only re-exports it, and loads pandas the
first time one of its names is used (``import custody_lab`` imports this module, so it stays light).
"""

from __future__ import annotations

from .core.lazy import lazy_exports

_WHATIF = "custody_lab.whatif.sweep"
#: public name -> the module that defines it
_EXPORTS = {
    name: _WHATIF
    for name in (
        "DEFAULT_AXES",
        "OUTCOMES",
        "OUTCOME_DTYPE",
        "PRESENT",
        "REJECTION_DTYPE",
        "SHAPE_DTYPE",
        "Codes",
        "Comparison",
        "Text",
        "Tri",
        "VectorOps",
        "compare",
        "flips",
        "grid",
        "load_inventory",
        "load_policy",
        "outcome_counts",
        "read_grid",
        "sweep",
        "to_frame",
    )
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
