"""A progress bar for loading a long case file in a notebook.

The terminal shows a line (:func:`custody_lab.core.loading.progress_line`); a notebook shows this
bar. It decides nothing: it is the ``progress=`` callback of
:func:`~custody_lab.core.loading.read_cases`, and shows how many bytes have been read and
validated, and of how many::

    bar = LoadBar("big-inventory.csv")
    display(bar)
    result = read_cases("big-inventory.csv", progress=bar)

:func:`read_cases_with_bar` does the three steps in one line.
"""

from __future__ import annotations

__all__ = ["LoadBar", "read_cases_with_bar"]

from pathlib import Path

import ipywidgets as W

from ...core.loading import LoadResult, read_cases
from ..html import escape


class LoadBar(W.VBox):
    """A bar from 0 to 100 % and a line saying how far the file has been read.

    Attributes:
        bar: the ``IntProgress`` (its ``value`` is the percent done).
        label: what is shown under it (the file name escaped, the megabytes read).

    Example:
        >>> bar = LoadBar("cases.csv")
        >>> bar(512, 2048)
        >>> bar.bar.value, bar.label.value
        (25, 'reading <code>cases.csv</code>: 25 % of 0.0 MB')
    """

    def __init__(self, path: str | Path) -> None:
        self.name = Path(path).name
        self.bar = W.IntProgress(value=0, min=0, max=100, description="reading", bar_style="info")
        self.label = W.HTML(self._text(0, 0))
        super().__init__([self.bar, self.label])

    def _text(self, percent: int, total: int) -> str:
        done = "done" if percent == 100 else f"{percent} %"
        return f"reading <code>{escape(self.name)}</code>: {done} of {total / 1e6:.1f} MB"

    def __call__(self, done: int, total: int) -> None:
        percent = done * 100 // total if total else 100
        self.bar.value = percent
        self.label.value = self._text(percent, total)
        if percent == 100:
            self.bar.bar_style = "success"


def read_cases_with_bar(path: str | Path) -> LoadResult:
    """:func:`~custody_lab.core.loading.read_cases` with a :class:`LoadBar` shown while it reads.

    Raises:
        CaseFileError: when the file cannot be read at all (its rows' problems are returned).
    """
    from IPython.display import display

    bar = LoadBar(path)
    display(bar)
    return read_cases(path, progress=bar)
