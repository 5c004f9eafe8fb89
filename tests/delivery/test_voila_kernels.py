"""The presentation's kernel cap: no kernel beyond ``max_kernels`` (those starting count), HTTP 503 naming the limit."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jupyter_server")

import tornado.web  # noqa: E402
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager  # noqa: E402

from custody_lab.delivery import voila_kernels  # noqa: E402
from custody_lab.delivery.voila_kernels import MANAGER, limit_message  # noqa: E402

from ..timing import scaled  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class _Kernels:
    """Stands in for the parent class's kernel start: records each start, holds it open until released."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, manager) -> None:
        self.running: list[str] = []
        self.release = asyncio.Event()
        self.release.set()
        monkeypatch.setattr(manager, "list_kernel_ids", lambda: list(self.running))
        monkeypatch.setattr(type(manager), "__contains__", lambda _self, kernel_id: kernel_id in self.running)

        async def start_kernel(_self, *args, kernel_id=None, **kwargs) -> str:
            await self.release.wait()
            new = kernel_id or f"k{len(self.running) + 1}"
            if new not in self.running:
                self.running.append(new)
            return new

        monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start_kernel)


@pytest.fixture(autouse=True)
def short_wait(monkeypatch):
    """A start at the limit waits FREEING_WAIT_SECONDS for a kernel to go; these tests need not."""
    monkeypatch.setattr(voila_kernels, "FREEING_WAIT_SECONDS", 0.3)


def _manager(max_kernels: int):
    return voila_kernels.CappedKernelManager(max_kernels=max_kernels)


def test_the_dotted_name_voila_is_given_resolves_to_the_capped_manager_class():
    module, _, name = MANAGER.rpartition(".")
    cls = getattr(sys.modules[module], name)
    assert issubclass(cls, AsyncMappingKernelManager), f"{MANAGER} is {cls}, not a kernel manager"
    assert cls is voila_kernels.CappedKernelManager, "two lookups built two different classes"
    assert cls().max_kernels == 8, f"expected the default limit 8, got {cls().max_kernels}"


def test_any_other_missing_attribute_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="has no attribute 'CappedKernelManagr'"):
        voila_kernels.CappedKernelManagr  # noqa: B018


def test_the_limit_message_names_the_limit_the_flag_and_what_to_do():
    for n, words in ((1, "runs 1 kernel, its limit"), (4, "runs 4 kernels, its limit")):
        message = limit_message(n)
        assert words in message, f"limit {n}: expected {words!r} in {message!r}"
        assert "--max-kernels N" in message and "reload" in message, message
    assert "after 30 s idle" in limit_message(2, 30) and "idle" not in limit_message(2), limit_message(2, 30)


def test_at_the_limit_a_start_waits_for_a_kernel_being_shut_down_as_a_reloaded_page_asks(monkeypatch):
    """A reloaded page asks for its new kernel while its old one is still being shut down."""
    monkeypatch.setattr(voila_kernels, "FREEING_WAIT_SECONDS", scaled(5))
    manager = _manager(1)

    async def go(kernels: _Kernels) -> None:
        assert await manager.start_kernel() == "k1"
        new = asyncio.ensure_future(manager.start_kernel())
        await asyncio.sleep(0.2)
        assert not new.done() and kernels.running == ["k1"], "the start at the limit did not wait"
        kernels.running.remove("k1")  # the old page's shutdown completes
        assert await asyncio.wait_for(new, scaled(5)) == "k1" and kernels.running == ["k1"], kernels.running

    with pytest.MonkeyPatch.context() as mp:
        asyncio.run(go(_Kernels(mp, manager)))


def test_a_start_beyond_the_limit_is_refused_with_http_503_and_the_message():
    manager = _manager(2)

    async def go(kernels: _Kernels) -> None:
        assert await manager.start_kernel() == "k1" and await manager.start_kernel() == "k2", kernels.running
        with pytest.raises(tornado.web.HTTPError) as refused:
            await manager.start_kernel()
        assert refused.value.status_code == 503, f"a third kernel at limit 2: expected 503, got {refused.value}"
        assert refused.value.log_message == limit_message(2), refused.value.log_message
        assert "the limit is 2" in (refused.value.reason or ""), refused.value.reason
        assert kernels.running == ["k1", "k2"], f"the refused start still started a kernel: {kernels.running}"

    with pytest.MonkeyPatch.context() as mp:
        asyncio.run(go(_Kernels(mp, manager)))


def test_reusing_a_running_kernel_at_the_limit_is_not_a_new_kernel():
    manager = _manager(1)

    async def go(kernels: _Kernels) -> str:
        first = await manager.start_kernel()
        return await manager.start_kernel(kernel_id=first)

    with pytest.MonkeyPatch.context() as mp:
        kernels = _Kernels(mp, manager)
        again = asyncio.run(go(kernels))
    assert again == "k1" and kernels.running == ["k1"], f"reusing k1 at limit 1: got {again}, running {kernels.running}"


def test_kernels_still_starting_count_against_the_limit():
    manager = _manager(1)

    async def go(kernels: _Kernels) -> None:
        kernels.release.clear()
        first = asyncio.ensure_future(manager.start_kernel())
        await asyncio.sleep(0)  # the first start is under way, not yet listed
        assert kernels.running == [], kernels.running
        with pytest.raises(tornado.web.HTTPError, match="503"):  # refused after the short wait, never left hanging
            await asyncio.wait_for(manager.start_kernel(), scaled(10))
        kernels.release.set()
        assert await first == "k1"
        kernels.running.clear()  # k1 was shut down: a start that ended no longer counts
        assert await manager.start_kernel() == "k1", kernels.running

    with pytest.MonkeyPatch.context() as mp:
        asyncio.run(go(_Kernels(mp, manager)))


def test_a_limit_of_zero_starts_every_kernel_asked_for():
    manager = _manager(0)

    async def go() -> list[str]:
        return [await manager.start_kernel() for _ in range(5)]

    with pytest.MonkeyPatch.context() as mp:
        _Kernels(mp, manager)
        started = asyncio.run(go())
    assert started == ["k1", "k2", "k3", "k4", "k5"], f"limit 0 (none): expected five kernels, got {started}"


def test_importing_the_module_does_not_import_jupyter_server():
    code = "import sys, custody_lab.delivery.voila_kernels; print('jupyter_server' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False", f"expected jupyter_server not imported, got {out.stdout!r} {out.stderr!r}"
