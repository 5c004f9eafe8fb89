"""The capstone's rubric: seven checked steps over a receipt archive (notebook 11).

:func:`check_archive` reads an archive written by :func:`~custody_lab.teaching.capstone.archive.write_archive`
and re-derives what it can instead of trusting it: the design receipts from the inventory and the
router, the live lines from the audit report (the :class:`~custody_lab.live.audit_report.AuditReport`
``audit_server`` returns, or the JSON ``custody-lab audit --json`` wrote, :mod:`.audit_json`).
Each problem names the line, the capability and the field; one that starts with ``still to do:``
is work not yet done (the notebook run unchanged shows only those), the others are findings about
the design or the record. No message gives the fix. Every archive gets a result, never a traceback.

``readable``
    Every line is a JSON object of a known kind with fields of the written types, the header
    first and the summary last, and nothing but plain JSON inside: no NaN or infinity, no number
    beyond 2**53 - 1, no nesting deeper than 32 levels, no key that is not text
    (:mod:`.archive_shape`; a file over 16 MiB, or one that is not a regular file, is not read).
    The other steps run only on a readable file.
``routed``
    Every capability of the inventory has exactly one design line: ids are compared in one form
    (:func:`~.archive_shape.normal_id`), and an id that differs from it by white space or invisible
    characters, or a second line for one capability, is a finding (each line is checked, so a
    duplicate cannot hide another). Its receipt is byte for byte what the router decides for the
    case on that line (``1`` is not ``true``); a fix changed exactly one design input of the
    inventory's case, and says which, from what, to what.
``design-sound``
    No fix or reviewed case contradicts a decision the lab teaches (:mod:`.judgement`): a
    permission granted, a measurement changed instead of the design, a large result relabelled
    as a structured one, a mutation declared free of side effects, a URI that names nothing. And
    no refusal that has an honest one-input fix (:func:`~.judgement.sound_fix_exists`, the one
    rule) is kept: each such line is a finding on its own, with a reason or without (without one,
    still to do), whatever the other lines do; the message never says which input.
``matches-the-audit``
    The live lines are what the audit recorded, paired by kind and name and compared byte for
    byte (a line deleted, added, moved or edited is named), and the audited server does what the
    design says (:mod:`.against_audit`). An audit JSON whose rows contradict its own ``status``,
    ``counts`` or ``gaps`` is named; one that is not a report is not used.
``refusals-explained``
    Every refusal kept (design or live), and every resource the audit did not read, carries a
    written reason that says something (:func:`~.judgement.says_nothing`: not blank, no
    characters a reader cannot see, such as zero-width spaces or Hangul fillers), its own and not
    the rule's name restated, and that names something of *this* capability a reviewer can
    check (:mod:`.reasons`): a word of its own id, URI, title, description, MIME type or
    provenance that not every capability shares, or one of its numbers, such as its size. Filler
    and the rule's words do not count: "permission denied for this caller" and "embed over budget
    here" name nothing, nor does a reason written about another capability.
``receipts-complete``
    Every receipt has the seed's fields (``id``, ``accepted``, ``selected`` or ``rejection``, and
    the eight ``custody`` fields); an accepted one has a value in each (the lab's host policy:
    seed 000's receipt, see :mod:`custody_lab.core.receipts`). A receipt sits under its own
    capability: its id is the line's, a live one's actor and shape are ones its kind brings in (a
    tool returns a link, an embed or a structured result, never a listed resource) and a read's
    URI is the resource's, or one its template expands to; and an accepted receipt is one the
    router can write (an embed over the host's embed limit is not). The summary lists every receipt once
    with its sha256, its counts of lines, receipts and calls are the lines' own, and the file has
    exactly those receipts.
``calls-consented``
    No tool was called without consent: every call that was made has one consent line naming a
    person or the host (the lab's host policy). "Made" is re-derived from the receipts, not taken
    from a flag: a live line holding a receipt, and every call the audit report's record shows
    (:func:`~.against_audit.performed`), even one whose line was deleted. An approver is
    structured (:mod:`custody_lab.live.approvers`): a named person, ``{"person": "Dana Ruiz"}``,
    or a policy the host has, ``{"hostPolicy": "standing-approval"}``; free text (``"Claude"``,
    ``"gpt-4o"``), a name that is blank, invisible, or names the server, a hint, the model or an
    agent is no approver (a ``readOnlyHint`` is a hint: MCP says clients MUST treat tool
    annotations as untrusted unless the server is trusted).

What the rubric cannot detect, said plainly: the archive is written by the learner, so its
summary sha256s and counts anchor nothing by themselves; a tamperer who recomputes them can change
any live line undetected **unless the audit report is given** (without it, ``matches-the-audit``
never passes). The report is trusted as given: an in-memory report, or an audit JSON rewritten
consistently from end to end (its rows, statuses, counts and gaps together), is not detectable
here; only a re-run of the audit against the server can show it. Neither the archive nor the
report holds the content itself, so a content digest (``details.contentDigest``) can be checked
only against the content or a server-side record such as ``custody-lab serve``'s receipt log,
which the rubric does not read.
"""

