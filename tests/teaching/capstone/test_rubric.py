"""The rubric judges the design, not the form: each wrong design fails with its own message, and no
message holds the fix.

Each case is a design a learner could write, with the audit report of a server that does what
that design says (so the finding comes from the design itself), or of the server as it is (so
the finding comes from the audit). The router accepts most of them; the rubric does not.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from custody_lab.teaching.capstone.reasons import FILLER, names_this
from custody_lab.teaching.capstone.rubric import TODO, check_lines

from .archives import (
    CASES,
    FIXES,
    REASONS,
    UNCHANGED,
    custody,
    export_link_block,
    failures,
    good_caps,
    lines_for,
    report_of,
    reread_of,
)

#: What a message must never hold for the wrong design it judges: the fix itself.
FIX_WORDS = ("resource-link", "sideEffects True", "'sideEffects': True", "urn:notes:word-count:7")


def _caps(**changed: dict) -> list:
    """The good audit with some capabilities replaced (by name: keyword arguments of replace())."""
    return [replace(c, **changed[c.name]) if c.name in changed else c for c in good_caps()]


def _rubric_text(lines, report) -> str:
    return check_lines(lines, inventory=CASES, audit=report).text()


WRONG_DESIGNS = {
    "export relabelled as a structured result": (
        {**FIXES, "export-notes": {"shape": "structured-tool-result"}},
        REASONS,
        {
            "export_notes": {
                "outcome": "structured-tool-result",
                "details": {"custody": custody("model", "notes://all", "text/markdown", 52000)},
            }
        },
        "design-sound",
        "a structured result is inline like an embed, so relabelling it does not budget it",
    ),
    "a permission granted where the host has no such role": (
        {**FIXES, "audit-log": {"allowed": True}},
        {},
        {},
        "design-sound",
        "the fix grants a permission (allowed False → True) the host did not give",
    ),
    "a mutation declared free of side effects": (
        {**FIXES, "delete-note": {"sideEffects": False}},
        REASONS,
        {},
        "design-sound",
        "declared free of side effects (sideEffects False), but its operation is mutate",
    ),
    "bytes shrunk under the embed limit": (
        {**FIXES, "export-notes": {"bytes": 4000}},
        REASONS,
        {
            "export_notes": {
                "outcome": "embedded-resource",
                "details": {"custody": custody("model", "notes://all", "text/markdown", 4000)},
            }
        },
        "design-sound",
        "bytes changed from 52000 to 4000, just under the host's embed limit of 4096 B",
    ),
    "a placeholder URI": (
        {**FIXES, "word-count": {"uri": "ok"}},
        REASONS,
        {"word_count": {"details": {"custody": custody("model", "ok")}}},
        "design-sound",
        "the URI 'ok' has no scheme (RFC 3986 §3.1)",
    ),
    "a URI with a zero-width space": (
        {**FIXES, "word-count": {"uri": "urn:notes:\u200bcount"}},
        REASONS,
        {"word_count": {"details": {"custody": custody("model", "urn:notes:\u200bcount")}}},
        "design-sound",
        "holds characters a reader cannot see (\\u200b)",
    ),
    "a placeholder reason": (
        FIXES,
        {"audit-log": "TODO"},
        {},
        "refusals-explained",
        "the reason 'TODO' is a placeholder",
    ),
    "a one-word reason": (
        FIXES,
        {"audit-log": "admins"},
        {},
        "refusals-explained",
        "the reason 'admins' is only 1 word",
    ),
    "an invisible reason": (
        FIXES,
        {"audit-log": "\u200b\u200b"},
        {},
        "refusals-explained",
        "holds characters a reader cannot see (\\u200b)",
    ),
    "the rule's name restated as the reason": (
        FIXES,
        {"audit-log": "Permission denied, it was refused"},
        {},
        "refusals-explained",
        "the reason only restates the rule's name",
    ),
}


@pytest.mark.parametrize("name", sorted(WRONG_DESIGNS))
def test_a_wrong_design_fails_its_step_with_its_own_message_and_no_fix(name):
    fixes, reasons, changed, step, message = WRONG_DESIGNS[name]
    report = report_of(_caps(**changed))
    lines = lines_for(fixes=fixes, reasons=reasons, report=report)
    failed = failures(lines, report)
    assert step in failed, f"{name}: expected {step} to fail; failed {failed}"
    own = [p for p in failed[step] if message in p]
    assert own and not any(p.startswith(TODO) for p in own), f"{name}: expected {message!r} in {failed[step]}"
    text = _rubric_text(lines, report)
    leaked = [w for w in FIX_WORDS if w in text.replace(repr(fixes.get("word-count", {}).get("uri")), "")]
    assert not leaked, f"{name}: the rubric's messages give the fix {leaked}:\n{text}"


def test_every_refusal_kept_with_a_non_reason_fails_for_each_and_is_no_pass():
    reasons = {"audit-log": "x", "word-count": "ok", "export-notes": "TODO", "delete-note": "n/a"}
    lines = lines_for(fixes={}, reasons=reasons)
    failed = failures(lines)
    findings = [p for p in failed["refusals-explained"] if not p.startswith(TODO)]
    assert len(findings) == 4 and all("placeholder" in p for p in findings), failed["refusals-explained"]
    fixable = [p for p in failed["design-sound"] if "is an honest fix" in p]
    assert [p.split(":")[0] for p in fixable] == [
        "line 5 (design 'word-count')",
        "line 6 (design 'export-notes')",
        "line 7 (design 'delete-note')",
    ], failed["design-sound"]


def test_one_reason_copied_onto_every_refusal_is_a_finding_for_each_copy():
    same = "this capability is out of scope for the reviewed host"
    lines = lines_for(fixes={}, reasons=dict.fromkeys(["audit-log", "word-count", "export-notes", "delete-note"], same))
    problems = failures(lines)["refusals-explained"]
    assert sum("the same reason as line 4" in p for p in problems) == 3, problems


KEPT_WITH_REASONS = {
    "audit-log": "the log is for administrators and this host has none",
    "word-count": "the host shows counts to the user and never to the model",
    "export-notes": "exports are made by hand, outside any model's context",
    "delete-note": "deleting is left out until the server states what it changes",
}


def test_a_review_that_keeps_every_fixable_refusal_with_reasons_has_a_finding_for_each_without_naming_the_fix():
    failed = failures(lines_for(fixes={}, reasons=KEPT_WITH_REASONS))
    problems = failed["design-sound"]
    assert len(problems) == 3 and not any(p.startswith(TODO) for p in problems), problems
    for cid, problem in zip(("word-count", "export-notes", "delete-note"), problems, strict=True):
        assert f"(design {cid!r})" in problem and "a reason does not keep it" in problem, problem
        assert not any(w in problem for w in ("uri", "shape", "sideEffects", "resource-link")), problem
    assert not any("'audit-log'" in p for p in problems), problems


@pytest.mark.parametrize("kept", ["word-count", "export-notes", "delete-note"])
def test_one_fixable_refusal_kept_beside_the_other_fixes_is_a_finding_for_its_line(kept):
    """Fixing the others does not excuse the one kept (this kills ``all(...)`` -> ``any(...)``, and
    asking only when every refusal is kept)."""
    fixes = {cid: change for cid, change in FIXES.items() if cid != kept}
    reasons = {**REASONS, kept: KEPT_WITH_REASONS[kept]}
    report = report_of(_caps())
    problems = failures(lines_for(fixes=fixes, reasons=reasons, report=report), report)["design-sound"]
    (problem,) = problems
    assert f"(design {kept!r}): refused as" in problem and not problem.startswith(TODO), problem
    assert not any(w in problem for w in FIX_WORDS), problem


def test_one_fixable_refusal_kept_without_a_reason_is_still_to_do_for_its_line_only():
    fixes = {cid: change for cid, change in FIXES.items() if cid != "export-notes"}
    (problem,) = failures(lines_for(fixes=fixes))["design-sound"]
    assert problem.startswith(TODO + "line 6 (design 'export-notes'): refused as embed-over-budget"), problem


def test_a_side_effect_the_live_audit_recorded_contradicts_a_design_that_declares_none():
    caps = _caps(word_count={"details": {"custody": custody("model", "urn:notes:word-count:7", effects=True)}})
    report = report_of(caps)
    problems = failures(lines_for(report=report), report)["matches-the-audit"]
    (problem,) = problems
    assert "'word-count'" in problem and "sideEffects False" in problem and "recorded True" in problem, problem


def test_a_design_that_declares_side_effects_the_server_does_not_declare_fails():
    from custody_lab.live.audit_report import FieldSupport

    unstated = (FieldSupport("sideEffects", False, "no readOnlyHint and no declaration"),)
    report = report_of(_caps(delete_note={"fields": unstated}))
    (problem,) = failures(lines_for(report=report), report)["matches-the-audit"]
    assert "'delete-note'" in problem and "does not" in problem and "no declaration" in problem, problem


def test_a_fix_only_in_the_design_fails_against_the_server_as_given():
    caps = _caps(
        word_count={"outcome": "custody-incomplete", "details": {"custody": {**custody("model", None)}}},
        export_notes={
            "outcome": "embed-over-budget",
            "details": {"custody": custody("model", "notes://all", "text/markdown", 52415)},
        },
    )
    report = report_of(caps)
    problems = failures(lines_for(report=report), report)["matches-the-audit"]
    assert any("'word-count'" in p and "saw custody-incomplete" in p for p in problems), problems
    assert any("'export-notes'" in p and "saw embed-over-budget" in p for p in problems), problems


def test_an_accepted_tool_the_audit_did_not_call_is_still_to_do():
    report = report_of(_caps(word_count={"exercised": False, "outcome": None, "details": {}, "why": "not called"}))
    lines = lines_for(report=report, consents=[])
    problems = failures(lines, report)["matches-the-audit"]
    assert any(p.startswith(TODO) and "did not call 'word_count'" in p for p in problems), problems


def test_a_capability_the_server_offers_but_the_inventory_lacks_fails():
    from custody_lab.live.audit_report import CapabilityAudit

    extra = CapabilityAudit("tool", "purge_everything", False, "not called", None, ())
    report = report_of([*good_caps(), extra])
    problems = failures(lines_for(report=report), report)["matches-the-audit"]
    assert problems == (
        "the server offers tool 'purge_everything', which no inventory row stands for: "
        "the design review must cover everything the server offers",
    ), problems


def test_a_learners_own_inventory_and_server_are_judged_by_the_same_rubric(tmp_path):
    import custody_lab as cl
    from custody_lab.live.audit_report import AuditReport, CapabilityAudit
    from custody_lab.teaching.capstone import archive_lines, review_design, write_archive
    from custody_lab.teaching.capstone.rubric import check_archive

    inventory = tmp_path / "weather.csv"
    inventory.write_text(
        "id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance\n"
        "forecast,model,calculate,structured-tool-result,,application/json,300,true,true,false,weather@2.1\n",
        encoding="utf-8",
    )
    cases = cl.load_cases(inventory)
    served = CapabilityAudit(
        "tool",
        "forecast",
        True,
        "allowed",
        "structured-tool-result",
        (),
        {"custody": {**custody("model", "urn:weather:forecast:today", size=300), "provenance": "weather@2.1"}},
    )
    report = AuditReport(("weather.py",), {"name": "weather", "version": "2.1"}, "2026-07-28", (served,))
    consents: list = []  # no call approved yet

    def rubric(fixes, consent):
        rows = review_design(cases, fixes=fixes)
        path = write_archive(tmp_path / "a.jsonl", archive_lines(rows, report, consent))
        return check_archive(path, inventory=inventory, audit=report)

    from custody_lab.live.presentation import Consent

    unfixed = rubric({}, consents)
    assert not unfixed.passed and any("'forecast'" in p for p in unfixed.step("refusals-explained").problems)
    fixed = rubric(
        {"forecast": {"uri": "urn:weather:forecast:today"}}, [Consent("forecast", {}, {"person": "Mei Tanaka"})]
    )
    assert fixed.passed, fixed.text()
    wrong = rubric(
        {"forecast": {"uri": "urn:weather:forecast:tomorrow"}}, [Consent("forecast", {}, {"person": "Mei Tanaka"})]
    )
    assert any(
        "the server's result 'urn:weather:forecast:today'" in p for p in wrong.step("matches-the-audit").problems
    )


def test_a_server_declaring_a_side_effect_free_delete_contradicts_the_design_when_the_audit_says_so():
    """When the audit records the value an uncalled tool declares (``details["declared"]``), a
    delete the server calls side-effect free contradicts the design that declares side effects."""
    from custody_lab.live.audit_report import FieldSupport

    declared = (FieldSupport("sideEffects", True, "_meta org.custody-lab/sideEffects"),)
    report = report_of(_caps(delete_note={"fields": declared, "details": {"declared": {"sideEffects": False}}}))
    (problem,) = failures(lines_for(report=report), report)["matches-the-audit"]
    assert "'delete-note': the design declares side effects, but the server's listing" in problem, problem


def test_an_uncalled_tool_the_server_declares_with_side_effects_contradicts_a_design_without_them():
    """word-count is designed free of side effects; if the audit did not call it and its listing
    declares side effects, that is a contradiction, not just something still to do."""
    from custody_lab.live.audit_report import FieldSupport

    declared = (FieldSupport("sideEffects", True, "_meta org.custody-lab/sideEffects"),)
    uncalled = {"exercised": False, "outcome": None, "why": "not called", "fields": declared}
    for value, contradiction in ((True, True), (False, False), (None, False)):
        details = {"declared": {"sideEffects": value, "source": "_meta org.custody-lab/sideEffects"}}
        report = report_of(_caps(word_count={**uncalled, "details": details}))
        problems = failures(lines_for(report=report), report)["matches-the-audit"]
        said = [p for p in problems if "'word-count'" in p]
        assert len(said) == 1 and said[0].startswith("still to do:") is not contradiction, (value, said)
        assert ("declares no side effects" in said[0]) is contradiction, (value, said)


# -- a resource link the server does not serve (issue 37 §2) -----------------------------------------

UNKNOWN = "-32602: Unknown resource: export://notes/all.md"


def _dangling_link_report():
    """The good design, but export_notes links export://notes/all.md, which the server does not serve."""
    unresolved = {"accepted": False, "bytes": 0, "digest": None, "resolved": False, "error": UNKNOWN}
    block = export_link_block("export://notes/all.md", unresolved)
    caps = [
        c
        for c in _caps(
            export_notes={
                "details": {"custody": custody("model", "notes://all", "text/markdown", 0), "blocks": [block]}
            }
        )
        if c.kind != "link"
    ]
    why = f"follow-up of a link from 'export_notes' failed: {UNKNOWN}"
    details = {"custody": custody("application", "export://notes/all.md", "text/markdown", 0), "from": "export_notes"}
    caps.insert(4, replace(good_caps()[4], name="export://notes/all.md", why=why, outcome="resource-not-found"))
    caps[4] = replace(caps[4], details={**details, "error": UNKNOWN})
    return report_of(caps)


