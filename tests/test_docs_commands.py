"""Every shell command in README.md and docs/*.md runs as written after the README's two commands.

Each ```bash block is read line by line (a line ending in ``\\`` continues on the next) and each
command is run by ``bash`` in a scratch folder that looks like the repository (its files linked in,
``.venv`` the environment running these tests), so whatever a command writes (``out/``, a receipt
log) lands in the scratch folder, never in the checkout:

- quick commands (``route``, ``sweep``, ``solutions``, ``live``, every ``--help``, ``mkdir``) run in
  the order of their block and must exit 0 without a traceback;
- servers (``lab``, ``present``, ``serve``, Inspector's web UI) are started, waited on until the
  address they print answers, and stopped by their process group (``slow``);
- ``custody-lab check`` runs as written and must find the machine ready (``slow``: a kernel);
- commands that need the pinned npm packages (``tests/interop/node_modules``, installed by the
  ``npm ci --prefix tests/interop`` line the page gives before them) run when they are installed,
  skip otherwise, and fail when they are missing under ``CI=true`` (``slow``, as a node test is);
- a benchmark script must exist and be one ``tests/test_benchmarks.py`` runs on a small input, and
  the wheelhouse download must name its destination (neither runs here at full size);
- a command for another machine (``jupyter-repo2docker`` needs Docker, ``helm`` a Kubernetes
  cluster, ``sudo`` The Littlest JupyterHub's machine: :data:`ELSEWHERE`) does not run here; every
  repository file it names must exist, and ``tests/test_binder.py`` runs the repo2docker command
  without Docker (``--no-build``);
- a command holding a placeholder such as ``<your-server-command>`` or ``<token>`` is skipped, and
  the README's ``python3 -m custody_lab.bootstrap`` commands are run from a fresh clone by
  ``tests/test_newcomer.py``; here only their verb is checked.

Every command names its program as the set-up leaves it: ``.venv/bin/custody-lab`` and
``.venv/bin/python``, never a bare ``custody-lab`` or ``python`` (the bootstrap puts nothing on PATH).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from custody_lab.delivery.exposure import DeliveryError
from custody_lab.delivery.readiness import wait_for_http

from . import fresh_env as fe
from .timing import scaled

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NODE_MODULES = ROOT / "tests" / "interop" / "node_modules"

PLACEHOLDER = re.compile(r"<[a-z][a-z0-9-]*>")
#: The programs a command may start with, as the README's set-up leaves them.
PROGRAMS = {".venv/bin/custody-lab", ".venv/bin/python", "python3", "npm", "mkdir"}
#: ``custody-lab`` subcommands that serve until stopped.
SERVERS = {"lab", "present", "serve"}
BOOTSTRAP_VERBS = {"lab", "test", "quick", "setup"}
#: Programs of commands that run on another machine than the lab's (docs/jupyterhub.md), and what they need.
ELSEWHERE = {
    "jupyter-repo2docker": "Docker",
    "helm": "a Kubernetes cluster",
    "sudo": "an admin's shell on The Littlest JupyterHub's machine",
}
URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost|\[::1\]):\d+[^\s'\")]*")


@dataclass(frozen=True)
class Command:
    """One command of a page's ```bash block: where it is and its text as bash reads it."""

    page: str
    line: int
    block: int
    text: str

    @property
    def words(self) -> list[str]:
        return shlex.split(self.text, comments=True)

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def shell_commands(text: str, page: str = "page.md") -> list[Command]:
    """The commands of every ```bash block of ``text``, continuation lines joined, comment-only lines dropped."""
    found: list[Command] = []
    lines = text.splitlines()
    inside, block = False, 0
    pending: list[str] = []
    start = 0
    for number, line in enumerate(lines, 1):
        if not inside:
            if re.fullmatch(r"```(?:bash|sh|shell)\s*", line):
                inside, block = True, block + 1
            continue
        if line.startswith("```"):
            inside = False
            continue
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            start = number
        pending.append(line.rstrip())
        if line.rstrip().endswith("\\"):
            continue
        found.append(Command(page, start, block, "\n".join(pending)))
        pending = []
    return found


def all_commands() -> list[Command]:
    return [c for p in PAGES for c in shell_commands(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix())]


