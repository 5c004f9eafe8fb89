"""``custody-lab audit`` against MCP servers nobody here wrote, checked against MCP Inspector's CLI.

Four servers, each pinned in ``tests/interop`` (the fixtures of ``tests/conftest.py``: skipped off CI
when an install is missing, failed under ``CI=true``): the reference server ``server-everything``,
``server-filesystem`` (serving a temporary directory of files of known bytes: UTF-8 text, a PNG, a
JSON file) and ``server-memory`` (a knowledge graph seeded from a temporary file) from npm, and
``mcp-server-time`` from PyPI, in its own virtual environment.

For each server the audit runs once as a subprocess (``--json``), and Inspector's CLI, a client the
lab did not write, makes the same requests one by one. The two must agree on what came over the
wire: the tool listing, each resource read's URI, MIME type and byte count, and for each tool
result every content block's type, URI, MIME type, bytes and sha256. Only tools that read are
called (named with ``--allow-calls``); a tool's annotations are the server's hints, so no tool of
these servers has side effects known to the lab, whatever its ``readOnlyHint`` says.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from custody_lab.live.audit_report import EXIT_OK
from custody_lab.protocol.blobs import read_contents

from ..timing import scaled

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: Guards against a hang only: an audit takes about 2 s here, an Inspector request under 1 s.
BOUND_S = scaled(120)
DATA = ROOT / "data" / "resources"

#: The files server-filesystem serves: non-ASCII text (bytes are not characters), a PNG, JSON.
FILES = {
    "notes.txt": "Grüße from the custody lab — 3 receipts\n".encode(),
    "pixel.png": (DATA / "logo.png").read_bytes(),
    "data.json": b'{"case": "handbook", "bytes": 1616}\n',
}
#: The graph server-memory starts from (its JSON-lines file format).
GRAPH = [
    {"type": "entity", "name": "custody-lab", "entityType": "project", "observations": ["keeps a receipt per read"]},
    {"type": "entity", "name": "receipt", "entityType": "concept", "observations": ["uri, mime, bytes, digest"]},
    {"type": "relation", "from": "custody-lab", "to": "receipt", "relationType": "issues"},
]


@dataclass(frozen=True)
class Call:
    """One tool the audit is allowed to call, with its arguments.

    ``varies`` holds the indexes of blocks whose content changes from one call to the next (a
    timestamp in the text): for those only the type, URI and MIME type are compared.
    """

    tool: str
    args: dict = field(default_factory=dict)
    varies: frozenset[int] = frozenset()

    def flag(self) -> str:
        return f"{self.tool}={json.dumps(self.args)}"


@dataclass(frozen=True)
class Target:
    name: str
    command: list[str]
    calls: tuple[Call, ...]
    #: The server declares resources (server-everything and server-memory do), and templates.
    resources: bool = False
    templates: bool = False
    #: Tools that change state: never called, and never reported with side effects known.
    writers: tuple[str, ...] = ()
    #: Tools the server lists only to a client that declares a capability Inspector declares and the
    #: audit does not (the audit's client offers no roots and no sampling).
    inspector_only: tuple[str, ...] = ()
    #: Tools the server lists only to a client that declares a capability the audit declares and
    #: Inspector's CLI does not: elicitation, form and URL mode (the audit answers none of them for
    #: the user, custody_lab/live/audit_flows.py).
    audit_only: tuple[str, ...] = ()


def _targets(name: str, request, tmp: Path) -> Target:
    if name == "everything":
        return Target(
            name,
            request.getfixturevalue("reference_server"),
            (
                Call("get-tiny-image"),
                # its embedded resource's text says when it was made
                Call("get-resource-reference", {"resourceType": "Text", "resourceId": 1}, frozenset({1})),
            ),
            resources=True,
            templates=True,
            writers=("toggle-simulated-logging", "toggle-subscriber-updates"),
            # server-everything registers get-roots-list only "if the client supports roots"
            inspector_only=("get-roots-list",),
            # ... and trigger-elicitation-request / trigger-url-elicitation only if it supports
            # elicitation (form mode; URL mode for the second)
            audit_only=("trigger-elicitation-request", "trigger-url-elicitation"),
        )
    if name == "filesystem":
        root = tmp / "served"
        root.mkdir()
        for file, data in FILES.items():
            (root / file).write_bytes(data)
        return Target(
            name,
            [*request.getfixturevalue("filesystem_server"), str(root)],
            (
                Call("read_text_file", {"path": str(root / "notes.txt")}),
                Call("read_media_file", {"path": str(root / "pixel.png")}),
                Call("read_multiple_files", {"paths": [str(root / "data.json"), str(root / "notes.txt")]}),
                Call("list_directory", {"path": str(root)}),
            ),
            writers=("write_file", "edit_file", "create_directory", "move_file"),
        )
    if name == "memory":
        graph = tmp / "graph.jsonl"
        graph.write_text("\n".join(json.dumps(item) for item in GRAPH), encoding="utf-8")
        env = shutil.which("env")
        assert env, "the memory server is started as `env MEMORY_FILE_PATH=... node ...`; no env on PATH"
        return Target(
            name,
            [env, f"MEMORY_FILE_PATH={graph}", *request.getfixturevalue("memory_server")],
            (
                Call("read_graph"),
                Call("search_nodes", {"query": "receipt"}),
                Call("open_nodes", {"names": ["receipt"]}),
            ),
            resources=True,
            writers=("create_entities", "create_relations", "add_observations", "delete_entities"),
        )
    assert name == "time", name
    return Target(
        name,
        [*request.getfixturevalue("time_server"), "--local-timezone", "UTC"],
        (
            Call("get_current_time", {"timezone": "UTC"}, frozenset({0})),  # now, to the second
            Call("convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
        ),
    )


def _audit(target: Target, *flags: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "custody_lab.cli", "audit", *flags, "--timeout", "10"]
    for call in target.calls:
        cmd += ["--allow-calls", call.flag()]
    return subprocess.run([*cmd, "--", *target.command], capture_output=True, text=True, cwd=ROOT, timeout=BOUND_S)


def _inspect(inspector_cli: list[str], target: Target, *args: str) -> dict:
    cmd = [*inspector_cli, *target.command, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=BOUND_S)
    assert done.returncode == 0, f"{target.name}: Inspector {' '.join(args)} exited {done.returncode}\n{done.stderr}"
    return json.loads(done.stdout)


@dataclass
class Run:
    target: Target
    report: dict
    audit: subprocess.CompletedProcess
    text: subprocess.CompletedProcess
    tools: list[dict]
    listed: dict[str, list[str]]
    reads: dict[str, dict]
    results: dict[str, dict]
    before: dict[str, bytes]
    after: dict[str, bytes]


def _snapshot(tmp: Path) -> dict[str, bytes]:
    return {str(p.relative_to(tmp)): p.read_bytes() for p in sorted(tmp.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module", params=["everything", "filesystem", "memory", "time"])
def run(request, inspector_cli, tmp_path_factory) -> Run:
    """One server: the audit's JSON report, and what Inspector saw of the same requests."""
    tmp = tmp_path_factory.mktemp(request.param)
    target = _targets(request.param, request, tmp)
    before = _snapshot(tmp)
    audit = _audit(target, "--json")
    assert audit.stdout.startswith("{"), (
        f"{target.name}: no JSON report; stdout {audit.stdout[:300]!r}, {audit.stderr!r}"
    )
    report = json.loads(audit.stdout)
    text = _audit(target)
    tools = _inspect(inspector_cli, target, "--method", "tools/list")["tools"]
    listed: dict[str, list[str]] = {}
    if target.resources:
        listed["resource"] = [
            r["uri"] for r in _inspect(inspector_cli, target, "--method", "resources/list")["resources"]
        ]
    if target.templates:
        found = _inspect(inspector_cli, target, "--method", "resources/templates/list")["resourceTemplates"]
        listed["template"] = [t["uriTemplate"] for t in found]
    reads: dict[str, dict] = {}
    if target.resources:
        for cap in report["capabilities"]:
            if cap["kind"] in ("resource", "template") and cap["exercised"]:
                uri = cap["details"]["custody"]["uri"]
                reads[uri] = _inspect(inspector_cli, target, "--method", "resources/read", "--uri", uri)
    results = {
        call.tool: _inspect(
            inspector_cli,
            target,
            "--method",
            "tools/call",
            "--tool-name",
            call.tool,
            "--tool-args-json",
            json.dumps(call.args),
        )
        for call in target.calls
    }
    return Run(target, report, audit, text, tools, listed, reads, results, before, _snapshot(tmp))


