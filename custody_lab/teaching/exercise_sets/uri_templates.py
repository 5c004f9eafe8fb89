"""URI-template exercises (notebook 03): expand, encode, match, and spot an invalid template.

Rising in difficulty:

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
uri-01    1      fill ``orders://{order_id}``
uri-02    2      percent-encode a value holding a space and a slash (``{id}``)
uri-03    2      the same kind of value under reserved expansion (``{+path}``)
uri-04    2      match a URI back to its id (percent-decoding, UTF-8)
uri-05    3      a query expansion with an undefined variable (``{?level,limit}``)
uri-06    3      an exploded list of path segments (``{/path*}``)
uri-07    4      the 0-based position where an invalid template goes wrong
uri-08    5      which templates ``match`` can read values back from
========  =====  ===================================================================

Every expected answer is computed by :mod:`custody_lab.uri_templates`, never typed in by hand.
Every mistake detector guards the answer's type itself (an answer may be anything); the gate in
``tests/test_exercises.py`` proves it.
"""

from __future__ import annotations

__all__: list[str] = []

from ...protocol.uri_templates import AmbiguousTemplateError, UriTemplateError, expand, match, parse
from ..exercises import Exercise, Mistake, register


def _text(answer: object) -> str | None:
    """The answer as stripped text, or ``None`` when it is not a string."""
    return answer.strip() if isinstance(answer, str) else None


def _is(answer: object, *candidates: str) -> bool:
    """Whether the answer, as text, is one of ``candidates``."""
    return _text(answer) in candidates


def _same_text(answer: object, expected: object) -> bool:
    return _text(answer) == expected


