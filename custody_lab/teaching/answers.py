"""One normalisation for every exercise: what kind of answer was given, and the form it is read in.

:func:`custody_lab.exercises.check` passes every answer through :func:`normalise` before any
exercise sees it, so each exercise compares the same cleaned value:

==============================  ================================================================
given                           read as
==============================  ================================================================
``""``, ``"  "``, ``None``,     "not answered yet" (:func:`is_unanswered`)
``...``, ``"..."``
``'  "image/png" '``            ``"image/png"``: whitespace trimmed, one pair of surrounding
                                quotes stripped (the form ``custody-lab solutions`` prints)
``"105"`` (a number wanted)     ``105``
``"105 bytes"``                 wrong, with the form hint "just the number"
``"a, b"`` (a list wanted)      wrong, with the form hint "give a list"
``"CRM://x/%2f"`` (a URI)       ``"crm://x/%2F"``: the scheme is case-insensitive (RFC 3986
                                §3.1) and percent-encoded triplets that differ only in hex case
                                are equivalent, uppercase being the normal form (RFC 3986 §2.1,
                                §6.2.2.1); nothing else in a URI changes case. The same holds
                                for every URI inside a list, a tuple, a set or a dict
``"13,950"`` (a number wanted)  ``13950``, with a remark on the form (not an arithmetic hint):
                                groups of three digits after ``,``, ``_``, a space or a thin space
``"Listed Resource"``           ``"listed-resource"``: words written with spaces, underscores or
                                capitals are read as a code when that code is one of the lab's
                                (a shape, a rejection code...) or of the reference's own; also
                                inside lists and dict values. Names whose case matters
                                (``sideEffects``) and other words are left as they are
``"e\u0301"`` (any text)        ``"é"``: Unicode NFC, so a decomposed accent equals a composed one
``"model, server"`` (named      wrong, with the form hint "give it as N named labels"
labels wanted)
``10**400``, ``"9" * 5000``     wrong, with the form hint "no answer here has that many digits"
                                (a number of more than :data:`MAX_NUMBER_DIGITS` digits is never
                                converted: Python's float overflows past ~308 digits and its int
                                refuses text of over 4,300 digits)
an answer nested deeper than    wrong, with a form hint naming the bound (:data:`MAX_ANSWER_DEPTH`,
its bounds, or holding more     :data:`MAX_ANSWER_ITEMS`, :data:`MAX_ANSWER_CHARS`), read no further
items or text
==============================  ================================================================

Before any of this, :func:`plain` copies an answer that is a subclass of a built-in type (a ``str``
whose ``strip`` raises, a ``list`` whose ``__len__`` raises) into the built-in type itself, without
calling the subclass's own methods, so the lab reads the value and never runs the answer's code. It
goes by an object's real type, never by its ``__class__`` attribute, which an object may set to
anything (``__class__ = int``): such an object is not data, and gets the "wrong kind" feedback.

The *kind* of an answer (a number, a URI, a rejection code, a list...) is reported in every wrong
answer's feedback, so a learner knows whether they are answering the right sort of question
before they know whether the value is right. No HTML; the lab's vocabulary of codes is read from
the core layer.
"""

from __future__ import annotations

__all__ = [
    "KINDS",
    "MAX_ANSWER_CHARS",
    "MAX_ANSWER_DEPTH",
    "MAX_ANSWER_ITEMS",
    "MAX_NUMBER_DIGITS",
    "Plain",
    "FormProblem",
    "Kind",
    "describe_kind",
    "given_kind",
    "is_unanswered",
    "kind_matches",
    "kind_of",
    "code_form",
    "normal_expected",
    "normal_uri",
    "normalise",
    "plain",
    "raised",
    "short_repr",
    "strip_text",
    "type_name",
]

import functools
import math
import re
import reprlib
import unicodedata
from typing import Literal

from .answer_copy import (
    MAX_ANSWER_CHARS,
    MAX_ANSWER_DEPTH,
    MAX_ANSWER_ITEMS,
    MAX_NUMBER_DIGITS,
    NUMBER_TOO_LONG,
    FormProblem,
    Plain,
    is_too_long,
    plain,
)

Kind = Literal["number", "text", "uri", "code", "list", "bytes", "mapping", "yes/no", "other"]

