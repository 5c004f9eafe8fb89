"""How long live mode waits and how much it keeps, stated as public constants, and the bounded wait.

The constants load without ``mcp`` (the CLI's help text shows them); :func:`bounded` imports it.

A hostile or broken server costs the client at most these (the SDK's ``uri_template`` states its
``DEFAULT_MAX_*`` limits the same way):

- :data:`DEFAULT_TIMEOUT` seconds for any single exchange (:func:`bounded` enforces it and turns
  the end of the wait into :class:`~custody_lab.live.live_errors.LiveTimeout`);
- :data:`DEFAULT_CONNECT_TIMEOUT` seconds for an audited server to start and answer the handshake
  (``custody-lab audit --connect-timeout``): start-up is bounded apart from the exchanges, because a
  Python server that imports the SDK on a loaded two-core machine can take ten seconds or more
  before it reads its first message;
- :data:`MAX_PAGES` pages, :data:`MAX_LISTED_ITEMS` items and :data:`MAX_LISTING_BYTES` bytes of
  items (each item as compact JSON) per listing (resources, templates, tools, prompts), whichever
  comes first, before the listing is cut, read no further, and the cut is noted with where it fell
  (the page and the item in it): a server that offers page after page of new items costs the
  client no more than these, however long it goes on (one page is bounded by the 16 MiB message
  cap of the guards, :data:`~custody_lab.live.stdio_guard.MAX_LINE_BYTES`);
- one ``--timeout`` for an audit's check of a ``structuredContent`` against its ``outputSchema``
  (a worker process, killed at the bound: :mod:`~custody_lab.live.schema_check`), after the
  worker's own start-up, which may take what is left of the audit's stop bound;
- :data:`MAX_LINKS_FOLLOWED` resource links followed per tool result (each one read within the
  audit's time bound as well);
- :data:`MAX_TEXT_CHARS` characters of one text contents item before it is refused, not copied
  (a blob is refused past 10 MiB of decoded bytes too: ``read_contents`` decodes it under
  :data:`~custody_lab.protocol.blobs.base64_codec.DEFAULT_MAX_BYTES`; a declared ``size`` past
  :data:`~custody_lab.core.model.MAX_BYTES`, 1 GiB, is not a size the lab can hold).
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "MAX_LINKS_FOLLOWED",
    "MAX_LISTED_ITEMS",
    "MAX_LISTING_BYTES",
    "MAX_PAGES",
    "MAX_TEXT_CHARS",
    "bounded",
]

from collections.abc import Awaitable
from typing import TypeVar

from .live_errors import LiveTimeout

#: Seconds any single exchange may take before it is abandoned (and recorded as a timeout).
DEFAULT_TIMEOUT = 5.0
#: Seconds an audited server may take to start and answer the handshake (``server/discover``,
#: then ``initialize`` for a server of a revision before 2026-07-28), apart from every exchange's own bound.
DEFAULT_CONNECT_TIMEOUT = 60.0
#: Pages followed per listing (resources, templates, tools) before the listing is cut and noted.
MAX_PAGES = 100
#: Items kept per listing (resources, templates, tools, prompts); the item past it is not read.
MAX_LISTED_ITEMS = 1000
#: Bytes of items kept per listing, each item counted as compact JSON; the item that would pass it is not kept.
MAX_LISTING_BYTES = 8 * 1024 * 1024
#: Resource links followed per tool result (``--follow-links``); the rest stay addresses, noted as not followed.
MAX_LINKS_FOLLOWED = 16
#: Text contents longer than this many characters are not copied.
MAX_TEXT_CHARS = 10 * 1024 * 1024

_T = TypeVar("_T")


async def bounded(what: str, target: str, awaitable: Awaitable[_T], timeout: float) -> _T:
    """Await ``awaitable`` for at most ``timeout`` seconds.

    Raises:
        LiveTimeout: the wait ran out (and was cancelled), or the client's own request timeout
            answered first; the message names ``what`` was waited for and for which ``target``.
    """
    import anyio  # here, not above: the CLI reads this module's constants without loading the SDK
    import mcp.types as mt
    from mcp.shared.exceptions import MCPError

    try:
        with anyio.fail_after(timeout):
            return await awaitable
    except TimeoutError as e:
        raise LiveTimeout(
            f"{what} {target!r} got no answer within {timeout:g} s; the wait was cancelled",
            method=what,
            target=target,
        ) from e
    except MCPError as e:
        if e.code == mt.REQUEST_TIMEOUT:
            raise LiveTimeout(
                f"{what} {target!r} timed out in the client ({e.error.message})", method=what, target=target
            ) from e
        raise
