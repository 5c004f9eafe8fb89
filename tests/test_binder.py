"""mybinder.org: the configuration in ``binder/`` and a simulated Binder build without Docker.

repo2docker reads only ``binder/`` once that folder exists (the root ``pyproject.toml`` is then
ignored), so ``binder/postBuild`` installs the lab itself (``pip install -e .``) and the pins stay
in ``pyproject.toml``, the one source of versions. The static tests read ``binder/`` and the
README badge; the slow tests build a fresh virtual environment from what ``binder/`` says and no
more, then execute every notebook in it, and (when ``jupyter-repo2docker`` installs) check that
``repo2docker --no-build`` really picks ``binder/`` up.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
import tomllib
import urllib.parse
from pathlib import Path

import pytest

from . import fresh_env as fe

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
BINDER_FILES = {"postBuild", "runtime.txt", "start"}
#: Files repo2docker would read as a (second) list of dependencies.
DEPENDENCY_FILES = (
    "requirements.txt",
    "environment.yml",
    "environment.yaml",
    "Pipfile",
    "Pipfile.lock",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "install.R",
    "DESCRIPTION",
    "REQUIRE",
    "Project.toml",
    "Manifest.toml",
    "default.nix",
    "apt.txt",
    "Dockerfile",
)
BLAS_CAPS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
BADGE = re.compile(r"\[!\[Binder\]\(https://mybinder\.org/badge_logo\.svg\)\]\((https://mybinder\.org/v2/gh/[^)\s]+)\)")
#: repo2docker is a check-only tool here (never a dependency of the lab), pinned for the check.
REPO2DOCKER = "jupyter-repo2docker==2026.4.0"


def commands(script: Path) -> list[str]:
    """The script's command lines: no shebang, comments or blank lines."""
    lines = [line.strip() for line in script.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def runtime_version() -> str:
    text = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    match = re.fullmatch(r"python-(3\.\d+)", text)
    assert match, f"binder/runtime.txt must pin one Python as 'python-3.X'; it says {text!r}"
    return match.group(1)


# -- the configuration ----------------------------------------------------------------------------


def test_binder_holds_only_postbuild_runtime_and_start_so_no_second_pin_file_can_drift():
    present = {p.name for p in BINDER.iterdir()}
    assert present, "binder/ is empty"
    assert present == BINDER_FILES, f"binder/ holds {sorted(present)}; expected exactly {sorted(BINDER_FILES)}"
    assert not (ROOT / ".binder").exists(), ".binder/ and binder/ both exist: repo2docker refuses that"
    at_root = [name for name in DEPENDENCY_FILES if name != "pyproject.toml" and (ROOT / name).exists()]
    assert not at_root, f"second dependency files at the root (pins belong in pyproject.toml): {at_root}"


def test_postbuild_starts_with_set_e_and_installs_only_the_lab_from_pyproject():
    lines = commands(BINDER / "postBuild")
    first = (BINDER / "postBuild").read_text(encoding="utf-8").splitlines()[0]
    assert first in ("#!/bin/bash", "#!/usr/bin/env bash"), f"postBuild shebang: {first!r}"
    assert lines and lines[0] in ("set -e", "set -euo pipefail", "set -eu", "set -eo pipefail"), (
        f"postBuild's first command must be `set -e` (or `set -euo pipefail`); it is {lines[:1]}"
    )
    installs = [line for line in lines if re.search(r"\bpip\b.*\binstall\b", line)]
    assert installs == ["python -m pip install -e ."], f"postBuild's pip installs: {installs}"
    pinned = [line for line in lines if "==" in line or re.search(r"\b[\w.-]+>=\d", line)]
    assert not pinned, f"postBuild pins versions itself (they belong in pyproject.toml): {pinned}"


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[=<>!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_binder_and_bootstrap_lab_install_the_lab_alone_without_the_test_tools():
    from custody_lab import bootstrap

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lab, test = _names(project["dependencies"]), _names(project["optional-dependencies"]["test"])
    tools = {"pytest", "playwright", "mypy", "ruff", "hypothesis"}
    assert tools <= test, f"the test extra lacks {sorted(tools - test)}"
    assert not lab & (test | {n for n in lab if n.endswith("-stubs")}), f"the lab installs test tools: {lab & test}"
    assert bootstrap.LAB_EXTRAS == "" and bootstrap.TEST_EXTRAS == "test", (bootstrap.LAB_EXTRAS, bootstrap.TEST_EXTRAS)
    assert "python -m pip install -e ." in commands(BINDER / "postBuild"), "Binder must install what `lab` installs"


def test_runtime_pins_one_python_that_pyproject_accepts():
    version = runtime_version()
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    minimum = re.fullmatch(r">=\s*(3\.\d+)", requires)
    assert minimum, f"pyproject requires-python {requires!r} is not of the form '>=3.X'"
    as_tuple = lambda v: tuple(int(x) for x in v.split("."))  # noqa: E731
    assert as_tuple(version) >= as_tuple(minimum.group(1)), f"runtime.txt python-{version} < requires-python {requires}"


def test_start_caps_blas_threads_and_ends_with_exec():
    lines = commands(BINDER / "start")
    assert lines and lines[-1] == 'exec "$@"', f'binder/start must end with exec "$@"; it ends with {lines[-1:]}'
    exported = " ".join(line for line in lines if line.startswith("export "))
    missing = [name for name in BLAS_CAPS if not re.search(rf"\b{name}=1\b", exported)]
    assert not missing, f"binder/start does not export {missing}=1"


def test_binder_scripts_are_executable_and_valid_bash():
    for name in ("postBuild", "start"):
        path = BINDER / name
        assert path.stat().st_mode & stat.S_IXUSR, f"binder/{name} is not executable"
        check = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert check.returncode == 0, f"binder/{name} is not valid bash: {check.stderr}"
    tracked = subprocess.run(["git", "ls-files", "-s", "binder"], capture_output=True, text=True, cwd=ROOT).stdout
    for line in tracked.splitlines():
        mode, *_rest, path = line.split()
        if path in ("binder/postBuild", "binder/start"):
            assert mode == "100755", f"{path} is committed as {mode}, not executable (git update-index --chmod=+x)"


def test_start_really_exports_the_caps_and_hands_over_to_the_command():
    code = "import os, json; print(json.dumps({k: os.environ.get(k) for k in " + repr(BLAS_CAPS) + "}))"
    out = subprocess.run(
        [str(BINDER / "start"), sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in os.environ.items() if k not in BLAS_CAPS},
    )
    assert json.loads(out.stdout) == dict.fromkeys(BLAS_CAPS, "1"), out.stdout


def binder_badge(pyproject: str) -> str:
    """The README's Binder badge, derived from ``[project.urls] Repository`` (a GitHub address)."""
    repository = tomllib.loads(pyproject)["project"]["urls"]["Repository"]
    match = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", repository)
    assert match, (
        f"[project.urls] Repository must be https://github.com/OWNER/NAME for mybinder.org; got {repository!r}"
    )
    owner, name = match.groups()
    target = "https://mybinder.org/v2/gh/" + f"{owner}/{name}/HEAD?urlpath=lab/tree/notebooks/00-start-here.ipynb"
    return f"[![Binder](https://mybinder.org/badge_logo.svg)]({target})"


def test_the_readme_binder_badge_is_derived_from_the_repository_named_in_pyproject():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    expected = binder_badge((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert readme.splitlines()[2] == expected, (
        "README.md's Binder badge (its third line) must follow [project.urls] Repository in pyproject.toml; "
        f"make it:\n{expected}"
    )
    assert len(BADGE.findall(readme)) == 1, "README.md has more than one Binder badge"


def test_a_moved_repository_gives_another_badge_and_a_non_github_address_is_refused():
    moved = '[project]\nname = "x"\n[project.urls]\nRepository = "https://github.com/someone/lab-fork.git"\n'
    assert "mybinder.org/v2/gh/someone/lab-fork/HEAD?urlpath=" in binder_badge(moved)
    with pytest.raises(AssertionError, match="must be https://github.com/OWNER/NAME"):
        binder_badge(moved.replace("github.com", "example.org"))


def test_the_readme_binder_badge_opens_jupyterlab_on_a_file_that_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    badges = BADGE.findall(readme)
    assert badges, (
        "README.md has no Binder badge [![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/…)"
    )
    for url in badges:
        parsed = urllib.parse.urlparse(url)
        urlpath = urllib.parse.parse_qs(parsed.query).get("urlpath", [""])[0]
        assert urlpath.startswith("lab/tree/"), f"badge {url}: urlpath {urlpath!r} does not open JupyterLab on a file"
        target = urlpath.removeprefix("lab/tree/")
        assert (ROOT / target).is_file(), f"badge {url} opens {target}, which does not exist"
        assert target == "notebooks/00-start-here.ipynb", f"badge {url} opens {target}, not the start notebook"


# -- the simulated build ---------------------------------------------------------------------------


def snapshot(dest: Path) -> Path:
    """Copy what a push would publish: tracked files plus new files git does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], capture_output=True, cwd=ROOT
    )
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    if names:
        for name in names:
            source = ROOT / name
            if source.is_file():
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest / name)
    else:  # not a git checkout
        shutil.copytree(
            ROOT,
            dest,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", "test-artifacts"
            ),
        )
    assert (dest / "binder" / "postBuild").is_file(), f"the snapshot in {dest} has no binder/postBuild"
    return dest


_DRIVER = textwrap.dedent('''
    """Run inside the simulated Binder environment: execute notebooks the way Binder's kernel would."""
    import json, os, sys
    from pathlib import Path

    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    factor = float(os.environ.get("CUSTODY_LAB_TIMEOUT_FACTOR") or 1)  # tests/timing.py's factor
    report = {"python": sys.executable, "prefix": sys.prefix,
              "blas": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
              "kernel": KernelSpecManager().get_kernel_spec("python3").argv, "notebooks": {}}
    probe = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import sys, custody_lab; print(sys.prefix); print(custody_lab.__file__)")])
    NotebookClient(probe, timeout=int(120 * factor), kernel_name="python3").execute()
    report["kernel_prefix"], report["custody_lab"] = probe.cells[0].outputs[0]["text"].split()
    for name in sys.argv[1:]:
        path = Path(name).resolve()
        nb = nbformat.read(path, as_version=4)
        try:
            NotebookClient(nb, timeout=int(600 * factor), kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            errors = [f"{o.ename}: {o.evalue}" for c in nb.cells if c.cell_type == "code"
                      for o in c.outputs if o.output_type == "error"]
            report["notebooks"][path.name] = errors[0] if errors else None
        except Exception as e:  # top level of a driver script: report every notebook, then judge
            report["notebooks"][path.name] = f"{type(e).__name__}: {e}"[:2000]
    print("REPORT " + json.dumps(report))
''')


@pytest.mark.slow
def test_a_fresh_environment_built_only_from_binder_runs_every_notebook(tmp_path):
    fe.skip_if_nested()
    version = runtime_version()
    python = shutil.which(f"python{version}")
    fe.need(python, f"binder/runtime.txt asks for Python {version}; no python{version} on PATH to simulate it")
    repo = snapshot(tmp_path / "repo")
    notebooks = sorted((repo / "notebooks").glob("*.ipynb"))
    assert notebooks, "the snapshot has no notebooks to run"

    venv = tmp_path / "binder-env"
    fe.run([python, "-m", "venv", str(venv)], cwd=tmp_path, env=fe.child_env(), timeout=300, what="create the venv")
    env = fe.child_env(
        path_first=venv / "bin",
        VIRTUAL_ENV=str(venv),
        JUPYTER_DATA_DIR=str(tmp_path / "jupyter-data"),
        JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
        MPLBACKEND="Agg",
    )
    for name in ("postBuild", "start"):  # repo2docker marks them executable before running them
        (repo / "binder" / name).chmod(0o755)
    fe.run(["./binder/postBuild"], cwd=repo, env=env, timeout=1800, what="binder/postBuild")

    driver = tmp_path / "run_notebooks.py"
    driver.write_text(_DRIVER, encoding="utf-8")
    out = fe.run(
        [str(repo / "binder" / "start"), str(venv / "bin" / "python"), str(driver), *map(str, notebooks)],
        cwd=repo,
        env=env,
        timeout=3600,
        what="execute the notebooks in the Binder environment",
    )
    lines = [line for line in out.splitlines() if line.startswith("REPORT ")]
    assert lines, f"the notebook driver printed no report:\n{out[-3000:]}"
    report = json.loads(lines[-1].removeprefix("REPORT "))

    assert Path(report["kernel_prefix"]).resolve() == venv.resolve(), (
        f"the notebooks' kernel ran in {report['kernel_prefix']}, not in the Binder environment {venv}"
    )
    assert Path(report["custody_lab"]).resolve().is_relative_to(repo.resolve()), (
        f"custody_lab came from {report['custody_lab']}, not from the repository copy (pip install -e .)"
    )
    assert report["blas"] == dict.fromkeys(report["blas"], "1"), (
        f"binder/start's caps did not reach the kernel: {report['blas']}"
    )
    assert set(report["notebooks"]) == {p.name for p in notebooks}, report["notebooks"]
    failed = {name: err for name, err in report["notebooks"].items() if err}
    assert not failed, f"notebooks that failed in the Binder environment: {failed}"


@pytest.mark.slow
def test_repo2docker_without_docker_picks_up_the_binder_folder(tmp_path):
    fe.skip_if_nested()
    repo = snapshot(tmp_path / "repo")
    tools = tmp_path / "r2d"
    made = subprocess.run([sys.executable, "-m", "venv", str(tools)], capture_output=True, text=True)
    fe.need(made.returncode == 0, f"cannot create a venv for repo2docker: {made.stderr[-500:]}")
    install = subprocess.run(
        [str(tools / "bin" / "python"), "-m", "pip", "install", "-q", REPO2DOCKER],
        capture_output=True,
        text=True,
        env=fe.child_env(),
        timeout=900,
    )
    fe.need(
        install.returncode == 0,
        f"{REPO2DOCKER} does not install here (offline?): {install.stdout[-400:]}{install.stderr[-800:]}",
    )
    dry = subprocess.run(
        [str(tools / "bin" / "repo2docker"), "--no-build", "--no-run", "--debug", str(repo)],
        capture_output=True,
        text=True,
        env=fe.child_env(),
        timeout=300,
    )
    # a broken binder/ makes repo2docker fail: under CI that is a failure, never a skip
    fe.need(dry.returncode == 0, f"repo2docker --no-build failed: {dry.stdout[-400:]}{dry.stderr[-800:]}")
    dockerfile = dry.stdout + dry.stderr
    version = runtime_version()
    expected = [
        f"python={version}",  # runtime.txt
        "RUN ./binder/postBuild",  # postBuild
        'R2D_ENTRYPOINT="${REPO_DIR}/binder/start"',  # start
    ]
    missing = [e for e in expected if e not in dockerfile]
    assert not missing, f"repo2docker's Dockerfile lacks {missing}:\n{dockerfile[-3000:]}"
    assert "requirements.txt" not in dockerfile and "environment.yml" not in dockerfile, (
        "repo2docker found a second dependency file"
    )
    # the hub's image (docs/jupyterhub.md): the same binder/, the lab kept out of the learners' homes
    hub = subprocess.run(
        [str(tools / "bin" / "repo2docker"), "--no-build", "--debug", *repo2docker_command_of_the_hub_page(repo)],
        capture_output=True,
        text=True,
        env=fe.child_env(),
        timeout=300,
    )
    # repo2docker ran above, so a failure here is the page's command: a failure everywhere, never a skip
    assert hub.returncode == 0, f"the hub page's repo2docker command failed: {hub.stdout[-400:]}{hub.stderr[-800:]}"
    planned = hub.stdout + hub.stderr  # its flags parsed; --target-repo-dir is the REPO_DIR build argument
    for expected in ("RUN ./binder/postBuild", "ARG REPO_DIR="):
        assert expected in planned, f"the hub image's Dockerfile lacks {expected!r}:\n{planned[-3000:]}"


def repo2docker_command_of_the_hub_page(repo: Path) -> list[str]:
    """docs/jupyterhub.md's ``jupyter-repo2docker`` arguments, to run here without Docker: no push,
    a local image name for its placeholder, ``repo`` for the repository's folder (``.``)."""
    text = (ROOT / "docs" / "jupyterhub.md").read_text(encoding="utf-8")
    found = re.findall(r"^jupyter-repo2docker (.+)$", text, re.M)
    assert len(found) == 1, f"docs/jupyterhub.md: expected one jupyter-repo2docker command, found {found}"
    args = found[0].split()
    assert args[-1] == "." and "--no-run" in args and "--push" in args, f"build here, then push: {args}"
    name = args.index("--image-name") + 1
    args[name] = "custody-lab-hub-check"
    return [a for a in args[:-1] if a != "--push"] + [str(repo)]


def test_the_hub_pages_repo2docker_command_is_read_as_written(tmp_path):
    args = repo2docker_command_of_the_hub_page(tmp_path)
    assert args[args.index("--target-repo-dir") + 1] == "/srv/custody_lab", args
    assert args[args.index("--user-name") + 1] == "jovyan" and args[-1] == str(tmp_path), args
