"""Archives that try to lie their way past the rubric (issue 24 §5), each built from a good archive.

Every fixture below is a function named for the lie it tells; it takes a good archive (and the
good audit report) and returns the tampered pair. Where a tamperer would recompute the summary's
sha256s, the fixture does (:func:`resummed`), so the only thing that can catch the lie is a
check that re-derives what the line claims. Each test asserts the step that must refuse it and
that the message names the line or capability and what is wrong.
"""

from __future__ import annotations

import copy
import json
import os
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

import custody_lab as cl
from custody_lab.core.receipts import digest
from custody_lab.live.approvers import NOT_A_PERSON
from custody_lab.live.audit_report import AuditReport, CapabilityAudit
from custody_lab.teaching.capstone import GIVEN_INVENTORY, write_archive
from custody_lab.teaching.capstone.archive_shape import MAX_ARCHIVE_BYTES, MAX_DEPTH, normal_id
from custody_lab.teaching.capstone.audit_json import audit_from_json
from custody_lab.teaching.capstone.consent_checks import consent_problems
from custody_lab.teaching.capstone.receipt_checks import LIVE_SHAPES
from custody_lab.teaching.capstone.rubric import RUBRIC_STEPS, check_archive, check_lines

from .archives import CASES, CONSENTS, custody, good_caps, good_lines, good_report, line_of, lines_for, report_of

Lines = list[dict[str, Any]]


def resummed(lines: Lines) -> Lines:
    """The summary's receipt list recomputed from the lines, as a tamperer who knows sha256 would."""
    lines[-1]["receipts"] = [
        {"line": n, "kind": x["kind"], "id": x["receipt"]["id"], "sha256": digest(x["receipt"])}
        for n, x in enumerate(lines, start=1)
        if x.get("receipt") is not None
    ]
    return lines


def recounted(lines: Lines) -> Lines:
    """The summary's counts recomputed too: a tamperer who knows the whole format."""
    live = [x for x in lines if x["kind"] == "live"]
    design = [x for x in lines if x["kind"] == "design"]
    lines[-1]["counts"] = {
        "design": len(design),
        "designAccepted": sum(x["receipt"]["accepted"] for x in design),
        "designFixed": sum(x["receipt"]["accepted"] and x["fix"] is not None for x in design),
        "designRefused": sum(not x["receipt"]["accepted"] for x in design),
        "live": len(live),
        "liveExercised": sum(x["exercised"] for x in live),
        "toolsCalled": sorted(x["name"] for x in live if x["capability"] == "tool" and x["exercised"]),
        "consents": sum(x["kind"] == "consent" for x in lines),
    }
    return resummed(lines)


def rubric_of(lines: Lines, report: AuditReport | None) -> dict[str, tuple[str, ...]]:
    rubric = check_lines(lines, inventory=CASES, audit=report)
    assert [s.step for s in rubric.steps] == list(RUBRIC_STEPS), rubric.steps
    assert str(rubric) and rubric._repr_html_(), "a rubric always renders"
    return {s.step: s.problems for s in rubric.steps if not s.passed}


def said(failed: dict[str, tuple[str, ...]], step: str, *parts: str) -> str:
    """The one problem of ``step`` that holds every part (fails, listing the rubric, if none does)."""
    found = [p for p in failed.get(step, ()) if all(part in p for part in parts)]
    assert found, f"expected {step} to say {parts}; it failed {failed}"
    assert not found[0].startswith("still to do"), found[0]
    return found[0]


# -- 1. one line per capability, ids compared in one form -----------------------------------------


def duplicate_design_line_granting_the_audit_log_placed_first(lines: Lines, report: AuditReport):
    fake = copy.deepcopy(line_of(lines, "design", "audit-log"))
    fake["case"]["allowed"] = True
    fake["fix"] = {"field": "allowed", "before": False, "after": True}
    fake["receipt"] = cl.route(cl.Case.from_dict(fake["case"])).to_dict()
    lines.insert(1, fake)
    return recounted(lines), report


def identical_design_line_twice(lines: Lines, report: AuditReport):
    lines.insert(1, copy.deepcopy(line_of(lines, "design", "notes-index")))
    return recounted(lines), report


