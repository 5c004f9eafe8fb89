"""Controls that use exactly the number a person typed, or say next to themselves why not.

An ipywidgets ``IntSlider`` moves a value outside its range to the nearest end without a word
(``-1`` becomes ``0``, ``100000`` the slider's maximum), its readout does the same with a typed
number, and an ``IntText`` drops ``e``, ``,`` and ``.`` as they are typed (``1e9`` becomes ``19``,
``12.5`` becomes ``125``). So no numeric control of the lab is one of those alone:
:class:`StrictIntSlider` turns its readout off and puts a text box beside itself that the lab reads
with :func:`read_whole_number`, the one parser of a typed number, and a note beside the box that
says why a typed number was not used. The slider keeps its value when it refuses one, and tells
every ``on_refuse`` callback why, so a panel can record it too.
"""

from __future__ import annotations

__all__ = [
    "FULL",
    "MAX_DIGITS",
    "READ_ON_SUBMIT",
    "NumberError",
    "StrictIntSlider",
    "fit",
    "fits_words",
    "read_whole_number",
    "refusal",
    "wrapping_row",
]

import re
from collections.abc import Callable
from typing import Any

import ipywidgets as W

from ...core.errors import CustodyLabError
from ..html import box, untrusted

#: The whole width of the output area less the 2 px margin ipywidgets gives each side of a
#: control (``width: 100%`` plus that margin ends 2 px outside the output area).
FULL = "calc(100% - 4px)"

#: For a box a button (or Enter) reads: its value is sent when the box is left or Enter is pressed,
#: never keystroke by keystroke. A click on the button leaves the box, so the value reaches the
#: kernel before the click does. Sent as typed, the page holds back every update that follows one
#: still in flight on a busy kernel, while a click goes at once: a Check graded 'orders://A-' for a
#: typed 'orders://A-1002' (issue 27 §1; tests/test_browser_layout.py reproduces it).
READ_ON_SUBMIT: dict[str, Any] = {"continuous_update": False}

#: The most digits a typed number may have: no size, count or limit of the lab comes near 10**15.
MAX_DIGITS = 15

_WHOLE = re.compile(r"[+-]?\d+", re.ASCII)  # ASCII: int() would also read "٣"
_EXPONENT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(\d+\.\d*|\.\d+)")
_GROUPED = re.compile(r"[+-]?\d{1,3}([,_' ]\d{3})+")


class NumberError(CustodyLabError, ValueError):
    """A typed number the lab does not use; ``.control`` names the control, ``.typed`` the text."""

    def __init__(self, message: str, control: str, typed: str) -> None:
        super().__init__(message)
        self.control = control
        self.typed = typed


def read_whole_number(text: str, control: str, low: int = 0, high: int | None = None) -> int:
    """The whole number ``text`` says, exactly, or a :class:`NumberError` that says why not.

    Only digits are read (with a sign, and spaces around them): an exponent, a decimal point or a
    thousands separator is refused rather than guessed at, and so is a number below ``low`` or
    above ``high``. The message names the control and quotes what was typed.

    Example:
        >>> read_whole_number(" 4097 ", "bytes")
        4097
        >>> try:
        ...     read_whole_number("1e9", "bytes")
        ... except NumberError as e:
        ...     print(e)
        bytes: type the number in digits (an exponent such as 'e9' is not read); you typed '1e9'
    """
    typed = text.strip()

    def refuse(why: str) -> NumberError:
        return NumberError(f"{control}: {why}; you typed {_shown(text)}", control, text)

    if not typed:
        raise refuse("type a whole number in digits")
    if _WHOLE.fullmatch(typed):
        if len(typed.lstrip("+-")) > MAX_DIGITS:
            raise refuse(f"a number of more than {MAX_DIGITS} digits is beyond anything this control takes")
        number = int(typed)
        if number < low:
            raise refuse(f"must be {low:,} or more")
        if high is not None and number > high:
            raise refuse(f"goes up to {high:,}")
        return number
    if _EXPONENT.fullmatch(typed):
        exponent = typed[typed.lower().index("e") :]
        raise refuse(f"type the number in digits (an exponent such as {exponent!r} is not read)")
    if _DECIMAL.fullmatch(typed):
        raise refuse("must be a whole number (no decimal point)")
    if _GROUPED.fullmatch(typed):
        raise refuse("type the digits without separators")
    raise refuse("is not a whole number; type digits only")


def _shown(text: str) -> str:
    """``repr`` of typed text, cut to 40 characters (a paste of a whole page stays one line)."""
    return repr(text if len(text) <= 40 else text[:40] + "…")


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