def test_a_resource_link_the_server_does_not_serve_fails_matches_the_audit_naming_the_link():
    report = _dangling_link_report()
    lines = lines_for(report=report)
    failed = failures(lines, report)
    assert list(failed) == ["matches-the-audit"], failed
    (problem,) = failed["matches-the-audit"]
    assert problem.startswith("capability 'export-notes': the result of 'export_notes' links 'export://notes/all.md'")
    assert "which the server does not serve" in problem and "Unknown resource" in problem, problem
    assert "MCP 2026-07-28, server/tools, Resource Links" in problem, problem
    assert not any(w in problem for w in FIX_WORDS), problem


@pytest.mark.parametrize(
    ("followed", "why"),
    [(None, "it was not followed"), ({"notFollowed": "over the bound of 16 links"}, "over the bound of 16 links")],
)
def test_a_resource_link_the_audit_did_not_follow_is_still_to_do(followed, why):
    block = {**export_link_block(), "followed": followed}
    details = {"custody": custody("model", "notes://all", "text/markdown", 0), "blocks": [block]}
    report = report_of([c for c in _caps(export_notes={"details": details}) if c.kind != "link"])
    (problem,) = failures(lines_for(report=report), report)["matches-the-audit"]
    assert problem.startswith(TODO + "capability 'export-notes': the result of 'export_notes' links 'notes://all'")
    assert why in problem, problem


