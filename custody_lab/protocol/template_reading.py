"""Fill in a resource template and read it: the logic behind the template reader widget.

Seed 004 ("Resource Templates") describes the flow a host follows with a template such as
``orders://{order_id}``: the client fills the placeholders in to get a real URI, sends it to
``resources/read``, and the server matches it back to the template and reads the record, or
answers error -32602 "Resource not found". MCP Inspector's template panel and seed 004's "MCP Lab
Explorer" show that flow as a form. This module is the form's logic, without any widget, so tests
can drive every step:

1. :func:`template_variables` reads the parsed template's operators and says which variables are
   **path** variables (required: leaving one out makes a URI that names nothing) and which are
   **query**, **matrix** or **fragment** variables (optional: RFC 6570 §2.3 drops an undefined
   variable, and these operators name or mark each value, so a missing one is visible).
2. :func:`preview` turns the text typed in each input into values (an empty box is *undefined*;
   an exploded variable takes a comma-separated list) and expands the template with
   :func:`custody_lab.uri_templates.expand`. A template error becomes a :class:`TemplateProblem`
   whose :meth:`~TemplateProblem.caret` points at the offending character.
3. :func:`read_preview` reads the URI from a :class:`~custody_lab.protocol.catalog.Catalog`, unless a
   required variable is empty, and keeps the contents or the ``-32602`` error in a
   :class:`ReadOutcome`.
4. ``*_html`` functions render each step as HTML in which every string that came from a user, a
   catalog entry or a server is passed through :func:`html.escape` (seed 000, "Preserve URI, MIME
   type, and provenance": titles, descriptions and resource text are data).

Two helpers feed notebook 03: :func:`operator_examples` (the expansion table, computed by the
engine) and :func:`compare_engines` (the lab's engine and another implementation, such as the MCP
SDK's ``mcp.shared.uri_template.UriTemplate``, run side by side; this module never imports ``mcp``:
the caller passes the other engine's ``parse`` in).

User values cannot escape their segment: in a simple ``{id}`` expression ``/``, ``?``, ``#`` and
``..`` followed by ``/`` are percent-encoded (RFC 6570 §3.2.2), so ``../../kb/shipping`` becomes
one segment, ``..%2F..%2Fkb%2Fshipping``, that names no other resource. Only ``{+var}`` and
``{#var}`` let reserved characters through (§3.2.3, §3.2.4); the reader says so beside such an
input.
"""

from __future__ import annotations

__all__ = [
    "DRAWN_IMAGES",
    "EXAMPLE_VALUES",
    "ListingCost",
    "Preview",
    "ReadOutcome",
    "TemplateProblem",
    "TemplateVariable",
    "TRICKY_CASES",
    "compare_engines",
    "describe_error",
    "listing_cost",
    "operator_examples",
    "outcome_html",
    "parse_error",
    "preview",
    "preview_html",
    "problem_html",
    "read_preview",
    "read_template",
    "template_problem",
    "template_variables",
    "values_from_inputs",
    "variables_html",
]

import html
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .blobs import BlobError, hex_preview, read_contents
from .catalog import Catalog, ReadResult, ResourceNotFound, TemplateEntry, untrusted_text_html
from .uri_templates import Expression, UriTemplate, UriTemplateError, expand, parse

Role = Literal["path", "query", "matrix", "fragment"]

#: RFC 6570 §3.2: which role each operator gives its variables.
_ROLE_OF_OPERATOR: dict[str, Role] = {
    "": "path",  # §3.2.2 simple string expansion
    "+": "path",  # §3.2.3 reserved expansion
    "/": "path",  # §3.2.6 path segments
    ".": "path",  # §3.2.5 label with dot-prefix
    ";": "matrix",  # §3.2.7 path-style parameters: ";name=value"
    "?": "query",  # §3.2.8 form-style query
    "&": "query",  # §3.2.9 form-style query continuation
    "#": "fragment",  # §3.2.4 fragment
}
#: Image types drawn as pictures (SVG is shown as text: an image from a server can carry script).
DRAWN_IMAGES: dict[str, str] = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"}
_BOX = "padding:6px 10px;margin:2px 0;font-family:sans-serif"
_ERROR_STYLE = "background:#fdecea;border:2px dashed #b3261e;color:#5c0f0a"
_OK_STYLE = "background:#e6f4ea;border:2px solid #1e7e34;color:#0b3d17"
_NOTE_STYLE = "background:#fef9c3;border:2px solid #a16207;color:#422006"


