"""The capstone (notebook 11): design review, one-input fixes, the live audit, the archive, the rubric.

The rubric tests start from a good archive of the given notes server (design review plus an audit
report built by hand, no server: ``archives.py``) and break it one way at a time: each break must
fail its step and name the line, the capability and the field. The live tests audit the server
notebook 11 writes, from the notebook's own cell: as the notebook leaves it (the rubric lists only
what is still to do) and with a correct design filled in programmatically (the rubric passes).
"""

from __future__ import annotations

import ast
import copy
import json
import sys
from pathlib import Path

import pytest

import custody_lab as cl
from custody_lab.core.receipts import digest
from custody_lab.live.audit_report import CapabilityAudit
from custody_lab.live.presentation import Consent, ConsentLog
from custody_lab.teaching.capstone import (
    DESIGN_INPUTS,
    GIVEN_INVENTORY,
    CapstoneError,
    allow_call,
    archive_lines,
    change_one_input,
    design_table,
    edit_once,
    edit_server,
    everything_server,
    live_receipt,
    review_design,
    write_archive,
)
from custody_lab.teaching.capstone.rubric import RUBRIC_STEPS, check_archive, check_lines, read_archive

from ...timing import scaled
from .archives import (
    BY_ID,
    CASES,
    CONSENTS,
    FIXES,
    LEARNER,
    REASONS,
    SERVER_EDITS,
    good_caps,
    good_lines,
    lines_for,
    report_of,
)
from .archives import failures as _failures
from .archives import line_of as _line

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "notebooks" / "11-design-your-servers-custody.ipynb"


# -- the design review ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cid", "expected"),
    [
        ("notes-index", "listed-resource"),
        ("note", "templated-resource"),
        ("audit-log", "permission-denied"),
        ("word-count", "custody-incomplete"),
        ("export-notes", "embed-over-budget"),
        ("delete-note", "side-effects-unknown"),
    ],
)
def test_the_given_notes_server_is_routed_as_the_notebook_says(cid, expected):
    got = cl.route(BY_ID[cid]).outcome
    assert got == expected, f"{cid}: expected {expected}, got {got}"


@pytest.mark.parametrize(("cid", "change"), sorted(FIXES.items()))
def test_each_fix_changes_one_input_and_gets_the_capability_accepted(cid, change):
    fixed, fix = change_one_input(BY_ID[cid], change)
    (name,) = change
    changed = [k for k in DESIGN_INPUTS if BY_ID[cid].get(k) != fixed.get(k)]
    assert changed == [name] and fix.field == name, f"{cid} {change}: changed {changed}, fix {fix}"
    assert cl.route(fixed).accepted, f"{cid} with {change}: {cl.route(fixed).outcome}"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"shape": "resource-link", "bytes": 10}, None),
        ({}, None),
        ({"title": "Export"}, "title"),
        ({"id": "export-2"}, "id"),
        ({"shape": "embedded-resource"}, "shape"),
        ({"bytes": "52000"}, "bytes"),
    ],
    ids=["two-inputs", "none", "free-text", "the-id", "same-value", "bad-value"],
)
def test_a_fix_that_is_not_one_real_design_input_is_refused_naming_the_field(change, field):
    with pytest.raises(CapstoneError) as caught:
        change_one_input(BY_ID["export-notes"], change)
    assert caught.value.where == "export-notes" and caught.value.field == field, (
        f"{change}: expected field {field!r}, got {caught.value.field!r}: {caught.value}"
    )


def test_a_fix_or_reason_for_a_capability_the_inventory_lacks_is_an_error_naming_it():
    for kwargs in ({"fixes": {"exports": {"shape": "resource-link"}}}, {"reasons": {"auditlog": "x"}}):
        with pytest.raises(CapstoneError, match="exports|auditlog") as caught:
            review_design(CASES, **kwargs)
        assert "notes-index" in str(caught.value), f"{kwargs}: the error should list the ids; got {caught.value}"


def test_the_review_table_says_fixed_refused_or_accepted_and_shows_each_fix():
    rows = {r["id"]: r for r in design_table(review_design(CASES, fixes=FIXES, reasons=REASONS))}
    got = {cid: r["status"] for cid, r in rows.items()}
    expected = {"notes-index": "accepted", "note": "accepted", "audit-log": "refused"}
    expected |= dict.fromkeys(FIXES, "fixed")
    assert got == expected, f"expected {expected}, got {got}"
    assert rows["export-notes"]["fix (one input)"] == "shape: 'embedded-resource' → 'resource-link'", rows