def _caps(report: dict, kind: str) -> dict[str, dict]:
    return {c["name"]: c for c in report["capabilities"] if c["kind"] == kind}


def _wire_block(block: dict) -> dict:
    """What one content block of Inspector's ``tools/call`` output carried: type, URI, MIME, bytes, sha256."""
    kind = block["type"]
    if kind == "text":
        data = block["text"].encode("utf-8")
    elif kind in ("image", "audio"):
        data = base64.b64decode(block["data"])
    elif kind == "resource":
        reading = read_contents(block["resource"])
        return {
            "type": kind,
            "uri": block["resource"]["uri"],
            "mimeType": block["resource"].get("mimeType"),
            "bytes": reading.size_bytes,
            "digest": "sha256:" + reading.sha256,
        }
    else:
        return {"type": kind, "uri": block.get("uri"), "mimeType": block.get("mimeType")}
    wire = {"type": kind, "bytes": len(data), "digest": "sha256:" + hashlib.sha256(data).hexdigest()}
    if "mimeType" in block:
        wire["mimeType"] = block["mimeType"]
    return wire


def _audit_block(block: dict, keys) -> dict:
    return {k: block.get(k) for k in keys}


def test_each_audit_finishes_with_exit_0_no_traceback_and_every_named_call_made(run):
    report, done = run.report, run.audit
    got = (done.returncode, report["incomplete"], "Traceback" in done.stderr)
    assert got == (EXIT_OK, [], False), f"{run.target.name}: exit, incomplete, traceback = {got}\n{done.stderr}"
    called = sorted(n for n, c in _caps(report, "tool").items() if c["exercised"])
    assert called == sorted(c.tool for c in run.target.calls), f"{run.target.name}: called {called}"


