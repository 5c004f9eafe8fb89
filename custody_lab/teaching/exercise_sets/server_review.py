"""Server review, the capstone's exercises (notebook 11): review a server's design, fix one input,
read the rubric.

==========  =====  ====================================================================
id          level  task
==========  =====  ====================================================================
capstone-01 1      which capabilities of the given notes server are refused as designed
capstone-02 2      the one input whose change is an honest fix of ``word-count`` (not fix-01's size)
capstone-03 2      which rubric step an archive fails when a tool ran without consent
capstone-04 2      refuse and fix: the rule that refuses another server's HR report, and the
                   one input whose change would be a design fix (``None``: no honest one)
==========  =====  ====================================================================

Every reference is computed with the package: the router over ``data/capstone/notes-server.csv``,
the capstone's judgement
(:func:`~custody_lab.teaching.capstone.judgement.sound_fix_inputs`) for a refusal's honest fix, and the rubric
(:func:`~custody_lab.teaching.capstone.rubric.check_lines`) over an archive built by
:func:`~custody_lab.teaching.capstone.archive.archive_lines` from an audit report written out here (no
server is started to check an answer). capstone-03 and capstone-04 are about another server, a small
HR server: the notes server's fixes and reasons are the learner's own capstone work.
"""

from __future__ import annotations

__all__ = ["EXERCISES"]

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from ...core.loading import load_cases
from ...core.model import Case, Policy
from ...core.router import route
from ..capstone.design_review import GIVEN_INVENTORY, review_design
from ..capstone.judgement import MEASUREMENTS, sound_fix_inputs
from ..capstone.rubric import RUBRIC_STEPS
from ..exercises import Exercise, ExerciseError, Mistake
from . import _answers as ans
from ._changes import code_of, same_code

if TYPE_CHECKING:
    from ...live.audit_report import AuditReport

_COUNT = "word-count"


@functools.cache
def _cases() -> dict[str, Case]:
    return {c.id: c for c in load_cases(GIVEN_INVENTORY)}


def _refused() -> list[str]:
    return sorted(cid for cid, case in _cases().items() if not route(case).accepted)


def _ids(answer: object) -> frozenset[str] | None:
    names = ans.names(answer)
    return names if names is not None and names <= set(_cases()) else None


def _refused_by(code: str) -> frozenset[str]:
    return frozenset(cid for cid, case in _cases().items() if route(case).rejection == code)


def _missed(answer: object, code: str) -> bool:
    """A proper subset of the refusals that leaves out every capability ``code`` refuses."""
    got = _ids(answer)
    return got is not None and got < set(_refused()) and not got & _refused_by(code)


_CAPSTONE_01 = Exercise(
    id="capstone-01",
    title="Which capabilities does the design refuse?",
    why=(
        "route each row of the inventory under the seed's policy: a row is refused when a rule of the table "
        "fires on its own columns (its operation, its size, who may read it, what it declares)"
    ),
    level=1,
    prompt=(
        "Read the notes server's inventory (`data/capstone/notes-server.csv`) column by column, "
        "before you route it: **which capabilities are refused as designed**, under the seed's "
        'policy? Answer with the list of their ids, such as `["note"]`.'
    ),
    input_label="data/capstone/notes-server.csv under the seed's policy",
    wanted="a list of capability ids from the inventory's id column",
    given=lambda: str(GIVEN_INVENTORY),
    reference=_refused,
    compare=lambda a, e: _ids(a) == ans.names(e),
    kind="list",
    mistakes=(
        Mistake(
            "gave-a-count",
            lambda a: ans.whole_number(a) is not None,
            "Name them: give the list of ids, not how many there are.",
            example=4,
        ),
        Mistake(
            "not-inventory-ids",
            lambda a: ans.names(a) is not None and _ids(a) is None,
            "Use the ids exactly as the inventory's id column writes them.",
            example=["the export"],
        ),
        Mistake(
            "missed-the-blank-field",
            lambda a: _missed(a, "custody-incomplete"),
            "One capability leaves a custody field empty. A receipt without its URI, MIME type or "
            "provenance is refused, however small and harmless the tool is.",
            example=["audit-log", "export-notes", "delete-note"],
        ),
        Mistake(
            "missed-the-permission",
            lambda a: _missed(a, "permission-denied"),
            "Read the allowed column: a resource this caller may not read is refused before anything "
            "else about it matters.",
            example=["word-count", "export-notes", "delete-note"],
        ),
        Mistake(
            "included-accepted",
            lambda a: (got := _ids(a)) is not None and bool(got - set(_refused())),
            "Some of those pass every rule: a small read with every custody field filled in is accepted.",
            example=["notes-index", "audit-log"],
        ),
    ),
    hints=(
        "Walk the rule table in order for each row: permission, side effects, custody fields, freshness, size.",
        "For each row read the columns a rule looks at: who may call it, whether it changes "
        "state, whether a custody field is blank, whether it must be current, and how large it is.",
    ),
)


