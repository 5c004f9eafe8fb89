"""A JSON Schema check that a deadline can stop: the audit's every ``outputSchema`` check runs here.

Checking an instance against a schema can take exponential time: an ``outputSchema`` whose every
``$defs`` entry is ``allOf`` of the next one twice is a few kilobytes on the wire and 2**60 steps
to check. Inside the event loop nothing can interrupt such a check (the audit's ``--timeout`` is
a cancellation, and cancellation waits for the next ``await``), and a thread cannot be stopped
either. So :func:`check_in_worker` runs ``jsonschema`` in a process of its own
(:mod:`custody_lab.live._schema_worker`, started with ``python -I``), gives it the exchange's
deadline, and kills it when the deadline passes; the verdict then says the check was stopped and
why. The worker may use :data:`WORKER_MEMORY_BYTES` of address space (POSIX ``RLIMIT_AS``) and
fetches nothing: a ``$ref`` resolves within the schema or is reported unresolvable.

The SDK checks ``structuredContent`` against the listed ``outputSchema`` itself, in the event loop
(mcp 2.3: ``ClientSession.call_tool`` awaits ``validate_tool_result``, which runs ``jsonschema``
with no bound), and offers no switch to turn that off; the audit replaces that method on its own
session (:func:`skip_sdk_result_check`) so this is the only check. At ``tools/list`` time the SDK
compiles no schema: it walks each ``inputSchema`` once for ``x-mcp-header`` annotations (2026-07-28
connections) and compares output schemas by their JSON text, work linear in the listing's size,
which the transport guards already cap (16 MiB a message, 200 levels deep).
"""

from __future__ import annotations

__all__ = ["WORKER_MEMORY_BYTES", "WORKER_OUTPUT_BYTES", "check_in_worker", "skip_sdk_result_check"]

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from ._schema_worker import MEMORY_BYTES

#: Address space the checking process may use (POSIX ``RLIMIT_AS``) before its check is stopped.
WORKER_MEMORY_BYTES = MEMORY_BYTES
#: The most of the worker's answer read back (a verdict is a few hundred bytes; the rest is cut).
WORKER_OUTPUT_BYTES = 64 * 1024

_WORKER = Path(__file__).with_name("_schema_worker.py")


async def check_in_worker(
    schema: Any, instance: Any, timeout: float, *, start_timeout: float | None = None
) -> dict[str, Any]:
    """Check ``instance`` against ``schema`` in a worker process killed after ``timeout`` seconds.

    The worker first has ``start_timeout`` seconds (``timeout`` by default) to start and load
    ``jsonschema``; the check's own ``timeout`` runs from then, so a slow start on a loaded
    machine is not mistaken for a slow check. The caller clamps both to what its own bound allows.

    Returns the worker's verdict (``dialect`` and one of ``valid`` with ``error`` and ``path``,
    ``schemaError``, ``unresolvable``), or ``{"stopped": sentence}`` when the check was cut: the
    deadline passed, the worker ran out of memory or recursion depth, or it could not run.
    """
    job = json.dumps({"schema": schema, "instance": instance}).encode("utf-8")
    command = [sys.executable, "-I", str(_WORKER)]
    output = bytearray()
    ready = False
    try:
        process = await anyio.open_process(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError as e:
        return {"stopped": f"the checking process could not start ({e.strerror or e})"}
    try:
        assert process.stdin is not None and process.stdout is not None
        with anyio.move_on_after(timeout if start_timeout is None else start_timeout):
            async for chunk in process.stdout:
                output += chunk[: max(0, WORKER_OUTPUT_BYTES - len(output))]
                if b"\n" in output:
                    break
        head, _, rest = bytes(output).partition(b"\n")
        ready = head == b"ready"
        output = bytearray(rest)
        if ready:
            with anyio.move_on_after(timeout) as scope:
                await process.stdin.send(job)
                await process.stdin.aclose()
                async for chunk in process.stdout:
                    output += chunk[: max(0, WORKER_OUTPUT_BYTES - len(output))]
                await process.wait()
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # the worker died; its (lack of) output says so below
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            await process.aclose()
    if not ready:
        waited = timeout if start_timeout is None else start_timeout
        return {"stopped": f"the checking process did not start within {waited:g} s"}
    if scope.cancelled_caught:
        return {"stopped": f"over {timeout:g} s (the exchange's --timeout); the checking process was killed"}
    try:
        verdict = json.loads(output)
    except ValueError:
        return {"stopped": f"the checking process ended without a verdict (exit code {process.returncode})"}
    if not isinstance(verdict, dict):
        return {"stopped": "the checking process gave no verdict"}
    if verdict.get("memory"):
        return {"stopped": f"over {WORKER_MEMORY_BYTES // (1024 * 1024)} MiB of memory; the check was abandoned"}
    if verdict.get("recursion"):
        return {"stopped": "the schema nests references deeper than the checker's recursion limit"}
    return verdict


def skip_sdk_result_check(client: Any) -> None:
    """Make ``client`` (an entered ``mcp.Client``) stop checking tool results against ``outputSchema``.

    The SDK runs that check inside the event loop with no bound (mcp 2.3: ``call_tool`` awaits
    ``ClientSession.validate_tool_result``), offers no switch, and raises on a result that does not
    conform, so a hostile schema could hang the audit and a broken result would end it; the audit
    checks the result itself, in :func:`check_in_worker`.
    """

    async def _not_here(name: str, result: Any) -> None:
        return None

    setattr(client.session, "validate_tool_result", _not_here)  # noqa: B010 - an instance attribute, on purpose
