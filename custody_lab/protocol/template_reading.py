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
The views layer renders each step as HTML, every string that came from a user, a catalog entry or
a server escaped (:mod:`custody_lab.views.template_html`); notebook 03's tables (the operator
examples, listing cost, the lab's engine beside another) are in
:mod:`custody_lab.protocol.template_examples`.

What a value can and cannot do to the path: in a simple ``{id}`` expression ``/``, ``?`` and
``#`` are percent-encoded (RFC 6570 §3.2.2), so ``../../kb/shipping`` becomes one segment,
``..%2F..%2Fkb%2Fshipping``, that names no other resource. But ``.`` is unreserved and never
encoded, so a value that *is* ``.`` or ``..`` makes a whole path segment of its own:
``crm://customer/{id}`` with ``..`` gives ``crm://customer/..``, a **dot-segment** that RFC 3986
§5.2.4 removes when the URI is normalised (``..`` with the segment before it).
:func:`~custody_lab.protocol.dot_segments.dot_segments` finds such segments and the variables
behind them, :func:`preview` marks the form not ready, and :func:`read_preview` reads nothing.
That refusal is **the lab's host policy**, on the client
side: the protocol puts the duty on the server (MCP 2026-07-28, resources, Security
Considerations: servers MUST validate all resource URIs), and a careful client need not send what
it can already see is a path trick. Only ``{+var}`` and ``{#var}`` let ``/`` and other reserved
characters through (§3.2.3, §3.2.4); the reader says so beside such an input.
"""

from __future__ import annotations

__all__ = [
    "DRAWN_IMAGES",
    "DotSegment",
    "Preview",
    "ReadOutcome",
    "Role",
    "TemplateProblem",
    "TemplateVariable",
    "dot_segments",
    "parse_error",
    "preview",
    "read_preview",
    "read_template",
    "template_problem",
    "template_variables",
    "values_from_inputs",
]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .blobs import BlobError, read_contents
from .catalog import Catalog, ReadResult, ResourceNotFound
from .dot_segments import DotSegment, dot_segments
from .uri_templates import Expression, UriTemplate, UriTemplateError, expand_parts, parse
from .uri_templates.errors import excerpt_window

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

        A template longer than 80 characters is shown as the 80 around the position, with ``…``
        where it was cut.

        Example:
            >>> print(template_problem(parse_error("orders://{order-id}")).caret())
            orders://{order-id}
                           ^ position 15
        """
        start, end = excerpt_window(len(self.template), self.position)
        cut_before, cut_after = start > 0, end < len(self.template)
        shown = "…" * cut_before + _visible(self.template[start:end]) + "…" * cut_after
        if self.position is None:
            return shown
        column = self.position - start + cut_before
        return f"{shown}\n{' ' * column}^ position {self.position}"

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
    return TemplateProblem(error.template, error.position, error.reason, type(error).__name__)


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
        dot_segments: the ``.`` / ``..`` path segments the values made (:func:`dot_segments`);
            the lab's host policy refuses to read such a URI.
    """

    template: str
    variables: tuple[TemplateVariable, ...]
    values: dict[str, object] = field(default_factory=dict)
    uri: str | None = None
    missing: tuple[str, ...] = ()
    problem: TemplateProblem | None = None
    unencodable: tuple[str, ...] = ()
    dot_segments: tuple[DotSegment, ...] = ()

    @property
    def ready(self) -> bool:
        """True when the URI can be read: a valid template, every required variable filled, and
        no value making a dot-segment."""
        return (
            self.problem is None
            and bool(self.uri)
            and not self.missing
            and not self.unencodable
            and not self.dot_segments
        )

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
        if self.dot_segments:
            return _dot_segment_message(self.dot_segments[0], self.values, self.uri or "")
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


def _dot_segment_message(found: DotSegment, values: Mapping[str, object], uri: str) -> str:
    made_by = " and ".join(f"{name} = {values.get(name)!r}" for name in found.variables)
    return (
        f"Refused: {made_by} makes the path segment {found.segment!r} of {uri!r}, a "
        "dot-segment that URI normalisation removes (RFC 3986 §5.2.4), so the URI would name "
        "another resource than the template describes. Nothing is read: this refusal is the lab's "
        "host policy on the client side; MCP 2026-07-28 requires servers to validate every "
        "resource URI as well."
    )


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
        >>> dotted = preview("crm://customer/{id}", {"id": ".."})
        >>> dotted.uri, dotted.ready, dotted.dot_segments[0].variables
        ('crm://customer/..', False, ('id',))
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
        uri = "".join(text for _, text in expand_parts(parsed, values))
        found = dot_segments(parsed, values)
    except UriTemplateError as error:  # e.g. a prefix on an exploded list (§2.4.1)
        return Preview(template, variables, values, None, missing, template_problem(error))
    return Preview(template, variables, values, uri, missing, dot_segments=found)


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