def test_a_duplicate_design_line_placed_first_is_a_finding_and_is_itself_checked():
    lines, report = duplicate_design_line_granting_the_audit_log_placed_first(good_lines(), good_report())
    failed = rubric_of(lines, report)
    said(failed, "routed", "line 5 (design 'audit-log')", "a second design line for capability 'audit-log'", "line 2")
    said(failed, "design-sound", "line 2:", "grants a permission")


def test_the_same_design_line_twice_is_a_finding_even_when_both_are_right():
    failed = rubric_of(*identical_design_line_twice(good_lines(), good_report()))
    said(failed, "routed", "line 3 (design 'notes-index')", "a second design line")


@pytest.mark.parametrize(
    "spelled",
    ["audit-log ", " audit-log", "audit-log\u00a0", "audit\u200b-log", "\uff41udit-log", "audit-log\u3164"],
    ids=["trailing-space", "leading-space", "no-break-space", "zero-width-space", "fullwidth-a", "hangul-filler"],
)
def test_an_id_that_differs_only_by_white_space_or_invisible_characters_is_a_finding(spelled):
    assert normal_id(spelled) == "audit-log", spelled
    lines = good_lines()
    line = line_of(lines, "design", "audit-log")
    line["id"] = line["case"]["id"] = spelled
    line["receipt"] = cl.route(cl.Case.from_dict(line["case"])).to_dict()
    failed = rubric_of(recounted(lines), good_report())
    said(failed, "routed", "line 4 (design", "differs from the inventory's capability 'audit-log'", "field 'id'")


def test_a_white_space_copy_beside_the_real_line_counts_as_a_second_line_for_it():
    lines = good_lines()
    copied = copy.deepcopy(line_of(lines, "design", "audit-log"))
    copied["id"] = copied["case"]["id"] = copied["receipt"]["id"] = "audit-log "
    lines.insert(1, copied)
    failed = rubric_of(recounted(lines), good_report())
    said(failed, "routed", "line 2 (design 'audit-log ')", "only by white space")
    said(failed, "routed", "line 5 (design 'audit-log')", "a second design line for capability 'audit-log'")


# -- 2. "performed" comes from the receipts, not from a flag ---------------------------------------


def _delete_called() -> AuditReport:
    caps = good_caps()
    caps[-1] = CapabilityAudit(
        "tool",
        "delete_note",
        True,
        "allowed by --allow-calls",
        "structured-tool-result",
        (),
        {"custody": custody("model", "urn:notes:deleted:7", effects=True), "contentDigest": "sha256:" + "0" * 64},
    )
    return report_of(caps)


def performed_delete_marked_not_exercised_in_the_archive(lines: Lines, report: AuditReport):
    report = _delete_called()
    lines = lines_for(report=report)
    line_of(lines, "live", "delete_note")["exercised"] = False
    return recounted(lines), report


def performed_delete_marked_not_exercised_in_the_report_too(lines: Lines, report: AuditReport):
    """A report written by hand (as capstone-03's is): no content digest, only the call's outcome."""
    called = _delete_called()
    delete = next(c for c in called.capabilities if c.name == "delete_note")
    hidden = replace(delete, exercised=False, details={"custody": delete.details["custody"]})
    report = report_of([c if c is not delete else hidden for c in called.capabilities])
    return lines_for(report=report), report


@pytest.mark.parametrize("with_audit", [True, False], ids=["with-the-audit", "archive-alone"])
def test_a_performed_delete_marked_not_exercised_still_needs_a_consent(with_audit):
    lines, report = performed_delete_marked_not_exercised_in_the_archive(good_lines(), good_report())
    failed = rubric_of(lines, report if with_audit else None)
    said(failed, "calls-consented", "line 15 (live 'delete_note')", "marked exercised false", "field 'exercised'")
    said(failed, "calls-consented", "line 15 (live 'delete_note')", "called without a consent line")


def test_a_report_that_marks_a_performed_call_not_exercised_is_read_by_its_record_not_its_flag():
    lines, report = performed_delete_marked_not_exercised_in_the_report_too(good_lines(), good_report())
    assert line_of(lines, "live", "delete_note")["receipt"] is None, "the archive agrees with the flag"
    failed = rubric_of(lines, report)
    said(failed, "calls-consented", "the audit report marks tool 'delete_note' not exercised", "the call was made")
    said(failed, "calls-consented", "'delete_note'", "called without a consent line")


