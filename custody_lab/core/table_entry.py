"""What the case-table reader hands the loader: an :class:`Entry` per case and a :class:`Table`
per file (the readers are :mod:`custody_lab.core.csv_table` and :mod:`custody_lab.core.json_table`;
:mod:`custody_lab.core.tables` is their one front door)."""

from __future__ import annotations

__all__ = ["Entry", "Table"]

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .errors import Problem
from .model import Policy


class Entry:
    """One entry of a table: where it is (``"cases.csv line 4"``), its value (a case mapping with
    the cells converted, or the JSON value as written), or the problems that kept it from being
    read (bad cells, the wrong number of cells, a duplicate key) — with a CSV row's bad cells,
    ``value`` holds the cells that could be read, so their problems are found too; entries keep
    the file's order. ``offset`` is how far into the file (in bytes) the entry ends, for progress
    reports.

    ``where`` may be given as a function that computes it: a JSON file's line numbers are only
    counted when some entry's location is asked for (a file without problems never needs them).
    """

    __slots__ = ("_where", "offset", "problems", "value")

    def __init__(
        self, where: str | Callable[[], str], value: Any, problems: tuple[Problem, ...] = (), offset: int = 0
    ) -> None:
        self._where = where
        self.value = value
        self.problems = problems
        self.offset = offset

    @property
    def where(self) -> str:
        if not isinstance(self._where, str):
            self._where = self._where()
        return self._where

    def place(self) -> Entry:
        """The entry's location alone (its value dropped), for a loader that keeps it for later."""
        return Entry(self._where, None, (), self.offset)

    def __repr__(self) -> str:
        return f"Entry({self.where!r}, {self.value!r}, {self.problems!r}, {self.offset})"


@dataclass(frozen=True)
class Table:
    """What a file held, before each case is validated.

    Attributes:
        source: the file name used in every location.
        entries: the cases, in file order (a CSV file's are read as they are iterated: iterate
            once).
        variants: a JSON case file's ``adversarial`` entries (each ``{"id", "from", "change"}``).
        problems: the problems of the file as a whole (an unknown column, invalid JSON, a bad
            policy); a bad row's problems are on its entry.
        policy: the JSON case file's ``policy``, when it has a valid one.
        size: the file's size in bytes (what ``Entry.offset`` counts towards).
    """

    source: str
    entries: Iterable[Entry] = ()
    variants: tuple[Entry, ...] = ()
    problems: tuple[Problem, ...] = ()
    policy: Policy | None = None
    size: int = 0
