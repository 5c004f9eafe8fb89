"""The lab's figures: the custody matrix, the what-if plots, the link-or-embed cost curve.

The public path of :mod:`custody_lab.views.chart` (the custody matrix: ``matrix_figure``,
``matrix_table``, ``export``, ``CustodyMatrix``) and of the lessons' other figures in
:mod:`custody_lab.views.figures` (``policy_comparison``, ``outcome_share``, ``bytes_shape_map``,
``cumulative``; each shows its alternative text and its table). Notebooks and learners type
``from custody_lab.chart import …``; the code lives in the views layer, and this module only
re-exports it.
"""

from __future__ import annotations

from .views.chart import (
    REGION_KINDS,
    ROWS,
    XMAX,
    ChartError,
    CustodyMatrix,
    Region,
    RegionKind,
    Row,
    export,
    matrix_figure,
    matrix_regions,
    matrix_table,
    region_advice,
)
from .views.figures import (
    DescribedFigure,
    ShownPng,
    bytes_shape_map,
    cumulative,
    outcome_share,
    policy_comparison,
    show_png,
)

__all__ = [
    "REGION_KINDS",
    "ROWS",
    "XMAX",
    "ChartError",
    "CustodyMatrix",
    "DescribedFigure",
    "Region",
    "RegionKind",
    "Row",
    "ShownPng",
    "bytes_shape_map",
    "cumulative",
    "export",
    "matrix_figure",
    "matrix_regions",
    "matrix_table",
    "outcome_share",
    "policy_comparison",
    "region_advice",
    "show_png",
]