def kind(command: Command) -> str:
    """How the test treats a command: elsewhere, placeholder, bootstrap, npm-setup, node, server,
    machine-check, slow or quick."""
    words = command.words
    if words and words[0] in ELSEWHERE:
        return "elsewhere"
    if PLACEHOLDER.search(" ".join(words)):
        return "placeholder"
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        words = words[1:]  # environment assignments in front of the command
    if "custody_lab.bootstrap" in words:
        return "bootstrap"
    if words[:2] == ["npm", "ci"]:
        return "npm-setup"
    if words[:2] == ["npm", "exec"] and "--cli" not in words:
        return "server"  # Inspector's web UI
    if words[0] == "npm" or "tests/interop/node_modules" in command.text:
        return "node"
    if words[0] == ".venv/bin/custody-lab" and len(words) > 1 and words[1] in SERVERS and "--help" not in words:
        return "server"
    if words[:2] == [".venv/bin/custody-lab", "check"] and "--help" not in words:
        return "machine-check"
    if words[0] == ".venv/bin/python" and (words[1:2] == ["benchmarks"] or words[1].startswith("benchmarks/")):
        return "slow"
    if words[:4] == [".venv/bin/python", "-m", "pip", "download"]:
        return "slow"
    return "quick"


def command_problems(command: Command) -> list[str]:
    """What keeps a command from running as written after the two commands (empty when nothing)."""
    words = command.words
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        words = words[1:]
    if not words:
        return ["an empty command"]
    program = words[0]
    if program in ELSEWHERE:
        return []  # not run here: test_every_command_for_another_machine_names_files_that_exist
    if program not in PROGRAMS:
        return [f"{program!r} is not on PATH after the set-up: write .venv/bin/custody-lab or .venv/bin/python"]
    if program == "python3" and words[1:3] != ["-m", "custody_lab.bootstrap"]:
        return ["python3 is the system's Python: after the set-up, run .venv/bin/python"]
    if program == "python3" and (len(words) < 4 or words[3] not in BOOTSTRAP_VERBS):
        return [f"the bootstrap has no verb {words[3:4]}: it knows {sorted(BOOTSTRAP_VERBS)}"]
    return []


COMMANDS = all_commands()


def _ids(items: list[Command]) -> list[str]:
    return [f"{c.page}:{c.line}" for c in items]


