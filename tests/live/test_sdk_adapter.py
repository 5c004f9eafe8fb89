"""The SDK adapter: the lab's only private uses of ``mcp``, and the drift test an upgrade runs first.

If one of these tests fails after an SDK upgrade, its message names the attribute and the
installed SDK version; the fix belongs in ``custody_lab/live/sdk_adapter.py`` alone.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from mcp import Client
from mcp.server.lowlevel.server import Server as LowLevelServer
from mcp.server.mcpserver import MCPServer

from custody_lab.live import sdk_adapter
from custody_lab.live.sdk_adapter import (
    PRIVATE_USES,
    WRITTEN_FOR,
    SdkDriftError,
    connection_of,
    lowlevel_server,
    sdk_version,
)

PACKAGE = Path(sdk_adapter.__file__).resolve().parents[1]
SDK = f"mcp {sdk_version()} (the adapter was written for {WRITTEN_FOR})"


def test_the_adapter_reaches_the_very_lowlevel_server_behind_an_mcpserver():
    server = MCPServer("drift-check")
    try:
        low = lowlevel_server(server)
    except SdkDriftError as e:
        pytest.fail(f"{SDK}: {e}")
    assert isinstance(low, LowLevelServer), f"{SDK}: MCPServer._lowlevel_server is a {type(low).__name__}"
    assert low.middleware is server.middleware, (
        f"{SDK}: MCPServer._lowlevel_server is not the server whose middleware MCPServer.middleware exposes"
    )


async def _connections(server: MCPServer, clients: int, requests: int) -> list[list[object]]:
    seen: list[object] = []

    async def spy(ctx, call_next):
        if ctx.method == "tools/list":
            seen.append(connection_of(ctx.session))
        return await call_next(ctx)

    server.middleware.append(spy)
    out: list[list[object]] = []
    for _ in range(clients):
        seen.clear()
        async with Client(server, mode="legacy") as client:  # 2025-11-25: one connection per client
            for _ in range(requests):
                await client.list_tools()
        out.append(list(seen))
    return out


@pytest.mark.anyio
async def test_one_legacy_client_connection_is_the_same_object_across_its_requests_and_another_is_not():
    try:
        first, second = await _connections(MCPServer("drift-check"), clients=2, requests=2)
    except SdkDriftError as e:
        pytest.fail(f"{SDK}: {e}")
    assert len(first) == 2 and first[0] is first[1], (
        f"{SDK}: ServerSession._connection differs between two requests of one client "
        f"(expected one stable object, got {first!r}); legacy subscriptions would never unsubscribe"
    )
    assert first[0] is not second[0], f"{SDK}: two clients share one ServerSession._connection ({first[0]!r})"


@pytest.mark.parametrize(
    ("call", "attribute"),
    [
        (lambda: lowlevel_server(SimpleNamespace()), "MCPServer._lowlevel_server"),
        (lambda: lowlevel_server(SimpleNamespace(_lowlevel_server=object())), "MCPServer._lowlevel_server"),
        (lambda: connection_of(SimpleNamespace()), "ServerSession._connection"),
        (lambda: connection_of(SimpleNamespace(_connection=object())), "ServerSession._connection"),
    ],
    ids=["no-lowlevel", "lowlevel-wrong-type", "no-connection", "connection-cannot-notify"],
)
def test_a_changed_sdk_fails_with_the_attribute_and_the_sdk_version_named(call, attribute):
    with pytest.raises(SdkDriftError) as info:
        call()
    message = str(info.value)
    for part in (attribute, f"mcp {sdk_version()}", WRITTEN_FOR, "sdk_adapter.py"):
        assert part in message, f"expected {part!r} in the drift message, got {message!r}"
    assert info.value.attribute == attribute, (attribute, info.value.attribute)


def test_no_module_but_the_adapter_touches_the_sdks_private_attributes():
    names = [attr for _, attr, _ in PRIVATE_USES]
    assert names, "PRIVATE_USES lists nothing"
    pattern = re.compile(r"\.(" + "|".join(map(re.escape, names)) + r")\b|[\"'](" + "|".join(names) + r")[\"']")
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "sdk_adapter.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert not offenders, "private SDK attributes used outside live/sdk_adapter.py:\n" + "\n".join(offenders)
