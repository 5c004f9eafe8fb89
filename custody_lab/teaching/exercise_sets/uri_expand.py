"""URI-template exercises, writing URIs (notebook 03): expand a template, encode its values.

The client's side of RFC 6570: a template and values go in, one URI comes out. Rising in
difficulty:

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
uri-01    1      fill ``orders://{order_id}``
uri-02    2      percent-encode a value holding a space and a slash (``{id}``)
uri-03    2      the same kind of value under reserved expansion (``{+path}``)
uri-05    3      a query expansion with an undefined variable (``{?level,limit}``)
uri-06    3      an exploded list of path segments (``{/path*}``)
========  =====  ===================================================================

The server's side (reading a URI back, and spotting templates that cannot be read back) is
:mod:`custody_lab.teaching.exercise_sets.uri_match`. Every expected answer is computed by
:mod:`custody_lab.uri_templates`, never typed in by hand. Every mistake detector guards the
answer's type itself (an answer may be anything); the gate in ``tests/teaching/test_exercises.py`` proves it.
"""

from __future__ import annotations

__all__ = ["EXERCISES"]

from ...protocol.uri_templates import expand
from ..exercises import Exercise, Mistake
from . import _answers as ans

# --------------------------------------------------------------------------------------------
# uri-01: fill orders://{order_id}
# --------------------------------------------------------------------------------------------

_ORDERS = "orders://{order_id}"
_ORDER_ID = "A-1002"


