"""URI-template exercises, writing URIs (notebook 03): expand a template, encode its values.

The client's side of RFC 6570: a template and values go in, one URI comes out. Rising in
difficulty:

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
uri-01    1      fill a two-variable ticket template (``tickets://{queue}/{ticket_id}``)
uri-02    2      percent-encode a file name holding a space and a slash (``{filename}``)
uri-03    2      reserved expansion of a path that already holds a ``%20`` triplet (``{+path}``)
uri-05    3      undefined and empty variables in one query (``{?status,assignee,q}``)
uri-06    3      an exploded list in a query (``{?tag*}``)
========  =====  ===================================================================

The server's side (reading a URI back, and spotting templates that cannot be read back) is
:mod:`custody_lab.teaching.exercise_sets.uri_match`. Every expected answer is computed by
:mod:`custody_lab.uri_templates`, never typed in by hand. Every mistake detector guards the
answer's type itself (an answer may be anything); the gate in ``tests/teaching/test_exercises.py`` proves it.

Notebook 03 shows the operators on other templates (``operator_examples``: ``orders://{order_id}``,
``kb://{+name}``, ``logs://api/2026-09-04{?level,limit}``, ``files://docs{/segments*}``) and the
hostile-value table on ``crm://customer/{id}``: each exercise here uses another template in
another situation, so it is a transfer of the rule, not a copy of a printed row.
"""

from __future__ import annotations

__all__ = ["EXERCISES"]

from ...protocol.uri_templates import expand
from ..exercises import Exercise, Mistake
from . import _answers as ans

# --------------------------------------------------------------------------------------------
# uri-01: fill a two-variable template (level 1)
# --------------------------------------------------------------------------------------------

_TICKETS = "tickets://{queue}/{ticket_id}"
_TICKET_VALUES = {"queue": "returns", "ticket_id": "T-588"}


def _ticket_uri() -> str:
    return expand(_TICKETS, dict(_TICKET_VALUES))


