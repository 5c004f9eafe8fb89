"""The views layer: the widget panels, the custody-matrix chart and the one HTML module
(ipywidgets, matplotlib). Views hold no routing logic.
"""

__all__: list[str] = []  # a layer package: import from its modules