def test_each_text_report_finishes_with_exit_0_no_traceback_and_names_every_tool_it_called(run):
    done = run.text
    got = (done.returncode, "Traceback" in done.stdout + done.stderr)
    assert got == (EXIT_OK, False), f"{run.target.name}: text audit exit, traceback = {got}\n{done.stderr}"
    missing = [c.tool for c in run.target.calls if c.tool not in done.stdout]
    assert done.stdout and not missing, f"{run.target.name}: the text report does not name {missing}"


def test_the_audit_lists_the_tools_inspector_lists_in_the_same_order(run):
    audited = [c["name"] for c in run.report["capabilities"] if c["kind"] == "tool"]
    listed = [t["name"] for t in run.tools]
    only, extra = run.target.inspector_only, run.target.audit_only
    assert set(only) <= set(listed), f"{run.target.name}: Inspector was expected to see {only}, saw {listed}"
    assert set(extra) <= set(audited), f"{run.target.name}: the audit was expected to see {extra}, saw {audited}"
    listed = [n for n in listed if n not in only]
    audited = [n for n in audited if n not in extra]
    assert listed and audited == listed, (
        f"{run.target.name}: audit {audited} (less {extra}), Inspector {listed} (less {only})"
    )


def test_every_resource_read_has_inspectors_uri_mime_and_bytes(run):
    for kind in ("resource", "template"):
        audited = list(_caps(run.report, kind))
        assert audited == run.listed.get(kind, []), (
            f"{run.target.name} {kind}s: audit {audited}, Inspector {run.listed}"
        )
    if not run.target.resources:
        return
    caps = [c for c in run.report["capabilities"] if c["kind"] in ("resource", "template")]
    assert caps and len(run.reads) == len(caps), f"{run.target.name}: read {sorted(run.reads)} of {len(caps)}"
    for cap in caps:
        custody = cap["details"]["custody"]
        item = run.reads[custody["uri"]]["contents"][0]
        want = (item["uri"], item.get("mimeType"))
        assert (custody["uri"], custody["mime"]) == want, f"{cap['name']}: audit {custody}, Inspector {want}"
        if cap["kind"] == "resource":  # server-everything's templates say when they were made, to the second
            size = read_contents(item).size_bytes
            assert custody["bytes"] == size, f"{cap['name']}: audit {custody['bytes']} bytes, Inspector {size}"


