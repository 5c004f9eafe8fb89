"""Reads that change nothing: a checker for deterministic reads, and a bad server that fails it.

Seed 004 ("The Rules for Resources", "Deterministic Reads"): two reads of one URI must give the
same bytes, or a host's cache, prefetch or receipt can no longer trust them. :func:`check_deterministic`
compares the SHA-256 of repeated reads through any read function; :class:`CountingCatalog` is the
seed's mistake made concrete (a view counter written *into* the data). The views layer shows a
:class:`DeterminismReport` as HTML (:func:`custody_lab.views.catalog_html.determinism_html`).
"""

from __future__ import annotations

__all__ = ["CountingCatalog", "DeterminismReport", "check_deterministic"]

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .catalog import Catalog, CatalogError, ReadResult


class CountingCatalog(Catalog):
    """A deliberately BAD server: every read of a text resource appends "(viewed N times)".

    Seed 004 ("Deterministic Reads") shows this mistake: the count is stored *in the data*, so two
    reads of the same URI differ and a host's cache, prefetch or receipt can no longer trust them.
    :func:`check_deterministic` catches it by digest. Never model a real server on this class.

    Example:
        >>> bad = CountingCatalog.load()
        >>> bad.read("kb://shipping").text.endswith("(viewed 1 times)\\n")
        True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.views: Counter[str] = Counter()

    def read(self, uri: str) -> ReadResult:
        result = super().read(uri)
        if result.transport != "text":
            return result
        self.views[uri] += 1  # the side effect: state changed by a read
        text = (result.text or "").rstrip("\n") + f" (viewed {self.views[uri]} times)\n"
        data = text.encode("utf-8")
        item = {**result.item, "text": text}
        return replace(result, contents=(item,), sha256=hashlib.sha256(data).hexdigest(), data=data)


@dataclass(frozen=True)
class DeterminismReport:
    """Whether repeated reads of one URI gave the same bytes.

    Attributes:
        uri: the URI read.
        digests: the SHA-256 of each read, in order.
        deterministic: all digests equal.
        first_difference: byte offset where the first differing read departs from the first
            read, or ``None``.
        message: the verdict in words.
    """

    uri: str
    digests: tuple[str, ...]
    deterministic: bool
    first_difference: int | None
    message: str

    def __str__(self) -> str:
        return self.message


def check_deterministic(read: Callable[[str], ReadResult], uri: str, *, times: int = 2) -> DeterminismReport:
    """Read ``uri`` ``times`` times with ``read`` and compare the SHA-256 of the bytes.

    Args:
        read: a read function, e.g. ``Catalog.load().read``.
        uri: the URI to read.
        times: how many reads (at least 2).

    Raises:
        CatalogError: when ``times`` < 2 (a ``ValueError``). A read error (``ResourceNotFound``)
            passes through.

    Example:
        >>> check_deterministic(Catalog.load().read, "kb://shipping").deterministic
        True
        >>> check_deterministic(CountingCatalog.load().read, "kb://shipping").deterministic
        False
    """
    if times < 2:
        raise CatalogError(f"times: comparing reads needs at least 2 of them; got times={times}")
    results = [read(uri) for _ in range(times)]
    digests = tuple(r.sha256 for r in results)
    first = results[0].data
    for r in results[1:]:
        if r.sha256 != digests[0]:
            offset = next(
                (i for i, (a, b) in enumerate(zip(first, r.data)) if a != b),
                min(len(first), len(r.data)),
            )
            return DeterminismReport(
                uri,
                digests,
                False,
                offset,
                f"{times} reads of {uri} gave {len(set(digests))} different digests; the bytes "
                f"first differ at offset {offset}: the read changed something, so a cache, a "
                "prefetch or a receipt can no longer trust it",
            )
    return DeterminismReport(
        uri,
        digests,
        True,
        None,
        f"{times} reads of {uri} gave the same {len(first)} bytes (sha256 {digests[0][:12]}…)",
    )
