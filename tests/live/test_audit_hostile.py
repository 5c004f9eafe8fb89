"""Hostile servers the audit must answer in bounded time and plain words (issue 24).

- an ``outputSchema`` built as a chain of ``allOf``/``$ref`` (a few KB, 2**60 steps to check);
- malformed notifications (a known method with wrong params, an unknown method with garbage);
- declared sizes that pydantic's lax mode would coerce (``true`` -> 1, ``"12"`` -> 12, ``-0.0`` -> 0)
  or refuse with the whole listing (``1.5``, ``1e400``, ``NaN``).

The servers are ``tests/fixtures/raw_mcp_server.py`` modes (stdlib JSON-RPC, not the SDK); each
audit runs as its own ``custody-lab`` process under a subprocess ``timeout=`` (scaled), so a hang
fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

import anyio
import pytest

from custody_lab.live._schema_worker import check
from custody_lab.live.schema_check import check_in_worker
from custody_lab.live.wire_checks import (
    SHOWN_FINDINGS,
    WireFindings,
    notification_problem,
    refuse_odd_sizes,
)

from ..timing import scaled
from .test_audit_edges import audit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from raw_mcp_server import BAD_NOTIFICATIONS, ODD_SIZES, chain_schema

# -- 1. an exponential outputSchema cannot hang the audit ---------------------------------------


@pytest.mark.slow
def test_an_exponential_output_schema_check_is_cut_at_timeout_and_the_report_names_it():
    # The old audit let the SDK check this schema inside the event loop: still running at 240 s
    # with --timeout 5. Here --timeout 2 bounds the check; the subprocess bound (scaled 90 s,
    # interpreter start-ups included) is what a hang would blow through.
    out = audit("exponential-schema", "--allow-calls", "chain", "--allow-calls", "wrong", timeout="2", bound=90.0)
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    cut = "outputSchema check of tool 'chain' stopped: over 2 s (the exchange's --timeout)"
    assert f"INCOMPLETE: {cut}" in out.stdout, out.stdout
    assert f"error: the audit did not finish: {cut}" in out.stderr, out.stderr
    assert out.returncode == 2, (out.returncode, out.stderr)
    # the SDK's own check is off: a result its schema refuses is a finding, not the audit's end
    assert "structuredContent against outputSchema (Draft202012Validator): INVALID ('yes' is not of type" in out.stdout


@pytest.mark.slow
def test_the_json_report_carries_the_cut_check_and_the_verdict_of_the_one_that_ran():
    out = audit("exponential-schema", "--json", "--allow-calls", "chain", "--allow-calls", "wrong", timeout="2")
    report = json.loads(out.stdout)
    checks = {c["name"]: c["details"].get("structured") for c in report["capabilities"] if c["kind"] == "tool"}
    chain, wrong = checks["chain"], checks["wrong"]
    assert (chain["valid"], wrong["valid"]) == (None, False), checks
    assert chain["stopped"].startswith("outputSchema check of tool 'chain' stopped: over 2 s"), chain
    assert wrong["stopped"] is None and "(at ok)" in wrong["error"], wrong


def test_a_worker_check_that_outlives_its_deadline_is_killed_and_says_so():
    # start-up has its own (roomy) bound; the check itself gets 1 s, and 2**60 steps never end in it
    verdict = anyio.run(partial(check_in_worker, chain_schema(), {}, scaled(1), start_timeout=scaled(60)))
    assert verdict == {"stopped": f"over {scaled(1):g} s (the exchange's --timeout); the checking process was killed"}


@pytest.mark.parametrize(
    ("schema", "instance", "key", "expected"),
    [
        ({"type": "object", "properties": {"t": {"type": "string"}}}, {"t": 3}, "error", "3 is not of type 'string'"),
        ({"type": "object"}, {"t": 3}, "valid", True),
        ({"type": 5}, {}, "schemaError", "5 is not valid under any of the given schemas"),
        # nothing is fetched: a remote $ref is unresolvable, not a request to example.com
        (
            {"$ref": "https://example.com/schema.json"},
            {},
            "unresolvable",
            "Unresolvable: https://example.com/schema.json",
        ),
    ],
)
def test_the_worker_gives_the_verdict_jsonschema_gives(schema, instance, key, expected):
    verdict = anyio.run(partial(check_in_worker, schema, instance, scaled(60)))
    assert verdict.get(key) == expected, f"{schema} / {instance}: expected {key}={expected!r}, got {verdict}"


def test_the_workers_check_refuses_a_schema_that_is_no_object_and_reports_the_best_error_with_its_path():
    assert check([1], {}) == {"dialect": None, "schemaError": "a schema is a JSON object (or true/false)"}
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"minimum": 3}}}}}
    verdict = check(schema, {"a": {"b": 1}})
    assert (verdict["valid"], verdict["path"], verdict["error"]) == (
        False,
        ["a", "b"],
        "1 is less than the minimum of 3",
    )


# -- 2. malformed notifications -----------------------------------------------------------------


@pytest.mark.slow
def test_malformed_notifications_are_findings_not_tracebacks_and_the_audit_exits_2():
    out = audit("bad-notifications")
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    assert "Failed to validate notification" not in out.stderr, out.stderr
    protocol = [line for line in out.stdout.splitlines() if line.startswith("PROTOCOL: ")]
    assert len(protocol) == 2, out.stdout
    assert "malformed notifications/message" in protocol[0] and "params.level" in protocol[0], protocol
    assert "malformed notifications/progress" in protocol[1] and "params.progress" in protocol[1], protocol
    # an unknown method is allowed (JSON-RPC lets a receiver ignore it): a note, made visible
    assert "note: the server sent notification 'notifications/made-up\\x1b[2J', a method no MCP revision" in out.stdout
    assert "\x1b" not in out.stdout + out.stderr, "a raw escape reached the terminal"
    assert out.returncode == 2, (out.returncode, out.stdout[-400:])
    # every exit-2 reason is on stderr too, one line each
    broke = [line for line in out.stderr.splitlines() if line.startswith("error: the server broke the protocol: ")]
    assert len(broke) == 2 and "notifications/message" in broke[0], out.stderr
    assert "resource note://one: listed resource: reads are safe" in out.stdout, "the rest of the audit must run"


@pytest.mark.parametrize("note", BAD_NOTIFICATIONS[:2], ids=["message-level", "progress-string"])
def test_a_known_notification_with_wrong_params_is_malformed(note):
    kind, sentence = notification_problem(note["method"], note["params"])
    assert kind == "malformed-notification" and note["method"] in sentence, sentence


def test_a_well_formed_notification_is_no_finding_and_an_unknown_one_is_a_note():
    assert notification_problem("notifications/message", {"level": "info", "data": {"any": "json"}}) is None
    assert notification_problem("notifications/progress", {"progressToken": "t", "progress": 2, "total": 4}) is None
    kind, sentence = notification_problem("notifications/made-up\x1b[2J", {"garbage": [1]})
    assert kind == "unknown-notification" and "\\x1b" in sentence and "\x1b" not in sentence, sentence


def test_findings_are_counted_and_only_the_first_few_kept():
    findings = WireFindings()
    for i in range(SHOWN_FINDINGS + 3):
        findings.add("malformed-notification", f"n{i}")
    findings.add("unknown-notification", "u")
    assert findings.protocol() == (*(f"n{i}" for i in range(SHOWN_FINDINGS)), "… and 3 more like these")
    assert findings.notes() == ("u",)


# -- 3. declared sizes are numbers --------------------------------------------------------------


def _listing(raw_size: str) -> str:
    resources = f'[{{"uri": "a://x", "name": "x", "size": {raw_size}}}, {{"uri": "a://ok", "name": "ok", "size": 7}}]'
    return f'{{"jsonrpc": "2.0", "id": 3, "result": {{"resources": {resources}}}}}'


@pytest.mark.parametrize("raw", [*ODD_SIZES, "-5", "12.0", "[]", "{}", "null"])
def test_a_listed_size_that_is_not_a_non_negative_integer_is_removed_and_named(raw):
    fixed, found = refuse_odd_sizes("resources/list", "page 1", _listing(raw))
    if raw == "null":  # JSON null is "no size": nothing to refuse
        assert (fixed, found) == (None, []), found
        return
    assert fixed is not None and "size" not in fixed["result"]["resources"][0], fixed
    assert fixed["result"]["resources"][1]["size"] == 7, "a good size must stay"
    assert found == [
        f"resources/list item 0 ('a://x') declares size {raw}: not a non-negative integer; treated as undeclared"
    ], found


@pytest.mark.parametrize("raw", ["0", "5", "1073741824"])
def test_a_whole_non_negative_size_is_left_as_it_came(raw):
    assert refuse_odd_sizes("resources/list", "page 1", _listing(raw)) == (None, [])


@pytest.mark.parametrize(
    ("method", "result", "where"),
    [
        (
            "resources/templates/list",
            {"resourceTemplates": [{"uriTemplate": "a://{x}", "name": "t", "size": True}]},
            "resources/templates/list item 0 ('a://{x}')",
        ),
        (
            "tools/call",
            {
                "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "resource_link", "uri": "a://l", "name": "l", "size": "12"},
                ]
            },
            "tools/call 'fetch' block 1: the resource_link to 'a://l'",
        ),
        (
            "tools/call",
            {"content": [{"type": "resource", "resource": {"uri": "a://e", "text": "x", "size": -3}}]},
            "tools/call 'fetch' block 0: the embedded resource 'a://e'",
        ),
        (
            "prompts/get",
            {
                "messages": [
                    {"role": "user", "content": {"type": "resource_link", "uri": "a://p", "name": "p", "size": 1.5}}
                ]
            },
            "prompts/get 'fetch' message 0 block 0: the resource_link to 'a://p'",
        ),
    ],
    ids=["template", "tool-link", "tool-embed", "prompt-link"],
)
def test_sizes_are_checked_in_templates_links_and_embedded_resources(method, result, where):
    text = json.dumps({"jsonrpc": "2.0", "id": 9, "result": result})
    fixed, found = refuse_odd_sizes(method, "fetch", text)
    assert len(found) == 1 and found[0].startswith(f"{where} declares size "), found
    assert "treated as undeclared" in found[0] and '"size"' not in json.dumps(fixed), fixed


@pytest.mark.slow
def test_odd_sizes_are_undeclared_in_the_receipts_and_reported_as_the_server_breaking_the_protocol():
    out = audit("odd-sizes", "--json", "--allow-calls", "links")
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    report = json.loads(out.stdout)
    rows = {c["name"]: c for c in report["capabilities"]}
    for n, raw in enumerate(ODD_SIZES):
        declared = rows[f"note://size-{n}"]["details"]["hints"]["size"]["declared"]
        assert declared is None, f"size {raw} must be undeclared, not coerced; the receipt declares {declared!r}"
    assert rows["note://fine"]["details"]["hints"]["size"]["declared"] == 5, "a good size must stay declared"
    links = [b["declaredSize"] for b in rows["links"]["details"]["blocks"]]
    assert links == [None] * len(ODD_SIZES), links
    expected = [
        f"resources/list item {n} ('note://size-{n}') declares size {raw}: not a non-negative integer; "
        "treated as undeclared"
        for n, raw in enumerate(ODD_SIZES)
    ][:SHOWN_FINDINGS]
    # each odd size is sent three times: in the first resources/list, in the second (the audit's
    # second look, custody_lab.live.audit_reread), and in the tool's links
    rest = 3 * len(ODD_SIZES) - SHOWN_FINDINGS
    assert report["protocol"] == [*expected, f"… and {rest} more like these"], report["protocol"]
    assert out.returncode == 2, out.returncode


@pytest.mark.slow
def test_a_negative_listed_size_no_longer_ends_the_audit_it_is_refused_and_reported():
    out = audit("bad-size")
    assert "PROTOCOL: resources/list item 0 ('note://one') declares size -5: not a non-negative integer" in out.stdout
    assert "resource note://one: listed resource: reads are safe" in out.stdout, out.stdout
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr


def test_the_old_sdk_models_coerce_what_the_guard_refuses():
    # why the wire value must decide: the SDK's model turns these into sizes
    import mcp.types as mt

    coerced = [mt.Resource.model_validate({"uri": "a://x", "name": "x", "size": v}).size for v in (True, "12", -0.0)]
    assert coerced == [1, 12, 0], coerced
    fixed = [refuse_odd_sizes("resources/list", "", _listing(raw))[1] for raw in ("true", '"12"', "-0.0")]
    assert all(len(f) == 1 for f in fixed), fixed


def test_a_size_key_spelled_with_json_escapes_is_checked_too():
    text = '{"jsonrpc": "2.0", "id": 3, "result": {"resources": [{"uri": "a://x", "name": "x", "\\u0073ize": true}]}}'
    fixed, found = refuse_odd_sizes("resources/list", "page 1", text)
    assert fixed is not None and len(found) == 1 and "declares size true" in found[0], found
