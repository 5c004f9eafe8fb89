"""``custody-lab serve``: each answered request becomes a line of the receipt log, and the log reads back."""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from custody_lab.live import LabSession
from custody_lab.live.lab_server import LabServer
from custody_lab.live.serve_log import ReceiptLog, read_receipt_log, receipt_log
from custody_lab.live.serve_middleware import ServedExchanges


async def _serve_and_log(tmp_path, mode="auto"):
    """A real client does reads and calls on a served lab server; returns the log's entries."""
    lab = LabServer()
    log = ReceiptLog(tmp_path / "receipts.jsonl")
    lab.observe(ServedExchanges(lab, log, clock=lambda: "2026-09-04T12:00:00.000Z"))
    async with Client(lab.mcp, mode=mode) as client:
        await client.list_resources()
        await client.read_resource("kb://handbook/v4")
        await client.read_resource("crm://customer/fixture-17")
        await client.read_resource("assets://logo.png")
        with pytest.raises(MCPError):
            await client.read_resource("crm://customer/nobody")
        await client.call_tool("calculate_risk", {})
        await client.call_tool("generate_report", {"week": 7})
        await client.call_tool("approve_draft", {"draft_id": "9"})
    return read_receipt_log(log.path)


def _by_target(entries):
    return {(e["method"], e["target"]): e for e in entries if e["receipt"] is not None}


@pytest.mark.anyio
async def test_every_served_read_and_call_is_logged_with_the_digest_the_labs_own_client_records(tmp_path):
    logged = _by_target(await _serve_and_log(tmp_path))
    async with LabSession() as s:
        own = {
            ("resources/read", "kb://handbook/v4"): await s.read("kb://handbook/v4"),
            ("resources/read", "crm://customer/fixture-17"): await s.read("crm://customer/fixture-17"),
            ("resources/read", "assets://logo.png"): await s.read("assets://logo.png"),
            ("tools/call", "calculate_risk"): await s.call("calculate_risk", {}),
        }
    for key, mine in own.items():
        served = logged[key]["receipt"]
        for field in ("uri", "mime", "bytes", "provenance"):
            want, got = mine.receipt["custody"][field], served["custody"][field]
            assert got == want, f"{key} custody.{field}: the client recorded {want!r}, the server logged {got!r}"
        assert served["contentDigest"] == mine.receipt["contentDigest"], (
            key,
            mine.receipt["contentDigest"],
            served["contentDigest"],
        )
        assert served["selected"] == mine.receipt["selected"], (key, mine.receipt["selected"], served)


@pytest.mark.anyio
async def test_the_log_names_template_reads_links_side_effects_and_a_missing_resource(tmp_path):
    entries = await _serve_and_log(tmp_path)
    logged = _by_target(entries)
    customer = logged[("resources/read", "crm://customer/fixture-17")]["receipt"]
    assert (customer["selected"], customer["templateParams"]) == ("templated-resource", {"id": "fixture-17"}), customer
    report = logged[("tools/call", "generate_report")]["receipt"]
    got = (report["selected"], report["custody"]["uri"], report["custody"]["bytes"])
    assert got == ("resource-link", "report://synthetic/weekly-7", 18000), got
    approve = logged[("tools/call", "approve_draft")]["receipt"]
    got = (approve["selected"], approve["custody"]["sideEffects"], approve["exchange"]["observedSideEffects"])
    assert got == ("embedded-resource", True, True), got
    risk = logged[("tools/call", "calculate_risk")]["receipt"]
    assert risk["exchange"]["observedSideEffects"] is False, risk["exchange"]
    missing = logged[("resources/read", "crm://customer/nobody")]
    assert (missing["outcome"], missing["error"]["code"]) == ("resource-not-found", -32602), missing
    listing = next(e for e in entries if e["method"] == "resources/list")
    assert listing["items"] == {"resources": 5} and listing["receipt"] is None, listing
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1)), [e["seq"] for e in entries]


@pytest.mark.anyio
async def test_a_legacy_session_logs_the_legacy_not_found_code_it_was_sent(tmp_path):
    entries = await _serve_and_log(tmp_path, mode="legacy")
    missing = _by_target(entries)[("resources/read", "crm://customer/nobody")]
    assert (missing["protocolVersion"], missing["error"]["code"]) == ("2025-11-25", -32002), missing


def test_the_log_view_shows_the_last_entries_and_escapes_server_text(tmp_path):
    log = ReceiptLog(tmp_path / "log.jsonl")
    for i in range(1, 6):
        log.append({"seq": i, "method": "resources/read", "target": f"kb://<script>{i}\u202e", "receipt": None})
    view = receipt_log(log.path, last=2)
    html = view._repr_html_()
    assert (view.total, [e["seq"] for e in view.entries]) == (5, [4, 5]), (view.total, view.entries)
    assert "<script>" not in html and "&lt;script&gt;5" in html and "\u202e" not in html, html


def test_an_empty_log_view_says_how_to_fill_it(tmp_path):
    html = receipt_log(tmp_path / "absent.jsonl")._repr_html_()
    assert "No exchanges logged yet" in html and "custody-lab serve" in html, html


def test_the_log_view_shows_the_last_20_exchanges_by_default(tmp_path):
    log = ReceiptLog(tmp_path / "log.jsonl")
    for i in range(1, 26):
        log.append({"seq": i, "method": "ping", "receipt": None})
    view = receipt_log(log.path)
    assert [e["seq"] for e in view.entries] == list(range(6, 26)), [e["seq"] for e in view.entries]


