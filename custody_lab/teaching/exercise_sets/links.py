"""Link-or-embed exercises (notebook 05): which shape a tool returns, and which URI a link carries.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
link-01   3      pick link or embed for a large report the model reuses
link-02   4      which URI a resource link should carry (seed 001's caching advice)
========  =====  ===================================================================

The judgement exercises that weigh permission and change as well (``link-03`` … ``link-08``) are
:mod:`custody_lab.teaching.exercise_sets.link_choice`.

These were ``blob-05`` and ``blob-06`` before the link exercises got their own topic.

What MCP says and what the lab adds, kept apart (tools.mdx, "Resource Links", 2025-06-18,
2025-11-25 and 2026-07-28 alike): a tool may return a ``resource_link`` to any resource it can
serve, and the linked resource need **not** appear in ``resources/list``; the client reads it
with ``resources/read``. Seed 001 adds caching advice, which the lab makes its host policy: when
the linked resource *is* registered, the link carries the registered URI, so the client reuses
its cached copy and the notices it subscribed to. link-02's cases hold both: a link that breaks
that advice, and an unlisted link that is perfectly valid.

Every mistake detector guards the answer's type itself; the gate in ``tests/teaching/test_exercises.py``
proves it.
"""

from __future__ import annotations

__all__ = ["EXERCISES"]

from typing import Any

from ...core.advisor import advise
from ..exercises import Exercise, Mistake
from . import _answers as ans

# --------------------------------------------------------------------------------------------
# link-01: link or embed
# --------------------------------------------------------------------------------------------

_REPORT_NEED: dict[str, Any] = {
    "tool": "weekly_report",
    "mimeType": "text/html",
    "payload_bytes": 18000,
    "reuse": 5,
    "inline_budget": 4096,
}


def _report_shape() -> str | None:
    need = _REPORT_NEED
    return advise("model", "generate", payload_bytes=int(need["payload_bytes"]), reuse=int(need["reuse"])).shape


