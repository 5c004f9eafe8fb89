"""``custody-lab audit --hosts`` against the lab's own server over stdio: which results hosts read differently."""

from __future__ import annotations

import json
import sys

from custody_lab.cli import main
from custody_lab.live.audit import audit_command
from custody_lab.protocol.host_audit import hosts_rows

from ..timing import scaled

LAB = [sys.executable, "-m", "custody_lab.live.lab_server"]


def test_the_lab_servers_link_and_structured_results_are_read_differently_by_the_profiles(capsys):
    report = audit_command(LAB, allow_calls=("generate_report", "calculate_risk"), timeout=scaled(10.0))
    rows = {row["tool"]: row for row in hosts_rows(report.to_dict())}
    assert set(rows) == {"generate_report", "calculate_risk"}, rows
    # generate_report: a 41-byte text block and a link declaring 18,000 bytes: four different readings
    report_row = rows["generate_report"]
    assert report_row["readings"] == 4, report_row["groups"]
    assert report_row["bytes"]["eager-fetcher"] == 41 + 1 + (4096 - 41)
    assert "link-dereferenced-silently" in report_row["broken"]["eager-fetcher"]
    # calculate_risk: structuredContent with its 340-byte JSON as text: only both-forms reads it otherwise
    assert rows["calculate_risk"]["groups"] == [["custodian", "plain-reader", "eager-fetcher"], ["both-forms"]]

    code = main(["audit", "--json", "--hosts", "--allow-calls", "calculate_risk", "--timeout", "10", "--", *LAB])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert [row["tool"] for row in doc["hosts"]] == ["calculate_risk"]
    assert doc["hosts"][0]["bytes"]["both-forms"] == 681