# -- 3. approvers and reasons that show nothing ----------------------------------------------------

INVISIBLE_TEXT = {
    "zero-width space": "\u200b",
    "hangul filler": "\u3164",
    "halfwidth hangul filler": "\uffa0",
    "braille blank": "\u2800",
    "ideographic space": "\u3000",
    "no-break space and zero-width joiner": "\u00a0\u200d",
    "mongolian vowel separator": "\u180e",
    "variation selector": "\ufe0f",
    "tag characters": "\U000e0061\U000e0064\U000e006d",
    "combining grapheme joiner": "\u034f\u034f",
}


@pytest.mark.parametrize("name", sorted(INVISIBLE_TEXT))
def test_an_invisible_approver_is_no_approver(name):
    lines = good_lines()
    for approver in (INVISIBLE_TEXT[name], {"person": INVISIBLE_TEXT[name]}, {"person": f"Dana{INVISIBLE_TEXT[name]}"}):
        line_of(lines, "consent", "word_count")["approvedBy"] = approver
        failed = rubric_of(lines, good_report())
        said(failed, "calls-consented", "line 8 (consent 'word_count')", "field 'approvedBy'")
    said(failed, "calls-consented", "line 12 (live 'word_count')", "without a consent line")


@pytest.mark.parametrize("name", sorted(INVISIBLE_TEXT))
def test_an_invisible_reason_or_one_padded_with_invisible_words_explains_nothing(name):
    for reason in (INVISIBLE_TEXT[name], f"admins only {INVISIBLE_TEXT[name] * 3} {INVISIBLE_TEXT[name] * 2}"):
        lines = good_lines()
        line_of(lines, "design", "audit-log")["reason"] = reason
        problems = rubric_of(lines, good_report()).get("refusals-explained", ())
        assert any("line 4 (design 'audit-log')" in p and "field 'reason'" in p for p in problems), (name, problems)


# -- 4. receipts re-derived byte for byte ----------------------------------------------------------


def live_receipt_edited_with_the_summary_recomputed(lines: Lines, report: AuditReport):
    line_of(lines, "live", "export_notes")["receipt"]["custody"]["bytes"] = 1
    return resummed(lines), report


def live_flag_written_as_a_number_python_calls_equal(lines: Lines, report: AuditReport):
    line_of(lines, "live", "word_count")["receipt"]["custody"]["sideEffects"] = 0  # 0 == False in Python
    return resummed(lines), report


def refused_design_receipt_with_a_number_for_a_flag(lines: Lines, report: AuditReport):
    custody = line_of(lines, "design", "audit-log")["receipt"]["custody"]
    custody["permissionChecked"] = int(custody["permissionChecked"])  # 1 == True and 0 == False in Python
    return resummed(lines), report


def test_a_live_receipt_edited_with_its_sha256_recomputed_is_not_what_the_audit_recorded():
    failed = rubric_of(*live_receipt_edited_with_the_summary_recomputed(good_lines(), good_report()))
    said(failed, "matches-the-audit", "line 13 (live 'export_notes')", "field 'receipt'", "not what the live audit")


def test_a_flag_rewritten_as_a_number_that_python_calls_equal_is_caught_byte_for_byte():
    failed = rubric_of(*live_flag_written_as_a_number_python_calls_equal(good_lines(), good_report()))
    said(failed, "matches-the-audit", "line 12 (live 'word_count')", "field 'receipt'")
    failed = rubric_of(*refused_design_receipt_with_a_number_for_a_flag(good_lines(), good_report()))
    said(failed, "routed", "line 4 (design 'audit-log')", "not what the router decides", "receipt.custody")


def test_an_archive_checked_without_its_audit_report_never_passes():
    """What the file alone cannot show (a live receipt edited and every digest and count
    recomputed) is why the audit report is asked for: without it the rubric does not pass."""
    lines, _ = live_receipt_edited_with_the_summary_recomputed(good_lines(), good_report())
    failed = rubric_of(lines, None)
    assert any("no audit report given" in p for p in failed["matches-the-audit"]), failed


