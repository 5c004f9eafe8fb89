"""The host lens over an audit's JSON (``custody-lab audit --hosts``), on a hand-made report."""

from __future__ import annotations

from custody_lab.protocol.host_audit import audit_inputs, format_hosts, hosts_rows


def _tool(name, blocks, structured=None, custody_bytes=0, exercised=True):
    details = {"blocks": blocks, "custody": {"bytes": custody_bytes, "provenance": "p@1"}}
    if structured is not None:
        details["structured"] = structured
    return {"kind": "tool", "name": name, "exercised": exercised, "details": details}


REPORT = {
    "capabilities": [
        {"kind": "resource", "name": "kb://x", "exercised": True, "details": {}},
        _tool("plain", [{"type": "text", "bytes": 50, "annotations": None}]),
        _tool(
            "report",
            [
                {"type": "text", "bytes": 41, "annotations": None},
                {"type": "resource_link", "uri": "report://7", "mime": "text/html", "declaredSize": 18000},
            ],
        ),
        _tool("risk", [{"type": "text", "bytes": 340}], structured={"present": True, "textFallback": True}),
        _tool("bare", [], structured={"present": True, "textFallback": False}, custody_bytes=120),
        _tool("note", [{"type": "text", "bytes": 10, "annotations": {"audience": ["user"]}}]),
        _tool("never-called", [{"type": "text", "bytes": 5}], exercised=False),
    ]
}

# Worked by hand (content budget 4,096):
# plain: 50 bytes everywhere.
# report: custodian 41 + '\n' + the refused link line 'resource_link {"uri":"report://7","bytes":18000,
#   "notRead":"over the content budget"}' (14 + 70 = 84) = 126; plain-reader 41 + '\n' + 'resource_link
#   {"uri":"report://7","mimeType":"text/html","notRead":"this host does not read links"}' (14 + 85 = 99) = 141;
#   both-forms 41 + '\n' + 4,055 (the room left) + the recorded cut line; eager-fetcher 41 + '\n' + 4,055.
# risk: the text fallback is the same JSON as the structuredContent: custodian and plain-reader read alike.
# bare: structuredContent (120 bytes) with no text block: the hosts reading blocks see nothing.
# note: a user-only block: kept from the model by custodian and both-forms.
EXPECTED_BYTES = {
    "plain": {"custodian": 50, "plain-reader": 50, "both-forms": 50, "eager-fetcher": 50},
    "report": {"custodian": 126, "plain-reader": 141, "eager-fetcher": 4097},
    "risk": {"custodian": 340, "plain-reader": 340, "both-forms": 681, "eager-fetcher": 340},
    "bare": {"custodian": 120, "plain-reader": 0, "both-forms": 120, "eager-fetcher": 0},
    "note": {"custodian": 0, "plain-reader": 10, "both-forms": 0, "eager-fetcher": 10},
}
EXPECTED_READINGS = {"plain": 1, "report": 4, "risk": 2, "bare": 2, "note": 2}


def test_only_exercised_tool_results_are_rebuilt_each_from_its_recorded_shape():
    names = [name for name, _ in audit_inputs(REPORT)]
    assert names == ["plain", "report", "risk", "bare", "note"]
    risk = dict(audit_inputs(REPORT))["risk"]
    assert len(risk.result["content"][0]["text"]) == 340 and "structuredContent" in risk.result


def test_each_result_gives_the_hand_worked_bytes_per_profile_and_number_of_readings():
    rows = {row["tool"]: row for row in hosts_rows(REPORT)}
    for tool, sizes in EXPECTED_BYTES.items():
        got = {pid: rows[tool]["bytes"][pid] for pid in sizes}
        assert got == sizes, (tool, rows[tool]["bytes"])
        assert rows[tool]["readings"] == EXPECTED_READINGS[tool], (tool, rows[tool]["groups"])
    assert rows["report"]["broken"]["eager-fetcher"] == [
        "link-dereferenced-silently",
        "cut-not-recorded",
        "budgets-not-separate",
    ]
    assert rows["note"]["broken"]["plain-reader"] == ["user-block-to-model"]


def test_the_terminal_text_makes_a_servers_control_characters_visible():
    report = {"capabilities": [_tool("evil\x1b[2J", [{"type": "text", "bytes": 3}])]}
    text = format_hosts(hosts_rows(report))
    assert "\x1b" not in text and "evil\\x1b[2J: every profile reads it alike" in text
    assert "no tool result was exercised" in format_hosts([])
