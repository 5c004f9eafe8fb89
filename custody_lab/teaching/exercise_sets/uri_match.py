"""URI-template exercises, reading URIs back (notebook 03): match, grammar positions, ambiguity.

The server's side of RFC 6570: a URI arrives and the server must find the values it was made
from, or refuse a template it could never read back. Rising in difficulty:

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
uri-04    2      match a URI back to its id (percent-decoding, UTF-8)
uri-07    4      the 0-based position where an invalid template goes wrong
uri-08    5      which templates ``match`` accepts (RFC 6570 §1.4 leaves matching to each implementation)
========  =====  ===================================================================

The client's side (expanding templates) is :mod:`custody_lab.teaching.exercise_sets.uri_expand`.
Every expected answer is computed by :mod:`custody_lab.uri_templates`, never typed in by hand.
Every mistake detector guards the answer's type itself (an answer may be anything); the gate in
``tests/teaching/test_exercises.py`` proves it.
"""

from __future__ import annotations

__all__ = ["EXERCISES"]

from ...protocol.uri_templates import AmbiguousTemplateError, UriTemplateError, match, parse
from ..exercises import Exercise, Mistake
from . import _answers as ans

#: The lab catalog's customer template (notebook 03's hostile-value table expands it).
_CRM = "crm://customer/{id}"


# --------------------------------------------------------------------------------------------
# uri-04: match a URI back to its id
# --------------------------------------------------------------------------------------------

_MATCH_URI = "crm://customer/m%C3%BCller%2Fde"


def _matched_id() -> object:
    found = match(_CRM, _MATCH_URI)
    assert found is not None  # the exercise's URI is chosen to match
    return found["id"]


