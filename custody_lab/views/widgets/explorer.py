"""The case explorer: change one input of a custody case and watch everything that depends on it.

``CaseExplorer("handbook")`` is an ipywidgets ``VBox``. Its controls (``.controls``, keyed by the
case's camelCase field names, plus ``embedLimitBytes`` for the policy) all feed one observer,
which builds a :class:`~custody_lab.core.model.Case`, routes it, and redraws the outcome, the trace,
the diff against the baseline, the receipt, the case's own (untrusted) words and the custody
matrix. The widget holds no routing logic: it calls the core and renders what comes back.

The baseline is a case *and* a policy: the diff line names a changed embed limit as it names a
changed input, and "Reset to baseline" restores both. The box beside each slider is exact: it
uses the number typed or says beside it why not (:class:`~.controls.StrictIntSlider`), and the
sliders move in steps of 1, so the page never rounds a typed 4097 to a step (a slider with step 10
showed 4100 and sent it back). Every row of controls wraps at a narrow width (a 1280 px window at
200 % zoom is 640 CSS px), so no control ends up outside the output area.
"""

from __future__ import annotations

__all__ = ["CaseExplorer"]

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as W

from ...core.errors import CaseError, PolicyError
from ...core.explain import diff
from ...core.loading import load_fixture
from ...core.model import FIELD_SPECS, INITIATORS, OPERATIONS, SHAPES, Case, Decision, Policy, check_value
from ...core.router import route
from ...core.text import visible
from ..html import TABS_CLASS, TABS_STYLE
from . import render
from .controls import FULL, READ_ON_SUBMIT, StrictIntSlider, fit, fits_words, wrapping_row
from .picture import Picture

#: The longest paste the box reads: a case is one small JSON object (the fixture's are under 1 KB).
_PASTE_LIMIT = 100_000

# A dropdown cannot hold ``None`` as a choice (it means "nothing selected"), so the control's
# values are words and map to the case's true / false / null.
_SIDE_EFFECTS = [("false — read-only", "false"), ("true — changes state", "true"), ("unknown (null)", "unknown")]
_SIDE_VALUE = {"false": False, "true": True, "unknown": None}
_SIDE_WORD = {v: k for k, v in _SIDE_VALUE.items()}


#: Controls whose description is as wide as its words (never cut to the default label width).
_WIDE: dict[str, Any] = {"style": {"description_width": "initial"}}


def _options(ids: list[str]) -> list[tuple[str, str]]:
    """Preset entries: a pasted case's id is its own words, so its label is made visible (a
    right-to-left override in an id would otherwise reorder the list a learner reads)."""
    return [(visible(case_id), case_id) for case_id in ids]


def _side_effects(word: object) -> bool | None:
    """The case value of the sideEffects control's word (a dropdown left empty is an error)."""
    if word not in _SIDE_VALUE:
        raise CaseError(f"field 'sideEffects': choose one of {', '.join(_SIDE_VALUE)}; got {word!r}", "sideEffects")
    return _SIDE_VALUE[str(word)]


