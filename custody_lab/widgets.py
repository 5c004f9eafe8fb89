"""The lab's ipywidgets panels (public path): thin views over the pure core.

    from custody_lab.widgets import CaseExplorer

Each panel loads its module on first use, so importing one pulls in only what it needs. The
panels live in :mod:`custody_lab.views.widgets`, except the exercise panels, which belong to the
teaching layer (:mod:`custody_lab.teaching.panels`). Type checkers read the ``TYPE_CHECKING``
imports below and see each panel's real class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core.lazy import lazy_exports, typed_exports

__all__ = [
    "BlobViewer",
    "CaseExplorer",
    "ExercisePanel",
    "HostLens",
    "LinkOrEmbedCalculator",
    "LoadBar",
    "Picker",
    "PredictPanel",
    "PredictThenSee",
    "ProgressPanel",
    "TemplateReader",
    "WhatIfPanel",
    "budget_panel",
]

if TYPE_CHECKING:
    from .teaching.panels import ExercisePanel, ProgressPanel
    from .teaching.predict import PredictPanel, PredictThenSee
    from .views.context_costs import budget_panel
    from .views.widgets.blob_viewer import BlobViewer
    from .views.widgets.explorer import CaseExplorer
    from .views.widgets.host_lens import HostLens
    from .views.widgets.link_or_embed_calculator import LinkOrEmbedCalculator
    from .views.widgets.load_bar import LoadBar
    from .views.widgets.picker import Picker
    from .views.widgets.template_reader import TemplateReader
    from .views.widgets.whatif import WhatIfPanel

#: each panel loads from the module the TYPE_CHECKING imports above name (the one table)
__getattr__, __dir__ = lazy_exports(__name__, typed_exports(__name__, __file__))
