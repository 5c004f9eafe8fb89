"""The what-if panel: policy sliders that re-sweep a whole inventory on every change.

``WhatIfPanel()`` is an ipywidgets ``VBox`` over a capability inventory (by default
``data/inventories/support-desk.csv``). Moving the embed-limit slider or ticking "always require
current content" builds a new :class:`~custody_lab.core.model.Policy`, sweeps the inventory once
under it, compares its outcomes with the starting policy's (kept from the first sweep:
:func:`~custody_lab.whatif.compare.compare_outcomes`), and redraws the summary, the table and the
before/after chart (the chart's figure is kept and updated in place when only its numbers and
words change, and not drawn at all when they do not). The table shows one page (:data:`PAGE_ROWS` rows; the rows that
changed outcome come first), so a slider move renders as much HTML for a million capabilities as
for fifteen; the ``page`` box turns the pages. The widget decides nothing itself; the HTML
comes from :func:`summary_html` and :func:`table_html`, which tests call directly.
"""

from __future__ import annotations

__all__ = ["PAGE_ROWS", "WhatIfPanel", "changed_rows", "page_count", "summary_html", "table_html"]

from pathlib import Path
from typing import Any

import ipywidgets as W
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg

from ...core.errors import CustodyLabError
from ...core.model import Policy
from ...core.paths import data_path
from ...whatif.compare import Comparison, compare_outcomes
from ...whatif.io import load_inventory
from ...whatif.plots import policy_comparison, policy_label, update_policy_comparison
from ...whatif.sweep import sweep
from ...whatif.theme import theme_of
from ..chart.glyphs import cache_glyphs
from ..chart.png_bands import PngBands
from ..html import FONT, ROW_STYLES, ViewError, box, code, escape, scroll, small, table, untrusted
from .controls import StrictIntSlider, fit, fits_words
from .picture import follow_page_theme
from .render import error_html

_RIGHT = "text-align:right"
_SHOWN = ("id", "title", "shape", "bytes", "outcome")
_CHART_DPI = 72  # the chart's pixels per inch (a 792 px wide image)


def _chart_state(fig: Any) -> tuple[Any, ...]:
    """Everything the before/after chart draws but its legend's "after" line: bars, numbers, title."""
    ax = fig.axes[0]
    bars = tuple(rect.get_width() for container in ax.containers for rect in container)
    texts = tuple((t.get_text(), t.get_position(), t.get_fontweight()) for t in ax.texts)
    return bars, texts, ax.get_title(loc="left"), ax.get_legend().get_texts()[0].get_text()


def _codes(swept: pd.DataFrame) -> np.ndarray:
    """A swept frame's outcome codes (its ``outcome`` column is a categorical of every outcome)."""
    return np.asarray(swept["outcome"].cat.codes.to_numpy())


def summary_html(comparison: Comparison) -> str:
    """How many capabilities change outcome, and the outcome counts before and after (escaped)."""
    rows = [
        (code(outcome), f"{row.before:,}", f"{row.after:,}", f"{row.change:+,}" if row.change else "·")
        for outcome, row in comparison.summary.iterrows()
    ]
    head = f"<b>{comparison.changed:,} of {comparison.cases:,} capabilities change outcome</b> " + small(
        f"from <i>{escape(policy_label(comparison.before))}</i> to <i>{escape(policy_label(comparison.after))}</i>"
    )
    counts = table(rows, head=("outcome", "before", "after", "change"), style="font-size:90%")
    return box(head + counts, cls="whatif-summary")


#: Rows a page of the panel's table shows: a slider move renders this many, at 15 rows or 1M.
PAGE_ROWS = 50


def changed_rows(swept: pd.DataFrame, before: pd.DataFrame | None) -> np.ndarray:
    """Per row, whether its outcome differs from ``before`` (column-wise: no Python loop).

    Raises:
        ViewError: when ``before`` does not have one row for each row of ``swept``.
    """
    if before is None:
        return np.zeros(len(swept), dtype=bool)
    if len(before) != len(swept):
        raise ViewError(f"before: it has {len(before)} rows but the swept frame has {len(swept)}")
    old, new = before["outcome"], swept["outcome"]
    if isinstance(old.dtype, pd.CategoricalDtype) and old.dtype == new.dtype:
        return np.asarray(old.cat.codes.to_numpy() != new.cat.codes.to_numpy())
    return np.asarray(old.astype(str).to_numpy() != new.astype(str).to_numpy())


