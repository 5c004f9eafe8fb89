"""The template reader: pick a resource template, fill one box per variable, preview, and Read.

Like seed 004's "MCP Lab Explorer" and MCP Inspector's template panel. A thin view over
:mod:`custody_lab.protocol.template_reading`, which decides which variables are required, expands the
template, reads the catalog and writes the (escaped) HTML; this module only lays the boxes out and
calls those functions.

* The dropdown lists the catalog's templates; the **Template** box can also be edited to try any
  template. An invalid template shows the engine's reason with a caret under the offending
  character, and the form keeps its last good inputs; the previous read's result and picture are
  cleared (they belonged to another template), so nothing under the error looks like its result.
* Path variables are required; query, ``;`` and fragment variables are optional (an empty box is
  undefined and RFC 6570 drops it). A required box left empty shows a plain message instead of
  reading.
* **Read** resolves the URI in the catalog: the contents (text escaped, under the "untrusted data"
  label; images drawn as pictures with :class:`ipywidgets.Image`), or error -32602 "Resource not
  found" with the URI.

Nothing typed can raise into the notebook. Every box shrinks with a narrow output area (a 1280 px
window at 200 % zoom is 640 CSS px) instead of running past its edge.
"""

from __future__ import annotations

__all__ = ["CUSTOM", "TemplateReader"]

from typing import Any

import ipywidgets as widgets

from ...core.text import visible
from ...protocol.catalog import Catalog
from ...protocol.template_reading import Preview, ReadOutcome, TemplateVariable, preview, read_preview
from ..catalog_html import entry_html
from ..html import box, small
from ..template_html import outcome_html, preview_html, problem_html, variables_html
from .controls import fit

#: The dropdown value meaning "the template typed in the Template box".
CUSTOM = "(custom)"

_WAITING = box(small("Fill in the boxes and press Read."), "muted")


