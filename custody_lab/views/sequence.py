"""Sequence diagrams: who sends what to whom, in which order, drawn by the lab and told as text.

A diagram is one :class:`Sequence`: a title, a caption and a tuple of :class:`Step` values between
four lifelines, ``model``, ``user / host``, ``client`` and ``server`` (MCP's architecture, revision
2026-07-28: a host application holds one client per server; the model talks only to its host).
The picture (:func:`sequence_figure`) and its text equivalent (:func:`sequence_text`, a numbered
list) are both read from that one tuple, so they cannot tell different stories: step *n* of the
list is the arrow numbered *n* in the picture.

Each step has a kind, drawn without relying on colour:

* ``request``: a solid arrow; ``response``: a dashed arrow back; ``notification``: a dotted arrow
  (no answer expected);
* ``local``: a thin arrow with an open head, a hand-over that is not an MCP frame (the host and
  the model, the client and its host: inside one application);
* ``action``: something one actor does by itself (a box on its lifeline: the server executes a tool,
  the host puts context in front of the model);
* ``approval``: a person approving a model's proposal through the host (a double-bordered box);
* ``gate``: the lab's permission gate, checked by the host before anything goes to the client (a
  hatched bar between the two lifelines).

Labels are data: the caller passes them through :func:`custody_lab.core.text.visible` (a server's
text is never obeyed), this module draws them without mathtext and with characters the font lacks
replaced (:func:`~custody_lab.whatif.theme.drawable`), and HTML escapes them (:mod:`.html`). The
figure follows the lab's light and dark themes and its 9 pt projector minimum, like the matrix.
"""

from __future__ import annotations

__all__ = [
    "LIFELINES",
    "STEP_KINDS",
    "Lifeline",
    "Sequence",
    "SequenceFigure",
    "Step",
    "StepKind",
    "alt_text",
    "figure_png",
    "picker",
    "sequence_figure",
    "sequence_html",
    "sequence_text",
    "step_line",
]

import base64
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from ..whatif.theme import MIN_TEXT, Theme, drawable, legible_width, theme_of
from .chart.style import RC, draw_text
from .html import CHART_THEME_STYLE, LIGHT_CHART_CLASS, ViewError, box, escape, scroll, untrusted

Lifeline = Literal["model", "user / host", "client", "server"]
StepKind = Literal["request", "response", "notification", "local", "action", "approval", "gate"]
#: Left to right, so every arrow the lab draws joins two neighbours.
LIFELINES: tuple[Lifeline, ...] = get_args(Lifeline)
STEP_KINDS: tuple[StepKind, ...] = get_args(StepKind)
#: The matplotlib figure type :func:`sequence_figure` returns (for callers in later layers).
SequenceFigure = Figure

_WIDTH = 12.0  # inches
_ROW = 0.46  # inches per step
_HEAD = 1.5  # title + lifeline names
_FOOT = 0.7  # caption
_X = {name: 1.55 + 3.0 * i for i, name in enumerate(LIFELINES)}
_LABEL_CHARS = 50  # a label longer than this is cut with "…" in the picture (never in the text)
_LINESTYLE = {"request": "-", "response": (0, (5, 3)), "notification": (0, (1, 2)), "local": "-"}


@dataclass(frozen=True)
class Step:
    """One step of a sequence diagram.

    Attributes:
        sender: the lifeline it starts from.
        receiver: the lifeline it ends at (the same one for ``action`` and ``approval``).
        kind: one of :data:`STEP_KINDS`.
        label: what is sent or done, already made visible (:func:`~custody_lab.core.text.visible`).
        frame: the index of the JSON-RPC frame this step is, among the diagram's frames; ``None``
            for a step that sends nothing over the wire.
    """

    sender: Lifeline
    receiver: Lifeline
    kind: StepKind
    label: str
    frame: int | None = None


@dataclass(frozen=True)
class Sequence:
    """A titled, captioned list of steps (what both the picture and the text are made from).

    ``roles`` names what an actor does in this diagram (``("model", "initiates")``); the picture
    writes it under the lifeline's name and the text equivalent lists it after the title.

    Raises:
        ViewError: when a step names an unknown lifeline or kind (the message names the step).

    Example:
        >>> s = Sequence("t", (Step("client", "server", "request", "#1 resources/read", 0),))
        >>> s.frame_steps()[0].label
        '#1 resources/read'
    """

    title: str
    steps: tuple[Step, ...]
    caption: str = ""
    roles: tuple[tuple[Lifeline, str], ...] = ()

    def __post_init__(self) -> None:
        for n, step in enumerate(self.steps, 1):
            for field, value, allowed in (
                ("sender", step.sender, LIFELINES),
                ("receiver", step.receiver, LIFELINES),
                ("kind", step.kind, STEP_KINDS),
            ):
                if value not in allowed:
                    raise ViewError(f"step {n}: {field} {value!r} is not one of {', '.join(allowed)}")
        for who, _ in self.roles:
            if who not in LIFELINES:
                raise ViewError(f"roles: {who!r} is not one of {', '.join(LIFELINES)}")

    def role_line(self) -> str:
        """The roles as one line (empty when there are none)."""
        return "Roles: " + "; ".join(f"{who} {what}" for who, what in self.roles) if self.roles else ""

    def frame_steps(self) -> tuple[Step, ...]:
        """The steps that are frames on the wire, in order."""
        return tuple(s for s in self.steps if s.frame is not None)


