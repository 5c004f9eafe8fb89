"""The lab's one rule for an honest fix, and the capstone's judgement of a design.

The router decides whether a case is *accepted*; a design review also asks whether the change that
got it accepted is an honest change at all. This module is the one home of that question: notebook
01's refuse-and-fix exercises (:mod:`custody_lab.teaching.exercise_sets.fixes`), the capstone's
``capstone-04`` and the rubric's ``design-sound`` step all call :func:`sound_fix_inputs`, so the
lab gives one answer for one case. :func:`fix_findings` and :func:`case_findings` name, for one
capability, each way a changed case contradicts a decision the lab teaches; every message names
the problem and the learner's own value, never the fix (``STYLE.md``, "Exercises"):

- a permission granted by the review: ``allowed`` is what the host's permission check answered
  for this caller (the lab's host policy: a host without the role refuses; seed 000, "Check
  permission before the read"), not an input a server designer can change;
- a measurement changed instead of the design: ``bytes`` is what the payload weighs; lowering it
  under the embed limit changes the record, not the payload (seed 000, "Budget large context
  without hiding truncation");
- freshness (:data:`FRESHNESS_RULE`, the sentence notebooks 01 and 10 both print): ``current``
  says whether the copy was fresh when it was read, so it honestly becomes true only by reading
  again, which the host can do itself for a side-effect-free resource read
  (:func:`can_read_again`); ``requiresCurrent`` says what the use needs, so dropping a
  requirement the case declares hides the staleness instead of removing it;
- side effects declared away: a read that changes state still changes it when the declaration
  says it does not (seed 000, "a friendly label cannot repair a false control contract");
- a fact of the situation changed: an exercise's scenario may state more facts (who asked for an
  export, say), passed as ``facts``;
- a result relabelled instead of budgeted: a structured tool result carries its bytes inline, as
  an embed does, so the embed limit (the lab's host policy, seed 001's 4096 B by default) still
  applies to it;
- a mutation declared free of side effects (seed 000, "Declare side effects before the call");
- a URI that names nothing (RFC 3986 §3: a scheme, then a path that identifies something).

:func:`says_nothing` and :func:`uri_says_nothing` are the text checks the rubric also applies to
reasons and consents: a placeholder (``x``, ``ok``, ``TODO``), one or two words, or invisible
characters (zero-width, bidi controls) say nothing a reviewer can check.
"""

from __future__ import annotations

__all__ = [
    "ALWAYS_FACTS",
    "FRESHNESS_RULE",
    "MEASUREMENTS",
    "PLACEHOLDERS",
    "case_findings",
    "fix_findings",
    "can_read_again",
    "says_nothing",
    "sound_fix_exists",
    "sound_fix_inputs",
    "uri_says_nothing",
]

import re
import unicodedata

from ...core.errors import CaseError
from ...core.model import FIELDS, Case, Policy
from ...core.router import route
from ...core.text import hidden_characters, visible

#: Inputs that record a measurement of the payload, not a design choice.
MEASUREMENTS: tuple[str, ...] = ("bytes",)

#: Inputs no honest fix changes, whatever the situation: what the payload weighs, and what the
#: host's permission check answered (an exercise's scenario may add more, as ``facts``).
ALWAYS_FACTS: tuple[str, ...] = (*MEASUREMENTS, "allowed")

#: The one sentence about freshness that notebook 01 (refuse and fix) and notebook 11 (§2) both
#: print, and that :func:`fix_findings` applies.
FRESHNESS_RULE = (
    "`current` records whether the copy was fresh when it was read, so the honest way to make it true "
    "is to read again, which the host can do for a side-effect-free resource read; `requiresCurrent` "
    "records what the use needs, so dropping a requirement the use really has hides the staleness "
    "instead of removing it."
)

#: Words that hold a place instead of saying something (compared case-folded, punctuation stripped).
PLACEHOLDERS: frozenset[str] = frozenset(
    "x xx xxx ok okay k todo tbd tba fixme na n/a none null nil reason because test testing asdf foo bar "
    "baz placeholder lorem ipsum yes no fine done good ... - ? uri url urn example sample dummy abc".split()
)
_MARKERS = frozenset({"todo", "tbd", "fixme", "xxx", "placeholder", "lorem"})
_WORD = re.compile(r"[^\W\d_]{2,}")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(.*)$")
#: Shapes whose bytes arrive inline in the model's context.
_INLINE = ("embedded-resource", "structured-tool-result")


