"""The lab's ipywidgets panels (public path): thin views over the pure core.

    from custody_lab.widgets import CaseExplorer

Each panel loads its module on first use, so importing one pulls in only what it needs. The
panels live in :mod:`custody_lab.views.widgets`, except the exercise panels, which belong to the
teaching layer (:mod:`custody_lab.teaching.panels`). Type checkers read the ``TYPE_CHECKING``
imports below and see each panel's real class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core.lazy import lazy_exports

__all__ = [
    "BlobViewer",
    "CaseExplorer",
    "ExercisePanel",
    "LinkOrEmbedCalculator",
    "LoadBar",
    "PredictPanel",
    "ProgressPanel",
    "TemplateReader",
    "WhatIfPanel",
    "budget_panel",
]

if TYPE_CHECKING:
    from .teaching.panels import ExercisePanel, ProgressPanel
    from .teaching.predict import PredictPanel
    from .views.context_costs import budget_panel
    from .views.widgets.blob_viewer import BlobViewer
    from .views.widgets.explorer import CaseExplorer
    from .views.widgets.link_or_embed_calculator import LinkOrEmbedCalculator
    from .views.widgets.load_bar import LoadBar
    from .views.widgets.template_reader import TemplateReader
    from .views.widgets.whatif import WhatIfPanel

_VIEWS = "custody_lab.views.widgets"
#: panel name -> the module that defines it (the same as the TYPE_CHECKING imports above)
_PANELS = {
    "CaseExplorer": f"{_VIEWS}.explorer",
    "BlobViewer": f"{_VIEWS}.blob_viewer",
    "LinkOrEmbedCalculator": f"{_VIEWS}.link_or_embed_calculator",
    "LoadBar": f"{_VIEWS}.load_bar",
    "TemplateReader": f"{_VIEWS}.template_reader",
    "WhatIfPanel": f"{_VIEWS}.whatif",
    "budget_panel": "custody_lab.views.context_costs",
    "ExercisePanel": "custody_lab.teaching.panels",
    "ProgressPanel": "custody_lab.teaching.panels",
    "PredictPanel": "custody_lab.teaching.predict",
}
__getattr__, __dir__ = lazy_exports(__name__, _PANELS)
