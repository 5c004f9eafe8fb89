"""The link-or-embed calculator: sliders for size, reuse and budget, toggles for a permission of its
own and for content likely to change; the advice, the bytes, a plot.

A thin view over :func:`custody_lab.protocol.link_or_embed.compare_shapes` (which asks the advisor) and
:func:`custody_lab.protocol.link_or_embed.same_uri_invariant`, drawn and shown by
:mod:`custody_lab.views.context_costs`. Moving a slider redraws everything. The sliders and the URI
box shrink with a narrow output area (640 CSS px at 200 % zoom) and the row under them wraps.
"""

from __future__ import annotations

__all__ = ["LinkOrEmbedCalculator"]

import io

import ipywidgets as widgets

from ...core.errors import CaseError, PolicyError
from ...protocol.catalog import Catalog
from ...protocol.link_or_embed import (
    DEFAULT_MIME,
    DEFAULT_NAME,
    DEFAULT_URI,
    ShapeCosts,
    UriInvariantCheck,
    compare_shapes,
    embedded_resource_block,
    resource_link_block,
    same_uri_invariant,
)
from ...whatif.theme import theme_of
from ..context_costs import advice_html, costs_table_html, cumulative_alt, plot_cumulative, uri_check_html
from ..html import box, scroll, untrusted
from .controls import StrictIntSlider, fit, fits_words, wrapping_row
from .picture import follow_page_theme
from .render import caption_html


def _slider(value: int, scale: tuple[int, int], description: str, lowest: int = 0) -> StrictIntSlider:
    """A slider over ``scale`` (low, high), widened to hold ``value`` (the value asked for); its box
    takes any whole number from ``lowest`` (the advisor says what it makes of it).

    Its step is 1: the page snaps a slider's value to its step and sends the snapped value back, so
    a coarser step would turn a typed 4097-byte payload into 4100 right at the 4096-byte budget.
    """
    low, high = scale
    return StrictIntSlider(
        value=value,
        lowest=min(lowest, value),
        min=min(low, value),
        max=max(high, value),
        step=1,
        description=description,
        style={"description_width": "initial"},
        layout=fit("460px", min_width="260px"),
    )


def _png(costs: ShapeCosts) -> bytes:
    fig = plot_cumulative(costs)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96)
    return buffer.getvalue()


