"""The teaching layer: exercises and their topic sets, the feedback a check shows (HTML built on
:mod:`custody_lab.views.html`), the exercise panels and the facilitators' solutions.
"""

__all__: list[str] = []  # a layer package: import from its modules