# --------------------------------------------------------------------------------------------
# Running a command as written, in a scratch copy of the repository
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A folder that looks like the repository: every top-level entry linked, ``.venv`` this environment."""
    where = tmp_path_factory.mktemp("repo")
    for entry in ROOT.iterdir():
        if entry.name not in (".git", ".venv", "out"):
            (where / entry.name).symlink_to(entry)
    venv = Path(sys.prefix)
    fe.need((venv / "bin" / "custody-lab").exists(), f"{venv}/bin/custody-lab is missing: run the README's set-up")
    (where / ".venv").symlink_to(venv)
    (where / "state").mkdir()
    return where


def _env(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)  # the scratch folder's .venv runs this checkout's package
    env["XDG_STATE_HOME"] = str(scratch / "state")  # serve's receipt log
    env["BROWSER"] = "true"  # lab: no browser window
    env["MCP_AUTO_OPEN_ENABLED"] = "false"  # Inspector's web UI: no browser window
    return env


def run_command(command: Command, scratch: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command.text],
        cwd=scratch,
        env=_env(scratch),
        capture_output=True,
        text=True,
        timeout=scaled(timeout),
        stdin=subprocess.DEVNULL,
    )


def assert_ran(command: Command, out: subprocess.CompletedProcess[str]) -> None:
    said = (
        f"{command}\nexit {out.returncode}\n--- stdout ---\n{out.stdout[-3000:]}\n--- stderr ---\n{out.stderr[-3000:]}"
    )
    assert out.returncode == 0, said
    assert "Traceback (most recent call last)" not in out.stderr, said


def start_and_stop(command: Command, scratch: Path) -> str:
    """Start a server command, wait until the first address it prints answers, stop its process group."""
    log = scratch / f"server-{command.line}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            ["bash", "-c", "exec " + command.text],
            cwd=scratch,
            env=_env(scratch),
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopping it stops kernels and children too
        )
    try:
        url = _printed_url(process, log, scaled(120))
        try:
            wait_for_http(url, timeout=scaled(120), process=process)  # type: ignore[arg-type]
        except DeliveryError as e:
            pytest.fail(f"{command}\n{e}\n{log.read_text(errors='replace')[-3000:]}")
        return url
    finally:
        _stop_group(process)


def _printed_url(process: subprocess.Popen[bytes], log: Path, timeout: float) -> str:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = URL.search(log.read_text(errors="replace"))
        if found:
            return found.group(0)
        if process.poll() is not None:
            pytest.fail(f"exited with {process.returncode} before printing an address:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    pytest.fail(f"printed no address within {timeout:.0f} s:\n{log.read_text(errors='replace')[-3000:]}")


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, scaled(30)), (signal.SIGKILL, scaled(10))):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue


def _need_node_modules() -> None:
    fe.need(NODE_MODULES.is_dir(), "the pinned npm packages are missing: run npm ci --prefix tests/interop")


# --------------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------------


def test_the_pages_give_commands_of_every_kind():
    kinds = {kind(c) for c in COMMANDS}
    assert {"quick", "server", "node", "npm-setup", "placeholder", "bootstrap", "slow"} <= kinds, kinds
    assert len([c for c in COMMANDS if c.page == "README.md"]) >= 10


def test_the_readme_is_a_front_page_that_links_each_reference_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200, f"README.md has {len(text.splitlines())} lines (at most 200)"
    for page in ("tour", "cli", "audit", "serve", "interop", "speed", "workshop", "glossary", "cheatsheet"):
        assert f"(docs/{page}.md" in text, f"README.md does not link docs/{page}.md"
    where = text.index("python3 -m custody_lab.bootstrap test")
    assert ".venv/bin/custody-lab" in text[where : where + 600], (
        "say how to reach custody-lab right under the two commands"
    )


@pytest.mark.parametrize("command", COMMANDS, ids=_ids(COMMANDS))
def test_every_command_names_its_program_as_the_set_up_leaves_it(command):
    assert not command_problems(command), f"{command}: {command_problems(command)}"


def test_every_npm_command_comes_after_the_npm_ci_line_of_its_page():
    for page in {c.page for c in COMMANDS}:
        here = [c for c in COMMANDS if c.page == page]
        setup = [c.line for c in here if kind(c) == "npm-setup"]
        for c in here:
            if kind(c) == "node" or (kind(c) == "server" and c.words[0] == "npm"):
                assert setup and min(setup) < c.line, f"{c}: say `npm ci --prefix tests/interop` before it"


BLOCKS = sorted({(c.page, c.block) for c in COMMANDS if kind(c) == "quick"})


@pytest.mark.parametrize(("page", "block"), BLOCKS, ids=[f"{p}#{b}" for p, b in BLOCKS])
def test_every_quick_command_runs_as_written(page, block, scratch):
    for command in [c for c in COMMANDS if (c.page, c.block) == (page, block) and kind(c) == "quick"]:
        assert_ran(command, run_command(command, scratch))


SERVER_COMMANDS = [c for c in COMMANDS if kind(c) == "server"]


@pytest.mark.slow
@pytest.mark.parametrize("command", SERVER_COMMANDS, ids=_ids(SERVER_COMMANDS))
def test_every_server_command_starts_answers_and_stops(command, scratch):
    if command.words[0] == "npm":
        _need_node_modules()
    url = start_and_stop(command, scratch)
    assert url.startswith("http"), url


NODE_COMMANDS = [c for c in COMMANDS if kind(c) == "node"]


@pytest.mark.slow
@pytest.mark.parametrize("command", NODE_COMMANDS, ids=_ids(NODE_COMMANDS))
def test_every_command_that_needs_the_npm_packages_runs_when_they_are_installed(command, scratch):
    _need_node_modules()
    assert_ran(command, run_command(command, scratch, timeout=300))


MACHINE_CHECKS = [c for c in COMMANDS if kind(c) == "machine-check"]


@pytest.mark.slow  # a kernel runs the start notebook, and the lab's server starts
@pytest.mark.parametrize("command", MACHINE_CHECKS, ids=_ids(MACHINE_CHECKS))
def test_every_machine_check_runs_as_written_and_finds_this_machine_ready(command, scratch):
    out = run_command(command, scratch, timeout=300)
    assert_ran(command, out)
    assert "this machine is ready for the lab" in out.stdout, out.stdout


SLOW_COMMANDS = [c for c in COMMANDS if kind(c) == "slow"]


@pytest.mark.parametrize("command", SLOW_COMMANDS, ids=_ids(SLOW_COMMANDS))
def test_every_benchmark_and_download_names_what_exists_and_what_another_test_runs(command):
    """A benchmark at full size takes minutes and measures this machine: ``tests/test_benchmarks.py``
    runs each script end to end on a small input, so here the script must exist and be one that test
    runs. The wheelhouse download fetches every wheel of the lab (hundreds of MB): its command is
    checked to be pip's ``download`` with a destination, and it is not fetched here."""
    words = command.words
    if words[:4] == [".venv/bin/python", "-m", "pip", "download"]:
        assert "-d" in words or "--dest" in words, f"{command}: say where the wheels go (-d)"
        return
    script = words[1]
    assert (ROOT / script).is_file(), f"{command}: {script} does not exist"
    runs = (ROOT / "tests" / "test_benchmarks.py").read_text(encoding="utf-8")
    assert Path(script).name in runs, f"{command}: tests/test_benchmarks.py never runs {Path(script).name}"


