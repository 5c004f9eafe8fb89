"""The views layer: the widget panels, the custody-matrix chart and the one HTML module
(ipywidgets, matplotlib). Views hold no routing logic.
"""
