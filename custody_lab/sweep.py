"""What-if analysis: route a whole grid or inventory at once (public path of :mod:`custody_lab.whatif`).

    from custody_lab.sweep import sweep, grid, flips, compare, load_inventory
    import custody_lab.sweep as sw; sw.grid(bytes=[100, 9000])
    import custody_lab as cl; cl.sweep(frame)

The code lives in :mod:`custody_lab.whatif`; this module only re-exports it, and loads pandas the
first time one of its names is used (``import custody_lab`` imports this module, so it stays light).

``custody_lab.sweep`` is this module and it is callable: ``cl.sweep(frame, policy)`` is
``custody_lab.sweep.sweep(frame, policy)`` (:func:`~custody_lab.core.lazy.callable_module`). So the
one public name works both ways, and ``import custody_lab.sweep as sw`` binds the module, never
the function. Type checkers read the ``TYPE_CHECKING`` imports below and see the real signatures;
for them ``cl.sweep`` is the function (``custody_lab/__init__.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core.lazy import callable_module, lazy_exports, typed_exports

__all__ = [
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
    "read_grid_and_policy",
    "release_memory",
    "sweep",
    "to_frame",
    "write_csv",
]

if TYPE_CHECKING:
    from .core.tables import load_policy
    from .whatif.columns import OUTCOME_DTYPE, OUTCOMES, REJECTION_DTYPE, SHAPE_DTYPE, Codes, Text, Tri, VectorOps
    from .whatif.compare import Comparison, compare
    from .whatif.flips import flips
    from .whatif.grid import DEFAULT_AXES, PRESENT, grid
    from .whatif.io import load_inventory, read_grid, read_grid_and_policy, to_frame, write_csv
    from .whatif.memory import release_memory
    from .whatif.sweep import outcome_counts, sweep

#: the names load from the modules the TYPE_CHECKING imports above name (the one table)
__getattr__, __dir__ = lazy_exports(__name__, typed_exports(__name__, __file__))
callable_module(__name__, "sweep")
