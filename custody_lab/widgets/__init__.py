"""The lab's ipywidgets panels: thin views over the pure core.

Each panel is imported on first use, so ``from custody_lab.widgets import CaseExplorer`` pulls in
only what that panel needs.
"""

from __future__ import annotations

from typing import Any

_PANELS = {
    "CaseExplorer": "explorer",
    "ExercisePanel": "exercise",
    "ProgressPanel": "exercise",
    "BlobViewer": "blob_viewer",
    "LinkOrEmbedCalculator": "link_embed",
    "TemplateReader": "template_reader",
    "WhatIfPanel": "whatif",
}

__all__ = sorted(_PANELS)


def __getattr__(name: str) -> Any:
    module = _PANELS.get(name)
    if module is None:
        raise AttributeError(f"module 'custody_lab.widgets' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{module}"), name)
