"""The flows of notebook 09 on the wire (``record_flows``), their receipts' blocks, and the tasks extension."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from custody_lab.live.flow_receipts import retry_block
from custody_lab.live.flow_wire import FLOWS, record_flows
from custody_lab.live.lab_server import LabServer
from custody_lab.live.lab_tasks import TaskParams, TaskPoller, TasksGet, TaskState


@pytest.fixture(scope="module")
def flows():
    return anyio.run(record_flows)


def test_every_flow_is_recorded_with_the_outcome_its_facts_decide(flows):
    got = {f.name: f.receipt.outcome for f in flows}
    assert list(got) == list(FLOWS), got
    assert got["delete-declined"] == "consent-not-given" and got["secret-form"] == "secret-asked-in-form", got
    assert all(got[n] not in ("consent-not-given", "secret-asked-in-form") for n in ("read-asks", "delete-accepted"))


def test_a_two_step_exchange_shows_both_requests_and_the_person_between_them(flows):
    wire = flows["delete-accepted"]
    methods = [f.message.get("method") for f in wire.frames if "method" in f.message]
    assert methods == ["tools/call", "tools/call"], methods
    text = wire.text()
    assert "input_required: confirm_delete" in text and "Dana Ruiz → accept" in text, text
    assert text.index("Dana Ruiz → accept") < text.index("+ inputResponses, requestState"), text


def test_the_task_flow_polls_until_completed(flows):
    text = flows["task"].text()
    assert text.count("tasks/get task-1") == 2 and "task task-1: completed" in text, text


def test_what_the_server_wrote_is_escaped_in_html_and_made_visible_in_the_terminal(flows):
    page = flows["app-page"]
    html, terminal = page.html(), page.terminal()
    assert "<button" not in html and "&lt;button" in html, "the ui:// page is text in the frames box"
    assert "\x1b" not in terminal


def test_a_retry_block_keeps_the_action_and_field_names_never_the_values():
    block = retry_block({"inputResponses": {"k": {"action": "accept", "content": {"api_key": "sk-secret"}}}})
    assert block == {"inputResponses": {"k": {"action": "accept", "fields": ["api_key"]}}, "requestState": False}
    assert retry_block({"name": "x"}) is None


def test_a_client_without_the_tasks_extension_gets_the_result_directly_and_an_unknown_task_is_an_error():
    async def go():
        lab = LabServer(flows=True)
        async with Client(lab.mcp) as plain:
            direct = await plain.call_tool("export_notes", {})
        poller = TaskPoller()
        async with Client(lab.mcp, extensions=[poller]) as c:
            with pytest.raises(MCPError, match="no task"):
                await c.session.send_request(TasksGet(params=TaskParams(task_id="task-99")), TaskState)
        return direct, poller.log

    direct, log = anyio.run(go)
    assert direct.content[0].text.startswith('{"notes"') and log == [], (direct, log)