# --------------------------------------------------------------------------------------------
# Variables: which are required
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateVariable:
    """One variable of a template, as the reader's form shows it.

    Attributes:
        name: the variable name.
        role: ``"path"`` (simple, ``+``, ``/`` and ``.`` expressions), ``"query"`` (``?`` and
            ``&``), ``"matrix"`` (``;``) or ``"fragment"`` (``#``).
        required: true for path variables: left out, RFC 6570 drops them and the URI names
            nothing (``orders://``). The named and fragment operators mark each value, so those
            may be left empty.
        operators: the operator of each expression the variable appears in (``""`` for simple).
        explode: the variable is exploded (``{/path*}``): the form takes a comma-separated list.
        prefix: the prefix length (``{id:3}``), or ``None``.
        reserved: it appears in a ``+`` or ``#`` expression, where ``/``, ``?`` and other reserved
            characters pass through unencoded (§3.2.3): never fill it from untrusted input.
    """

    name: str
    role: Role
    required: bool
    operators: tuple[str, ...]
    explode: bool = False
    prefix: int | None = None
    reserved: bool = False

    @property
    def hint(self) -> str:
        """A short placeholder for the input box."""
        what = {
            "path": "required path value",
            "query": "optional query parameter",
            "matrix": "optional ;parameter",
            "fragment": "optional fragment",
        }[self.role]
        if self.explode:
            what += ", a comma-separated list"
        if self.prefix is not None:
            what += f", first {self.prefix} characters used"
        return what


def template_variables(template: str | UriTemplate) -> tuple[TemplateVariable, ...]:
    """The variables of ``template``, in order, with their role and whether they are required.

    A variable used in several expressions is required when any of them is a path expression.

    Raises:
        UriTemplateError: the template is invalid.

    Example:
        >>> [(v.name, v.role, v.required) for v in template_variables("logs://{service}/{day}{?level}")]
        [('service', 'path', True), ('day', 'path', True), ('level', 'query', False)]
    """
    parsed = template if isinstance(template, UriTemplate) else parse(template)
    seen: dict[str, list[tuple[Expression, int]]] = {}
    for part in parsed.parts:
        if isinstance(part, Expression):
            for index, spec in enumerate(part.varspecs):
                seen.setdefault(spec.name, []).append((part, index))
    out = []
    for name, uses in seen.items():
        operators = tuple(expression.operator for expression, _ in uses)
        roles = [_ROLE_OF_OPERATOR[op] for op in operators]
        role: Role = "path" if "path" in roles else roles[0]
        specs = [expression.varspecs[index] for expression, index in uses]
        prefixes = [s.prefix for s in specs if s.prefix is not None]
        out.append(
            TemplateVariable(
                name=name,
                role=role,
                required=role == "path",
                operators=operators,
                explode=any(s.explode for s in specs),
                prefix=max(prefixes) if prefixes else None,
                reserved=any(op in ("+", "#") for op in operators),
            )
        )
    return tuple(out)


