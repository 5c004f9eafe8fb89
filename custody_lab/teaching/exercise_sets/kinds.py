"""Kinds of resources (notebook 04): seed 004's static files, records, logs and schemas.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
kind-01   1      the kind of five of the sample server's URIs
kind-02   2      which reads a host may serve again from a copy without re-reading
kind-03   2      cite a read of ``logs://api/today`` by the URI of the day it states
========  =====  ===================================================================

Seed 004 ("Kinds of Resources") names four kinds and asks a log to say which time range a read
covers; seed 004 ("Immutability Where You Can") lets a host keep a copy of a resource whose URI
pins a version or a date. The kinds, the caching rule and the periods are
:mod:`custody_lab.protocol.resource_kinds`, so every reference answer is computed. MCP
(2026-07-28) names no kinds: classifying them is the lab's host policy.

Notebook 04 asks ``kind-01`` and ``kind-02`` before its kinds table and picker show any kind, and
``kind-02``'s URIs are ones the notebook never prints before it: a closed day's log, and a dated
log whose day is not over yet, which a date in the URI alone does not make reusable.
"""

from __future__ import annotations

__all__: list[str] = ["EXERCISES"]

import datetime
import functools
import re
from typing import Any

from ...protocol.catalog import Catalog
from ...protocol.resource_kinds import KINDS, classify, describe, log_period
from ...protocol.uri_templates import expand
from ..exercises import Exercise, Mistake
from . import _answers as ans


@functools.cache
def _catalog() -> Catalog:
    return Catalog.load()


# --------------------------------------------------------------------------------------------
# kind-01: name the kind
# --------------------------------------------------------------------------------------------

_KIND_URIS: tuple[str, ...] = (
    "kb://handbook/v4",
    "orders://A-1002",
    "logs://api/today",
    "db://shop/schema",
    "status://service/current",
)
_NAMES = frozenset(k.name for k in KINDS)


def _kinds() -> list[str]:
    return [classify(_catalog(), uri) for uri in _KIND_URIS]


def _kind_list(answer: object) -> list[str] | None:
    """A list or tuple of strings, each as a kind id (``"Static file"`` reads as ``static-file``)."""
    if not isinstance(answer, list | tuple) or not all(isinstance(a, str) for a in answer):
        return None
    return ["-".join(a.strip().casefold().replace("_", " ").split()) for a in answer]


def _with(position: int, wrong: str) -> list[str]:
    answer = _kinds()
    answer[position] = wrong
    return answer


def _only_wrong_at(position: int, wrong: str) -> Any:
    return lambda a: _kind_list(a) == _with(position, wrong)