def _count_fix() -> str:
    """The one input of ``word-count`` whose change alone is an honest design fix (the capstone's
    judgement, :func:`~custody_lab.teaching.capstone.judgement.sound_fix_inputs`)."""
    inputs = sound_fix_inputs(_cases()[_COUNT], Policy())
    if len(inputs) != 1:
        raise ExerciseError(f"capstone-02: {_COUNT!r} must have exactly one sound fix input; it has {inputs}")
    return inputs[0]


def _no_input(answer: object) -> bool:
    return answer is None or code_of(answer) in ("none", "null", "nothing")


_CAPSTONE_02 = Exercise(
    id="capstone-02",
    title="Fix the word count by changing one input",
    why=(
        "custody-incomplete refuses it because its receipt names no URI; giving the structured result a URI "
        "is a choice the server's designer makes, while the other inputs state facts or the host's answers"
    ),
    level=2,
    prompt=(
        "`word-count` counts the words of one note and returns the number as structured content "
        '(its row of `data/capstone/notes-server.csv`; `input_for("capstone-02")`), and the host '
        "refuses it. Which **one** input of its row, changed alone, makes it acceptable as a design "
        "change the server's designer can honestly make? Answer with the input's name as the "
        "inventory's header writes it."
    ),
    input_label="word-count in data/capstone/notes-server.csv",
    wanted="one input name, as the inventory's header writes it",
    parse="text",
    kind="code",
    given=lambda: _cases()[_COUNT].to_dict(),
    reference=_count_fix,
    compare=same_code,
    mistakes=(
        Mistake(
            "changed-the-shape",
            lambda a: code_of(a) == "shape",
            "Another shape would carry the same count, and its receipt would still lack what this "
            "one lacks. Read the row again as an auditor would: which field is empty?",
            example="shape",
        ),
        Mistake(
            "changed-a-filled-field",
            lambda a: code_of(a) in ("provenance", "mime", "title", "description"),
            "That field is filled in already, and changing it leaves the refusal where it is: find "
            "the one the rule that refuses this row reads and this row leaves blank.",
            example="provenance",
        ),
        Mistake(
            "changed-a-measurement",
            lambda a: code_of(a) in MEASUREMENTS,
            "That input is a measurement of the payload or the read, not a design choice, and it is "
            "not what the refusing rule reads here.",
            example="bytes",
        ),
        Mistake(
            "said-no-fix-exists",
            _no_input,
            "This refusal is not about who may read it or what it does: the server's designer can "
            "change one thing in its row. Which rule refuses it, and which field does that rule read?",
            example="none",
        ),
    ),
    hints=(
        "Find the rule that refuses this row first (walk the rule table in order), then ask which "
        "input that rule reads.",
        "Read the row field by field, as the receipt would carry each one: which would an auditor find empty?",
    ),
)


#: capstone-03's scenario: the review of another server, the HR server of capstone-04 (a transfer:
#: the notes server's design is the learner's own capstone work). Its inventory, as cases.
_HR_ROWS: tuple[dict[str, object], ...] = (
    {
        "id": "org-chart",
        "initiator": "application",
        "operation": "read",
        "shape": "listed-resource",
        "uri": "hr://org-chart",
        "mime": "text/csv",
        "bytes": 1800,
        "current": True,
        "allowed": True,
        "sideEffects": False,
        "provenance": "hr-server@3.2.0",
    },
    {
        "id": "salary-report",
        "initiator": "application",
        "operation": "read",
        "shape": "listed-resource",
        "uri": "hr://reports/salaries-2026",
        "mime": "text/csv",
        "bytes": 2300,
        "current": True,
        "allowed": False,
        "sideEffects": False,
        "provenance": "hr-server@3.2.0",
    },
    {
        "id": "headcount",
        "initiator": "model",
        "operation": "calculate",
        "shape": "structured-tool-result",
        "uri": "urn:hr:headcount:support",
        "mime": "application/json",
        "bytes": 30,
        "current": True,
        "allowed": True,
        "sideEffects": False,
        "provenance": "hr-server@3.2.0",
    },
    {
        "id": "open-positions",
        "initiator": "model",
        "operation": "search",
        "shape": "structured-tool-result",
        "uri": "urn:hr:open-positions:support",
        "mime": "application/json",
        "bytes": 420,
        "current": True,
        "allowed": True,
        "sideEffects": False,
        "provenance": "hr-server@3.2.0",
    },
)
_HR_REASON = "salaries are for the HR team, and this host is the support desk's assistant"