def values_from_inputs(
    variables: Sequence[TemplateVariable], inputs: Mapping[str, str]
) -> tuple[dict[str, object], tuple[str, ...]]:
    """Turn the text typed in each box into template values.

    An empty box (or only spaces) is *undefined*: ``None``, which RFC 6570 §2.3 skips. An exploded
    variable's text is split on commas, each member stripped of surrounding spaces, empty members
    dropped. Any other text is used exactly as typed (spaces included): expansion encodes it.

    Returns:
        ``(values, missing)``: the values by name, and the required variables left empty.

    Example:
        >>> vs = template_variables("files://docs{/path*}{?rev}")
        >>> values_from_inputs(vs, {"path": "guides, returns", "rev": ""})
        ({'path': ['guides', 'returns'], 'rev': None}, ())
    """
    values: dict[str, object] = {}
    missing = []
    for variable in variables:
        text = inputs.get(variable.name) or ""
        value: object
        if not text.strip():
            value = None
        elif variable.explode:
            members = [member.strip() for member in text.split(",")]
            value = [member for member in members if member] or None
        else:
            value = text
        values[variable.name] = value
        if value is None and variable.required:
            missing.append(variable.name)
    return values, tuple(missing)


# --------------------------------------------------------------------------------------------
# Template errors, with a caret under the template
# --------------------------------------------------------------------------------------------


def _visible(text: str) -> str:
    """Control characters as their visible Control Pictures (one character each, so a caret stays
    under the right character): a tab becomes ␉, a newline ␊."""
    return "".join(chr(0x2400 + ord(c)) if ord(c) < 0x20 else "\u2421" if ord(c) == 0x7F else c for c in text)


@dataclass(frozen=True)
class TemplateProblem:
    """Why a template (or a value given to it) was refused, and where.

    Attributes:
        template: the template text.
        position: 0-based index of the offending character, or ``None``.
        reason: the engine's message, without the trailing "at position N in URI template ...".
        error_type: the exception's class name (``"UriTemplateError"``).
    """

    template: str
    position: int | None
    reason: str
    error_type: str = "UriTemplateError"

    def caret(self) -> str:
        """The template on one line and a ``^`` under the offending character on the next.

        Example:
            >>> print(template_problem(parse_error("orders://{order-id}")).caret())
            orders://{order-id}
                           ^ position 15
        """
        shown = _visible(self.template)
        if self.position is None:
            return shown
        return f"{shown}\n{' ' * self.position}^ position {self.position}"

    def __str__(self) -> str:
        where = "" if self.position is None else f" at position {self.position}"
        return f"{self.reason}{where}"


def template_problem(error: UriTemplateError) -> TemplateProblem:
    """A :class:`TemplateProblem` from the engine's error.

    Example:
        >>> problem = template_problem(parse_error("x://{a"))
        >>> problem.position, problem.reason
        (4, "expected '}' to close this '{'")
    """
    where = "" if error.position is None else f" at position {error.position}"
    suffix = f"{where} in URI template {error.template!r}"
    message = str(error)
    reason = message[: -len(suffix)] if message.endswith(suffix) else message
    return TemplateProblem(error.template, error.position, reason, type(error).__name__)


def parse_error(template: str) -> UriTemplateError:
    """The error ``parse(template)`` raises (for doctests and notebooks).

    Raises:
        ValueError: when the template is valid (there is no error to return).
    """
    try:
        parse(template)
    except UriTemplateError as error:
        return error
    raise ValueError(f"{template!r} is a valid URI template; there is no error to show")


