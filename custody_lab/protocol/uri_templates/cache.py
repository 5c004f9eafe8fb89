"""A least-recently-used cache bounded in entries *and* in template characters.

The parser keeps parsed templates in one and the matcher its compiled patterns in another, so a
template met again costs nothing, and a stream of hostile, huge templates cannot pin memory.
"""

from __future__ import annotations

__all__ = ["MAX_CACHED_CHARS", "MAX_CACHED_ENTRIES", "BoundedCache"]

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

#: How many templates each cache (parsed templates, compiled matchers) holds at most.
MAX_CACHED_ENTRIES = 512
#: How many template characters each cache holds at most; one template longer than a sixteenth of
#: this is parsed or compiled every time instead of cached.
MAX_CACHED_CHARS = 1 << 20

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


class BoundedCache(Generic[_K, _V]):
    """A least-recently-used cache bounded in entries *and* in the characters of its templates.

    ``functools.lru_cache(maxsize=512)`` bounds entries only: 512 templates of a megabyte each
    would pin half a gigabyte. Here an entry costs the length of its template, the total cost
    stays within ``max_chars``, and a template longer than ``max_chars // 16`` is not cached.

    >>> cache: BoundedCache[str, int] = BoundedCache(max_entries=2, max_chars=1600)
    >>> cache.put("a", 1, cost=10); cache.put("b", 2, cost=10); cache.put("c", 3, cost=10)
    >>> cache.get("a"), cache.get("c"), len(cache), cache.chars
    (None, 3, 2, 20)
    """

    def __init__(self, max_entries: int = MAX_CACHED_ENTRIES, max_chars: int = MAX_CACHED_CHARS) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self.chars = 0
        self._entries: OrderedDict[_K, tuple[_V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: _K) -> _V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: _K, value: _V, cost: int) -> None:
        if cost > self.max_chars // 16:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (value, cost)
            self.chars += cost
            while len(self._entries) > self.max_entries or self.chars > self.max_chars:
                _, (_, old_cost) = self._entries.popitem(last=False)
                self.chars -= old_cost

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.chars = 0