_URI_01 = Exercise(
    id="uri-01",
    title="Fill in a ticket template",
    why=(
        "a simple {var} expression is replaced by its value, each variable in its own place, and letters, "
        "digits and hyphens pass unencoded"
    ),
    level=1,
    prompt=(
        "The help desk publishes the resource template `tickets://{queue}/{ticket_id}`. A customer "
        "writes about ticket **T-588** in the **returns** queue. Write the URI a client sends to "
        '`resources/read` for that ticket. `input_for("uri-01")` gives the template and the values.'
    ),
    input_label="the template tickets://{queue}/{ticket_id} with queue = 'returns', ticket_id = 'T-588'",
    wanted="the URI, as a string",
    parse="text",
    given=lambda: {"template": _TICKETS, "values": dict(_TICKET_VALUES)},
    reference=_ticket_uri,
    compare=ans.same_text,
    hints=(
        "Start from the template's text and replace only the parts in braces, braces included.",
        "Everything outside the braces, scheme, '://' and the '/' between the two expressions, is "
        "copied into the URI unchanged; each value goes where its expression was.",
    ),
    mistakes=(
        Mistake(
            "kept-the-braces",
            lambda a: (t := ans.text(a)) is not None and "{" in t and "T-588" in t,
            "The braces belong to the template, not to the URI: each whole expression, braces "
            "included, is replaced by its value.",
            example="tickets://{returns}/{T-588}",
        ),
        Mistake(
            "sent-the-template",
            lambda a: ans.is_one_of(a, _TICKETS),
            "That is the template itself. A client never sends a template to resources/read; it "
            "sends the URI the template makes once its placeholders are filled in.",
            example=_TICKETS,
        ),
        Mistake(
            "swapped-the-values",
            lambda a: ans.is_one_of(a, "tickets://T-588/returns"),
            "Each value goes where its own variable's expression is: the template names the queue "
            "first and the ticket second.",
            example="tickets://T-588/returns",
        ),
        Mistake(
            "only-the-values",
            lambda a: ans.is_one_of(a, "T-588", "returns/T-588"),
            "That is the values alone. The URI keeps the template's literal text around them: the "
            "scheme and '://' come first.",
            example="returns/T-588",
        ),
        Mistake(
            "named-the-variables",
            lambda a: (t := ans.text(a)) is not None and ("ticket_id" in t or "queue=" in t),
            "A simple {name} expression writes only the value. A variable's name appears in the "
            "URI only under the named operators ({?name}, {;name}).",
            example="tickets://queue=returns/ticket_id=T-588",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-02: percent-encode a space and a slash in a simple expression
# --------------------------------------------------------------------------------------------

_EXPORTS = "exports://{filename}"
_FILENAME = "Q3 report/final.csv"


def _export_uri() -> str:
    return expand(_EXPORTS, {"filename": _FILENAME})


_URI_02 = Exercise(
    id="uri-02",
    title="Encode a space and a slash",
    why=(
        "in a simple {var} expression only unreserved characters pass: the space becomes %20 and the slash, a"
        " reserved character, becomes %2F, so the file name stays one path segment"
    ),
    level=2,
    prompt=(
        "An export tool names its files by what the user typed, and publishes them under the "
        "template `exports://{filename}`. The user typed `Q3 report/final.csv`. Expand the "
        "template with it, by hand, exactly as RFC 6570 does. In a simple `{filename}` "
        "expression every character other than letters, digits and `- . _ ~` is written as "
        "`%XX`: the UTF-8 byte in uppercase hexadecimal. (RFC 3986 §2.1: `%2f` and `%2F` are "
        "equivalent, and uppercase is the normal form, so the check accepts either and `expand` "
        "writes uppercase.) **Predict** the URI first, then compare with `expand` from "
        "`custody_lab.uri_templates`."
    ),
    input_label="exports://{filename} with filename = 'Q3 report/final.csv'",
    wanted="the expanded URI, as a string",
    parse="text",
    given=lambda: {"template": _EXPORTS, "values": {"filename": _FILENAME}},
    reference=_export_uri,
    compare=ans.same_text,
    hints=(
        "Go through the value character by character: which characters are allowed as they are in a "
        "simple {filename} expression, and which become %XX?",
        "Two characters of this value are neither letters nor digits nor - . _ ~ ; each becomes a "
        "percent sign and two hex digits of its UTF-8 byte. The dot of the extension stays.",
    ),
    mistakes=(
        Mistake(
            "forgot-percent-encoding",
            lambda a: ans.is_one_of(a, "exports://Q3 report/final.csv"),
            "The value went in raw. A space is not allowed in a URI at all, and the '/' would "
            "start a new path segment: encode the space as %20 and the slash as %2F.",
            example="exports://Q3 report/final.csv",
        ),
        Mistake(
            "kept-the-slash",
            lambda a: ans.is_one_of(a, "exports://Q3%20report/final.csv"),
            "The space is encoded, but the '/' is still raw: the URI now has one segment more "
            "and names a different resource. In a simple {filename} expression a slash is data, "
            "so it becomes %2F; only {+filename} would keep it.",
            example="exports://Q3%20report/final.csv",
        ),
        Mistake(
            "plus-for-space",
            lambda a: (t := ans.text(a)) is not None and "Q3+report" in t,
            "'+' for a space is HTML form encoding (application/x-www-form-urlencoded). URI "
            "templates write a space as %20; a '+' in a URI is just a plus sign.",
            example="exports://Q3+report%2Ffinal.csv",
        ),
        Mistake(
            "encoded-twice",
            lambda a: (t := ans.text(a)) is not None and "%25" in t,
            "%25 is an encoded '%': the value was encoded twice. Encode the raw value once.",
            example="exports://Q3%2520report%252Ffinal.csv",
        ),
        Mistake(
            "encoded-the-dot",
            lambda a: (t := ans.text(a)) is not None and "%2E" in t.upper(),
            "'.' is an unreserved character, like letters and digits: it is written as it is.",
            example="exports://Q3%20report%2Ffinal%2Ecsv",
        ),
        Mistake(
            "encoded-the-whole-uri",
            lambda a: (t := ans.text(a)) is not None and t.startswith("exports%3A"),
            "Only the value is encoded. The template's literal text (exports://) stays as written.",
            example="exports%3A%2F%2FQ3%20report%2Ffinal.csv",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-03: reserved expansion keeps the slash and an existing %XX triplet
# --------------------------------------------------------------------------------------------

_SHARED = "files://shared/{+path}"
_SHARED_PATH = "Q3 plans/budget%20final.xlsx"


def _shared_uri() -> str:
    return expand(_SHARED, {"path": _SHARED_PATH})


_URI_03 = Exercise(
    id="uri-03",
    title="Reserved expansion of a path that is partly encoded already",
    why=(
        "reserved expansion lets reserved characters such as / and percent-triplets already in the value "
        "through, and encodes only what a URI cannot hold, such as the raw space"
    ),
    level=2,
    prompt=(
        "A file server publishes `files://shared/{+path}` (**reserved expansion**) and fills it "
        "from its own index, where one file is stored as "
        '`path = "Q3 plans/budget%20final.xlsx"`: the folder name holds a raw space, the file name '
        "was percent-encoded already. Under `+` (RFC 6570 §3.2.3) reserved characters such as `/` "
        "pass through, so does a `%XX` triplet that is already in the value, and anything else "
        "that is not allowed in a URI is encoded. Expand it. (That is also why `{+path}` must "
        "never be filled from untrusted input: a `../` in the value leaves its place.)"
    ),
    input_label="files://shared/{+path} with path = 'Q3 plans/budget%20final.xlsx'",
    wanted="the expanded URI, as a string",
    parse="text",
    given=lambda: {"template": _SHARED, "values": {"path": _SHARED_PATH}},
    reference=_shared_uri,
    compare=ans.same_text,
    hints=(
        "Under {+path}, ask of each character of the value: is it reserved (it passes), unreserved "
        "(it passes), part of a %XX triplet (it passes), or none of these (it is encoded)?",
        "Only one character of this value is allowed nowhere in a URI; the slash, the dot and the "
        "triplet that is already there stay as they are.",
    ),
    mistakes=(
        Mistake(
            "encoded-the-slash-under-plus",
            lambda a: (t := ans.text(a)) is not None and "%2F" in t.upper(),
            "Under {+path} a '/' is a reserved character and passes through unencoded: that is "
            "the whole point of the '+'. Encode only what a URI cannot hold.",
            example="files://shared/Q3%20plans%2Fbudget%20final.xlsx",
        ),
        Mistake(
            "re-encoded-the-triplet",
            lambda a: (t := ans.text(a)) is not None and "%25" in t,
            "%25 is an encoded '%': the %20 that was already in the value was encoded again. "
            "Reserved expansion lets a %XX triplet through as it is (RFC 6570 §3.2.3); a simple "
            "{path} would not.",
            example="files://shared/Q3%20plans/budget%2520final.xlsx",
        ),
        Mistake(
            "decoded-the-triplet",
            lambda a: (t := ans.text(a)) is not None and "budget final" in t,
            "Expansion never decodes: the %20 in the stored value stays %20. Only characters a URI "
            "cannot hold are changed, and they are encoded, not decoded.",
            example="files://shared/Q3%20plans/budget final.xlsx",
        ),
        Mistake(
            "kept-the-space",
            lambda a: (t := ans.text(a)) is not None and " " in t,
            "Even reserved expansion encodes a space: a space is not allowed anywhere in a URI. Write it as %20.",
            example="files://shared/Q3 plans/budget%20final.xlsx",
        ),
        Mistake(
            "wrote-the-operator",
            lambda a: (t := ans.text(a)) is not None and t.startswith("files://shared/+"),
            "The '+' is the operator of the expression, not text: it says how to expand the "
            "value and does not appear in the URI.",
            example="files://shared/+Q3%20plans/budget%20final.xlsx",
        ),
        Mistake(
            "plus-for-space",
            lambda a: (t := ans.text(a)) is not None and "Q3+plans" in t,
            "'+' for a space is form encoding; a URI template writes a space as %20, under every operator.",
            example="files://shared/Q3+plans/budget%20final.xlsx",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-05: undefined and empty in one query
# --------------------------------------------------------------------------------------------

_SEARCH = "tickets://search{?status,assignee,q}"
_SEARCH_VALUES: dict[str, object] = {"status": "open", "assignee": None, "q": ""}


def _search_uri() -> str:
    return expand(_SEARCH, _SEARCH_VALUES)


_URI_05 = Exercise(
    id="uri-05",
    title="Undefined and empty in one query",
    why=(
        "RFC 6570 §3.2.8: {?...} writes nothing for an undefined variable (None) but name= for a defined empty string"
    ),
    level=3,
    prompt=(
        "A help-desk client builds its search URI from `tickets://search{?status,assignee,q}`. The "
        'agent filters on `status = "open"`, picked no assignee (`assignee = None`, **undefined**, '
        'RFC 6570 §2.3) and left the search box empty (`q = ""`, **defined but empty**). Expand the '
        "template. Decide for each variable what `{?...}` writes for it: a pair, a name and `=`, or "
        "nothing at all."
    ),
    input_label="tickets://search{?status,assignee,q} with status = 'open', assignee undefined, q = ''",
    wanted="the expanded URI, as a string",
    parse="text",
    given=lambda: {"template": _SEARCH, "values": dict(_SEARCH_VALUES)},
    reference=_search_uri,
    compare=ans.same_text,
    hints=(
        "{?status,assignee,q} writes its variables in the template's order; undefined and empty are "
        "two different cases in RFC 6570.",
        "An undefined variable leaves nothing, not even a separator; an empty string is still written, "
        "as its name and '=' (form-style query, §3.2.8).",
    ),
    mistakes=(
        Mistake(
            "wrote-none",
            lambda a: (t := ans.text(a)) is not None and "None" in t,
            "None is Python's way of saying 'no value'; it never reaches the URI as the word "
            "None. An undefined variable is skipped entirely.",
            example="tickets://search?status=open&assignee=None&q=",
        ),
        Mistake(
            "wrote-the-undefined-name",
            lambda a: (t := ans.text(a)) is not None and "assignee" in t,
            "assignee is undefined, so it is left out entirely, name and all. `assignee=` is what an "
            "*empty string* gives (defined but empty); undefined and empty are different in RFC 6570.",
            example="tickets://search?status=open&assignee=&q=",
        ),
        Mistake(
            "kept-a-separator",
            lambda a: (t := ans.text(a)) is not None and ("&&" in t or "?&" in t or t.endswith("&")),
            "The skipped variable leaves no trace, not even its separator: one '&' between the pairs actually written.",
            example="tickets://search?status=open&&q=",
        ),
        Mistake(
            "dropped-the-empty-value",
            lambda a: (t := ans.text(a)) is not None and "?" in t and "q" not in t.partition("?")[2],
            "q is defined, only empty: the client did send the search box. Under '?' an empty value is "
            "still written, its name and '='. Only undefined variables disappear.",
            example="tickets://search?status=open",
        ),
        Mistake(
            "empty-without-equals",
            lambda a: (t := ans.text(a)) is not None and t.endswith("&q"),
            "Under '?' (and '&') an empty value keeps its '='; only the ';' operator writes a bare name "
            "(`;empty`), RFC 6570 §3.2.7.",
            example="tickets://search?status=open&q",
        ),
        Mistake(
            "ampersand-first",
            lambda a: (t := ans.text(a)) is not None and "?" not in t and "&" in t,
            "{?...} opens the query with '?' before its first written parameter; '&' only separates the ones after it.",
            example="tickets://search&status=open&q=",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# uri-06: an exploded list in a query
# --------------------------------------------------------------------------------------------

_TAGGED = "search://kb{?tag*}"
_TAGS = ["returns", "eu"]


def _tagged_uri() -> str:
    return expand(_TAGGED, {"tag": list(_TAGS)})


_URI_06 = Exercise(
    id="uri-06",
    title="Explode a list into query parameters",
    why=(
        "with the explode modifier each member of the list becomes a name=value pair of its own, joined by &,"
        " instead of one comma-separated value"
    ),
    level=3,
    prompt=(
        'A knowledge-base search takes any number of tags: `search://kb{?tag*}` with the list `tag = ["returns", '
        '"eu"]`. The `?` operator writes a form-style query; the `*` (**explode**, RFC 6570 §2.4.2) '
        "makes each member of the list a value of its own. Expand it."
    ),
    input_label="search://kb{?tag*} with tag = ['returns', 'eu']",
    wanted="the expanded URI, as a string",
    parse="text",
    given=lambda: {"template": _TAGGED, "values": {"tag": list(_TAGS)}},
    reference=_tagged_uri,
    compare=ans.same_text,
    hints=(
        "Exploded under '?', a list writes one name=value pair per member.",
        "Two members, so two pairs: the first after '?', the second after '&', each with the variable's name.",
    ),
    mistakes=(
        Mistake(
            "joined-with-commas",
            lambda a: (t := ans.text(a)) is not None and "returns,eu" in t,
            "Commas join a list that is NOT exploded ({?tag} gives tag=returns,eu). With the '*' "
            "each member is written as a parameter of its own.",
            example="search://kb?tag=returns,eu",
        ),
        Mistake(
            "named-it-once",
            lambda a: (t := ans.text(a)) is not None and t.count("tag=") == 1 and "&eu" in t,
            "An exploded list under '?' repeats the variable's name for every member: each pair is name=value.",
            example="search://kb?tag=returns&eu",
        ),
        Mistake(
            "question-mark-twice",
            lambda a: (t := ans.text(a)) is not None and t.count("?") > 1,
            "A URI has one query: '?' opens it once, and '&' separates the pairs after the first.",
            example="search://kb?tag=returns?tag=eu",
        ),
        Mistake(
            "path-segments",
            lambda a: (t := ans.text(a)) is not None and "kb/returns" in t,
            "That is what {/tag*} would write. The '?' operator writes query parameters, not path segments.",
            example="search://kb/returns/eu",
        ),
        Mistake(
            "wrote-the-python-list",
            lambda a: (t := ans.text(a)) is not None and ("[" in t or "%5B" in t.upper()),
            "That is the Python list's own text. A list value is expanded member by member; "
            "brackets and quotes never appear.",
            example="search://kb?tag=['returns', 'eu']",
        ),
    ),
)


#: This set's exercises, in id order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_URI_01, _URI_02, _URI_03, _URI_05, _URI_06)
