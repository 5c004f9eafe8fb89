"""Text columns reduced at the Arrow buffer level: which values are missing, which are blank.

A custody text field (``uri``, ``mime``, ``provenance``) only matters to the rules as "present"
or "blank" (missing, empty, or only whitespace: :mod:`custody_lab.core.blank`, the definition the
router's ``ScalarOps.blank`` uses). For a pyarrow-backed string column that is read from the
column's own buffers, never from Python strings: the validity bitmap says which values are
missing, the offsets give each value's length (zero: empty), and the first byte of each value
says whether it *could* be whitespace (a byte at or below the last ASCII whitespace character,
:data:`~custody_lab.core.blank.ASCII_SPACE_MAX`, or a lead byte at or above the first non-ASCII
one's, :data:`~custody_lab.core.blank.WIDE_SPACE_MIN_LEAD`). Only those few candidates become
Python strings, one per distinct candidate, and :func:`~custody_lab.core.blank.is_blank` decides
each.

A column whose blank cells were already made missing when it was built (the inventory CSV reader
does this: a blank cell is an absent value) is marked with :func:`mark_without_blanks`; then
:func:`known_masks` reads its validity bitmap alone. The mark names one Arrow array object
(:class:`~custody_lab.whatif._identity.IdentityMarks`, where what a mark survives and what it
does not is written down and tested): a changed, sliced or rebuilt column is checked in full again.

:func:`column_codes` and :func:`column_text_masks` keep what they read from a column's Arrow array
for as long as that array lives (:class:`~custody_lab.whatif._identity.IdentityCache`, by the same
identity rules): sweeping the same frame again, as each what-if move does, reads those columns at
no cost, and a changed column is a new array, read in full.
"""

from __future__ import annotations

__all__ = [
    "arrow_chunks",
    "arrow_codes",
    "arrow_text_masks",
    "column_codes",
    "column_text_masks",
    "known_masks",
    "mark_without_blanks",
]

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..core.blank import ASCII_SPACE_MAX, WIDE_SPACE_MIN_LEAD, is_blank
from ._identity import IdentityCache, IdentityMarks

#: The largest first byte that is an ASCII whitespace candidate, and the smallest lead byte of a
#: non-ASCII one (both from the core's definition).
_LAST_ASCII_SPACE = ord(ASCII_SPACE_MAX)
_FIRST_WIDE_LEAD = WIDE_SPACE_MIN_LEAD


def arrow_chunks(s: pd.Series) -> list[pa.Array] | None:
    """The Arrow chunks of a pyarrow-backed string column (cast to ``large_string`` when it is a
    string view), or ``None`` for any other column.

    Example:
        >>> [c.type for c in arrow_chunks(pd.Series(["a", None], dtype="str"))]
        [DataType(large_string)]
        >>> arrow_chunks(pd.Series(["a"], dtype=object)) is None
        True
    """
    dt = s.dtype
    if isinstance(dt, pd.StringDtype) and dt.storage == "pyarrow":
        pass
    elif isinstance(dt, pd.ArrowDtype) and (
        pa.types.is_string(dt.pyarrow_dtype)
        or pa.types.is_large_string(dt.pyarrow_dtype)
        or pa.types.is_string_view(dt.pyarrow_dtype)
    ):
        pass
    else:
        return None
    data = s.array.__arrow_array__()
    chunks = data.chunks if isinstance(data, pa.ChunkedArray) else [data]
    return [c.cast(pa.large_string()) if pa.types.is_string_view(c.type) else c for c in chunks]


#: The Arrow arrays known to hold no blank value.
_WITHOUT_BLANKS = IdentityMarks()


def mark_without_blanks(column: pd.Series) -> pd.Series:
    """Record that the pyarrow string ``column`` holds no empty or whitespace-only value (its caller
    made each such cell missing); return it. A column of any other storage is left unmarked."""
    data = column.array.__arrow_array__() if arrow_chunks(column) is not None else None
    if isinstance(data, pa.ChunkedArray):
        _WITHOUT_BLANKS.add(data)
    return column


