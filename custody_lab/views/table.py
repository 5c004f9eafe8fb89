"""A small table of rows that shows itself without a table library: the lessons' dozen-row tables.

A notebook that shows the rule table, a fixture's outcomes or a pivot of a few cases needs no
pandas (with pyarrow about 90 MB in a kernel that stays open while the learner moves on). A
:class:`Table` holds its rows as plain mappings, renders as HTML through the one table renderer
(:func:`custody_lab.views.html.rows_html`: every cell escaped, nothing cut) and as aligned text in a
terminal (every value through :func:`custody_lab.core.text.visible`). Tables that a learner
filters, groups and sweeps are pandas frames (:mod:`custody_lab.sweep`); this is only for showing.
"""

from __future__ import annotations

__all__ = ["Table"]

from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..core.text import visible
from .html import ViewError, rows_html, scroll

#: What an empty cell shows as text (HTML shows it empty).
_EMPTY = ""


class Table:
    """Rows of mappings with named columns, shown as an HTML table in a notebook and as text elsewhere.

    Args:
        rows: the rows, each a mapping of column name -> value (a missing key is an empty cell).
        columns: the columns in order (default: every key, in the order the rows first name them).

    Example:
        >>> t = Table([{"code": "denied", "seed": True}, {"code": "stale", "seed": False}])
        >>> len(t), t.columns, t["code"]
        (2, ('code', 'seed'), ['denied', 'stale'])
        >>> print(t)
        code    seed
        denied  True
        stale   False
        >>> "<td>denied</td>" in t._repr_html_()
        True
    """

    __slots__ = ("columns", "rows")

    def __init__(self, rows: Iterable[Mapping[str, object]], columns: Sequence[str] | None = None) -> None:
        self.rows: tuple[dict[str, object], ...] = tuple(dict(r) for r in rows)
        if columns is None:
            names: dict[str, None] = {}
            for r in self.rows:
                names.update(dict.fromkeys(r))
            columns = list(names)
        self.columns: tuple[str, ...] = tuple(str(c) for c in columns)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, object]]:
        return iter(self.rows)

    def __getitem__(self, column: str) -> list[object]:
        """One column's values, top to bottom."""
        if column not in self.columns:
            raise KeyError(f"no column {column!r}; the columns are {list(self.columns)}")
        return [r.get(column) for r in self.rows]

    def pivot(self, index: str | Sequence[str], columns: str, values: str) -> Table:
        """One row per distinct ``index`` value(s), one column per distinct ``columns`` value, holding
        ``values`` (first seen order; a pair that appears twice is an error, naming it).

        Example:
            >>> t = Table([{"case": "a", "gap": "uri", "out": "x"}, {"case": "a", "gap": "mime", "out": "y"}])
            >>> t.pivot("case", "gap", "out").rows
            ({'case': 'a', 'uri': 'x', 'mime': 'y'},)
        """
        keys = [index] if isinstance(index, str) else list(index)
        for name in (*keys, columns, values):
            if name not in self.columns:
                raise ViewError(f"pivot: no column {name!r}; the columns are {list(self.columns)}")
        out: dict[tuple[object, ...], dict[str, object]] = {}
        heads: dict[str, None] = {}
        for n, r in enumerate(self.rows):
            key = tuple(r.get(k) for k in keys)
            head = str(r.get(columns))
            row = out.setdefault(key, dict(zip(keys, key)))
            if head in row:
                raise ViewError(f"pivot: row {n} repeats {dict(zip(keys, key))} with {columns}={head!r}")
            row[head] = r.get(values)
            heads[head] = None
        return Table(out.values(), [*keys, *heads])

    def to_html(self) -> str:
        """The table as HTML: every cell escaped, every text whole (the one renderer, ``rows_html``)."""
        return rows_html(self.rows, self.columns)

    def _repr_html_(self) -> str:
        return scroll(self.to_html())

    def text(self) -> str:
        """The table as aligned plain text, every value made visible (for a terminal or ``print``)."""
        cells = [list(self.columns)] + [
            [_EMPTY if r.get(c) is None else visible(str(r.get(c))) for c in self.columns] for r in self.rows
        ]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.columns))]
        return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells)

    def __repr__(self) -> str:
        return self.text()
