"""The rubric's ``refusals-explained`` step: every refusal kept has a reason about *this* capability.

A reason is for a reviewer who checks it, so it must name something of the capability it keeps
refused that the reviewer can look up (the lab's host policy). The check, in order, for each
refusal kept (design or live) and each resource the audit did not read:

1. it is written and says something (:func:`~.judgement.says_nothing`: not blank, not a
   placeholder, not one or two words, no characters a reader cannot see);
2. it is not the rule's name restated (``"Permission denied, it was refused"``);
3. it is not the same words as another line's reason (a copy speaks for no capability);
4. it names something of **this** capability (:func:`names_this`): a word of its own text, its
   id, URI, title, description, MIME type or provenance (``"administrators"`` for a log whose
   description says "administrators only"; a word that every capability of the inventory shares,
   such as the server's name, does not count), or one of its own numbers (its size in bytes, or
   in KB, rounded or cut, ``"52 KB"`` for 52,000 bytes; a number of its own text). Filler and the
   rule's own words do not count, nor does another number (the host's embed limit is the rule's):
   ``"permission denied for this caller"`` or ``"embed over budget here"`` names nothing a
   reviewer can check, and a reason written about another capability names nothing of this one.

Words are compared case-folded, a shorter word matching a longer one that starts with it
(``"admin"`` and ``"administrators"``, ``"log"`` and ``"logs"``, at most three letters longer
below five letters) or sharing its first five letters (``"deleting"`` and ``"delete"``). No
message says what to write.
"""

from __future__ import annotations

__all__ = ["FILLER", "capability_numbers", "capability_words", "names_this", "reason_problems"]

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.model import Case
from ...core.text import visible
from .archive_shape import describe_line as _who
from .judgement import says_nothing

#: Words that say nothing about one capability: English glue and words every capability shares
#: (compared case-folded).
FILLER: frozenset[str] = frozenset(
    "the and for with this that these those its are was were has have had not nor but all any one every "
    "only out into from its our their here there why how who what when which because since so too very "
    "just also than then stay stays stayed kept keep keeps refused refuse refusal denied deny reason "
    "design review rule rules policy capability capabilities resource resources tool tools server host "
    "caller client model user users context returned return returns read reads inline lab".split()
)

_WORD = re.compile(r"[^\W\d_]{3,}")
_NUMBER = re.compile(r"\d[\d,.]*")


def _words(text: object) -> set[str]:
    return set(_WORD.findall(str(text).casefold())) if text is not None else set()


def capability_words(case: Case) -> set[str]:
    """The words of a capability's own text: its id, URI, title, description, MIME type and
    provenance (three letters or more, case-folded), less :data:`FILLER`.

    Example:
        >>> log = Case.from_dict({"id": "audit-log", "initiator": "application", "operation": "read",
        ...     "shape": "listed-resource", "uri": "logs://notes/today", "mime": "text/plain", "bytes": 900,
        ...     "current": True, "allowed": False, "sideEffects": False, "provenance": "notes-server@0.1.0",
        ...     "description": "Who changed which note today (administrators only)"})
        >>> sorted(capability_words(log))[:6]
        ['administrators', 'audit', 'changed', 'log', 'logs', 'note']
    """
    parts = (case.id, case.uri, case.title, case.description, case.mime, case.provenance)
    return set().union(*(_words(p) for p in parts)) - FILLER


def _same_word(a: str, b: str) -> bool:
    short, long_ = sorted((a, b), key=len)
    if len(short) < 5:
        return long_.startswith(short) and len(long_) - len(short) <= 3
    return long_[:5] == short[:5]


def capability_numbers(size: object, *texts: object) -> set[str]:
    """A capability's own numbers, as a reason may write them: its size in bytes, in KB (divided
    by 1000 or 1024, rounded or cut) and every number of its own text.

    Example:
        >>> sorted(capability_numbers(52000, "notes://all"), key=int)
        ['50', '51', '52', '52000']
    """
    out = {n.replace(",", "") for t in texts if t is not None for n in _NUMBER.findall(str(t))}
    if isinstance(size, int) and not isinstance(size, bool):
        out |= {str(size), *(str(f(size / k)) for k in (1000, 1024) for f in (round, int))}
    return {n.rstrip(".") for n in out if n.rstrip(".")}


