"""Charts that carry their own words: an image with alternative text, and its table equivalent.

A matplotlib figure shown in a notebook becomes an ``<img>`` with no alternative text. A
:class:`DescribedFigure` shows the same PNG with an ``alt`` attribute, a caption, and a
"Text equivalent" section holding the chart's numbers as a table, so a screen reader, a reader
at 200 % zoom and a reader of the exported page all get the content. It keeps ``savefig`` (the
notebooks export charts with it) and the figure itself.

:func:`outcome_share`, :func:`bytes_shape_map` and :func:`policy_comparison` draw the what-if
plots of :mod:`custody_lab.whatif.plots` and attach the text of :mod:`custody_lab.whatif.plot_text`;
:func:`described` wraps any other figure with the words its caller supplies, and :func:`show_png`
shows a chart already exported as a PNG file (with its ``alt``; drawn light, it turns dark on a dark
page, as every chart of the lab does).

The what-if plots' tables are pandas frames (the sweep made them); the other figures' tables are
:class:`~custody_lab.views.table.Table` values, so ``custody_lab.chart`` loads pandas only when a
what-if plot is drawn.
"""

from __future__ import annotations

__all__ = [
    "DescribedFigure",
    "ShownPng",
    "bytes_shape_map",
    "cumulative",
    "cumulative_text",
    "described",
    "outcome_share",
    "policy_comparison",
    "show_png",
]

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.model import Policy
from ..protocol.link_or_embed import ShapeCosts
from ..whatif.theme import Theme
from .context_costs import cumulative_alt, plot_cumulative
from .html import CHART_THEME_STYLE, LIGHT_CHART_CLASS, ViewError, escape, table
from .table import Table

if TYPE_CHECKING:  # the what-if plots load pandas when one is drawn (the sweep's frames are pandas)
    import pandas as pd

    from ..whatif.compare import Comparison

#: The class of a described figure's outer element (tests and the browser find it by this).
_FIGURE_CLASS = "custody-figure"