# -- a listed resource whose read changes state (issue 37 §2) ------------------------------------------


def test_a_listed_read_that_changed_between_the_audits_two_reads_fails_the_design_that_reads_it():
    changed = {**UNCHANGED, "changes": ["resource 'notes://index': the two reads returned different contents"]}
    caps = _caps(
        **{
            "notes://index": {
                "details": {
                    "custody": custody("application", "notes://index", "text/plain", 120),
                    "reread": reread_of(changed=True),
                }
            }
        }
    )
    report = report_of(caps, reread=changed)
    (problem,) = failures(lines_for(report=report), report)["matches-the-audit"]
    assert problem.startswith("capability 'notes-index': the design reads it free of side effects"), problem
    assert "two reads of 'notes://index' differ" in problem and "seed 004" in problem, problem


def test_a_resource_index_that_lost_a_uri_during_the_audit_is_a_finding():
    report = report_of(good_caps(), reread={**UNCHANGED, "indexGone": ["notes://8"]})
    (problem,) = failures(lines_for(report=report), report)["matches-the-audit"]
    assert problem.startswith("the server's resource index changed during the audit ('notes://8' gone)"), problem


def test_a_change_a_called_tool_with_side_effects_explains_is_no_finding_about_the_reads():
    effects = {"details": {"custody": custody("model", "urn:notes:word-count:7", effects=True)}}
    report = report_of(_caps(word_count=effects), reread={**UNCHANGED, "indexGone": ["notes://8"]})
    problems = failures(lines_for(report=report), report).get("matches-the-audit", ())
    assert not any("index changed" in p for p in problems), problems


