"""A picker: choose values, see what a function shows for them (the lab's ``@interact``).

    Picker(what_a_citation_proves, uri=served, with_digest=True)

A list or tuple becomes a drop-down, a ``bool`` a checkbox, as ``ipywidgets.interact`` would
make them; the function's result is rendered into an ``HTML`` widget's value each time a control
changes. Unlike ``interact`` it writes nothing into an ``Output`` widget: ``interact`` displays its
first result while its cell runs, and a notebook runner that mimics the page (nbclient, and Voila,
which presents a notebook with it) answers each such output with a ``comm_msg`` on the shell
channel while it waits for the cell's reply there. That send can swallow the socket's wake-up for a
reply that has just arrived, and the runner then sees the reply only when its cell timeout ends:
a cell that "stalls" for exactly the timeout and then succeeds (notebook 03, issue 38). A browser
never waited, but a presented page or a CI run did.
"""

from __future__ import annotations

__all__ = ["Picker", "result_html"]

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as W

from ...core.errors import CustodyLabError
from ..html import box, escape, pre
from .controls import fit, fits_words


def result_html(result: object) -> str:
    """What a :class:`Picker` shows for one result: its own HTML when it has one, else its text.

    An object with ``_repr_html_`` (a DataFrame, ``IPython.display.HTML``) is trusted to have
    escaped what it shows, as a notebook's display would; anything else is shown as its ``repr`` in
    a ``<pre>`` block, escaped with control characters made visible.

    Example:
        >>> result_html("<b>x</b>")
        '<pre style="white-space:pre-wrap;margin:4px 0;background:none">&#x27;&lt;b&gt;x&lt;/b&gt;&#x27;</pre>'
    """
    if result is None:
        return ""
    to_html = getattr(result, "_repr_html_", None)
    if callable(to_html):
        html = to_html()
        if isinstance(html, str):
            return html
    return pre(repr(result))


def _control(name: str, choice: object) -> W.ValueWidget:
    if isinstance(choice, bool):
        return W.Checkbox(value=choice, description=name, layout=fits_words())
    if isinstance(choice, Sequence) and not isinstance(choice, str) and choice:
        return W.Dropdown(options=list(choice), value=choice[0], description=name, layout=fit("300px"))
    raise TypeError(f"{name}: a Picker choice is a non-empty list or tuple (a drop-down) or a bool (a checkbox)")


class Picker(W.VBox):
    """One control per keyword and, below them, what ``show(**values)`` returns for their values.

    Attributes:
        controls: the controls by keyword (a ``Dropdown`` for a list, a ``Checkbox`` for a bool).
        output: the ``HTML`` widget whose value is the current result (:func:`result_html`).
        result: the value ``show`` last returned.

    Example:
        >>> p = Picker(lambda uri, digest: f"{uri} {digest}", uri=["kb://a", "kb://b"], digest=True)
        >>> p.controls["uri"].value = "kb://b"
        >>> p.result
        'kb://b True'
    """

    def __init__(self, show: Callable[..., Any], **choices: object) -> None:
        if not choices:
            raise TypeError("a Picker needs at least one choice, e.g. Picker(show, uri=[...])")
        self.show = show
        self.controls = {name: _control(name, choice) for name, choice in choices.items()}
        self.output = W.HTML()
        self.result: object = None
        for control in self.controls.values():
            control.observe(self._update, names="value")
        super().__init__([*self.controls.values(), self.output])
        self._update()

    def _update(self, _change: object = None) -> None:
        values = {name: control.value for name, control in self.controls.items()}
        try:
            self.result = self.show(**values)
        except CustodyLabError as error:  # the lab's own refusal is shown, as a notebook cell would
            self.result = None
            self.output.value = box(escape(str(error)), "error")
            return
        self.output.value = result_html(self.result)
