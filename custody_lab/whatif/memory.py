"""Give a big sweep's memory back: a notebook's kernel stays open while the learner moves on.

Deleting a million-row frame frees it, but three allocators keep what they freed for reuse, and
the kernel's resident memory stays where the sweep left it: Python's cyclic garbage (collected
here), Arrow's memory pool (mimalloc or jemalloc, which pandas 3's string columns use; asked to
return its unused pages) and the C library's heap (glibc's ``malloc_trim``, on Linux). Nothing
here changes a result or a library's behaviour; it only hands back pages nobody uses.
"""

from __future__ import annotations

__all__ = ["release_memory", "resident_bytes", "trim_c_heap"]

import ctypes
import gc
import os
import sys


def resident_bytes() -> int | None:
    """This process's resident memory in bytes (Linux: ``/proc/self/statm``), or ``None`` elsewhere.

    Example:
        >>> n = resident_bytes()
        >>> n is None or n > 1_000_000
        True
    """
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def trim_c_heap() -> None:
    """glibc's ``malloc_trim(0)``: return the heap's free pages (a no-op where there is none).

    A few milliseconds; the CSV reader calls it after working out a file's layout, whose numpy
    temporaries the heap would otherwise keep while the cells are parsed (the reader's peak).

    Example:
        >>> trim_c_heap()
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        trim = getattr(ctypes.CDLL("libc.so.6"), "malloc_trim", None)  # glibc; musl has none
    except OSError:
        return
    if trim is not None:
        trim(0)


def release_memory() -> int | None:
    """Collect garbage and return the memory the allocators keep to the operating system.

    Call it after deleting a large frame (``del million, million_swept``). Arrow's pool is asked
    only when pyarrow is already loaded (this never imports it).

    Returns:
        the resident bytes given back (0 or more), or ``None`` where the platform does not say.

    Example:
        >>> freed = release_memory()
        >>> freed is None or freed >= 0
        True
    """
    before = resident_bytes()
    gc.collect()
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()
    trim_c_heap()
    after = resident_bytes()
    return None if before is None or after is None else max(before - after, 0)
