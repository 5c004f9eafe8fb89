"""Expansion: a parsed template and variable values turned into a URI (RFC 6570 §3).

``expand`` walks the parts of the template. Literal text is copied, non-ASCII characters
percent-encoded (§3.1). Each expression is expanded with the operator table of Appendix A
(:data:`~.template.OPERATORS`: ``first``, ``sep``, ``named``, ``ifemp``, ``allow``): values are
encoded as UTF-8 and every byte outside the allowed set becomes an uppercase ``%XX`` triplet
(§1.6, §3.2.1, :func:`encode`).

Values
------
``str`` and ``int`` (through ``str()``) are string values, and so is a finite ``float``, written
as JSON and JavaScript write numbers (``37.76``, ``6`` for ``6.0``, ``1e+21``), so that the values
of the ``uritemplate-test`` suite (``"long": 37.76``) expand as it expects; NaN and infinities
raise. ``list`` and ``tuple`` are lists, any ``Mapping`` is an associative array in insertion
order. ``None``, an empty list and an empty mapping are *undefined*: the variable is skipped
(§2.3), and so is a ``None`` member of a list or mapping. The empty string is defined:
``X{.empty}`` gives ``X.``. A ``bool`` raises ``UriTemplateError`` ("boolean is not a URI
template value"), because ``str(True)`` would quietly put ``True`` in a URI; other types raise
``UriTemplateTypeError`` (both a ``UriTemplateError`` and a ``TypeError``).

Decisions where RFC 6570 leaves room
------------------------------------
* A prefix modifier on a list or associative array raises ``UriTemplateError`` at expansion time
  (§2.4.1: "not applicable").
* A prefix counts Unicode characters. Under ``+`` and ``#`` an existing ``%XX`` triplet counts as
  one character, so it is never cut in half.
* An exploded associative array member with an empty value gives just the key, except under ``?``
  and ``&`` (``key=``), as the normative §3.2.1 says. Keys are encoded like values (§3.2.1), not
  like literals (Appendix A).

Limits
------
``expand`` reads what ``match`` reads (:data:`~.template.MAX_TEMPLATE_LENGTH` characters of
template, :data:`~.template.MAX_EXPRESSIONS` expressions, :data:`~.template.MAX_VARIABLES`
variables) and writes no URI longer than ``match`` reads (:data:`~.template.MAX_URI_LENGTH`):
values whose characters alone would pass that length raise ``UriTemplateError`` before any is
encoded, naming the variable, so the work grows with the URI, never with a value's size.
"""

from __future__ import annotations

__all__ = ["encode", "expand", "expand_parts"]

import math
import re
from collections.abc import Mapping
from decimal import Decimal
from urllib.parse import quote

from .errors import UriTemplateError, UriTemplateTypeError, short_name
from .template import (
    MAX_URI_LENGTH,
    OPERATORS,
    RESERVED,
    Expression,
    Operator,
    UriTemplate,
    VarSpec,
    check_length,
    check_size,
    parse,
)

_CHAR_OR_TRIPLET = re.compile(r"%[0-9A-Fa-f]{2}|.", re.DOTALL)
_TRIPLETS = re.compile(r"(%[0-9A-Fa-f]{2})")
_RESERVED_SAFE = "".join(sorted(RESERVED))

_Value = str | tuple[str, ...] | dict[str, str]


def expand(template: str | UriTemplate, variables: Mapping[str, object]) -> str:
    """Expand a URI template with the given variable values (RFC 6570 §3).

    Args:
        template: Template text or a parsed ``UriTemplate``.
        variables: Values by name: ``str``, ``int``, ``list``/``tuple``,
            ``Mapping`` or ``None`` (undefined); see the module docstring.

    Returns:
        The URI (reference) the template describes for these values.

    Raises:
        UriTemplateError: The template is invalid or over a limit, a value is a ``bool``,
            a prefix modifier is applied to a list or mapping, or the URI would be over
            :data:`~.template.MAX_URI_LENGTH` characters.
        UriTemplateTypeError: A value has an unsupported type, or ``variables``
            is not a mapping (also a ``TypeError``).

    >>> expand("orders://{order_id}", {"order_id": "A-1002"})
    'orders://A-1002'
    >>> expand("logs://{service}{?level,limit}", {"service": "api", "limit": 50})
    'logs://api?limit=50'
    """
    return "".join(text for _, text in expand_parts(template, variables))