_KIND_01 = Exercise(
    id="kind-01",
    title="Which kind is it?",
    why=(
        "what each URI serves decides its kind: a versioned handbook is a fixed file, an order by id one "
        "record of many, today's lines a log, the shop's schema a description of data, the service status a "
        "document that changes"
    ),
    level=1,
    prompt=(
        '`input_for("kind-01")` lists five URIs of the sample server. Give the kind of each, in '
        "order, as a list: one of `static-file`, `record`, `log`, `schema` (seed 004's four) or "
        '`live-document` (the lab\'s fifth), for example `["record", ...]`.'
    ),
    input_label="five URIs of the sample server",
    wanted="a list of five kind names",
    kind="list",
    given=lambda: list(_KIND_URIS),
    reference=_kinds,
    compare=lambda a, e: _kind_list(a) == e,
    hints=(
        "Look at how each URI is reached (listed, or through a template), at its MIME type, and at "
        "whether the host reads it by subscription. Titles and descriptions never decide.",
        "One is a versioned file, one a record behind a template, one a log behind a template, one "
        "has the MIME type application/sql, and one is read by subscription.",
    ),
    mistakes=(
        Mistake(
            "log-as-record",
            _only_wrong_at(2, "record"),
            "logs://api/today is reached through a template, like a record, but a log grows over a "
            "period and a copy is only as good as the period it covers: seed 004 counts logs as "
            "their own kind.",
            example=_with(2, "record"),
        ),
        Mistake(
            "live-as-static",
            _only_wrong_at(4, "static-file"),
            "status://service/current is listed like a file, but the host's own case file reads it "
            "by subscription: its content moves while its URI stays.",
            example=_with(4, "static-file"),
        ),
        Mistake(
            "schema-as-static",
            _only_wrong_at(3, "static-file"),
            "db://shop/schema is served as application/sql: the shape of the shop database. Seed "
            "004 counts schemas as their own kind.",
            example=_with(3, "static-file"),
        ),
        Mistake(
            "used-the-display-kinds",
            lambda a: (found := _kind_list(a)) is not None and bool(set(found) & {"text", "image", "data"}),
            "text, image and data are how the lab shows content (its MIME view). This exercise asks "
            "for seed 004's kinds of resources: static-file, record, log, schema, or live-document.",
            example=["text", "data", "text", "data", "data"],
        ),
        Mistake(
            "not-five",
            lambda a: (found := _kind_list(a)) is not None and len(found) != len(_KIND_URIS),
            "Give one kind per URI, five in all, in the order of the input.",
            example=["static-file", "record"],
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# kind-02: which copies may be served again
# --------------------------------------------------------------------------------------------

_REUSE_URIS: tuple[str, ...] = (
    "kb://shipping",
    "logs://api/2026-09-03",
    "logs://billing/2026-09-04",
    "orders://A-1003",
    "status://service/current",
    "crm://customer/fixture-17",
)


def _reusable() -> list[str]:
    return [uri for uri in _REUSE_URIS if describe(_catalog(), uri).reusable]


def _contains(uri: str) -> Any:
    return lambda a: (found := ans.names(a)) is not None and uri in found


def _contains_a_record(answer: object) -> bool:
    found = ans.names(answer)
    return found is not None and any(uri in _REUSE_URIS and classify(_catalog(), uri) == "record" for uri in found)


def _says_none(answer: object) -> bool:
    if isinstance(answer, list | tuple | set | frozenset):
        return len(answer) == 0
    return (ans.text(answer) or "").casefold() in ("none", "nothing", "[]", "no")


_KIND_02 = Exercise(
    id="kind-02",
    title="Which copies may be served again?",
    why=(
        "under the lab's host policy a copy may be served again only when nothing can change it: a log of a "
        "period that has ended; an unpinned static file can be edited, today's log is still written, records "
        "and live documents move"
    ),
    level=2,
    prompt=(
        'The host read each URI in `input_for("kind-02")` at the lab\'s clock, 2026-09-04 12:00 '
        "UTC, and kept a copy. Under the lab's host policy, which copies may it serve again later "
        "**without** re-reading? Answer with a list of URIs."
    ),
    input_label="six URIs read at 2026-09-04T12:00:00Z",
    wanted="a list of URIs",
    kind="list",
    given=lambda: list(_REUSE_URIS),
    reference=_reusable,
    compare=lambda a, e: isinstance(e, list) and ans.names(a) == frozenset(e),
    hints=(
        "A copy may stand in for a read only when the content behind the URI cannot change: "
        "what in a URI, or in what a read states, can promise that?",
        "A version or a date in the URI can pin content, but a log is fixed only once the period it "
        "covers is over at the lab's clock.",
    ),
    mistakes=(
        Mistake(
            "kept-a-dated-open-log",
            _contains("logs://billing/2026-09-04"),
            "A date in a log's URI is not enough: the day that log covers is not over at the lab's "
            "clock, so a later read can hold more lines. A copy is fixed only once its period has ended.",
            example=["logs://api/2026-09-03", "logs://billing/2026-09-04"],
        ),
        Mistake(
            "kept-an-unpinned-file",
            _contains("kb://shipping"),
            "Nothing in kb://shipping's URI pins its content: the page can change under the same "
            "URI. Re-read it and compare the sha256 before using the copy.",
            example=["kb://shipping", "logs://api/2026-09-03"],
        ),
        Mistake(
            "kept-a-record",
            _contains_a_record,
            "A record can change between reads (an order is paid, then shipped; a customer moves): "
            "re-read it before acting on it.",
            example=["logs://api/2026-09-03", "crm://customer/fixture-17"],
        ),
        Mistake(
            "kept-the-live-document",
            _contains("status://service/current"),
            "status://service/current moves while its URI stays; that is why the host subscribes to it.",
            example=["logs://api/2026-09-03", "status://service/current"],
        ),
        Mistake(
            "nothing-is-reusable",
            _says_none,
            "One copy is fixed for good: a log of a day that is over cannot gain lines.",
            example=[],
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# kind-03: the period a log read states
# --------------------------------------------------------------------------------------------


_LOG_TEMPLATE = "logs://{service}/{day}{?level}"


def _today_log() -> str | None:
    return _catalog().read("logs://api/today").text


def _day_covered() -> str | None:
    period = log_period(_today_log())
    return None if period is None else period.start[:10]


def _dated_uri() -> str:
    """The URI of the day the read states, made from the catalog's own log template."""
    day = _day_covered()
    template = _catalog().template(_LOG_TEMPLATE)
    assert day is not None and template is not None, "the log template is served and the read states its period"
    return expand(template.uri_template, {"service": "api", "day": day})


def _day_before() -> str:
    day = datetime.date.fromisoformat(_day_covered() or "")
    return expand(_LOG_TEMPLATE, {"service": "api", "day": (day - datetime.timedelta(days=1)).isoformat()})


def _your_clock() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _day_in(answer: object) -> datetime.date | None:
    text = ans.text(answer) or ""
    found = re.search(r"(\d{4}-\d{2}-\d{2})", text)
    if found is None:
        return None
    try:
        return datetime.date.fromisoformat(found.group(1))
    except ValueError:
        return None


def _near_your_clock(answer: object) -> bool:
    """A dated URI within a day of the machine's clock (so a check just after midnight still sees it)."""
    day = _day_in(answer)
    if day is None or not (ans.text(answer) or "").startswith("logs://"):
        return False
    today = datetime.datetime.now(datetime.UTC).date()
    return abs((day - today).days) <= 1 and day.isoformat() != _day_covered()


_KIND_03 = Exercise(
    id="kind-03",
    title="Cite today's log by its day",
    why=(
        "logs://api/today moves every day; the read states the day its lines belong to, so the receipt cites "
        "the URI the template makes for that day, with level left undefined"
    ),
    level=2,
    prompt=(
        '`input_for("kind-03")` is the text a read of `logs://api/today` returned. `today` moves: '
        "tomorrow the same URI names other lines. A receipt that must still point at these lines "
        "later cites the URI of the period the read states, made from the catalog's template "
        "`logs://{service}/{day}{?level}` (every level: leave `level` undefined). Which URI does the "
        "receipt cite? Answer with the URI as a string."
    ),
    input_label="the text of a read of logs://api/today",
    wanted="a URI, as a string",
    parse="text",
    given=_today_log,
    reference=_dated_uri,
    compare=ans.same_text,
    hints=(
        "The server states the period in the read itself: look at its first line, then fill in the template.",
        "The day is the date part of the period's two timestamps; the service is named in the same "
        "line, and an undefined level writes nothing.",
    ),
    mistakes=(
        Mistake(
            "cited-the-moving-uri",
            lambda a: ans.is_one_of(a, "logs://api/today"),
            "That URI moves: tomorrow it names other lines. Cite the URI of the day the read states.",
            example="logs://api/today",
        ),
        Mistake(
            "used-your-own-clock",
            _near_your_clock,
            "That date is your computer's. A host cites the period the read states, not the time it "
            "happens to be where the host runs.",
            example=expand(_LOG_TEMPLATE, {"service": "api", "day": _your_clock()}),
        ),
        Mistake(
            "the-day-before",
            lambda a: ans.is_one_of(a, _day_before()),
            "That is the day before. Read this log's own first line.",
            example=_day_before(),
        ),
        Mistake(
            "kept-a-level",
            lambda a: (t := ans.text(a)) is not None and t.startswith("logs://") and "?level" in t,
            "The read covers every level: level is undefined, so {?level} writes nothing at all.",
            example=_dated_uri() + "?level=all",
        ),
        Mistake(
            "gave-only-the-day",
            lambda a: (t := ans.text(a)) is not None and "://" not in t and _day_in(a) is not None,
            "A receipt cites a URI, not a date alone: fill the day into the catalog's log template.",
            example=_day_covered(),
        ),
        Mistake(
            "kept-the-braces",
            lambda a: (t := ans.text(a)) is not None and "{" in t,
            "The braces belong to the template: replace each expression with its value.",
            example="logs://api/{2026-09-04}",
        ),
    ),
)


#: This set's exercises, in lesson order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_KIND_01, _KIND_02, _KIND_03)