def says_nothing(text: object, *, words: int = 3) -> str | None:
    """Why ``text`` says nothing a reviewer can check, or ``None`` when it says something.

    Example:
        >>> says_nothing("ok"), says_nothing("TODO: later")
        ('is a placeholder', 'is a placeholder')
        >>> says_nothing("administrators only"), says_nothing("this host has no admin role") is None
        ('is only 2 words', True)
    """
    if not isinstance(text, str):
        return "is not text" if text is not None else "is missing"
    hidden = hidden_characters(text)
    if hidden:
        return f"holds characters a reader cannot see ({', '.join(hidden)})"
    cleaned = unicodedata.normalize("NFKC", text).strip()
    if not cleaned:
        return "is empty"
    folded = cleaned.casefold()
    found = _WORD.findall(folded)
    if folded.strip(" .!?,;:-_*#'\"") in PLACEHOLDERS or _MARKERS & set(found):
        return "is a placeholder"
    if len(found) < words:
        return f"is only {len(found)} word{'s' if len(found) != 1 else ''}"
    if words > 1 and len(set(found)) < 2:
        return "repeats one word"
    return None


def uri_says_nothing(uri: object) -> str | None:
    """Why ``uri`` names nothing, or ``None`` when it is a URI with a scheme and a real path.

    Example:
        >>> uri_says_nothing("ok"), uri_says_nothing("urn:x"), uri_says_nothing("notes://7") is None
        ('has no scheme (RFC 3986 §3.1)', 'names nothing after its scheme', True)
    """
    if not isinstance(uri, str) or not uri.strip():
        return "is missing"
    hidden = hidden_characters(uri)
    if hidden:
        return f"holds characters a reader cannot see ({', '.join(hidden)})"
    if any(ch.isspace() for ch in uri):
        return "holds white space (RFC 3986 §2: a URI has none)"
    m = _SCHEME.match(uri)
    if m is None:
        return "has no scheme (RFC 3986 §3.1)"
    scheme = uri.split(":", 1)[0].casefold()
    if scheme in PLACEHOLDERS - {"uri", "url", "urn"}:
        return "has a placeholder scheme"
    meaningful = [t for t in re.split(r"[^a-z0-9]+", m.group(1).casefold()) if t and t not in PLACEHOLDERS]
    # a URN names a namespace and a thing in it (RFC 8141 §2); any other scheme, at least one part
    if len(meaningful) < (2 if scheme == "urn" else 1) or len(scheme + "".join(meaningful)) < 4:
        return "names nothing after its scheme"
    return None


def can_read_again(case: Case) -> bool:
    """Whether the host can honestly get a fresh copy of ``case`` by itself: the application reads
    it (a resource, not a tool the model calls) and the read is declared free of side effects, so
    reading again changes nothing but the copy's freshness.

    Example:
        >>> panel = Case.from_dict({"id": "health", "initiator": "application", "operation": "read",
        ...     "shape": "listed-resource", "uri": "status://health", "mime": "application/json",
        ...     "bytes": 420, "current": False, "allowed": True, "sideEffects": False, "provenance": "s@1"})
        >>> can_read_again(panel), can_read_again(panel.with_changes(sideEffects=True))
        (True, False)
    """
    return case.initiator == "application" and case.side_effects is False


def fix_findings(
    designed: Case, case: Case, field: str, policy: Policy, facts: frozenset[str] | tuple[str, ...] = ()
) -> list[str]:
    """What is wrong with the fix that changed ``field`` of ``designed`` into ``case`` (empty: sound).

    ``facts`` names further inputs the situation states as true (an exercise's scenario); the
    :data:`ALWAYS_FACTS` and the freshness and side-effect rules apply whatever it holds.

    Example:
        >>> big = Case.from_dict({"id": "export", "initiator": "model", "operation": "generate",
        ...     "shape": "embedded-resource", "uri": "export://all.md", "mime": "text/markdown",
        ...     "bytes": 52000, "current": True, "allowed": True, "sideEffects": False, "provenance": "n@1"})
        >>> small = Case.from_dict({**big.to_dict(), "bytes": 4000})
        >>> [m.split(":")[0] for m in fix_findings(big, small, "bytes", Policy())]
        ["capability 'export'"]
    """
    who = f"capability {visible(repr(case.id))}"
    before, after = designed.get(field), case.get(field)
    out = []
    if field == "allowed" and after is True and before is not True:
        out.append(
            f"{who}: the fix grants a permission (allowed {before!r} → True) the host did not give; "
            "'allowed' records what the host's permission check answered for this caller, and a design "
            "review cannot change that answer"
        )
    if field == "bytes":
        limit = policy.embed_limit_bytes
        crossed = isinstance(before, int) and isinstance(after, int) and before > limit >= after
        dodge = f", just under the host's embed limit of {limit} B" if crossed else ""
        out.append(
            f"{who}: bytes changed from {before!r} to {after!r}{dodge}; bytes measures what the capability "
            "returns, so a smaller number changes the record, not the payload"
        )
    if field == "current" and after is True and before is not True and not can_read_again(designed):
        out.append(
            f"{who}: the fix claims the copy is current (current {before!r} → True), but the host cannot read "
            "this capability again by itself without side effects; claiming freshness changes the record, "
            "not the data"
        )
    if field == "requiresCurrent" and before is True and after is not True:
        out.append(
            f"{who}: the fix drops the requirement for current data (requiresCurrent True → {after!r}); the "
            "use still needs what it needed, so this hides the staleness instead of removing it"
        )
    if field == "sideEffects" and before is True and after is not True:
        out.append(
            f"{who}: the fix declares the capability free of side effects (sideEffects True → {after!r}); "
            "what it does is unchanged, so the declaration would contradict it"
        )
    if field in facts and field not in ALWAYS_FACTS and not out:
        out.append(
            f"{who}: {field} changed from {visible(repr(before))} to {visible(repr(after))}, but the situation "
            f"states it as a fact; changing it changes the record, not the world"
        )
    return out