from __future__ import annotations

__all__ = [
    "CUSTODY_FIELDS",
    "RUBRIC_STEPS",
    "TODO",
    "Rubric",
    "RubricStep",
    "check_archive",
    "check_lines",
    "read_archive",
]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ...core.errors import CaseError, CaseFileError
from ...core.loading import load_cases
from ...core.model import Case, Policy
from ...core.receipts import canonical_json
from ...core.router import route
from ...core.text import visible
from .against_audit import audit_findings, audit_problems, read_changes, rederive_live
from .archive_shape import MAX_ARCHIVE_BYTES, normal_id, parse_archive, shape_problems
from .archive_shape import describe_line as _who
from .audit_json import audit_from_json, read_audit_json
from .consent_checks import consent_problems
from .design_review import DESIGN_INPUTS, CapstoneError
from .judgement import case_findings, fix_findings, says_nothing, sound_fix_exists
from .reasons import reason_problems
from .receipt_checks import CUSTODY_FIELDS, complete_problems

if TYPE_CHECKING:
    from ...live.audit_report import AuditReport

#: The rubric's steps, in the order the notebook takes them.
RUBRIC_STEPS: tuple[str, ...] = (
    "readable",
    "routed",
    "design-sound",
    "matches-the-audit",
    "refusals-explained",
    "receipts-complete",
    "calls-consented",
)

#: The prefix of a problem that is work not yet done rather than a finding about the design.
TODO = "still to do: "


@dataclass(frozen=True)
class RubricStep:
    """One step of the rubric: passed, or the problems that fail it (each names line and field)."""

    step: str
    problems: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.problems

    @property
    def to_do(self) -> tuple[str, ...]:
        """The problems that are work not yet done (they start with :data:`TODO`)."""
        return tuple(p for p in self.problems if p.startswith(TODO))


@dataclass(frozen=True)
class Rubric:
    """The whole rubric for one archive."""

    path: str
    steps: tuple[RubricStep, ...]

    @property
    def passed(self) -> bool:
        return all(s.passed for s in self.steps)

    @property
    def to_do(self) -> tuple[str, ...]:
        """Every problem that is work not yet done, in step order."""
        return tuple(p for s in self.steps for p in s.to_do)

    def step(self, name: str) -> RubricStep:
        """The step called ``name`` (one of :data:`RUBRIC_STEPS`)."""
        return next(s for s in self.steps if s.step == name)

    def headline(self) -> str:
        """``PASSED``, or ``NOT YET`` with how many things are still to do and how many are wrong."""
        if self.passed:
            return "PASSED"
        count = sum(len(s.problems) for s in self.steps)
        todo = len(self.to_do)
        return f"NOT YET: {todo} still to do, {count - todo} finding{'s' if count - todo != 1 else ''}"

    def text(self) -> str:
        """The rubric as plain text: one line a step, then its problems (made visible)."""
        lines = [f"rubric for {visible(self.path)}: {self.headline()}"]
        for s in self.steps:
            lines.append(f"{'✓' if s.passed else '✗'} {s.step}")
            lines += [f"    - {visible(p)}" for p in s.problems]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from ...views.html import box, escape, untrusted

        items = "".join(
            f"<li><b>{'✓' if s.passed else '✗'} {escape(s.step)}</b>"
            + ("<ul>" + "".join(f"<li>{untrusted(p)}</li>" for p in s.problems) + "</ul>" if s.problems else "")
            + "</li>"
            for s in self.steps
        )
        head = f"<b>Rubric: {escape(self.headline().lower())}</b> — {untrusted(self.path)}"
        return box(f"{head}<ul>{items}</ul>", "ok" if self.passed else "error", cls="custody-rubric")

    def __str__(self) -> str:
        return self.text()


