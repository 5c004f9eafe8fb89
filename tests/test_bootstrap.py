"""``python3 -m custody_lab.bootstrap``: its verbs, the arguments each passes on, and its exit codes.

Nothing is installed and no suite is run here: ``ensure_env`` and ``subprocess.call`` are replaced
by fakes that record what the bootstrap would have run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from custody_lab import bootstrap

FAKE_PY = Path("/fake/venv/bin/python")


class Recorder:
    """Stands in for ``subprocess.call``: records each command and answers with ``code``."""

    def __init__(self, code: int = 0) -> None:
        self.code = code
        self.commands: list[list[str]] = []

    def __call__(self, cmd: list[str], **kwargs: object) -> int:
        self.commands.append(list(cmd))
        return self.code


@pytest.fixture
def envs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``ensure_env`` replaced: it records the extras asked for and returns FAKE_PY; the time
    server's environment (``ensure_time_server_env``) is recorded as ``"time-server"``."""
    asked: list[str] = []

    def fake_ensure_env(extras: str = "") -> Path:
        asked.append(extras)
        return FAKE_PY

    monkeypatch.setattr(bootstrap, "ensure_env", fake_ensure_env)
    monkeypatch.setattr(bootstrap, "ensure_time_server_env", lambda: asked.append("time-server"))
    return asked


def calls(monkeypatch: pytest.MonkeyPatch, code: int = 0) -> Recorder:
    recorder = Recorder(code)
    monkeypatch.setattr(bootstrap.subprocess, "call", recorder)
    return recorder


# --------------------------------------------------------------------------------------------
# lab_args: the command's own flags first, JupyterLab's after "--"
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            ["--no-browser", "--port", "8899", "--ServerApp.ip=127.0.0.1"],
            ["--no-browser", "--port", "8899", "--", "--ServerApp.ip=127.0.0.1"],
        ),
        (["--port=9000"], ["--port", "9000"]),
        (["--", "--ServerApp.token=x", "--no-browser"], ["--no-browser", "--", "--ServerApp.token=x"]),
        (["--LabApp.a=1", "--port", "1", "--LabApp.b=2"], ["--port", "1", "--", "--LabApp.a=1", "--LabApp.b=2"]),
        (["--port"], ["--port", ""]),
        ([], []),
    ],
)
def test_lab_args_puts_the_commands_own_flags_first_and_jupyterlabs_after_a_double_dash(given, expected):
    actual = bootstrap.lab_args(given)
    assert actual == expected, f"lab_args({given}): expected {expected}, got {actual}"


# --------------------------------------------------------------------------------------------
# The verbs
# --------------------------------------------------------------------------------------------


def test_quick_runs_pytest_with_not_slow_before_the_users_own_arguments(monkeypatch, envs):
    recorder = calls(monkeypatch)
    code = bootstrap.main(["quick", "-k", "receipt", "-x"])
    expected = [str(FAKE_PY), "-m", "pytest", "-m", "not slow", "-k", "receipt", "-x"]
    actual = (code, recorder.commands, envs)
    assert actual == (0, [expected], ["test"]), (
        f"quick -k receipt -x: expected (0, [{expected}], ['test']), got {actual}"
    )


def test_test_runs_pytest_with_the_users_arguments_only(monkeypatch, envs):
    recorder = calls(monkeypatch)
    code = bootstrap.main(["test", "tests/core"])
    expected = [str(FAKE_PY), "-m", "pytest", "tests/core"]
    assert (code, recorder.commands) == (0, [expected]), (
        f"test tests/core: expected (0, [{expected}]), got {(code, recorder.commands)}"
    )


def test_test_prepares_the_time_servers_own_environment_and_quick_and_setup_do_not(monkeypatch, envs):
    calls(monkeypatch)
    seen = {}
    for verb in ("test", "quick", "setup"):
        envs.clear()
        bootstrap.main([verb])
        seen[verb] = list(envs)
    expected = {"test": ["time-server", "test"], "quick": ["test"], "setup": ["test"]}
    assert seen == expected, f"environments prepared per verb: expected {expected}, got {seen}"


@pytest.mark.parametrize("verb", ["test", "quick"])
def test_pytests_no_tests_collected_exit_5_becomes_a_failure_1(monkeypatch, envs, capsys, verb):
    calls(monkeypatch, code=5)
    code = bootstrap.main([verb, "-k", "nothing-matches"])
    said = capsys.readouterr().out
    assert code == 1, f"{verb}, pytest exit 5: expected 1, got {code}"
    assert "collected no tests" in said, f"{verb}, pytest exit 5: expected the reason printed, got {said!r}"


@pytest.mark.parametrize("pytest_code", [0, 1, 2, 4])
def test_every_other_pytest_exit_code_is_passed_on_unchanged(monkeypatch, envs, pytest_code):
    calls(monkeypatch, code=pytest_code)
    code = bootstrap.main(["quick"])
    assert code == pytest_code, f"pytest exit {pytest_code}: expected {pytest_code}, got {code}"


