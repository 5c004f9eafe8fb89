"""Which notebook asks each exercise, read from the notebooks themselves.

A notebook asks an exercise with a call that names its id in a code cell: ``check("blob-01", …)``,
``ExercisePanel("blob-01")``, ``PredictPanel("route-03")`` or ``PredictThenSee("route-03", …)``
(:data:`ASK_CALL`). Reading the calls, not a second list, keeps the answer true when an exercise
moves: ``custody-lab solutions`` prints it in its notebook column, and the suite checks that every
registered exercise is asked by exactly one notebook.
"""

from __future__ import annotations

__all__ = ["ASK_CALL", "exercise_notebooks"]

import json
import re
from pathlib import Path

from ..core.paths import NOTEBOOKS_DIR

#: A call in a code cell that asks an exercise; group 1 is its id (``topic-NN``).
ASK_CALL = re.compile(r"""\b(?:check|ExercisePanel|PredictPanel|PredictThenSee)\(\s*["']([a-z][a-z0-9]*-\d{2})["']""")


def exercise_notebooks(folder: Path = NOTEBOOKS_DIR) -> dict[str, tuple[str, ...]]:
    """Each exercise id asked in ``folder``'s notebooks, with the notebooks (file names, in order)
    that ask it. An exercise no notebook asks is absent; a folder that is missing gives ``{}``
    (the lab installed without its repository's ``notebooks/``).

    Example:
        >>> exercise_notebooks()["blob-01"]
        ('04-read-text-and-blob-contents.ipynb',)
    """
    found: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            continue  # a notebook that cannot be read asks nothing here; its own test says why
        for cell in cells:
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else str(source)
            for exercise_id in ASK_CALL.findall(text):
                names = found.setdefault(exercise_id, [])
                if path.name not in names:
                    names.append(path.name)
    return {k: tuple(v) for k, v in found.items()}