def _read_bounded(target: Path) -> tuple[str | None, str]:
    """The archive file's text, or ``None`` and why it was not read (not a regular file: a FIFO
    or a device would block; over :data:`~.archive_shape.MAX_ARCHIVE_BYTES`; unreadable)."""
    name = visible(target.name)
    try:
        if not target.is_file():
            return None, f"{name}: cannot be read ({name} is not a file); write the archive first"
        size = target.stat().st_size
        if size > MAX_ARCHIVE_BYTES:
            return None, f"{name}: {size} bytes, over the archive limit of {MAX_ARCHIVE_BYTES}; not read"
        return target.read_text(encoding="utf-8"), ""
    except (OSError, UnicodeDecodeError) as e:
        return None, f"{name}: cannot be read ({visible(e)}); write the archive first"


def read_archive(path: str | Path) -> list[dict[str, Any]]:
    """The archive's lines as objects.

    Raises:
        CapstoneError: the file is not a regular file, is over the size limit or cannot be read,
            or a line is not a JSON object with a ``kind`` (the error names the line).
    """
    target = Path(path)
    text, unread = _read_bounded(target)
    if text is None:
        raise CapstoneError(unread, where=target.name)
    lines, problems = parse_archive(text, target.name)
    if problems:
        raise CapstoneError(problems[0], where=target.name)
    return lines


def _design(lines: Sequence[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any], Case | None]]:
    """Each design line with its case (``None`` when the case is not a case)."""
    out: list[tuple[int, Mapping[str, Any], Case | None]] = []
    for n, line in enumerate(lines, start=1):
        if line["kind"] != "design":
            continue
        try:
            out.append((n, line, Case.from_dict(line["case"])))
        except (CaseError, TypeError):
            out.append((n, line, None))
    return out


def _first_difference(got: Mapping[str, Any], want: Mapping[str, Any]) -> str:
    """The first key (in the wanted order) whose canonical JSON differs, or the first extra key."""
    for k in want:
        if k not in got or canonical_json(got[k]) != canonical_json(want[k]):
            return k
    extra = [k for k in got if k not in want]
    return extra[0] if extra else "key order"


def _id_problems(
    designed: Sequence[tuple[int, Mapping[str, Any], Case | None]], given: Mapping[str, Case]
) -> list[str]:
    """Each design id not in its normal form (:func:`.archive_shape.normal_id`), and each second
    design line for one capability: every line is checked, so none may hide behind another."""
    problems = []
    first: dict[str, int] = {}
    for n, line, _case in designed:
        who = _who(n, line)
        raw = line["id"]
        key = normal_id(raw)
        if raw != key:
            known = f"the inventory's capability {visible(repr(key))}" if key in given else visible(repr(key))
            problems.append(
                f"{who}: the id differs from {known} only by white space or invisible characters; ids are "
                "compared in one form, and an id that is not in it is not matched (field 'id')"
            )
        if key in first:
            problems.append(
                f"{who}: a second design line for capability {visible(repr(key))} (the first is line "
                f"{first[key]}); a capability has one design line, and a duplicate cannot stand in for it (field 'id')"
            )
        first.setdefault(key, n)
    return problems


def _fix_misstates(fix: Mapping[str, Any], before: object, after: object) -> bool:
    return canonical_json(fix.get("before")) != canonical_json(before) or canonical_json(
        fix.get("after")
    ) != canonical_json(after)


def _routed(lines: Sequence[Mapping[str, Any]], inventory: Sequence[Case] | None, policy: Policy) -> list[str]:
    problems = []
    designed = _design(lines)
    if not designed:
        problems.append(f"{TODO}no design line: route the inventory before archiving it")
    if inventory is None:
        problems.append("no inventory given: the design lines cannot be checked against it (pass inventory=...)")
    given = {c.id: c for c in inventory or ()}
    problems += _id_problems(designed, given)
    ids = {normal_id(line["id"]) for _, line, _ in designed}  # a non-normal id is named above
    for missing in [i for i in given if normal_id(i) not in ids]:
        problems.append(f"capability {visible(repr(missing))} of the inventory has no design line (field 'id')")
    for n, line, case in designed:
        who = _who(n, line)
        cid = line["id"]
        if inventory is not None and cid not in given and normal_id(cid) not in given:
            problems.append(f"{who}: not a capability of the inventory (field 'id')")
        if case is None:
            try:
                Case.from_dict(line["case"])
            except (CaseError, TypeError) as e:
                problems.append(f"{who}: its case is not a case ({visible(e)}) (field 'case')")
            continue
        if case.id != cid:
            problems.append(f"{who}: its case is {visible(repr(case.id))}, not the line's id (field 'case')")
        decided = route(case, policy).to_dict()
        receipt = line["receipt"]
        if canonical_json(receipt) != canonical_json(decided):  # byte for byte: true is not 1, 25 is not 25.0
            problems.append(
                f"{who}: the receipt is not what the router decides for its case "
                f"(field 'receipt.{_first_difference(receipt, decided)}')"
            )
        if cid in given:
            changed = [k for k in DESIGN_INPUTS if given[cid].get(k) != case.get(k)]
            fix = line["fix"]
            if len(changed) > 1:
                problems.append(
                    f"{who}: {len(changed)} design inputs changed ({', '.join(changed)}); a fix changes one"
                )
            elif changed and (fix is None or fix.get("field") != changed[0]):
                problems.append(f"{who}: input {changed[0]!r} changed but the line's fix does not say so (field 'fix')")
            elif changed and fix is not None and _fix_misstates(fix, given[cid].get(changed[0]), case.get(changed[0])):
                problems.append(
                    f"{who}: the line's fix does not say what {changed[0]!r} was and became "
                    "(fields 'fix.before', 'fix.after')"
                )
            elif not changed and fix is not None:
                problems.append(
                    f"{who}: the line's fix names {visible(repr(fix.get('field')))}, but nothing changed (field 'fix')"
                )
    return problems


