"""``custody-lab serve``: each answered request becomes a line of the receipt log, and the log reads back."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from custody_lab.live import LabSession  # noqa: E402
from custody_lab.live.lab_server import LabServer  # noqa: E402
from custody_lab.live.live_errors import LiveError  # noqa: E402
from custody_lab.live.serve_log import ReceiptLog, read_receipt_log, receipt_log  # noqa: E402
from custody_lab.live.serve_middleware import ServedExchanges  # noqa: E402


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


def test_a_log_line_still_being_written_is_left_for_the_next_read(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"seq":1}\n{"seq":2,"meth', encoding="utf-8")
    assert read_receipt_log(path) == [{"seq": 1}], read_receipt_log(path)


@pytest.mark.parametrize(
    ("text", "where"),
    [('{"seq":1}\nnot json\n{"seq":3}\n', "line 2"), ('{"seq":1}\n[1, 2]\n', "line 2")],
    ids=["not-json", "not-an-object"],
)
def test_a_damaged_log_line_is_refused_with_its_line_number(tmp_path, text, where):
    path = tmp_path / "log.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LiveError, match=where) as info:
        read_receipt_log(path)
    assert "log.jsonl" in str(info.value), str(info.value)


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