class LinkOrEmbedCalculator(widgets.VBox):
    """Sliders for payload size, reuse and inline budget, and two toggles (the content needs a
    permission of its own; it is likely to change); the advice, the bytes and a plot. The toggles
    change the advice (seed 000's other two reasons for a link), not the bytes.

    The sliders' ranges widen to hold the values given here and the numbers typed in the box beside
    each; a value set later from code that a slider cannot take (``budget.value = 0``) is refused
    with a note beside that slider instead of being moved to its end, and a value the advisor
    refuses is shown under the toggles.

    Below them, the same-URI check (seed 001's caching advice, the lab's host policy): type the URI
    and name a tool puts in its link, or the URI of an embed, and see whether the catalog registers
    it, registers the resource under another URI, or never registered it (valid under MCP).

    Attributes:
        size, reuse, budget: the ``IntSlider`` widgets.
        binary: the ``Checkbox`` for a binary payload (sent as base64).
        separate_permission, changes_often: the ``Checkbox`` es for the advisor's two other inputs.
        advice: ``HTML`` with the advisor's shape and reasons.
        table: ``HTML`` with the per-call and total bytes.
        plot: the ``Image`` of the cumulative-bytes chart (PNG).
        uri_box, name_box, block_type: the URI, the link's name and the block type to check.
        uri_check: ``HTML`` with the invariant's verdict.
        costs: the current :class:`~custody_lab.protocol.link_or_embed.ShapeCosts`.
        check: the current :class:`~custody_lab.protocol.link_or_embed.UriInvariantCheck`.

    Example:
        >>> calc = LinkOrEmbedCalculator()
        >>> calc.size.value, calc.reuse.value = 300, 1
        >>> calc.costs.shape
        'embedded-resource'
    """

    def __init__(
        self,
        payload_bytes: int = 18000,
        reuse: int = 5,
        budget: int = 4096,
        catalog: Catalog | None = None,
        *,
        uri: str = DEFAULT_URI,
        name: str = DEFAULT_NAME,
    ) -> None:
        self.catalog = catalog or Catalog.load()
        style = {"description_width": "initial"}
        wide = fit("460px")
        self.size = _slider(payload_bytes, (100, 60000), "payload bytes")
        self.reuse = _slider(reuse, (1, 20), "calls reusing it", lowest=1)
        self.budget = _slider(budget, (512, 16384), "inline budget (bytes)")
        self.binary = widgets.Checkbox(
            value=False, description="binary payload (sent as base64)", style=style, layout=fits_words()
        )
        self.separate_permission = widgets.Checkbox(
            value=False,
            description="needs a permission of its own",
            tooltip="reading it needs a permission beyond the tool call's",
            style=style,
            layout=fits_words(),
        )
        self.changes_often = widgets.Checkbox(
            value=False, description="likely to change after the call", style=style, layout=fits_words()
        )
        self.advice = widgets.HTML()
        self.table = widgets.HTML()
        self.plot = widgets.Image(format="png", layout=widgets.Layout(max_width="min(720px, 100%)", height="auto"))
        plot_style = follow_page_theme(self.plot, theme_of())  # plot_cumulative draws in theme_of()
        self.plot_caption = widgets.HTML()  # the plot's alternative text, under it
        self.error = widgets.HTML()
        self.costs: ShapeCosts | None = None

        self.block_type = widgets.Dropdown(
            options=[("resource_link (a link)", "resource_link"), ("resource (an embed)", "resource")],
            value="resource_link",
            description="block",
            style=style,
            layout=fits_words(),
        )
        self.uri_box = widgets.Text(value=uri, description="URI in the block", style=style, layout=wide)
        self.name_box = widgets.Text(value=name, description="the link's name", style=style, layout=wide)
        self.uri_check = widgets.HTML()
        self.check: UriInvariantCheck | None = None

        for control in (self.size, self.reuse, self.budget, self.binary, self.separate_permission, self.changes_often):
            control.observe(lambda _c: self.redraw(), names="value")
        for control in (self.uri_box, self.name_box, self.block_type):
            control.observe(lambda _c: self.recheck(), names="value")
        super().__init__(
            [
                widgets.HTML("<b>How many bytes enter context?</b>"),
                self.size.row,
                self.reuse.row,
                self.budget.row,
                self.binary,
                self.separate_permission,
                self.changes_often,
                self.error,
                self.advice,
                self.table,
                self.plot,
                plot_style,
                self.plot_caption,
                widgets.HTML(
                    "<b>Same URI (seed 001's caching advice, the lab's host policy):</b> a link or "
                    "an embed of a <i>registered</i> resource carries the URI it is registered "
                    "under. MCP lets a link name a resource that was never listed."
                ),
                wrapping_row([self.block_type, self.uri_box, self.name_box]),
                self.uri_check,
            ],
            layout=widgets.Layout(max_width="100%"),
        )
        self.redraw()
        self.recheck()

    def redraw(self) -> None:
        """Recompute the costs and the advice from the sliders, and redraw the plot."""
        try:
            costs = compare_shapes(
                self.size.value,
                self.reuse.value,
                self.budget.value,
                binary=self.binary.value,
                separate_permission=self.separate_permission.value,
                changes_often=self.changes_often.value,
            )
        except (CaseError, PolicyError) as err:
            self._fail(str(err))
            return
        self.error.value = ""
        self.costs = costs
        self.advice.value = advice_html(costs)
        self.table.value = scroll(costs_table_html(costs))  # a wide table scrolls in its own box
        self.plot.value = _png(costs)
        self.plot_caption.value = caption_html(cumulative_alt(costs))  # the table above holds its numbers

    def _fail(self, message: str) -> None:
        self.error.value = box(
            f"⚠ {untrusted(message)} — the panel keeps the last good result.", "error", cls="custody-error"
        )

    def recheck(self) -> None:
        """Check the typed URI against the catalog (seed 001's same-URI invariant)."""
        uri = self.uri_box.value.strip()
        if self.block_type.value == "resource_link":
            block = resource_link_block(uri, self.name_box.value.strip())
        else:
            entry = self.catalog.resolve(uri)
            if entry is not None:
                block = embedded_resource_block(self.catalog.read(uri))
            else:
                block = {"type": "resource", "resource": {"uri": uri, "mimeType": DEFAULT_MIME, "text": "…"}}
        self.check = same_uri_invariant(block, self.catalog)
        self.uri_check.value = uri_check_html(self.check)
