"""An old Python gets one line that says what to install, never a traceback (issue 38 §1).

``python3 -m custody_lab.bootstrap lab`` on Python 3.10 or 3.9 used to import the package before
checking the version and die with ``re.error`` or a dataclass ``TypeError``. These tests run the
README's command under a simulated older Python (a ``sitecustomize`` that sets ``sys.version_info``
before anything else runs) and, when one is on the machine, under a real one.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from custody_lab import python_check

ROOT = Path(__file__).resolve().parent.parent

_SIMULATE = """\
import collections, sys
_V = collections.namedtuple("version_info", "major minor micro releaselevel serial")
sys.version_info = _V({major}, {minor}, {micro}, "final", 0)
"""


def _run_as(version: tuple[int, int, int], tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m …`` from the repository with ``sys.version_info`` set to ``version`` at start-up."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    major, minor, micro = version
    (site / "sitecustomize.py").write_text(_SIMULATE.format(major=major, minor=minor, micro=micro))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    env["CUSTODY_LAB_VENV"] = str(tmp_path / "venv")  # were the check passed, the bootstrap would build here
    env["PIP_NO_INDEX"] = "1"  # ... and its install would fail at once instead of downloading
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, check=False
    )


@pytest.mark.parametrize("version", [(3, 10, 12), (3, 9, 6), (3, 8, 10)])
def test_the_bootstrap_under_an_older_python_prints_one_line_naming_what_is_needed_and_exits_2(tmp_path, version):
    out = _run_as(version, tmp_path, "-m", "custody_lab.bootstrap", "lab")
    found = ".".join(map(str, version))
    lines = out.stderr.splitlines()
    assert out.returncode == 2, f"exit {out.returncode}; stderr:\n{out.stderr}"
    assert len(lines) == 1 and "Traceback" not in out.stderr, f"expected one line, got:\n{out.stderr}"
    line = lines[0]
    for must in ("Python 3.11 or newer", f"this is Python {found}", "python.org/downloads", "-m custody_lab.bootstrap"):
        assert must in line, f"{must!r} not in {line!r}"
    assert out.stdout == "", f"nothing goes to stdout before the check: {out.stdout!r}"
    assert not (tmp_path / "venv").exists(), "the bootstrap went on to build an environment"


def test_the_check_passes_this_python_by_and_the_bootstrap_runs(tmp_path):
    this = (sys.version_info.major, sys.version_info.minor, sys.version_info.micro)
    out = _run_as(this, tmp_path, "-m", "custody_lab.bootstrap", "no-such-verb")
    assert out.returncode == 2 and "Set the lab up and run it" in out.stdout, out.stdout + out.stderr
    assert "needs Python" not in out.stderr, out.stderr


def test_importing_the_package_under_an_older_python_raises_import_error_with_the_same_line(tmp_path):
    out = _run_as((3, 10, 12), tmp_path, "-c", "import custody_lab")
    last = out.stderr.strip().splitlines()[-1]
    assert out.returncode == 1 and last.startswith("ImportError: custody_lab needs Python 3.11 or newer"), out.stderr
    assert "re.error" not in out.stderr and "dataclass" not in out.stderr, out.stderr


def test_the_line_says_what_is_needed_what_this_is_and_how_to_get_it():
    line = python_check.message((3, 9, 6), "/usr/bin/python3")
    assert "\n" not in line
    assert line.startswith("custody_lab needs Python 3.11 or newer; this is Python 3.9.6 (/usr/bin/python3).")
    assert "https://www.python.org/downloads/" in line and "python3.12 -m custody_lab.bootstrap lab" in line


def test_the_needed_version_is_the_one_pyproject_requires():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'requires-python = ">={python_check.NEEDED[0]}.{python_check.NEEDED[1]}"' in text


@pytest.mark.parametrize("path", ["custody_lab/__init__.py", "custody_lab/python_check.py"])
def test_what_runs_before_the_check_parses_on_every_python_3(path):
    """No syntax newer than 3.7 (the oldest ``ast`` checks), no f-string, no ``__future__`` import."""
    source = (ROOT / path).read_text(encoding="utf-8")
    tree = ast.parse(source, feature_version=(3, 7))
    late = [
        f"line {node.lineno}: {type(node).__name__}"
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.ImportFrom) and node.module == "__future__")
    ]
    assert not late, f"{path} uses syntax an old Python 3 cannot parse: {late}"


def test_the_package_imports_the_check_before_anything_else_of_its_own():
    tree = ast.parse((ROOT / "custody_lab" / "__init__.py").read_text(encoding="utf-8"))
    own = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.level > 0]
    assert own, "custody_lab/__init__.py imports nothing of its own"
    first = own[0]
    assert first.module is None and [a.name for a in first.names] == ["python_check"], ast.dump(first)


def _real_python(minor: int) -> str | None:
    """A working ``python3.<minor>`` on PATH or under pyenv's versions folder, or None."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(f"python3.{minor}"), *sorted(map(str, pyenv.glob(f"3.{minor}.*/bin/python3")))]
    for exe in filter(None, candidates):
        try:
            out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[1])"], capture_output=True, text=True)
        except OSError:
            continue
        if out.returncode == 0 and out.stdout.strip() == str(minor):  # a pyenv shim without it answers 127
            return exe
    return None


@pytest.mark.parametrize("minor", [10, 9, 8, 7, 6])
def test_a_real_older_python_gets_the_line_too(minor):
    exe = _real_python(minor)
    if exe is None:
        pytest.skip(f"no working python3.{minor} on this machine (the simulated versions above stand in for it)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [exe, "-m", "custody_lab.bootstrap", "lab"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1, out.stderr
    assert f"needs Python 3.11 or newer; this is Python 3.{minor}." in out.stderr, out.stderr
    assert out.stdout == "", out.stdout
