"""RFC 6570 URI Templates: expand them, and match URIs back against them.

An MCP server publishes *resource templates* such as ``orders://{order_id}``.
A client fills one in (expansion) to get a URI for ``resources/read``; the
server then has to find which template that URI came from, and with which
values (matching). This module does both, with the standard library only.

How the engine works
--------------------
1. ``parse`` reads the template once, left to right, into literal text and
   ``{...}`` expressions, checking every character against the RFC 6570
   grammar (§2). Anything the grammar forbids raises ``UriTemplateError``
   whose ``position`` is the index of the offending character. Parsed
   templates are cached.
2. ``expand`` walks the parts. Literal text is copied, non-ASCII characters
   percent-encoded (§3.1). Each expression is expanded with the operator
   table of RFC 6570 Appendix A (``first``, ``sep``, ``named``, ``ifemp``,
   ``allow``): values are encoded as UTF-8 and every byte outside the allowed
   set becomes an uppercase ``%XX`` triplet (§1.6, §3.2.1).
3. ``match`` compiles the template into a regular expression with one capture
   group per variable, and percent-decodes what the groups captured.

Values
------
``str`` and ``int`` (through ``str()``) are string values, and so is a
finite ``float``, written as JSON and JavaScript write numbers (``37.76``,
``6`` for ``6.0``, ``1e+21``), so that the values of the ``uritemplate-test``
suite (``"long": 37.76``) expand as it expects; NaN and infinities raise.
``list`` and ``tuple`` are lists, any ``Mapping`` is an associative array in
insertion order. ``None``, an empty list and an empty mapping are *undefined*: the
variable is skipped (§2.3), and so is a ``None`` member of a list or mapping.
The empty string is defined: ``X{.empty}`` gives ``X.``. A ``bool`` raises
``UriTemplateError`` ("boolean is not a URI template value"), because
``str(True)`` would quietly put ``True`` in a URI; other types raise
``UriTemplateTypeError`` (both a ``UriTemplateError`` and a ``TypeError``).
Every error is a ``UriTemplateError``, of the lab's ``CustodyLabError`` family.

Decisions where RFC 6570 leaves room
------------------------------------
* Literal text: the grammar (§2.1) forbids controls, space, ``"``, ``<``,
  ``>``, ``\\``, ``^``, a backquote, ``{``, ``|``, ``}`` and a ``%`` that does
  not start a ``%XX`` triplet. These raise instead of being silently
  encoded. The apostrophe ``'`` is allowed and copied, as RFC 6570 erratum
  6937 (verified) corrects §2.1's ranges to ``%x26-3B``; the RFC's own
  ``'{var}'`` example and the ``uritemplate-test`` suite rely on it.
  Non-ASCII letters (``ucschar``/``iprivate``) are allowed and
  percent-encoded on expansion.
* A prefix modifier on a list or associative array raises
  ``UriTemplateError`` at expansion time (§2.4.1: "not applicable").
* A prefix counts Unicode characters. Under ``+`` and ``#`` an existing
  ``%XX`` triplet counts as one character, so it is never cut in half.
* An exploded associative array member with an empty value gives just the
  key, except under ``?`` and ``&`` (``key=``), as the normative §3.2.1 says.
  Keys are encoded like values (§3.2.1), not like literals (Appendix A).

Which templates can be matched
------------------------------
RFC 6570 §1.4 warns that matching "only works well if the template
expressions are delimited ... by characters that cannot be part of the
expansion". ``match`` turns that advice into rules, and raises
``AmbiguousTemplateError`` (a ``UriTemplateError``) for a template that
breaks one. For every template it accepts, ``match(t, expand(t, values))``
gives ``values`` back, within the limits listed after the rules.

* The end of each expression must be visible: whatever may come right after
  it (the next literal, or the first character of a following expression
  that may expand to nothing) must not be a character the expression itself
  can produce; an optional ``{?...}`` must not be followed by a ``?``.
  ``{a}{b}``, ``{name}{.ext}`` and ``{+path}{id}`` are rejected;
  ``{a}/{b}``, ``{id}{?q}``, ``{/path*}{?q}`` and ``{?a}{&b}`` are fine. An
  expression followed by nothing but literal text (``{+path}/meta``) is
  always fine: the end of the URI pins it down.
* ``{+var}`` and ``{#var}`` take one non-exploded variable (their values
  may themselves contain ``,``).
* In ``{a,b}``, ``{.a,b}`` and ``{/a,b}`` only the last variable may be
  exploded; in ``;``, ``?`` and ``&`` expressions a name appears only once.
* A variable used in several places is exploded everywhere or nowhere.

What comes back, and the limits of the round trip:

* Values are percent-decoded strings; integers come back as strings. An
  exploded variable comes back as a list of strings. Associative arrays are
  not recovered: a URI made from one does not match.
* The first variable of a simple or reserved expression is always in the
  result (an undefined one cannot be told from an empty one, so it comes
  back as ``""``). Expansion skips undefined variables with their separator
  (§3.2.1), so in ``{a,b}``, ``{.a,b}`` and ``{/a,b}`` a later variable is
  in the result only when the URI holds its separator: ``{a,b}`` with only
  ``a`` gives ``x`` and matches back to ``{'a': 'x'}``. An undefined variable
  *before* a defined one cannot be told apart: its neighbour's value takes
  its place. A ``#``, ``.`` or ``/`` expression whose variables are all
  undefined is absent as a whole. Each ``;``, ``?`` and ``&`` variable is
  optional: absent from the URI, absent from the result.
* In a ``.`` expression a dot always separates labels, so ``{.var}`` only
  matches dot-free values. Under ``+`` and ``#`` a value that already held a
  ``%XX`` triplet comes back decoded.
* Matching is strict: parameters must come in template order, and a URI
  holding characters that expansion never produces does not match.
"""

