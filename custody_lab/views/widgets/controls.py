"""Controls that say so when they cannot take a value, instead of silently changing it.

An ipywidgets ``IntSlider`` moves a value outside its range to the nearest end without a word:
``-1`` becomes ``0`` and ``100000`` becomes the slider's maximum, so a learner who asked for one
value reads a result computed for another. :class:`StrictIntSlider` keeps its value instead and
tells every ``on_refuse`` callback why, so the panel can show the message next to the result it
still holds.
"""

from __future__ import annotations

__all__ = ["FULL", "StrictIntSlider", "fit", "fits_words", "refusal", "wrapping_row"]

from collections.abc import Callable
from typing import Any

import ipywidgets as W

#: The whole width of the output area less the 2 px margin ipywidgets gives each side of a
#: control (``width: 100%`` plus that margin ends 2 px outside the output area).
FULL = "calc(100% - 4px)"


def fit(width: str, **more: str) -> W.Layout:
    """A control ``width`` wide where there is room, and never wider than the output area.

    A 1280 px window at 200 % zoom is 640 CSS px; a fixed width would run past the edge there.

    Example:
        >>> layout = fit("420px", min_width="260px")
        >>> layout.width, layout.max_width, layout.min_width
        ('420px', 'calc(100% - 4px)', '260px')
    """
    return W.Layout(width=width, max_width=FULL, **more)


def fits_words(**more: str) -> W.Layout:
    """A button, checkbox or dropdown as wide as its words (never cut to ipywidgets' default width)."""
    return W.Layout(width="auto", min_width="max-content", max_width=FULL, **more)


def wrapping_row(children: list[W.Widget]) -> W.HBox:
    """A row of controls that wraps onto new rows when the output area is too narrow for it."""
    return W.HBox(children, layout=W.Layout(flex_flow="row wrap", align_items="center", max_width="100%"))


def refusal(name: str, value: object, low: int, high: int) -> str:
    """The message for a value a control cannot take.

    Example:
        >>> refusal("inline budget (bytes)", 0, 512, 16384)
        'inline budget (bytes) cannot be set to 0: this control goes from 512 to 16,384 (nothing was changed)'
    """
    shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)
    return f"{name} cannot be set to {shown}: this control goes from {low:,} to {high:,} (nothing was changed)"


class StrictIntSlider(W.IntSlider):
    """An ``IntSlider`` that refuses a value outside ``[min, max]`` instead of clamping it.

    The slider keeps the value it had; each callback given to :meth:`on_refuse` receives the
    message from :func:`refusal`. A drag in the browser never leaves the range, so only values set
    from code (``slider.value = -1``) are ever refused.

    Example:
        >>> said = []
        >>> s = StrictIntSlider(value=512, min=512, max=16384, description="budget")
        >>> s.on_refuse(said.append)
        >>> s.value = 0
        >>> s.value, said[0].split(":")[0]
        (512, 'budget cannot be set to 0')
    """

    def __init__(self, **kwargs: Any) -> None:
        self._refuse_callbacks: list[Callable[[str], None]] = []
        super().__init__(**kwargs)

    def on_refuse(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(message)`` whenever a value outside the range is refused."""
        self._refuse_callbacks.append(callback)

    def __setattr__(self, name: str, value: Any) -> None:
        # Before the trait's own validation, which would clamp; a value from the browser comes
        # through here too (ipywidgets sets synced state with setattr).
        if name == "value" and self._out_of_range(value):
            message = refusal(self.description or "this slider", value, self.min, self.max)
            for callback in list(self._refuse_callbacks):
                callback(message)
            return
        super().__setattr__(name, value)

    def _out_of_range(self, value: Any) -> bool:
        if "_refuse_callbacks" not in self.__dict__ or isinstance(value, bool):
            return False  # still being built: ipywidgets checks the constructor's arguments itself
        return isinstance(value, (int, float)) and not self.min <= value <= self.max