#: Each kind in the words a message uses.
KINDS: dict[str, str] = {
    "number": "a number",
    "text": "text",
    "uri": "a URI",
    "code": "a rejection code",
    "list": "a list",
    "bytes": "bytes",
    "mapping": "a dict",
    "yes/no": "True or False",
    "other": "a value of another type",
}

_QUOTES = ('"', "'")
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")
_NUMBER_WITH_WORDS = re.compile(r"[+-]?\d+(?:\.\d+)?\s*[^\d\s.,].*", re.DOTALL)
#: RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_TRIPLET = re.compile(r"%[0-9A-Fa-f]{2}")
#: A rejection code as the lab's receipts write it: lowercase words joined by hyphens.
_CODE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


_NUMBER_WITH_UNIT = FormProblem(
    "number-with-a-unit",
    "Give just the number, without a unit or other words (write 12, not '12 bytes').",
)
_LIST_AS_TEXT = FormProblem(
    "list-as-text",
    "Give a list, like ['first', 'second'], not one piece of text with commas in it.",
)


_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:([,_ \u2009\u202f\u00a0])\d{3})(?:\1\d{3})*")
_WORDS = re.compile(r"[A-Za-z0-9]+(?:[\s_-]+[A-Za-z0-9]+){0,7}")
_SEPARATED_NUMBER = FormProblem(
    "number-with-separators",
    "Read as a whole number; the lab writes numbers without thousands separators (12345, not "
    "12,345), which is the form Python and the receipts use.",
    blocking=False,
)


def _labels_as_text(count: int) -> FormProblem:
    return FormProblem(
        "labels-as-text",
        f"Give it as {count} named labels, a dict like {{'label': 'value', ...}}, not one piece of "
        "text with commas in it.",
    )


def code_form(text: str) -> str:
    """Words written as the lab writes a code: lowercase, joined by hyphens (text that is not a
    few plain words is returned unchanged).

    Example:
        >>> code_form("Listed Resource"), code_form("structured_tool_result"), code_form("a/b")
        ('listed-resource', 'structured-tool-result', 'a/b')
        >>> code_form("sideEffects")
        'sideEffects'
    """
    stripped = text.strip()
    if not _WORDS.fullmatch(stripped):
        return text
    words = re.split(r"[\s_-]+", stripped)
    if any(not (w.islower() or w.isupper() or w.istitle() or w.isdigit()) for w in words):
        return text  # camelCase (``sideEffects``) is a name whose case matters, not a code
    return "-".join(word.lower() for word in words)


def _is_code(value: object) -> bool:
    return isinstance(value, str) and _CODE.fullmatch(value) is not None


@functools.cache
def _vocabulary() -> frozenset[str]:
    """The lab's own codes: shapes, initiators, operations, primitives and rejection codes."""
    from ..core.model import INITIATORS, OPERATIONS, SHAPES
    from ..core.rules import EXCHANGE_RULES, HOST_RULES, RULES

    codes = (r.code for r in RULES + EXCHANGE_RULES + HOST_RULES)
    return frozenset((*SHAPES, *INITIATORS, *OPERATIONS, "resource", "tool", *codes))


def _known_codes(expected: object) -> frozenset[str]:
    """Codes words may be read as: the lab's vocabulary and the reference's own codes."""
    if isinstance(expected, dict):
        own = [v for v in expected.values() if _is_code(v)]
    elif isinstance(expected, list | tuple | set | frozenset):
        own = [v for v in expected if _is_code(v)]
    else:
        own = [expected] if _is_code(expected) else []
    return _vocabulary() | frozenset(own)


def _as_code(text: str, known: frozenset[str]) -> str:
    """``text`` as a known code when it is one written with spaces, underscores or capitals."""
    written = code_form(text)
    return written if written in known else text


def _item(value: object, known: frozenset[str]) -> object:
    """One element of a list, a set or a dict, read as a whole answer's text would be."""
    if not isinstance(value, str):
        return value
    text = unicodedata.normalize("NFC", strip_text(value))
    if _SCHEME.match(text) and "://" in text:
        return normal_uri(text)
    return _as_code(text, known)