def step_line(n: int, step: Step) -> str:
    """One numbered line of the text equivalent.

    Example:
        >>> step_line(3, Step("client", "server", "request", "#6 resources/read kb://handbook/v4", 5))
        '3. client → server (request, frame 6): #6 resources/read kb://handbook/v4'
        >>> step_line(4, Step("server", "server", "action", "executes the tool"))
        '4. server (action): executes the tool'
    """
    where = step.sender if step.sender == step.receiver else f"{step.sender} → {step.receiver}"
    kind = step.kind if step.frame is None else f"{step.kind}, frame {step.frame + 1}"
    return f"{n}. {where} ({kind}): {step.label}"


def sequence_text(seq: Sequence) -> str:
    """The diagram's text equivalent: the title, then one numbered line per step, then the caption.

    Example:
        >>> print(sequence_text(Sequence("Read", (Step("client", "server", "request", "#1 x", 0),), "ok")))
        Read
        1. client → server (request, frame 1): #1 x
        ok
    """
    lines = [
        seq.title,
        *([seq.role_line()] if seq.roles else []),
        *(step_line(n, s) for n, s in enumerate(seq.steps, 1)),
    ]
    return "\n".join(lines + ([seq.caption] if seq.caption else []))


def alt_text(seq: Sequence) -> str:
    """The image's alternative text: what it shows, and where the same steps are written out.

    Example:
        >>> alt_text(Sequence("Read", (Step("client", "server", "request", "#1 x", 0),)))[:79]
        'Sequence diagram: Read. 1 step (1 frame on the wire) between model, user / host'
    """
    n, f = len(seq.steps), len(seq.frame_steps())
    steps = f"{n} step{'s' if n != 1 else ''} ({f} frame{'s' if f != 1 else ''} on the wire)"
    return (
        f"Sequence diagram: {seq.title}. {steps} between {', '.join(LIFELINES[:-1])} and {LIFELINES[-1]}; "
        "the numbered list beside it gives every step in the same order."
    )


def _short(label: str) -> str:
    s = drawable(" ".join(label.split()))
    return s if len(s) <= _LABEL_CHARS else s[: _LABEL_CHARS - 1] + "…"


def _draw_step(ax: Any, n: int, y: float, step: Step, theme: Theme) -> None:
    x0, x1 = _X[step.sender], _X[step.receiver]
    text = _short(step.label)
    draw_text(ax, 0.12, y, f"{n}", ha="left", va="center", color=theme.muted, gid=f"number:{n}")
    if step.kind in ("action", "approval"):
        w, h = 0.22, _ROW * 0.62
        face = theme.box if step.kind == "action" else theme.background
        ax.add_patch(Rectangle((x0 - w / 2, y - h / 2), w, h, facecolor=face, edgecolor=theme.ink, lw=1.2, zorder=4))
        if step.kind == "approval":  # a double border: a person decided
            ax.add_patch(Rectangle((x0 - w / 2 - 0.06, y - h / 2 - 0.05), w + 0.12, h + 0.1, fill=False, ec=theme.ink))
        right = x0 < _X["server"]
        tx = x0 + 0.2 if right else x0 - 0.2
        draw_text(ax, tx, y, text, ha="left" if right else "right", va="center", gid=f"label:{n}")
        return
    if step.kind == "gate":
        lo, hi = sorted((x0, x1))
        ax.add_patch(
            Rectangle(
                (lo, y - _ROW * 0.32),
                hi - lo,
                _ROW * 0.64,
                facecolor=theme.background,
                edgecolor=theme.ink,
                hatch="//",
                lw=1.6,
                zorder=3,
            )
        )
        label = draw_text(ax, (lo + hi) / 2, y, f"GATE · {text}", ha="center", va="center", zorder=5, gid=f"label:{n}")
        label.set_bbox({"facecolor": theme.box, "edgecolor": "none", "pad": 1.5})
        return
    arrow = FancyArrowPatch(
        (x0, y),
        (x1, y),
        arrowstyle="-|>" if step.kind in ("request", "response") else "->",
        mutation_scale=14,
        linestyle=_LINESTYLE[step.kind],
        linewidth=0.9 if step.kind == "local" else 1.4,
        color=theme.muted if step.kind == "local" else theme.ink,
        zorder=4,
        gid=f"arrow:{n}",
    )
    ax.add_patch(arrow)
    draw_text(ax, (x0 + x1) / 2, y - 0.07, text, ha="center", va="bottom", gid=f"label:{n}")