_URI_01 = Exercise(
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
    compare=ans.same_text,
    hints=(
        "Start from the template's text and replace only the part in braces, braces included.",
        "Everything outside the braces, scheme and '://' too, is copied into the URI unchanged; the "
        "value goes where the expression was.",
    ),
    mistakes=(
        Mistake(
            "kept-the-braces",
            lambda a: ans.is_one_of(a, "orders://{A-1002}"),
            "The braces belong to the template, not to the URI: the whole {order_id} expression, "
            "braces included, is replaced by the value.",
            example="orders://{A-1002}",
        ),
        Mistake(
            "sent-the-template",
            lambda a: ans.is_one_of(a, _ORDERS),
            "That is the template itself. A client never sends a template to resources/read; it "
            "sends the URI the template makes once its placeholder is filled in.",
            example=_ORDERS,
        ),
        Mistake(
            "only-the-id",
            lambda a: ans.is_one_of(a, _ORDER_ID),
            "That is the value alone. The URI keeps the template's literal text around it: the "
            "scheme and '://' come first.",
            example=_ORDER_ID,
        ),
        Mistake(
            "named-the-variable",
            lambda a: (t := ans.text(a)) is not None and "order_id" in t and _ORDER_ID in t,
            "A simple {order_id} expression writes only the value. The variable's name appears in "
            "the URI only under the named operators ({?order_id}, {;order_id}).",
            example="orders://order_id=A-1002",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-02: percent-encode a space and a slash in a simple expression
# --------------------------------------------------------------------------------------------

_CRM = "crm://customer/{id}"
_CRM_ID = "fixture 17/eu"


def _crm_uri() -> str:
    return expand(_CRM, {"id": _CRM_ID})


_URI_02 = Exercise(
    id="uri-02",
    title="Encode a space and a slash",
    level=2,
    prompt=(
        "A customer id holds a space and a slash: `fixture 17/eu`. Expand `crm://customer/{id}` "
        "with it, by hand, exactly as RFC 6570 does. In a simple `{id}` expression every "
        "character other than letters, digits and `- . _ ~` is written as `%XX`: the UTF-8 byte "
        "in uppercase hexadecimal. (RFC 3986 §2.1: `%2f` and `%2F` are equivalent, and uppercase is "
        "the normal form, so the check accepts either and `expand` writes uppercase.) **Predict** the "
        "URI first, then compare with `expand` from `custody_lab.uri_templates`."
    ),
    input_label="crm://customer/{id} with id = 'fixture 17/eu'",
    wanted="the expanded URI, as a string",
    parse="text",
    given=lambda: {"template": _CRM, "values": {"id": _CRM_ID}},
    reference=_crm_uri,
    compare=ans.same_text,
    hints=(
        "Go through the value character by character: which characters are allowed as they are in a "
        "simple {id} expression, and which become %XX?",
        "Two characters of this value are neither letters nor digits nor - . _ ~ ; each becomes a "
        "percent sign and two hex digits of its UTF-8 byte.",
    ),
    mistakes=(
        Mistake(
            "forgot-percent-encoding",
            lambda a: ans.is_one_of(a, "crm://customer/fixture 17/eu"),
            "The value went in raw. A space is not allowed in a URI at all, and the '/' would "
            "start a new path segment: encode the space as %20 and the slash as %2F.",
            example="crm://customer/fixture 17/eu",
        ),
        Mistake(
            "kept-the-slash",
            lambda a: ans.is_one_of(a, "crm://customer/fixture%2017/eu"),
            "The space is encoded, but the '/' is still raw: the URI now has one segment more "
            "and names a different resource. In a simple {id} expression a slash is data, so "
            "it becomes %2F; only {+id} would keep it.",
            example="crm://customer/fixture%2017/eu",
        ),
        Mistake(
            "plus-for-space",
            lambda a: (t := ans.text(a)) is not None and "fixture+17" in t,
            "'+' for a space is HTML form encoding (application/x-www-form-urlencoded). URI "
            "templates write a space as %20; a '+' in a URI is just a plus sign.",
            example="crm://customer/fixture+17%2Feu",
        ),
        Mistake(
            "encoded-twice",
            lambda a: (t := ans.text(a)) is not None and "%25" in t,
            "%25 is an encoded '%': the value was encoded twice. Encode the raw value once.",
            example="crm://customer/fixture%252017%252Feu",
        ),
        Mistake(
            "encoded-the-whole-uri",
            lambda a: (t := ans.text(a)) is not None and t.startswith("crm%3A"),
            "Only the value is encoded. The template's literal text (crm://customer/) stays as written.",
            example="crm%3A%2F%2Fcustomer%2Ffixture%2017%2Feu",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-03: reserved expansion keeps the slash
# --------------------------------------------------------------------------------------------

_KB = "kb://{+path}"
_KB_PATH = "handbook/v4/returns policy.md"


def _kb_uri() -> str:
    return expand(_KB, {"path": _KB_PATH})


_URI_03 = Exercise(
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
    compare=ans.same_text,
    hints=(
        "Under {+path}, ask of each character of the value: is it reserved (it passes), unreserved (it "
        "passes), or neither (it is encoded)?",
        "Only one character of this value is allowed nowhere in a URI; the slashes and the dot stay as they are.",
    ),
    mistakes=(
        Mistake(
            "encoded-the-slash-under-plus",
            lambda a: (t := ans.text(a)) is not None and "%2F" in t.upper(),
            "Under {+path} a '/' is a reserved character and passes through unencoded: that is "
            "the whole point of the '+'. Encode only what a URI cannot hold, here the space.",
            example="kb://handbook%2Fv4%2Freturns%20policy.md",
        ),
        Mistake(
            "kept-the-space",
            lambda a: ans.is_one_of(a, "kb://handbook/v4/returns policy.md"),
            "Even reserved expansion encodes a space: a space is not allowed anywhere in a URI. Write it as %20.",
            example="kb://handbook/v4/returns policy.md",
        ),
        Mistake(
            "wrote-the-operator",
            lambda a: (t := ans.text(a)) is not None and t.startswith("kb://+"),
            "The '+' is the operator of the expression, not text: it says how to expand the "
            "value and does not appear in the URI.",
            example="kb://+handbook/v4/returns%20policy.md",
        ),
        Mistake(
            "plus-for-space",
            lambda a: (t := ans.text(a)) is not None and "returns+policy" in t,
            "'+' for a space is form encoding; a URI template writes a space as %20, under every operator.",
            example="kb://handbook/v4/returns+policy.md",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-05: a query with an undefined variable
# --------------------------------------------------------------------------------------------

_LOGS = "logs://{service}/{day}{?level,limit}"
_LOGS_VALUES: dict[str, object] = {"service": "api", "day": "2026-09-04", "level": None, "limit": 50}


def _logs_uri() -> str:
    return expand(_LOGS, _LOGS_VALUES)


_URI_05 = Exercise(
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
    compare=ans.same_text,
    hints=(
        "Expand one expression at a time; {?level,limit} writes only the variables that are defined.",
        "Write the path first, then the query: the first defined variable of {?...} follows a '?', each "
        "later one an '&', and an undefined one leaves nothing at all.",
    ),
    mistakes=(
        Mistake(
            "wrote-none",
            lambda a: (t := ans.text(a)) is not None and "None" in t,
            "None is Python's way of saying 'no value'; it never reaches the URI as the word "
            "None. An undefined variable is skipped entirely.",
            example="logs://api/2026-09-04?level=None&limit=50",
        ),
        Mistake(
            "wrote-level-equals",
            lambda a: (t := ans.text(a)) is not None and "level" in t,
            "level is undefined, so it is left out entirely, name and all. `?level=` is what an "
            "*empty string* gives (defined but empty); undefined and empty are different in "
            "RFC 6570.",
            example="logs://api/2026-09-04?level=&limit=50",
        ),
        Mistake(
            "kept-a-separator",
            lambda a: (t := ans.text(a)) is not None and ("?&" in t or t.endswith("?")),
            "The skipped variable leaves no trace, not even its separator: the first parameter "
            "actually written follows the '?' directly.",
            example="logs://api/2026-09-04?&limit=50",
        ),
        Mistake(
            "ampersand-first",
            lambda a: (t := ans.text(a)) is not None and "?" not in t and "&limit=50" in t,
            "{?...} opens the query with '?' before its first written parameter, whichever "
            "variable that is; '&' only separates the ones after it.",
            example="logs://api/2026-09-04&limit=50",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-06: an exploded list of path segments
# --------------------------------------------------------------------------------------------

_FILES = "files://docs{/path*}"
_FILES_PATH = ["guides", "returns", "policy.md"]


def _files_uri() -> str:
    return expand(_FILES, {"path": list(_FILES_PATH)})


_URI_06 = Exercise(
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
    compare=ans.same_text,
    hints=(
        "The '/' operator writes a '/' before each value it emits; with '*' every list member is one value.",
        "Three members, so three segments, each preceded by one '/', after the literal text files://docs.",
    ),
    mistakes=(
        Mistake(
            "joined-with-commas",
            lambda a: (t := ans.text(a)) is not None and "guides,returns" in t,
            "Commas join a list that is NOT exploded ({/path} gives one segment, "
            "guides,returns,policy.md). With the '*' each member gets the operator's own "
            "separator, '/', so each is its own segment.",
            example="files://docs/guides,returns,policy.md",
        ),
        Mistake(
            "encoded-the-slashes",
            lambda a: (t := ans.text(a)) is not None and "%2F" in t.upper(),
            "The list was joined into one string first, and then its slashes were encoded as "
            "data. Explode works on the members: each is encoded on its own and the '/' "
            "between them is the operator's separator, written as is.",
            example="files://docs/guides%2Freturns%2Fpolicy.md",
        ),
        Mistake(
            "no-leading-slash",
            lambda a: (t := ans.text(a)) is not None and t.startswith("files://docsguides"),
            "The {/...} operator writes a '/' before its first value too; the template's literal "
            "text, files://docs, has none of its own.",
            example="files://docsguides/returns/policy.md",
        ),
        Mistake(
            "doubled-the-slash",
            lambda a: (t := ans.text(a)) is not None and t.startswith("files://docs//"),
            "One slash too many: the operator already writes the '/' before each member.",
            example="files://docs//guides/returns/policy.md",
        ),
        Mistake(
            "wrote-the-python-list",
            lambda a: (t := ans.text(a)) is not None and ("[" in t or "%5B" in t.upper()),
            "That is the Python list's own text. A list value is expanded member by member; "
            "brackets and quotes never appear.",
            example="files://docs/['guides', 'returns', 'policy.md']",
        ),
    ),
)


#: This set's exercises, in id order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_URI_01, _URI_02, _URI_03, _URI_05, _URI_06)
