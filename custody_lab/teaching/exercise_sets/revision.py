"""Versioned and moving URIs (notebook 03): what a host may cache, and what proves what was read.

============  =====  =================================================================
id            level  task
============  =====  =================================================================
revision-01   1      which URIs the host may cache and reuse without reading again
revision-02   2      two reads of a versioned URI with different digests: what it means
revision-03   2      which citation both names the revision and proves the bytes
============  =====  =================================================================

Every reference answer is computed by :mod:`custody_lab.revisions` over the lab's sample
catalog (its digests are the sha256 of the bytes the catalog serves). Which URIs name one revision
is the lab's host policy (:data:`custody_lab.revisions.REVISION_POLICY`): MCP 2026-07-28
does not define immutable URIs; it gives hints (``lastModified``, ``ttlMs``) and update notices.
"""

from __future__ import annotations

__all__ = ["CITATIONS", "EXERCISES", "URIS"]

import hashlib
from collections.abc import Callable
from functools import cache

from ...protocol.catalog import Catalog
from ...protocol.revisions import READ_COMPARISONS, Evidence, classify, compare_reads, evidence
from ..exercises import Exercise, Mistake
from . import _answers as ans
from ._changes import code_of, same_code, several_codes

# --------------------------------------------------------------------------------------------
# revision-01: which URIs may the host cache
# --------------------------------------------------------------------------------------------

#: The URIs of revision-01. None of the two it may cache is printed in notebook 03 before it asks:
#: the lesson's own examples are ``kb://handbook/v4`` and ``invoices://2026-09``.
URIS: tuple[str, ...] = (
    "kb://handbook/v3",
    "status://service/current",
    "invoices://2026-07",
    "logs://billing/today",
    "kb://returns-policy",
    "invoices://latest",
)


def _cacheable() -> object:
    return [uri for uri in URIS if evidence(uri).may_cache]


def _includes(kind: str) -> Callable[[object], bool]:
    def detect(answer: object) -> bool:
        named = ans.names(answer)
        return named is not None and any(u in URIS and classify(u).kind == kind for u in named)

    return detect


def _includes_listed(answer: object) -> bool:
    named = ans.names(answer)
    listed = {entry.uri for entry in Catalog.load().resources}
    return named is not None and any(u in listed and classify(u).kind != "versioned" for u in named)


def _only_part_of_the_versioned(answer: object) -> bool:
    named = ans.names(answer)
    wanted = _cacheable()
    return named is not None and isinstance(wanted, list) and named < frozenset(wanted)


_REVISION_01 = Exercise(
    id="revision-01",
    title="Which URIs may the host cache?",
    why=(
        "under the lab's host policy only a URI that names one fixed revision (a version, a closed month) "
        "promises the same bytes on every read; current, latest, today and an unversioned name can move"
    ),
    level=1,
    prompt=(
        'Six URIs (`input_for("revision-01")`). Under the lab\'s host policy, which of them may the '
        "host keep a copy of and reuse **without reading again**? Answer with a list of the URIs. "
        "(MCP 2026-07-28 promises this of no URI; the policy is the host's, in "
        "`custody_lab.revisions.REVISION_POLICY`.)"
    ),
    input_label="six URIs from the lab's servers",
    wanted="a list of URIs",
    kind="list",
    given=lambda: URIS,
    reference=_cacheable,
    compare=ans.same_names,
    mistakes=(
        Mistake(
            "a-moving-uri",
            _includes("moving"),
            "Your list holds a URI that names whatever is current: its bytes change while its URI "
            "stays the same. A copy of it is good only while ttlMs lasts or until an update notice.",
            example=["kb://handbook/v3", "status://service/current"],
        ),
        Mistake(
            "a-listed-resource",
            _includes_listed,
            "Your list holds a resource the server lists. Being listed says nothing about revisions: "
            "no declaration of the host's policy covers that URI, so it is treated as moving.",
            example=["kb://handbook/v3", "kb://returns-policy"],
        ),
        Mistake(
            "an-undeclared-uri",
            _includes("undeclared"),
            "Your list holds a URI nobody declared as one revision. Nothing in MCP 2026-07-28 makes a URI "
            "immutable, so the host treats it as moving. Does every part after invoices:// name a month?",
            example=["invoices://2026-07", "invoices://latest"],
        ),
        Mistake(
            "missed-one",
            _only_part_of_the_versioned,
            "Each URI in your list may be cached, but one more names a single revision: check each "
            "of the policy's versioned templates against all six URIs.",
            example=["invoices://2026-07"],
        ),
        Mistake(
            "nothing-is-cacheable",
            lambda a: (ans.text(a) or "").lower() in ("none", "nothing", "[]"),
            "MCP 2026-07-28 makes no promise, but the lab's host policy does: it declares some URIs to name one "
            "revision that is never edited.",
            example="none",
        ),
    ),
    hints=(
        "Ask of each URI: does it name one revision (a version, a closed month), or whatever is current?",
        "Run classify(uri).kind from custody_lab.revisions on each and keep the versioned ones.",
    ),
)


# --------------------------------------------------------------------------------------------
# revision-02: two reads of a versioned URI, two digests
# --------------------------------------------------------------------------------------------

_HANDBOOK = "kb://handbook/v4"


@cache
def _handbook_sha256() -> str:
    return Catalog.load().read(_HANDBOOK).sha256


def _two_reads() -> dict[str, str]:
    """The handbook's digest as served, and the digest of the same bytes with one line added."""
    data = Catalog.load().read(_HANDBOOK).data + b"\nReturns now take 45 days.\n"
    return {"uri": _HANDBOOK, "first": _handbook_sha256(), "second": hashlib.sha256(data).hexdigest()}


