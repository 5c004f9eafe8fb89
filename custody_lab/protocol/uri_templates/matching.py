"""Matching: which values a URI was expanded from (the inverse of :func:`~.expansion.expand`).

``match`` compiles the template into a regular expression with one capture group per expression
(one per variable in ``;``, ``?`` and ``&`` expressions), and percent-decodes what the groups
captured. Compiled matchers are cached (:class:`~.cache.BoundedCache`).

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

Limits
------
A template and a URI may come from a party the lab does not trust (a hostile server lists the
templates; a client sends the URI). What one ``match`` may cost is bounded, as the MCP SDK's
``mcp.shared.uri_template`` bounds its own: the pattern grows with the template, the scan with
the URI.

* :data:`~.template.MAX_TEMPLATE_LENGTH` characters of template, :data:`~.template.MAX_EXPRESSIONS`
  ``{...}`` expressions and :data:`~.template.MAX_VARIABLES` variables in all: a template over one
  of them raises ``UriTemplateError``, whose message names the limit (:func:`~.template.check_size`;
  ``expand`` applies the same limits, and ``parse`` takes any length).
* :data:`~.template.MAX_URI_LENGTH` characters of URI: a longer URI does not match (``None``), and the
  pattern is not run.
* Checking that a template is matchable takes time linear in its length; so do compiling it and
  running it on a URI, because every expression's end is visible (the rules above).
"""

from __future__ import annotations

__all__ = ["match"]

import re
from dataclasses import dataclass
from urllib.parse import unquote

from .cache import BoundedCache
from .errors import AmbiguousTemplateError, UriTemplateTypeError, short_name
from .expansion import encode
from .template import (
    MAX_PREFIX_LENGTH,
    MAX_URI_LENGTH,
    OPERATORS,
    RESERVED,
    UNRESERVED,
    Expression,
    UriTemplate,
    VarSpec,
    check_length,
    check_size,
    parse,
)

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
_U_CHARS = UNRESERVED | {"%"}
_ALL_CHARS = _U_CHARS | RESERVED
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
        the URI does not match (a URI over :data:`MAX_URI_LENGTH` characters
        never does). Optional variables absent from the URI are left out.

    Raises:
        UriTemplateError: The template is invalid, or over :data:`MAX_TEMPLATE_LENGTH`
            characters, :data:`MAX_EXPRESSIONS` expressions or :data:`MAX_VARIABLES` variables.
        AmbiguousTemplateError: The template cannot be matched
            unambiguously (see the module docstring).
        UriTemplateTypeError: ``uri`` is not a ``str``.

    >>> match("orders://{order_id}", "orders://A-1003")
    {'order_id': 'A-1003'}
    >>> match("orders://{order_id}", "tickets://T-501") is None
    True
    >>> match("logs://{service}/{day}{?level}", "logs://api/today")
    {'service': 'api', 'day': 'today'}
    >>> match("orders://{order_id}", "orders://" + "A" * MAX_URI_LENGTH) is None
    True
    """
    if isinstance(template, str):
        check_length(template)  # before parsing: a megabyte of template is refused unread
    parsed = template if isinstance(template, UriTemplate) else parse(template)
    if not isinstance(uri, str):
        raise UriTemplateTypeError(f"the URI to match is text (str), got {type(uri).__name__}", parsed.template)
    matcher = _MATCHERS.get(parsed)
    if matcher is None:
        matcher = _compile(parsed)
        _MATCHERS.put(parsed, matcher, len(parsed.template))
    if len(uri) > MAX_URI_LENGTH:
        return None
    found = matcher.pattern.fullmatch(uri)
    return None if found is None else _read_captures(found, matcher.captures)


#: Compiled matchers, 512 entries and 1 Mi template characters at most.
_MATCHERS: BoundedCache[UriTemplate, _Matcher] = BoundedCache()


def _compile(template: UriTemplate) -> _Matcher:
    """Check that ``template`` is within the limits and matchable, then build its regular expression."""
    check_size(template)
    _check_matchable(template)
    pattern: list[str] = []
    captures: list[_Capture] = []
    for index, part in enumerate(template.parts):
        if isinstance(part, str):
            pattern.append(re.escape(encode(part, allow_reserved=True)))
        else:
            pattern.append(_expression_pattern(index, part, captures))
    return _Matcher(re.compile("".join(pattern)), tuple(captures))


def _expression_pattern(index: int, expression: Expression, captures: list[_Capture]) -> str:
    operator = OPERATORS[expression.operator]
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
        full = max(values, key=lambda item: MAX_PREFIX_LENGTH + 1 if item[1] is None else item[1])[0]
        if any(value != (full if prefix is None else full[:prefix]) for value, prefix in values):
            return None
        result[name] = full
    return result


def _pieces(text: str, capture: _Capture, started: bool) -> list[tuple[VarSpec, list[str]]] | None:
    """Each variable of a captured group with its still-encoded items; ``None`` if expansion
    could not have written ``text``."""
    operator, specs = OPERATORS[capture.operator], capture.specs
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
        operator = OPERATORS[part.operator]
        names = [spec.name for spec in part.varspecs]
        shown_part = short_name(str(part))
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
                    f"cannot match variable {short_name(spec.name)!r}: it is exploded in one place and not in another",
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
            literal_char = encode(part, allow_reserved=True)[0]
            starts, starts_without, names_in = set(), {";": set(), "&": set()}, {";": set(), "&": set()}
            continue
        operator = OPERATORS[part.operator]
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