# --------------------------------------------------------------------------------------------
# The preview
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preview:
    """What the form's current inputs expand to.

    Attributes:
        template: the template text.
        variables: its variables (empty when the template is invalid).
        values: the values the inputs gave (``None`` = undefined).
        uri: the expanded URI, or ``None`` when the template is invalid.
        missing: required variables left empty.
        problem: the template error, or ``None``.
        unencodable: variables whose text has no UTF-8 form (a lone surrogate), so it cannot be
            percent-encoded (RFC 6570 §1.6 encodes values as UTF-8).
    """

    template: str
    variables: tuple[TemplateVariable, ...]
    values: dict[str, object] = field(default_factory=dict)
    uri: str | None = None
    missing: tuple[str, ...] = ()
    problem: TemplateProblem | None = None
    unencodable: tuple[str, ...] = ()

    @property
    def ready(self) -> bool:
        """True when the URI can be read: a valid template and every required variable filled."""
        return self.problem is None and bool(self.uri) and not self.missing and not self.unencodable

    @property
    def message(self) -> str:
        """One plain sentence about the state of the form."""
        if self.problem is not None:
            return f"The template is not valid: {self.problem}."
        if self.unencodable:
            return (
                f"The value of {', '.join(self.unencodable)} holds a character with no UTF-8 "
                "form (a lone surrogate), so it cannot be percent-encoded; retype it."
            )
        if self.missing:
            names = ", ".join(self.missing)
            verb = "is" if len(self.missing) == 1 else "are"
            return (
                f"{names} {verb} required: fill {'it' if len(self.missing) == 1 else 'them'} "
                f"in to read. Left empty, a variable is undefined and RFC 6570 drops it, so the "
                f"URI would be {self.uri!r}, which names no record."
            )
        if not self.uri:
            return "Type or pick a template first: an empty template makes an empty URI."
        return f"Ready to read {self.uri}."


def _utf8_encodable(value: object) -> bool:
    texts = value if isinstance(value, list) else [value]
    try:
        for text in texts:
            if isinstance(text, str):
                text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def preview(template: str, inputs: Mapping[str, str]) -> Preview:
    """Expand ``template`` with the text typed in each input; never raises for a bad template.

    Example:
        >>> preview("orders://{order_id}", {"order_id": "A-1002"}).uri
        'orders://A-1002'
        >>> p = preview("orders://{order_id}", {"order_id": ""})
        >>> p.ready, p.missing, p.uri
        (False, ('order_id',), 'orders://')
        >>> preview("crm://customer/{id}", {"id": "../../kb/shipping"}).uri
        'crm://customer/..%2F..%2Fkb%2Fshipping'
    """
    try:
        parsed = parse(template)
        variables = template_variables(parsed)
    except UriTemplateError as error:
        return Preview(template, (), problem=template_problem(error))
    values, missing = values_from_inputs(variables, inputs)
    unencodable = tuple(name for name, value in values.items() if not _utf8_encodable(value))
    if unencodable:
        return Preview(template, variables, values, None, missing, unencodable=unencodable)
    try:
        uri = expand(parsed, values)
    except UriTemplateError as error:  # e.g. a prefix on an exploded list (§2.4.1)
        return Preview(template, variables, values, None, missing, template_problem(error))
    return Preview(template, variables, values, uri, missing)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadOutcome:
    """What pressing **Read** gave.

    Attributes:
        status: ``"read"`` (contents came back), ``"not-found"`` (error -32602), or
            ``"not-ready"`` (nothing was read: a required variable is empty or the template is
            invalid).
        uri: the URI that was (or would have been) read.
        result: the :class:`~custody_lab.protocol.catalog.ReadResult`, when read.
        error: the :class:`~custody_lab.protocol.catalog.ResourceNotFound`, when not found.
        message: one plain sentence.
    """

    status: Literal["read", "not-found", "not-ready"]
    uri: str | None
    result: ReadResult | None = None
    error: ResourceNotFound | None = None
    message: str = ""

    @property
    def error_object(self) -> dict[str, Any] | None:
        """The JSON-RPC ``error`` object for a missing resource, else ``None``."""
        return None if self.error is None else self.error.to_error()

    @property
    def image(self) -> tuple[bytes, str] | None:
        """``(bytes, format)`` when the content is an image the reader draws, else ``None``.

        What is drawn follows the bytes (sniffed), never the declared type.
        """
        if self.result is None or self.result.transport != "blob":
            return None
        try:
            reading = read_contents(self.result.item)
        except BlobError:
            return None
        drawn = DRAWN_IMAGES.get(reading.sniffed_mime or "")
        return None if drawn is None else (reading.data, drawn)


