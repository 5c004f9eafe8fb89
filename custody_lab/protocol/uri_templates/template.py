"""Parsing: a URI template read once into literal text and ``{...}`` expressions (RFC 6570 §2).

``parse`` reads the template left to right, checking every character against the RFC 6570
grammar. Anything the grammar forbids raises :class:`~.errors.UriTemplateError` whose
``position`` is the index of the offending character; parsed templates are cached
(:class:`~.cache.BoundedCache`). The result is a :class:`UriTemplate` of literal strings and
:class:`Expression` parts, each expression an operator and its :class:`VarSpec` variables. The
operator table of RFC 6570 Appendix A (:data:`OPERATORS`) and the character classes of §1.5 live
here too, for expansion and matching to read.

Decisions where RFC 6570 leaves room:

* Literal text: the grammar (§2.1) forbids controls, space, ``"``, ``<``, ``>``, ``\\``, ``^``,
  a backquote, ``{``, ``|``, ``}`` and a ``%`` that does not start a ``%XX`` triplet. These raise
  instead of being silently encoded. The apostrophe ``'`` is allowed and copied, as RFC 6570
  erratum 6937 (verified) corrects §2.1's ranges to ``%x26-3B``; the RFC's own ``'{var}'``
  example and the ``uritemplate-test`` suite rely on it. Non-ASCII letters
  (``ucschar``/``iprivate``) are allowed and percent-encoded on expansion.
* A prefix length is 1 to :data:`MAX_PREFIX_LENGTH` (§2.4.1: ``max-length = %x31-39 0*3DIGIT``),
  without leading zeros; a variable has a prefix or an explode modifier, never both (§2.4).
"""

from __future__ import annotations

__all__ = [
    "MAX_EXPRESSIONS",
    "MAX_PREFIX_LENGTH",
    "MAX_TEMPLATE_LENGTH",
    "MAX_URI_LENGTH",
    "MAX_VARIABLES",
    "OPERATORS",
    "RESERVED",
    "UNRESERVED",
    "Expression",
    "Operator",
    "UriTemplate",
    "VarSpec",
    "check_length",
    "check_size",
    "is_triplet",
    "parse",
]

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from .cache import BoundedCache
from .errors import UriTemplateError, UriTemplateTypeError, short_name


class Operator(NamedTuple):
    """How one expression type expands: a row of RFC 6570 Appendix A."""

    first: str
    sep: str
    named: bool
    ifemp: str
    allow_reserved: bool


# RFC 6570 Appendix A: how each expression type expands.
OPERATORS: dict[str, Operator] = {
    "": Operator("", ",", False, "", False),  # §3.2.2 Simple String Expansion
    "+": Operator("", ",", False, "", True),  # §3.2.3 Reserved Expansion
    "#": Operator("#", ",", False, "", True),  # §3.2.4 Fragment Expansion
    ".": Operator(".", ".", False, "", False),  # §3.2.5 Label Expansion with Dot-Prefix
    "/": Operator("/", "/", False, "", False),  # §3.2.6 Path Segment Expansion
    ";": Operator(";", ";", True, "", False),  # §3.2.7 Path-Style Parameter Expansion
    "?": Operator("?", "&", True, "=", False),  # §3.2.8 Form-Style Query Expansion
    "&": Operator("&", "&", True, "=", False),  # §3.2.9 Form-Style Query Continuation
}
_RESERVED_OPERATORS = frozenset("=,!@|")  # §2.2: op-reserve, kept for future extensions

UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")  # §1.5
RESERVED = frozenset(":/?#[]@!$&'()*+,;=")  # §1.5: gen-delims and sub-delims
_LITERAL_ASCII = UNRESERVED | RESERVED  # §2.1 literals, ASCII part, with erratum 6937's "'"
_VARCHAR = frozenset(string.ascii_letters + string.digits + "_")  # §2.3, besides pct-encoded
_HEXDIG = frozenset(string.hexdigits)
#: The longest prefix modifier (``{var:9999}``): RFC 6570 §2.4.1 allows at most four digits.
MAX_PREFIX_LENGTH = 9999
#: The longest template ``expand`` and ``match`` read, in characters (the MCP SDK's default too).
MAX_TEMPLATE_LENGTH = 8_192
#: The most ``{...}`` expressions a template ``expand`` and ``match`` read may hold.
MAX_EXPRESSIONS = 128
#: The most variables a template ``expand`` and ``match`` read may hold, over all its expressions (the MCP
#: SDK's default too): one ``{?v0,v1,...}`` cannot pack thousands under one expression.
MAX_VARIABLES = 256
#: The longest URI ``match`` reads and ``expand`` writes, in characters (the MCP SDK's default too);
#: a longer one does not match, and is not written.
MAX_URI_LENGTH = 65_536


