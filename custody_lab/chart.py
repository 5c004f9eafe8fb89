"""The custody-matrix chart: ``matrix_figure``, ``matrix_table``, ``export``, ``CustodyMatrix``.

The public path of :mod:`custody_lab.views.chart` (the views layer): notebooks and learners type
``from custody_lab.chart import …``; the code lives there, and this module only re-exports it.
"""

from .views.chart import *  # noqa: F403  (a re-export: the names are that module's __all__)
from .views.chart import __all__ as __all__