@pytest.mark.parametrize("reread", [{}, {**UNCHANGED, "stopped": True}], ids=["no-second-look", "stopped"])
def test_an_audit_that_did_not_read_again_is_still_to_do(reread):
    report = report_of(good_caps(), reread=reread)
    (problem,) = failures(lines_for(report=report), report)["matches-the-audit"]
    assert problem.startswith(TODO + "the audit did not read the listed resources a second time"), problem


# -- a reason names something of this capability (issue 37 §2) ----------------------------------------

#: Reasons that say nothing a reviewer can check about the capability they keep refused: filler
#: around the rule, or a sentence about another capability (the rubric's own message, each).
REASONS_ABOUT_NOTHING = {
    "the permission rule with filler": ("audit-log", "permission denied for this caller"),
    "the embed rule with filler": ("export-notes", "embed over budget here"),
    "a reason about the word count": ("audit-log", "the word counts are shown to the user, never to the model"),
    "a reason about the export's size": ("audit-log", "the export is about 52 KB, far too much for the context"),
    "the server's name, shared by every capability": ("audit-log", "the notes-server keeps this one to itself"),
}


@pytest.mark.parametrize("name", sorted(REASONS_ABOUT_NOTHING))
def test_a_reason_that_names_nothing_of_its_capability_is_a_finding_and_gives_no_answer(name):
    cid, reason = REASONS_ABOUT_NOTHING[name]
    fixes = {k: v for k, v in FIXES.items() if k != cid}
    failed = failures(lines_for(fixes=fixes, reasons={cid: reason}))
    said = [p for p in failed["refusals-explained"] if f"(design {cid!r})" in p]
    assert len(said) == 1 and "names nothing of this capability a reviewer can check" in said[0], failed
    assert not said[0].startswith(TODO) and not any(w in said[0] for w in FIX_WORDS), said