def _hr_cases() -> list[Case]:
    return [Case.from_dict(row) for row in _HR_ROWS]


@functools.cache
def _audit_of_the_hr_server() -> AuditReport:
    """The audit report of an HR server that does what its design says (written out here: no
    server is started to check an answer)."""
    from ...live.audit_report import AuditReport, CapabilityAudit

    def audited(kind: Literal["resource", "tool"], case: Case, why: str) -> CapabilityAudit:
        custody = {
            "actor": case.initiator,
            "permissionChecked": True,
            "uri": case.uri,
            "mime": case.mime,
            "provenance": case.provenance,
            "bytes": case.bytes,
            "retrievedAt": "2026-09-04T12:00:00.000Z",
            "sideEffects": False,
        }
        name = case.uri if kind == "resource" else str(case.id).replace("-", "_")
        details: dict[str, object] = {"custody": custody}
        if kind == "resource":  # read twice, the same both times (custody_lab.live.audit_reread)
            details["reread"] = {"changed": False, "contentDigest": "sha256:" + "c" * 64, "error": None}
        return CapabilityAudit(kind, str(name), True, why, case.shape, (), details)

    chart, _, headcount, positions = _hr_cases()
    caps = (
        audited("resource", chart, "listed resource: reads are safe"),
        audited("tool", headcount, "allowed by --allow-calls"),
        audited("tool", positions, "allowed by --allow-calls"),
    )
    reread = {"changes": [], "calledBetween": ["headcount", "open_positions"], "reread": 1, "stopped": False}
    reread |= {"indexGone": [], "indexAdded": []}
    return AuditReport(("hr_server.py",), {"name": "hr-server", "version": "3.2.0"}, "2026-07-28", caps, reread=reread)


@functools.cache
def _unconsented_archive() -> tuple[dict[str, object], ...]:
    """A complete archive of the HR server's review whose audit called a tool nobody approved."""
    from ...live.presentation import Consent
    from ..capstone.archive import archive_lines

    rows = review_design(_hr_cases(), reasons={"salary-report": _HR_REASON})
    consents = (Consent("headcount", {}, {"person": "Sam Okafor"}),)
    return tuple(archive_lines(rows, _audit_of_the_hr_server(), consents))


def _failing_step() -> str:
    from ..capstone.rubric import check_lines

    rubric = check_lines(_unconsented_archive(), inventory=_hr_cases(), audit=_audit_of_the_hr_server())
    failed = [s.step for s in rubric.steps if not s.passed]
    if len(failed) != 1:
        raise ExerciseError(f"capstone-03: the archive must fail exactly one rubric step; it fails {failed}")
    return failed[0]


def _step_but(answer: object, *wrong: str) -> bool:
    return code_of(answer) in wrong and code_of(answer) != _failing_step()


_CAPSTONE_03 = Exercise(
    id="capstone-03",
    title="Read the rubric: which step fails?",
    why=(
        "the audit called two tools, but the archive holds a consent line for only one of them: a call ran "
        "with no person's approval on record"
    ),
    level=2,
    prompt=(
        '`input_for("capstone-03")` is the archive of a review of the HR server (capstone-04\'s), checked '
        "against its inventory and the report of its live audit: every capability routed, its one "
        "refusal kept with a reason, every receipt whole and listed in the summary, the server doing "
        "what the design says. The consent lines come before the live lines. Which **one** rubric step "
        f"does it fail? Answer with the step's name ({', '.join(RUBRIC_STEPS)})."
    ),
    input_label="an archive of the HR server's review with two tool calls",
    wanted="the name of one rubric step",
    parse="text",
    kind="code",
    given=_unconsented_archive,
    reference=_failing_step,
    compare=same_code,
    mistakes=(
        Mistake(
            "blamed-the-receipts",
            lambda a: _step_but(a, "receipts-complete", "routed"),
            "Every receipt has its fields and matches the summary, and every case is routed. Look at "
            "the consent lines: which tool call did someone approve?",
            example="receipts-complete",
        ),
        Mistake(
            "blamed-the-audit",
            lambda a: _step_but(a, "matches-the-audit", "design-sound", "readable"),
            "The live lines are what the audit recorded, and the server did what the design says. "
            "The problem is not what a call returned but whether anyone allowed it.",
            example="matches-the-audit",
        ),
        Mistake(
            "blamed-the-refusals",
            lambda a: _step_but(a, "refusals-explained"),
            "The one refusal carries a written reason, and both tool calls were accepted. The problem "
            "is who allowed a call, not what it returned.",
            example="refusals-explained",
        ),
    ),
    hints=(
        "Count the tools the audit called, then the consent lines.",
        "A readOnlyHint is not consent; only a consent line names an actor who approved a call.",
    ),
)