def _items(answer: object, expected: object) -> object:
    """A collection or dict answer with each text item normalised (URIs, NFC, codes)."""
    known = _known_codes(expected)
    if isinstance(answer, dict):
        return {_item(k, frozenset()): _item(v, known) for k, v in answer.items()}
    items = [_item(v, known) for v in answer]  # type: ignore[attr-defined]
    try:
        return type(answer)(items)  # type: ignore[call-arg]
    except TypeError:  # an unhashable item in a set, a named tuple: keep the answer as given
        return answer


def normal_expected(expected: object) -> object:
    """The reference read the way answers are (URIs inside collections and dicts normalised), so
    that the two compare like with like.

    Example:
        >>> normal_expected(["KB://a", "kb://b"])
        ['kb://a', 'kb://b']
    """
    if isinstance(expected, str) and _SCHEME.match(expected) and "://" in expected:
        return normal_uri(expected)
    if isinstance(expected, dict | list | tuple | set | frozenset):
        return _items(expected, None)
    return expected


def strip_text(text: str) -> str:
    """Trim whitespace and one pair of matching surrounding quotes.

    Example:
        >>> strip_text('  "image/png" '), strip_text("'Pj+//xA='"), strip_text("it's")
        ('image/png', 'Pj+//xA=', "it's")
    """
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in _QUOTES:
        stripped = stripped[1:-1].strip()
    return stripped


def is_unanswered(answer: object) -> bool:
    """Whether an answer is still a blank: ``...``, ``None``, or text that is empty or ``...``.

    Example:
        >>> [is_unanswered(a) for a in (..., None, "", " '' ", "...", 0, "0")]
        [True, True, True, True, True, False, False]
    """
    if answer is Ellipsis or answer is None:
        return True
    return isinstance(answer, str) and strip_text(answer) in ("", "...")


def normal_uri(text: str) -> str:
    """A URI with its scheme in lowercase and its percent-encoded triplets in uppercase hex.

    Only the two case rules RFC 3986 makes for every URI (§3.1 scheme, §2.1 triplets); the rest
    of the URI is compared exactly, since a custom scheme decides what its other parts mean.

    Example:
        >>> normal_uri("CRM://customer/Fixture%2017%2feu")
        'crm://customer/Fixture%2017%2Feu'
    """
    found = _SCHEME.match(text)
    if found:
        text = found.group(1).lower() + text[found.end(1) :]
    return _TRIPLET.sub(lambda m: m.group(0).upper(), text)


def kind_of(value: object) -> Kind:
    """The kind of a value: what a message calls it. (Text is never guessed to be a rejection
    code: an exercise that wants one says ``kind="code"``.)

    Example:
        >>> [kind_of(v) for v in (105, "orders://A-1", "custody-incomplete", ["a"], True)]
        ['number', 'uri', 'text', 'list', 'yes/no']
    """
    if isinstance(value, bool):
        return "yes/no"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "uri" if _SCHEME.match(value) and "://" in value else "text"
    if isinstance(value, list | tuple | set | frozenset):
        return "list"
    if isinstance(value, bytes | bytearray):
        return "bytes"
    if isinstance(value, dict):
        return "mapping"
    return "other"


def describe_kind(kind: str) -> str:
    """A kind in words (``"a URI"``); an unknown kind is named as it is.

    Example:
        >>> describe_kind("code")
        'a rejection code'
    """
    return KINDS.get(kind, kind)


def kind_matches(answer: object, wanted: str) -> bool:
    """Whether an answer is of the wanted kind: any text for ``"text"``; for ``"code"``, text
    written as a code is (lowercase words joined by hyphens, ``custody-incomplete``).

    Example:
        >>> kind_matches(105, "number"), kind_matches("105", "number"), kind_matches("x://y", "uri")
        (True, False, True)
        >>> kind_matches("custody-incomplete", "code"), kind_matches("Custody incomplete", "code")
        (True, False)
    """
    if wanted == "text":
        return isinstance(answer, str)
    if wanted == "code":
        return isinstance(answer, str) and _CODE.fullmatch(answer) is not None
    return kind_of(answer) == wanted