_URI_04 = Exercise(
    id="uri-04",
    title="Match a URI back to its id",
    why=(
        "matching gives back the value the client had before encoding: %C3%BC is the two UTF-8 bytes of one "
        "letter, and %2F is a slash that belongs to the value, not to the path"
    ),
    level=2,
    prompt=(
        "A `resources/read` request arrives for `crm://customer/m%C3%BCller%2Fde`. The server "
        "must find the template it came from, `crm://customer/{id}`, and the **value of id** it "
        "was made with: the text the client had before encoding it. Give that value as a "
        "string. (`match` from `custody_lab.uri_templates` does it; try it by hand first: "
        "`%C3%BC` is two UTF-8 bytes.)"
    ),
    input_label="the URI crm://customer/m%C3%BCller%2Fde against crm://customer/{id}",
    wanted="the value of id, as a string",
    parse="text",
    given=lambda: {"template": _CRM, "uri": _MATCH_URI},
    reference=_matched_id,
    compare=ans.same_text,
    hints=(
        "Take the template's literal part off the front of the URI first; what is left is the encoded value.",
        "Decode each %XX into a byte, then read all the bytes together as UTF-8: two of the triplets "
        "make one letter, and one of them is a character that was data.",
    ),
    mistakes=(
        Mistake(
            "kept-the-percent-encoding",
            lambda a: ans.is_one_of(a, "m%C3%BCller%2Fde", "m%c3%bcller%2fde"),
            "That is the value as it travels in the URI. Percent-decode it: each %XX is one "
            "byte, and the bytes are UTF-8.",
            example="m%C3%BCller%2Fde",
        ),
        Mistake(
            "gave-the-dict",
            lambda a: isinstance(a, dict),
            'match returns every variable in a dict; the question asks for the value of id alone: result["id"].',
            example={"id": "müller/de"},
        ),
        Mistake(
            "gave-the-uri",
            lambda a: (t := ans.text(a)) is not None and t.startswith("crm://"),
            "That is the whole URI. The server's job is to take the template's literal part "
            "(crm://customer/) off and decode what is left.",
            example=_MATCH_URI,
        ),
        Mistake(
            "decoded-as-latin-1",
            lambda a: (t := ans.text(a)) is not None and "Ã" in t,
            "The bytes C3 BC were decoded one character each (Latin-1). Percent-encoded URI "
            "values are UTF-8: C3 BC together are the single letter ü.",
            example="mÃ¼ller/de",
        ),
        Mistake(
            "split-after-decoding",
            lambda a: ans.is_one_of(a, "de", "müller", "m%C3%BCller"),
            "%2F is part of the value: the client encoded a '/' that was data. Split the URI on "
            "the template's literal text first, and decode afterwards, so the decoded '/' stays "
            "inside the id.",
            example="de",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-07: where is the template wrong?
# --------------------------------------------------------------------------------------------

_BROKEN = "orders://{order-id}"


def _error_position() -> int:
    """Where the lab's engine refuses ``_BROKEN``
    (``tests/teaching/exercise_sets/test_uri_exercises.py`` pins it: 15)."""
    try:
        parse(_BROKEN)
    except UriTemplateError as error:
        if error.position is not None:
            return error.position
    raise AssertionError(f"{_BROKEN!r} was expected to be refused at a position")  # pragma: no cover


def _brace_position() -> int:
    return _BROKEN.index("{")


_URI_07 = Exercise(
    id="uri-07",
    title="Spot where a template goes wrong",
    why=(
        "a variable name may hold letters, digits, _, . and %XX only: the hyphen inside the variable's name "
        "is the first character the grammar refuses, counted from 0 at the start of the template"
    ),
    level=4,
    prompt=(
        "A server author wrote the template `orders://{order-id}`, and the lab's engine refuses "
        "it. Variable names may hold letters, digits, `_`, `.` between them and `%XX` "
        "(RFC 6570 §2.3), nothing else. Give the **0-based position** (counting from the start "
        "of the template, the `o` of `orders` being 0) of the first character the grammar does "
        "not allow, as a whole number. Check it with `parse(...)` and the error's `.position`."
    ),
    input_label="the template orders://{order-id}",
    wanted="a 0-based position (a whole number)",
    given=lambda: _BROKEN,
    reference=_error_position,
    compare=lambda a, e: ans.whole_number(a) == e,
    hints=(
        "Walk through the template one character at a time, counting from 0, and stop at the first "
        "character a variable name may not hold.",
        "Inside the braces, letters, digits and '_' are fine; find the first other character and count "
        "its position from the very start of the template.",
    ),
    mistakes=(
        Mistake(
            "counted-from-one",
            lambda a: ans.whole_number(a) == _error_position() + 1,
            "That counts from 1. Python and the engine's .position count from 0: the first "
            "character, the 'o' of orders, is position 0.",
            example=16,
        ),
        Mistake(
            "pointed-at-the-brace",
            lambda a: ans.whole_number(a) == _brace_position(),
            "That is where the expression starts (the MCP SDK reports that position too). The "
            "'{' is fine; find the first character inside it that a variable name cannot hold.",
            example=9,
        ),
        Mistake(
            "counted-inside-the-expression",
            lambda a: (
                ans.whole_number(a)
                in (_error_position() - _brace_position(), _error_position() - _brace_position() - 1)
            ),
            "You counted from the '{' (or from just after it). Count from the first character of the whole template.",
            example=6,
        ),
        Mistake(
            "gave-the-character",
            lambda a: ans.is_one_of(a, "-", "'-'"),
            "Right character, but the question asks where it is: give its position as a number.",
            example="-",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-08: which templates can be matched?
# --------------------------------------------------------------------------------------------

_CANDIDATES: tuple[str, ...] = (
    "users://{user_id}/avatar",
    "pkg://{name}-{version}",
    "archive://{+prefix}/index",
    "backup://{+dir}/{+file}",
    "metrics://{host}/{metric}{?window}",
)


def _matchable(template: str) -> bool:
    try:
        match(template, "")
    except AmbiguousTemplateError:
        return False
    return True


def _matchable_templates() -> list[str]:
    return [t for t in _CANDIDATES if _matchable(t)]


def _chosen(answer: object) -> frozenset[str] | None:
    """The answer as a set of template strings, or ``None`` when it is not a collection of them."""
    if isinstance(answer, str) or not isinstance(answer, list | tuple | set | frozenset):
        return None
    if not all(isinstance(item, str) for item in answer):
        return None
    return frozenset(item.strip() for item in answer)


def _same_templates(answer: object, expected: object) -> bool:
    chosen = _chosen(answer)
    return chosen is not None and isinstance(expected, list) and chosen == frozenset(expected)


def _with(*templates: str) -> list[str]:
    return sorted(set(_matchable_templates()) | set(templates))


def _without(*templates: str) -> list[str]:
    return [t for t in _matchable_templates() if t not in templates]


_URI_08 = Exercise(
    id="uri-08",
    title="Which templates can a server match?",
    why=(
        "the lab's match accepts an expression only when what follows it is a character it cannot produce, or "
        "only literal text to the end; between two expressions a hyphen after a simple one, or a slash after a "
        "reserved one, could belong to either side"
    ),
    level=5,
    prompt=(
        "A server must read the values back out of every URI it receives. RFC 6570 defines "
        "expansion only; its §1.4 (Limitations) notes that some templates can be used in reverse, "
        'and that this variable matching "only works well if the template expressions are '
        "delimited by the beginning or end of the URI or by characters that cannot be part of the "
        "expansion\". How to match is left to each implementation. The lab's `match` turns that "
        "advice into its own rule: whatever may come right after an expression must be a "
        "character the expression cannot produce, **unless** nothing but literal text follows it "
        "to the end of the template, where the end of the URI pins it down. Of the five templates "
        'in `input_for("uri-08")`, which ones does the lab\'s `match` accept? Answer with a list of '
        "the template strings. Reason first, then confirm: `match` raises `AmbiguousTemplateError` "
        "for the others."
    ),
    input_label="the five templates of uri-08",
    wanted="a list of template strings",
    given=lambda: list(_CANDIDATES),
    reference=_matchable_templates,
    compare=_same_templates,
    hints=(
        "For each template, look at what comes right after each expression: could the expression's own "
        "value produce that character, and is there anything but literal text after it?",
        "Two of the five templates have an expression followed by a character its value can also "
        "contain, with another expression still to come; leave those two out.",
    ),
    mistakes=(
        Mistake(
            "gave-positions",
            lambda a: (
                isinstance(a, list | tuple | set) and bool(a) and all(ans.whole_number(item) is not None for item in a)
            ),
            "Give the templates themselves (the strings), not their positions in the list.",
            example=[0, 2, 4],
        ),
        Mistake(
            "hyphen-inside-and-after",
            lambda a: (c := _chosen(a)) is not None and "pkg://{name}-{version}" in c,
            "'-' is an unreserved character: a simple {name} writes it as it is, so the '-' after "
            "{name} may also sit inside the name. pkg://live-chat-2 splits as live + chat-2 or "
            "live-chat + 2.",
            example=_with("pkg://{name}-{version}"),
        ),
        Mistake(
            "slash-inside-a-reserved-value",
            lambda a: (c := _chosen(a)) is not None and "backup://{+dir}/{+file}" in c,
            "{+dir} keeps '/', so the '/' after it may belong to the directory, and another "
            "expression follows that keeps '/' too: backup://a/b/c splits as a + b/c or a/b + c.",
            example=_with("backup://{+dir}/{+file}"),
        ),
        Mistake(
            "left-out-the-reserved-one",
            lambda a: (c := _chosen(a)) is not None and "archive://{+prefix}/index" not in c,
            "{+prefix} may contain '/', but nothing follows it except the literal /index, and the "
            "end of the URI pins that literal down: the prefix is everything before the final "
            "/index. The RFC's 'delimited by the end of the URI' covers it.",
            example=_without("archive://{+prefix}/index"),
        ),
        Mistake(
            "left-out-the-query",
            lambda a: (c := _chosen(a)) is not None and "metrics://{host}/{metric}{?window}" not in c,
            "{metric} can never produce a '?' (simple expansion encodes it as %3F), so the '?' that "
            "{?window} writes marks exactly where metric ends; and '/' between host and metric does "
            "the same.",
            example=_without("metrics://{host}/{metric}{?window}"),
        ),
        Mistake(
            "left-out-the-literal-suffix",
            lambda a: (c := _chosen(a)) is not None and "users://{user_id}/avatar" not in c,
            "{user_id} encodes a '/' as %2F, so the literal /avatar after it cannot be part of the id.",
            example=_without("users://{user_id}/avatar"),
        ),
    ),
)


#: This set's exercises, in id order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_URI_04, _URI_07, _URI_08)
