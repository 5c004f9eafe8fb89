"""Where a notebook writes its files: ``notebooks/out/`` in JupyterLab, a page's own temporary folder
when presented (:func:`custody_lab.work_folder`, issue 27 §3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import custody_lab as cl
from custody_lab.core.paths import PRESENTED_ENV, REPO_ROOT

#: A kernel's life in one process: two calls, a file written, the folder printed, then exit.
_KERNEL = """
import custody_lab as cl
first, second = cl.work_folder(), cl.work_folder("capstone")
(second / "notes_server.py").write_text("print('hi')")
print(first, second, sep="\\n")
"""


def _run_kernel(cwd: Path, presented: str | None) -> list[Path]:
    env = {k: v for k, v in os.environ.items() if k != PRESENTED_ENV}
    if presented is not None:
        env[PRESENTED_ENV] = presented
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run([sys.executable, "-c", _KERNEL], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [Path(line) for line in done.stdout.splitlines()]


def test_outside_a_presented_page_the_work_folder_is_out_in_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv(PRESENTED_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert cl.work_folder() == Path("out") and (tmp_path / "out").is_dir()
    assert cl.work_folder("capstone") == Path("out", "capstone") and (tmp_path / "out" / "capstone").is_dir()


def test_the_files_written_outside_a_presented_page_stay_beside_the_notebook(tmp_path):
    for presented in (None, ""):  # unset, or set empty: not a presented page
        first, second = _run_kernel(tmp_path, presented)
        assert (first, second) == (Path("out"), Path("out", "capstone"))
        assert (tmp_path / "out" / "capstone" / "notes_server.py").read_text() == "print('hi')"


def test_a_presented_page_writes_into_its_own_temporary_folder_removed_when_its_kernel_exits(tmp_path):
    first, second = _run_kernel(tmp_path, "1")
    assert not (tmp_path / "out").exists(), "a presented page wrote into its working directory"
    assert first.is_absolute() and first.name.startswith("custody-lab-page-"), first
    assert second == first / "capstone", "one kernel, one folder: every call of a page shares it"
    assert REPO_ROOT not in first.parents and tmp_path not in first.parents, first
    assert not first.exists(), f"{first} is left behind after the kernel exited"
    other, _ = _run_kernel(tmp_path, "1")
    assert other != first, "two pages shared a folder"