#: A slider's words may take two lines and at most 40 % of its width, so that its track keeps the
#: rest in a narrow output area (272 px at 200 % zoom with JupyterLab's file browser open).
_LABEL_STYLE = (
    "<style>.custody-number > .widget-slider > .widget-label"
    "{white-space:normal;max-width:40%;min-width:0;line-height:1.2;height:auto}</style>"
)


def _note_html(message: str, kept: int) -> str:
    """The note beside a control that did not use a number: why, and the value it kept."""
    return box(f"⚠ {untrusted(message)} — nothing was changed: it stays {kept:,}.", "error", cls="custody-number-note")


class StrictIntSlider(W.IntSlider):
    """An ``IntSlider`` that never changes a number silently: a box beside it takes a typed one.

    ``.row`` is what a panel shows: the slider (its readout off, since a typed readout clamps
    silently), ``.box`` (a ``Text`` read by :func:`read_whole_number` when the person presses Enter
    or leaves it) and ``.note``, which says why a number was not used. A typed number from
    ``lowest`` up (and up to ``max`` when ``widen`` is false) is used exactly, widening the slider
    when it lies beyond an end; anything else is refused. A value set from code outside
    ``[min, max]`` is refused too (``IntSlider`` would clamp it). A refusal keeps the value, shows
    the message in ``.note`` and passes it to each :meth:`on_refuse` callback.

    Example:
        >>> said = []
        >>> s = StrictIntSlider(value=512, min=512, max=16384, description="budget")
        >>> s.on_refuse(said.append)
        >>> s.value = 0
        >>> s.value, said[0].split(":")[0]
        (512, 'budget cannot be set to 0')
        >>> s.box.value = "12.5"
        >>> s.value, said[-1]
        (512, "budget: must be a whole number (no decimal point); you typed '12.5'")
        >>> s.box.value = "40000"
        >>> s.value, s.max >= 40000, s.note.value
        (40000, True, '')
    """

    def __init__(self, *, lowest: int | None = None, widen: bool = True, box_label: str = "", **kwargs: Any) -> None:
        self._refuse_callbacks: list[Callable[[str], None]] = []
        kwargs.setdefault("readout", False)
        super().__init__(**kwargs)
        self.lowest: int = int(self.min) if lowest is None else lowest
        self.widen: bool = widen
        name = self.description or "this slider"
        self.box = W.Text(
            value=str(self.value),
            description=box_label,
            style={"description_width": "initial"},
            **READ_ON_SUBMIT,  # read when Enter is pressed or the box is left, never half-typed
            placeholder="a whole number",
            tooltip=f"{name}: type an exact whole number and press Enter",
            layout=W.Layout(width="190px" if box_label else "110px", min_width="90px", max_width=FULL),
        )
        self.box.add_class("custody-number-box")
        self.note = W.HTML()
        self.note.add_class("custody-number-note")
        self.row = wrapping_row([self, self.box, self.note, W.HTML(_LABEL_STYLE, layout=W.Layout(display="none"))])
        self.row.add_class("custody-number")
        self.observe(self._echo, names="value")
        self.box.observe(self._on_typed, names="value")

    def on_refuse(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(message)`` whenever a value is refused (typed or set from code)."""
        self._refuse_callbacks.append(callback)

    def refuse(self, message: str) -> None:
        """Keep the value; say ``message`` beside the control and to every callback."""
        self.note.value = _note_html(message, self.value)
        for callback in list(self._refuse_callbacks):
            callback(message)

    def __setattr__(self, name: str, value: Any) -> None:
        # Before the trait's own validation, which would clamp; a value from the browser comes
        # through here too (ipywidgets sets synced state with setattr).
        if name == "value" and self._out_of_range(value):
            self.refuse(refusal(self.description or "this slider", value, self.min, self.max))
            return
        super().__setattr__(name, value)

    def _out_of_range(self, value: Any) -> bool:
        if "note" not in self.__dict__ or isinstance(value, bool):
            return False  # still being built: ipywidgets checks the constructor's arguments itself
        return isinstance(value, (int, float)) and not self.min <= value <= self.max

    def _echo(self, change: dict[str, Any]) -> None:
        self.note.value = ""
        self.box.value = str(change["new"])

    def _on_typed(self, change: dict[str, Any]) -> None:
        text = str(change["new"])
        if text == str(self.value):
            return
        name = self.description or "this slider"
        try:
            number = read_whole_number(text, name, self.lowest, None if self.widen else self.max)
        except NumberError as e:
            self.refuse(str(e))
            return
        slider: W.IntSlider = self  # the traits as IntSlider declares them
        if number > slider.max:
            slider.max = number * 2
        if number < slider.min:
            slider.min = number
        if number == slider.value:
            self.note.value = ""
            self.box.value = str(number)  # " 12" shows as "12"
        else:
            slider.value = number