def sequence_figure(seq: Sequence, *, theme: str | Theme | None = None, dpi: float = 100) -> Figure:
    """Draw the diagram: lifelines left to right, one row per step, numbered like the text.

    Args:
        seq: the steps to draw.
        theme: ``"light"`` or ``"dark"``; ``$CUSTODY_LAB_THEME`` (else light) when omitted.
        dpi: pixels per inch of the Agg canvas.

    Returns:
        A :class:`~matplotlib.figure.Figure` on an Agg canvas (no pyplot state), 12 inches wide.

    Example:
        >>> s = Sequence("Read", (Step("client", "server", "request", "#1 resources/read", 0),))
        >>> fig = sequence_figure(s, theme="dark")
        >>> [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "label:1"]
        ['#1 resources/read']
    """
    look = theme_of(theme)
    height = _HEAD + _ROW * max(len(seq.steps), 1) + _FOOT
    with matplotlib.rc_context({**RC, **look.rc()}):
        fig = Figure(figsize=(_WIDTH, height), dpi=dpi, facecolor=look.background)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_xlim(0, _WIDTH)
        ax.set_ylim(height, 0)
        ax.axis("off")
        draw_text(
            ax,
            0.12,
            0.3,
            _short(seq.title) if len(seq.title) > 110 else seq.title,
            ha="left",
            va="center",
            fontsize=MIN_TEXT + 3,
            fontweight="bold",
            gid="title",
        )
        bottom = height - _FOOT + 0.1
        for name, x in _X.items():
            head = draw_text(ax, x, 0.85, name, ha="center", va="center", fontweight="bold", gid=f"lifeline:{name}")
            head.set_bbox({"facecolor": look.box, "edgecolor": look.ink, "boxstyle": "round,pad=0.35"})
            role = "; ".join(what for who, what in seq.roles if who == name)
            if role:
                draw_text(ax, x, 1.22, drawable(role), ha="center", va="center", color=look.muted, gid=f"role:{name}")
            ax.plot(
                [x, x], [1.4 if role else 1.1, bottom], color=look.muted, linewidth=1.0, linestyle=(0, (2, 3)), zorder=1
            )
        for n, step in enumerate(seq.steps, 1):
            _draw_step(ax, n, _HEAD + _ROW * (n - 0.5), step, look)
        if seq.caption:
            draw_text(
                ax,
                0.12,
                height - _FOOT / 2,
                seq.caption,
                ha="left",
                va="center",
                color=look.muted,
                wrap=True,
                gid="caption",
            )
    return fig


def figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes (Agg)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    return buf.getvalue()


def sequence_html(seq: Sequence, *, theme: str | Theme | None = None) -> str:
    """The picture (a PNG with alternative text) and, beside it, its numbered text equivalent.

    Example:
        >>> html = sequence_html(Sequence("<b>", (Step("client", "server", "request", "<i>", 0),)))
        >>> 'alt="Sequence diagram: &lt;b&gt;.' in html and "<li>client → server" in html and "<i>" not in html
        True
    """
    fig = sequence_figure(seq, theme=theme)
    png = base64.b64encode(figure_png(fig)).decode("ascii")
    # never narrower than the width at which its smallest text is the lab's 12.5 px: it scrolls
    # sideways in its own box instead; drawn light, it turns dark on a dark page
    width = legible_width(fig.get_figwidth() * fig.dpi, fig.dpi)
    light = f" {LIGHT_CHART_CLASS}" if theme_of(theme).name == "light" else ""
    items = "".join(f"<li>{untrusted(step_line(n, s).split('. ', 1)[1])}</li>" for n, s in enumerate(seq.steps, 1))
    caption = f"<p>{untrusted(seq.caption)}</p>" if seq.caption else ""
    image = scroll(
        f'<img class="custody-sequence{light}" src="data:image/png;base64,{png}" alt="{escape(alt_text(seq))}" '
        f'style="width:{width}px;max-width:none;height:auto">'
    )
    roles = f"<p>{untrusted(seq.role_line())}</p>" if seq.roles else ""
    text = f"<p><b>The same steps as text</b> ({untrusted(seq.title)}):</p>{roles}<ol>{items}</ol>{caption}"
    return box(CHART_THEME_STYLE + image + text, "plain", cls="custody-sequence-box")


def picker(pages: Mapping[str, Callable[[], str]], *, description: str = "case") -> Any:
    """A drop-down over ``pages`` (name -> a function returning that page's HTML) and the page shown.

    Returns:
        An ``ipywidgets.VBox`` whose ``.children`` are the ``Dropdown`` and the ``HTML`` it fills.

    Raises:
        ViewError: when ``pages`` is empty.
    """
    import ipywidgets as widgets

    from .widgets.controls import fit

    if not pages:
        raise ViewError("picker: pages is empty; give at least one name -> page function")
    choice = widgets.Dropdown(options=list(pages), description=description, layout=fit("300px"))
    page = widgets.HTML(pages[str(choice.value)]())

    def show(change: Mapping[str, Any]) -> None:
        page.value = pages[str(change["new"])]()

    choice.observe(show, names="value")
    return widgets.VBox([choice, page])