def read_preview(catalog: Catalog, current: Preview) -> ReadOutcome:
    """Read the previewed URI, unless the form is not ready (then nothing is read).

    Example:
        >>> outcome = read_preview(Catalog.load(), preview("orders://{order_id}", {"order_id": "A-9999"}))
        >>> outcome.status, outcome.error_object["code"]
        ('not-found', -32602)
    """
    if not current.ready:
        return ReadOutcome("not-ready", current.uri, message=current.message)
    assert current.uri is not None  # ready implies a URI
    try:
        result = catalog.read(current.uri)
    except ResourceNotFound as error:
        return ReadOutcome(
            "not-found", current.uri, error=error, message=f"Resource not found (-32602): {error.reason}."
        )
    return ReadOutcome(
        "read", current.uri, result=result, message=f"Read {current.uri}: {result.size:,} bytes as {result.transport}."
    )


def read_template(catalog: Catalog, template: str, inputs: Mapping[str, str]) -> ReadOutcome:
    """:func:`preview` then :func:`read_preview`, in one call.

    Example:
        >>> read_template(Catalog.load(), "orders://{order_id}", {"order_id": "A-1002"}).result.params
        {'order_id': 'A-1002'}
    """
    return read_preview(catalog, preview(template, inputs))


# --------------------------------------------------------------------------------------------
# HTML (every untrusted string escaped)
# --------------------------------------------------------------------------------------------


def variables_html(variables: Sequence[TemplateVariable]) -> str:
    """The variables as a small table: name, role, required or optional, and a warning for ``+``/``#``.

    Example:
        >>> "optional" in variables_html(template_variables("logs://{service}{?level}"))
        True
    """
    e = html.escape
    rows = []
    for v in variables:
        ops = ", ".join("{" + op + v.name + "}" for op in v.operators)
        note = ""
        if v.reserved:
            note = (
                "⚠ reserved expansion: '/', '?' and '#' in the value pass through unencoded, "
                "so the value can leave its segment; never fill it from untrusted input"
            )
        elif v.explode:
            note = "exploded: type a comma-separated list; each member becomes its own piece"
        rows.append(
            f"<tr><td><code>{e(v.name)}</code></td><td>{e(v.role)}</td>"
            f"<td>{'required' if v.required else 'optional'}</td><td><code>{e(ops)}</code></td>"
            f"<td><small>{e(note)}</small></td></tr>"
        )
    head = "<tr><th>variable</th><th>role</th><th>needed</th><th>used as</th><th></th></tr>"
    return f'<table class="custody-variables" style="font-family:sans-serif">{head}{"".join(rows)}</table>'


def problem_html(problem: TemplateProblem) -> str:
    """A template error: the reason, and the template with a caret under the offending character.

    Example:
        >>> page = problem_html(template_problem(parse_error("x://<b>{a}")))
        >>> "<b>" not in page.replace("<b>⚠", "") and "&lt;b&gt;" in page
        True
    """
    e = html.escape
    return (
        f'<div class="custody-error custody-template-error" style="{_ERROR_STYLE};{_BOX}">'
        f"<b>⚠ This template is not valid</b> ({e(problem.error_type)}): {e(str(problem))}"
        f'<pre style="margin:4px 0;background:none">{e(problem.caret())}</pre>'
        "<small>Nothing is read until the template is fixed; the inputs keep their values.</small>"
        "</div>"
    )


def preview_html(current: Preview) -> str:
    """The expanded URI (escaped), what each variable became, and whether it can be read.

    Example:
        >>> "orders://A-1002" in preview_html(preview("orders://{order_id}", {"order_id": "A-1002"}))
        True
    """
    e = html.escape
    if current.problem is not None:
        return problem_html(current.problem)
    parts = []
    for v in current.variables:
        value = current.values.get(v.name)
        shown = "<i>undefined (skipped)</i>" if value is None else f"<code>{e(repr(value))}</code>"
        parts.append(f"<code>{e(v.name)}</code> = {shown}")
    state = (
        '<span style="color:#14532d">✓ ready to read</span>'
        if current.ready
        else f'<span style="color:#7f1d1d">✗ not ready</span> — {e(current.message)}'
    )
    return (
        f'<div class="custody-preview" style="{_BOX}">'
        f"<div><b>URI:</b> <code>{e(current.uri or '')}</code></div>"
        f"<div><small>{' · '.join(parts) or 'no variables'}</small></div>"
        f"<div><small>{state}</small></div></div>"
    )