#: Reasons that name this capability's own facts: its permission holder (from its description), its
#: data (its URI or title), its size (bytes, or KB rounded), and the notebook's fixtures.
REASONS_ABOUT_THIS = {
    "the permission holder in its description": ("audit-log", "only administrators may see who edited what"),
    "its data": ("audit-log", "today's changes name people, and the desk may not see them"),
    "its size in KB": ("export-notes", "the whole 52 KB would crowd out the conversation"),
    "its size in bytes": ("export-notes", "52,000 bytes is more than any answer needs"),
    "the fixture's reason": ("audit-log", REASONS["audit-log"]),
    "a word sharing its first five letters": ("delete-note", "deleting cannot be undone by anyone here"),
}


@pytest.mark.parametrize("name", sorted(REASONS_ABOUT_THIS))
def test_a_reason_that_names_something_of_its_capability_passes_refusals_explained(name):
    cid, reason = REASONS_ABOUT_THIS[name]
    fixes = {k: v for k, v in FIXES.items() if k != cid}
    reasons = {**({} if cid == "audit-log" else REASONS), cid: reason}
    failed = failures(lines_for(fixes=fixes, reasons=reasons))
    assert "refusals-explained" not in failed, failed["refusals-explained"]


def test_filler_and_the_rules_words_never_name_a_capability_even_when_its_own_text_has_them():
    own = {"permission", "denied", "caller", "this", "budget", "log"}
    assert not names_this("permission denied for this caller", own - FILLER, set(), "permission-denied")
    assert names_this("the log is for the desk's lead", own, set(), "permission-denied")
