"""``custody-lab live``: the comparison table, its exit code, and the frames."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from custody_lab.cli import build_parser, main
from custody_lab.live import session
from custody_lab.live.live_commands import (
    EXIT_AGREE,
    EXIT_DIFFER,
    EXIT_ERROR,
    configure_audit,
    configure_live,
    run_audit,
    run_live,
)
from custody_lab.live.live_errors import LiveError

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
    assert code == EXIT_AGREE == 0, out
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


def _live_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    configure_live(parser)
    return parser.parse_args(list(argv))


def test_live_defaults_to_the_modern_protocol_five_seconds_and_the_table():
    args = _live_args()
    got = (args.mode, args.timeout, args.frames, args.json)
    assert got == ("modern", 5.0, False, False), f"expected ('modern', 5.0, False, False), got {got}"
    with pytest.raises(SystemExit):
        _live_args("--mode", "2024")


def test_a_case_the_live_run_lost_makes_live_exit_1_naming_how_many_differ(monkeypatch, capsys):
    recorded = session.record_fixture

    async def without_handbook(**kwargs):
        return [r for r in await recorded(**kwargs) if r.case_id != "handbook"]

    monkeypatch.setattr(session, "record_fixture", without_handbook)
    code = run_live(_live_args())
    out, err = capsys.readouterr()
    assert code == EXIT_DIFFER == 1, f"one case missing: expected exit 1, got {code}; {err}"
    assert "FAIL: 1 of 6 cases differ" in err and "PASS" not in out, (out, err)


def test_a_live_run_that_cannot_run_exits_2_with_its_error(monkeypatch, capsys):
    async def broken(**kwargs):
        raise LiveError("the lab server did not start")

    monkeypatch.setattr(session, "record_fixture", broken)
    code = run_live(_live_args())
    err = capsys.readouterr().err
    assert (code, err.strip()) == (EXIT_ERROR, "error: the lab server did not start"), (code, err)


@pytest.mark.parametrize("command", [[], ["--"]])
def test_audit_without_a_server_command_exits_2_and_shows_how_to_give_one(command, capsys):
    parser = argparse.ArgumentParser()
    configure_audit(parser)
    args = parser.parse_args(command)
    got = (args.allow_calls, args.timeout, args.connect_timeout, args.header, args.follow_links, args.strict)
    assert got == ([], "10", "60", [], False, False), vars(args)
    code = run_audit(args)
    err = capsys.readouterr().err
    assert code == EXIT_ERROR, f"audit {command}: expected exit 2, got {code}"
    assert "give the server command after --" in err and "custody_lab.live.lab_server" in err, err
    assert "or its URL, e.g. custody-lab audit http://127.0.0.1:8765/mcp" in err, err
