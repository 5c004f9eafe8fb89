"""The kernels of ``custody-lab present``: at most a few at once, so page loads cannot pile them up.

Voila starts one kernel (about 140 MB) for every page load, and has no limit of its own
(voila-dashboards/voila#617). Culling idle kernels (jupyter_server's
``MappingKernelManager.cull_idle_timeout``) frees them later but does not bound how many run
meanwhile: an anonymous client polling the page starts a kernel per request. The
:data:`MANAGER` class refuses to start a kernel while ``max_kernels`` are running or starting;
that page load gets HTTP 503 with a message naming the limit and what to do. At the limit it first
waits up to :data:`FREEING_WAIT_SECONDS` for a kernel to go: a reloaded page asks for its new
kernel while the shutdown of its old one (sent as the old page unloaded) is still under way.

``custody-lab present`` passes the class to Voila as
``--VoilaConfiguration.multi_kernel_manager_class`` and the limit as
``--CappedKernelManager.max_kernels``. The class is built on first use (a module ``__getattr__``),
so ``import custody_lab`` never imports jupyter_server; only the Voila process does.
"""

from __future__ import annotations

__all__ = ["FREEING_WAIT_SECONDS", "MANAGER", "limit_message"]  # and CappedKernelManager, built on first use

import asyncio
import time
from functools import cache
from typing import Any

#: The dotted name Voila is given.
MANAGER = "custody_lab.delivery.voila_kernels.CappedKernelManager"
#: How long a page load at the limit waits for a kernel to be shut down before it is refused.
FREEING_WAIT_SECONDS = 5.0


def limit_message(max_kernels: int, cull_idle: int = 0) -> str:
    """What a page load is told when the limit is reached.

    Example:
        >>> limit_message(4).split(" (")[0]
        'The presentation already runs 4 kernels, its limit'
    """
    return (
        f"The presentation already runs {max_kernels} kernel{'s' if max_kernels != 1 else ''}, its limit "
        "(custody-lab present "
        "--max-kernels N). Close a tab of this presentation you no longer need, then reload this page."
        + (
            f" A tab that closed without telling the server (a crash, a lost network) frees its kernel "
            f"after {cull_idle} s idle."
            if cull_idle > 0
            else ""
        )
    )


@cache
def _build() -> type:
    import tornado.web
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
    from traitlets import Integer

    class CappedKernelManager(AsyncMappingKernelManager):  # type: ignore[misc]
        """``AsyncMappingKernelManager`` that starts no kernel beyond ``max_kernels``."""

        max_kernels = Integer(
            8, config=True, help="Most kernels running at once; a page load beyond it gets HTTP 503 (0: no limit)."
        )
        _starting = 0

        async def start_kernel(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
            known = kwargs.get("kernel_id")
            if known is None or known not in self:  # reusing a running kernel starts nothing
                running = await self._running_after_wait()
                if 0 < self.max_kernels <= running:
                    message = limit_message(self.max_kernels, int(self.cull_idle_timeout))
                    self.log.warning("refused to start kernel %d: %s", running + 1, message)
                    reason = f"Too many kernels (the limit is {self.max_kernels}: close a tab or wait, then reload)"
                    raise tornado.web.HTTPError(503, message, reason=reason)
            self._starting += 1
            try:
                return str(await super().start_kernel(*args, **kwargs))
            finally:
                self._starting -= 1

        async def _running_after_wait(self) -> int:
            """Kernels running or starting, once below the limit or after FREEING_WAIT_SECONDS."""
            deadline = time.monotonic() + FREEING_WAIT_SECONDS
            while True:
                running = len(self.list_kernel_ids()) + self._starting
                if not 0 < self.max_kernels <= running or time.monotonic() >= deadline:
                    return running
                await asyncio.sleep(0.1)

    return CappedKernelManager


def __getattr__(name: str) -> Any:
    if name == "CappedKernelManager":
        return _build()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
