"""The lab's ipywidgets panels (public path): thin views over the pure core.

    from custody_lab.widgets import CaseExplorer

Each panel loads its module on first use, so importing one pulls in only what it needs. The
panels live in :mod:`custody_lab.views.widgets`, except the exercise panels, which belong to the
teaching layer (:mod:`custody_lab.teaching.panels`).
"""

from __future__ import annotations

from .core.lazy import lazy_exports

_VIEWS = "custody_lab.views.widgets"
#: panel name -> the module that defines it
_PANELS = {
    "CaseExplorer": f"{_VIEWS}.explorer",
    "BlobViewer": f"{_VIEWS}.blob_viewer",
    "LinkOrEmbedCalculator": f"{_VIEWS}.link_or_embed_calculator",
    "LoadBar": f"{_VIEWS}.load_bar",
    "TemplateReader": f"{_VIEWS}.template_reader",
    "WhatIfPanel": f"{_VIEWS}.whatif",
    "ExercisePanel": "custody_lab.teaching.panels",
    "ProgressPanel": "custody_lab.teaching.panels",
    "PredictPanel": "custody_lab.teaching.predict",
}
__all__ = sorted(_PANELS)
__getattr__, __dir__ = lazy_exports(__name__, _PANELS)