class CaseExplorer(W.VBox):
    """An interactive panel over one custody case.

    Args:
        case: a fixture case id (``"handbook"``) or a :class:`Case` (its baseline).
        policy: the starting policy (the seed's 4096-byte embed limit by default).
        chart: draw the custody matrix (turn off for a lighter panel).

    Attributes:
        controls: the input widgets, keyed by camelCase field name (and ``embedLimitBytes``).
        decision: the current :class:`Decision` (always the last valid state).
        case: the current :class:`Case`; ``baseline`` is the case the diff compares against.
        policy: the current :class:`Policy`; ``baseline_policy`` is the policy the diff compares
            against (the one the panel started with) and the one :meth:`reset` restores.
        error: the message of the last invalid input, or ``None``.
    """

    def __init__(self, case: str | Case = "handbook", policy: Policy | None = None, *, chart: bool = True) -> None:
        self._fixture = load_fixture()
        self.baseline = self._resolve(case)
        self.baseline_policy = policy or self._fixture.policy
        self.policy = self.baseline_policy
        self.case = self.baseline
        self.error: str | None = None
        self._quiet = False
        self._matrix = None
        if chart:
            from ..chart import CustodyMatrix

            self._matrix = CustodyMatrix(self.policy, context_cases=self._fixture.all_cases)

        self.controls: dict[str, W.ValueWidget] = self._make_controls()
        # The bytes slider's own box types an exact size (its note says why a typed one was not
        # used); the name is kept for code that reads it.
        self.bytes_box = self.controls["bytes"].box
        ids = [c.id for c in self._fixture.all_cases]
        self.preset = W.Dropdown(
            options=_options(ids if self.baseline.id in ids else [self.baseline.id, *ids]),
            value=self.baseline.id,
            description="preset",
        )
        self.reset_button = W.Button(
            description="Reset to baseline",
            icon="undo",
            tooltip="the baseline case and the baseline policy (embed limit) again",
            layout=fits_words(),
        )
        self.paste = W.Textarea(
            placeholder='Paste a case as JSON, e.g. {"id": "mine", "initiator": "model", …}',
            layout=fit(FULL, height="70px"),
            **READ_ON_SUBMIT,  # "Load pasted case" reads it: the value reaches the kernel before the click
        )
        self.load_button = W.Button(description="Load pasted case", icon="upload", layout=fits_words())

        self.outcome = W.HTML()
        self.trace = W.HTML()
        self.diff = W.HTML()
        self.receipt = W.HTML()
        self.untrusted = W.HTML()
        self.message = W.HTML()
        #: the chart (never shown so narrow that its text falls under the lab's 12.5 px: it scrolls
        #: sideways instead) and the picture's box around it
        self.picture: Picture | None = None
        self.chart = W.Image(format="png")
        if self._matrix is not None:
            fig = self._matrix.figure
            w, h = fig.get_size_inches() * fig.dpi
            self.picture = Picture(w, h, fig.dpi, self._matrix.theme)
            self.chart = self.picture.image
        #: the chart's alternative text, shown under it (an Image widget has no alt attribute, and
        #: a tooltip on it kept the image from drawing in JupyterLab)
        self.chart_caption = W.HTML()

        for widget in self.controls.values():
            widget.observe(self._on_input, names="value")
            if isinstance(widget, StrictIntSlider):
                widget.on_refuse(self._refused)  # the slider's own note shows it, beside the control
        self.preset.observe(self._on_preset, names="value")
        self.reset_button.on_click(lambda _b: self.reset())
        self.load_button.on_click(lambda _b: self.load_json(self.paste.value))

        c = self.controls
        inputs = W.VBox(
            [
                wrapping_row([self.preset, self.reset_button]),
                wrapping_row([c["initiator"], c["operation"], c["shape"], c["sideEffects"]]),
                c["bytes"].row,
                c["embedLimitBytes"].row,
                wrapping_row([c["current"], c["requiresCurrent"], c["allowed"]]),  # a checkbox's words follow it
                wrapping_row([c["uri"], c["mime"], c["provenance"]]),
            ],
            layout=W.Layout(max_width="100%"),
        )
        #: the chart in words: the matrix as a table (the explored case first); the image's tooltip
        #: carries the same alt text
        self.matrix_text = W.HTML()
        pages = [self.trace, self.receipt, W.VBox([self.paste, self.load_button])]
        titles = ["Trace", "Receipt", "Paste a case"]
        if self._matrix is not None:
            pages.insert(2, self.matrix_text)
            titles.insert(2, "Matrix as text")
        tabs = W.Tab(children=pages)
        for i, title in enumerate(titles):
            tabs.set_title(i, title)
        tabs.add_class(TABS_CLASS)  # readable unselected titles; the rule is in a hidden HTML widget
        tabs_style = W.HTML(TABS_STYLE, layout=W.Layout(display="none"))
        children: list[W.Widget] = [inputs, self.message, self.outcome, self.diff, self.untrusted]
        if self.picture is not None:
            children += [self.picture, self.chart_caption]
        children += [tabs, tabs_style]
        super().__init__(children=children, layout=W.Layout(max_width="100%"))
        self.decision: Decision = route(self.case, self.policy)
        self._baseline_decision = self.decision
        self._show_controls(self.case)
        self.refresh()

    # -- building -------------------------------------------------------------------------
    def _resolve(self, case: str | Case) -> Case:
        if isinstance(case, Case):
            return case
        try:
            return self._fixture.case(case)
        except KeyError as e:
            raise CaseError(str(e.args[0]), "id") from e

    def _make_controls(self) -> dict[str, W.ValueWidget]:
        # Step 1 on both sliders: the page snaps a value to the slider's step and sends the
        # snapped value back, so any other step would change a typed size or a policy's limit.
        return {
            "initiator": W.Dropdown(options=INITIATORS, description="initiator", layout=fits_words(), **_WIDE),
            "operation": W.Dropdown(options=OPERATIONS, description="operation", layout=fits_words(), **_WIDE),
            "shape": W.Dropdown(options=SHAPES, description="shape", layout=fits_words(), **_WIDE),
            "bytes": StrictIntSlider(
                min=0,
                max=20000,
                step=1,
                description="bytes",
                box_label="type bytes",
                continuous_update=True,
                layout=fit("420px", min_width="260px"),
                **_WIDE,
            ),
            "embedLimitBytes": StrictIntSlider(
                min=0, max=20000, step=1, description="embed limit", layout=fit("420px", min_width="260px"), **_WIDE
            ),
            "current": W.Checkbox(description="current", indent=False, layout=fits_words()),
            "requiresCurrent": W.Checkbox(description="requiresCurrent", indent=False, layout=fits_words()),
            "allowed": W.Checkbox(description="allowed", indent=False, layout=fits_words()),
            "sideEffects": W.Dropdown(options=_SIDE_EFFECTS, description="sideEffects", layout=fits_words(), **_WIDE),
            "uri": W.Text(description="uri", layout=fit("300px"), **_WIDE),
            "mime": W.Text(description="mime", layout=fit("300px"), **_WIDE),
            "provenance": W.Text(description="provenance", layout=fit("300px"), **_WIDE),
        }

    @contextmanager
    def _hold(self) -> Iterator[None]:
        """Set many controls at once with a single refresh at the end."""
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def _show_controls(self, case: Case) -> None:
        c = self.controls
        with self._hold():
            if case.bytes > c["bytes"].max:
                c["bytes"].max = case.bytes * 2
            for key in ("initiator", "operation", "shape", "bytes", "current", "requiresCurrent", "allowed"):
                c[key].value = case.get(key)
            c["sideEffects"].value = _SIDE_WORD[case.side_effects]
            for key in ("uri", "mime", "provenance"):
                c[key].value = case.get(key) or ""
            if self.policy.embed_limit_bytes > c["embedLimitBytes"].max:
                c["embedLimitBytes"].max = self.policy.embed_limit_bytes * 2
            c["embedLimitBytes"].value = self.policy.embed_limit_bytes

    # -- the one observer path ----------------------------------------------------------------
    def _on_input(self, _change: dict[str, Any]) -> None:
        if not self._quiet:
            self.apply_controls()

    def _on_preset(self, change: dict[str, Any]) -> None:
        if not self._quiet:
            self.load(change["new"])

    def apply_controls(self) -> None:
        """Read every control, validate, route and redraw; on bad input keep the last good state."""
        c = self.controls
        try:
            case = self.baseline.with_changes(
                initiator=c["initiator"].value,
                operation=c["operation"].value,
                shape=c["shape"].value,
                bytes=c["bytes"].value,
                current=c["current"].value,
                requiresCurrent=c["requiresCurrent"].value,
                allowed=c["allowed"].value,
                sideEffects=_side_effects(c["sideEffects"].value),
                uri=c["uri"].value,
                mime=c["mime"].value,
                provenance=c["provenance"].value,
            )
            policy = Policy(
                embed_limit_bytes=c["embedLimitBytes"].value,
                now=self.policy.now,
                require_current=self.policy.require_current,
            )
        except (CaseError, PolicyError) as e:
            self._fail(str(e))
            return
        self.case, self.policy = case, policy
        self.refresh()

    def _refused(self, message: str) -> None:
        self.error = message

    def _fail(self, message: str) -> None:
        self.error = message
        self.message.value = render.error_html(message)

    def refresh(self) -> None:
        """Route the current case and update every view (synchronously, in one pass)."""
        self.decision = route(self.case, self.policy)
        self._baseline_decision = route(self.baseline, self.baseline_policy)
        if self._matrix is not None:
            # the picture first: its message leaves before the words' (each changed view is one
            # message, handled in order by the page), so the page decodes it while it updates them
            self._matrix.set_policy(self.policy)
            self.chart.value = self._matrix.render(self.case, self.decision)
        self.error = None
        self.message.value = ""
        self.outcome.value = render.outcome_html(self.decision)
        self.trace.value = render.trace_html(self.decision)
        changes = diff(self.baseline, self.case) + render.policy_changes(self.baseline_policy, self.policy)
        self.diff.value = render.diff_html(changes, self._baseline_decision, self.decision, self.baseline.id)
        self.receipt.value = render.receipt_html(self.decision)
        self.untrusted.value = render.untrusted_html(self.case)
        if self._matrix is not None:
            alt, table = self._matrix.describe(self.case, self.decision)
            self.chart_caption.value = render.caption_html(alt + " The Matrix as text tab has every case as a table.")
            self.matrix_text.value = render.matrix_text_html(alt, table)

    # -- actions -----------------------------------------------------------------------------
    def load(self, case: str | Case) -> None:
        """Make a fixture case (by id) or a Case the new baseline case and show it.

        The policy stays as it is; the baseline policy stays the one the panel started with, so a
        changed embed limit is still named in the diff line (and :meth:`reset` restores it).
        """
        try:
            new = self._resolve(case)
        except CaseError as e:
            self._fail(str(e))
            return
        self.baseline = self.case = new
        with self._hold():
            known = [value for _label, value in self.preset.options]
            if new.id not in known:
                self.preset.options = _options([new.id, *known])
            self.preset.value = new.id
        self._show_controls(new)
        self.refresh()

    def load_json(self, text: str) -> None:
        """Load a case pasted as JSON; a bad paste is shown plainly and changes nothing.

        A paste longer than :data:`_PASTE_LIMIT` characters, JSON nested too deeply for the parser,
        and a number longer than Python reads (4,300 digits) are refused with a message too.
        """
        if len(text) > _PASTE_LIMIT:
            self._fail(
                f"the pasted text is {len(text):,} characters; a case is one small JSON object, so the "
                f"box reads at most {_PASTE_LIMIT:,} (load a file of cases with custody_lab.load_cases)"
            )
            return
        try:
            mapping = json.loads(text)
        except json.JSONDecodeError as e:
            self._fail(f"not valid JSON at line {e.lineno} column {e.colno}: {e.msg}")
            return
        except RecursionError:
            self._fail("the pasted JSON is nested too deeply to read; a case is one flat object of fields")
            return
        except ValueError:  # int(): over sys.get_int_max_str_digits() digits
            self._fail("a number in the pasted JSON has more digits than Python reads (4,300); no case field needs one")
            return
        try:
            case = Case.from_dict(mapping)
        except CaseError as e:
            self._fail(str(e))
            return
        self.load(case)

    def reset(self) -> None:
        """Return every control to the baseline: the baseline case and the baseline policy.

        Example:
            >>> ex = CaseExplorer("oversize-embed", chart=False)
            >>> ex.set(embedLimitBytes=10240).accepted
            True
            >>> ex.reset()
            >>> ex.policy.embed_limit_bytes, ex.controls["embedLimitBytes"].value, ex.decision.accepted
            (4096, 4096, False)
        """
        self.case, self.policy = self.baseline, self.baseline_policy
        self._show_controls(self.baseline)
        self.refresh()

    def set(self, **changes: Any) -> Decision:
        """Change controls by field name, as a learner would, and return the new decision.

        Values are the case's own (``bytes=9000``, ``sideEffects=None``; the sideEffects control's
        words ``"true"``, ``"false"``, ``"unknown"`` work too) and are checked first, as the paste
        box checks a case: a wrong type, a negative or fractional size, a shape that does not exist
        or a control that does not exist changes nothing, shows the message in the panel and
        returns the decision the panel still holds. A size beyond a slider's end widens the slider.

        Example:
            >>> ex = CaseExplorer("handbook", chart=False)
            >>> ex.set(bytes=-3).selected, ex.error
            ('listed-resource', "field 'bytes' must be 0 or more; got -3")
            >>> ex.set(bytes=20).selected, ex.error
            ('listed-resource', None)
        """
        try:
            values = {key: self._control_value(key, value) for key, value in changes.items()}
        except (CaseError, PolicyError) as e:
            self._fail(str(e))
            return self.decision
        with self._hold():
            for key, value in values.items():
                control = self.controls[key]
                if isinstance(control, StrictIntSlider) and isinstance(value, int) and value > control.max:
                    control.max = value * 2
                control.value = value
        self.apply_controls()
        return self.decision

    def _control_value(self, key: str, value: object) -> object:
        """What the control of ``key`` must hold to show ``value``, or the CaseError / PolicyError."""
        if key == "embedLimitBytes":
            Policy(embed_limit_bytes=value, now=self.policy.now)  # type: ignore[arg-type]  # checks it
            return value
        if key not in self.controls:
            raise CaseError(f"no control {key!r}; the controls are {', '.join(self.controls)}", key)
        if key == "sideEffects":
            if isinstance(value, str) and value in _SIDE_VALUE:
                return value
            return _SIDE_WORD[check_value(FIELD_SPECS[key], value)]  # type: ignore[index]
        checked = check_value(FIELD_SPECS[key], value)
        if checked is None:
            raise CaseError(
                f"field {key!r}: this control cannot show null; "
                + ("type '' for an empty value" if isinstance(self.controls[key], W.Text) else "choose a value")
                + ", or paste the whole case as JSON",
                key,
            )
        return checked