def names_this(reason: str, own: Iterable[str], numbers: Iterable[str], rule: str) -> bool:
    """Whether ``reason`` names something of the capability whose words are ``own``
    (:func:`capability_words`, less those every capability shares) and whose numbers are
    ``numbers`` (:func:`capability_numbers`): one of its words, or one of its numbers; the words
    of ``rule`` (the rejection code) and :data:`FILLER` never count.

    Example:
        >>> own = {"administrators", "audit", "log", "logs", "today"}
        >>> names_this("administrators only, and this host has no admin role", own, {"900"}, "permission-denied")
        True
        >>> names_this("permission denied for this caller", own, {"900"}, "permission-denied")
        False
    """
    ruled = _words(rule.replace("-", " "))
    said = _words(reason) - FILLER - ruled
    if any(_same_word(w, o) for w in said for o in set(own) - ruled):
        return True
    written = {n.rstrip(".,").replace(",", "") for n in _NUMBER.findall(reason)}
    return bool(written & set(numbers))


def _own(lines: Sequence[Mapping[str, Any]]) -> dict[int, tuple[set[str], set[str]]]:
    """Each design or live line's own words, less the words every line shares, and its numbers."""
    words: dict[int, set[str]] = {}
    numbers: dict[int, set[str]] = {}
    for n, line in enumerate(lines, start=1):
        if line["kind"] == "design":
            try:
                case = Case.from_dict(line["case"])
            except (ValueError, TypeError):
                words[n], numbers[n] = _words(line["id"]) - FILLER, set()
                continue
            words[n] = capability_words(case)
            texts = (case.id, case.uri, case.title, case.description, case.provenance)
            numbers[n] = capability_numbers(case.bytes, *texts)
        elif line["kind"] == "live":
            receipt: Mapping[str, Any] = line["receipt"] if isinstance(line["receipt"], Mapping) else {}
            found = receipt.get("custody")
            custody: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            parts = (line["name"], *(custody.get(k) for k in ("uri", "mime", "provenance")))
            words[n] = set().union(*(_words(p) for p in parts)) - FILLER
            numbers[n] = capability_numbers(custody.get("bytes"), line["name"], custody.get("uri"))
    designed = [words[n] for n, line in enumerate(lines, start=1) if line["kind"] == "design" and n in words]
    shared = set.intersection(*designed) if len(designed) > 1 else set()  # what every capability says
    return {n: (w - shared, numbers[n]) for n, w in words.items()}


def reason_problems(lines: Sequence[Mapping[str, Any]], matched: set[str], todo: str) -> list[str]:
    """Every refusal kept, and every resource the audit did not read, whose reason is missing
    (``todo``: still to do) or does not pass the checks of this module's docstring; a live line
    whose name is in ``matched`` is spoken for by its design row."""
    problems = []
    seen: dict[str, str] = {}
    own = _own(lines)
    for n, line in enumerate(lines, start=1):
        if line["kind"] not in ("design", "live"):
            continue
        receipt, reason = line["receipt"], line["reason"]
        refused = isinstance(receipt, Mapping) and receipt.get("accepted") is False
        unread = line["kind"] == "live" and line["capability"] != "tool" and not line["exercised"]
        if line["kind"] == "live" and line["name"] in matched:
            continue  # its design row speaks for it (and matches-the-audit compares the two)
        if not (refused or unread):
            continue
        who = _who(n, line)
        what = (
            f"refused as {visible(receipt.get('rejection'))}"
            if refused
            else f"not read by the audit ({visible(line['why'])})"
        )
        why = says_nothing(reason)
        if why in ("is missing", "is empty"):
            problems.append(f"{todo}{who}: {what}; fix it with one input, or write why it stays so (field 'reason')")
            continue
        if why is not None:
            problems.append(f"{who}: {what}, and the reason {visible(repr(reason))} {why} (field 'reason')")
            continue
        code = str(receipt.get("rejection", "")) if refused else ""
        if code and _words(reason) <= _words(code.replace("-", " ")) | {"the", "was", "because", "refused", "denied"}:
            problems.append(f"{who}: the reason only restates the rule's name (field 'reason')")
            continue
        key = " ".join(sorted(re.findall(r"[a-z]{2,}", reason.casefold())))
        if key in seen:
            problems.append(
                f"{who}: the same reason as {seen[key]}; a reason says why this capability stays refused "
                "(field 'reason')"
            )
            continue
        seen.setdefault(key, who)
        words, numbers = own.get(n, (set(), set()))
        if not names_this(reason, words, numbers, code):
            problems.append(
                f"{who}: {what}, and the reason {visible(repr(reason))} names nothing of this capability a reviewer "
                "can check: none of its own words (its id, URI, title, description, MIME type or provenance) and "
                "none of its numbers, such as its size; a reason says why this capability stays refused "
                "(field 'reason')"
            )
    return problems