def test_every_content_block_of_every_call_matches_inspectors_bytes_mime_and_digest(run):
    tools = _caps(run.report, "tool")
    for call in run.target.calls:
        got = tools[call.tool]["details"]["blocks"]
        wire = [_wire_block(b) for b in run.results[call.tool]["content"]]
        assert [b["index"] for b in got] == list(range(len(wire))), f"{call.tool}: blocks {got}, Inspector {wire}"
        for i, (mine, theirs) in enumerate(zip(got, wire, strict=True)):
            keys = ("type", "uri", "mimeType") if i in call.varies else theirs.keys()
            assert _audit_block(mine, keys) == {k: theirs.get(k) for k in keys}, (
                f"{run.target.name} {call.tool} block {i}: audit {mine}, Inspector {theirs}"
            )


def test_no_tool_of_a_server_has_side_effects_known_and_no_writer_was_called(run):
    tools = _caps(run.report, "tool")
    for name, cap in tools.items():
        declared = cap["details"]["declared"]["sideEffects"]
        stated = next(f for f in cap["fields"] if f["field"] == "sideEffects")
        assert (declared, stated["supplied"]) == (None, False), f"{name}: sideEffects {declared}, field {stated}"
    hinted = {t["name"]: (t.get("annotations") or {}).get("readOnlyHint") for t in run.tools}
    for name in run.target.writers:
        assert hinted[name] is not True, f"{name} is a writer and says readOnlyHint {hinted[name]}"
        assert not tools[name]["exercised"] and tools[name]["outcome"] is None, (name, tools[name]["why"])


@pytest.mark.parametrize("run", ["filesystem", "memory"], indirect=True)
def test_reading_left_every_served_file_as_it_was(run):
    assert run.before, f"{run.target.name}: nothing to compare"
    assert run.after == run.before, f"{run.target.name}: files changed: {sorted(set(run.after) ^ set(run.before))}"


@pytest.mark.parametrize("run", ["filesystem"], indirect=True)
def test_the_filesystem_audit_reports_the_bytes_the_files_hold(run):
    """Against the files themselves, so the audit and Inspector cannot agree on a wrong count."""
    tools = _caps(run.report, "tool")
    for tool, file in (("read_text_file", "notes.txt"), ("read_media_file", "pixel.png")):
        block = tools[tool]["details"]["blocks"][0]
        data = FILES[file]
        want = (len(data), "sha256:" + hashlib.sha256(data).hexdigest())
        assert (block["bytes"], block["digest"]) == want, f"{tool} {file}: audit {block}, the file {want}"
    image = tools["read_media_file"]["details"]["blocks"][0]
    assert (image["mimeType"], image["sniffed"]) == ("image/png", "image/png"), image


@pytest.mark.parametrize(("ci", "outcome"), [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_a_missing_time_server_environment_skips_off_ci_and_fails_under_ci(monkeypatch, tmp_path, ci, outcome):
    from tests import conftest

    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome) as raised:
        conftest.find_time_server(tmp_path / ".venv-time")
    assert "python3 -m custody_lab.bootstrap test" in str(raised.value), str(raised.value)


def test_a_time_server_environment_of_another_version_is_refused_under_ci(monkeypatch, tmp_path):
    from tests import conftest

    venv = tmp_path / ".venv-time"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "mcp-server-time").write_text("", encoding="utf-8")
    (venv / "lib" / "python3.11" / "site-packages" / "mcp_server_time-2025.1.1.dist-info").mkdir(parents=True)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception) as raised:
        conftest.find_time_server(venv)
    assert "mcp_server_time-2025.1.1.dist-info" in str(raised.value), str(raised.value)
