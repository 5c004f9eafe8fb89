"""Facts about objects by their identity: the what-if layer's only uses of ``id()`` and of object
addresses, kept in this one private module (everything else reads values).

**Marks** (:class:`IdentityMarks`). A reader that builds a column can prove something about it
(the inventory CSV reader: "no text value is blank", it made each blank cell missing) and mark the
column's Arrow array so the sweep need not check it again. A mark names one array *object*:

- it holds the array weakly, and a lookup compares identity (``is``), not only ``id()``: when the
  array is freed its mark goes with it, and a new object that later gets the same ``id()`` is not
  marked;
- Arrow arrays are immutable, so a marked array's values never change while it lives;
- a slice, a cast, a copy with new buffers and any pandas assignment into the column make a new
  array object, which is unmarked: its values are checked in full again. A pandas ``copy()`` that
  shares the same immutable array keeps the mark, rightly: the values are the same.

A mark only ever saves work; an unmarked column gets the full check, so a lost mark costs time,
never a wrong answer.

**Remembered results** (:class:`IdentityCache`). What the sweep read from one immutable Arrow
array (a closed-set column's codes, a text column's masks) is kept, by the same identity rules as
a mark, for as long as that array lives: a what-if move sweeps the same frame again and reads
those columns at no cost. The kept numpy arrays are made read-only, so no caller can change what
the next one gets.

**Addresses** (:func:`addresses`, :func:`per_object`). A column of Python objects (``object`` or
``string[python]``) has no buffer of characters, but its numpy array's own buffer holds each
object's address (what CPython's ``id()`` returns). Read as integers, they group the rows by
*object* at integer speed, so each distinct object is decided once, by the same function a single
value gets. Identity only changes the cost, never the answer: equal strings that are separate
objects are decided separately, and alike. The addresses are valid only while the array that
holds the objects is alive; :func:`per_object` keeps it alive for as long as it uses them.
A singleton (``True``, ``False``, ``None``) is one object in the whole process, so the rows that
hold it are found by comparing each address with its ``id()`` (:func:`rows_holding`,
:func:`rows_holding_either`), with no Python call per row.
"""

from __future__ import annotations

__all__ = ["IdentityCache", "IdentityMarks", "addresses", "per_object", "rows_holding", "rows_holding_either"]

import functools
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

#: A column's first rows decide whether it is worth grouping its objects by address: more
#: distinct objects than _FEW among them, and it is not.
_SAMPLE, _FEW = 4096, 64
#: After factorizing, more distinct objects than this are decided value by value instead.
_MANY = 4096
#: Rows per block of the address lookup.
_BLOCK = 1 << 16


class IdentityMarks:
    """A set of objects by identity that does not keep them alive (see the module docstring).

    Example:
        >>> import pyarrow as pa
        >>> marks, a = IdentityMarks(), pa.chunked_array([["x"]])
        >>> marks.add(a)
        >>> a in marks, pa.chunked_array([["x"]]) in marks
        (True, False)
    """

    def __init__(self) -> None:
        self._by_id: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()

    def add(self, obj: Any) -> None:
        """Mark ``obj`` (it must support weak references, as Arrow arrays do)."""
        self._by_id[id(obj)] = obj

    def __contains__(self, obj: object) -> bool:
        return self._by_id.get(id(obj)) is obj

    def __len__(self) -> int:
        return len(self._by_id)


class IdentityCache:
    """Results computed from objects, by the object's identity and a key, without keeping the
    objects alive (see the module docstring); a result goes when its object is freed.

    Example:
        >>> import pyarrow as pa
        >>> cache, a = IdentityCache(), pa.chunked_array([["x"]])
        >>> cache.put(a, "len", np.array([1]))
        >>> cache.get(a, "len").tolist(), cache.get(pa.chunked_array([["x"]]), "len"), cache.get(a, "other")
        ([1], None, None)
        >>> del a
        >>> len(cache)
        0
    """

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[weakref.ref[Any], dict[Any, Any]]] = {}

    def _forget(self, ref: weakref.ref[Any], key: int) -> None:
        entry = self._by_id.get(key)
        if entry is not None and entry[0] is ref:  # not a newer object that got the same id()
            del self._by_id[key]

    def get(self, obj: Any, key: Any) -> Any:
        """The result kept for ``obj`` (that very object) under ``key``, or ``None``."""
        entry = self._by_id.get(id(obj))
        if entry is None or entry[0]() is not obj:
            return None
        return entry[1].get(key)

    def put(self, obj: Any, key: Any, value: Any) -> None:
        """Keep ``value`` for ``obj`` under ``key``; numpy arrays in it are made read-only."""
        for part in value if isinstance(value, tuple) else (value,):
            if isinstance(part, np.ndarray):
                part.flags.writeable = False
        entry = self._by_id.get(id(obj))
        if entry is None or entry[0]() is not obj:
            entry = (weakref.ref(obj, functools.partial(self._forget, key=id(obj))), {})
            self._by_id[id(obj)] = entry
        entry[1][key] = value

    def __len__(self) -> int:
        return len(self._by_id)