# -- 5. a receipt sits under its own capability ----------------------------------------------------


def receipts_of_two_tools_swapped(lines: Lines, report: AuditReport):
    a, b = line_of(lines, "live", "word_count"), line_of(lines, "live", "export_notes")
    a["receipt"], b["receipt"] = b["receipt"], a["receipt"]
    return resummed(lines), report


def template_receipt_moved_under_the_listed_resource(lines: Lines, report: AuditReport):
    moved = copy.deepcopy(line_of(lines, "live", "notes://{id}")["receipt"])
    moved["id"] = "notes://index"
    line_of(lines, "live", "notes://index")["receipt"] = moved
    return resummed(lines), report


def test_a_receipt_moved_to_another_tool_is_named_under_the_tool_it_sits_under():
    failed = rubric_of(*receipts_of_two_tools_swapped(good_lines(), good_report()))
    said(failed, "receipts-complete", "line 12 (live 'word_count')", "is for 'export_notes'", "receipt.id")
    said(failed, "receipts-complete", "line 13 (live 'export_notes')", "is for 'word_count'", "receipt.id")


def test_a_receipt_moved_to_another_resource_is_named_by_its_uri():
    failed = rubric_of(*template_receipt_moved_under_the_listed_resource(good_lines(), good_report()))
    said(failed, "receipts-complete", "line 10 (live 'notes://index')", "URI 'notes://7'", "receipt.custody.uri")
    said(failed, "matches-the-audit", "line 10 (live 'notes://index')", "field 'receipt'")


# -- 6. an approver is a person or the host --------------------------------------------------------


#: Free text that passed as an approver before approvers were structured (issue 37 §2), and more.
FREE_TEXT_APPROVERS = [
    "Claude",
    "the agent",
    "gpt-4o",
    "auto-approve policy",
    "Dana Ruiz",
    "the server (readOnlyHint: true)",
    "readOnlyHint",
]


@pytest.mark.parametrize("approver", FREE_TEXT_APPROVERS)
def test_free_text_is_no_approver_and_the_message_says_what_one_is(approver):
    lines = good_lines()
    line_of(lines, "consent", "export_notes")["approvedBy"] = approver
    failed = rubric_of(lines, good_report())
    said(failed, "calls-consented", "line 9 (consent 'export_notes')", "is text", "an approver is a named person")
    said(failed, "calls-consented", "line 13 (live 'export_notes')", "without a consent line")


@pytest.mark.parametrize(
    ("approver", "why"),
    [
        ({"person": "Claude"}, "is one name"),
        ({"person": "the agent"}, "'agent': a machine"),
        ({"person": "gpt-4o"}, "holds '4'"),
        ({"person": "Dana\u3164Ruiz"}, "characters a reader cannot see (\\u3164)"),  # a Hangul filler
        ({"person": "Notes Server"}, "'server': a machine"),
        ({"hostPolicy": "auto-approve policy"}, "which is no policy this host has"),
        ({"person": "Dana Ruiz", "hostPolicy": "standing-approval"}, "an approver has one key"),
        ({"model": "Claude Opus"}, "an approver has one key"),
        ({"person": 7}, "names no person"),
    ],
)
def test_a_structured_approver_that_is_no_person_or_host_policy_is_no_approver(approver, why):
    lines = good_lines()
    line_of(lines, "consent", "export_notes")["approvedBy"] = approver
    failed = rubric_of(lines, good_report())
    said(failed, "calls-consented", "line 9 (consent 'export_notes')", why, "field 'approvedBy'")
    said(failed, "calls-consented", "line 13 (live 'export_notes')", "without a consent line")


@pytest.mark.parametrize("word", sorted(NOT_A_PERSON))
def test_each_word_that_names_a_machine_makes_a_person_no_person(word):
    lines = good_lines()
    line_of(lines, "consent", "word_count")["approvedBy"] = {"person": f"Dana {word.upper()}"}
    said(rubric_of(lines, good_report()), "calls-consented", "line 8 (consent 'word_count')", repr(word))