@pytest.mark.parametrize("argv", [[], ["serve"], ["--help"], ["Quick"]])
def test_an_unknown_or_missing_verb_prints_the_usage_and_returns_2_without_setting_anything_up(
    monkeypatch, envs, capsys, argv
):
    recorder = calls(monkeypatch)
    code = bootstrap.main(argv)
    said = capsys.readouterr().out
    actual = (code, envs, recorder.commands, "python3 -m custody_lab.bootstrap quick" in said)
    assert actual == (2, [], [], True), f"main({argv}): expected (2, no setup, no command, usage), got {actual}"


def test_setup_only_prepares_the_environment(monkeypatch, envs):
    recorder = calls(monkeypatch)
    code = bootstrap.main(["setup"])
    assert (code, envs, recorder.commands) == (0, ["test"], []), (
        f"setup: expected (0, ['test'], []), got {(code, envs, recorder.commands)}"
    )


def test_lab_replaces_itself_with_custody_lab_lab_and_the_translated_flags(monkeypatch, envs):
    seen: dict[str, object] = {}
    monkeypatch.setattr(bootstrap.os, "name", "posix")
    monkeypatch.setattr(bootstrap.os, "chdir", lambda path: seen.setdefault("cwd", path))
    monkeypatch.setattr(bootstrap.os, "execv", lambda path, cmd: seen.update(exe=path, cmd=cmd))
    bootstrap.main(["lab", "--no-browser", "--ServerApp.ip=127.0.0.1"])
    expected = {
        "cwd": bootstrap.ROOT,
        "exe": str(FAKE_PY),
        "cmd": [str(FAKE_PY), "-m", "custody_lab", "lab", "--no-browser", "--", "--ServerApp.ip=127.0.0.1"],
    }
    assert seen == expected, f"lab --no-browser --ServerApp.ip=127.0.0.1: expected {expected}, got {seen}"


# --------------------------------------------------------------------------------------------
# ensure_env: reinstall only when pyproject.toml (or the extras) changed
# --------------------------------------------------------------------------------------------


@pytest.fixture
def venv_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A virtual environment directory whose python already exists (so none is created)."""
    python = tmp_path / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("", encoding="utf-8")
    monkeypatch.setattr(bootstrap.os, "name", "posix")
    monkeypatch.setattr(bootstrap, "VENV", tmp_path)
    monkeypatch.setattr(bootstrap, "STAMP", tmp_path / ".custody-lab-installed")
    return tmp_path


def digest() -> str:
    return hashlib.sha256((bootstrap.ROOT / "pyproject.toml").read_bytes()).hexdigest()


def installs(recorder: Recorder) -> list[str]:
    """What each ``pip install`` of the recorded commands installed (its last argument)."""
    return [cmd[-1] for cmd in recorder.commands if "install" in cmd]


@pytest.mark.parametrize(
    ("stamp", "extras"),
    [("{d} test", "test"), ("{d}", ""), ("{d} test", "")],
    ids=["test-env-for-tests", "lab-env-for-the-lab", "test-env-for-the-lab"],
)
def test_an_environment_stamped_with_this_pyproject_and_the_extras_asked_is_used_as_it_is(
    monkeypatch, venv_dir, stamp, extras
):
    bootstrap.STAMP.write_text(stamp.format(d=digest()) + "\n")
    recorder = calls(monkeypatch)
    py = bootstrap.ensure_env(extras)
    assert (py, recorder.commands) == (venv_dir / "bin" / "python", []), (
        f"stamp {stamp!r}, extras {extras!r}: expected no install, got {recorder.commands}"
    )


@pytest.mark.parametrize(
    ("stamp", "extras", "target", "recorded"),
    [
        (None, "test", ".[test]", "{d} test"),
        (None, "", ".", "{d}"),
        ("an-older-hash test", "", ".", "{d}"),  # a changed pyproject: only what is asked now
        ("an-older-hash", "test", ".[test]", "{d} test"),
        ("{d}", "test", ".[test]", "{d} test"),  # the lab's environment lacks the test tools
        ("{d} docs", "test", ".[docs,test]", "{d} docs test"),  # what it had is kept
    ],
)
def test_a_missing_or_stale_stamp_installs_the_lab_with_the_extras_asked_and_records_them(
    monkeypatch, venv_dir, stamp, extras, target, recorded
):
    if stamp is not None:
        bootstrap.STAMP.write_text(stamp.format(d=digest()) + "\n")
    recorder = calls(monkeypatch)
    bootstrap.ensure_env(extras)
    assert installs(recorder) == ["pip", target], f"stamp {stamp!r}, extras {extras!r}: got {recorder.commands}"
    assert bootstrap.STAMP.read_text().strip() == recorded.format(d=digest()), "the stamp must record what is installed"


def test_lab_installs_the_lab_alone_and_the_test_verbs_add_the_test_tools(monkeypatch, envs):
    calls(monkeypatch)
    monkeypatch.setattr(bootstrap.os, "execv", lambda path, cmd: None)
    monkeypatch.setattr(bootstrap.os, "chdir", lambda path: None)
    seen = {}
    for verb in ("lab", "test", "quick", "setup"):
        envs.clear()
        bootstrap.main([verb])
        seen[verb] = [e for e in envs if e != "time-server"]
    expected = {"lab": [""], "test": ["test"], "quick": ["test"], "setup": ["test"]}
    assert seen == expected, f"extras per verb: expected {expected}, got {seen}"


def test_a_failed_install_stops_with_the_command_and_its_exit_code_and_leaves_no_stamp(monkeypatch, venv_dir):
    calls(monkeypatch, code=3)
    with pytest.raises(SystemExit) as stopped:
        bootstrap.ensure_env("test")
    message = str(stopped.value.code)
    assert "exit code 3" in message and "pip install" in message, f"a failing pip: got {message!r}"
    assert not bootstrap.STAMP.exists(), "a failed install must not be stamped as done"


# --------------------------------------------------------------------------------------------
# ensure_time_server_env: mcp-server-time in its own environment, reinstalled when its pins change
# --------------------------------------------------------------------------------------------


@pytest.fixture
def time_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The time server's environment in a temporary directory, its python already there."""
    venv = tmp_path / ".venv-time"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("", encoding="utf-8")
    pins = tmp_path / "requirements-time.txt"
    pins.write_text("mcp-server-time==2026.10.19\n", encoding="utf-8")
    monkeypatch.setattr(bootstrap.os, "name", "posix")
    monkeypatch.setattr(bootstrap, "TIME_SERVER_VENV", venv)
    monkeypatch.setattr(bootstrap, "TIME_SERVER_PINS", pins)
    monkeypatch.setattr(bootstrap, "ROOT", tmp_path)
    return venv


