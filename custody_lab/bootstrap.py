"""Set the lab up and run it, from a fresh clone, with nothing but Python.

    python3 -m custody_lab.bootstrap lab     # create .venv if missing, install the lab, open JupyterLab
    python3 -m custody_lab.bootstrap test    # create .venv if missing, install the lab and its test tools,
                                             # run every test (and tests/interop/.venv-time, the time server's)
    python3 -m custody_lab.bootstrap quick   # the same, without the slow tests: the loop while you work

This module uses the standard library only: it runs *before* the lab's dependencies exist. The
virtual environment lives in ``.venv/`` at the repository root and is reinstalled whenever
``pyproject.toml`` changes (a stamp file records the hash it was built from and the extras it holds).
``lab`` installs only what the lab needs (``pip install -e .``: no pytest, Playwright, mypy, ruff,
hypothesis or type stubs, which a learner on venue Wi-Fi never runs); ``test``, ``quick`` and
``setup`` add the ``test`` extra (``.[test]``). An environment that has the test extra serves ``lab``
as it is.

``test`` also creates ``tests/interop/.venv-time``: the MCP reference time server
(``mcp-server-time``, PyPI), pinned with everything it runs on in
``tests/interop/requirements-time.txt``, which the interoperability tests start as a server. It
has its own environment so that its dependencies never enter the lab's. The npm packages those
tests run are installed by ``npm ci --prefix tests/interop`` (``.ci/run``).
"""

from __future__ import annotations

__all__ = [
    "LAB_EXTRAS",
    "ROOT",
    "STAMP",
    "TEST_EXTRAS",
    "TIME_SERVER_PINS",
    "TIME_SERVER_VENV",
    "VENV",
    "ensure_env",
    "ensure_time_server_env",
    "lab_args",
    "main",
    "open_lab",
    "run_tests",
]

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("CUSTODY_LAB_VENV", ROOT / ".venv"))
STAMP = VENV / ".custody-lab-installed"


#: The MCP reference time server's own environment and its pins (the interoperability tests).
TIME_SERVER_VENV = ROOT / "tests" / "interop" / ".venv-time"
TIME_SERVER_PINS = ROOT / "tests" / "interop" / "requirements-time.txt"


def _python(venv_dir: Path | None = None) -> Path:
    sub = "Scripts/python.exe" if os.name == "nt" else "bin/python"
    return (VENV if venv_dir is None else venv_dir) / sub


def _say(message: str) -> None:
    print(f"[custody-lab] {message}", flush=True)


#: A warning setuptools prints in a box for every editable install ("be careful with folders in
#: your working directory with the same name as your package"): nothing a newcomer can act on, and
#: the lab's own folder is that package. pip hands the filter on to the build backend it runs.
_QUIET_BUILD = "ignore:Editable installation"


def _run(cmd: list[str]) -> None:
    _say("$ " + " ".join(cmd))
    env = dict(os.environ)
    env["PYTHONWARNINGS"] = ",".join(w for w in (env.get("PYTHONWARNINGS"), _QUIET_BUILD) if w)
    code = subprocess.call(cmd, cwd=ROOT, env=env)
    if code != 0:
        raise SystemExit(f"[custody-lab] command failed with exit code {code}: {' '.join(cmd)}")


#: The extra a verb installs besides the lab: ``lab`` none, the test verbs the test tools.
LAB_EXTRAS = ""
TEST_EXTRAS = "test"


def _installed() -> tuple[str, frozenset[str]]:
    """The stamp's pyproject hash and the extras installed with it (an unreadable stamp: none)."""
    words = STAMP.read_text().split() if STAMP.exists() else []
    if not words:
        return "", frozenset()
    return words[0], frozenset(e for e in words[1:] if e)