def test_a_consent_for_a_white_space_tool_name_or_a_second_consent_is_no_consent():
    lines = good_lines()
    line_of(lines, "consent", "word_count")["tool"] = "word_count "
    failed = rubric_of(recounted(lines), good_report())
    said(failed, "calls-consented", "line 8 (consent 'word_count ')", "only by white space", "field 'tool'")
    said(failed, "calls-consented", "line 12 (live 'word_count')", "without a consent line")
    lines = good_lines()
    lines.insert(8, copy.deepcopy(line_of(lines, "consent", "export_notes")) | {"approvedBy": {"person": "the server"}})
    failed = rubric_of(recounted(lines), good_report())
    said(failed, "calls-consented", "line 9 (consent 'export_notes')", "the approving actor {'person': 'the server'}")
    said(failed, "calls-consented", "line 10 (consent 'export_notes')", "a second consent", "line 9")
    said(failed, "calls-consented", "line 14 (live 'export_notes')", "without a consent line")


@pytest.mark.parametrize(
    "approver",
    [{"person": "Dana Ruiz"}, {"person": "José María Núñez-O'Neill"}, {"hostPolicy": "standing-approval"}],
)
def test_a_named_person_or_a_policy_the_host_has_is_an_approver(approver):
    lines = lines_for(consents=[replace(c, approved_by=approver) for c in CONSENTS])
    assert rubric_of(lines, good_report()) == {}
    assert consent_problems(lines, good_report()) == []


# -- 7. a receipt's shape is one its capability can return -----------------------------------------


def tool_receipt_claiming_a_listed_resource(lines: Lines, report: AuditReport):
    line_of(lines, "live", "word_count")["receipt"]["selected"] = "listed-resource"
    return resummed(lines), report


def tool_receipt_claiming_the_application_fetched_it(lines: Lines, report: AuditReport):
    line_of(lines, "live", "export_notes")["receipt"]["custody"]["actor"] = "application"
    return resummed(lines), report


def test_a_tool_receipt_claiming_a_listed_resource_is_a_shape_no_tool_returns():
    failed = rubric_of(*tool_receipt_claiming_a_listed_resource(good_lines(), good_report()))
    said(failed, "receipts-complete", "line 12 (live 'word_count')", "selects listed-resource", "receipt.selected")


@pytest.mark.parametrize(("kind", "name"), [("tool", "word_count"), ("template", "notes://{id}")])
def test_every_shape_a_capability_cannot_return_is_named(kind, name):
    wrong = [shape for shape in cl.SHAPES if shape not in LIVE_SHAPES[kind]]
    assert wrong, kind
    for shape in wrong:
        lines = good_lines()
        line_of(lines, "live", name)["receipt"]["selected"] = shape
        failed = rubric_of(resummed(lines), good_report())
        said(failed, "receipts-complete", f"(live {name!r})", f"selects {shape}, a shape a {kind} cannot return")


def export_receipt_claiming_an_embed_over_the_limit(lines: Lines, report: AuditReport):
    receipt = line_of(lines, "live", "export_notes")["receipt"]
    receipt["selected"] = "embedded-resource"
    receipt["custody"]["bytes"] = 52_415
    return resummed(lines), report


@pytest.mark.parametrize("with_audit", [True, False], ids=["with-the-audit", "archive-alone"])
def test_an_accepted_embed_over_the_limit_is_a_receipt_the_router_never_writes(with_audit):
    lines, report = export_receipt_claiming_an_embed_over_the_limit(good_lines(), good_report())
    failed = rubric_of(lines, report if with_audit else None)
    said(failed, "receipts-complete", "line 13 (live 'export_notes')", "52415 bytes", "embed-over-budget")


def test_a_tool_receipt_whose_actor_is_the_application_is_named():
    failed = rubric_of(*tool_receipt_claiming_the_application_fetched_it(good_lines(), good_report()))
    said(failed, "receipts-complete", "line 13 (live 'export_notes')", "actor is 'application'")


# -- 8. a call deleted from the archive still shows ------------------------------------------------


def called_tool_line_deleted_with_its_consent(lines: Lines, report: AuditReport):
    lines.remove(line_of(lines, "live", "word_count"))
    lines.remove(line_of(lines, "consent", "word_count"))
    return resummed(lines), report


