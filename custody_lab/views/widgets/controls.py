"""Controls that say so when they cannot take a value, instead of silently changing it.

An ipywidgets ``IntSlider`` moves a value outside its range to the nearest end without a word:
``-1`` becomes ``0`` and ``100000`` becomes the slider's maximum, so a learner who asked for one
value reads a result computed for another. :class:`StrictIntSlider` keeps its value instead and
tells every ``on_refuse`` callback why, so the panel can show the message next to the result it
still holds.
"""

from __future__ import annotations

__all__ = ["StrictIntSlider", "refusal"]

from collections.abc import Callable
from typing import Any

import ipywidgets as W


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
