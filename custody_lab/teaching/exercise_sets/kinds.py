"""Kinds of resources (notebook 04): seed 004's static files, records, logs and schemas.

========  =====  ===================================================================
id        level  task
========  =====  ===================================================================
kind-01   1      the kind of five of the sample server's URIs
kind-02   2      which reads a host may serve again from a copy without re-reading
kind-03   2      which day a read of ``logs://api/today`` covers
========  =====  ===================================================================

Seed 004 ("Kinds of Resources") names four kinds and asks a log to say which time range a read
covers; seed 004 ("Immutability Where You Can") lets a host keep a copy of a resource whose URI
pins a version or a date. The kinds, the caching rule and the periods are
:mod:`custody_lab.protocol.resource_kinds`, so every reference answer is computed. MCP
(2026-07-28) names no kinds: classifying them is the lab's host policy.
"""

from __future__ import annotations

__all__: list[str] = ["EXERCISES"]

import datetime
import functools
from typing import Any

from ...protocol.catalog import Catalog
from ...protocol.resource_kinds import KINDS, classify, describe, log_period
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
    "kb://handbook/v4",
    "kb://shipping",
    "logs://api/2026-09-03",
    "logs://api/today",
    "orders://A-1002",
    "status://service/current",
)


def _reusable() -> list[str]:
    return [uri for uri in _REUSE_URIS if describe(_catalog(), uri).reusable]


def _contains(uri: str) -> Any:
    return lambda a: (found := ans.names(a)) is not None and uri in found


_KIND_02 = Exercise(
    id="kind-02",
    title="Which copies may be served again?",
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
        "Look for a version or a date in the URI, and for a log whose period is over.",
    ),
    mistakes=(
        Mistake(
            "kept-todays-log",
            _contains("logs://api/today"),
            "Today's log is still being written: the period its read covers runs past the lab's "
            "clock, so a later read can hold more lines.",
            example=["kb://handbook/v4", "logs://api/2026-09-03", "logs://api/today"],
        ),
        Mistake(
            "kept-an-unpinned-file",
            _contains("kb://shipping"),
            "Nothing in kb://shipping's URI pins its content: the policy can change under the same "
            "URI. Re-read it and compare the sha256 before using the copy.",
            example=["kb://handbook/v4", "kb://shipping", "logs://api/2026-09-03"],
        ),
        Mistake(
            "kept-a-record",
            _contains("orders://A-1002"),
            "A record can change between reads (an order is paid, then shipped): re-read it before acting on it.",
            example=["kb://handbook/v4", "logs://api/2026-09-03", "orders://A-1002"],
        ),
        Mistake(
            "kept-the-live-document",
            _contains("status://service/current"),
            "status://service/current moves while its URI stays; that is why the host subscribes to it.",
            example=["kb://handbook/v4", "logs://api/2026-09-03", "status://service/current"],
        ),
        Mistake(
            "missed-the-closed-log",
            lambda a: ans.names(a) == frozenset({"kb://handbook/v4"}),
            "One more copy is fixed for good: a log of a day that is over cannot gain lines.",
            example=["kb://handbook/v4"],
        ),
        Mistake(
            "missed-the-versioned-file",
            lambda a: ans.names(a) == frozenset({"logs://api/2026-09-03"}),
            "One more copy is fixed for good: a URI that names its version always means the same bytes.",
            example=["logs://api/2026-09-03"],
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# kind-03: the period a log read states
# --------------------------------------------------------------------------------------------


def _today_log() -> str | None:
    return _catalog().read("logs://api/today").text


def _day_covered() -> str | None:
    period = log_period(_today_log())
    return None if period is None else period.start[:10]


def _your_clock() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _near_your_clock(answer: object) -> bool:
    """A date within a day of the machine's clock (so a check just after midnight still sees it)."""
    try:
        day = datetime.date.fromisoformat(ans.text(answer) or "")
    except ValueError:
        return False
    today = datetime.datetime.now(datetime.UTC).date()
    return abs((day - today).days) <= 1 and day.isoformat() != _day_covered()


_KIND_03 = Exercise(
    id="kind-03",
    title="Which day does the log cover?",
    level=2,
    prompt=(
        '`input_for("kind-03")` is the text a read of `logs://api/today` returned. A log must say '
        "which period a read covers. Which day does this read cover? Answer as text, "
        '`"YYYY-MM-DD"`.'
    ),
    input_label="the text of a read of logs://api/today",
    wanted='a date as text, "YYYY-MM-DD"',
    kind="text",
    parse="text",
    given=_today_log,
    reference=_day_covered,
    compare=lambda a, e: ans.same_text(a, e),
    hints=(
        "The server states the period in the read itself: look at its first line.",
        "The first line gives the period as two timestamps; the day is the date part of them.",
    ),
    mistakes=(
        Mistake(
            "answered-today",
            lambda a: (t := ans.text(a)) is not None and t.casefold() == "today",
            "'today' is a moving word: tomorrow the same URI means another day. Name the date the "
            "read states in its first line.",
            example="today",
        ),
        Mistake(
            "used-your-own-clock",
            _near_your_clock,
            "That is your computer's date. A host records the period the read states, not the time "
            "it happens to be where the host runs.",
            example=_your_clock(),
        ),
        Mistake(
            "the-day-before",
            lambda a: ans.is_one_of(a, "2026-09-03"),
            "That is the day before: it is what logs://api/2026-09-03 covers. Read this log's own first line.",
            example="2026-09-03",
        ),
        Mistake(
            "gave-a-timestamp",
            lambda a: (t := ans.text(a)) is not None and len(t) > 10 and t[:10] == _day_covered(),
            "Right day; give only the date, YYYY-MM-DD, without the time.",
            example="2026-09-04T00:00:00Z",
        ),
    ),
)


#: This set's exercises, in lesson order: what :mod:`custody_lab.teaching.exercise_sets` registers.
EXERCISES: tuple[Exercise, ...] = (_KIND_01, _KIND_02, _KIND_03)