def _whole_number(answer: object) -> int | None:
    """The answer as an int, or ``None`` (booleans and floats with a fraction are not positions)."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, int):
        return answer
    if isinstance(answer, float) and answer.is_integer():
        return int(answer)
    return None


# --------------------------------------------------------------------------------------------
# uri-01: fill orders://{order_id}
# --------------------------------------------------------------------------------------------

_ORDERS = "orders://{order_id}"
_ORDER_ID = "A-1002"


register(
    Exercise(
        id="uri-01",
        title="Fill in an order template",
        level=1,
        prompt=(
            "The server publishes the resource template `orders://{order_id}` (seed 004). Write the "
            "URI a client sends to `resources/read` for order **A-1002**. "
            '`input_for("uri-01")` gives the template and the value.'
        ),
        input_label="the template orders://{order_id} with order_id = 'A-1002'",
        wanted="the URI, as a string",
        parse="text",
        given=lambda: {"template": _ORDERS, "values": {"order_id": _ORDER_ID}},
        reference=lambda: expand(_ORDERS, {"order_id": _ORDER_ID}),
        compare=_same_text,
        mistakes=(
            Mistake(
                "kept-the-braces",
                lambda a: _is(a, "orders://{A-1002}"),
                "The braces belong to the template, not to the URI: the whole {order_id} expression, "
                "braces included, is replaced by the value.",
                example="orders://{A-1002}",
            ),
            Mistake(
                "sent-the-template",
                lambda a: _is(a, _ORDERS),
                "That is the template itself. A client never sends a template to resources/read; it "
                "sends the URI the template makes once its placeholder is filled in.",
                example=_ORDERS,
            ),
            Mistake(
                "only-the-id",
                lambda a: _is(a, _ORDER_ID),
                "That is the value alone. The URI keeps the template's literal text around it: the "
                "scheme and '://' come first.",
                example=_ORDER_ID,
            ),
            Mistake(
                "named-the-variable",
                lambda a: (t := _text(a)) is not None and "order_id" in t and _ORDER_ID in t,
                "A simple {order_id} expression writes only the value. The variable's name appears in "
                "the URI only under the named operators ({?order_id}, {;order_id}).",
                example="orders://order_id=A-1002",
            ),
        ),
    )
)


# --------------------------------------------------------------------------------------------
# uri-02: percent-encode a space and a slash in a simple expression
# --------------------------------------------------------------------------------------------

_CRM = "crm://customer/{id}"
_CRM_ID = "fixture 17/eu"


def _crm_uri() -> str:
    return expand(_CRM, {"id": _CRM_ID})


register(
    Exercise(
        id="uri-02",
        title="Encode a space and a slash",
        level=2,
        prompt=(
            "A customer id holds a space and a slash: `fixture 17/eu`. Expand `crm://customer/{id}` "
            "with it, by hand, exactly as RFC 6570 does. In a simple `{id}` expression every "
            "character other than letters, digits and `- . _ ~` is written as `%XX`: the UTF-8 byte "
            "in uppercase hexadecimal. Then compare with `expand` from `custody_lab.uri_templates`."
        ),
        input_label="crm://customer/{id} with id = 'fixture 17/eu'",
        wanted="the expanded URI, as a string",
        parse="text",
        given=lambda: {"template": _CRM, "values": {"id": _CRM_ID}},
        reference=_crm_uri,
        compare=_same_text,
        mistakes=(
            Mistake(
                "forgot-percent-encoding",
                lambda a: _is(a, "crm://customer/fixture 17/eu"),
                "The value went in raw. A space is not allowed in a URI at all, and the '/' would "
                "start a new path segment: encode the space as %20 and the slash as %2F.",
                example="crm://customer/fixture 17/eu",
            ),
            Mistake(
                "kept-the-slash",
                lambda a: _is(a, "crm://customer/fixture%2017/eu"),
                "The space is encoded, but the '/' is still raw: the URI now has one segment more "
                "and names a different resource. In a simple {id} expression a slash is data, so "
                "it becomes %2F; only {+id} would keep it.",
                example="crm://customer/fixture%2017/eu",
            ),
            Mistake(
                "plus-for-space",
                lambda a: (t := _text(a)) is not None and "fixture+17" in t,
                "'+' for a space is HTML form encoding (application/x-www-form-urlencoded). URI "
                "templates write a space as %20; a '+' in a URI is just a plus sign.",
                example="crm://customer/fixture+17%2Feu",
            ),
            Mistake(
                "lowercase-hex",
                lambda a: (t := _text(a)) is not None and t != _crm_uri() and t.upper() == _crm_uri().upper(),
                "Write the hex digits in uppercase (%2F, not %2f), as RFC 6570 and RFC 3986 §2.1 do. "
                "Servers compare resource URIs as strings, so a lowercase triplet makes a different "
                "URI.",
                example="crm://customer/fixture%2017%2feu",
            ),
            Mistake(
                "encoded-twice",
                lambda a: (t := _text(a)) is not None and "%25" in t,
                "%25 is an encoded '%': the value was encoded twice. Encode the raw value once.",
                example="crm://customer/fixture%252017%252Feu",
            ),
            Mistake(
                "encoded-the-whole-uri",
                lambda a: (t := _text(a)) is not None and t.startswith("crm%3A"),
                "Only the value is encoded. The template's literal text (crm://customer/) stays as written.",
                example="crm%3A%2F%2Fcustomer%2Ffixture%2017%2Feu",
            ),
        ),
    )
)


# --------------------------------------------------------------------------------------------
# uri-03: reserved expansion keeps the slash
# --------------------------------------------------------------------------------------------

_KB = "kb://{+path}"
_KB_PATH = "handbook/v4/returns policy.md"


def _kb_uri() -> str:
    return expand(_KB, {"path": _KB_PATH})


register(
    Exercise(
        id="uri-03",
        title="Reserved expansion keeps the slashes",
        level=2,
        prompt=(
            "The template `kb://{+path}` uses **reserved expansion**. Expand it with "
            '`path = "handbook/v4/returns policy.md"`. Under `+`, reserved characters such as `/` '
            "pass through; anything that is not allowed in a URI at all is still encoded. (That is "
            "also why `{+path}` must never be filled from untrusted input: a `../` in the value "
            "leaves its place.)"
        ),
        input_label="kb://{+path} with path = 'handbook/v4/returns policy.md'",
        wanted="the expanded URI, as a string",
        parse="text",
        given=lambda: {"template": _KB, "values": {"path": _KB_PATH}},
        reference=_kb_uri,
        compare=_same_text,
        mistakes=(
            Mistake(
                "encoded-the-slash-under-plus",
                lambda a: (t := _text(a)) is not None and "%2F" in t.upper(),
                "Under {+path} a '/' is a reserved character and passes through unencoded: that is "
                "the whole point of the '+'. Encode only what a URI cannot hold, here the space.",
                example="kb://handbook%2Fv4%2Freturns%20policy.md",
            ),
            Mistake(
                "kept-the-space",
                lambda a: _is(a, "kb://handbook/v4/returns policy.md"),
                "Even reserved expansion encodes a space: a space is not allowed anywhere in a URI. Write it as %20.",
                example="kb://handbook/v4/returns policy.md",
            ),
            Mistake(
                "wrote-the-operator",
                lambda a: (t := _text(a)) is not None and t.startswith("kb://+"),
                "The '+' is the operator of the expression, not text: it says how to expand the "
                "value and does not appear in the URI.",
                example="kb://+handbook/v4/returns%20policy.md",
            ),
            Mistake(
                "plus-for-space",
                lambda a: (t := _text(a)) is not None and "returns+policy" in t,
                "'+' for a space is form encoding; a URI template writes a space as %20, under every operator.",
                example="kb://handbook/v4/returns+policy.md",
            ),
        ),
    )
)


# --------------------------------------------------------------------------------------------
# uri-04: match a URI back to its id
# --------------------------------------------------------------------------------------------

_MATCH_URI = "crm://customer/m%C3%BCller%2Fde"


def _matched_id() -> object:
    found = match(_CRM, _MATCH_URI)
    assert found is not None  # the exercise's URI is chosen to match
    return found["id"]


register(
    Exercise(
        id="uri-04",
        title="Match a URI back to its id",
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
        compare=_same_text,
        mistakes=(
            Mistake(
                "kept-the-percent-encoding",
                lambda a: _is(a, "m%C3%BCller%2Fde", "m%c3%bcller%2fde"),
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
                lambda a: (t := _text(a)) is not None and t.startswith("crm://"),
                "That is the whole URI. The server's job is to take the template's literal part "
                "(crm://customer/) off and decode what is left.",
                example=_MATCH_URI,
            ),
            Mistake(
                "decoded-as-latin-1",
                lambda a: (t := _text(a)) is not None and "Ã" in t,
                "The bytes C3 BC were decoded one character each (Latin-1). Percent-encoded URI "
                "values are UTF-8: C3 BC together are the single letter ü.",
                example="mÃ¼ller/de",
            ),
            Mistake(
                "split-after-decoding",
                lambda a: _is(a, "de", "müller", "m%C3%BCller"),
                "%2F is part of the value: the client encoded a '/' that was data. Split the URI on "
                "the template's literal text first, and decode afterwards, so the decoded '/' stays "
                "inside the id.",
                example="de",
            ),
        ),
    )
)


# --------------------------------------------------------------------------------------------
# uri-05: a query with an undefined variable
# --------------------------------------------------------------------------------------------

_LOGS = "logs://{service}/{day}{?level,limit}"
_LOGS_VALUES: dict[str, object] = {"service": "api", "day": "2026-09-04", "level": None, "limit": 50}


def _logs_uri() -> str:
    return expand(_LOGS, _LOGS_VALUES)


register(
    Exercise(
        id="uri-05",
        title="A query with an undefined variable",
        level=3,
        prompt=(
            'Expand `logs://{service}/{day}{?level,limit}` with `service = "api"`, '
            '`day = "2026-09-04"`, `level = None` and `limit = 50`. `None` means **undefined** '
            "(RFC 6570 §2.3): the client has no level to ask for. Watch what `{?...}` writes for "
            "the first parameter that is actually there."
        ),
        input_label="logs://{service}/{day}{?level,limit} with level undefined and limit = 50",
        wanted="the expanded URI, as a string",
        parse="text",
        given=lambda: {"template": _LOGS, "values": dict(_LOGS_VALUES)},
        reference=_logs_uri,
        compare=_same_text,
        mistakes=(
            Mistake(
                "wrote-none",
                lambda a: (t := _text(a)) is not None and "None" in t,
                "None is Python's way of saying 'no value'; it never reaches the URI as the word "
                "None. An undefined variable is skipped entirely.",
                example="logs://api/2026-09-04?level=None&limit=50",
            ),
            Mistake(
                "wrote-level-equals",
                lambda a: (t := _text(a)) is not None and "level" in t,
                "level is undefined, so it is left out entirely, name and all. `?level=` is what an "
                "*empty string* gives (defined but empty); undefined and empty are different in "
                "RFC 6570.",
                example="logs://api/2026-09-04?level=&limit=50",
            ),
            Mistake(
                "kept-a-separator",
                lambda a: (t := _text(a)) is not None and ("?&" in t or t.endswith("?")),
                "The skipped variable leaves no trace, not even its separator: the first parameter "
                "actually written follows the '?' directly.",
                example="logs://api/2026-09-04?&limit=50",
            ),
            Mistake(
                "ampersand-first",
                lambda a: (t := _text(a)) is not None and "?" not in t and "&limit=50" in t,
                "{?...} opens the query with '?' before its first written parameter, whichever "
                "variable that is; '&' only separates the ones after it.",
                example="logs://api/2026-09-04&limit=50",
            ),
        ),
    )
)


# --------------------------------------------------------------------------------------------
# uri-06: an exploded list of path segments
# --------------------------------------------------------------------------------------------

_FILES = "files://docs{/path*}"
_FILES_PATH = ["guides", "returns", "policy.md"]


def _files_uri() -> str:
    return expand(_FILES, {"path": list(_FILES_PATH)})


register(
    Exercise(
        id="uri-06",
        title="Explode a list into path segments",
        level=3,
        prompt=(
            'Expand `files://docs{/path*}` with the list `path = ["guides", "returns", '
            '"policy.md"]`. The `/` operator starts a path segment; the `*` (**explode**) makes '
            "each member of the list a value of its own."
        ),
        input_label="files://docs{/path*} with path = ['guides', 'returns', 'policy.md']",
        wanted="the expanded URI, as a string",
        parse="text",
        given=lambda: {"template": _FILES, "values": {"path": list(_FILES_PATH)}},
        reference=_files_uri,
        compare=_same_text,
        mistakes=(
            Mistake(
                "joined-with-commas",
                lambda a: (t := _text(a)) is not None and "guides,returns" in t,
                "Commas join a list that is NOT exploded ({/path} gives one segment, "
                "guides,returns,policy.md). With the '*' each member gets the operator's own "
                "separator, '/', so each is its own segment.",
                example="files://docs/guides,returns,policy.md",
            ),
            Mistake(
                "encoded-the-slashes",
                lambda a: (t := _text(a)) is not None and "%2F" in t.upper(),
                "The list was joined into one string first, and then its slashes were encoded as "
                "data. Explode works on the members: each is encoded on its own and the '/' "
                "between them is the operator's separator, written as is.",
                example="files://docs/guides%2Freturns%2Fpolicy.md",
            ),
            Mistake(
                "no-leading-slash",
                lambda a: (t := _text(a)) is not None and t.startswith("files://docsguides"),
                "The {/...} operator writes a '/' before its first value too; the template's literal "
                "text, files://docs, has none of its own.",
                example="files://docsguides/returns/policy.md",
            ),
            Mistake(
                "doubled-the-slash",
                lambda a: (t := _text(a)) is not None and t.startswith("files://docs//"),
                "One slash too many: the operator already writes the '/' before each member.",
                example="files://docs//guides/returns/policy.md",
            ),
            Mistake(
                "wrote-the-python-list",
                lambda a: (t := _text(a)) is not None and ("[" in t or "%5B" in t.upper()),
                "That is the Python list's own text. A list value is expanded member by member; "
                "brackets and quotes never appear.",
                example="files://docs/['guides', 'returns', 'policy.md']",
            ),
        ),
    )
)


# --------------------------------------------------------------------------------------------
# uri-07: where is the template wrong?
# --------------------------------------------------------------------------------------------

_BROKEN = "orders://{order-id}"


def _error_position() -> int | None:
    try:
        parse(_BROKEN)
    except UriTemplateError as error:
        return error.position
    raise AssertionError(f"{_BROKEN!r} was expected to be invalid")  # pragma: no cover


def _brace_position() -> int:
    return _BROKEN.index("{")


register(
    Exercise(
        id="uri-07",
        title="Spot where a template goes wrong",
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
        compare=lambda a, e: _whole_number(a) == e,
        mistakes=(
            Mistake(
                "counted-from-one",
                lambda a: _whole_number(a) == _error_position() + 1,  # type: ignore[operator]
                "That counts from 1. Python and the engine's .position count from 0: the first "
                "character, the 'o' of orders, is position 0.",
                example=16,
            ),
            Mistake(
                "pointed-at-the-brace",
                lambda a: _whole_number(a) == _brace_position(),
                "That is where the expression starts (the MCP SDK reports that position too). The "
                "'{' is fine; find the first character inside it that a variable name cannot hold.",
                example=9,
            ),
            Mistake(
                "counted-inside-the-expression",
                lambda a: (
                    _whole_number(a)
                    in (
                        _error_position() - _brace_position(),  # type: ignore[operator]
                        _error_position() - _brace_position() - 1,
                    )
                ),  # type: ignore[operator]
                "You counted from the '{' (or from just after it). Count from the first character of "
                "the whole template.",
                example=6,
            ),
            Mistake(
                "gave-the-character",
                lambda a: _is(a, "-", "'-'"),
                "Right character, but the question asks where it is: give its position as a number.",
                example="-",
            ),
            Mistake(
                "position-as-text",
                lambda a: (t := _text(a)) is not None and t.isdigit(),
                "Give the number itself, not text: write it without quotes.",
                example="15",
            ),
        ),
    )
)


# --------------------------------------------------------------------------------------------
# uri-08: which templates can be matched?
# --------------------------------------------------------------------------------------------

_CANDIDATES: tuple[str, ...] = (
    "orders://{order_id}",
    "files://{name}{.ext}",
    "logs://{service}/{day}{?level}",
    "repo://{owner}{repo}",
    "kb://{+path}/meta",
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


register(
    Exercise(
        id="uri-08",
        title="Which templates can a server match?",
        level=5,
        prompt=(
            "A server must read the values back out of every URI it receives. That only works when "
            "each expression's end is visible: whatever follows it must be a character the "
            "expression itself cannot produce (RFC 6570 §1.4). Of the five templates in "
            '`input_for("uri-08")`, which ones can the lab\'s `match` read back unambiguously? '
            "Answer with a list of the template strings. Reason first, then confirm: `match` raises "
            "`AmbiguousTemplateError` for the others."
        ),
        input_label="the five templates of uri-08",
        wanted="a list of template strings",
        given=lambda: list(_CANDIDATES),
        reference=_matchable_templates,
        compare=_same_templates,
        mistakes=(
            Mistake(
                "gave-positions",
                lambda a: (
                    isinstance(a, list | tuple | set) and bool(a) and all(_whole_number(item) is not None for item in a)
                ),
                "Give the templates themselves (the strings), not their positions in the list.",
                example=[0, 2, 4],
            ),
            Mistake(
                "adjacent-variables",
                lambda a: (c := _chosen(a)) is not None and "repo://{owner}{repo}" in c,
                "In repo://{owner}{repo} nothing separates the two values: 'ab' could be a + b or "
                "ab + an empty repo. Two simple expressions side by side can never be told apart.",
                example=_with("repo://{owner}{repo}"),
            ),
            Mistake(
                "dot-inside-and-after",
                lambda a: (c := _chosen(a)) is not None and "files://{name}{.ext}" in c,
                "A '.' may be part of {name}'s value and also starts {.ext}: files://report.tar.gz "
                "splits as report + tar.gz or report.tar + gz. The MCP SDK accepts this template "
                "and picks the last dot; the lab refuses to guess.",
                example=_with("files://{name}{.ext}"),
            ),
            Mistake(
                "left-out-the-reserved-one",
                lambda a: (c := _chosen(a)) is not None and "kb://{+path}/meta" not in c,
                "{+path} may contain '/', but nothing follows it except the literal /meta, and the "
                "end of the URI pins that literal down: the path is everything before the final "
                "/meta.",
                example=_without("kb://{+path}/meta"),
            ),
            Mistake(
                "left-out-the-query",
                lambda a: (c := _chosen(a)) is not None and "logs://{service}/{day}{?level}" not in c,
                "{day} can never produce a '?' (simple expansion encodes it as %3F), so the '?' that "
                "{?level} writes marks exactly where day ends; and '/' between service and day does "
                "the same.",
                example=_without("logs://{service}/{day}{?level}"),
            ),
        ),
    )
)
