"""Live mode's limits: one bounded wait per exchange, and the timeouts it turns into ``LiveTimeout``."""

from __future__ import annotations

import anyio
import mcp.types as mt
import pytest
from mcp.shared.exceptions import MCPError

from custody_lab.live.limits import DEFAULT_TIMEOUT, MAX_PAGES, MAX_TEXT_CHARS, bounded
from custody_lab.live.live_errors import LiveTimeout

from ..timing import scaled


@pytest.mark.anyio
async def test_an_answer_in_time_is_returned_as_it_came():
    async def answer() -> dict[str, int]:
        await anyio.sleep(0)
        return {"n": 1}

    got = await bounded("resources/read", "kb://x", answer(), scaled(5))
    assert got == {"n": 1}, f"expected the awaited value {{'n': 1}}, got {got!r}"


@pytest.mark.anyio
async def test_a_wait_that_runs_out_is_cancelled_and_names_what_was_waited_for():
    cancelled = []

    async def never() -> None:
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.append(True)
            raise

    timeout = scaled(0.1)
    with pytest.raises(LiveTimeout) as err:
        await bounded("tools/call", "hang_forever", never(), timeout)
    expected = f"tools/call 'hang_forever' got no answer within {timeout:g} s; the wait was cancelled"
    assert str(err.value) == expected, f"expected {expected!r}, got {str(err.value)!r}"
    assert (err.value.method, err.value.target) == ("tools/call", "hang_forever"), vars(err.value)
    assert cancelled == [True], "the abandoned request was not cancelled"


@pytest.mark.anyio
async def test_the_clients_own_request_timeout_is_a_live_timeout_too():
    async def client_gave_up() -> None:
        raise MCPError(mt.REQUEST_TIMEOUT, "Timed out while waiting for response")

    with pytest.raises(LiveTimeout, match=r"resources/read 'kb://x' timed out in the client \(Timed out while"):
        await bounded("resources/read", "kb://x", client_gave_up(), scaled(5))


@pytest.mark.anyio
async def test_any_other_error_answer_passes_through_unchanged():
    async def not_found() -> None:
        raise MCPError(-32602, "Resource not found")

    with pytest.raises(MCPError) as err:
        await bounded("resources/read", "kb://missing", not_found(), scaled(5))
    assert not isinstance(err.value, LiveTimeout) and err.value.code == -32602, f"expected -32602, got {err.value!r}"


def test_the_stated_limits_are_five_seconds_a_hundred_pages_and_ten_mebicharacters_of_text():
    stated = (DEFAULT_TIMEOUT, MAX_PAGES, MAX_TEXT_CHARS)
    assert stated == (5.0, 100, 10 * 1024 * 1024), f"expected (5.0, 100, 10 MiB), got {stated}"


def test_a_listing_is_bounded_at_a_thousand_items_and_eight_mebibytes_as_the_docs_say():
    from custody_lab.live.limits import MAX_LISTED_ITEMS, MAX_LISTING_BYTES

    assert (MAX_LISTED_ITEMS, MAX_LISTING_BYTES) == (1000, 8 * 1024 * 1024), (MAX_LISTED_ITEMS, MAX_LISTING_BYTES)


def test_start_up_has_a_generous_default_bound_of_its_own():
    from custody_lab.live.limits import DEFAULT_CONNECT_TIMEOUT

    # a Python server importing the SDK on a loaded 2-core machine can take 10 s and more to start
    assert DEFAULT_CONNECT_TIMEOUT == 60.0 and DEFAULT_CONNECT_TIMEOUT > 4 * DEFAULT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT


def test_the_limits_load_without_the_sdk_so_the_cli_can_show_them():
    import subprocess
    import sys

    code = "import sys; import custody_lab.live.limits as m; print(m.DEFAULT_CONNECT_TIMEOUT, 'mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["60.0", "False"], f"expected the constant and no mcp loaded; got {out.stdout!r}"