def test_the_time_server_is_installed_from_its_pins_into_its_own_environment_once(monkeypatch, time_venv):
    recorder = calls(monkeypatch)
    exe = bootstrap.ensure_time_server_env()
    pins = str(bootstrap.TIME_SERVER_PINS)
    expected = [
        [str(time_venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", pins]
    ]
    assert (exe, recorder.commands) == (time_venv / "bin" / "mcp-server-time", expected), recorder.commands
    bootstrap.ensure_time_server_env()
    assert recorder.commands == expected, f"an up-to-date stamp must install nothing again: {recorder.commands}"
    bootstrap.TIME_SERVER_PINS.write_text("mcp-server-time==2026.10.20\n", encoding="utf-8")
    bootstrap.ensure_time_server_env()
    assert recorder.commands == expected * 2, f"changed pins must reinstall: {recorder.commands}"


def test_a_failed_time_server_install_stops_with_the_command_and_leaves_no_stamp(monkeypatch, time_venv):
    calls(monkeypatch, code=1)
    with pytest.raises(SystemExit) as stopped:
        bootstrap.ensure_time_server_env()
    assert "requirements-time.txt" in str(stopped.value.code), stopped.value.code
    assert not (time_venv / ".custody-lab-installed").exists(), "a failed install must not be stamped as done"


def test_every_pip_call_hands_the_build_backend_a_filter_for_setuptools_editable_box(monkeypatch):
    seen: list[dict] = []
    monkeypatch.setattr(bootstrap.subprocess, "call", lambda cmd, cwd, env: seen.append(env) or 0)
    monkeypatch.setenv("PYTHONWARNINGS", "error::DeprecationWarning")
    bootstrap._run(["pip", "install", "x"])
    assert seen[0]["PYTHONWARNINGS"] == "error::DeprecationWarning,ignore:Editable installation", seen[0]
    monkeypatch.delenv("PYTHONWARNINGS")
    bootstrap._run(["pip", "install", "x"])
    assert seen[1]["PYTHONWARNINGS"] == "ignore:Editable installation", seen[1]


@pytest.mark.slow
def test_an_editable_install_through_the_bootstrap_prints_no_setuptools_box(tmp_path, capfd):
    """The box (a ``BuildBackendWarning`` framed in asterisks) came with every fresh install (issue 38 §1)."""
    import subprocess
    import sys

    from . import fresh_env as fe

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    upgraded = subprocess.run(
        [py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--upgrade", "pip"],
        capture_output=True,
        text=True,
        env=fe.child_env(),
    )
    fe.need(upgraded.returncode == 0, f"pip cannot be upgraded here (offline?): {upgraded.stderr[-500:]}")
    capfd.readouterr()
    bootstrap._run(
        [py, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-deps", "-e", str(bootstrap.ROOT)]
    )
    out, err = capfd.readouterr()
    assert "Editable installation" not in out + err and "*" * 20 not in out + err, (out + err)[-2000:]
