"""The what-if panel scales with the inventory: a slider move renders one page of rows (the changed
ones first) and the counts, whether the inventory has 15 capabilities or a million."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from custody_lab.core.paths import data_path
from custody_lab.sweep import load_inventory
from custody_lab.views.html import SCROLL_STYLE
from custody_lab.views.widgets.whatif import PAGE_ROWS, WhatIfPanel, table_html
from custody_lab.whatif.plots import policy_comparison

SUPPORT_DESK = data_path("inventories", "support-desk.csv")


def _rows(html: str) -> int:
    return len(re.findall(r"<tr[ >]", html)) - 1  # minus the header row


def _inventory(rows: int):
    small = load_inventory(SUPPORT_DESK)
    big = small.iloc[np.resize(np.arange(len(small)), rows)].reset_index(drop=True)
    big["id"] = [f"cap-{i}" for i in range(rows)]
    return big


@pytest.fixture(scope="module")
def million():
    return _inventory(1_000_000)


def test_a_slider_move_renders_one_page_of_rows_at_fifteen_capabilities_and_at_a_million(million):
    small = WhatIfPanel(chart=False)
    big = WhatIfPanel(million, chart=False)
    for panel in (small, big):
        panel.controls["embedLimitBytes"].value = 2048
    rendered = {len(p.frame): _rows(p.table.value) for p in (small, big)}
    assert rendered == {15: 15, 1_000_000: PAGE_ROWS}, f"expected 15 and {PAGE_ROWS} rows rendered, got {rendered}"
    sizes = {len(p.frame): len(p.table.value) for p in (small, big)}
    per_row = {rows: sizes[rows] / rendered[rows] for rows in sizes}
    assert per_row[1_000_000] < 2 * per_row[15], f"expected one page of HTML, got {sizes} characters"
    assert f"{big.comparison.changed:,} of 1,000,000 capabilities change outcome" in big.summary.value


def test_the_changed_rows_come_first_and_the_page_box_turns_the_pages(million):
    panel = WhatIfPanel(million, chart=False)
    panel.controls["embedLimitBytes"].value = 2048
    changed = panel.comparison.changed
    assert changed > PAGE_ROWS, f"the test needs more than a page of changed rows; got {changed}"
    first = panel.table.value
    assert first.count("⇄ was") == PAGE_ROWS and f"{changed:,} changed, listed first" in first, first[:300]
    assert panel.pager.max == -(-1_000_000 // PAGE_ROWS) and panel.pager.value == 1
    panel.pager.value = 2
    assert "rows 51–100 of 1,000,000" in panel.table.value and panel.table.value != first
    panel.controls["embedLimitBytes"].value = 4096  # a move starts again at the first page
    assert panel.pager.value == 1 and "⇄ was" not in panel.table.value


def test_a_page_after_the_changed_rows_shows_the_unchanged_ones_in_inventory_order():
    from custody_lab import Policy
    from custody_lab.sweep import sweep

    frame = _inventory(120)
    before, after = sweep(frame), sweep(frame, Policy(embed_limit_bytes=2048))
    changed = np.flatnonzero(before["outcome"].to_numpy() != after["outcome"].to_numpy())
    unchanged = np.flatnonzero(before["outcome"].to_numpy() == after["outcome"].to_numpy())
    order = [*changed, *unchanged]
    for page in range(3):
        html = table_html(after, before, page=page)
        ids = re.findall(r"<td><code>(cap-\d+)</code>", html)
        want = [f"cap-{i}" for i in order[page * PAGE_ROWS : (page + 1) * PAGE_ROWS]]
        assert ids == want, f"page {page}: expected {want[:3]}…, got {ids[:3]}…"
    assert _rows(table_html(after, before, page=99)) == 120 - 2 * PAGE_ROWS, "a page past the end is the last page"


def test_the_panel_reflows_at_640_px_controls_wrap_and_the_table_scrolls_in_its_own_box():
    panel = WhatIfPanel(chart=False)
    row = panel.children[0]
    slider = panel.controls["embedLimitBytes"]
    assert row.layout.flex_flow == "row wrap", f"expected the controls row to wrap, got {row.layout.flex_flow!r}"
    assert slider.row is row and slider.layout.max_width == "calc(100% - 4px)", (
        f"expected the slider's row first and a slider no wider than the output area, got {slider.layout.max_width!r}"
    )
    assert f'style="{SCROLL_STYLE}"><table class="whatif-table"' in panel.table.value, (
        "expected the table inside a box that scrolls sideways"
    )


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_slider_move_shows_the_chart_a_fresh_drawing_of_its_comparison_gives(theme, monkeypatch):
    # The kept figure is updated in place (its layout kept) or drawn anew: either way, the pixels
    # of policy_comparison(...) saved at 72 dpi.
    monkeypatch.setenv("CUSTODY_LAB_THEME", theme)
    panel = WhatIfPanel()
    for limit in (100, 2048, 3000, 9000, 0, 4096):
        panel.set(embed_limit_bytes=limit)
        fresh = io.BytesIO()
        policy_comparison(panel.comparison).savefig(fresh, format="png", dpi=72)
        shown, drawn = _pixels(panel.chart.value), _pixels(fresh.getvalue())
        assert shown.shape == drawn.shape, f"limit {limit}: {shown.shape} vs {drawn.shape}"
        differ = int((shown != drawn).any(axis=2).sum())
        assert differ == 0, f"limit {limit}: {differ} pixels differ from a fresh chart"


def test_a_move_that_changes_nothing_the_chart_shows_keeps_its_png_and_a_new_bar_count_redraws():
    panel = WhatIfPanel()
    panel.set(embed_limit_bytes=2048)
    first = panel.chart.value
    panel.set(require_current=False)  # the same policy: the same numbers and words
    assert panel.chart.value is first
    panel.set(embed_limit_bytes=2049)  # the legend names the new limit
    assert panel.chart.value != first
    legend = [t.get_text() for t in panel._figure.axes[0].get_legend().get_texts()]
    assert legend[1].startswith("after: embed ≤ 2049 B"), legend


def test_a_typed_limit_sends_the_chart_before_the_summary(monkeypatch):
    """Issue 29: the page handles one move's messages in order, so the PNG goes first."""
    import ipywidgets as W

    panel = WhatIfPanel()
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(W.Widget, "_send", lambda self, msg, buffers=None: sent.append((id(self), msg["method"])))
    box = panel.controls["embedLimitBytes"].box
    box._handle_msg(
        {"content": {"data": {"method": "update", "state": {"value": "2048"}, "buffer_paths": []}}, "buffers": []}
    )
    updates = [widget for widget, method in sent if method == "update"]
    assert panel.policy.embed_limit_bytes == 2048
    assert id(panel.chart) in updates and id(panel.summary) in updates, f"sent {sent}"
    assert updates.index(id(panel.chart)) < updates.index(id(panel.summary)), f"the summary went first: {sent}"
    assert len(updates) == len(set(updates)), f"a view was sent twice for one move: {sent}"