@dataclass(frozen=True)
class DescribedFigure:
    """A matplotlib figure with its alternative text and its table equivalent.

    Attributes:
        figure: the matplotlib ``Figure``.
        alt: what the image shows, in words (the ``alt`` attribute and the caption).
        table: the numbers the chart draws, one row per bar, band or item.
    """

    figure: Any
    alt: str
    table: Table | pd.DataFrame

    def __post_init__(self) -> None:
        if not isinstance(self.alt, str) or not self.alt.strip():
            raise ViewError("a described figure needs alternative text (alt): a non-empty string")
        if not _is_table(self.table) or len(self.table) == 0:
            raise ViewError("a described figure needs its table equivalent: a Table or DataFrame with at least one row")

    def savefig(self, *args: Any, **kwargs: Any) -> None:
        """``Figure.savefig``: export the picture (PNG, SVG…) as before."""
        self.figure.savefig(*args, **kwargs)

    def png(self) -> bytes:
        """The picture as PNG bytes."""
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return buffer.getvalue()

    def text(self) -> str:
        """The alt text and the table as plain text (what a terminal or ``print`` shows)."""
        shown = self.table.text() if isinstance(self.table, Table) else self.table.to_string(index=False)
        return f"{self.alt}\n\n{shown}"

    def html(self) -> str:
        """The image with ``alt``, its caption, and the table equivalent under a "Text equivalent" summary."""
        t = self.table
        if isinstance(t, Table):
            rows: Any = ([r.get(c) for c in t.columns] for r in t.rows)
        else:
            rows = t.astype(object).where(t.notna(), None).itertuples(index=False, name=None)
        body = table(rows, head=[str(c) for c in t.columns], style="border-collapse:collapse")
        light = sum(self.figure.get_facecolor()[:3]) > 1.5
        return (
            f'<figure class="{_FIGURE_CLASS}" style="margin:4px 0;max-width:100%">'
            f"{_img(self.png(), self.alt, light)}"
            f"<figcaption>{escape(self.alt)}</figcaption>"
            f"<details><summary>Text equivalent (the chart's numbers as a table)</summary>{body}</details>"
            "</figure>"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": self.html(), "text/plain": self.text()}


def _img(png: bytes, alt: str, light: bool) -> str:
    """A PNG as an ``<img>`` with its ``alt``; drawn ``light`` (the light theme), it carries the class
    that turns it dark on a dark page, and the rule that does it."""
    data = base64.b64encode(png).decode("ascii")
    cls = f' class="{LIGHT_CHART_CLASS}"' if light else ""
    return (
        f'{CHART_THEME_STYLE}<img{cls} src="data:image/png;base64,{data}" alt="{escape(alt)}" '
        'style="max-width:100%;height:auto">'
    )


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class ShownPng:
    """A chart exported as a PNG file, shown with its alternative text (see :func:`show_png`)."""

    path: Path
    alt: str
    light: bool
    png: bytes

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": _img(self.png, self.alt, self.light), "text/plain": f"{self.alt} ({self.path})"}


def show_png(path: str | Path, alt: str) -> ShownPng:
    """Show a chart exported as a PNG file (``chart.export``) with ``alt`` as its alternative text.

    Like every chart of the lab, one drawn on a light background (its top-left pixel) turns dark on
    a page in a dark theme (JupyterLab Dark, ``present --theme dark``); the file itself is unchanged.

    Raises:
        ViewError: ``alt`` is empty, or the file is missing or not a PNG (the message names the path).

    Example:
        >>> import tempfile, pathlib
        >>> from custody_lab.views.chart import export, matrix_figure
        >>> png = export(matrix_figure([]), pathlib.Path(tempfile.mkdtemp()) / "m.png")
        >>> shown = show_png(png, "An empty custody matrix")
        >>> shown.light, 'class="custody-chart-light"' in shown._repr_mimebundle_()["text/html"]
        (True, True)
    """
    if not isinstance(alt, str) or not alt.strip():
        raise ViewError("a shown chart needs alternative text (alt): a non-empty string")
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ViewError(f"cannot show {p}: {e.strerror or e}") from e
    if not data.startswith(_PNG_SIGNATURE):
        raise ViewError(f"cannot show {p}: it is not a PNG file (export the chart with a .png suffix)")
    import matplotlib.image as mpimg  # matplotlib drew the chart: it is loaded already

    try:
        corner = mpimg.imread(io.BytesIO(data), format="png")[0, 0]
    except (ValueError, SyntaxError, OSError) as e:
        raise ViewError(f"cannot show {p}: its PNG data cannot be read ({e})") from e
    return ShownPng(p, alt, sum(float(v) for v in corner[:3]) > 1.5, data)


def _is_table(value: object) -> bool:
    """A :class:`Table`, or a pandas DataFrame (checked without importing pandas)."""
    return isinstance(value, Table) or (
        type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pandas")
    )


def described(figure: Any, alt: str, rows: Table | pd.DataFrame | Sequence[Mapping[str, object]]) -> DescribedFigure:
    """Any figure with the words its caller supplies: ``alt`` and the rows of its table equivalent
    (a DataFrame is kept as it is; rows become a :class:`Table`).

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> fig, ax = plt.subplots(); _ = ax.bar(["a", "b"], [1, 2])
        >>> d = described(fig, "Two bars: a is 1, b is 2.", [{"bar": "a", "value": 1}, {"bar": "b", "value": 2}])
        >>> 'alt="Two bars: a is 1, b is 2."' in d.html(), d.table["value"]
        (True, [1, 2])
    """
    shown = rows if _is_table(rows) else Table(rows)  # type: ignore[arg-type]
    return DescribedFigure(figure, alt, shown)  # type: ignore[arg-type]


def outcome_share(
    swept: pd.DataFrame, by: str = "shape", *, title: str | None = None, theme: str | Theme | None = None
) -> DescribedFigure:
    """:func:`custody_lab.whatif.plots.outcome_share` with its alt text and table equivalent."""
    from ..whatif import plot_text, plots

    text = plot_text.outcome_share_text(swept, by)
    return DescribedFigure(plots.outcome_share(swept, by, title=title, theme=theme), text.alt, text.table)


def bytes_shape_map(
    swept: pd.DataFrame,
    policy: Policy | Mapping[str, Any] | None = None,
    *,
    title: str | None = None,
    theme: str | Theme | None = None,
) -> DescribedFigure:
    """:func:`custody_lab.whatif.plots.bytes_shape_map` with its alt text and table equivalent."""
    from ..whatif import plot_text, plots

    text = plot_text.bytes_shape_text(swept, policy)
    return DescribedFigure(plots.bytes_shape_map(swept, policy, title=title, theme=theme), text.alt, text.table)


def policy_comparison(
    comparison: Comparison, *, title: str | None = None, theme: str | Theme | None = None
) -> DescribedFigure:
    """:func:`custody_lab.whatif.plots.policy_comparison` with its alt text and table equivalent."""
    from ..whatif import plot_text, plots

    text = plot_text.policy_comparison_text(comparison)
    return DescribedFigure(plots.policy_comparison(comparison, title=title, theme=theme), text.alt, text.table)


def cumulative_text(costs: ShapeCosts) -> tuple[str, Table]:
    """What :func:`~custody_lab.views.context_costs.plot_cumulative` draws, in words and as a table.

    Example:
        >>> from custody_lab.protocol.link_or_embed import compare_shapes
        >>> alt, rows = cumulative_text(compare_shapes(18000, 5))
        >>> list(rows.rows[-1].values()), "from call 2 on" in alt
        ([5, 90505, 18610], True)
    """
    rows = Table(
        {"call": call, "embed: bytes in context": embed, "link with cache: bytes in context": link}
        for call, (embed, link) in enumerate(zip(costs.embed_cumulative, costs.link_cumulative), 1)
    )
    return cumulative_alt(costs), rows


def cumulative(costs: ShapeCosts, *, theme: str | Theme | None = None) -> DescribedFigure:
    """:func:`~custody_lab.views.context_costs.plot_cumulative` with its alt text and table equivalent."""
    alt, rows = cumulative_text(costs)
    return DescribedFigure(plot_cumulative(costs, theme=theme), alt, rows)
