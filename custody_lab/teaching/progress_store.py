"""Where exercise progress is kept between kernel restarts: one small JSON file.

The file holds, per exercise id, its state (``"passed"``, ``"tried"`` or ``"revealed"``) and the
number of wrong tries (which decides whether the second hint and the Show me button appear):

.. code-block:: json

    {"version": 1, "exercises": {"blob-01": {"state": "passed", "tries": 2}}}

Where it lives (:func:`progress_path`):

1. ``$CUSTODY_LAB_PROGRESS`` when it is set: that file (the tests point it at a temporary path;
   an empty value means "keep progress in memory only");
2. inside a Jupyter kernel, ``.custody-lab-progress.json`` in the working directory, which is the
   notebook's folder, or in the user's home when that folder is not writable (on Binder the file
   lasts as long as the session);
3. anywhere else (plain Python, doctests, the CLI): no file, progress is kept in memory only.

A missing, unreadable or malformed file is an empty record, never an error in a notebook; a file
that cannot be written leaves progress in memory, with one warning. Stdlib only.
"""

from __future__ import annotations

__all__ = ["ENV_VAR", "FILE_NAME", "Entry", "load", "progress_path", "remove", "save"]

import json
import os
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict

ENV_VAR = "CUSTODY_LAB_PROGRESS"
FILE_NAME = ".custody-lab-progress.json"
_STATES = ("passed", "tried", "revealed")
_warned: set[str] = set()


class Entry(TypedDict):
    """One exercise's saved progress."""

    state: str
    tries: int


def progress_path() -> Path | None:
    """The progress file to use now, or ``None`` for "in memory only" (see the module docstring).

    Example:
        >>> import os
        >>> os.environ["CUSTODY_LAB_PROGRESS"] = "/tmp/p.json"
        >>> str(progress_path())
        '/tmp/p.json'
        >>> del os.environ["CUSTODY_LAB_PROGRESS"]
    """
    configured = os.environ.get(ENV_VAR)
    if configured is not None:
        return Path(configured).expanduser() if configured.strip() else None
    if "ipykernel" not in sys.modules:
        return None
    here = Path.cwd()
    if os.access(here, os.W_OK):
        return here / FILE_NAME
    return Path.home() / FILE_NAME


def load(path: Path | None) -> dict[str, Entry]:
    """The saved record (empty when there is no file or it is not a progress file).

    Example:
        >>> load(None)
        {}
    """
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return {}
    exercises = data.get("exercises") if isinstance(data, dict) else None
    if not isinstance(exercises, dict):
        return {}
    record: dict[str, Entry] = {}
    for key, value in exercises.items():
        if not isinstance(value, dict):
            continue
        state, tries = value.get("state"), value.get("tries", 0)
        if state in _STATES and isinstance(tries, int) and not isinstance(tries, bool) and 0 <= tries < 10**6:
            record[str(key)] = {"state": state, "tries": tries}
    return record


def save(path: Path | None, record: Mapping[str, Entry]) -> None:
    """Write the record (atomically: a temporary file, then a rename); warn once if it cannot be."""
    if path is None:
        return
    text = json.dumps({"version": 1, "exercises": dict(sorted(record.items()))}, indent=1) + "\n"
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as e:
        if str(path) not in _warned:
            _warned.add(str(path))
            warnings.warn(f"progress is kept in memory only: cannot write {path} ({e})", stacklevel=3)


def remove(path: Path | None) -> None:
    """Delete the progress file (a reset); a file that is already gone is fine."""
    if path is not None:
        try:
            path.unlink(missing_ok=True)
        except OSError as e:
            warnings.warn(f"cannot delete the progress file {path} ({e})", stacklevel=3)