def _kept_fixable(designed: Sequence[tuple[int, Mapping[str, Any], Case | None]], policy: Policy) -> list[str]:
    """Each design line that keeps a refusal :func:`~.judgement.sound_fix_exists` finds an honest
    one-input fix for, on its own: still to do when the line has no reason yet, a finding when it
    has one (a reason does not keep a fixable refusal). No message says which input."""
    problems = []
    fixable: dict[Case, bool] = {}  # a case repeated on many lines is judged once (each line is named)
    for n, line, case in designed:
        if case is None or line["fix"] is not None:
            continue
        decision = route(case, policy)
        if decision.accepted:
            continue
        if case not in fixable:
            fixable[case] = sound_fix_exists(case, policy)
        if not fixable[case]:
            continue
        who = _who(n, line)
        refused = f"refused as {visible(decision.rejection)} and kept"
        if says_nothing(line["reason"]) in ("is missing", "is empty"):
            problems.append(
                f"{TODO}{who}: {refused}, though one of its design inputs, changed alone, is an honest fix; "
                "find it (field 'fix')"
            )
        else:
            problems.append(
                f"{who}: {refused} with a reason, though one of its design inputs, changed alone, is an honest "
                "fix; a refusal that has one is a finding, and a reason does not keep it (field 'fix')"
            )
    return problems


def _sound(lines: Sequence[Mapping[str, Any]], inventory: Sequence[Case] | None, policy: Policy) -> list[str]:
    given = {c.id: c for c in inventory or ()}
    designed = _design(lines)
    problems = _kept_fixable(designed, policy)
    for n, _line, case in designed:
        if case is None:
            continue
        where = f"line {n}: "
        accepted = route(case, policy).accepted
        if case.id in given:
            changed = [k for k in DESIGN_INPUTS if given[case.id].get(k) != case.get(k)]
            if len(changed) == 1:
                problems += [where + p for p in fix_findings(given[case.id], case, changed[0], policy)]
        problems += [where + p for p in case_findings(case, policy, accepted=accepted)]
    return problems


def _matches(
    lines: Sequence[Mapping[str, Any]], audit: AuditReport | None, policy: Policy
) -> tuple[list[str], set[str]]:
    if audit is None:
        return [
            "no audit report given: the live lines cannot be re-derived (pass audit=the audit_server report)"
        ], set()
    live = [(n, line) for n, line in enumerate(lines, start=1) if line["kind"] == "live"]
    problems = list(rederive_live(live, audit))
    header = lines[0]
    if (
        canonical_json(header["server"]) != canonical_json(dict(audit.server))
        or header["protocol"] != audit.protocol_version
    ):
        problems.append("line 1: the header's server or protocol is not the audited server's (field 'server')")
    problems += [f"the audit did not finish: {visible(why)}" for why in audit.incomplete]
    rows = [(case, route(case, policy)) for _, _, case in _design(lines) if case is not None]
    findings, matched = audit_findings(rows, audit, policy)
    return problems + findings + read_changes(rows, audit), matched


def _header_policy(claimed: Policy, policy: Policy) -> list[str]:
    if claimed.to_dict() == policy.to_dict():
        return []
    return [
        f"line 1: the header's policy {visible(claimed.to_dict())} is not the host's {visible(policy.to_dict())}; "
        "the rubric routes under the host's (field 'policy')"
    ]


def _unreadable(path: str, problems: Sequence[str]) -> Rubric:
    rest = ("not checked: the archive is not readable (see the step 'readable')",)
    return Rubric(path, (RubricStep("readable", tuple(problems)), *(RubricStep(s, rest) for s in RUBRIC_STEPS[1:])))