def _facts_html(result: ReadResult) -> str:
    e = html.escape
    rows = [
        ("uri", result.uri),
        ("template", result.template.uri_template if result.template else "(a listed resource)"),
        ("parameters", json.dumps(result.params, ensure_ascii=False) if result.params else "—"),
        ("mimeType", result.mime_type or "(none)"),
        ("carried as", result.transport),
        ("size", f"{result.size:,} bytes"),
        ("sha256", result.sha256[:16] + "…"),
    ]
    body = "".join(
        f'<tr><th style="text-align:left;padding-right:10px">{e(k)}</th><td><code>{e(v)}</code></td></tr>'
        for k, v in rows
    )
    return f'<table class="custody-read-facts" style="font-family:sans-serif">{body}</table>'


def outcome_html(outcome: ReadOutcome) -> str:
    """The result of **Read**: the contents (escaped text, or a note that an image is drawn below,
    or a hex preview), or the JSON-RPC error -32602 with the URI, or why nothing was read.

    Example:
        >>> page = outcome_html(read_template(Catalog.load(), "orders://{order_id}", {"order_id": "A-9999"}))
        >>> "-32602" in page and "Resource not found" in page and "orders://A-9999" in page
        True
    """
    e = html.escape
    if outcome.status == "not-ready":
        return (
            f'<div class="custody-not-ready" style="{_NOTE_STYLE};{_BOX}"><b>Nothing was read.</b> '
            f"{e(outcome.message)}</div>"
        )
    if outcome.status == "not-found":
        error = json.dumps(outcome.error_object, indent=2, ensure_ascii=False)
        reason = outcome.error.reason if outcome.error is not None else ""
        return (
            f'<div class="custody-error custody-not-found" style="{_ERROR_STYLE};{_BOX}">'
            f"<b>✗ Error -32602 · Resource not found</b> for <code>{e(outcome.uri or '')}</code>"
            f'<pre style="margin:4px 0;background:none">{e(error)}</pre>'
            f"<small>why: {e(reason)}. A missing record is an error, never an empty answer.</small>"
            "</div>"
        )
    result = outcome.result
    assert result is not None  # status "read"
    head = (
        f'<div class="custody-read" style="{_OK_STYLE};{_BOX}"><b>✓ Read</b> '
        f"<code>{e(result.uri)}</code>{_facts_html(result)}</div>"
    )
    if result.text is not None:
        return head + untrusted_text_html(result.text, result.uri)
    if outcome.image is not None:
        return head + (
            f'<div style="{_BOX}"><small>An image ({e(outcome.image[1])}, '
            f"{result.size:,} bytes): drawn below as a picture.</small></div>"
        )
    return head + (
        f'<div style="{_BOX}"><b>hex preview</b><pre style="margin:4px 0">'
        f"{e(hex_preview(result.data, 128))}</pre></div>"
    )


# --------------------------------------------------------------------------------------------
# Notebook 03 helpers: the operator table, listing cost, and a side-by-side with another engine
# --------------------------------------------------------------------------------------------

#: The values the operator table expands (lab data: an order, a log day, a folder path...).
EXAMPLE_VALUES: dict[str, object] = {
    "order_id": "A-1002",
    "name": "returns policy/v2",
    "segments": ["guides", "returns"],
    "day": "2026-09-04",
    "level": None,
    "limit": 50,
    "empty": "",
    "filter": {"status": "shipped", "tier": "plus"},
}

