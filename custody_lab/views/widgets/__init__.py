"""The widget panels of the views layer (a widget builds a ``Case``, calls the core, renders).

Import a panel from the public path :mod:`custody_lab.widgets`.
"""

__all__: list[str] = []  # a layer package: import from its modules