def page_count(rows: int, per_page: int = PAGE_ROWS) -> int:
    """How many pages ``rows`` rows take (at least one, for an empty table).

    Example:
        >>> page_count(0), page_count(50), page_count(51), page_count(1_000_000)
        (1, 1, 2, 20000)
    """
    return max(1, -(-rows // per_page))


def table_html(
    swept: pd.DataFrame, before: pd.DataFrame | None = None, *, page: int = 0, per_page: int = PAGE_ROWS
) -> str:
    """One page of the capabilities with their outcomes: the rows whose outcome differs from
    ``before`` (the same inventory swept under the starting policy, row for row) come first,
    marked ⇄ with what they were, then the others in inventory order; ``page`` (from 0, clamped
    to the last page) picks which ``per_page`` rows are shown, so the HTML has the same size for
    15 capabilities or a million. A line above the table says which rows these are.

    Ids and titles come from the inventory (untrusted text) and are escaped.

    Raises:
        ViewError: when ``before`` does not have one row for each row of ``swept``.

    Example:
        >>> from custody_lab.whatif.grid import grid
        >>> g = sweep(grid(bytes=list(range(0, 20000, 10))))  # 480,000 rows
        >>> html = table_html(g, page=3)
        >>> html.count("<tr>") - 1, "rows 151–200 of 480,000" in html
        (50, True)
    """
    changed = changed_rows(swept, before)
    n, n_changed = len(swept), int(changed.sum())
    pages = page_count(n, per_page)
    page = min(max(int(page), 0), pages - 1)
    first = page * per_page
    stop = min(first + per_page, n)
    if n_changed:  # the changed rows first: only the positions this page needs are found
        where = np.flatnonzero(changed)
        rest = np.flatnonzero(~changed) if stop > n_changed else np.zeros(0, dtype=np.int64)
        pick = np.concatenate([where, rest])[first:stop]
    else:
        pick = np.arange(first, stop)
    shown = swept[[c for c in _SHOWN if c in swept.columns]].iloc[pick]  # only the columns shown are taken
    marks = changed[pick]
    was: list[str] = before["outcome"].iloc[pick].astype(str).tolist() if before is not None else [""] * len(pick)
    ids = shown["id"] if "id" in shown.columns else pd.Series(shown.index, index=shown.index)
    titles = shown["title"] if "title" in shown.columns else pd.Series([None] * len(shown), index=shown.index)
    rows = []
    for ident, title, shape, size, outcome, old, mark in zip(
        ids, titles, shown["shape"], shown["bytes"], shown["outcome"].astype(str), was, marks
    ):
        note = f"⇄ was {code(old)}" if mark else ""
        style = f' style="{ROW_STYLES["changed"]}"' if mark else ""
        verdict = "✓" if outcome == str(shape) else "✗"
        text = "" if pd.isna(title) else title
        rows.append(
            f"<tr{style}><td>{code(ident)}</td><td>{untrusted(text)}</td><td>{untrusted(shape)}</td>"
            f'<td style="{_RIGHT}">{int(size):,}</td><td>{verdict} {code(outcome)}</td><td>{note}</td></tr>'
        )
    span = f"rows {first + 1:,}–{stop:,} of {n:,}" if n else "no rows"
    listed = f" · {n_changed:,} changed, listed first" if n_changed else ""
    caption = small(f"{span}{listed} · page {page + 1:,} of {pages:,}")
    head = "<tr><th>id</th><th>title (untrusted)</th><th>shape</th><th>bytes</th><th>outcome</th><th></th></tr>"
    body = f'<table class="whatif-table" style="{FONT};font-size:88%">{head}{"".join(rows)}</table>'
    return caption + scroll(body)


class WhatIfPanel(W.VBox):
    """Policy sliders over a whole inventory; every change re-sweeps every capability.

    Args:
        inventory: a sweep frame, or the path of an inventory CSV/JSON (the support-desk example
            when omitted).
        policy: the starting policy, which every later state is compared with (the seed's).
        chart: draw the before/after bar chart (turn off for a lighter panel).

    Attributes:
        controls: ``{"embedLimitBytes": IntSlider, "requireCurrent": Checkbox}``.
        frame: the inventory; ``baseline`` the starting policy; ``policy`` the current one.
        before: the inventory swept under ``baseline``; ``result`` swept under ``policy``.
        comparison: :func:`~custody_lab.sweep.compare` of ``baseline`` and ``policy``.
        error: the message of the last failure, or ``None`` (the panel keeps its last good state).
    """

    def __init__(
        self,
        inventory: pd.DataFrame | str | Path | None = None,
        policy: Policy | None = None,
        *,
        chart: bool = True,
    ) -> None:
        if inventory is None:
            inventory = data_path("inventories", "support-desk.csv")
        self.frame = inventory if isinstance(inventory, pd.DataFrame) else load_inventory(inventory)
        self.baseline = policy or Policy()
        self.policy = self.baseline
        self.error: str | None = None
        self._chart_on = chart
        self._figure: Any = None  # the chart's figure, kept between moves
        self._chart_key: tuple[Any, ...] | None = None
        self._under_line: np.ndarray | None = None  # the chart's pixels without its "after" line
        #: the PNG encoder; its reference is ``_under_line``, so a move re-encodes the line's bands only
        self._bands = PngBands()
        self.controls: dict[str, W.ValueWidget] = {
            "embedLimitBytes": StrictIntSlider(
                value=self.baseline.embed_limit_bytes,
                min=0,
                max=max(16384, self.baseline.embed_limit_bytes),
                step=1,  # the page snaps a value to the step: 64 turned a typed 100 into 128
                description="embed limit (bytes)",
                continuous_update=False,
                style={"description_width": "initial"},
                layout=fit("420px", min_width="220px"),  # narrower in a 640 px window
            ),
            "requireCurrent": W.Checkbox(
                value=self.baseline.require_current,
                description="always require current content",
                indent=False,
                layout=fits_words(),
            ),
        }
        self.message = W.HTML()
        self.summary = W.HTML()
        self.table = W.HTML(layout=W.Layout(max_width="100%"))
        # a page number is typed in the slider's box; one outside the pages is refused, not clamped
        self.pager = StrictIntSlider(
            value=1,
            min=1,
            max=1,
            widen=False,
            description="page",
            style={"description_width": "initial"},
            layout=fit("300px", min_width="160px"),
        )
        self.pager.on_refuse(self._refused)
        self.pager.observe(self._on_page, names="value")
        self.chart = W.Image(format="png", layout=W.Layout(max_width="min(900px, 100%)"))
        chart_style = follow_page_theme(self.chart, theme_of())  # policy_comparison draws in theme_of()
        for widget in self.controls.values():
            widget.observe(self._on_input, names="value")
        self.controls["embedLimitBytes"].on_refuse(self._refused)  # its own note shows it
        children: list[W.Widget] = [
            self.controls["embedLimitBytes"].row,
            self.controls["requireCurrent"],
            self.message,
            self.summary,
        ]
        if chart:
            children += [self.chart, chart_style]
        children += [self.pager.row, self.table]
        super().__init__(children=children)
        self.before = sweep(self.frame, self.baseline)
        self._before_codes = _codes(self.before)
        self.result = self.before
        codes = self._before_codes
        self.comparison = compare_outcomes(self.frame, self.baseline, self.policy, codes, codes)
        self._render()

    def _on_input(self, _change: dict[str, Any]) -> None:
        self.apply_controls()

    def apply_controls(self) -> None:
        """Build the policy from the controls and re-sweep; on failure keep the last good state."""
        try:
            policy = Policy(
                embed_limit_bytes=int(self.controls["embedLimitBytes"].value),
                now=self.baseline.now,
                require_current=bool(self.controls["requireCurrent"].value),
            )
            result = sweep(self.frame, policy)  # one sweep a move: the starting policy's codes are kept
            comparison = compare_outcomes(self.frame, self.baseline, policy, self._before_codes, _codes(result))
        except CustodyLabError as e:  # a bad value is shown, never raised into the notebook
            self._fail(str(e))
            return
        self.policy, self.result, self.comparison, self.error = policy, result, comparison, None
        self.message.value = ""
        self._render()

    def _refused(self, message: str) -> None:
        self.error = message

    def _fail(self, message: str) -> None:
        self.error = message
        self.message.value = error_html(message)

    def set(self, *, embed_limit_bytes: int | None = None, require_current: bool | None = None) -> Comparison:
        """Move the controls from code (as a learner would) and return the new comparison.

        The values are checked as a :class:`~custody_lab.core.model.Policy` checks them: a limit
        that is negative, fractional or not a number, or a flag that is not ``True``/``False``,
        changes nothing and is shown in the panel; a limit beyond the slider's end widens it.

        Example:
            >>> panel = WhatIfPanel(chart=False)
            >>> panel.set(embed_limit_bytes=-1).after.embed_limit_bytes, panel.error[:30]
            (4096, 'embedLimitBytes must be a whol')
            >>> panel.set(embed_limit_bytes=100000).after.embed_limit_bytes, panel.error
            (100000, None)
        """
        limit = self.policy.embed_limit_bytes if embed_limit_bytes is None else embed_limit_bytes
        flag = self.policy.require_current if require_current is None else require_current
        try:
            Policy(embed_limit_bytes=limit, now=self.baseline.now, require_current=flag)
        except CustodyLabError as e:
            self._fail(str(e))
            return self.comparison
        slider = self.controls["embedLimitBytes"]
        if limit > slider.max:
            slider.max = limit
        if (slider.value, self.controls["requireCurrent"].value) == (limit, flag):
            self.apply_controls()
        else:
            self.controls["requireCurrent"].unobserve(self._on_input, names="value")
            try:
                self.controls["requireCurrent"].value = flag
            finally:
                self.controls["requireCurrent"].observe(self._on_input, names="value")
            if slider.value == limit:
                self.apply_controls()
            else:
                slider.value = limit
        return self.comparison

    def _on_page(self, _change: dict[str, Any]) -> None:
        self._render_table()

    def _render_table(self) -> None:
        self.table.value = table_html(self.result, self.before, page=int(self.pager.value) - 1)

    def _render(self) -> None:
        """The chart, the summary and the first page of the table (the changed rows come first).

        The chart first: each changed view is one message, handled in order by the page, so the
        page decodes the picture while it updates the words.
        """
        if self._chart_on:
            self._draw_chart()
        self.summary.value = summary_html(self.comparison)
        self.pager.unobserve(self._on_page, names="value")
        try:
            self.pager.max = page_count(len(self.result))
            self.pager.value = 1
        finally:
            self.pager.observe(self._on_page, names="value")
        self._render_table()

    def _draw_chart(self) -> None:
        """The before/after chart as PNG: nothing is drawn when it would show the same numbers
        and words; a move that changes only those updates the kept figure in place and draws it
        again in its kept layout; anything else (other outcomes, a longer bar) draws it anew.

        When the update changes only the legend's "after" line (a new limit that moves no count),
        only that line is drawn, over the kept pixels of the chart without it: nothing else of
        the figure overlaps it, so the pixels are those of a whole drawing.
        """
        c = self.comparison
        key = (c.summary.to_numpy().tobytes(), tuple(c.summary.index), c.before, c.after, c.changed, c.cases)
        if key == self._chart_key:
            return
        fig = self._figure
        was = _chart_state(fig) if fig is not None else None
        if fig is None or not update_policy_comparison(fig, c):
            fig = policy_comparison(c)
            FigureCanvasAgg(fig)
            fig.set_dpi(_CHART_DPI)
            cache_glyphs(fig.canvas.get_renderer())  # the "after" line's words are drawn each move
            fig.canvas.draw()  # the constrained layout, at the chart's resolution
            fig.set_layout_engine("none")  # kept by every later update
            self._figure, was = fig, None
        line = fig.axes[0].get_legend().get_texts()[1]
        renderer = fig.canvas.get_renderer()
        if was is None or _chart_state(fig) != was:  # draw it all; keep the pixels under the line
            line.set_visible(False)
            fig.canvas.draw()
            self._under_line = np.asarray(fig.canvas.buffer_rgba()).copy()
            self._bands.set_reference(self._under_line)
            line.set_visible(True)
        else:
            np.asarray(fig.canvas.buffer_rgba())[:] = self._under_line
        line.draw(renderer)
        self._chart_key = key
        self.chart.value = self._bands.encode(np.asarray(fig.canvas.buffer_rgba()))  # png()'s bytes