# -- the archive and the rubric, without a server -------------------------------------------------


def test_a_good_archive_passes_every_step_of_the_rubric():
    rubric = check_lines(good_lines(), inventory=CASES, audit=report_of(good_caps()))
    assert [s.step for s in rubric.steps] == list(RUBRIC_STEPS), rubric.steps
    assert rubric.passed, rubric.text()


def test_an_archive_missing_one_receipt_fails_naming_it():
    lines = good_lines()
    lines.remove(_line(lines, "design", "note"))
    failed = _failures(lines)
    assert set(failed) == {"routed", "matches-the-audit", "receipts-complete"}, failed
    assert any("'note'" in p and "no design line" in p for p in failed["routed"]), failed["routed"]
    assert any("notes://{id}" in p and "no inventory row" in p for p in failed["matches-the-audit"]), failed
    assert any("'note'" in p and "receipt missing" in p for p in failed["receipts-complete"]), failed


@pytest.mark.parametrize("reason", [None, "", "   "], ids=["none", "empty", "blank"])
def test_a_refusal_with_no_written_reason_fails_naming_the_line_and_field(reason):
    lines = good_lines()
    _line(lines, "design", "audit-log")["reason"] = reason
    failed = _failures(lines)
    assert list(failed) == ["refusals-explained"], failed
    (problem,) = failed["refusals-explained"]
    assert "line 4 (design 'audit-log')" in problem and "permission-denied" in problem, problem
    assert "field 'reason'" in problem, problem


def test_without_the_audit_a_live_refusal_and_an_unread_template_need_a_reason_too():
    caps = good_caps()
    caps[1] = CapabilityAudit("template", "notes://{id}", False, "not read: no value known", None, ())
    lines = lines_for(report=report_of(caps))
    rubric = check_lines(lines, inventory=CASES)
    problems = rubric.step("refusals-explained").problems
    assert any("notes://{id}" in p and "not read" in p for p in problems), problems
    assert any("no audit report given" in p for p in rubric.step("matches-the-audit").problems), rubric.text()


def test_with_the_audit_an_unread_template_of_an_accepted_row_is_still_to_do():
    caps = good_caps()
    caps[1] = CapabilityAudit("template", "notes://{id}", False, "not read: no value known", None, ())
    report = report_of(caps)
    failed = _failures(lines_for(report=report), report)
    assert list(failed) == ["matches-the-audit"], failed
    (problem,) = failed["matches-the-audit"]
    assert problem.startswith("still to do:") and "'note'" in problem and "did not read" in problem, problem


def test_a_tool_called_without_consent_fails_naming_the_tool():
    lines = lines_for(consents=[])  # an honest archive of the calls, with no consent line
    failed = _failures(lines)
    assert list(failed) == ["calls-consented"], failed
    problems = failed["calls-consented"]
    assert len(problems) == 2 and all("without a consent line" in p for p in problems), problems
    assert "live 'word_count'" in problems[0] and "live 'export_notes'" in problems[1], problems


def test_a_consent_that_names_no_approving_actor_is_no_consent():
    lines = good_lines()
    next(x for x in lines if x["kind"] == "consent")["approvedBy"] = " "
    problems = _failures(lines)["calls-consented"]
    assert any("approvedBy" in p for p in problems) and any("without a consent line" in p for p in problems), problems


def test_a_tool_not_called_needs_no_consent():
    lines = good_lines()
    tools = [x["name"] for x in lines if x["kind"] == "live" and x["capability"] == "tool" and not x["exercised"]]
    assert tools == ["delete_note"] and not _failures(lines), tools


@pytest.mark.parametrize("field", ["uri", "provenance", "bytes", "sideEffects", "permissionChecked"])
def test_an_accepted_receipt_with_an_empty_custody_field_fails_naming_the_field(field):
    lines = good_lines()
    live = _line(lines, "live", "word_count")
    live["receipt"]["custody"][field] = None
    lines[-1]["receipts"] = [
        {**item, "sha256": digest(live["receipt"])} if item["id"] == "word_count" else item
        for item in lines[-1]["receipts"]
    ]
    failed = _failures(lines)
    assert list(failed) == ["matches-the-audit", "receipts-complete"], failed
    assert f"custody.{field}" in failed["receipts-complete"][0], failed
    (edited,) = failed["matches-the-audit"]
    assert "line 12 (live 'word_count')" in edited and "not what the live audit recorded" in edited, edited