def called_tool_line_deleted_with_its_consent_and_the_counts(lines: Lines, report: AuditReport):
    lines, report = called_tool_line_deleted_with_its_consent(lines, report)
    return recounted(lines), report


def test_a_called_tool_deleted_with_its_consent_shows_in_the_summary_counts():
    failed = rubric_of(*called_tool_line_deleted_with_its_consent(good_lines(), good_report()))
    said(failed, "receipts-complete", "counts.toolsCalled", "word_count")
    said(failed, "receipts-complete", "counts.live", "5", "hold 4")


def test_a_called_tool_deleted_with_its_consent_and_the_counts_shows_in_the_audit_report():
    failed = rubric_of(*called_tool_line_deleted_with_its_consent_and_the_counts(good_lines(), good_report()))
    said(failed, "matches-the-audit", "the live audit recorded tool 'word_count', which it called", "no line for it")
    said(failed, "calls-consented", "the audit report's tool 'word_count'", "without a consent line")


# -- every tampered archive above is refused, and the good one is not -------------------------------

TAMPERED: dict[str, Callable[[Lines, AuditReport], tuple[Lines, AuditReport]]] = {
    f.__name__: f
    for f in (
        duplicate_design_line_granting_the_audit_log_placed_first,
        identical_design_line_twice,
        performed_delete_marked_not_exercised_in_the_archive,
        performed_delete_marked_not_exercised_in_the_report_too,
        live_receipt_edited_with_the_summary_recomputed,
        live_flag_written_as_a_number_python_calls_equal,
        refused_design_receipt_with_a_number_for_a_flag,
        receipts_of_two_tools_swapped,
        template_receipt_moved_under_the_listed_resource,
        tool_receipt_claiming_a_listed_resource,
        tool_receipt_claiming_the_application_fetched_it,
        export_receipt_claiming_an_embed_over_the_limit,
        called_tool_line_deleted_with_its_consent,
        called_tool_line_deleted_with_its_consent_and_the_counts,
    )
}


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_every_tampered_archive_fails_written_to_a_file_and_read_back(name, tmp_path):
    lines, report = TAMPERED[name](good_lines(), good_report())
    path = write_archive(tmp_path / f"{name}.jsonl", lines)
    rubric = check_archive(path, inventory=GIVEN_INVENTORY, audit=report)
    findings = [p for s in rubric.steps for p in s.problems if not p.startswith("still to do")]
    assert not rubric.passed and findings, f"{name} passed:\n{rubric.text()}"


def test_the_good_archive_passes_the_same_way():
    assert rubric_of(good_lines(), good_report()) == {}


# -- 9. every archive gets a result, malformed ones a finding naming where -------------------------


def _deep(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels):
        value = {"a": value}
    return value


class _Opaque:
    def __repr__(self) -> str:
        raise RuntimeError("a repr that raises")


HOSTILE: dict[str, object] = {
    "deep nesting": _deep(5000),
    "NaN": float("nan"),
    "infinity": float("-inf"),
    "a huge number": 10**400,
    "a list id": ["audit-log"],
    "a key that is not text": {1: "x", (2, 3): "y"},
    "a set": {"a", "b"},
    "bytes": b"\x00\xff",
    "an object": _Opaque(),
}


def _paths(value: object, parts: tuple = ()) -> list[tuple]:
    out = [parts] if parts else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*parts, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*parts, i))
    return out


def _set(line: Any, parts: tuple, value: object) -> None:
    for part in parts[:-1]:
        line = line[part]
    line[parts[-1]] = value


def test_a_hostile_value_anywhere_in_any_line_gets_a_result_naming_the_line():
    base = good_lines()
    names = sorted(HOSTILE)
    tried = 0
    for n, line in enumerate(base):
        for i, parts in enumerate(_paths(line)):
            if parts == ("kind",):
                continue
            for name in (names[i % len(names)], names[(i + n + 4) % len(names)]):
                lines = copy.deepcopy(base)
                _set(lines[n], parts, HOSTILE[name])
                rubric = check_lines(lines, inventory=CASES, audit=good_report())  # must not raise
                text = rubric.text()
                tried += 1
                if name != "a list id":
                    assert not rubric.passed and f"line {n + 1}" in text, f"{parts} = {name}:\n{text}"
    assert tried > 300, tried