_LINK_01 = Exercise(
    id="link-01",
    title="Link or embed the weekly report?",
    why=(
        "18,000 bytes are over the 4,096-byte inline budget and the report is read 5 times: each alone calls "
        "for a link the client fetches once and caches"
    ),
    level=3,
    prompt=(
        "The model calls a `weekly_report` tool. The report is 18,000 bytes of HTML, and the model "
        "will consult it 5 times in this session; "
        'the host\'s inline budget is 4,096 bytes (`input_for("link-01")` has these facts). '
        "**Predict first**, then check: which shape should the tool return? Answer with a shape "
        'name: `"resource-link"`, `"embedded-resource"` or `"structured-tool-result"`.'
    ),
    input_label="an 18,000-byte report reused 5 times, inline budget 4,096 bytes",
    wanted='a shape name such as "embedded-resource"',
    kind="text",
    parse="text",
    given=lambda: dict(_REPORT_NEED),
    reference=_report_shape,
    compare=lambda a, e: ans.shape_of(a) == e,
    hints=(
        "Weigh two numbers against each other: how many bytes one call would put into context, "
        "and how many times the model comes back to the same report.",
        "Multiply the report's size by the number of times the model reads it, and compare one "
        "read with the inline budget. Which shape lets the client fetch once and cache?",
    ),
    mistakes=(
        Mistake(
            "embedded-a-large-reused-report",
            lambda a: ans.shape_of(a) == "embedded-resource",
            "An embed puts all 18,000 bytes into context on every one of the 5 calls (about "
            "90,000 bytes), and each one is over the 4,096-byte budget. Large or reused content "
            "is the case where the client should fetch once and cache.",
            example="embedded-resource",
        ),
        Mistake(
            "structured-for-a-document",
            lambda a: ans.shape_of(a) == "structured-tool-result",
            "Structured content is for fields that code must validate (a score, a status). This "
            "is a document the model reads, with an address of its own.",
            example="structured-tool-result",
        ),
        Mistake(
            "a-resource-not-a-tool-result",
            lambda a: ans.shape_of(a) in ("listed-resource", "templated-resource"),
            "The model called a tool, so the report comes back inside a tool result: its shape "
            "is one of the tool-result shapes (link, embed, structured), not a resource the "
            "application lists.",
            example="listed-resource",
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# link-02: which URI a link carries (seed 001's caching advice, the lab's host policy)
# --------------------------------------------------------------------------------------------

_REGISTERED = "report://synthetic/weekly-7"

#: The two links the tool returned: one breaks seed 001's caching advice, one is unlisted and valid.
_LINKS: tuple[dict[str, str], ...] = (
    {"type": "resource_link", "uri": "report://weekly-7", "name": "weekly-report-7", "mimeType": "text/html"},
    {
        "type": "resource_link",
        "uri": "export://weekly-7/2026-09-04.csv",
        "name": "weekly-7-export",
        "mimeType": "text/csv",
    },
)


def _links() -> list[dict[str, str]]:
    return [dict(link) for link in _LINKS]


_LINK_02 = Exercise(
    id="link-02",
    title="Which URI should the link carry?",
    why=(
        "seed 001's caching advice: the same report is registered under another URI, and only a link carrying"
        " that exact URI lets the client find its cached copy and hear of updates; the one-off export needs "
        "no listing"
    ),
    level=4,
    prompt=(
        'A tool returned the two `resource_link` blocks in `input_for("link-02")`. Neither URI '
        "is in `resources/list` (`Catalog.load().list_resources()`), and MCP allows that: a "
        'linked resource need not be listed (tools spec, "Resource Links", 2025-06-18 and '
        "later). The lab's host policy adds **seed 001's caching advice**: when the linked "
        "resource *is* a registered one, the link carries its registered URI, so the client "
        "finds its cached copy and hears about updates. One of the two links names a registered "
        "resource under another URI. **Predict** which, then give the URI that link should carry."
    ),
    input_label="two resource_link blocks: report://weekly-7 and export://weekly-7/2026-09-04.csv",
    wanted="the URI string the link should carry",
    kind="uri",
    parse="text",
    given=_links,
    reference=lambda: _REGISTERED,
    compare=ans.same_text,
    hints=(
        "Compare each link's name and MIME type with the entries of the catalog's listing: "
        "which link describes something the server has already registered?",
        "One link's name is exactly the name of a listed resource; that resource's entry in "
        "the listing has the URI its link should carry.",
    ),
    mistakes=(
        Mistake(
            "kept-the-unregistered-uri",
            lambda a: ans.text(a) == _LINKS[0]["uri"],
            "That is the URI the link already carries; the client has nothing cached under it. "
            "Find the URI the same report is registered under in the catalog.",
            example="report://weekly-7",
        ),
        Mistake(
            "fixed-the-unlisted-export",
            lambda a: (t := ans.text(a)) is not None and t.startswith("export:"),
            "The export link is fine as it is: it names a one-off file the server never "
            "registered, and MCP does not require a linked resource to be listed. The caching "
            "advice is about the other link, whose resource is registered.",
            example="export://weekly-7/2026-09-04.csv",
        ),
        Mistake(
            "added-a-query-or-fragment",
            lambda a: (
                (t := ans.text(a)) is not None
                and t.startswith(_REGISTERED)
                and t[len(_REGISTERED) : len(_REGISTERED) + 1] in ("?", "#")
            ),
            "A query or a fragment makes a different URI, and a client caches it separately. "
            "Use the registered URI exactly, character for character.",
            example=_REGISTERED + "?download=1",
        ),
        Mistake(
            "added-a-trailing-slash",
            lambda a: (t := ans.text(a)) is not None and t.rstrip("/") == _REGISTERED and t != _REGISTERED,
            "A trailing slash adds an empty path segment: that is another URI than the registered "
            "one, so the cache lookup misses.",
            example=_REGISTERED + "/",
        ),
        Mistake(
            "gave-the-file-path",
            lambda a: (t := ans.text(a)) is not None and "weekly-report-7.html" in t,
            "That is where the lab happens to keep the bytes, not the identity the server "
            "registers. The link carries the resource's URI.",
            example="data/resources/weekly-report-7.html",
        ),
    ),
)


#: This set's exercises, in id order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_LINK_01, _LINK_02)