#: (operator as written, what it is, RFC 6570 section, template) for the table.
_EXAMPLES: tuple[tuple[str, str, str, str], ...] = (
    ("{var}", "simple", "§3.2.2", "orders://{order_id}"),
    ("{var}", "simple", "§3.2.2", "kb://{name}"),
    ("{+var}", "reserved", "§3.2.3", "kb://{+name}"),
    ("{#var}", "fragment", "§3.2.4", "kb://handbook/v4{#name}"),
    ("{.var}", "label", "§3.2.5", "files://report{.day}"),
    ("{/var}", "path segment", "§3.2.6", "files://docs{/segments}"),
    ("{/var*}", "path segments, exploded", "§3.2.6", "files://docs{/segments*}"),
    ("{;var}", "path-style parameter", "§3.2.7", "logs://api{;day,level,empty}"),
    ("{?var}", "form-style query", "§3.2.8", "logs://api/2026-09-04{?level,limit}"),
    ("{?var}", "form-style query", "§3.2.8", "logs://api/2026-09-04{?empty}"),
    ("{&var}", "query continuation", "§3.2.9", "logs://api/2026-09-04?page=2{&limit}"),
    ("{var:n}", "prefix", "§2.4.1", "orders://{order_id:1}"),
    ("{?var*}", "query, exploded map", "§2.4.2", "search://orders{?filter*}"),
    ("{?var}", "query, map not exploded", "§2.4.2", "search://orders{?filter}"),
)


def operator_examples(values: Mapping[str, object] | None = None) -> list[dict[str, str]]:
    """One row per example: the operator, its name, the RFC section, the template and its
    expansion, computed by :func:`custody_lab.uri_templates.expand` with :data:`EXAMPLE_VALUES`.

    Example:
        >>> rows = operator_examples()
        >>> rows[1]["template"], rows[1]["expands to"]
        ('kb://{name}', 'kb://returns%20policy%2Fv2')
    """
    used = EXAMPLE_VALUES if values is None else values
    return [
        {"operator": op, "kind": kind, "RFC 6570": section, "template": template, "expands to": expand(template, used)}
        for op, kind, section, template in _EXAMPLES
    ]


@dataclass(frozen=True)
class ListingCost:
    """What listing every record costs, against publishing one template.

    Attributes:
        count: how many records would be listed.
        item: one ``resources/list`` item as a record would appear.
        item_bytes: its compact JSON size.
        listing_bytes: ``count * item_bytes`` (every item is about that size).
        template_bytes: the compact JSON size of the ``resources/templates/list`` item.
    """

    count: int
    item: dict[str, str]
    item_bytes: int
    listing_bytes: int
    template_bytes: int

    @property
    def ratio(self) -> float:
        """How many times larger the listing is than the template."""
        return self.listing_bytes / self.template_bytes


