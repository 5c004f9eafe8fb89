"""The MCP conformance suite (``@modelcontextprotocol/conformance`` 0.1.16, on Node 22) against
``custody-lab serve --http``: every server scenario it has is either one that applies to a server
with the lab's own tools, resources and prompts, and must pass, or one that does not apply, with
the reason (``tests/interop/CONFORMANCE.md`` is the same table in prose).

The suite's client negotiates protocol revision 2025-11-25, so what passes here holds for that
revision. A pass counts only with evidence that the scenario exercised the lab's server: each
applicable scenario's details are checked against what the lab's server lists to the official
Python SDK's client, and its requests against the lab's receipt log (``serve --log``: one line per
request), answered without an error. Most scenarios of the suite call a tool, prompt or resource
of the suite's own test server (``test_simple_text``, ``test://static-text``...); the lab has none
of them, and a test below proves it, so none is counted, even the two that "pass" on the lab's
answer to an unknown tool.

The suite and Node 22 are pinned in ``tests/interop`` (the ``conformance_cli`` fixture of
``tests/conftest.py``: skipped off CI when missing, failed under ``CI=true``).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import Client

from custody_lab.live.serve_log import read_receipt_log

from ..timing import scaled
from .serving import serve_http, token_url

pytestmark = pytest.mark.slow

#: The whole suite takes about 2 s here; the bound only turns a hang into a failure.
SUITE_TIMEOUT = scaled(300)
#: The protocol revision the suite's client asks for (its SDK's latest).
SUITE_REVISION = "2025-11-25"


@dataclass(frozen=True)
class Lab:
    """What the lab's server offers, as the official Python SDK's client sees it over HTTP."""

    capabilities: dict
    tools: list[str]
    prompts: list[str]
    resources: list[str]
    templates: list[str]


@dataclass(frozen=True)
class Suite:
    url: str
    checks: dict[str, list[dict]]
    log: list[dict]
    lab: Lab
    stdout: str


def _lab_as_the_sdk_sees_it(url: str) -> Lab:
    async def look() -> Lab:
        async with Client(url, read_timeout_seconds=scaled(30), cache=None) as client:
            caps = client.server_capabilities
            return Lab(
                capabilities=caps.model_dump(by_alias=True, exclude_none=True) if caps else {},
                tools=[t.name for t in (await client.list_tools()).tools],
                prompts=[p.name for p in (await client.list_prompts()).prompts],
                resources=[str(r.uri) for r in (await client.list_resources()).resources],
                templates=[t.uri_template for t in (await client.list_resource_templates()).resource_templates],
            )

    return anyio.run(look)


#: ``server-<scenario>-<ISO time>``: the folder the suite writes each scenario's checks.json into.
_RESULT_DIR = re.compile(r"^server-(?P<name>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


@pytest.fixture(scope="module")
def suite(conformance_cli, tmp_path_factory) -> Iterator[Suite]:
    """Every server scenario of the suite (``--suite all``), once, against a fresh ``serve --http``."""
    tmp = tmp_path_factory.mktemp("conformance")
    log, out = tmp / "receipts.jsonl", tmp / "results"
    with serve_http(log) as (plain, _):
        url = token_url(plain)  # the suite's CLI sets no headers: the token goes in the URL
        done = subprocess.run(
            [*conformance_cli, "server", "--url", url, "--suite", "all", "-o", str(out)],
            capture_output=True,
            text=True,
            cwd=tmp,
            timeout=SUITE_TIMEOUT,
        )
        checks: dict[str, list[dict]] = {}
        for folder in sorted(out.iterdir()) if out.is_dir() else []:
            found = _RESULT_DIR.match(folder.name)
            assert found, f"unexpected result folder {folder.name}"
            checks[found["name"]] = json.loads((folder / "checks.json").read_text(encoding="utf-8"))
        assert checks, f"the suite wrote no results (exit {done.returncode})\n{done.stdout[-2000:]}\n{done.stderr}"
        suite_log = read_receipt_log(log)  # read before the SDK client below adds its own (2026-07-28) lines
        yield Suite(url, checks, suite_log, _lab_as_the_sdk_sees_it(url), done.stdout)


# --------------------------------------------------------------------------------------------
# The scenarios that apply, and the evidence that each exercised the lab's server
# --------------------------------------------------------------------------------------------


def _check(suite: Suite, scenario: str, check_id: str | None = None) -> dict:
    found = [c for c in suite.checks[scenario] if check_id is None or c["id"] == check_id]
    assert len(found) == 1, f"{scenario}: expected one check {check_id or ''}, got {suite.checks[scenario]}"
    return found[0]


def _answered(suite: Suite, method: str) -> list[dict]:
    """Receipt-log lines of ``method`` the lab answered without an error."""
    return [e for e in suite.log if e["method"] == method and e["error"] is None]


def _initialize(s: Suite) -> object:
    c = _check(s, "server-initialize")["details"]
    return (c["serverUrl"] == s.url and c["connected"], bool(_answered(s, "initialize")))


def _ping(s: Suite) -> object:
    return (_check(s, "ping")["details"]["result"] == {}, bool(_answered(s, "ping")))


def _tools_list(s: Suite) -> object:
    d = _check(s, "tools-list")["details"]
    return (bool(s.lab.tools) and d["tools"] == s.lab.tools, bool(_answered(s, "tools/list")))


def _resources_list(s: Suite) -> object:
    d = _check(s, "resources-list")["details"]
    return (bool(s.lab.resources) and d["resources"] == s.lab.resources, bool(_answered(s, "resources/list")))


def _prompts_list(s: Suite) -> object:
    d = _check(s, "prompts-list")["details"]
    return (bool(s.lab.prompts) and d["prompts"] == s.lab.prompts, bool(_answered(s, "prompts/list")))


def _subscribe(s: Suite) -> object:
    return (s.lab.capabilities["resources"].get("subscribe") is True, bool(_answered(s, "resources/subscribe")))


def _unsubscribe(s: Suite) -> object:
    return (_subscribe(s)[0], bool(_answered(s, "resources/unsubscribe")))


def _multiple_streams(s: Suite) -> object:
    d = _check(s, "server-sse-multiple-streams", "server-sse-streams-functional")["details"]
    listed = [[t["name"] for t in json.loads(r["event"]["data"])["result"]["tools"]] for r in d["results"]]
    return (d["functionalSseStreams"] == 3, listed == [s.lab.tools] * 3)


def _dns_rebinding(s: Suite) -> object:
    bad = _check(s, "dns-rebinding-protection", "localhost-host-rebinding-rejected")["details"]
    good = _check(s, "dns-rebinding-protection", "localhost-host-valid-accepted")["details"]
    return (bad["hostHeader"] == "evil.example.com" and 400 <= bad["statusCode"] < 500, good["statusCode"] == 200)


#: Scenario → how to see that it exercised the lab's server (each part must be True).
APPLIES: dict[str, Callable[[Suite], object]] = {
    "server-initialize": _initialize,
    "ping": _ping,
    "tools-list": _tools_list,
    "resources-list": _resources_list,
    "resources-subscribe": _subscribe,
    "resources-unsubscribe": _unsubscribe,
    "prompts-list": _prompts_list,
    "server-sse-multiple-streams": _multiple_streams,
    "dns-rebinding-protection": _dns_rebinding,
}
#: Applicable scenarios that do not hold yet because of the lab (the reason goes to the lead).
KNOWN_LAB_GAPS: dict[str, str] = {}


# --------------------------------------------------------------------------------------------
# The scenarios that do not apply, and why (each names what the lab would need to have)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Needs:
    kind: str  # "tool", "prompt", "resource", "template" or "capability"
    name: str
    why: str


_FIXTURE = "a fixture of the suite's own test server, not a lab capability"
DOES_NOT_APPLY: dict[str, Needs] = {
    "logging-set-level": Needs("capability", "logging", "the lab's server declares no logging capability"),
    "tools-call-with-logging": Needs("capability", "logging", "it sets a log level, then calls test_tool_with_logging"),
    "completion-complete": Needs("prompt", "test_prompt_with_arguments", f"it completes an argument of {_FIXTURE}"),
    "tools-call-simple-text": Needs("tool", "test_simple_text", _FIXTURE),
    "tools-call-image": Needs("tool", "test_image_content", _FIXTURE),
    "tools-call-audio": Needs("tool", "test_audio_content", _FIXTURE),
    "tools-call-embedded-resource": Needs("tool", "test_embedded_resource", _FIXTURE),
    "tools-call-mixed-content": Needs("tool", "test_multiple_content_types", _FIXTURE),
    "tools-call-error": Needs("tool", "test_error_handling", _FIXTURE),
    "tools-call-with-progress": Needs("tool", "test_tool_with_progress", _FIXTURE),
    "tools-call-sampling": Needs("tool", "test_sampling", _FIXTURE),
    "tools-call-elicitation": Needs("tool", "test_elicitation", _FIXTURE),
    "elicitation-sep1034-defaults": Needs("tool", "test_elicitation_sep1034_defaults", _FIXTURE),
    "elicitation-sep1330-enums": Needs("tool", "test_elicitation_sep1330_enums", _FIXTURE),
    "json-schema-2020-12": Needs("tool", "json_schema_2020_12_tool", _FIXTURE),
    "server-sse-polling": Needs("tool", "test_reconnection", _FIXTURE),
    "resources-read-text": Needs("resource", "test://static-text", _FIXTURE),
    "resources-read-binary": Needs("resource", "test://static-binary", _FIXTURE),
    "resources-templates-read": Needs("template", "test://template/{id}/data", _FIXTURE),
    "prompts-get-simple": Needs("prompt", "test_simple_prompt", _FIXTURE),
    "prompts-get-with-args": Needs("prompt", "test_prompt_with_arguments", _FIXTURE),
    "prompts-get-embedded-resource": Needs("prompt", "test_prompt_with_embedded_resource", _FIXTURE),
    "prompts-get-with-image": Needs("prompt", "test_prompt_with_image", _FIXTURE),
}


def test_every_scenario_the_suite_ran_is_classified_once(suite):
    ran = set(suite.checks)
    both = set(APPLIES) & set(DOES_NOT_APPLY)
    assert not both, f"classified twice: {both}"
    assert ran == set(APPLIES) | set(DOES_NOT_APPLY), (
        f"unclassified: {sorted(ran - set(APPLIES) - set(DOES_NOT_APPLY))}; "
        f"classified but not run: {sorted(set(APPLIES) | set(DOES_NOT_APPLY) - ran)}"
    )
    assert len(ran) >= 30, f"the suite ran {len(ran)} scenarios\n{suite.stdout[-1500:]}"


def _params(names):
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_LAB_GAPS[n])) if n in KNOWN_LAB_GAPS else n
        for n in names
    ]


@pytest.mark.parametrize("scenario", _params(APPLIES))
def test_an_applicable_scenario_passes_every_check_on_the_labs_server(suite, scenario):
    checks = suite.checks[scenario]
    statuses = [(c["id"], c["status"], c.get("errorMessage")) for c in checks]
    assert any(c["status"] == "SUCCESS" for c in checks), f"{scenario}: no check succeeded: {statuses}"
    assert all(c["status"] in ("SUCCESS", "INFO") for c in checks), f"{scenario}: {statuses}"
    evidence = APPLIES[scenario](suite)
    assert evidence == (True, True), f"{scenario} passed without exercising the lab's server as expected: {evidence}"


@pytest.mark.parametrize("scenario", sorted(DOES_NOT_APPLY))
def test_a_scenario_that_does_not_apply_needs_what_the_lab_does_not_have(suite, scenario):
    need = DOES_NOT_APPLY[scenario]
    has = {
        "tool": suite.lab.tools,
        "prompt": suite.lab.prompts,
        "resource": suite.lab.resources,
        "template": suite.lab.templates,
        "capability": list(suite.lab.capabilities),
    }[need.kind]
    # the SDK's view is live (the lab lists tools, resources and prompts, none of them the suite's fixtures)
    assert suite.lab.tools and suite.lab.resources and suite.lab.prompts, f"the SDK client saw too little: {suite.lab}"
    assert need.name not in has, f"{scenario}: the lab now has {need.kind} {need.name!r}; classify it as applying"


def test_no_scenario_passes_without_the_labs_having_what_it_calls(suite):
    passed = {s for s in DOES_NOT_APPLY if all(c["status"] == "SUCCESS" for c in suite.checks[s])}
    assert not passed, f"passed though they do not apply (a pass for the wrong reason), read why: {sorted(passed)}"
    # the suite's calls of its own fixtures reached the lab and were refused as invalid params
    refused = [e for e in suite.log if e["method"] in ("tools/call", "prompts/get", "completion/complete")]
    codes = {(e["method"], (e.get("error") or {}).get("code")) for e in refused}
    assert {("tools/call", -32602), ("prompts/get", -32602), ("completion/complete", -32602)} <= codes, codes


def test_the_suite_spoke_the_revision_its_results_are_recorded_for(suite, conformance_cli):
    # a request turned away before a session exists (the rebinding check's foreign Host) negotiated
    # nothing: its line says what it asked for instead
    served = [e for e in suite.log if not e.get("refused")]
    versions = {e["protocolVersion"] for e in served}
    assert served and versions == {SUITE_REVISION}, (
        f"the lab's receipt log says the suite's requests were under {versions}"
    )
    asked = {e.get("requestedVersion") for e in suite.log if e.get("refused") and e["method"] == "initialize"}
    assert asked <= {SUITE_REVISION}, f"refused handshakes asked for {asked}"
    # the suite's client is the TypeScript SDK's, which asks for its latest revision
    sdk = Path(conformance_cli[1]).parents[2] / "sdk" / "dist" / "esm" / "types.js"
    latest = re.search(r"LATEST_PROTOCOL_VERSION = '([\d-]+)'", sdk.read_text(encoding="utf-8"))
    assert latest and latest[1] == SUITE_REVISION, f"{sdk}: {latest and latest[0]}"