def expand_parts(
    template: str | UriTemplate, variables: Mapping[str, object]
) -> tuple[tuple[str | Expression, str], ...]:
    """Each part of the template with the text it expands to; :func:`expand` joins the texts.

    Lets a caller see which expression wrote which characters of the URI (the template reader
    uses it to name the variable behind a dot-segment). Raises as :func:`expand` does.

    >>> [text for _, text in expand_parts("crm://customer/{id}{?v}", {"id": "A 1"})]
    ['crm://customer/', 'A%201', '']
    """
    if isinstance(template, str):
        check_length(template)  # before parsing: a megabyte of template is refused unread
    parsed = template if isinstance(template, UriTemplate) else parse(template)
    check_size(parsed)
    if not isinstance(variables, Mapping):
        raise UriTemplateTypeError(
            f"variables must be a mapping of names to values, got {type(variables).__name__}", parsed.template
        )
    _check_values_fit(parsed, variables)
    parts = tuple(
        (part, encode(part, allow_reserved=True))  # §3.1 Literal Expansion
        if isinstance(part, str)
        else (part, _expand_expression(parsed.template, part, variables))
        for part in parsed.parts
    )
    length = sum(len(text) for _, text in parts)
    if length > MAX_URI_LENGTH:
        raise UriTemplateError(
            f"the expansion is {length:,} characters long, over the {MAX_URI_LENGTH:,} that expand writes and "
            "match reads (MAX_URI_LENGTH)",
            parsed.template,
        )
    return parts


def _chars(value: object) -> int:
    """The fewest characters ``value`` can add to a URI (each character is one or more)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Mapping):
        return sum(_chars(k) + _chars(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return sum(_chars(v) for v in value)
    return 0 if value is None else 1


def _check_values_fit(template: UriTemplate, variables: Mapping[str, object]) -> None:
    """Raise before encoding anything when the values' characters alone would pass MAX_URI_LENGTH
    (a prefix ``{var:3}`` takes at most its length of a string)."""
    total = sum(len(part) for part in template.parts if isinstance(part, str))
    for part in template.parts:
        if isinstance(part, str):
            continue
        for spec in part.varspecs:
            value = variables.get(spec.name)
            chars = _chars(value)
            if spec.prefix is not None and isinstance(value, str):
                chars = min(chars, spec.prefix)
            total += chars
            if total > MAX_URI_LENGTH:
                raise UriTemplateError(
                    f"the value of {short_name(spec.name)!r} makes the URI at least {total:,} characters long, "
                    f"over the {MAX_URI_LENGTH:,} that expand writes and match reads (MAX_URI_LENGTH)",
                    template.template,
                    spec.position,
                )


def encode(text: str, allow_reserved: bool) -> str:
    """Percent-encode ``text``: keep unreserved (plus reserved and triplets if allowed) (§3.2.1).

    >>> encode("a b/%2F", allow_reserved=False), encode("a b/%2F", allow_reserved=True)
    ('a%20b%2F%252F', 'a%20b/%2F')
    """
    if not allow_reserved:
        return quote(text, safe="")  # unreserved kept (§1.5), every other UTF-8 byte as %XX
    # reserved kept too, and an existing %XX triplet copied as it is: quote between the triplets
    pieces = _TRIPLETS.split(text)
    return "".join(piece if n % 2 else quote(piece, safe=_RESERVED_SAFE) for n, piece in enumerate(pieces))


def _scalar(value: object, spec: VarSpec, template: str) -> str:
    if isinstance(value, bool):
        raise UriTemplateError(
            f"boolean is not a URI template value (variable {short_name(spec.name)!r})", template, spec.position
        )
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate has no UTF-8 form to percent-encode
            raise UriTemplateError(
                f"variable {short_name(spec.name)!r} holds a character with no UTF-8 form "
                f"({value[e.start]!r} at index {e.start}); a URI can only carry valid text",
                template,
                spec.position,
            ) from e
        return value
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError as e:  # over Python's int-to-text digit limit (4,300 digits by default)
            raise UriTemplateError(
                f"variable {short_name(spec.name)!r} holds an integer too long to write out ({e})",
                template,
                spec.position,
            ) from e
    if isinstance(value, float):
        return _number_text(value, spec, template)
    raise UriTemplateTypeError(
        f"variable {short_name(spec.name)!r}: expected str, int, float, list, tuple or Mapping, "
        f"got {type(value).__name__}",
        template,
        spec.position,
    )


def _number_text(value: float, spec: VarSpec, template: str) -> str:
    """A finite float as JSON and JavaScript write it (ECMAScript Number::toString): the shortest
    digits that round-trip, ``6`` for ``6.0``, plain decimals from 1e-6 up to 1e21, else ``1e+21``.
    """
    if not math.isfinite(value):
        raise UriTemplateError(
            f"variable {short_name(spec.name)!r} is {value!r}, which is not a number JSON can write; "
            "expected a finite number",
            template,
            spec.position,
        )
    if value == 0:
        return "0"  # -0.0 too, as JavaScript writes it
    _, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    assert isinstance(exponent, int)  # finite
    digits = "".join(map(str, digit_tuple))
    point = exponent + len(digits)  # value = 0.<digits> x 10**point
    sign = "-" if value < 0 else ""
    if len(digits) <= point <= 21:
        return sign + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    mantissa = digits if len(digits) == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{sign}{mantissa}e{'+' if point > 0 else '-'}{abs(point - 1)}"


def _normalize(value: object, spec: VarSpec, template: str) -> _Value | None:
    """Turn a Python value into a string, list or associative array; ``None`` if undefined (§2.3)."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        pairs = {
            _scalar(key, spec, template): _scalar(item, spec, template)
            for key, item in value.items()
            if item is not None
        }
        return pairs or None
    if isinstance(value, (list, tuple)):
        members = tuple(_scalar(member, spec, template) for member in value if member is not None)
        return members or None
    return _scalar(value, spec, template)


