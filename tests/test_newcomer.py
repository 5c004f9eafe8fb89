"""A newcomer's path: clone the repository and run exactly the README's two commands.

The clone is of the committed ``HEAD`` (what a newcomer would get), into a temporary folder with no
``.venv``, so a missing install step cannot hide behind a warm machine. The two commands are read
from the clone's README, not retyped here:

* the test command, with pytest arguments appended (bootstrap passes them through) that select a
  couple of fast tests, so the suite does not run itself in full (``CUSTODY_LAB_NEWCOMER_K``
  overrides the selection);
* the lab command in a non-interactive form (``--no-browser``, a free port, a known token, bound to
  127.0.0.1): the server must answer with the start notebook; it is then stopped by its PID.

Both install from nothing into a fresh virtual environment (pip's wheel cache is shared), so this
is slow. A suite started by this test carries ``CUSTODY_LAB_NESTED_SUITE`` and skips it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from custody_lab import delivery

from . import fresh_env as fe

ROOT = Path(__file__).resolve().parent.parent
START = "00-start-here.ipynb"
FAST_TESTS = os.environ.get(
    "CUSTODY_LAB_NEWCOMER_K",
    "test_fixture_prints_the_payload_with_sha256_and_a_pass_line"
    " or test_there_are_notebooks_and_the_listing_is_the_lesson_plan",
)

pytestmark = pytest.mark.slow


def readme_commands(readme: Path) -> dict[str, list[str]]:
    """The README's ``python3 -m custody_lab.bootstrap lab|test`` commands, as argument lists."""
    text = readme.read_text(encoding="utf-8")
    found = re.findall(r"^(python3 -m custody_lab\.bootstrap (lab|test))\b", text, re.M)
    commands = {verb: shlex.split(cmd) for cmd, verb in found}
    assert set(commands) == {"lab", "test"}, f"{readme}: expected a lab and a test command, found {sorted(commands)}"
    return commands


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A fresh clone of HEAD and the README commands found in it."""
    fe.skip_if_nested()
    fe.need(shutil.which("git") and (ROOT / ".git").exists(), f"{ROOT} is not a git checkout with git available")
    fe.need(shutil.which("python3"), "no python3 on PATH: the README's commands start with python3")
    dest = tmp_path_factory.mktemp("newcomer") / "custody_lab"
    fe.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)],
        cwd=dest.parent,
        env=fe.child_env(),
        timeout=300,
        what="git clone",
    )
    assert not (dest / ".venv").exists(), "the clone already has a .venv"
    return dest, readme_commands(dest / "README.md")


def test_the_readme_test_command_installs_the_lab_in_a_fresh_clone_and_runs_tests(clone):
    dest, commands = clone
    argv = [
        shutil.which("python3") or "python3",
        *commands["test"][1:],
        "-q",
        "-p",
        "no:cacheprovider",
        "-k",
        FAST_TESTS,
    ]
    out = fe.run(argv, cwd=dest, env=fe.child_env(), timeout=2400, what="the README's test command")
    assert (dest / ".venv").is_dir(), f"the test command did not create {dest / '.venv'}"
    passed = re.search(r"(\d+) passed", out)
    assert passed and int(passed.group(1)) >= 2, f"expected at least 2 passing tests, got:\n{out[-2000:]}"
    assert not re.search(r"\d+ (failed|error)", out), out[-2000:]


def _get(url: str, token: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, b""


def test_the_readme_lab_command_serves_the_start_notebook_from_a_fresh_clone(clone):
    dest, commands = clone
    port, token = delivery.free_port(), secrets.token_hex(16)
    argv = [
        shutil.which("python3") or "python3",
        *commands["lab"][1:],
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
    ]
    log_path = dest.parent / "lab.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            argv, cwd=dest, env=fe.child_env(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            # the first run installs everything unless the test command ran first; allow for it
            delivery.wait_for_http(f"http://127.0.0.1:{port}/api/status", timeout=1800, process=process)
            # JupyterLab roots itself at the folder of the notebook it was given, or at the repo
            candidates = [f"notebooks/{START}", START]
            found = {path: _get(f"http://127.0.0.1:{port}/api/contents/{path}?content=1", token) for path in candidates}
            served = [path for path, (status, _body) in found.items() if status == 200]
            assert served, f"the server did not serve {START}: {[(p, s) for p, (s, _b) in found.items()]}"
            model = json.loads(found[served[0]][1])
            assert model["type"] == "notebook" and model["name"] == START, model.get("name")
            first = model["content"]["cells"][0]["source"]
            assert first.startswith("# "), f"{START} opens with {first[:60]!r}, not a '# Title'"
            status, page = _get(f"http://127.0.0.1:{port}/lab/tree/{served[0]}", token)
            assert status == 200 and b"JupyterLab" in page, f"/lab/tree/{served[0]} answered {status}"
        finally:
            code = delivery.stop(process)
    assert code is not None, f"the lab server (PID {process.pid}) did not stop"
    log_text = log_path.read_text(errors="replace")
    assert "-m jupyter lab" in log_text, f"the lab command did not start JupyterLab:\n{log_text[-2000:]}"
    # issue 38 §1: the install and the start print nothing a newcomer cannot act on: pip runs quietly
    # (no setuptools box about the editable install) and JupyterLab starts without notebook_shim,
    # whose start made jupyter_server warn that ServerApp.token is deprecated though nothing set it
    noise = ("ServerApp.token config is deprecated", "SetuptoolsDeprecationWarning", "*" * 20)
    heard = [line for line in log_text.splitlines() if any(n in line for n in noise)]
    assert not heard, f"the lab command printed lines a newcomer cannot act on: {heard[:5]}"