def ensure_env(extras: str = LAB_EXTRAS) -> Path:
    """Create ``.venv`` if it is missing and (re)install the lab when ``pyproject.toml`` changed or
    the environment lacks ``extras`` (comma-separated; ``""`` is the lab alone)."""
    # The Python version was checked on import, by custody_lab/python_check.py (an older one never gets here).
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    wanted = frozenset(e for e in extras.split(",") if e)
    py = _python()
    if not py.exists():
        _say(f"creating a virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True, clear=VENV.exists()).create(VENV)
    stamped, have = _installed()
    if stamped != digest or not wanted <= have:
        keep = have if stamped == digest else frozenset()  # a changed pyproject: only what is asked now
        extras_now = sorted(wanted | keep)
        target = f".[{','.join(extras_now)}]" if extras_now else "."
        what = "the lab and its test tools" if extras_now else "the lab"
        _say(f"installing {what} with their pinned dependencies (first time: a few minutes)")
        _run([str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", "--upgrade", "pip"])
        _run([str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", "-e", target])
        STAMP.write_text(" ".join([digest, *extras_now]) + "\n")
    else:
        _say(f"environment up to date ({VENV})")
    return py


def ensure_time_server_env() -> Path:
    """Create ``tests/interop/.venv-time`` if missing and (re)install ``mcp-server-time`` into it
    when ``tests/interop/requirements-time.txt`` changed; returns the server's executable."""
    want = hashlib.sha256(TIME_SERVER_PINS.read_bytes()).hexdigest()
    stamp = TIME_SERVER_VENV / ".custody-lab-installed"
    py = _python(TIME_SERVER_VENV)
    if not py.exists():
        _say(f"creating the time server's own virtual environment in {TIME_SERVER_VENV}")
        venv.EnvBuilder(with_pip=True, clear=TIME_SERVER_VENV.exists()).create(TIME_SERVER_VENV)
    if not stamp.exists() or stamp.read_text().strip() != want:
        _say(f"installing mcp-server-time as pinned in {TIME_SERVER_PINS.relative_to(ROOT)}")
        pins = str(TIME_SERVER_PINS)
        _run([str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", pins])
        stamp.write_text(want + "\n")
    return py.parent / ("mcp-server-time.exe" if os.name == "nt" else "mcp-server-time")


#: The quick subset: every test not marked ``slow`` (notebooks, browser, interop, benchmarks, fresh
#: environments and interpreters, the whole-package mypy and the long property runs are ``slow``).
_QUICK_ARGS = ["-m", "not slow"]


def run_tests(extra_args: list[str]) -> int:
    """Run the whole suite; pytest's "no tests collected" (exit 5) is a failure, never a pass."""
    py = ensure_env(TEST_EXTRAS)
    cmd = [str(py), "-m", "pytest", *extra_args]
    _say("$ " + " ".join(cmd))
    code = subprocess.call(cmd, cwd=ROOT)
    if code == 5:
        _say("FAIL: pytest collected no tests — the suite must never pass empty")
        return 1
    return code


def lab_args(extra_args: list[str]) -> list[str]:
    """The ``custody-lab lab`` arguments for the README's ``bootstrap lab`` flags.

    ``--no-browser`` and ``--port N`` (or ``--port=N``) are the command's own flags; every other
    flag is JupyterLab's and goes after ``--`` unchanged.

    Example:
        >>> lab_args(["--no-browser", "--port", "8899", "--ServerApp.ip=127.0.0.1"])
        ['--no-browser', '--port', '8899', '--', '--ServerApp.ip=127.0.0.1']
    """
    own: list[str] = []
    theirs: list[str] = []
    rest = iter(extra_args)
    for arg in rest:
        if arg == "--no-browser":
            own.append(arg)
        elif arg == "--port":
            own += [arg, next(rest, "")]
        elif arg.startswith("--port="):
            own += ["--port", arg.split("=", 1)[1]]
        elif arg != "--":
            theirs.append(arg)
    return [*own, "--", *theirs] if theirs else own


def open_lab(extra_args: list[str]) -> int:
    """Open JupyterLab on the start notebook through ``custody-lab lab`` (its quiet settings, the
    start notebook's URL with the token, its warnings); ``--no-browser``, ``--port N`` and other
    JupyterLab flags pass through. It installs the lab alone (no test tools)."""
    py = ensure_env(LAB_EXTRAS)
    cmd = [str(py), "-m", "custody_lab", "lab", *lab_args(extra_args)]
    _say("$ " + " ".join(cmd))
    os.chdir(ROOT)
    if os.name == "nt":
        return subprocess.call(cmd)
    os.execv(str(py), cmd)
    return 0  # not reached


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("lab", "test", "quick", "setup"):
        print(__doc__)
        return 2
    verb, rest = args[0], args[1:]
    if verb == "test":
        ensure_time_server_env()
        return run_tests(rest)
    if verb == "quick":
        return run_tests([*_QUICK_ARGS, *rest])
    if verb == "lab":
        return open_lab(rest)
    ensure_env(TEST_EXTRAS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