def _compact(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def listing_cost(entry: TemplateEntry, sample: Mapping[str, object], count: int = 1_000_000) -> ListingCost:
    """Estimate the size of a ``resources/list`` answer naming ``count`` records one by one.

    Seed 000 ("Separate listed resources from URI templates"): avoid listing millions of instances
    merely because pagination allows it; a template describes the whole family in one entry.

    Example:
        >>> entry = Catalog.load().template("orders://{order_id}")
        >>> cost = listing_cost(entry, {"order_id": "A-1002"})
        >>> cost.item["uri"], cost.listing_bytes > 50_000_000
        ('orders://A-1002', True)
    """
    uri = expand(entry.uri_template, sample)
    item = {"uri": uri, "name": f"{entry.name} {uri.rsplit('/', 1)[-1]}"}
    if entry.mime_type is not None:
        item["mimeType"] = entry.mime_type
    size = _compact(item)
    return ListingCost(count, item, size, count * size, _compact(entry.to_dict()))


def describe_error(error: BaseException, limit: int = 120) -> str:
    """An exception as a short table cell: ``raises Name at N: reason`` (never the whole template).

    Example:
        >>> describe_error(parse_error("orders://{order-id}"))
        "raises UriTemplateError at 15: expected ',', ':', '*' or '}' after variable 'order', found '-'"
    """
    position = getattr(error, "position", None)
    template = getattr(error, "template", None)
    message = str(error)
    for tail in (f" in URI template {template!r}", f" at position {position}"):
        if template is not None and message.endswith(tail):
            message = message[: -len(tail)]
    where = "" if not isinstance(position, int) else f" at {position}"
    text = f"raises {type(error).__name__}{where}: {message}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(call: Callable[[], object], limit: int = 80) -> str:
    """Run one engine call; its value as ``repr``, or the exception as a table cell.

    Only ``ValueError`` (template errors in both engines) and ``TypeError`` (values an engine does
    not accept) are shown as cells; anything else is a bug and propagates.
    """
    try:
        return repr(call())
    except (ValueError, TypeError) as error:
        return describe_error(error, limit)


#: Templates where engines part ways, as ``(template, values, uri to match)``; notebook 03 runs the
#: lab's engine and the MCP SDK's on them with :func:`compare_engines`.
TRICKY_CASES: tuple[tuple[str, dict[str, object], str], ...] = (
    # both agree: a slash in a simple value is encoded, and decoded back
    ("orders://{order_id}", {"order_id": "A/1"}, "orders://A%2F1"),
    # '.' can be inside {name} and starts {.ext}: the SDK picks the last dot, the lab refuses
    ("files://{name}{.ext}", {"name": "report", "ext": "tar.gz"}, "files://report.tar.gz"),
    # extra or reordered query parameters: the SDK ignores them, the lab matches strictly
    ("logs://{service}{?level}", {"service": "api", "level": "error"}, "logs://api?utm=x&level=error"),
    # a reserved value holding '?': the lab reads it back, the SDK stops the path at '?'
    ("docs://{+path}", {"path": "a/b?x=1"}, "docs://a/b?x=1"),
    # level 4 features the SDK does not parse: a prefix, an exploded query
    ("orders://{order_id:4}", {"order_id": "A-1002"}, "orders://A-10"),
    ("search://{?tags*}", {"tags": ["red", "blue"]}, "search://?tags=red&tags=blue"),
    # a space in literal text: the RFC grammar forbids it; the SDK accepts it
    ("kb://my docs/{id}", {"id": "a"}, "kb://my docs/a"),
    # a '-' in a variable name: both refuse, and point at different places
    ("orders://{order-id}", {"order-id": "A"}, "orders://A"),
)


def compare_engines(
    cases: Iterable[tuple[str, Mapping[str, object], str]],
    other_parse: Callable[[str], Any],
    other_name: str = "SDK",
) -> list[dict[str, str]]:
    """Run the lab's engine and another one side by side on ``(template, values, uri)`` cases.

    ``other_parse(template)`` must return an object with ``expand(values)`` and ``match(uri)``
    (as the MCP SDK's ``mcp.shared.uri_template.UriTemplate.parse`` does). An exception in either
    engine becomes a table cell (``raises InvalidUriTemplate: ...``), never a crash.

    Returns:
        One row per case: template, values, "lab: expand", "<other>: expand", uri,
        "lab: match", "<other>: match".

    Example:
        >>> rows = compare_engines([("orders://{order_id}", {"order_id": "A-1"}, "orders://A-1")], parse)
        >>> rows[0]["lab: match"], rows[0]["SDK: match"]
        ("{'order_id': 'A-1'}", "{'order_id': 'A-1'}")
    """
    rows = []
    for template, values, uri in cases:
        t, v, u = template, values, uri
        rows.append(
            {
                "template": template,
                "values": repr(dict(values)),
                "lab: expand": _cell(lambda t=t, v=v: expand(t, v)),
                f"{other_name}: expand": _cell(lambda t=t, v=v: other_parse(t).expand(v)),
                "uri": uri,
                "lab: match": _cell(lambda t=t, u=u: parse(t).match(u)),
                f"{other_name}: match": _cell(lambda t=t, u=u: other_parse(t).match(u)),
            }
        )
    return rows