#: capstone-04's scenario: the HR server's salary report, refused for this host (a transfer: not a
#: row of the notes server, whose refusals are the learner's own capstone decisions).
_SALARIES: dict[str, object] = {
    **_HR_ROWS[1],
    "title": "Salary report",
    "description": "Every employee's salary; the HR team reads it. This host is the support desk's assistant.",
}


def _refuse_and_fix() -> dict[str, str | None]:
    """The rule that refuses the salary report, and its one sound fix input (``None``: none exists)."""
    case = Case.from_dict(_SALARIES)
    inputs = sound_fix_inputs(case, Policy())
    if len(inputs) > 1:
        raise ExerciseError(f"capstone-04: {case.id!r} has several sound fixes {inputs}; the answer must be one")
    return {"rule": route(case).rejection, "change": inputs[0] if inputs else None}


def _part(answer: object, key: str) -> object:
    """One part of a ``{"rule": ..., "change": ...}`` answer; ``...`` when the answer has no such part."""
    return answer.get(key, ...) if isinstance(answer, Mapping) else ...


def _input_of(answer: object) -> str | None:
    """The input part read alike (``None``, ``"none"``, ``""`` are no input); ``"?"`` when absent."""
    value = _part(answer, "change")
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        return None
    return code_of(value) if isinstance(value, str) else "?"


def _same_refusal(answer: object, expected: object) -> bool:
    assert isinstance(expected, dict)
    want = expected["change"]
    return same_code(_part(answer, "rule"), expected["rule"]) and _input_of(answer) == (
        None if want is None else code_of(want)
    )


_CAPSTONE_04 = Exercise(
    id="capstone-04",
    title="Refuse and fix: is there an honest one-input fix?",
    why=(
        "the support desk's assistant really may not read salaries, so allowed is a fact, not a design "
        "choice, and no other input of the design is what refuses it"
    ),
    level=2,
    prompt=(
        'An HR server offers `input_for("capstone-04")`, its salary report, to this host, the support '
        "desk's assistant, and the host refuses it. Name the **rule** that refuses it, and the **one** "
        "design input whose change alone would make it acceptable *as a design change*, one the "
        "server's designer can honestly make; if no such input exists, say so with `None`. Answer as "
        '`{"rule": "...", "change": "..."}` (or `"change": None`), as in notebook 01\'s fix exercises.'
    ),
    input_label="the HR server's salary-report under the seed's policy",
    wanted='a dict {"rule": a rejection code, "change": a design input or None}',
    kind="mapping",
    given=lambda: dict(_SALARIES),
    reference=_refuse_and_fix,
    compare=_same_refusal,
    mistakes=(
        Mistake(
            "not-both-parts",
            lambda a: not isinstance(a, Mapping) or not {"rule", "change"} <= set(a),
            'Give both parts, as a dict with the keys "rule" and "change".',
            example="permission-denied",
        ),
        Mistake(
            "wrong-rule",
            lambda a: (
                isinstance(a, Mapping)
                and code_of(_part(a, "rule")) is not None
                and not same_code(_part(a, "rule"), _refuse_and_fix()["rule"])
            ),
            "Walk the rule table in order for this row: the first rule that fires is the one that "
            "refuses it, and for this row it fires before anything about its size or custody matters.",
            example={"rule": "custody-incomplete", "change": None},
        ),
        Mistake(
            "granted-the-permission",
            lambda a: _input_of(a) == "allowed",
            "The router would accept it, but `allowed` is what the host's permission check answered for "
            "this caller; a design review cannot grant a role the host does not have.",
            example={"rule": "permission-denied", "change": "allowed"},
        ),
        Mistake(
            "changed-a-measurement",
            lambda a: _input_of(a) in MEASUREMENTS,
            "That input is a measurement of the payload, not a design choice: changing the number "
            "changes the record, not what is read.",
            example={"rule": "permission-denied", "change": "bytes"},
        ),
        Mistake(
            "changed-the-freshness",
            lambda a: _input_of(a) in ("current", "requiresCurrent"),
            "Read the row's freshness inputs again: is the copy stale, and does the use ask for current "
            "data? A change to an input that is not part of the refusal cannot be its fix.",
            example={"rule": "permission-denied", "change": "current"},
        ),
    ),
    hints=(
        "For each input you might change, ask who decides it: the server's designer, the host, or the payload itself.",
        "A permission is the host's answer for this caller; what could the server's designer change "
        "that makes the host answer differently?",
    ),
)

EXERCISES = (_CAPSTONE_01, _CAPSTONE_02, _CAPSTONE_03, _CAPSTONE_04)