class TemplateReader(widgets.VBox):
    """Fill in a resource template and read the URI it makes.

    Attributes:
        catalog: the :class:`~custody_lab.protocol.catalog.Catalog` whose templates are listed and read.
        picker: ``Dropdown`` of the catalog's templates (plus :data:`CUSTOM`).
        template_box: ``Text`` holding the template in use (editable).
        about: ``HTML``: the catalog entry (escaped, labelled untrusted) and the variable table.
        problem: ``HTML``: the template error with its caret, or empty.
        inputs: one ``Text`` per variable of the last valid template, by name.
        fields: the ``VBox`` holding those inputs.
        preview_view: ``HTML``: the expanded URI and whether it can be read.
        read_button: ``Button``; ``read_button.click()`` reads programmatically.
        output: ``HTML``: the contents, the -32602 error, or why nothing was read.
        image: ``Image`` shown when the content is a picture.
        preview: the current :class:`~custody_lab.protocol.template_reading.Preview`.
        outcome: the last :class:`~custody_lab.protocol.template_reading.ReadOutcome`, or ``None``.
        variables: the variables of the last valid template.

    Example:
        >>> reader = TemplateReader()
        >>> reader.pick("orders://{order_id}")
        >>> reader.fill(order_id="A-1002")
        >>> reader.preview.uri
        'orders://A-1002'
        >>> reader.read_button.click()
        >>> reader.outcome.status
        'read'
    """

    def __init__(self, catalog: Catalog | None = None, template: str | None = None) -> None:
        self.catalog = catalog or Catalog.load()
        self.outcome: ReadOutcome | None = None
        self.variables: tuple[TemplateVariable, ...] = ()
        self.inputs: dict[str, widgets.Text] = {}
        self._kept: dict[str, str] = {}  # values typed so far, kept across template changes
        self._syncing = False
        options = [  # a server's words: shown with bidi and zero-width characters made visible
            (visible(f"{t.uri_template}  ·  {t.title or t.name}"), t.uri_template) for t in self.catalog.templates
        ]
        options.append(("custom template (edit the Template box)", CUSTOM))
        known = [value for _, value in options[:-1]]
        start = template if template is not None else (known[0] if known else "")
        self.picker = widgets.Dropdown(
            options=options,
            value=start if start in known else CUSTOM,
            layout=fit("560px"),  # its words on a line of their own: the choices keep the width
        )
        self.picker_label = widgets.HTML("Resource template:")
        self.template_box = widgets.Text(
            value=start,
            description="Template:",
            continuous_update=True,
            layout=fit("560px"),
        )
        self.about = widgets.HTML()
        self.problem = widgets.HTML()
        self.fields = widgets.VBox()
        self.preview_view = widgets.HTML()
        self.read_button = widgets.Button(
            description="Read", button_style="primary", icon="book", tooltip="resources/read this URI"
        )
        self.output = widgets.HTML(_WAITING, layout=widgets.Layout(max_width="100%"))
        self.image = widgets.Image(
            format="png", width="96", layout=widgets.Layout(display="none", border="1px solid #ccc")
        )
        self.preview: Preview = preview(start, {})
        self.picker.observe(self._on_pick, names="value")
        self.template_box.observe(self._on_template, names="value")
        self.read_button.on_click(lambda _button: self.read())
        super().__init__(
            [
                self.picker_label,
                self.picker,
                self.template_box,
                self.about,
                self.problem,
                self.fields,
                self.preview_view,
                self.read_button,
                self.output,
                self.image,
            ],
            layout=widgets.Layout(max_width="100%"),
        )
        self._use_template(start)

    # ---- actions ------------------------------------------------------------------------

    def pick(self, template: str) -> None:
        """Use ``template`` (a catalog template or any other text), as choosing or typing it does."""
        if self.template_box.value == template:
            self._use_template(template)
        else:
            self.template_box.value = template

    def fill(self, **values: str) -> None:
        """Type values into the boxes (unknown names are ignored, as a form would)."""
        for name, value in values.items():
            box = self.inputs.get(name)
            if box is not None:
                box.value = value

    def read(self) -> ReadOutcome:
        """Press **Read**: read the previewed URI, or say plainly why nothing was read."""
        outcome = read_preview(self.catalog, self.preview)
        self.outcome = outcome
        self.output.value = outcome_html(outcome)
        picture = outcome.image
        if picture is not None:
            self.image.format = picture[1]
            self.image.value = picture[0]
            self.image.layout.display = None
        else:
            self.image.layout.display = "none"
        return outcome

    # ---- internals ----------------------------------------------------------------------

    def _on_pick(self, change: dict[str, Any]) -> None:
        if self._syncing or change["new"] == CUSTOM:
            return
        self.pick(change["new"])

    def _on_template(self, change: dict[str, Any]) -> None:
        self._use_template(change["new"])

    def _use_template(self, template: str) -> None:
        entry = self.catalog.template(template)
        self._syncing = True
        try:
            self.picker.value = template if entry is not None else CUSTOM
        finally:
            self._syncing = False
        current = preview(template, self._typed())
        if current.problem is not None:  # keep the last good form; show where the text is wrong
            self.problem.value = problem_html(current.problem)
            self.preview = current
            self.preview_view.value = ""
            self._clear_result()
            return
        self.problem.value = ""
        if current.variables != self.variables:
            self._build_inputs(current.variables)
        described = (
            entry_html(entry)
            if entry is not None
            else box(
                small(
                    "A template that is not in the catalog: reading its URI still asks the catalog, "
                    "which answers -32602 unless something is registered there."
                )
            )
        )
        self.about.value = described + variables_html(current.variables)
        self._refresh()

    def _clear_result(self) -> None:
        """Forget the last read: its result and picture belong to a template no longer in use."""
        self.outcome = None
        self.output.value = _WAITING
        self.image.layout.display = "none"
        self.image.value = b""

    def _typed(self) -> dict[str, str]:
        return {**self._kept, **{name: box.value for name, box in self.inputs.items()}}

    def _build_inputs(self, variables: tuple[TemplateVariable, ...]) -> None:
        self._kept.update({name: box.value for name, box in self.inputs.items()})
        self.variables = variables
        self.inputs = {}
        for variable in variables:
            box = widgets.Text(
                value=self._kept.get(variable.name, ""),
                description=f"{variable.name}{' *' if variable.required else ''}",
                placeholder=variable.hint,
                continuous_update=True,
                style={"description_width": "initial"},
                layout=fit("420px"),
            )
            box.observe(lambda _change: self._refresh(), names="value")
            self.inputs[variable.name] = box
        self.fields.children = tuple(self.inputs.values())

    def _refresh(self) -> None:
        self.preview = preview(self.template_box.value, self._typed())
        self.preview_view.value = preview_html(self.preview)