@pytest.mark.parametrize("lines", [None, "text", 7, {"kind": "header"}, iter([{"kind": "header"}])])
def test_lines_that_are_not_a_list_of_lines_get_a_result(lines):
    rubric = check_lines(lines, inventory=CASES, audit=good_report())
    assert "not a list of lines" in rubric.step("readable").problems[0], rubric.text()


@pytest.mark.parametrize("inventory", [["audit-log"], [None], "notes-server.csv"])
def test_an_inventory_that_is_not_a_list_of_cases_is_a_finding(inventory):
    rubric = check_lines(good_lines(), inventory=inventory, audit=good_report())
    assert rubric.step("routed").problems == ("the inventory is not a list of cases (cl.load_cases reads one)",)


@pytest.mark.parametrize("line", [[1, 2], "text", None, 7, 2.5, True, {"kind": 3}, {"kind": None}])
def test_a_line_that_is_not_an_archive_line_is_named(line):
    lines: list = good_lines()
    lines.insert(3, line)
    failed = rubric_of(lines, good_report())
    assert "line 4: not an archive line (field 'kind')" in failed["readable"], failed


@pytest.mark.parametrize(
    ("name", "raw", "says"),
    [
        ("NaN", '{"kind":"design","row":NaN}', "row is NaN or an infinity"),
        ("Infinity", '{"kind":"design","row":-Infinity}', "row is NaN or an infinity"),
        ("1e999", '{"kind":"design","row":1e999}', "row is NaN or an infinity"),
        ("huge integer", '{"kind":"design","row":' + "9" * 5000 + "}", "not JSON"),
        ("large integer", '{"kind":"design","row":' + "9" * 300 + "}", "row is a number beyond"),
        ("deep nesting", '{"kind":"design","case":' + '{"a":' * 5000 + "1" + "}" * 5001, "not JSON"),
        ("nesting past the bound", '{"kind":"design","case":' + "[" * 40 + "]" * 40 + "}", f"deeper than {MAX_DEPTH}"),
        ("a list", "[1, 2]", "not an archive line"),
        ("a list id", '{"kind":"design","id":["audit-log"]}', "field 'id' is a list"),
    ],
)
def test_a_malformed_archive_file_gets_a_finding_naming_the_line(name, raw, says, tmp_path):
    good = write_archive(tmp_path / "good.jsonl", good_lines()).read_text(encoding="utf-8").splitlines()
    good.insert(3, raw)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(good) + "\n", encoding="utf-8")
    rubric = check_archive(path, inventory=GIVEN_INVENTORY, audit=good_report())
    problems = rubric.step("readable").problems
    assert any("line 4" in p and says in p for p in problems), f"{name}: {problems}"


def test_a_fifo_or_an_oversized_file_is_answered_without_reading_it(tmp_path):
    fifo = tmp_path / "archive.fifo"
    os.mkfifo(fifo)
    stop = threading.Event()

    def unblock() -> None:  # a rubric that opened the FIFO would wait for a writer: give it one
        while not stop.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # no reader yet
                stop.wait(0.05)
                continue
            os.write(fd, b"{}\n")
            os.close(fd)
            return

    writer = threading.Thread(target=unblock, daemon=True)
    writer.start()
    rubric = check_archive(fifo, inventory=GIVEN_INVENTORY)
    stop.set()
    assert "is not a file" in rubric.step("readable").problems[0], rubric.text()
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(MAX_ARCHIVE_BYTES + 1)  # sparse: no 16 MiB written
    rubric = check_archive(big, inventory=GIVEN_INVENTORY)
    assert f"over the archive limit of {MAX_ARCHIVE_BYTES}" in rubric.step("readable").problems[0], rubric.text()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"details": {"custody": {"bytes": float("nan")}}}, "capabilities[2] (tool 'word_count'): details: custody"),
        ({"details": _deep(5000)}, "capabilities[2] (tool 'word_count'): details: a.a"),
        ({"name": ["word_count"]}, "capabilities[2]: field 'name'"),
        ({"details": None}, "capabilities[2]: field 'details'"),
        ({"exercised": "yes"}, "capabilities[2]: field 'exercised'"),
    ],
    ids=["nan", "deep", "list-name", "no-details", "text-flag"],
)
def test_a_malformed_audit_report_is_named_and_not_used(change, says):
    caps = good_caps()
    caps[2] = replace(caps[2], **change)
    failed = rubric_of(good_lines(), report_of(caps))
    assert any(says in p for p in failed["matches-the-audit"]), failed["matches-the-audit"]
    assert any("cannot be used" in p for p in failed["matches-the-audit"]), failed["matches-the-audit"]