@dataclass(frozen=True)
class VarSpec:
    """One variable of an expression: ``name``, ``name:3`` or ``name*`` (§2.3, §2.4)."""

    name: str
    prefix: int | None = None
    explode: bool = False
    position: int = 0  # index of the name in the template

    def __str__(self) -> str:
        if self.prefix is not None:
            return f"{self.name}:{self.prefix}"
        return f"{self.name}*" if self.explode else self.name


@dataclass(frozen=True)
class Expression:
    """A ``{...}`` expression: an operator ("" for simple) and its varspecs (§2.2)."""

    operator: str
    varspecs: tuple[VarSpec, ...]
    position: int = 0  # index of the "{" in the template

    def __str__(self) -> str:
        return "{" + self.operator + ",".join(map(str, self.varspecs)) + "}"


@dataclass(frozen=True)
class UriTemplate:
    """A parsed template: literal strings and ``Expression`` parts, in order."""

    template: str
    parts: tuple[str | Expression, ...]

    @property
    def variable_names(self) -> tuple[str, ...]:
        """Variable names in order of first appearance."""
        return tuple(
            dict.fromkeys(spec.name for part in self.parts if isinstance(part, Expression) for spec in part.varspecs)
        )

    variables = variable_names

    def expand(self, variables: Mapping[str, object]) -> str:
        """Expand this template; see :func:`~.expansion.expand`."""
        from .expansion import expand  # expansion reads this module: imported when first used

        return expand(self, variables)

    def match(self, uri: str) -> dict[str, object] | None:
        """Match ``uri`` against this template; see :func:`~.matching.match`."""
        from .matching import match  # matching reads this module: imported when first used

        return match(self, uri)

    def __str__(self) -> str:
        return self.template


def is_triplet(text: str, index: int) -> bool:
    """Whether ``text[index:index + 3]`` is a pct-encoded triplet such as ``%2F`` (§1.5).

    >>> is_triplet("a%2Fb", 1), is_triplet("a%2", 1), is_triplet("%zz", 0)
    (True, False, False)
    """
    digits = text[index + 1 : index + 3]
    return text[index] == "%" and len(digits) == 2 and all(digit in _HEXDIG for digit in digits)


def _is_ucschar_or_iprivate(codepoint: int) -> bool:
    """The non-ASCII characters §2.1 allows in literals (ucschar / iprivate of RFC 3987)."""
    if codepoint < 0x10000:  # BMP: A0-D7FF, E000-FDCF (iprivate + ucschar), FDF0-FFEF
        return 0xA0 <= codepoint <= 0xD7FF or 0xE000 <= codepoint <= 0xFDCF or 0xFDF0 <= codepoint <= 0xFFEF
    if 0xE0000 <= codepoint <= 0xE0FFF:  # plane 14 starts at E1000
        return False
    return codepoint & 0xFFFF <= 0xFFFD  # each plane ends at xFFFD


def parse(template: str) -> UriTemplate:
    """Parse a URI template, checking it against the RFC 6570 grammar.

    Args:
        template: Template text such as ``"orders://{order_id}"``.

    Returns:
        The parsed, immutable ``UriTemplate`` (cached per template string).

    Raises:
        UriTemplateError: The template is invalid; ``.position`` points at
            the offending character.
        UriTemplateTypeError: ``template`` is not a ``str``.

    >>> parse("logs://{service}{?level}").variable_names
    ('service', 'level')
    """
    if not isinstance(template, str):
        raise UriTemplateTypeError(f"a URI template is text (str), got {type(template).__name__}", repr(template))
    cached = _PARSED.get(template)
    if cached is None:
        cached = _parse(template)
        _PARSED.put(template, cached, len(template))
    return cached


#: Parsed templates, 512 entries and 1 Mi template characters at most.
_PARSED: BoundedCache[str, UriTemplate] = BoundedCache()


def _parse(template: str) -> UriTemplate:
    """:func:`parse` for a ``str``, uncached."""
    parts: list[str | Expression] = []
    literal_start = index = 0
    while index < len(template):
        char = template[index]
        if char == "{":
            close = _find_closing_brace(template, index)
            if index > literal_start:
                parts.append(template[literal_start:index])
            parts.append(_parse_expression(template, index, close))
            index = literal_start = close + 1
            continue
        if char == "}":
            raise UriTemplateError("unexpected '}' with no '{' before it", template, index)
        if char == "%":  # §2.1: pct-encoded is allowed in literals
            if not is_triplet(template, index):
                raise UriTemplateError("expected two hex digits after '%'", template, index)
            index += 3
            continue
        if char not in _LITERAL_ASCII and not _is_ucschar_or_iprivate(ord(char)):
            raise UriTemplateError(
                f"character {char!r} is not allowed in a URI template literal (RFC 6570 §2.1); "
                "expected it percent-encoded",
                template,
                index,
            )
        index += 1
    if literal_start < len(template):
        parts.append(template[literal_start:])
    return UriTemplate(template, tuple(parts))