def test_a_receipt_changed_after_it_was_archived_fails_its_sha256_and_the_router():
    lines = good_lines()
    receipt = _line(lines, "design", "audit-log")["receipt"]
    receipt.update({"accepted": True, "selected": "listed-resource"})
    del receipt["rejection"]
    failed = _failures(lines)
    assert any("sha256" in p and "'audit-log'" in p for p in failed["receipts-complete"]), failed
    assert any("not what the router decides" in p and "'audit-log'" in p for p in failed["routed"]), failed


def test_a_fix_that_changed_two_inputs_fails_the_routed_step():
    lines = good_lines()
    line = _line(lines, "design", "export-notes")
    line["case"]["bytes"] = 100
    line["receipt"] = cl.route(cl.Case.from_dict(line["case"])).to_dict()
    problems = _failures(lines)["routed"]
    assert any("2 design inputs changed" in p and "shape" in p and "bytes" in p for p in problems), problems


def test_an_archive_whose_last_line_is_not_the_summary_is_not_readable():
    lines = good_lines()[:-1]
    failed = _failures(lines)
    assert any("line 15: the last line is not the summary" in p for p in failed["readable"]), failed
    assert all(p.startswith("not checked") for step, ps in failed.items() if step != "readable" for p in ps), failed


def test_the_summary_lists_every_receipt_with_its_sha256():
    lines = good_lines()
    listed = [(x["line"], x["id"]) for x in lines[-1]["receipts"]]
    expected = [(n, x["receipt"]["id"]) for n, x in enumerate(lines, start=1) if x.get("receipt")]
    assert listed == expected and len(listed) == len(CASES) + 5, f"expected {expected}, got {listed}"


def test_a_live_receipt_is_the_seed_shape_built_from_the_audits_record():
    caps = good_caps()
    got = live_receipt(caps[2])
    assert list(got) == ["id", "accepted", "selected", "custody"], got
    assert got["custody"]["uri"] == "urn:notes:word-count:7", got
    assert live_receipt(caps[5]) is None  # delete_note: not called


def test_the_archive_file_is_ascii_json_lines_that_read_back_the_same(tmp_path):
    lines = good_lines()
    _line(lines, "design", "audit-log")["reason"] = "admins\u202e only \x9b"
    path = write_archive(tmp_path / "deep" / "archive.jsonl", lines)
    raw = path.read_bytes()
    assert raw.isascii() and raw.count(b"\n") == len(lines), raw[:200]
    assert read_archive(path) == json.loads(json.dumps(lines)), "the archive does not read back as written"
    rubric = check_archive(path, inventory=GIVEN_INVENTORY, audit=report_of(good_caps()))
    assert [s.step for s in rubric.steps if not s.passed] == ["refusals-explained"], rubric.text()
    (problem,) = rubric.step("refusals-explained").problems
    assert "\\u202e" in problem and "\\x9b" in problem and "cannot see" in problem, problem