from __future__ import annotations

import math
import re
import string
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, NamedTuple, TypeVar
from urllib.parse import unquote

from ..core.errors import CustodyLabError

__all__ = [
    "AmbiguousTemplateError",
    "Expression",
    "UriTemplate",
    "UriTemplateError",
    "UriTemplateTypeError",
    "VarSpec",
    "expand",
    "expand_parts",
    "match",
    "parse",
]


#: An error message quotes at most this many characters of the template, around the position.
EXCERPT_CHARS = 80


def excerpt_window(length: int, position: int | None) -> tuple[int, int]:
    """``(start, end)`` of what is quoted from a template of ``length`` characters: all of it, or
    :data:`EXCERPT_CHARS` characters around ``position`` (from the start when there is none).

    >>> excerpt_window(20, 5), excerpt_window(1000, 500), excerpt_window(1000, 995)
    ((0, 20), (460, 540), (920, 1000))
    """
    if length <= EXCERPT_CHARS:
        return 0, length
    centre = 0 if position is None else position
    start = max(0, min(centre - EXCERPT_CHARS // 2, length - EXCERPT_CHARS))
    return start, start + EXCERPT_CHARS


def _excerpt(template: str, position: int | None) -> str:
    """The template quoted whole, or :data:`EXCERPT_CHARS` characters of it around ``position``."""
    start, end = excerpt_window(len(template), position)
    if (start, end) == (0, len(template)):
        return repr(template)
    return f"{template[start:end]!r} (characters {start}-{end - 1} of {len(template):,})"


def _short(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for names quoted inside a message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class UriTemplateError(CustodyLabError, ValueError):
    """A template, or a value given to it, that RFC 6570 does not allow.

    The message is the reason, the position and the template, quoted whole when it is at most
    :data:`EXCERPT_CHARS` characters long and otherwise as that many characters around the
    position (a hostile template of a megabyte does not make a megabyte message).

    Attributes:
        template: The template text (whole).
        position: 0-based index of the offending character in ``template``,
            or ``None`` when no single character is to blame.
        reason: The message without the position and the template.
    """

    def __init__(self, message: str, template: str, position: int | None = None) -> None:
        where = "" if position is None else f" at position {position}"
        super().__init__(f"{message}{where} in URI template {_excerpt(template, position)}")
        self.template = template
        self.position = position
        self.reason = message


class AmbiguousTemplateError(UriTemplateError):
    """A valid template that ``match`` cannot read values back from unambiguously."""


class UriTemplateTypeError(UriTemplateError, TypeError):
    """An argument of the wrong type: a value RFC 6570 cannot expand (a float, bytes, a set, a
    nested list), or a template, URI or variables argument that is not text or a mapping.
    ``except TypeError`` catches it too.
    """


class _Operator(NamedTuple):
    first: str
    sep: str
    named: bool
    ifemp: str
    allow_reserved: bool


# RFC 6570 Appendix A: how each expression type expands.
_OPERATORS: dict[str, _Operator] = {
    "": _Operator("", ",", False, "", False),  # §3.2.2 Simple String Expansion
    "+": _Operator("", ",", False, "", True),  # §3.2.3 Reserved Expansion
    "#": _Operator("#", ",", False, "", True),  # §3.2.4 Fragment Expansion
    ".": _Operator(".", ".", False, "", False),  # §3.2.5 Label Expansion with Dot-Prefix
    "/": _Operator("/", "/", False, "", False),  # §3.2.6 Path Segment Expansion
    ";": _Operator(";", ";", True, "", False),  # §3.2.7 Path-Style Parameter Expansion
    "?": _Operator("?", "&", True, "=", False),  # §3.2.8 Form-Style Query Expansion
    "&": _Operator("&", "&", True, "=", False),  # §3.2.9 Form-Style Query Continuation
}
_RESERVED_OPERATORS = frozenset("=,!@|")  # §2.2: op-reserve, kept for future extensions

_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")  # §1.5
_RESERVED = frozenset(":/?#[]@!$&'()*+,;=")  # §1.5: gen-delims and sub-delims
_LITERAL_ASCII = _UNRESERVED | _RESERVED  # §2.1 literals, ASCII part, with erratum 6937's "'"
_VARCHAR = frozenset(string.ascii_letters + string.digits + "_")  # §2.3, besides pct-encoded
_HEXDIG = frozenset(string.hexdigits)
_MAX_LENGTH_LIMIT = 9999  # §2.4.1: max-length = %x31-39 0*3DIGIT
_CHAR_OR_TRIPLET = re.compile(r"%[0-9A-Fa-f]{2}|.", re.DOTALL)


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
        """Expand this template; see the module-level ``expand``."""
        return expand(self, variables)

    def match(self, uri: str) -> dict[str, object] | None:
        """Match ``uri`` against this template; see the module-level ``match``."""
        return match(self, uri)

    def __str__(self) -> str:
        return self.template


# ---------------------------------------------------------------- parsing (§2)


def _is_triplet(text: str, index: int) -> bool:
    """Whether ``text[index:index + 3]`` is a pct-encoded triplet such as ``%2F`` (§1.5)."""
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


_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


class _BoundedCache(Generic[_K, _V]):
    """A least-recently-used cache bounded in entries *and* in the characters of its templates.

    ``functools.lru_cache(maxsize=512)`` bounds entries only: 512 templates of a megabyte each
    would pin half a gigabyte. Here an entry costs the length of its template, the total cost
    stays within ``max_chars``, and a template longer than ``max_chars // 16`` is not cached.
    """

    def __init__(self, max_entries: int, max_chars: int) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self.chars = 0
        self._entries: OrderedDict[_K, tuple[_V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: _K) -> _V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: _K, value: _V, cost: int) -> None:
        if cost > self.max_chars // 16:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (value, cost)
            self.chars += cost
            while len(self._entries) > self.max_entries or self.chars > self.max_chars:
                _, (_, old_cost) = self._entries.popitem(last=False)
                self.chars -= old_cost

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.chars = 0


#: Parsed templates and compiled matchers, 512 entries and 1 Mi template characters each at most.
_PARSED: _BoundedCache[str, UriTemplate] = _BoundedCache(512, 1 << 20)


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
            if not _is_triplet(template, index):
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
    if operator in _OPERATORS:
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
        elif _is_triplet(template, index):
            index += 3
        elif template[index] == "%":
            raise UriTemplateError("expected two hex digits after '%' in a variable name", template, index)
        else:
            raise UriTemplateError(f"expected {expected}, found {template[index]!r}", template, index)
        while template[index] in _VARCHAR or _is_triplet(template, index):
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
        too_long = len(digits) > len(str(_MAX_LENGTH_LIMIT))  # before int(): 5,000 digits cannot convert
        if not digits or digits[0] == "0" or too_long or int(digits) > _MAX_LENGTH_LIMIT:
            raise UriTemplateError(
                f"expected a prefix length from 1 to {_MAX_LENGTH_LIMIT} without leading zeros after '{_short(name)}:'",
                template,
                digits_start,
            )
        if template[index] == "*":
            raise UriTemplateError(
                f"expected ',' or '}}' after '{_short(name)}:{digits}': a variable cannot have both a prefix "
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
            f"expected {after} after variable {_short(name)!r}, found {template[index]!r}", template, index
        )
    return VarSpec(name, prefix, explode, start), index


# -------------------------------------------------------------- expansion (§3)

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
        UriTemplateError: The template is invalid, a value is a ``bool``, or a
            prefix modifier is applied to a list or mapping.
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
    parsed = template if isinstance(template, UriTemplate) else parse(template)
    if not isinstance(variables, Mapping):
        raise UriTemplateTypeError(
            f"variables must be a mapping of names to values, got {type(variables).__name__}", parsed.template
        )
    return tuple(
        (part, _encode(part, allow_reserved=True))  # §3.1 Literal Expansion
        if isinstance(part, str)
        else (part, _expand_expression(parsed.template, part, variables))
        for part in parsed.parts
    )


def _encode(text: str, allow_reserved: bool) -> str:
    """Percent-encode ``text``: keep unreserved (plus reserved and triplets if allowed) (§3.2.1)."""
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if allow_reserved and char == "%" and _is_triplet(text, index):
            out.append(text[index : index + 3])
            index += 3
            continue
        if char in _UNRESERVED or (allow_reserved and char in _RESERVED):
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        index += 1
    return "".join(out)


def _scalar(value: object, spec: VarSpec, template: str) -> str:
    if isinstance(value, bool):
        raise UriTemplateError(
            f"boolean is not a URI template value (variable {_short(spec.name)!r})", template, spec.position
        )
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate has no UTF-8 form to percent-encode
            raise UriTemplateError(
                f"variable {_short(spec.name)!r} holds a character with no UTF-8 form "
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
                f"variable {_short(spec.name)!r} holds an integer too long to write out ({e})", template, spec.position
            ) from e
    if isinstance(value, float):
        return _number_text(value, spec, template)
    raise UriTemplateTypeError(
        f"variable {_short(spec.name)!r}: expected str, int, float, list, tuple or Mapping, got {type(value).__name__}",
        template,
        spec.position,
    )


def _number_text(value: float, spec: VarSpec, template: str) -> str:
    """A finite float as JSON and JavaScript write it (ECMAScript Number::toString): the shortest
    digits that round-trip, ``6`` for ``6.0``, plain decimals from 1e-6 up to 1e21, else ``1e+21``.
    """
    if not math.isfinite(value):
        raise UriTemplateError(
            f"variable {_short(spec.name)!r} is {value!r}, which is not a number JSON can write; "
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
    operator = _OPERATORS[expression.operator]
    pieces = []
    for spec in expression.varspecs:
        value = _normalize(variables.get(spec.name), spec, template)
        if value is not None:  # §3.2.1: undefined variables are skipped
            pieces.append(_expand_varspec(operator, spec, value, template))
    return operator.first + operator.sep.join(pieces) if pieces else ""


def _expand_varspec(operator: _Operator, spec: VarSpec, value: _Value, template: str) -> str:
    """Expand one defined variable (§3.2.1 Variable Expansion)."""

    def encode(text: str) -> str:
        return _encode(text, operator.allow_reserved)

    def named(name: str, encoded: str) -> str:  # "name=value", or "name" + ifemp when empty
        return f"{name}={encoded}" if encoded else name + operator.ifemp

    if isinstance(value, str):
        if spec.prefix is not None:  # §2.4.1: count characters, never split a %XX triplet
            units = _CHAR_OR_TRIPLET.findall(value) if operator.allow_reserved else list(value)
            value = "".join(units[: spec.prefix])
        return named(spec.name, encode(value)) if operator.named else encode(value)
    if spec.prefix is not None:
        raise UriTemplateError(
            f"prefix modifier ':{spec.prefix}' does not apply to variable {_short(spec.name)!r}, whose value "
            "is a list or associative array (RFC 6570 §2.4.1)",
            template,
            spec.position,
        )
    if isinstance(value, dict):
        pairs = [(encode(key), encode(item)) for key, item in value.items()]
        if not spec.explode:  # "name,value,name,value"
            joined = ",".join(f"{key},{item}" for key, item in pairs)
            return named(spec.name, joined) if operator.named else joined
        if operator.named:  # §2.4.2: each pair as if it were a separate variable
            return operator.sep.join(named(key, item) for key, item in pairs)
        return operator.sep.join(f"{key}={item}" if item else key for key, item in pairs)
    members = [encode(member) for member in value]
    if not spec.explode:
        joined = ",".join(members)
        return named(spec.name, joined) if operator.named else joined
    if operator.named:  # §3.2.1: each member paired with the list's name
        return operator.sep.join(named(spec.name, member) for member in members)
    return operator.sep.join(members)


# ---------------------------------------------------------------- matching

_TRIPLET = "%[0-9A-Fa-f]{2}"
# What one character of an expanded value looks like, per operator.
_VALUE_PATTERNS = {
    "": f"(?:[A-Za-z0-9._~-]|{_TRIPLET})",
    "+": rf"(?:[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=-]|{_TRIPLET})",
    ".": f"(?:[A-Za-z0-9_~-]|{_TRIPLET})",  # a dot always separates labels
}
_VALUE_PATTERNS.update(
    {
        "#": _VALUE_PATTERNS["+"],
        "/": _VALUE_PATTERNS[""],
        ";": _VALUE_PATTERNS[""],
        "?": _VALUE_PATTERNS[""],
        "&": _VALUE_PATTERNS[""],
    }
)

# Every character an expression's expansion may contain after its first one.
_U_CHARS = _UNRESERVED | {"%"}
_ALL_CHARS = _U_CHARS | _RESERVED
_BODY_CHARS = {
    "": _U_CHARS | {","},
    "+": _ALL_CHARS,
    "#": _ALL_CHARS,
    ".": _U_CHARS,
    "/": _U_CHARS | {"/"},
    ";": _U_CHARS | {";", "="},
    "?": _U_CHARS | {"&", "="},
    "&": _U_CHARS | {"&", "="},
}


@dataclass(frozen=True)
class _Capture:
    """One capture group: a single named piece (``;``, ``?``, ``&``), or the whole body of any
    other expression, all of its variables together, split on the separator when read."""

    group: str
    expression_index: int
    operator: str
    specs: tuple[VarSpec, ...]


@dataclass(frozen=True)
class _Matcher:
    pattern: re.Pattern[str]
    captures: tuple[_Capture, ...]


def match(template: str | UriTemplate, uri: str) -> dict[str, object] | None:
    """Find the variable values whose expansion gives ``uri`` (the inverse of ``expand``).

    Args:
        template: Template text or a parsed ``UriTemplate``.
        uri: The URI to match, e.g. from an MCP ``resources/read`` request.

    Returns:
        Percent-decoded values by name (``str``, or ``list[str]`` for an
        exploded variable; integers come back as strings), or ``None`` when
        the URI does not match. Optional variables absent from the URI are
        left out.

    Raises:
        UriTemplateError: The template is invalid.
        AmbiguousTemplateError: The template cannot be matched
            unambiguously (see the module docstring).
        UriTemplateTypeError: ``uri`` is not a ``str``.

    >>> match("orders://{order_id}", "orders://A-1003")
    {'order_id': 'A-1003'}
    >>> match("orders://{order_id}", "tickets://T-501") is None
    True
    >>> match("logs://{service}/{day}{?level}", "logs://api/today")
    {'service': 'api', 'day': 'today'}
    """
    parsed = template if isinstance(template, UriTemplate) else parse(template)
    if not isinstance(uri, str):
        raise UriTemplateTypeError(f"the URI to match is text (str), got {type(uri).__name__}", parsed.template)
    matcher = _MATCHERS.get(parsed)
    if matcher is None:
        matcher = _compile(parsed)
        _MATCHERS.put(parsed, matcher, len(parsed.template))
    found = matcher.pattern.fullmatch(uri)
    return None if found is None else _read_captures(found, matcher.captures)


_MATCHERS: _BoundedCache[UriTemplate, _Matcher] = _BoundedCache(512, 1 << 20)


def _compile(template: UriTemplate) -> _Matcher:
    """Check that ``template`` is matchable, then build its regular expression."""
    _check_matchable(template)
    pattern: list[str] = []
    captures: list[_Capture] = []
    for index, part in enumerate(template.parts):
        if isinstance(part, str):
            pattern.append(re.escape(_encode(part, allow_reserved=True)))
        else:
            pattern.append(_expression_pattern(index, part, captures))
    return _Matcher(re.compile("".join(pattern)), tuple(captures))


def _expression_pattern(index: int, expression: Expression, captures: list[_Capture]) -> str:
    operator = _OPERATORS[expression.operator]
    char, sep = _VALUE_PATTERNS[expression.operator], re.escape(operator.sep)
    if operator.named:  # every piece carries its name, so each variable is optional
        groups = []
        for spec in expression.varspecs:
            group = f"v{len(captures)}"
            captures.append(_Capture(group, index, expression.operator, (spec,)))
            lead = "[?&]" if expression.operator == "?" else sep  # "?" or "&": checked later
            value = f"={char}*" if operator.ifemp else f"(?:={char}+)?"
            piece = re.escape(spec.name) + value
            repeat = f"(?:{sep}{piece})*" if spec.explode else ""
            groups.append(f"(?P<{group}>{lead}{piece}{repeat})?")
        return "".join(groups)
    # One group for the whole body, split on the separator when read: undefined variables are
    # skipped with their separator (§3.2.1), so "{a,b}" with only a gives "x", and the pieces
    # present are the first variables' values. (One optional group per later variable, nested,
    # would say the same but nests as deep as the variable list, past what re can compile.)
    group = f"v{len(captures)}"
    captures.append(_Capture(group, index, expression.operator, expression.varspecs))
    several = len(expression.varspecs) > 1 or expression.varspecs[-1].explode
    body = re.escape(operator.first) + f"(?P<{group}>{char}*" + (f"(?:{sep}{char}*)*)" if several else ")")
    return f"(?:{body})?" if operator.first else body


def _read_captures(found: re.Match[str], captures: tuple[_Capture, ...]) -> dict[str, object] | None:
    """Decode the captured groups; ``None`` if they are not what expansion would produce."""
    seen: dict[str, list[tuple[str | list[str], int | None]]] = {}
    started: set[int] = set()  # expressions whose first piece has been read
    for capture in captures:
        text = found.group(capture.group)
        if text is None:
            continue
        pieces = _pieces(text, capture, capture.expression_index in started)
        if pieces is None:
            return None
        started.add(capture.expression_index)
        for spec, items in pieces:
            decoded = [text for text in map(_decode, items) if text is not None]
            if len(decoded) < len(items):  # not UTF-8 once percent-decoded
                return None
            value: str | list[str] = decoded if spec.explode else decoded[0]
            if spec.prefix is not None and len(value) > spec.prefix:
                return None
            seen.setdefault(spec.name, []).append((value, spec.prefix))
    result: dict[str, object] = {}
    for name, values in seen.items():  # a repeated variable must have one value (§3.2.1)
        full = max(values, key=lambda item: _MAX_LENGTH_LIMIT + 1 if item[1] is None else item[1])[0]
        if any(value != (full if prefix is None else full[:prefix]) for value, prefix in values):
            return None
        result[name] = full
    return result


def _pieces(text: str, capture: _Capture, started: bool) -> list[tuple[VarSpec, list[str]]] | None:
    """Each variable of a captured group with its still-encoded items; ``None`` if expansion
    could not have written ``text``."""
    operator, specs = _OPERATORS[capture.operator], capture.specs
    if operator.named:
        spec = specs[0]
        if text[0] != (operator.sep if started else operator.first):  # "?" opens a query, "&" continues it
            return None
        return [(spec, [item[len(spec.name) + 1 :] for item in text[1:].split(operator.sep)])]
    if len(specs) == 1 and not specs[0].explode:
        return [(specs[0], [text])]  # one value: under "+" and "#" it may hold "," itself
    items = text.split(operator.sep)
    last = len(specs) - 1
    if len(items) > len(specs) and not specs[last].explode:
        return None
    return [
        (spec, items[k:] if k == last and spec.explode else [items[k]]) for k, spec in enumerate(specs[: len(items)])
    ]


def _decode(text: str) -> str | None:
    try:
        return unquote(text, errors="strict")
    except UnicodeDecodeError:
        return None


def _check_matchable(template: UriTemplate) -> None:
    """Raise ``AmbiguousTemplateError`` unless the template follows the matching rules.

    One pass from the right collects what may follow each expression, one from the left checks
    the rules: time grows with the length of the template, not its square.
    """
    parts, source = template.parts, template.template
    following = _following_chars(parts)
    exploded: dict[str, bool] = {}
    for index, part in enumerate(parts):
        if not isinstance(part, Expression):
            continue
        operator = _OPERATORS[part.operator]
        names = [spec.name for spec in part.varspecs]
        shown_part = _short(str(part))
        if part.operator in ("+", "#") and (len(names) > 1 or part.varspecs[0].explode):
            raise AmbiguousTemplateError(
                f"cannot match {shown_part}: reserved and fragment values may contain ',' themselves, "
                "so only one non-exploded variable is supported",
                source,
                part.position,
            )
        if operator.named and len(set(names)) < len(names):
            raise AmbiguousTemplateError(
                f"cannot match {shown_part}: a variable name is repeated", source, part.position
            )
        if not operator.named and any(spec.explode for spec in part.varspecs[:-1]):
            raise AmbiguousTemplateError(
                f"cannot match {shown_part}: only its last variable may be exploded", source, part.position
            )
        for spec in part.varspecs:
            if exploded.setdefault(spec.name, spec.explode) != spec.explode:
                raise AmbiguousTemplateError(
                    f"cannot match variable {_short(spec.name)!r}: it is exploded in one place and not in another",
                    source,
                    spec.position,
                )
        after = following[index]
        if after is None:
            continue  # only literal text follows: the end of the URI pins this expression down
        inside = _BODY_CHARS[part.operator] | ({operator.first} - {""})
        clash = after & inside
        if clash:
            shown = min(clash, key=lambda char: (char.isalnum() or char == "%", char))
            raise AmbiguousTemplateError(
                f"cannot tell where {shown_part} ends: {shown!r} can occur both in its expansion and right "
                "after it; expected a literal it cannot produce after it, or the end of the template",
                source,
                part.position,
            )


def _following_chars(parts: tuple[str | Expression, ...]) -> list[set[str] | None]:
    """For each expression, the characters that may come right after its expansion.

    ``None`` where only literal text follows. Every expression may expand to nothing, so what
    follows is the first character of each later expression up to the next literal, and that
    literal's first character. A later named expression that carries on this one's pieces
    (``{&b}`` after ``{?a}``, ``{;b}`` after ``{;a}``, with no name in common) adds nothing: its
    leading separator is this expression's own. Computed in one pass from the right, keeping for
    the current run of expressions (up to the next literal) what they may start with, also
    without the ``;`` or ``&`` ones, and which names those use.
    """
    result: list[set[str] | None] = [None] * len(parts)
    literal_char: str | None = None  # first character of the literal that ends the run, if any
    expression_after = False
    starts: set[str] = set()  # what the run's expressions may start with
    starts_without: dict[str, set[str]] = {";": set(), "&": set()}  # ... leaving out ";" / "&" ones
    names_in: dict[str, set[str]] = {";": set(), "&": set()}  # names of the run's ";" / "&" ones
    for index in range(len(parts) - 1, -1, -1):
        part = parts[index]
        if isinstance(part, str):
            literal_char = _encode(part, allow_reserved=True)[0]
            starts, starts_without, names_in = set(), {";": set(), "&": set()}, {";": set(), "&": set()}
            continue
        operator = _OPERATORS[part.operator]
        names = {spec.name for spec in part.varspecs}
        if expression_after:
            sep = operator.sep
            if operator.named:  # sep is ";" or "&": a later expression of that operator may carry on
                chars = set(starts_without[sep])
                if names & names_in[sep]:  # ... unless it repeats a name: then it starts anew
                    chars.add(sep)
            else:
                chars = set(starts)
            if literal_char is not None:
                chars.add(literal_char)
            result[index] = chars
        start = {operator.first} if operator.first else _BODY_CHARS[part.operator]
        starts |= start
        for op, without in starts_without.items():
            if part.operator != op:
                without |= start
        if part.operator in names_in:
            names_in[part.operator] |= names
        expression_after = True
    return result
