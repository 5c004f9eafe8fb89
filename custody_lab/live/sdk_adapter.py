"""The one home of the lab's private uses of the ``mcp`` SDK (written for ``mcp`` 2.3.0).

The lab uses the SDK's public API wherever one exists (``mcp.Client(server)`` for an in-process
session, ``MCPServer.middleware``, ``MCPServer.run``). Two needs have no public accessor in SDK 2.3:

- :func:`lowlevel_server`: the low-level ``Server`` behind an ``MCPServer``
  (``MCPServer._lowlevel_server``), to register the 2025-11-25 ``resources/subscribe`` handlers
  ``MCPServer`` does not offer, and to serve it over the frame-recording memory streams;
- :func:`connection_of`: the client connection behind a request's ``ctx.session``
  (``ServerSession._connection``): each request gets a new session proxy, and a subscriber must be
  the same object from ``resources/subscribe`` to ``resources/unsubscribe``.

When an SDK upgrade moves either, these functions raise :class:`SdkDriftError` naming the
attribute and the installed SDK version (never a silent fallback), and ``tests/live/test_sdk_adapter.py``
fails the same way: an SDK upgrade is this file and that test.

Example:
    >>> from mcp.server.lowlevel.server import Server
    >>> from mcp.server.mcpserver import MCPServer
    >>> isinstance(lowlevel_server(MCPServer("demo")), Server)
    True
"""

from __future__ import annotations

__all__ = [
    "PRIVATE_USES",
    "WRITTEN_FOR",
    "SdkDriftError",
    "connection_of",
    "lowlevel_server",
    "sdk_version",
]

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server.lowlevel.server import Server as LowLevelServer
from mcp.server.mcpserver import MCPServer

from .live_errors import LiveError

#: The SDK release these private uses were checked against.
WRITTEN_FOR = "2.3.0"

#: Every private attribute the lab reads: (owner class, attribute, why there is no public way).
PRIVATE_USES: tuple[tuple[str, str, str], ...] = (
    ("MCPServer", "_lowlevel_server", "add request handlers; serve over the lab's own streams"),
    ("ServerSession", "_connection", "the stable client connection behind a per-request session"),
)


class SdkDriftError(LiveError):
    """The installed ``mcp`` SDK no longer has a private attribute the lab relies on.

    Attributes:
        attribute: ``Owner._name`` of the missing or changed attribute.
        sdk: the installed SDK version.
    """

    def __init__(self, attribute: str, detail: str) -> None:
        self.attribute = attribute
        self.sdk = sdk_version()
        super().__init__(
            f"mcp {self.sdk}: {attribute} {detail} (custody_lab/live/sdk_adapter.py was written for "
            f"mcp {WRITTEN_FOR}; update that one file and tests/live/test_sdk_adapter.py)"
        )


def sdk_version() -> str:
    """The installed ``mcp`` distribution's version (``"unknown"`` when its metadata is missing).

    Example:
        >>> sdk_version().count(".") >= 1
        True
    """
    try:
        return version("mcp")
    except PackageNotFoundError:
        return "unknown"


def lowlevel_server(server: MCPServer[Any]) -> LowLevelServer[Any]:
    """The low-level ``Server`` behind ``server`` (``MCPServer._lowlevel_server``).

    Raises:
        SdkDriftError: the attribute is gone or no longer holds a low-level ``Server``.
    """
    found = getattr(server, "_lowlevel_server", None)
    if not isinstance(found, LowLevelServer):
        what = "is missing" if found is None else f"is a {type(found).__name__}, not a low-level Server"
        raise SdkDriftError("MCPServer._lowlevel_server", what)
    return found


def connection_of(session: Any) -> Any:
    """The client connection behind a request's ``ctx.session`` (``ServerSession._connection``).

    It is the same object for every request of one client connection, so it can be kept in a set
    of subscribers; it must offer ``send_resource_updated(uri)``.

    Raises:
        SdkDriftError: the attribute is gone, or the object behind it cannot send an update.
    """
    found = getattr(session, "_connection", None)
    if found is None:
        raise SdkDriftError("ServerSession._connection", f"is missing on {type(session).__name__}")
    if not callable(getattr(found, "send_resource_updated", None)):
        raise SdkDriftError(
            "ServerSession._connection", f"is a {type(found).__name__} without send_resource_updated(uri)"
        )
    return found
