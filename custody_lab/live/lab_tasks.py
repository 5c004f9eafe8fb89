"""Deferred results: the tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663), both ends.

MCP 2026-07-28 moved tasks out of the core into this extension. A server that decides a
``tools/call`` will take long answers ``resultType: "task"`` with a task (``taskId``, ``status``,
``createdAt``, ``lastUpdatedAt``, ``ttlMs``, ``pollIntervalMs``), but only to a client that put
the extension in its per-request capabilities; the client polls ``tasks/get`` until the status is
terminal (``completed``, ``failed``, ``cancelled``), answers an ``input_required`` task's
``inputRequests`` with ``tasks/update``, and may send ``tasks/cancel``.

SDK 2.3 has the extension *framework* on both ends (``mcp.server.extension.Extension``: methods and a
``tools/call`` interceptor; ``mcp.client.extension.ClientExtension``: a claim on a ``resultType``)
but ships no tasks extension, so the lab writes both on it:

- :class:`LabTasks` (server): ``export_notes`` becomes a task for a client that declared the
  extension; ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` are served. **Simulated**: the work
  is not long. The task says ``working`` on the first ``tasks/get`` and completes on the second,
  when the tool actually runs; its ``lastUpdatedAt`` is then when the result was produced.
- :class:`TaskPoller` (client): claims ``resultType: "task"`` and polls until the task ends, so the
  SDK's ``Client.call_tool`` returns the final ``CallToolResult``; :attr:`TaskPoller.log` keeps
  what a receipt needs (the task, each poll, when the result was produced).

A deferred result's freshness is when it was **produced** (the completed task's
``lastUpdatedAt``), not when it was fetched: the receipt says both.
"""

from __future__ import annotations

__all__ = [
    "TASKS_EXTENSION",
    "TASK_TOOLS",
    "CreateTaskResult",
    "LabTasks",
    "TaskParams",
    "TaskPoller",
    "TaskState",
    "TaskUpdateParams",
    "TasksGet",
]

import itertools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import mcp.types as mt
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ..core.rules import INVALID_PARAMS

#: The extension's identifier (SEP-2663).
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: The lab's tools that become tasks for a client that declared the extension.
TASK_TOOLS: frozenset[str] = frozenset({"export_notes"})
_TERMINAL = frozenset({"completed", "failed", "cancelled"})
_TTL_MS, _POLL_MS = 60_000, 50


class TaskParams(mt.RequestParams):
    """``tasks/get`` and ``tasks/cancel`` params: the task's id."""

    task_id: str


class TaskUpdateParams(TaskParams):
    """``tasks/update`` params: responses to an ``input_required`` task's requests."""

    input_responses: dict[str, Any] | None = None


class TaskState(mt.Result):
    """A task as ``tasks/get`` answers it (SEP-2663 ``DetailedTask``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    task_id: str
    status: Literal["working", "input_required", "completed", "failed", "cancelled"]
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class CreateTaskResult(TaskState):
    """The claimed ``tools/call`` answer: ``resultType: "task"`` and the task, flat (SEP-2663)."""

    result_type: Literal["task"] = "task"


@dataclass
class _Task:
    state: dict[str, Any]
    run: Callable[[], Awaitable[Any]]
    polls: int = 0


def _declared(ctx: Any) -> bool:
    """Whether the client put the tasks extension in its capabilities (per request on 2026-07-28)."""
    caps = getattr(getattr(ctx, "session", None), "client_capabilities", None)
    extensions = getattr(caps, "extensions", None) or {}
    return TASKS_EXTENSION in extensions


def _wire(result: Any) -> dict[str, Any]:
    if isinstance(result, BaseModel):
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(result)


class LabTasks(Extension):
    """The server end: ``export_notes`` as a task; ``tasks/get``, ``tasks/update``, ``tasks/cancel``.

    Args:
        clock: returns the time written into ``createdAt`` and ``lastUpdatedAt``.
    """

    identifier = TASKS_EXTENSION

    def __init__(self, clock: Callable[[], str]) -> None:
        self._clock = clock
        self._ids = itertools.count(1)
        self.tasks: dict[str, _Task] = {}

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("tasks/get", TaskParams, self._get),
            MethodBinding("tasks/update", TaskUpdateParams, self._update),
            MethodBinding("tasks/cancel", TaskParams, self._cancel),
        )

    async def intercept_tool_call(self, params: mt.CallToolRequestParams, ctx: Any, call_next: Any) -> Any:
        if params.name not in TASK_TOOLS or not _declared(ctx):
            return await call_next(ctx)
        now = self._clock()
        task_id = f"task-{next(self._ids)}"
        state = {
            "taskId": task_id,
            "status": "working",
            "statusMessage": f"{params.name} is running",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttlMs": _TTL_MS,
            "pollIntervalMs": _POLL_MS,
        }
        self.tasks[task_id] = _Task(state, lambda: call_next(ctx))
        return {"resultType": "task", **state}

    def _task(self, task_id: str) -> _Task:
        if task_id not in self.tasks:
            raise MCPError(INVALID_PARAMS, f"no task {task_id!r}")
        return self.tasks[task_id]

    async def _get(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        task = self._task(params.task_id)
        task.polls += 1
        if task.state["status"] == "working" and task.polls >= 2:
            result = _wire(await task.run())
            result.pop("resultType", None)
            task.state.update(status="completed", statusMessage="export produced", lastUpdatedAt=self._clock())
            task.state["result"] = result
        return {"resultType": "complete", **task.state}

    async def _update(self, ctx: Any, params: TaskUpdateParams) -> dict[str, Any]:
        self._task(params.task_id)  # the lab's tasks never ask for input; known ids are acknowledged
        return {"resultType": "complete"}

    async def _cancel(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        task = self._task(params.task_id)
        if task.state["status"] not in _TERMINAL:
            task.state.update(status="cancelled", lastUpdatedAt=self._clock())
        return {"resultType": "complete"}


class TasksGet(mt.Request[TaskParams, Literal["tasks/get"]]):
    """The ``tasks/get`` request (SEP-2663), as the client sends it."""

    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams


@dataclass
class TaskPoller(ClientExtension):
    """The client end: claims ``resultType: "task"`` and polls ``tasks/get`` until the task ends.

    Attributes:
        log: one entry per task: ``{"tool", "created", "polls": [status, ...], "final"}``.
        max_polls: polls before the poller gives up (a server that never finishes).
    """

    log: list[dict[str, Any]] = field(default_factory=list)
    max_polls: int = 50
    identifier: str = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreateTaskResult, resolve=self._resolve),)

    async def _resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> mt.CallToolResult:
        entry: dict[str, Any] = {"tool": ctx.tool_name, "created": _wire(created), "polls": [], "final": None}
        self.log.append(entry)
        request = TasksGet(params=TaskParams(task_id=created.task_id))
        for _ in range(self.max_polls):
            state = await ctx.session.send_request(request, TaskState, ctx.read_timeout_seconds)
            entry["polls"].append(state.status)
            if state.status in _TERMINAL:
                entry["final"] = _wire(state)
                if state.status == "completed" and state.result is not None:
                    return mt.CallToolResult.model_validate(state.result)
                raise MCPError(INVALID_PARAMS, f"task {created.task_id} ended {state.status}")
            await anyio.sleep((state.poll_interval_ms or _POLL_MS) / 1000)
        raise MCPError(
            INVALID_PARAMS, f"task {created.task_id} still {entry['polls'][-1]} after {self.max_polls} polls"
        )