def known_masks(s: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """``(missing, blank-but-present)`` of a column marked by :func:`mark_without_blanks`, from its
    validity bitmap alone (nothing is blank); ``None`` for an unmarked column.

    Example:
        >>> s = mark_without_blanks(pd.Series(["u://x", None], dtype="str"))
        >>> [m.tolist() for m in known_masks(s)], known_masks(s.where(s.isna(), " "))
        ([[False, True], [False, False]], None)
    """
    if arrow_chunks(s) is None:
        return None
    data = s.array.__arrow_array__()
    if not isinstance(data, pa.ChunkedArray) or data not in _WITHOUT_BLANKS:
        return None
    n = len(data)
    if not data.null_count:  # nothing missing, nothing blank: two columns that take no memory
        return np.broadcast_to(False, (n,)), np.broadcast_to(False, (n,))
    na, at = np.zeros(n, dtype=bool), 0
    for chunk in data.chunks:
        if chunk.null_count:
            bits = np.unpackbits(np.frombuffer(chunk.buffers()[0], dtype=np.uint8), bitorder="little")
            np.equal(bits[chunk.offset : chunk.offset + len(chunk)], 0, out=na[at : at + len(chunk)])
        at += len(chunk)
    return na, np.broadcast_to(False, (n,))


def _chunk_masks(chunk: pa.Array, na: np.ndarray, empty: np.ndarray) -> None:
    """Fill ``na`` and ``empty`` (this chunk's rows of the column's masks) from its buffers."""
    n = len(chunk)
    if not n:
        return
    validity, offsets, data = chunk.buffers()[:3]
    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    off = np.frombuffer(offsets, dtype=width, count=chunk.offset + n + 1)[chunk.offset :]
    starts, ends = off[:-1], off[1:]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None and data.size else np.zeros(1, np.uint8)
    # The first byte of each value (an empty value's is the next value's: it is decided by its
    # length below). 0x00-0x20 wrap round to 0xDF-0xFF, so one comparison finds both ranges.
    # Only empty values at the very end start past the last byte: clip just then (a copy).
    last = raw.size - 1
    at: np.ndarray = np.minimum(starts, last) if int(starts[-1]) > last else starts
    first: np.ndarray = raw.take(at)
    np.subtract(first, np.uint8(_LAST_ASCII_SPACE + 1), out=first)
    maybe = np.greater_equal(first, np.uint8(_FIRST_WIDE_LEAD - _LAST_ASCII_SPACE - 1), out=first.view(bool))
    np.equal(ends, starts, out=empty)
    if chunk.null_count:
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        np.equal(bits[chunk.offset : chunk.offset + n], 0, out=na)
        np.greater(empty, na, out=empty)  # empty and not missing
        np.greater(maybe, na, out=maybe)
    np.greater(maybe, empty, out=maybe)  # maybe and not empty
    candidates = np.flatnonzero(maybe)
    if candidates.size:  # each distinct candidate string decided once
        found = chunk.take(pa.array(candidates)).dictionary_encode()
        blank = np.array([is_blank(v) for v in found.dictionary.to_pylist()], dtype=bool)
        empty[candidates] = blank.take(found.indices.to_numpy(zero_copy_only=False))


def arrow_text_masks(chunks: list[pa.Array]) -> tuple[np.ndarray, np.ndarray]:
    """Per value of the column: ``(missing, blank-but-present)``, read from the buffers.

    Example:
        >>> s = pd.Series(["u://x", None, "", " \\t", "\\u3000", "é"], dtype="str")
        >>> na, empty = arrow_text_masks(arrow_chunks(s))
        >>> na.tolist(), empty.tolist()
        ([False, True, False, False, False, False], [False, False, True, True, True, False])
    """
    n = sum(len(c) for c in chunks)
    na, empty = np.zeros(n, dtype=bool), np.empty(n, dtype=bool)
    at = 0
    for chunk in chunks:
        _chunk_masks(chunk, na[at : at + len(chunk)], empty[at : at + len(chunk)])
        at += len(chunk)
    return na, empty


def arrow_codes(chunks: list[pa.Array], choices: tuple[str, ...]) -> np.ndarray:
    """Each value's index in ``choices`` (-1 for anything else, a missing value included), by
    Arrow's own hash lookup: only a value equal to a choice, character for character, is one.

    Example:
        >>> s = pd.Series(["model", "Model", None, "application"], dtype="str")
        >>> arrow_codes(arrow_chunks(s), ("application", "model")).tolist()
        [1, -1, -1, 0]
    """
    n = sum(len(c) for c in chunks)
    out, at = np.full(n, -1, dtype=np.int8), 0
    for chunk in chunks:
        index = pc.index_in(chunk, value_set=pa.array(choices, type=chunk.type))
        if index.null_count:  # a value in no set (or missing): -1
            index = index.fill_null(-1)
        # The int32 results, read in place (the kernel's own buffer; no copy before the narrowing).
        out[at : at + len(chunk)] = np.frombuffer(index.buffers()[1], dtype=np.int32, count=index.offset + len(index))[
            index.offset :
        ]
        at += len(chunk)
    return out


#: What column_codes and column_text_masks read, kept per Arrow array while it lives.
_READ = IdentityCache()


def _arrow_array(s: pd.Series) -> pa.Array | pa.ChunkedArray:
    data: pa.Array | pa.ChunkedArray = s.array.__arrow_array__()
    return data


def column_codes(s: pd.Series, choices: tuple[str, ...]) -> np.ndarray | None:
    """:func:`arrow_codes` of a pyarrow-backed string column (read-only; kept while its Arrow
    array lives), or ``None`` for any other column.

    Example:
        >>> s = pd.Series(["model", None], dtype="str")
        >>> codes = column_codes(s, ("application", "model"))
        >>> codes.tolist(), column_codes(s, ("application", "model")) is codes, codes.flags.writeable
        ([1, -1], True, False)
        >>> column_codes(pd.Series(["model"], dtype=object), ("model",)) is None
        True
    """
    chunks = arrow_chunks(s)
    if chunks is None:
        return None
    data = _arrow_array(s)
    key = ("codes", choices)
    found = _READ.get(data, key)
    if found is None:
        found = arrow_codes(chunks, choices)
        _READ.put(data, key, found)
    return found


def column_text_masks(s: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`arrow_text_masks` of a pyarrow-backed string column (read-only; kept while its
    Arrow array lives), or ``None`` for any other column.

    Example:
        >>> s = pd.Series(["u://x", " ", None], dtype="str")
        >>> [m.tolist() for m in column_text_masks(s)]
        [[False, False, True], [False, True, False]]
        >>> s2 = s.copy()
        >>> s2.iloc[1] = "u://y"  # a new Arrow array: read again
        >>> [m.tolist() for m in column_text_masks(s2)], column_text_masks(s)[1].tolist()
        ([[False, False, True], [False, False, False]], [False, True, False])
    """
    chunks = arrow_chunks(s)
    if chunks is None:
        return None
    data = _arrow_array(s)
    found = _READ.get(data, "masks")
    if found is None:
        found = arrow_text_masks(chunks)
        _READ.put(data, "masks", found)
    masks: tuple[np.ndarray, np.ndarray] = found
    return masks
