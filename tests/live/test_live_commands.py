"""``custody-lab live``: the comparison table, its exit code, and the frames."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from custody_lab.cli import build_parser, main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_the_live_and_audit_subcommands_are_registered():
    parser = build_parser()
    args = parser.parse_args(["live", "--mode", "legacy"])
    assert args.command == "live" and args.mode == "legacy"
    args = parser.parse_args(["audit", "--allow-calls", "x", "--", "python", "-m", "srv"])
    assert args.allow_calls == ["x"] and args.server_command[-2:] == ["-m", "srv"]


def test_registering_the_live_cli_does_not_import_mcp():
    code = "import sys; from custody_lab.cli import build_parser; build_parser(); print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False", "building the CLI parser imported mcp"


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_custody_lab_live_prints_the_table_and_exits_0_when_all_six_agree(mode, capsys):
    code = main(["live", "--mode", mode])
    out = capsys.readouterr().out
    assert code == 0, out
    for case_id in ("handbook", "customer-record", "generated-report", "risk-score", "live-status", "approve-draft"):
        assert case_id in out, f"{case_id} missing from:\n{out}"
    assert "PASS: all 6" in out


def test_custody_lab_live_frames_prints_json_rpc_frames(capsys):
    assert main(["live", "--mode", "legacy", "--frames"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    frames = [json.loads(line) for line in lines]
    assert frames, "no frames printed"
    assert {f["direction"] for f in frames} == {"client→server", "server→client"}
    methods = {f.get("method") for f in frames}
    assert {"resources/read", "tools/call"} <= methods, methods


def test_custody_lab_live_json_prints_six_receipts(capsys):
    assert main(["live", "--json"]) == 0
    out = capsys.readouterr().out
    receipts = json.loads(out[: out.rindex("]") + 1])
    assert [r["id"] for r in receipts][:1] == ["handbook"] and len(receipts) == 6