# -- the audit report read back from `custody-lab audit --json` -------------------------------------


def _audit_json(report: AuditReport) -> dict:
    from custody_lab.core.text import terminal_json

    return json.loads(terminal_json(report.to_dict()))  # what the command prints, read back


def test_the_audit_json_reads_back_as_the_report_it_was_written_from():
    assert audit_from_json(_audit_json(good_report())) == (good_report(), [])


def test_the_good_archive_passes_against_the_audit_json_as_an_object_and_as_a_file(tmp_path):
    from custody_lab.core.text import terminal_json

    assert rubric_of(good_lines(), _audit_json(good_report())) == {}
    path = tmp_path / "audit.json"
    path.write_text(terminal_json(good_report().to_dict()), encoding="utf-8")
    archive = write_archive(tmp_path / "a.jsonl", good_lines())
    rubric = check_archive(archive, inventory=GIVEN_INVENTORY, audit=path)
    assert rubric.passed, rubric.text()


def audit_json_with_a_call_flagged_not_exercised(report: AuditReport) -> dict:
    value = _audit_json(report)
    row = next(r for r in value["capabilities"] if r["name"] == "word_count")
    row["exercised"] = False  # its status, the counts and its result are left as the audit wrote them
    return value


def test_an_audit_json_with_a_flag_flipped_by_hand_is_named_and_the_call_still_needs_consent():
    value = audit_json_with_a_call_flagged_not_exercised(good_report())
    lines = lines_for(consents=[c for c in CONSENTS if c.tool != "word_count"])
    failed = rubric_of(lines, value)
    said(failed, "matches-the-audit", "capabilities[2] (tool 'word_count')", "status 'exercised'", "edited by hand")
    said(failed, "matches-the-audit", "counts", "edited by hand")
    said(failed, "calls-consented", "'word_count'", "called without a consent line")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ([], "the audit report is list"),
        ({"command": [], "server": {}}, "field 'capabilities'"),
        ({"command": [], "server": {}, "capabilities": [7]}, "capabilities[0] is not an object"),
        ({"command": [], "server": {"name": float("nan")}, "capabilities": []}, "server.name is NaN"),
        ({"command": [], "server": {}, "capabilities": [{"kind": "tool", "name": ["x"]}]}, "field 'name'"),
    ],
    ids=["a-list", "no-capabilities", "a-number-row", "nan", "list-name"],
)
def test_an_audit_json_that_is_not_a_report_is_named_never_a_traceback(value, says):
    failed = rubric_of(good_lines(), value)
    assert any(says in p for p in failed["matches-the-audit"]), failed["matches-the-audit"]
    assert any("cannot be used" in p for p in failed["matches-the-audit"]), failed["matches-the-audit"]


def test_an_audit_json_file_that_cannot_be_read_is_named(tmp_path):
    archive = write_archive(tmp_path / "a.jsonl", good_lines())
    for name, text in (("cut.json", '{"command": ['), ("deep.json", "[" * 5000 + "]" * 5000)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        rubric = check_archive(archive, inventory=GIVEN_INVENTORY, audit=tmp_path / name)
        problems = rubric.step("matches-the-audit").problems
        assert any(f"the audit JSON {name} cannot be read" in p for p in problems), problems
    rubric = check_archive(archive, inventory=GIVEN_INVENTORY, audit=tmp_path / "missing.json")
    assert any("missing.json is not a file" in p for p in rubric.step("matches-the-audit").problems), rubric.text()
