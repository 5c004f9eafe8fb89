"""Versioned and moving URIs: what a host may cache, and what proves which revision was read.

Seed 000 ("Preserve URI, MIME type, and provenance"): a digest alone cannot explain what was
read, and a URI alone cannot prove which revision appeared, so a receipt pairs them.

What MCP says and what it does not (revision 2026-07-28): a resource's ``uri`` is an identifier,
and the protocol does not define "immutable" or "versioned" URIs at all: nothing in it promises
that the bytes behind a URI stay the same. What it gives a host are hints and notices:
``Annotations.lastModified`` (an ISO 8601 time, 2025-06-18 and later), ``ttlMs`` and
``cacheScope`` on a ``ReadResourceResult`` (2026-07-28), and ``notifications/resources/updated``
for a subscribed URI. So whether a URI names one revision is **the lab's host policy**: a table of
URI templates its reviewers declared (:data:`REVISION_POLICY`), each matched with the lab's own
RFC 6570 matcher (:func:`custody_lab.protocol.uri_templates.match`). A template fits this idea
well: ``invoices://{month}`` filled with ``2026-09`` names one closed month.

The lab's host policy, read by :func:`evidence` and :func:`compare_reads`:

- a **versioned** URI names one revision whose bytes never change: the host may keep its copy
  under that URI and reuse it, and a later read with other bytes is the server breaking its
  promise (``versioned-uri-changed``), not news;
- a **moving** URI names "whatever is current" (``status://service/current``): a copy holds only
  while the server's ``ttlMs`` hint lasts or until ``notifications/resources/updated`` arrives,
  and only the digest (with the retrieval time) says which revision was read;
- an **undeclared** URI is treated as moving.
"""

from __future__ import annotations

__all__ = [
    "READ_COMPARISONS",
    "REVISION_POLICY",
    "Evidence",
    "RevisionKind",
    "UriRevision",
    "UriRule",
    "classify",
    "compare_reads",
    "evidence",
]

import re
from dataclasses import dataclass
from typing import Literal

from ..core.errors import CaseError
from .uri_templates import match

RevisionKind = Literal["versioned", "moving", "undeclared"]

_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class UriRule:
    """One declaration of the lab's host policy: the URIs a template makes, and what they name.

    Attributes:
        template: an RFC 6570 template (``invoices://{month}``).
        kind: ``"versioned"`` (one revision, never edited) or ``"moving"`` (whatever is current).
        revision: for a versioned template, the variable that names the revision.
        pattern: what that variable's value must look like (a full-match regular expression), so
            ``invoices://current`` is not taken for a month.
        why: the reviewer's reason, in one line.
    """

    template: str
    kind: Literal["versioned", "moving"]
    revision: str | None = None
    pattern: str = r".+"
    why: str = ""


#: The lab's host policy: which URIs name one revision. Moving declarations come first.
REVISION_POLICY: tuple[UriRule, ...] = (
    UriRule("status://service/current", "moving", why="names whatever the service status is now"),
    UriRule("logs://{service}/today", "moving", why="today's log grows during the day"),
    UriRule(
        "kb://handbook/v{version}",
        "versioned",
        "version",
        r"[0-9]+",
        "a handbook version is published once; an edit is a new version",
    ),
    UriRule(
        "invoices://{month}",
        "versioned",
        "month",
        r"[0-9]{4}-(0[1-9]|1[0-2])",
        "an invoice month is issued once it has closed",
    ),
    UriRule(
        "report://synthetic/weekly-{week}",
        "versioned",
        "week",
        r"[0-9]+",
        "a weekly report is generated once for its week",
    ),
)


@dataclass(frozen=True)
class UriRevision:
    """What the lab's host policy says a URI names.

    Attributes:
        uri: the URI as given.
        kind: ``"versioned"``, ``"moving"`` or ``"undeclared"`` (no declaration matches).
        template: the declaration's template, or ``None``.
        revision: the revision the URI names (``"2026-09"``), for a versioned URI only.
        why: the declaration's reason, or why nothing was declared.
    """

    uri: str
    kind: RevisionKind
    template: str | None
    revision: str | None
    why: str