def test_read_archive_raises_for_a_line_that_is_not_json_naming_the_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"kind": "header"}\n{nope\n', encoding="utf-8")
    with pytest.raises(CapstoneError, match="line 2: not JSON"):
        read_archive(path)


def test_the_rubric_html_escapes_what_the_inventory_and_server_wrote():
    lines = good_lines()
    line = _line(lines, "live", "notes://{id}")
    line.update({"name": "<script>alert(1)</script>\u202e", "reason": None})
    html = check_lines(lines, inventory=CASES, audit=report_of(good_caps()))._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "\\u202e" in html, html


# -- the live audit of the notebook's server ------------------------------------------------------


def _notebook_cells() -> list[str]:
    """The source of every code cell of notebook 11."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _server_source() -> str:
    (cell,) = [c for c in _notebook_cells() if c.startswith("%%writefile")]
    return cell.split("\n", 1)[1]


def _assigned(name: str) -> object:
    """The literal value notebook 11 assigns to ``name`` (its stub)."""
    for cell in _notebook_cells():
        if cell.startswith("%%"):
            continue
        for node in ast.walk(ast.parse(cell)):
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name:
                return ast.literal_eval(node.value)
    raise AssertionError(f"notebook 11 assigns no {name}")


def _notebook_approvals() -> list[str]:
    """The ``approve(...)`` calls notebook 11 makes in code (not in comments)."""
    calls = []
    for cell in _notebook_cells():
        if cell.startswith("%%"):
            continue
        for node in ast.walk(ast.parse(cell)):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "approve":
                calls.append(ast.unparse(node))
    return calls


@pytest.fixture(scope="module")
def audits(tmp_path_factory):
    """The notebook's server audited as the notebook leaves it, and after the correct edits."""
    from custody_lab.teaching.capstone.live_audit import audit_server, python_server

    server = tmp_path_factory.mktemp("capstone") / "notes_server.py"
    server.write_text(_server_source(), encoding="utf-8")
    run = {"template_values": ['id="7"'], "timeout": scaled(20.0)}
    unchanged = audit_server(python_server(server), consents=(), **run)
    as_given = audit_server(python_server(server), consents=CONSENTS, **run)
    diff = edit_server(server, SERVER_EDITS)
    return unchanged, as_given, audit_server(python_server(server), consents=CONSENTS, **run), diff


def test_the_notebook_starts_with_empty_fixes_reasons_edits_and_consents():
    got = {name: _assigned(name) for name in ("FIXES", "REASONS", "EDITS")}
    assert got == {"FIXES": {}, "REASONS": {}, "EDITS": []}, got
    assert _notebook_approvals() == [], _notebook_approvals()


def test_the_notebook_run_unchanged_fails_the_rubric_with_only_still_to_do_messages(audits, tmp_path):
    unchanged, _, _, _ = audits
    assert [c.name for c in unchanged.capabilities if c.kind == "tool" and c.exercised] == [], "no consent, no call"
    rows = review_design(CASES, fixes=_assigned("FIXES"), reasons=_assigned("REASONS"))
    path = write_archive(tmp_path / "a.jsonl", archive_lines(rows, unchanged, (), inventory=GIVEN_INVENTORY))
    rubric = check_archive(path, inventory=GIVEN_INVENTORY, audit=unchanged)
    problems = [p for s in rubric.steps for p in s.problems]
    assert not rubric.passed and problems, rubric.text()
    assert all(p.startswith("still to do:") for p in problems), rubric.text()
    assert rubric.headline().startswith("NOT YET: ") and " still to do" in rubric.headline(), rubric.headline()


def test_the_given_server_does_what_the_inventory_designs(audits):
    _, as_given, _, _ = audits
    ran = {c.name: c.outcome for c in as_given.capabilities if c.exercised}
    expected = {
        "notes://index": "listed-resource",
        "notes://{id}": "templated-resource",
        "word_count": "custody-incomplete",
        "export_notes": "embed-over-budget",
    }
    assert ran == expected, f"expected {expected}, got {ran}"
    export = next(c for c in as_given.capabilities if c.name == "export_notes")
    assert export.details["custody"]["bytes"] > 50_000, export.details


def test_a_correct_design_filled_in_passes_the_rubric_and_the_given_server_does_not(audits, tmp_path):
    _, as_given, fixed, diff = audits
    assert diff.count("\n+ ") + diff.count("\n+@") == len(SERVER_EDITS), diff
    rows = review_design(CASES, fixes=FIXES, reasons=REASONS)
    before = write_archive(tmp_path / "1.jsonl", archive_lines(rows, as_given, CONSENTS, inventory=GIVEN_INVENTORY))
    after = write_archive(tmp_path / "2.jsonl", archive_lines(rows, fixed, CONSENTS, inventory=GIVEN_INVENTORY))
    unfixed = check_archive(before, inventory=GIVEN_INVENTORY, audit=as_given)
    assert [s.step for s in unfixed.steps if not s.passed] == ["matches-the-audit"], unfixed.text()
    passed = check_archive(after, inventory=GIVEN_INVENTORY, audit=fixed)
    assert passed.passed, passed.text()


def test_the_audit_records_the_side_effects_an_uncalled_tool_declares(audits):
    unchanged, _, fixed, _ = audits
    for report, value in ((unchanged, None), (fixed, True)):
        delete = next(c for c in report.capabilities if c.name == "delete_note")
        assert not delete.exercised and delete.details["declared"]["sideEffects"] is value, delete.details


def test_a_server_declaring_delete_note_side_effect_free_fails_matches_the_audit_against_the_design(tmp_path):
    """The design says delete-note has side effects; a server whose ``_meta`` says it has none is
    caught from the audit alone, though the audit never calls it."""
    from custody_lab.teaching.capstone.live_audit import audit_server, python_server

    server = tmp_path / "notes_server.py"
    server.write_text(_server_source(), encoding="utf-8")
    *edits, (old, new) = SERVER_EDITS
    edit_server(server, [*edits, (old, new.replace('sideEffects": True', 'sideEffects": False'))])
    assert '"org.custody-lab/sideEffects": False})\ndef delete_note' in server.read_text(encoding="utf-8")
    report = audit_server(python_server(server), consents=CONSENTS, template_values=['id="7"'], timeout=scaled(20.0))
    delete = next(c for c in report.capabilities if c.name == "delete_note")
    assert delete.details["declared"] == {"sideEffects": False, "source": "_meta org.custody-lab/sideEffects"}, delete
    rows = review_design(CASES, fixes=FIXES, reasons=REASONS)
    path = write_archive(tmp_path / "a.jsonl", archive_lines(rows, report, CONSENTS, inventory=GIVEN_INVENTORY))
    rubric = check_archive(path, inventory=GIVEN_INVENTORY, audit=report)
    assert [s.step for s in rubric.steps if not s.passed] == ["matches-the-audit"], rubric.text()
    (problem,) = rubric.step("matches-the-audit").problems
    assert "'delete-note'" in problem and "it declares none" in problem, problem


#: Hostile edits of the given server, each on top of the correct ones (SERVER_EDITS): the index
#: deletes the last note whenever it is read (the inventory says a read, free of side effects), and
#: the export links a URI the server does not serve.
HOSTILE_EDITS = [
    (
        '    return "\\n".join(f"{key}: {text.splitlines()[0]}" for key, text in NOTES.items())\n',
        '    listing = "\\n".join(f"{key}: {text.splitlines()[0]}" for key, text in NOTES.items())\n'
        "    NOTES.pop(max(NOTES), None)\n    return listing\n",
    ),
    ('uri="notes://all", mime_type="text/markdown")])', 'uri="export://notes/all.md", mime_type="text/markdown")])'),
]


def test_a_listed_read_that_deletes_a_note_and_a_link_nobody_serves_fail_matches_the_audit(tmp_path):
    from custody_lab.teaching.capstone.live_audit import audit_server, python_server

    server = tmp_path / "notes_server.py"
    server.write_text(_server_source(), encoding="utf-8")
    edit_server(server, [*SERVER_EDITS, *HOSTILE_EDITS])
    report = audit_server(python_server(server), consents=CONSENTS, template_values=['id="7"'], timeout=scaled(20.0))
    assert any(c.startswith("resource 'notes://index': the two reads returned different") for c in report.changes)
    rows = review_design(CASES, fixes=FIXES, reasons=REASONS)
    path = write_archive(tmp_path / "a.jsonl", archive_lines(rows, report, CONSENTS, inventory=GIVEN_INVENTORY))
    rubric = check_archive(path, inventory=GIVEN_INVENTORY, audit=report)
    assert [s.step for s in rubric.steps if not s.passed] == ["matches-the-audit"], rubric.text()
    problems = rubric.step("matches-the-audit").problems
    assert any(p.startswith("capability 'notes-index': the design reads it free of side effects") for p in problems)
    assert any("links 'export://notes/all.md', which the server does not serve" in p for p in problems), problems


#: Sleeps, then becomes the server command: a server slow to start (tests/fixtures/slow_start_server.py).
SLOW_START = ROOT / "tests" / "fixtures" / "slow_start_server.py"


@pytest.mark.slow  # the notes server starts only after twice the exchange bound
def test_the_notes_server_slow_to_start_is_audited_on_the_default_start_up_bound(tmp_path):
    """A loaded machine: the notes server takes longer to start than an exchange may take. The
    default start-up bound (60 s, apart from ``timeout``) absorbs it; one exchange bound would not."""
    from custody_lab.teaching.capstone.live_audit import audit_server, python_server

    server = tmp_path / "notes_server.py"
    server.write_text(_server_source(), encoding="utf-8")
    exchange = scaled(5.0)
    slow = [sys.executable, str(SLOW_START), f"{2 * exchange:g}", "--", *python_server(server)]
    report = audit_server(slow, consents=CONSENTS, template_values=['id="7"'], timeout=exchange)
    assert report.incomplete == (), report.incomplete
    ran = {c.name for c in report.capabilities if c.exercised}
    assert {"notes://index", "notes://{id}", "word_count", "export_notes"} <= ran, ran


@pytest.mark.slow
def test_a_notes_server_that_does_not_start_in_time_is_told_to_raise_connect_timeout(tmp_path):
    from custody_lab.live.audit import AuditError
    from custody_lab.teaching.capstone.live_audit import audit_server

    seconds = scaled(2.0)
    never = [sys.executable, str(SLOW_START), "3600"]
    with pytest.raises(AuditError) as caught:
        audit_server(never, timeout=scaled(5.0), connect_timeout=seconds)
    message = str(caught.value)
    assert f"within {seconds:g} s" in message and "raise --connect-timeout" in message, message


def test_the_reference_server_is_skipped_with_a_reason_when_it_is_not_installed(tmp_path):
    command, why = everything_server(tmp_path)
    assert command is None and ("npm ci --prefix tests/interop" in why or "node is not installed" in why), why


def test_the_reference_server_is_found_and_audited_without_calling_any_tool(reference_server):
    """Skips off CI when node or the pinned install is missing; fails under CI=true (conftest)."""
    from custody_lab.teaching.capstone.live_audit import audit_server

    command, why = everything_server()
    assert command == reference_server, (
        f"the notebook would start {command} ({why}); the pinned one is {reference_server}"
    )
    report = audit_server(command, timeout=scaled(20.0))
    called = [c.name for c in report.capabilities if c.kind == "tool" and c.exercised]
    tools = [c.name for c in report.capabilities if c.kind == "tool"]
    assert tools and called == [], f"tools {tools}; called without consent: {called}"


def test_two_consents_for_one_tool_are_refused_before_anything_starts():
    from custody_lab.teaching.capstone.live_audit import audit_server

    with pytest.raises(CapstoneError, match="consent given twice for 'echo'"):
        audit_server(
            [sys.executable, "-c", "raise SystemExit(9)"],
            consents=[Consent("echo", {}, LEARNER), Consent("echo", {}, {"hostPolicy": "standing-approval"})],
        )


def test_edit_once_refuses_text_that_is_not_there_exactly_once(tmp_path):
    path = tmp_path / "s.py"
    path.write_text("a = 1\na = 1\n", encoding="utf-8")
    for old in ("a = 1\n", "b = 2\n"):
        with pytest.raises(CapstoneError, match="occurs [02] times"):
            edit_once(path, old, "c = 3\n")
    assert path.read_text(encoding="utf-8") == "a = 1\na = 1\n", "a refused edit must leave the file alone"


def test_a_consent_from_the_hosts_log_is_written_as_audit_allow_calls_writes_it():
    log = ConsentLog()
    log.approve("word_count", {"id": "7"}, by=LEARNER)
    log.approve("export_notes", by=LEARNER)
    got = [allow_call(c) for c in log.entries]
    assert got == ['word_count={"id":"7"}', "export_notes"], got


def test_the_good_archive_is_not_mutated_by_the_checks():
    lines = good_lines()
    kept = copy.deepcopy(lines)
    check_lines(lines, inventory=CASES)
    assert lines == kept


def test_the_rubric_checks_exactly_the_custody_fields_of_the_seed_receipt():
    from custody_lab.teaching.capstone.rubric import CUSTODY_FIELDS

    expected = tuple(cl.fixture_payload()["accepted"][0]["custody"])
    assert CUSTODY_FIELDS == expected, f"expected {expected}, got {CUSTODY_FIELDS}"


def test_a_receipt_the_summary_does_not_list_fails_naming_it():
    lines = good_lines()
    extra = copy.deepcopy(_line(lines, "live", "word_count"))
    extra.update({"capability": "resource", "name": "notes://extra"})
    extra["receipt"]["id"] = "notes://extra"
    lines.insert(-1, extra)
    failed = _failures(lines)
    assert failed["matches-the-audit"] == (
        "line 16 (live 'notes://extra'): the live audit recorded no such capability",
    )
    assert list(failed) == ["matches-the-audit", "receipts-complete"], failed
    problems = failed["receipts-complete"]
    assert any("'notes://extra'" in p and "does not list" in p for p in problems), problems
    assert any("counts.live" in p for p in problems), problems


def test_a_receipt_written_twice_fails_naming_the_second_line():
    lines = good_lines()
    lines.insert(3, copy.deepcopy(_line(lines, "design", "notes-index")))
    problems = _failures(lines)["receipts-complete"]
    assert any("line 4 (design 'notes-index')" in p and "a second receipt" in p for p in problems), problems