def _expand_expression(template: str, expression: Expression, variables: Mapping[str, object]) -> str:
    """Expand one expression with the Appendix A algorithm (§3.2)."""
    operator = OPERATORS[expression.operator]
    pieces = []
    for spec in expression.varspecs:
        value = _normalize(variables.get(spec.name), spec, template)
        if value is not None:  # §3.2.1: undefined variables are skipped
            pieces.append(_expand_varspec(operator, spec, value, template))
    return operator.first + operator.sep.join(pieces) if pieces else ""


def _expand_varspec(operator: Operator, spec: VarSpec, value: _Value, template: str) -> str:
    """Expand one defined variable (§3.2.1 Variable Expansion)."""

    def percent(text: str) -> str:
        return encode(text, operator.allow_reserved)

    def named(name: str, encoded: str) -> str:  # "name=value", or "name" + ifemp when empty
        return f"{name}={encoded}" if encoded else name + operator.ifemp

    if isinstance(value, str):
        if spec.prefix is not None:  # §2.4.1: count characters, never split a %XX triplet
            units = _CHAR_OR_TRIPLET.findall(value) if operator.allow_reserved else list(value)
            value = "".join(units[: spec.prefix])
        return named(spec.name, percent(value)) if operator.named else percent(value)
    if spec.prefix is not None:
        raise UriTemplateError(
            f"prefix modifier ':{spec.prefix}' does not apply to variable {short_name(spec.name)!r}, whose value "
            "is a list or associative array (RFC 6570 §2.4.1)",
            template,
            spec.position,
        )
    if isinstance(value, dict):
        pairs = [(percent(key), percent(item)) for key, item in value.items()]
        if not spec.explode:  # "name,value,name,value"
            joined = ",".join(f"{key},{item}" for key, item in pairs)
            return named(spec.name, joined) if operator.named else joined
        if operator.named:  # §2.4.2: each pair as if it were a separate variable
            return operator.sep.join(named(key, item) for key, item in pairs)
        return operator.sep.join(f"{key}={item}" if item else key for key, item in pairs)
    members = [percent(member) for member in value]
    if not spec.explode:
        joined = ",".join(members)
        return named(spec.name, joined) if operator.named else joined
    if operator.named:  # §3.2.1: each member paired with the list's name
        return operator.sep.join(named(spec.name, member) for member in members)
    return operator.sep.join(members)
