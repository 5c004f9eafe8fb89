"""Stop an old Python with one line that says what to install, before anything that needs 3.11 loads.

``custody_lab/__init__.py`` imports this module first, so ``python3 -m custody_lab.bootstrap lab``
on Python 3.10 or 3.9 (Ubuntu 22.04's, macOS's) prints one line and exits 2 instead of a traceback
from a module that Python cannot import. Run as a command (``python3 -m custody_lab…``) it prints
the line and exits 2; imported (``import custody_lab`` in a notebook), it raises :class:`ImportError`
with the same line.

This file is written in syntax every Python 3 parses and uses the standard library only: no
f-strings, no ``from __future__`` import, no annotation evaluated at import time.

    >>> message((3, 10, 12), "/usr/bin/python3")[:59]
    'custody_lab needs Python 3.11 or newer; this is Python 3.10'
"""

import sys

__all__ = ["NEEDED", "check", "message"]

#: The oldest Python the lab runs on (``requires-python`` in ``pyproject.toml`` says the same).
NEEDED = (3, 11)


def message(version: "tuple[int, ...]", executable: str) -> str:
    """The one line an older Python gets: what is needed, what this is, and how to get a newer one.

    >>> "python3.12 -m custody_lab.bootstrap lab" in message((3, 9, 6), "python3")
    True
    """
    needed = ".".join(str(part) for part in NEEDED)
    found = ".".join(str(part) for part in version[:3])
    return (
        "custody_lab needs Python " + needed + " or newer; this is Python " + found + " (" + executable + "). "
        "Install Python " + needed + " or newer (https://www.python.org/downloads/, or your system's package "
        "such as python3.12) and run the same command with it, e.g. python3.12 -m custody_lab.bootstrap lab"
    )


def check() -> None:
    """Stop here on a Python older than :data:`NEEDED`; return quietly on a new enough one.

    Under ``python -m`` (while the package is imported, ``sys.argv[0]`` is ``"-m"``) the line goes
    to stderr and the process exits 2; otherwise :class:`ImportError` carries the line.
    """
    if tuple(sys.version_info[:2]) >= NEEDED:
        return
    line = message(tuple(sys.version_info[:3]), sys.executable or "python3")
    if sys.argv[:1] == ["-m"]:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        raise SystemExit(2)
    raise ImportError(line)


check()