def _comparison() -> object:
    reads = _two_reads()
    return compare_reads(reads["uri"], reads["first"], reads["second"])


_REVISION_02 = Exercise(
    id="revision-02",
    title="The same versioned URI, two digests",
    why=(
        "a versioned URI promises the same bytes on every read, so two digests under it are not an update but"
        " a broken promise, and the cached copy can no longer be trusted"
    ),
    level=2,
    prompt=(
        'The host read `kb://handbook/v4` on Monday and again on Friday (`input_for("revision-02")`: '
        "the URI and the two sha256 digests). What does `compare_reads` answer? Give one of the keys "
        "of `READ_COMPARISONS`, and decide first what it means for the host's cached copy."
    ),
    input_label="two reads of kb://handbook/v4",
    wanted="one key of READ_COMPARISONS",
    kind="text",
    given=_two_reads,
    reference=_comparison,
    compare=same_code,
    mistakes=(
        Mistake(
            "treated-as-moving",
            lambda a: code_of(a) == "new-revision",
            "That is the answer for a URI that moves. This one names version 4, and the host's "
            "policy says a version is never edited: different bytes under it are not news.",
            example="new-revision",
        ),
        Mistake(
            "did-not-compare",
            lambda a: code_of(a) == "same-bytes",
            "Compare the two digests character by character: are they the same?",
            example="same-bytes",
        ),
        Mistake(
            "several",
            several_codes,
            "The two reads get one answer: give one key.",
            example=["same-bytes", "new-revision"],
        ),
        Mistake(
            "not-a-key",
            lambda a: (c := code_of(a)) is not None and c not in READ_COMPARISONS,
            "Answer with one of the keys of READ_COMPARISONS, as the dict writes it.",
            example="cache-it",
        ),
    ),
    hints=(
        "Two questions: are the digests the same, and what does this URI promise about its bytes?",
        "classify(uri).kind tells you what the URI promises; a promise broken is not a new revision.",
    ),
)


# --------------------------------------------------------------------------------------------
# revision-03: which citation is pinned
# --------------------------------------------------------------------------------------------


#: revision-03's citations: id -> (the URI cited, the URI whose served bytes' sha256 is cited).
_CITED: dict[str, tuple[str | None, str | None]] = {
    "citation-1": ("logs://api/today", "logs://api/today"),
    "citation-2": ("report://synthetic/weekly-7", "report://synthetic/weekly-7"),
    "citation-3": ("invoices://2026-09", None),
    "citation-4": (None, "report://synthetic/weekly-7"),
}

#: The citation ids of revision-03, in order.
CITATIONS: tuple[str, ...] = tuple(_CITED)


@cache
def _citations() -> dict[str, dict[str, str | None]]:
    catalog = Catalog.load()
    return {
        name: {"uri": uri, "sha256": catalog.read(source).sha256 if source else None}
        for name, (uri, source) in _CITED.items()
    }


def _evidence_of(answer: object) -> Evidence | None:
    """What the citation the answer names proves, or ``None`` when it names none."""
    cited = _citations().get(code_of(answer) or "")
    return None if cited is None else evidence(cited["uri"], cited["sha256"])


def _pinned() -> object:
    found = [name for name in CITATIONS if (e := _evidence_of(name)) is not None and e.pinned]
    assert len(found) == 1, f"revision-03 is built with exactly one pinned citation; found {found}"
    return found[0]


_REVISION_03 = Exercise(
    id="revision-03",
    title="Which citation says which revision, and proves it?",
    why=(
        "saying which revision needs a URI that names one, and proving the bytes needs their sha256: a moving"
        " URI, a citation without a digest and a digest without a URI each lack one of the two"
    ),
    level=2,
    prompt=(
        'Four citations a model could give for what it read (`input_for("revision-03")`, each a '
        "URI, a sha256 digest, or both). Which one both says **which revision** was read and can "
        "**prove** that the bytes were those? Give its id."
    ),
    input_label="four citations of what was read",
    wanted="one citation id",
    kind="text",
    given=_citations,
    reference=_pinned,
    compare=same_code,
    mistakes=(
        Mistake(
            "a-uri-alone",
            lambda a: (e := _evidence_of(a)) is not None and e.names_revision and not e.proves_bytes,
            "A URI names the revision, but it cannot prove that the bytes in the model's context are "
            "that revision's: nothing to compare them with.",
            example="citation-3",
        ),
        Mistake(
            "a-digest-alone",
            lambda a: (e := _evidence_of(a)) is not None and e.uri is None,
            "A digest proves which bytes were read, but names nothing a reviewer can go back to: a "
            "hash alone does not say what was read.",
            example="citation-4",
        ),
        Mistake(
            "a-pair-on-a-moving-uri",
            lambda a: (
                (e := _evidence_of(a)) is not None and e.uri is not None and e.proves_bytes and not e.names_revision
            ),
            "That pair proves the bytes, but its URI names whatever is current: it cannot say which "
            "revision was read once the status moves on.",
            example="citation-1",
        ),
        Mistake(
            "not-a-citation-id",
            lambda a: (c := code_of(a)) is not None and "," not in c and c not in _CITED,
            'Give one of the ids of input_for("revision-03") exactly as it writes them.',
            example="the versioned one",
        ),
        Mistake(
            "several",
            several_codes,
            "Give the one citation id that does both.",
            example=["citation-3", "citation-4"],
        ),
    ),
    hints=(
        "For each citation ask two questions: does it name one revision, and can it prove the bytes?",
        "evidence(uri, sha256).pinned from custody_lab.revisions answers both at once.",
    ),
)


EXERCISES = (_REVISION_01, _REVISION_02, _REVISION_03)