def classify(uri: str, policy: tuple[UriRule, ...] = REVISION_POLICY) -> UriRevision:
    """Which revision a URI names, by the first declaration of ``policy`` that matches it.

    Raises:
        CaseError: ``uri`` is not a non-empty string (``.field`` is ``"uri"``).

    Example:
        >>> classify("invoices://2026-09").revision, classify("status://service/current").kind
        ('2026-09', 'moving')
        >>> classify("invoices://current").kind
        'undeclared'
    """
    if not isinstance(uri, str) or not uri:
        raise CaseError(f"field 'uri': expected a non-empty URI string, got {uri!r}", "uri")
    for rule in policy:
        values = match(rule.template, uri)
        if values is None:
            continue
        if rule.kind == "moving":
            return UriRevision(uri, "moving", rule.template, None, rule.why)
        value = values.get(rule.revision or "")
        if isinstance(value, str) and re.fullmatch(rule.pattern, value):
            return UriRevision(uri, "versioned", rule.template, value, rule.why)
    return UriRevision(uri, "undeclared", None, None, "no declaration of the host's policy matches it")


@dataclass(frozen=True)
class Evidence:
    """What a citation (a URI, a digest, or both) can say about one read.

    Attributes:
        uri: the cited URI, or ``None``.
        sha256: the cited digest of the bytes read, or ``None``.
        kind: what the URI names (:func:`classify`), or ``None`` without a URI.
        names_revision: the citation says *which* revision was read: only a versioned URI does.
        proves_bytes: the citation can prove *what* was read: only a digest does (compare it with
            the sha256 of the bytes you hold).
        pinned: both, the pair seed 000 asks for.
        may_cache: whether the host may reuse a copy without reading again (versioned only).
        cache_rule: the host's caching rule for this URI, in words.
        missing: what the citation must add to be pinned.
    """

    uri: str | None
    sha256: str | None
    kind: RevisionKind | None
    names_revision: bool
    proves_bytes: bool
    pinned: bool
    may_cache: bool
    cache_rule: str
    missing: tuple[str, ...]


_CACHE_RULES: dict[str | None, str] = {
    "versioned": "keep the copy under this URI and reuse it: the revision never changes",
    "moving": "reuse only while ttlMs lasts or until notifications/resources/updated; then read again",
    "undeclared": "treated as moving: reuse only while ttlMs lasts, then read again",
    None: "nothing to cache by: there is no URI",
}


def evidence(uri: str | None = None, sha256: str | None = None) -> Evidence:
    """What a citation proves, and what the host may cache, under the lab's host policy.

    Raises:
        CaseError: ``sha256`` is not 64 lower-case hex digits (``.field`` is ``"sha256"``), or
            the URI is not a string.

    Example:
        >>> e = evidence("kb://handbook/v4")
        >>> e.names_revision, e.proves_bytes, e.may_cache, e.missing
        (True, False, True, ('a digest of the bytes read',))
        >>> evidence("status://service/current", "0" * 64).missing
        ('a revision name (the URI moves): the provenance or lastModified beside the digest',)
    """
    if sha256 is not None and not (isinstance(sha256, str) and _SHA256.fullmatch(sha256)):
        raise CaseError(f"field 'sha256': expected 64 lower-case hex digits, got {sha256!r}", "sha256")
    kind = classify(uri).kind if uri is not None else None
    names = kind == "versioned"
    proves = sha256 is not None
    missing: list[str] = []
    if uri is None:
        missing.append("a URI naming what was read")
    elif not names:
        missing.append("a revision name (the URI moves): the provenance or lastModified beside the digest")
    if not proves:
        missing.append("a digest of the bytes read")
    return Evidence(uri, sha256, kind, names, proves, names and proves, names, _CACHE_RULES[kind], tuple(missing))


#: What :func:`compare_reads` can answer, and what each means for the host.
READ_COMPARISONS: dict[str, str] = {
    "same-bytes": "the two reads returned the same bytes",
    "new-revision": "the URI moves: different bytes are a new revision; keep each read's digest",
    "versioned-uri-changed": (
        "a versioned URI returned other bytes: the server broke the revision promise; do not reuse "
        "either copy, and report it (the lab's host policy)"
    ),
}


def compare_reads(uri: str, first_sha256: str, second_sha256: str) -> str:
    """Two reads of one URI, by their digests: one of :data:`READ_COMPARISONS`.

    Example:
        >>> a, b = "a" * 64, "b" * 64
        >>> compare_reads("kb://handbook/v4", a, a), compare_reads("status://service/current", a, b)
        ('same-bytes', 'new-revision')
        >>> compare_reads("kb://handbook/v4", a, b)
        'versioned-uri-changed'
    """
    first, second = evidence(uri, first_sha256), evidence(uri, second_sha256)
    if first.sha256 == second.sha256:
        return "same-bytes"
    return "versioned-uri-changed" if first.kind == "versioned" else "new-revision"
