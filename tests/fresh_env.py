"""Helpers for the tests that build a fresh environment (Binder simulation, newcomer's path).

Those tests install the lab from nothing into a new virtual environment, so they share pip's
wheel cache (``PIP_CACHE_DIR``, or pip's own default) and scrub the parent's environment
(``VIRTUAL_ENV``, ``PYTHONPATH``, ``CUSTODY_LAB_VENV``, ``JUPYTER_*``) so nothing of the warm
machine leaks in. A suite started *inside* one of them carries :data:`NESTED` and skips them, so
they can never recurse.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from .timing import scaled

#: Set in the environment of a suite that a fresh-environment test started.
NESTED = "CUSTODY_LAB_NESTED_SUITE"
_LEAKY = (
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PYTHONHOME",
    "CUSTODY_LAB_VENV",
    "PYTEST_ADDOPTS",
    "JUPYTER_CONFIG_DIR",
    "JUPYTER_DATA_DIR",
    "JUPYTER_PATH",
    "JUPYTER_RUNTIME_DIR",
    "IPYTHONDIR",
)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def skip_if_nested() -> None:
    if os.environ.get(NESTED):
        pytest.skip(f"already inside a fresh-environment test ({NESTED} is set): no recursion")


def need(condition: object, reason: str) -> None:
    """Skip with ``reason`` on a learner's machine; fail under ``CI=true``."""
    if not condition:
        if in_ci():
            pytest.fail(f"CI=true: {reason}", pytrace=False)
        pytest.skip(reason)


def shared_pip_cache() -> Path:
    """pip's wheel cache of this machine, so a fresh install downloads nothing twice."""
    configured = os.environ.get("PIP_CACHE_DIR")
    if configured:
        return Path(configured)
    out = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True)
    if out.returncode == 0 and out.stdout.strip():
        return Path(out.stdout.strip().splitlines()[-1])
    return Path.home() / ".cache" / "pip"


def child_env(path_first: Path | None = None, **extra: str) -> dict[str, str]:
    """A clean environment for a fresh install: no parent venv, the shared pip cache, marked nested."""
    env = {k: v for k, v in os.environ.items() if k not in _LEAKY}
    env["PIP_CACHE_DIR"] = str(shared_pip_cache())
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env[NESTED] = "1"
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def run(cmd: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float, what: str) -> str:
    """Run a step; on failure, fail with the command, its exit code and the tail of its output.

    ``timeout`` is a deadline against hanging, scaled by ``CUSTODY_LAB_TIMEOUT_FACTOR`` (tests/timing.py)."""
    timeout = scaled(timeout)
    try:
        out = subprocess.run(
            list(cmd),
            cwd=cwd,
            env=env,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    except subprocess.TimeoutExpired as e:
        tail = (e.stdout or b"")[-4000:] if isinstance(e.stdout, bytes) else (e.stdout or "")[-4000:]
        pytest.fail(f"{what}: timed out after {timeout:.0f} s: {' '.join(cmd)}\n{tail}", pytrace=False)
    if out.returncode != 0:
        pytest.fail(f"{what}: exit code {out.returncode}: {' '.join(cmd)}\n…{out.stdout[-6000:]}", pytrace=False)
    return out.stdout