def _find_closing_brace(template: str, open_index: int) -> int:
    """Index of the ``}`` closing the expression opened at ``open_index`` (§2.2: no nesting)."""
    for index in range(open_index + 1, len(template)):
        if template[index] == "{":
            raise UriTemplateError("expected '}' before another '{' (expressions cannot nest)", template, index)
        if template[index] == "}":
            return index
    raise UriTemplateError("expected '}' to close this '{'", template, open_index)


def _parse_expression(template: str, open_index: int, close: int) -> Expression:
    """Parse ``template[open_index:close + 1]``: an operator, then a variable-list (§2.2)."""
    index = open_index + 1
    operator = template[index]
    if operator in _RESERVED_OPERATORS:
        raise UriTemplateError(
            f"operator {operator!r} is reserved for future extensions (RFC 6570 §2.2); "
            "expected one of + # . / ; ? & or a variable name",
            template,
            index,
        )
    if operator in OPERATORS:
        index += 1
    else:
        operator = ""
    varspecs = []
    while True:
        varspec, index = _parse_varspec(template, index)
        varspecs.append(varspec)
        if index == close:
            return Expression(operator, tuple(varspecs), open_index)
        index += 1  # the ","


def _parse_varspec(template: str, index: int) -> tuple[VarSpec, int]:
    """Parse ``varname [":" max-length / "*"]`` at ``index``; return it and the index after (§2.3, §2.4)."""
    start = index
    expected = "a variable name (letters, digits, '_' or %XX)"
    while True:  # varname = varchar *( ["."] varchar )
        if template[index] in _VARCHAR:
            index += 1
        elif is_triplet(template, index):
            index += 3
        elif template[index] == "%":
            raise UriTemplateError("expected two hex digits after '%' in a variable name", template, index)
        else:
            raise UriTemplateError(f"expected {expected}, found {template[index]!r}", template, index)
        while template[index] in _VARCHAR or is_triplet(template, index):
            index += 3 if template[index] == "%" else 1
        if template[index] != ".":
            break
        index += 1
        expected = "a letter, digit, '_' or %XX after '.' in a variable name"
    name = template[start:index]
    prefix, explode, after = None, False, "',', ':', '*' or '}'"
    if template[index] == ":":  # §2.4.1 Prefix Values
        digits_start = index = index + 1
        while template[index] in string.digits:
            index += 1
        digits = template[digits_start:index]
        too_long = len(digits) > len(str(MAX_PREFIX_LENGTH))  # before int(): 5,000 digits cannot convert
        if not digits or digits[0] == "0" or too_long or int(digits) > MAX_PREFIX_LENGTH:
            raise UriTemplateError(
                f"expected a prefix length from 1 to {MAX_PREFIX_LENGTH} without leading zeros "
                f"after '{short_name(name)}:'",
                template,
                digits_start,
            )
        if template[index] == "*":
            raise UriTemplateError(
                f"expected ',' or '}}' after '{short_name(name)}:{digits}': a variable cannot have both a prefix "
                "and an explode modifier (RFC 6570 §2.4)",
                template,
                index,
            )
        prefix, after = int(digits), "',' or '}'"
    elif template[index] == "*":  # §2.4.2 Composite Values
        explode, after, index = True, "',' or '}'", index + 1
    if template[index] == "%" and prefix is None and not explode:
        raise UriTemplateError("expected two hex digits after '%' in a variable name", template, index)
    if template[index] not in ",}":
        raise UriTemplateError(
            f"expected {after} after variable {short_name(name)!r}, found {template[index]!r}", template, index
        )
    return VarSpec(name, prefix, explode, start), index


def check_length(template: str) -> None:
    """Raise ``UriTemplateError`` for template text over :data:`MAX_TEMPLATE_LENGTH` characters."""
    if len(template) > MAX_TEMPLATE_LENGTH:
        raise UriTemplateError(
            f"the template is {len(template):,} characters long, over the {MAX_TEMPLATE_LENGTH:,} "
            "that expand and match read (MAX_TEMPLATE_LENGTH)",
            template,
        )


def check_size(template: UriTemplate) -> None:
    """Raise ``UriTemplateError`` for a template over one of the limits ``expand`` and ``match``
    share (its length, its expressions, its variables)."""
    check_length(template.template)
    expressions = [part for part in template.parts if isinstance(part, Expression)]
    if len(expressions) > MAX_EXPRESSIONS:
        raise UriTemplateError(
            f"the template holds {len(expressions):,} expressions, over the {MAX_EXPRESSIONS:,} that "
            "expand and match read (MAX_EXPRESSIONS); this is the first one past the limit",
            template.template,
            expressions[MAX_EXPRESSIONS].position,
        )
    specs = [spec for expression in expressions for spec in expression.varspecs]
    if len(specs) > MAX_VARIABLES:
        raise UriTemplateError(
            f"the template holds {len(specs):,} variables, over the {MAX_VARIABLES:,} that expand and match read "
            "(MAX_VARIABLES); this is the first one past the limit",
            template.template,
            specs[MAX_VARIABLES].position,
        )