def _the_audit(
    audit: AuditReport | Mapping[str, Any] | str | Path | None,
) -> tuple[AuditReport | None, list[str], list[str]]:
    """The report to check against (``None`` when none, or none usable), the problems of its
    restated values (it is still used), and the problems that make it unusable."""
    if audit is None:
        return None, [], []
    restated: list[str] = []
    report: object = audit
    if isinstance(audit, str | Path):
        report, restated = read_audit_json(audit)
    elif isinstance(audit, Mapping):
        report, restated = audit_from_json(audit)
    if report is None:
        return None, [], restated
    unusable = audit_problems(report)
    if unusable:
        return None, restated, unusable
    return cast("AuditReport", report), restated, []  # audit_problems found it an AuditReport


def check_lines(
    lines: Sequence[Mapping[str, Any]],
    *,
    inventory: Sequence[Case] | None = None,
    audit: AuditReport | Mapping[str, Any] | str | Path | None = None,
    policy: Policy | None = None,
    path: str = "(archive)",
) -> Rubric:
    """The rubric over archive lines already read (see :func:`check_archive`); never raises for
    what the lines hold (nor for an inventory that is not a list of cases: that is a finding)."""
    if not isinstance(lines, Sequence) or isinstance(lines, str | bytes):
        return _unreadable(path, [f"the archive is {visible(type(lines).__name__)}, not a list of lines"])
    shape = shape_problems(list(lines))
    if shape:
        return _unreadable(path, shape)
    policy = policy or Policy()
    claimed = Policy.from_dict(lines[0]["policy"])
    if inventory is not None and (
        not isinstance(inventory, Sequence) or not all(isinstance(c, Case) for c in inventory)
    ):
        rubric = check_lines(lines, audit=audit, policy=policy, path=path)
        routed = RubricStep("routed", ("the inventory is not a list of cases (cl.load_cases reads one)",))
        return Rubric(rubric.path, tuple(routed if s.step == "routed" else s for s in rubric.steps))
    report, restated, unusable = _the_audit(audit)
    matching, matched = _matches(lines, report, policy)
    if unusable:
        matching = [*unusable, "the audit report cannot be used: the live lines are not checked against it"]
    matching = restated + matching
    steps = (
        RubricStep("readable"),
        RubricStep("routed", tuple(_header_policy(claimed, policy) + _routed(lines, inventory, policy))),
        RubricStep("design-sound", tuple(_sound(lines, inventory, policy))),
        RubricStep("matches-the-audit", tuple(matching)),
        RubricStep("refusals-explained", tuple(reason_problems(lines, matched, TODO))),
        RubricStep("receipts-complete", tuple(complete_problems(lines, policy))),
        RubricStep("calls-consented", tuple(consent_problems(lines, report))),
    )
    return Rubric(path, steps)


def check_archive(
    path: str | Path,
    *,
    inventory: str | Path | Sequence[Case] | None = None,
    audit: AuditReport | Mapping[str, Any] | str | Path | None = None,
    policy: Policy | None = None,
) -> Rubric:
    """Check a receipt archive against the rubric's steps (:data:`RUBRIC_STEPS`).

    Args:
        path: the JSON-lines archive.
        inventory: the inventory the design review started from (a path or cases): every
            capability must have a design line, and a fix may change one input of it.
        audit: the report :func:`~.live_audit.audit_server` returned, or the JSON
            ``custody-lab audit --json`` wrote (parsed, or its file's path): the live lines are
            re-derived from it, and the design is held against what the server did.
        policy: the host policy the review was made under (the seed's by default); the header
            must say the same, and every case is routed under it, not under the header's.

    A missing, malformed or edited file, or an inventory that cannot be read, fails a step with a
    message naming the line and the field; nothing here raises for what the files hold.
    """
    target = Path(path)
    text, unread = _read_bounded(target)
    if text is None:
        return _unreadable(target.name, [unread])
    lines, problems = parse_archive(text, target.name)
    if problems:
        return _unreadable(target.name, problems)
    cases: Sequence[Case] | None
    try:
        cases = load_cases(inventory) if isinstance(inventory, (str, Path)) else inventory
    except (CaseError, CaseFileError, OSError) as e:
        rubric = check_lines(lines, audit=audit, policy=policy, path=target.name)
        routed = RubricStep("routed", (f"the inventory cannot be read: {visible(e)}",))
        return Rubric(rubric.path, tuple(routed if s.step == "routed" else s for s in rubric.steps))
    return check_lines(lines, inventory=cases, audit=audit, policy=policy, path=target.name)
