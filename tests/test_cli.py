"""The custody-lab command line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from custody_lab.cli import main

from .seed_facts import SEED_FIXTURE_SHA256


def test_fixture_prints_the_payload_with_sha256_and_a_pass_line(capsys):
    assert main(["fixture"]) == 0
    out = capsys.readouterr().out
    body, last = out.rstrip("\n").rsplit("\n", 1)
    assert json.loads(body)["sha256"] == SEED_FIXTURE_SHA256
    assert last.startswith("PASS: 6 custody routes and 4 named rejections") and "sha256 matches" in last


def test_route_prints_one_line_per_case(capsys, tmp_path):
    from custody_lab.core.paths import data_path

    assert main(["route", str(data_path("cases.json"))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10
    assert lines[0].split() == ["handbook", "accepted", "listed-resource"]
    assert lines[-1].split() == ["mislabeled-mutation", "rejected", "resource-mislabeled-side-effect"]


def test_route_json_prints_receipts(capsys):
    from custody_lab.core.paths import data_path

    assert main(["route", "--json", str(data_path("cases.json"))]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows][:2] == ["handbook", "customer-record"] and "custody" in rows[0]


def test_route_of_a_bad_file_exits_non_zero_with_every_bad_row(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(
        "id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance\n"
        "ok,model,generate,resource-link,r://1,text/html,10,true,true,false,p\n"
        "b1,robot,generate,resource-link,r://1,text/html,10,true,true,false,p\n"
        "b2,model,generate,resource-link,r://1,text/html,-3,true,true,false,p\n"
    )
    assert main(["route", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out.split() == ["ok", "accepted", "resource-link"]
    assert "bad.csv line 3" in captured.err and "'initiator'" in captured.err
    assert "bad.csv line 4" in captured.err and "'bytes'" in captured.err


def test_route_with_a_policy_file(capsys, tmp_path):
    from custody_lab.core.paths import data_path

    policy = tmp_path / "policy.json"
    policy.write_text('{"embedLimitBytes": 512}')
    assert main(["route", "--policy", str(policy), str(data_path("cases.json"))]) == 0
    out = capsys.readouterr().out
    assert "approve-draft        rejected  embed-over-budget" in out


def test_a_bad_policy_file_is_a_clear_error(capsys, tmp_path):
    from custody_lab.core.paths import data_path

    policy = tmp_path / "policy.json"
    policy.write_text('{"embedLimitBytes": -1}')
    assert main(["route", "--policy", str(policy), str(data_path("cases.json"))]) == 2
    assert "embedLimitBytes" in capsys.readouterr().err


def test_a_policy_file_with_a_byte_order_mark_is_read(capsys, tmp_path):
    from custody_lab.core.paths import data_path

    policy = tmp_path / "policy.json"
    policy.write_bytes(b'\xef\xbb\xbf{"embedLimitBytes": 512}')
    assert main(["route", "--policy", str(policy), str(data_path("cases.json"))]) == 0
    assert "approve-draft        rejected  embed-over-budget" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "fragment"),
    [("{not json", "not valid JSON"), ('{"embedLimit": 5}', "unknown policy field 'embedLimit'"), ("[]", "an object")],
)
def test_route_and_sweep_refuse_a_bad_policy_file_with_the_same_message(capsys, tmp_path, content, fragment):
    from custody_lab.core.paths import data_path

    policy = tmp_path / "policy.json"
    policy.write_text(content, encoding="utf-8")
    errors = []
    for command in ("route", "sweep"):
        assert main([command, "--policy", str(policy), str(data_path("cases.json"))]) == 2, command
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1], errors
    assert str(policy) in errors[0] and fragment in errors[0], errors[0]


@pytest.mark.parametrize(
    "argv",
    [["route", "--json", "data/inventories/synthetic-200.csv"], ["solutions"], ["fixture"]],
    ids=["route-json", "solutions", "fixture"],
)
def test_output_into_a_pipe_the_reader_closed_early_is_quiet_and_exits_0(argv):
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "custody_lab", *argv],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()  # as ``| head -1`` does: one line, then the reader is gone
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait()
    assert (code, err) == (0, ""), f"{argv}: expected exit 0 and no message, got exit {code} and {err!r}"


def _options_with_choices() -> list[tuple[str, str, tuple[str, ...], str]]:
    import argparse

    from custody_lab.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    found = []
    for name, parser in sub.choices.items():
        for action in parser._actions:
            if action.choices and action.option_strings:
                found.append((name, action.option_strings[0], tuple(action.choices), action.help or ""))
    return found


def test_the_help_of_an_option_with_choices_names_every_choice_and_the_default():
    found = _options_with_choices()
    assert ("live", "--mode") in {(n, o) for n, o, _, _ in found}, found
    for name, option, choices, help_text in found:
        missing = [c for c in choices if not re.search(rf"\b{re.escape(c)}\b", help_text)]
        assert not missing, f"custody-lab {name} {option}: its help {help_text!r} does not name {missing}"
        assert "default" in help_text, f"custody-lab {name} {option}: its help {help_text!r} names no default"
