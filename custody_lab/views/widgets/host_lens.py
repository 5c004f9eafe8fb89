"""The host lens panel: change one input of a result — its shape, its size, a user-only annotation,
whether the caller may read the URI it names — and every host profile's column follows.

A thin view: :func:`custody_lab.protocol.host_lens.sample_result` builds the result,
:func:`~custody_lab.protocol.host_lens.lens` reads it through each profile and
:func:`custody_lab.views.host_lens_html.lens_html` shows the columns, which wrap onto new rows in a
narrow output area (640 CSS px at 200 % zoom).
"""

from __future__ import annotations

__all__ = ["HostLens"]

from collections.abc import Sequence

import ipywidgets as widgets

from ...protocol.host_lens import SHAPES, HostReading, LensInput, lens, sample_result
from ...protocol.host_profiles import HostProfile, load_host_profiles
from ..host_lens_html import lens_html
from .controls import StrictIntSlider, fit, fits_words, wrapping_row


class HostLens(widgets.VBox):
    """One result, every host profile side by side; each control changes one input.

    Attributes:
        shape: the ``Dropdown`` of result shapes (text, structured, structured + text, link, embed).
        size: the payload's bytes (a ``StrictIntSlider``; its ``.row`` holds the typed box).
        user_only: the ``Checkbox`` adding ``audience: ["user"]`` to the payload's block.
        readable: the ``Checkbox`` saying whether the caller may read the URI a link or embed names.
        output: the ``HTML`` with the columns.
        input: the current :class:`~custody_lab.protocol.host_lens.LensInput`.
        readings: the current readings, one per profile.

    Example:
        >>> panel = HostLens()
        >>> panel.readable.value = False
        >>> [r.broken for r in panel.readings if r.profile.id == "eager-fetcher"][0][:2]
        ('link-dereferenced-silently', 'link-laundered')
    """

    def __init__(self, shape: str = "link", size: int = 6000, *, profiles: Sequence[HostProfile] | None = None) -> None:
        self.profiles = tuple(load_host_profiles() if profiles is None else profiles)
        style = {"description_width": "initial"}
        self.shape = widgets.Dropdown(
            options=list(SHAPES), value=shape, description="result shape", style=style, layout=fits_words()
        )
        self.size = StrictIntSlider(
            value=size,
            lowest=0,
            min=0,
            max=max(20000, size),
            step=1,
            description="payload bytes",
            style=style,
            layout=fit("420px", min_width="240px"),
        )
        self.user_only = widgets.Checkbox(
            value=False, description='annotated audience ["user"]', style=style, layout=fits_words()
        )
        self.readable = widgets.Checkbox(
            value=True, description="the caller may read its URI", style=style, layout=fits_words()
        )
        self.output = widgets.HTML(layout=widgets.Layout(max_width="100%"))
        self.input: LensInput = sample_result(shape, size)
        self.readings: tuple[HostReading, ...] = ()
        for control in (self.shape, self.size, self.user_only, self.readable):
            control.observe(lambda _c: self.redraw(), names="value")
        super().__init__(
            [
                widgets.HTML("<b>One result, four hosts: what reaches the model?</b>"),
                wrapping_row([self.shape, self.user_only, self.readable]),
                self.size.row,
                self.output,
            ],
            layout=widgets.Layout(max_width="100%"),
        )
        self.redraw()

    def redraw(self) -> None:
        """Rebuild the result from the controls and read it through every profile."""
        self.input = sample_result(
            self.shape.value, int(self.size.value), user_only=self.user_only.value, link_readable=self.readable.value
        )
        self.readings = lens(self.input, self.profiles)
        self.output.value = lens_html(self.readings)
