"""MCP Inspector's CLI (software the lab did not write) drives ``custody-lab serve`` over stdio and
Streamable HTTP, and sees what the lab's own client sees: the same URIs, names, MIME types, sizes
and digests. The receipt log records every read Inspector made, with the same digests.

Inspector is pinned in ``tests/interop/package.json`` (the ``inspector_cli`` fixture of
``tests/conftest.py``: skipped off-CI when it is missing, failed under ``CI=true``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from custody_lab.core.receipts import canonical_json, digest
from custody_lab.live import LabSession, run_sync
from custody_lab.live.serve_log import read_receipt_log
from custody_lab.protocol.blobs import read_contents

from ..timing import scaled
from .serving import AUTH, serve_http

pytestmark = pytest.mark.slow

#: Generous bounds that turn a hang into a failure (a busy 2-core machine starts Python slowly).
CALL_TIMEOUT = scaled(120)
#: A read-only tool (annotations.readOnlyHint) whose result is structured content.
READ_ONLY_TOOL = "calculate_risk"


def _serve_command(log) -> list[str]:
    return [sys.executable, "-m", "custody_lab.cli", "serve", "--log", str(log)]


@pytest.fixture(params=["stdio", "http"])
def target(request, tmp_path) -> Iterator[tuple[list[str], object]]:
    """What Inspector's CLI is pointed at (a command to start, or a URL), and the receipt log."""
    log = tmp_path / "receipts.jsonl"
    if request.param == "stdio":
        yield _serve_command(log), log
        return
    with serve_http(log) as (url, _):
        bearer = f"{next(iter(AUTH))}: {AUTH['Authorization']}"
        yield [url, "--transport", "http", "--header", bearer], log


def _inspect(inspector_cli, target, *args: str) -> dict:
    cmd = [*inspector_cli, *target, *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=CALL_TIMEOUT)
    assert out.returncode == 0, f"{' '.join(args)}: Inspector exited {out.returncode}\n{out.stderr[-2000:]}"
    return json.loads(out.stdout)


def _own_view() -> dict:
    """What the lab's own recording client sees of a fresh lab server."""

    async def look() -> dict:
        async with LabSession() as s:
            rec = s.recorder
            reads = {uri: (await s.read(uri)).receipt for uri in rec.listed}
            call = (await s.call(READ_ONLY_TOOL, {})).receipt
            return {
                "resources": [(r.uri, r.name, r.mime_type) for r in rec.listed.values()],
                "templates": [(t.uri_template, t.name, t.mime_type) for t in rec.templates],
                "tools": {t.name: t.annotations.read_only_hint for t in rec.tools.values()},
                "reads": {
                    u: (r["custody"]["uri"], r["custody"]["mime"], r["custody"]["bytes"], r["contentDigest"])
                    for u, r in reads.items()
                },
                "call": call["contentDigest"],
            }

    return run_sync(look)


def test_inspector_sees_what_the_labs_own_client_sees_and_the_log_has_each_read(inspector_cli, target):
    where, log = target
    own = _own_view()
    listed = _inspect(inspector_cli, where, "--method", "resources/list")["resources"]
    got = [(r["uri"], r["name"], r.get("mimeType")) for r in listed]
    assert got == own["resources"], f"resources/list: lab client {own['resources']}, Inspector {got}"
    templates = _inspect(inspector_cli, where, "--method", "resources/templates/list")["resourceTemplates"]
    got = [(t["uriTemplate"], t["name"], t.get("mimeType")) for t in templates]
    assert got == own["templates"], f"resources/templates/list: lab client {own['templates']}, Inspector {got}"
    assert listed, "resources/list listed nothing: the comparison below would prove nothing"
    for r in listed:
        item = _inspect(inspector_cli, where, "--method", "resources/read", "--uri", r["uri"])["contents"][0]
        reading = read_contents(item)
        got = (item["uri"], item.get("mimeType"), reading.size_bytes, "sha256:" + reading.sha256)
        assert got == own["reads"][r["uri"]], (
            f"resources/read {r['uri']}: lab client {own['reads'][r['uri']]}, Inspector {got}"
        )
    tools = _inspect(inspector_cli, where, "--method", "tools/list")["tools"]
    got = {t["name"]: (t.get("annotations") or {}).get("readOnlyHint") for t in tools}
    assert got == own["tools"], f"tools/list: lab client {own['tools']}, Inspector {got}"
    assert own["tools"][READ_ONLY_TOOL] is True, own["tools"]
    result = _inspect(inspector_cli, where, "--method", "tools/call", "--tool-name", READ_ONLY_TOOL)
    got = "sha256:" + digest(canonical_json(result["structuredContent"]))
    assert got == own["call"], f"tools/call {READ_ONLY_TOOL}: lab client {own['call']}, Inspector {got}"

    logged = {
        e["target"]: e["receipt"]["contentDigest"]
        for e in read_receipt_log(log)
        if e["method"] == "resources/read" and e["receipt"]
    }
    want = {u: d for u, (_, _, _, d) in own["reads"].items()}
    assert logged == want, f"receipt log {log}: expected a receipt per read {want}, got {logged}"
    methods = {e["method"] for e in read_receipt_log(log)}
    assert {"resources/list", "resources/templates/list", "tools/list", "tools/call"} <= methods, methods