ELSEWHERE_COMMANDS = [c for c in COMMANDS if kind(c) == "elsewhere"]


@pytest.mark.parametrize("command", ELSEWHERE_COMMANDS, ids=_ids(ELSEWHERE_COMMANDS))
def test_every_command_for_another_machine_names_files_that_exist(command):
    """Such a command needs what this machine lacks (:data:`ELSEWHERE`): it is not run, but each
    repository file it names (``hub/config.yaml``, or ``/srv/custody_lab/hub/...`` of a clone) must
    exist, and repo2docker's command is the one ``tests/test_binder.py`` runs without Docker."""
    words = command.words
    named = [w.removeprefix("/srv/custody_lab/") for w in words if re.match(r"(/srv/custody_lab/)?(hub|binder)/", w)]
    missing = [n for n in named if not (ROOT / n).exists()]
    assert not missing, f"{command}: names {missing}, which the repository does not have"
    if words[0] == "jupyter-repo2docker":
        binder_test = (ROOT / "tests" / "test_binder.py").read_text(encoding="utf-8")
        assert "repo2docker_command_of_the_hub_page" in binder_test, (
            f"{command}: tests/test_binder.py must run this command without Docker"
        )


def test_the_hub_page_gives_commands_for_another_machine():
    kinds = {kind(c) for c in COMMANDS if c.page == "docs/jupyterhub.md"}
    assert "elsewhere" in kinds, f"docs/jupyterhub.md: expected repo2docker, helm and TLJH commands, got {kinds}"
    assert kind(Command("p.md", 1, 1, "sudo tljh-config reload hub")) == "elsewhere"
    assert kind(Command("p.md", 1, 1, "tljh-config reload hub")) != "elsewhere"


# --------------------------------------------------------------------------------------------
# The checker itself: it reads blocks as bash does and catches a broken command
# --------------------------------------------------------------------------------------------

_PAGE = """\
Some text with `custody-lab route` inline (not a shell block).

```bash
.venv/bin/custody-lab route data/cases.json --policy strict.json   # the old README's line
# a comment line
custody-lab fixture
.venv/bin/custody-lab audit --allow-calls x \\
  -- <your-server-command>
python benchmarks/bench_sweep.py
```

```python
print("not shell")
```
"""


def test_the_reader_joins_continuations_drops_comments_and_reads_only_shell_blocks():
    found = shell_commands(_PAGE)
    assert [c.line for c in found] == [4, 6, 7, 9], found
    assert found[2].text.endswith("-- <your-server-command>") and kind(found[2]) == "placeholder"


def test_the_rule_refuses_a_bare_program_and_the_systems_python():
    bare, system = shell_commands(_PAGE)[1], shell_commands(_PAGE)[3]
    assert "not on PATH" in command_problems(bare)[0], command_problems(bare)
    assert command_problems(system), command_problems(system)
    assert not command_problems(shell_commands(_PAGE)[0])


def test_a_broken_command_fails_when_it_is_run(scratch):
    broken = shell_commands(_PAGE)[0]  # --policy strict.json: the file is data/policies/strict.json
    assert kind(broken) == "quick"
    out = run_command(broken, scratch)
    with pytest.raises(AssertionError, match="strict.json"):
        assert_ran(broken, out)