def addresses(values: np.ndarray) -> np.ndarray:
    """Each object's address (its ``id()``) as an unsigned integer, read from a contiguous object
    array's own buffer (a view, not a copy: valid while ``values`` is alive).

    Example:
        >>> a = np.array(["x", None, 3], dtype=object)
        >>> addresses(a).tolist() == [id(v) for v in a]
        True
    """
    if values.dtype != np.dtype(object) or not values.flags.c_contiguous:
        raise ValueError("addresses reads a contiguous object array")
    return np.frombuffer(values, dtype=np.uintp)


def rows_holding(values: np.ndarray, obj: object) -> np.ndarray:
    """Which rows of an object array hold that very object (``is``, not ``==``).

    Example:
        >>> a, b = "xy", "".join(["x", "y"])  # equal, but two objects
        >>> rows_holding(np.array([a, b, None], dtype=object), a).tolist()
        [True, False, False]
    """
    return addresses(np.ascontiguousarray(values)) == id(obj)


def rows_holding_either(values: np.ndarray, a: object, b: object) -> tuple[np.ndarray, np.ndarray]:
    """``(holds a, holds neither)``: which rows of an object array hold the very object ``a``,
    and which hold neither ``a`` nor ``b`` (``is``, not ``==``). One pass over the addresses,
    block by block, so each block is read once while it is in the CPU cache.

    Example:
        >>> x, y = "xy", "".join(["x", "y"])  # equal, but two objects
        >>> [m.tolist() for m in rows_holding_either(np.array([x, y, True, None], dtype=object), x, True)]
        [[True, False, False, False], [False, True, False, True]]
    """
    address = addresses(np.ascontiguousarray(values))
    n = len(address)
    holds_a, neither = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
    id_a, id_b = np.uintp(id(a)), np.uintp(id(b))
    for start in range(0, n, _BLOCK):
        block, is_a, other = (
            address[start : start + _BLOCK],
            holds_a[start : start + _BLOCK],
            neither[start : start + _BLOCK],
        )
        np.equal(block, id_a, out=is_a)
        np.not_equal(block, id_b, out=other)
        np.greater(other, is_a, out=other)  # not b, and not a
    return holds_a, neither


def _slots(sample: np.ndarray) -> tuple[int, np.ndarray] | None:
    """A direct-mapped table for a few addresses: ``(bits, addresses by slot)`` such that each
    address has its own slot ``(address >> 4) & (2**bits - 1)`` (objects are 16-byte aligned),
    or ``None`` when no small table separates them."""
    for bits in (8, 10, 12, 14):
        slot = (sample >> 4) & ((1 << bits) - 1)
        if len(np.unique(slot)) == len(sample):
            table = np.zeros(1 << bits, dtype=np.uintp)
            table[slot] = sample
            return bits, table
    return None


def per_object(values: np.ndarray, decide: Callable[[Any], Any], dtype: Any) -> np.ndarray | None:
    """``decide(value)`` for every row, called once per distinct *object* (as a ``dtype``
    column), when an object array repeats few distinct objects; ``None`` when it holds many.

    The distinct objects of the first rows get a slot each in a small table; every row's
    address is looked up there by a shift, a mask and one comparison that proves the row holds
    that very object (block by block, so the temporaries stay in the CPU cache). A column with
    other objects further down is factorized by address instead.

    Example:
        >>> a, b = "model", "application"
        >>> per_object(np.array([a, b, a, a], dtype=object), len, np.int8).tolist()
        [5, 11, 5, 5]
    """
    values = np.ascontiguousarray(values)
    if values.dtype != np.dtype(object) or not len(values):
        return None
    address = addresses(values)
    head = address[:_SAMPLE]
    sample = pd.unique(head)
    if len(sample) > _FEW:
        return None
    found = _slots(sample)
    if found is not None:
        bits, table = found
        mask = (1 << bits) - 1
        answers = np.zeros(len(table), dtype=dtype)
        answers[(sample >> 4) & mask] = [decide(values[int(np.argmax(head == a))]) for a in sample]
        out = np.empty(len(values), dtype=dtype)
        for start in range(0, len(values), _BLOCK):
            block = address[start : start + _BLOCK]
            slot = np.right_shift(block, 4)
            np.bitwise_and(slot, mask, out=slot)
            index = slot.view(np.intp)
            if not np.array_equal(table.take(index), block):  # an object not among the first rows'
                break
            answers.take(index, out=out[start : start + _BLOCK])
        else:
            return out
    codes, distinct = pd.factorize(address)
    if len(distinct) > _MANY:
        return None
    # Codes are numbered in order of first appearance: each distinct object's first row.
    first = np.zeros(len(distinct), dtype=np.intp)
    seen = np.unique(codes[:_SAMPLE], return_index=True)
    first[seen[0]] = seen[1]
    for code in np.setdiff1d(np.arange(len(distinct)), seen[0], assume_unique=True):
        first[code] = int(np.argmax(codes == code))
    return np.array([decide(v) for v in values[first]], dtype=dtype).take(codes)