def case_findings(case: Case, policy: Policy, *, accepted: bool) -> list[str]:
    """What a reviewed case contradicts, whatever changed it (empty: nothing).

    Example:
        >>> rm = Case.from_dict({"id": "rm", "initiator": "model", "operation": "mutate",
        ...     "shape": "structured-tool-result", "uri": "urn:rm:1", "mime": "application/json",
        ...     "bytes": 80, "current": True, "allowed": True, "sideEffects": False, "provenance": "n@1"})
        >>> "side effects" in case_findings(rm, Policy(), accepted=True)[0]
        True
    """
    who = f"capability {visible(repr(case.id))}"
    out = []
    if case.operation == "mutate" and case.side_effects is False:
        out.append(
            f"{who}: declared free of side effects (sideEffects False), but its operation is mutate: a "
            "mutation changes state, so the declaration contradicts what the capability does"
        )
    limit = policy.embed_limit_bytes
    if accepted and case.shape == "structured-tool-result" and isinstance(case.bytes, int) and case.bytes > limit:
        out.append(
            f"{who}: accepted as a structured-tool-result, but its {case.bytes} bytes still arrive inline in "
            f"the model's context, over the host's embed limit of {limit} B; a structured result is inline "
            "like an embed, so relabelling it does not budget it"
        )
    if accepted and case.uri is not None and (why := uri_says_nothing(case.uri)) is not None:
        out.append(f"{who}: the URI {visible(repr(case.uri))} {why}: a receipt's URI must name what was read")
    return out


def _candidates(case: Case) -> list[tuple[str, object]]:
    """One-input changes worth trying on ``case``: every other choice of an enum or a flag, and a
    value for a blank text input (measurements are never honest fixes, so none is tried)."""
    out: list[tuple[str, object]] = []
    for spec in FIELDS:
        if spec.name in ("id", *MEASUREMENTS) or spec.kind == "text":
            continue
        now = case.get(spec.name)
        if spec.kind == "enum":
            out += [(spec.name, c) for c in spec.choices if c != now]
        elif spec.kind == "bool":
            out += [(spec.name, v) for v in (True, False) if v is not now]
        elif spec.kind == "str" and not now:
            out.append((spec.name, f"urn:review:{case.id}" if spec.name == "uri" else "server@1.0.0"))
    return out


def sound_fix_inputs(case: Case, policy: Policy, facts: frozenset[str] | tuple[str, ...] = ()) -> tuple[str, ...]:
    """The inputs of a refused ``case`` whose change alone gets it accepted as an honest change
    (no :func:`fix_findings` or :func:`case_findings` against it), in the case model's order.

    This is the lab's one rule for "is this an honest one-input fix?": notebook 01's fix
    exercises pass their scenario's stated ``facts``; the capstone passes none.

    Example:
        >>> log = Case.from_dict({"id": "log", "initiator": "application", "operation": "read",
        ...     "shape": "listed-resource", "uri": "logs://today", "mime": "text/plain",
        ...     "bytes": 900, "current": True, "allowed": False, "sideEffects": False, "provenance": "n@1"})
        >>> sound_fix_inputs(log, Policy())  # only the host can grant the permission
        ()
        >>> sound_fix_inputs(log.with_changes(allowed=True, current=False, requiresCurrent=True), Policy())
        ('current',)
    """
    found: list[str] = []
    for name, value in _candidates(case):
        if name in found:
            continue
        try:
            changed = Case.from_dict({**case.to_dict(), name: value})
        except CaseError:
            continue
        if not route(changed, policy).accepted:
            continue
        if not fix_findings(case, changed, name, policy, facts) and not case_findings(changed, policy, accepted=True):
            found.append(name)
    return tuple(found)


def sound_fix_exists(case: Case, policy: Policy) -> bool:
    """Whether :func:`sound_fix_inputs` finds any: the rubric uses it to ask for a fix without
    saying which.

    Example:
        >>> rm = Case.from_dict({"id": "rm", "initiator": "model", "operation": "mutate",
        ...     "shape": "structured-tool-result", "uri": "urn:rm:1", "mime": "application/json",
        ...     "bytes": 80, "current": True, "allowed": True, "sideEffects": None, "provenance": "n@1"})
        >>> sound_fix_exists(rm, Policy())
        True
    """
    return bool(sound_fix_inputs(case, policy))