def given_kind(answer: object, wanted: str) -> str:
    """The answer's kind in words, read as the wanted kind when it is one.

    Example:
        >>> given_kind("custody-incomplete", "code"), given_kind("custody-incomplete", "number")
        ('a rejection code', 'text')
    """
    return describe_kind(wanted if kind_matches(answer, wanted) else kind_of(answer))


def _digit_count(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def _as_number(text: str) -> int | float | None:
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text) if "." in text else int(text)
    return value if not (isinstance(value, float) and math.isinf(value)) else None


def normalise(answer: object, wanted: str, expected: object = None) -> tuple[object, FormProblem | None]:
    """The answer as every exercise reads it, and a form problem when its form is wrong.

    ``expected`` (the reference, when known) only adds its own codes to the words that may be
    read as a code (``"Listed Resource"`` as ``"listed-resource"``) and says how many labels a
    dict answer names.

    Example:
        >>> normalise(' "105" ', "number"), normalise("105 bytes", "number")[1].name
        ((105, None), 'number-with-a-unit')
        >>> normalise("a, b", "list")[1].name, normalise("CRM://X", "uri")
        ('list-as-text', ('crm://X', None))
        >>> normalise("13,950", "number")[0], normalise("Listed Resource", "text", "listed-resource")[0]
        (13950, 'listed-resource')
        >>> normalise(["KB://a/%2f"], "list")[0], normalise("model, server", "mapping", {"a": 1, "b": 2})[1].name
        (['kb://a/%2F'], 'labels-as-text')
    """
    if isinstance(answer, dict | list | tuple | set | frozenset):
        return _items(answer, expected), None
    if not isinstance(answer, str):
        return answer, None
    text = unicodedata.normalize("NFC", strip_text(answer))
    if wanted == "number":
        if _digit_count(text) > MAX_NUMBER_DIGITS and (_NUMBER.fullmatch(text) or _THOUSANDS.fullmatch(text)):
            return text, NUMBER_TOO_LONG
        number = _as_number(text)
        if number is not None:
            return number, None
        if _THOUSANDS.fullmatch(text):
            return int(re.sub(r"\D", "", text)) * (-1 if text.startswith("-") else 1), _SEPARATED_NUMBER
        if _NUMBER_WITH_WORDS.fullmatch(text):
            return text, _NUMBER_WITH_UNIT
    if wanted == "mapping" and isinstance(expected, dict) and ("," in text or ":" in text):
        return text, _labels_as_text(len(expected))
    if wanted == "list" and ("," in text or "\n" in text):
        return text, _LIST_AS_TEXT
    if wanted == "uri":
        return normal_uri(text), None
    return _as_code(text, _known_codes(expected)), None


_repr = reprlib.Repr()
_repr.maxstring = 90
_repr.maxother = 90
_repr.maxlong = 60


def short_repr(value: object) -> str:
    """A repr shortened for messages (long strings and bytes are cut with ``...``).

    Example:
        >>> short_repr("x" * 200)[:12], short_repr(10**400)
        ("'xxxxxxxxxxx", '<a whole number of more than 300 digits>')
    """
    if is_too_long(value):
        return f"<a whole number of more than {MAX_NUMBER_DIGITS} digits>"
    try:
        if isinstance(value, bytes | bytearray) and len(value) > 40:
            return repr(bytes(value[:40]))[:-1] + f"...' ({len(value)} bytes)"
        return _repr.repr(value)
    except Exception as e:  # a learner's object whose own repr, len or iteration raises: its code, not ours
        return f"<{type_name(value)} (repr failed: {type_name(e)})>"


def type_name(value: object) -> str:
    """The name of ``value``'s class, read from the class's own slot (no code of the value runs).

    Example:
        >>> type_name(3), type_name(plain)
        ('int', 'function')
    """
    name = vars(type)["__qualname__"].__get__(type(value))
    return name if isinstance(name, str) else "?"


def raised(answer: object, error: BaseException) -> FormProblem:
    """The form problem of an answer whose own methods raised ``error`` while it was read.

    Example:
        >>> raised(object(), RuntimeError("x")).name
        'answer-raised'
    """
    return FormProblem(
        "answer-raised",
        f"Reading your answer ran its own code (the methods of its class, {type_name(answer)}), which "
        f"raised {type_name(error)}. Give a plain value: a number, text, a list or a dict.",
    )
