"""``custody-lab audit`` against the MCP project's own reference server (server-everything 2026.8.31).

The server is software this project did not write, pinned in ``tests/interop`` and installed by
``npm ci`` (``.ci/run``). Off CI these tests skip when node, npm or the install is missing; under
``CI=true`` they fail (the ``reference_server`` fixture in ``tests/conftest.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from custody_lab.live.audit import audit_client
from custody_lab.live.audit_report import EXIT_OK
from custody_lab.live.gate import Gate
from custody_lab.live.stdio_guard import StdioGuard

from ..timing import scaled

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: The reference server's tools whose results carry each kind of content (all annotated read-only;
#: the audit calls them only because they are named here).
CALLS = (
    'get-resource-links={"count": 2}',
    "get-tiny-image",
    'get-structured-content={"location": "Chicago"}',
    'get-resource-reference={"resourceType": "Text", "resourceId": 1}',
    'get-annotated-message={"messageType": "success", "includeImage": true}',
)
#: Generous: the audit takes about 2 s here; the bound only turns a hang into a failure
#: (``benchmarks/bench_live.py`` prints the figure).
BOUND_S = scaled(120)
SERVER = "mcp-servers/everything@2.0.0"


@pytest.fixture(scope="module")
def audited(reference_server) -> tuple[dict, int]:
    """``custody-lab audit --json --follow-links`` on the reference server, as a subprocess."""
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", "--json", "--follow-links", "--timeout", "10"]
    for call in CALLS:
        cmd += ["--allow-calls", call]
    done = subprocess.run([*cmd, "--", *reference_server], capture_output=True, text=True, cwd=ROOT, timeout=BOUND_S)
    assert done.stdout.startswith("{"), f"expected a JSON report; stdout {done.stdout[:300]!r}, stderr {done.stderr!r}"
    return json.loads(done.stdout), done.returncode


def _caps(report: dict, kind: str) -> dict[str, dict]:
    return {c["name"]: c for c in report["capabilities"] if c["kind"] == kind}


def _field(cap: dict, name: str) -> dict:
    return next(f for f in cap["fields"] if f["field"] == name)


def test_the_reference_audit_finishes_with_exit_0_and_names_the_server(audited):
    report, code = audited
    assert code == EXIT_OK and report["incomplete"] == [], (code, report["incomplete"])
    assert report["server"] == {"name": "mcp-servers/everything", "version": "2.0.0"}, report["server"]


def test_every_static_resource_is_read_and_accepted_with_host_side_provenance(audited):
    resources = _caps(audited[0], "resource")
    assert len(resources) == 7, sorted(resources)
    for uri, cap in resources.items():
        source = cap["details"]["provenanceSource"]
        got = (cap["exercised"], cap["outcome"], source["source"], source["uri"], cap["gaps"])
        assert got == (True, "listed-resource", "host", uri, []), f"{uri}: expected read, accepted, host; got {got}"
        assert _field(cap, "provenance")["how"].startswith("host-side: serverInfo"), cap


def test_both_templates_are_read_through_completion_and_expanded_by_the_lab(audited):
    templates = _caps(audited[0], "template")
    assert set(templates) == {
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    }, sorted(templates)
    for name, cap in templates.items():
        how = cap["details"]["templateValues"]["resourceId"]
        expanded = cap["details"]["expandedUri"]
        assert how.startswith("completion/complete"), f"{name}: value found by {how!r}"
        assert expanded == name.replace("{resourceId}", "1"), f"{name}: expanded to {expanded!r}"
        assert cap["exercised"] and cap["outcome"] == "templated-resource", (name, cap["why"], cap["outcome"])
        assert _field(cap, "bytes")["supplied"] is True and cap["details"]["templateParams"] == {"resourceId": "1"}


def test_links_are_addresses_on_the_tool_and_second_reads_with_size_and_digest(audited):
    report = audited[0]
    tool = _caps(report, "tool")["get-resource-links"]
    links = [b for b in tool["details"]["blocks"] if b["type"] == "resource_link"]
    assert [b["uri"] for b in links] == ["demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"], links
    assert _field(tool, "bytes")["supplied"] is None, "a link not read on the tool row is unknown, not a gap"
    followed = _caps(report, "link")
    assert sorted(followed) == sorted(b["uri"] for b in links), sorted(followed)
    for block in links:
        cap = followed[block["uri"]]
        digest = cap["details"]["hints"]["size"]["received"], block["followed"]["digest"]
        assert cap["exercised"] and cap["why"].startswith("second read of a link"), cap["why"]
        assert digest[0] > 0 and str(digest[1]).startswith("sha256:"), f"{block['uri']}: size/digest {digest}"
        assert block["followed"]["bytes"] == digest[0], (block["followed"], cap["details"]["hints"]["size"])


def test_images_are_sniffed_and_reported_with_bytes_and_digest(audited):
    tools = _caps(audited[0], "tool")
    for name in ("get-tiny-image", "get-annotated-message"):
        images = [b for b in tools[name]["details"]["blocks"] if b["type"] == "image"]
        got = [(b["mimeType"], b["sniffed"], b["mimeMismatch"], b["bytes"] > 0) for b in images]
        assert got == [("image/png", "image/png", False, True)], f"{name}: {got}"
        assert images[0]["digest"].startswith("sha256:"), images
    annotated = tools["get-annotated-message"]["details"]["blocks"][0]["annotations"]
    assert annotated == {"audience": ["user"], "priority": 0.7}, annotated


def test_get_tiny_image_is_receipted_with_its_text_and_its_4033_byte_png(audited):
    """The receipt once said ``text/plain, 63 bytes`` and left the image out; every block counts."""
    tool = _caps(audited[0], "tool")["get-tiny-image"]
    blocks = [(b["type"], b["mime"], b["mimeSource"], b["bytes"]) for b in tool["details"]["blocks"]]
    assert blocks == [
        ("text", "text/plain", "block type", 31),
        ("image", "image/png", "wire", 4033),
        ("text", "text/plain", "block type", 32),
    ], blocks
    custody, totals = tool["details"]["custody"], tool["details"]["totals"]
    assert (custody["mime"], custody["bytes"]) == ("text/plain, image/png", 31 + 4033 + 32), custody
    assert totals["byType"] == {"text": {"blocks": 2, "bytes": 63}, "image": {"blocks": 1, "bytes": 4033}}, totals


def test_the_reference_servers_prompts_are_got_once_each_or_say_why_not(audited):
    prompts = _caps(audited[0], "prompt")
    assert sorted(prompts) == ["args-prompt", "completable-prompt", "resource-prompt", "simple-prompt"], sorted(prompts)
    status = {name: cap["status"] for name, cap in prompts.items()}
    assert status == {
        "simple-prompt": "exercised",
        "args-prompt": "listed-only",  # its required city has no completion: nothing is invented
        "completable-prompt": "exercised",  # name completes once department goes along as context
        "resource-prompt": "exercised",
    }, status
    assert prompts["args-prompt"]["why"].startswith("not got: no value known for required argument 'city'")
    embedded = [b for b in prompts["resource-prompt"]["details"]["blocks"] if b["type"] == "resource"]
    got = [(b["uri"], b["mime"], b["mimeSource"], b["bytes"] > 0, b["digest"][:7]) for b in embedded]
    assert got == [("demo://resource/dynamic/text/1", "text/plain", "wire", True, "sha256:")], got


def test_the_reference_servers_tool_hints_are_shown_and_decide_no_mark(audited):
    tools = _caps(audited[0], "tool")
    for name in ("toggle-simulated-logging", "get-sum"):
        cap = tools[name]
        hints = cap["details"]["toolHints"]
        assert set(hints) >= {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}, hints
        assert _field(cap, "sideEffects")["supplied"] is False, f"{name}: a hint earned a mark: {cap['fields']}"
    assert tools["get-sum"]["details"]["toolHints"]["readOnlyHint"] is True
    assert tools["toggle-simulated-logging"]["details"]["toolHints"]["readOnlyHint"] is False


def test_the_reference_servers_instructions_are_kept_as_presentation(audited):
    presentation = audited[0]["presentation"]
    assert presentation["instructions"].startswith("# Everything Server"), presentation
    assert presentation["title"] == "Everything Reference Server", presentation


def test_the_structured_result_is_validated_against_its_output_schema_and_has_a_text_fallback(audited):
    tool = _caps(audited[0], "tool")["get-structured-content"]
    check = tool["details"]["structured"]
    got = (check["present"], check["outputSchema"], check["valid"], check["error"], check["textFallback"])
    assert got == (True, True, True, None, True), check
    assert check["dialect"] == "Draft7Validator", "the schema names draft-07; its own $schema is honoured"


def test_an_embedded_resource_is_reported_with_its_custody(audited):
    tool = _caps(audited[0], "tool")["get-resource-reference"]
    embedded = [b for b in tool["details"]["blocks"] if b["type"] == "resource"]
    assert [(b["uri"], b["mimeType"]) for b in embedded] == [("demo://resource/dynamic/text/1", "text/plain")]
    assert embedded[0]["bytes"] > 0, embedded
    # The reference server says readOnlyHint: true and declares nothing else: a hint from an
    # untrusted server decides nothing, so the receipt stays side-effects-unknown (shown, not trusted)
    assert tool["outcome"] == "side-effects-unknown", tool["outcome"]
    assert tool["details"]["declared"]["sideEffects"] is None, tool["details"]["declared"]
    assert "readOnlyHint: true, a hint that decides nothing" in tool["why"], tool["why"]


def test_tools_not_named_are_not_called_whatever_they_claim(audited):
    tools = _caps(audited[0], "tool")
    called = sorted(n for n, c in tools.items() if c["exercised"])
    expected = sorted(c.split("=")[0] for c in CALLS)
    assert called == expected, f"expected only {expected} called; called {called}"
    counts = audited[0]["counts"]
    assert counts["exercised"] == 7 + 2 + len(CALLS) + 2 + 3, counts  # resources, templates, calls, links, prompts
    assert tools["toggle-simulated-logging"]["why"].startswith("not called"), tools["toggle-simulated-logging"]


def test_every_gap_in_the_json_names_its_spec_rule_and_level(audited):
    report = audited[0]
    gaps = [g for c in report["capabilities"] for g in c["gaps"]]
    assert gaps and len(gaps) == len(report["gaps"]), (len(gaps), len(report["gaps"]))
    for g in gaps:
        rule = g["rule"]
        assert rule["level"] in ("MUST", "SHOULD", "MAY", "none") and rule["page"].startswith(
            "https://modelcontextprotocol.io/specification/2026-07-28/"
        ), g
    assert not [g for g in gaps if g["field"] in ("provenance", "server")], "the server names itself: no such gap"


def test_receipts_carry_the_2026_fields_as_marked_hints(audited):
    cap = _caps(audited[0], "resource")["demo://resource/static/document/architecture.md"]
    hints = cap["details"]["hints"]
    assert hints["sources"]["ttlMs"] == "hint" and hints["sources"]["size"] == "checked", hints["sources"]
    # protocol 2025-11-25 has no ttlMs: no freshness deadline is invented
    assert audited[0]["protocol_version"] == "2025-11-25" and hints["freshness"] is None, hints


def _audit_in_process(command: list[str], **options) -> object:
    async def go():
        guard = StdioGuard(command, timeout=scaled(10), env=dict(os.environ), cwd=str(ROOT))
        async with Client(guard.connect(), mode="auto", read_timeout_seconds=10, cache=None) as client:
            return await audit_client(client, timeout=scaled(10), **options)

    return anyio.run(go)


def test_a_link_the_gate_refuses_is_a_blocked_follow_up_and_is_not_fetched(reference_server):
    gate = Gate(allow=("*",), deny=("demo://resource/dynamic/text/",))
    report = _audit_in_process(
        reference_server, allow_calls=('get-resource-links={"count": 2}',), follow_links=True, gate=gate
    )
    links = {c.name: c for c in report.capabilities if c.kind == "link"}
    blocked, read = links["demo://resource/dynamic/text/2"], links["demo://resource/dynamic/blob/1"]
    assert not blocked.exercised and blocked.why.startswith("blocked follow-up"), blocked.why
    assert blocked.outcome == "permission-denied", blocked.outcome
    assert read.exercised and read.outcome == "templated-resource", (read.why, read.outcome)


def test_template_values_from_the_user_come_before_completion(reference_server):
    report = _audit_in_process(reference_server, template_values=("resourceId=3",))
    text = next(c for c in report.capabilities if c.name == "demo://resource/dynamic/text/{resourceId}")
    assert text.details["expandedUri"] == "demo://resource/dynamic/text/3", text.details
    assert text.details["templateValues"] == {"resourceId": "--template-values"}, text.details


def test_inspectors_cli_and_the_audit_see_the_same_resources_and_templates(audited, inspector_cli, reference_server):
    """Two clients, one written elsewhere: the listing the audit reported is the one Inspector sees."""
    seen = {}
    for method, key, field in (
        ("resources/list", "resources", "uri"),
        ("resources/templates/list", "resourceTemplates", "uriTemplate"),
    ):
        done = subprocess.run(
            [*inspector_cli, *reference_server, "--method", method],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=BOUND_S,
        )
        assert done.returncode == 0, f"Inspector --cli --method {method}: {done.stderr[-500:]}"
        seen[method] = sorted(item[field] for item in json.loads(done.stdout)[key])
    report = audited[0]
    assert seen["resources/list"] == sorted(_caps(report, "resource")), seen
    assert seen["resources/templates/list"] == sorted(_caps(report, "template")), seen


@pytest.mark.parametrize(("ci", "outcome"), [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_a_missing_interop_install_skips_off_ci_and_fails_under_ci(monkeypatch, tmp_path, ci, outcome):
    from tests import conftest

    monkeypatch.setattr(conftest, "INTEROP", tmp_path / "interop")
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome) as raised:
        conftest.find_interop_package("@modelcontextprotocol/server-everything")
    assert "npm ci --prefix" in str(raised.value) or "node" in str(raised.value), str(raised.value)