# -- the log over a real transport: every request one line, the negotiated version, refusals --------------------

_ENVELOPE_KEYS = ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities")


def _initialize(version: str, request_id: int = 1) -> dict:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def _enveloped(request_id: int, method: str, version: str, **params) -> dict:
    meta = dict(zip(_ENVELOPE_KEYS, (version, {}), strict=True))
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": meta}}


_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _raw_stdio(tmp_path, frames):
    """Send JSON-RPC frames to ``custody-lab serve`` over stdio; the answers by id, its stderr, and the log."""
    import json
    import subprocess
    import sys

    from ..timing import scaled

    log = tmp_path / "receipts.jsonl"
    out = subprocess.run(
        [sys.executable, "-m", "custody_lab.cli", "serve", "--log", str(log)],
        input="".join(json.dumps(f) + "\n" for f in frames),
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert out.returncode == 0, f"serve exited {out.returncode} when stdin closed: {out.stderr[-2000:]}"
    answers = {m["id"]: m for m in map(json.loads, out.stdout.splitlines()) if "id" in m}
    return answers, out.stderr, read_receipt_log(log)


@pytest.mark.slow
@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_an_initialize_line_records_the_revision_that_was_negotiated(tmp_path, version):
    frames = [_initialize(version), _INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    answers, _, entries = _raw_stdio(tmp_path, frames)
    assert answers[1]["result"]["protocolVersion"] == version, answers[1]
    got = [(e["method"], e["protocolVersion"], e.get("requestedVersion")) for e in entries]
    assert got == [("initialize", version, version), ("tools/list", version, None)], f"{version}: logged {got}"


@pytest.mark.slow
def test_requests_refused_for_their_protocol_version_get_a_line_each_and_nothing_else_is_lost(tmp_path):
    legacy = [
        _initialize("2025-11-25"),
        _INITIALIZED,
        _enveloped(2, "tools/list", "2026-07-28"),  # the 2026 envelope on a handshake connection
        {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"},
    ]
    (tmp_path / "legacy").mkdir()
    (tmp_path / "modern").mkdir()
    answers, _, entries = _raw_stdio(tmp_path / "legacy", legacy)
    assert answers[2]["error"]["code"] == -32600, answers[2]
    modern = [
        _enveloped(1, "tools/list", "2026-07-28"),
        _initialize("2025-11-25", 2),  # a handshake on a 2026-07-28 connection
        _enveloped(3, "tools/list", "2099-01-01"),  # a revision the server does not serve
    ]
    answers, _, entries_modern = _raw_stdio(tmp_path / "modern", modern)
    assert (answers[2]["error"]["code"], answers[3]["error"]["code"]) == (-32022, -32022), answers
    got = [
        (e["method"], (e["error"] or {}).get("code"), e.get("refused", False), e.get("requestedVersion"))
        for e in (*entries, *entries_modern)
    ]
    want = [
        ("initialize", None, False, "2025-11-25"),
        ("tools/list", -32600, True, "2026-07-28"),
        ("prompts/list", None, False, None),
        ("tools/list", None, False, None),
        ("initialize", -32022, True, "2025-11-25"),
        ("tools/list", -32022, True, "2099-01-01"),
    ]
    assert got == want, f"expected one line per request {want}, got {got}"
    refused = [e for e in (*entries, *entries_modern) if e.get("refused")]
    assert all(e["receipt"] is None and e["protocolVersion"] is None for e in refused), refused


@pytest.mark.slow
def test_an_unknown_prompt_is_invalid_params_without_a_traceback_on_stderr(tmp_path):
    frames = [
        _initialize("2025-11-25"),
        _INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "no-such-prompt"}},
        {"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "customer_follow_up"}},
    ]
    answers, stderr, entries = _raw_stdio(tmp_path, frames)
    codes = (answers[2]["error"]["code"], answers[3]["error"]["code"])
    assert codes == (-32602, -32602), f"unknown prompt, missing argument: expected -32602 twice, got {answers}"
    assert "no-such-prompt" in answers[2]["error"]["message"], answers[2]
    assert "Traceback" not in stderr and "ValueError" not in stderr, stderr
    logged = [(e["method"], e["target"], e["error"]["code"]) for e in entries if e["method"] == "prompts/get"]
    assert logged == [("prompts/get", "no-such-prompt", -32602), ("prompts/get", "customer_follow_up", -32602)], logged


@pytest.mark.slow
@pytest.mark.parametrize(
    ("header", "envelope", "code"),
    [("2099-01-01", "2099-01-01", -32022), ("2026-07-28", "2099-01-01", -32020)],
    ids=["unsupported-version", "header-contradicts-body"],
)
def test_an_http_request_with_a_bad_protocol_version_header_gets_its_line(tmp_path, header, envelope, code):
    import json
    import urllib.error
    import urllib.request

    from ..timing import scaled
    from .serving import AUTH, serve_http

    log = tmp_path / "receipts.jsonl"
    with serve_http(log) as (url, _):
        body = json.dumps(_enveloped(7, "tools/list", envelope)).encode()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": header,
            "Mcp-Method": "tools/list",
            **AUTH,
        }
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=scaled(60))
        answer = json.loads(info.value.read())
    assert (info.value.code, answer["error"]["code"]) == (400, code), (info.value.code, answer)
    entries = read_receipt_log(log)
    got = [(e["method"], e["error"]["code"], e["refused"], e["requestedVersion"], e["httpStatus"]) for e in entries]
    assert got == [("tools/list", code, True, envelope, 400)], f"expected one refusal line, got {got}"
