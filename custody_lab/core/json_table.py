"""The JSON half of the case-table reader (see :mod:`custody_lab.core.tables` for what a file may
hold): the text is scanned once from left to right, each array decoded by the standard library's C
scanner, and line numbers counted only when a location is asked for.

:func:`list_slices` reads a file that is one list the other way round, a slice of its text at a
time with the same decoder and hooks, so that a caller can turn each slice into compact columns
before the next is parsed (the whole file's objects never live at once); it gives up, and the
caller reads the file whole with :func:`parse_json`, as soon as anything is not plainly good."""

from __future__ import annotations

__all__ = ["SLICE_BYTES", "TOP_KEYS", "JsonDoc", "list_slices", "parse_json"]

import codecs
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from .errors import PolicyError, Problem
from .model import Policy, describe, short
from .table_entry import Entry, Table

#: The keys a JSON case file object may have.
TOP_KEYS = ("fixture", "policy", "cases", "adversarial")
_JSON_WS = re.compile(r"[ \t\n\r]*")  # RFC 8259 §2: the four whitespace characters
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*+"|[\[\]{}]')
_JSON_SCALAR = re.compile(r"[^,\]}\s]*")
#: Bytes of a file read (and decoded) at a time by :func:`list_slices`.
SLICE_BYTES = 1 << 23


def _skip_value(text: str, i: int) -> int:
    """The end of the JSON value at ``i``, found without building it (for a value too deep or too
    large to decode)."""
    if text[i] not in "[{":
        m = _JSON_SCALAR.match(text, i)
        return m.end() if m and m.end() > i else i + 1
    depth = 0
    for m in _JSON_TOKEN.finditer(text, i):
        ch = m.group()[0]
        if ch == '"':
            continue
        depth += 1 if ch in "[{" else -1
        if depth == 0:
            return m.end()
    return len(text)


class JsonDoc:
    """One JSON text, scanned once from left to right; each value is decoded by the standard
    library's C scanner, with hooks that note duplicate keys and non-JSON constants."""

    def __init__(self, text: str, source: str, size: int) -> None:
        self.text = text
        self.source = source
        self.scale = size / len(text) if text else 0.0
        self._dups: list[str] = []
        self._constants: list[str] = []
        decoder = json.JSONDecoder(object_pairs_hook=self._pairs, parse_constant=self._constant)
        self._decode = decoder.raw_decode
        self._line = 1
        self.counted = 0

    def _pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and key not in self._dups:
                    self._dups.append(key)
                seen.add(key)
        return d

    def _constant(self, name: str) -> float:
        if name not in self._constants:
            self._constants.append(name)
        return float(name)

    def line(self, pos: int) -> int:
        """The line of ``pos``; positions are asked for in increasing order (counted once)."""
        if pos < self.counted:
            self._line, self.counted = 1, 0
        self._line += self.text.count("\n", self.counted, pos)
        self.counted = pos
        return self._line

    def ws(self, i: int) -> int:
        return _JSON_WS.match(self.text, i).end()  # type: ignore[union-attr]

    def fail(self, i: int, message: str) -> NoReturn:
        raise json.JSONDecodeError(message, self.text, i)

    def value(self, i: int) -> tuple[Any, int, list[tuple[str | None, str]]]:
        """The value at ``i``, where it ends, and what is wrong with it as (field, message) pairs.

        Raises:
            json.JSONDecodeError: for text that is not JSON at all (the file is refused).
        """
        self._dups.clear()
        self._constants.clear()
        try:
            value, end = self._decode(self.text, i)
        except json.JSONDecodeError:
            raise
        except RecursionError:
            limit = sys.getrecursionlimit()
            return None, _skip_value(self.text, i), [(None, f"nested too deep (Python reads about {limit} levels)")]
        except ValueError:  # an integer longer than int() reads
            digits = sys.get_int_max_str_digits()
            return None, _skip_value(self.text, i), [(None, f"holds an integer of more than {digits:,} digits")]
        problems: list[tuple[str | None, str]] = [
            (key, f"key {short(key)} is written twice in one object (which one counts is not defined)")
            for key in self._dups
        ]
        problems += [(None, f"{c} is not a JSON value (RFC 8259 has no NaN or Infinity)") for c in self._constants]
        return value, end, problems

    def end(self, i: int) -> None:
        i = self.ws(i)
        if i != len(self.text):
            self.fail(i, "Extra data")

    def array(self, i: int, name: str) -> tuple[list[Entry], int]:
        """The entries of the array whose '[' is at ``i``, and where it ends.

        The whole array is decoded by one call of the C scanner; only when the hooks noted a
        problem (or a value is too deep or too large) is it scanned element by element, to put
        each problem on its element. Line numbers are counted the first time one is asked for.
        """
        self._dups.clear()
        self._constants.clear()
        try:
            values, end = self._decode(self.text, i)
        except (RecursionError, ValueError) as e:
            if isinstance(e, json.JSONDecodeError):
                raise
            return self.elements(i, name)
        if self._dups or self._constants or not isinstance(values, list):
            return self.elements(i, name)
        lines: list[str] = []

        def where(k: int) -> str:
            if not lines:
                lines.extend(e.where for e in self.elements(i, name)[0])
            return lines[k]

        step = (end - i) / max(len(values), 1)
        return [
            Entry(functools.partial(where, k), v, (), int((i + step * (k + 1)) * self.scale))
            for k, v in enumerate(values)
        ], end

    def elements(self, i: int, name: str) -> tuple[list[Entry], int]:
        """:meth:`array`, element by element: each value decoded alone, its line counted."""
        text = self.text
        entries: list[Entry] = []
        i = self.ws(i + 1)
        if text.startswith("]", i):
            return entries, i + 1
        while True:
            value, end, bad = self.value(i)
            where = f"{self.source} line {self.line(i)} ({name}[{len(entries)}])"
            problems = tuple(Problem(where, f, m) for f, m in bad)
            entries.append(Entry(where, None if bad else value, problems, int(end * self.scale)))
            i = self.ws(end)
            if text.startswith(",", i):
                i = self.ws(i + 1)
            elif text.startswith("]", i):
                return entries, i + 1
            else:
                self.fail(i, "Expecting ',' delimiter")

    def table(self) -> Table:
        i = self.ws(0)
        if self.text.startswith("[", i):
            entries, end = self.array(i, "cases")
            self.end(end)
            return Table(self.source, tuple(entries), size=int(len(self.text) * self.scale))
        if self.text.startswith("{", i):
            return self.members(i)
        value, end, _ = self.value(i)
        self.end(end)
        message = f"a case file must hold a list of cases or an object with 'cases'; got {describe(value)}"
        return Table(self.source, problems=(Problem(self.source, None, message),))

    def members(self, i: int) -> Table:
        """A case file object ``{"cases": [...], "adversarial": [...], "policy": {...}}`` at ``i``."""
        text, source = self.text, self.source
        problems: list[Problem] = []
        seen: dict[str, int] = {}
        lists: dict[str, list[Entry]] = {"cases": [], "adversarial": []}
        policy: Policy | None = None
        i = self.ws(i + 1)
        while not text.startswith("}", i):
            if not text.startswith('"', i):
                self.fail(i, "Expecting property name enclosed in double quotes")
            line = self.line(i)
            key, i = self._decode(text, i)
            i = self.ws(i)
            if not text.startswith(":", i):
                self.fail(i, "Expecting ':' delimiter")
            i = self.ws(i + 1)
            if key in seen:
                message = f"the top-level key {short(key)} is written twice (first on line {seen[key]}): a file has one"
                problems.append(Problem(f"{source} line {line}", key, message))
                i = self.value(i)[1]
            elif key not in TOP_KEYS:
                seen[key] = line
                message = f"unknown top-level key {short(key)} (expected: {', '.join(TOP_KEYS)})"
                problems.append(Problem(source, key, message))
                i = self.value(i)[1]
            elif key in lists and text.startswith("[", i):
                seen[key] = line
                lists[key], i = self.array(i, key)
            else:
                seen[key] = line
                value, i, bad = self.value(i)
                if key in lists:
                    problems.append(Problem(source, key, f"{key!r} must be a list; got {describe(value)}"))
                elif key == "policy":
                    problems += [Problem(f"{source} line {line} (policy)", f, m) for f, m in bad]
                    if not bad:
                        try:
                            policy = Policy.from_dict(value)
                        except PolicyError as e:
                            problems.append(Problem(f"{source} (policy)", e.field, str(e)))
            i = self.ws(i)
            if text.startswith(",", i):
                i = self.ws(i + 1)
                if text.startswith("}", i):
                    self.fail(i, "Expecting property name enclosed in double quotes")
            elif not text.startswith("}", i):
                self.fail(i, "Expecting ',' delimiter")
        self.end(i + 1)
        size = int(len(text) * self.scale)
        return Table(source, tuple(lists["cases"]), tuple(lists["adversarial"]), tuple(problems), policy, size)


def parse_json(text: str, source: str, size: int) -> Table:
    doc = JsonDoc(text, source, size)
    try:
        return doc.table()
    except json.JSONDecodeError as e:
        where = f"{source} line {e.lineno} column {e.colno}"
        return Table(source, problems=(Problem(where, None, f"not valid JSON: {e.msg}"),))


def list_slices(
    path: str | Path, slice_bytes: int = SLICE_BYTES, progress: Callable[[int, int], None] | None = None
) -> Iterator[list[Any] | None]:
    """The elements of a file that is one JSON list, a slice of the file at a time; ``None`` (and
    nothing after it) as soon as the file is anything else or any element has a problem.

    The file is read ``slice_bytes`` at a time and decoded as :func:`~custody_lab.core.tables.read_text`
    decodes it (strict UTF-8, a leading byte-order mark dropped); each element is decoded by the
    same C scanner and hooks as :meth:`JsonDoc.value`. What is yielded is exactly what
    :func:`parse_json` reads from a file without problems, in order, split into lists: an element
    is complete when the scanner closes it before the text read so far ends, and the separators
    between elements are checked here (an element that does not fit is parsed again with at least
    as much text again, so a large one costs linear time). Anything else — not UTF-8, not a list,
    a key written twice, ``NaN``, too deep, not JSON — yields ``None``: the caller then reads the
    file with :func:`parse_json`, which names each problem by its line. ``progress(done, total)``
    is called after each read, with the bytes read so far and the file's size.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "l.json"
        >>> _ = p.write_text('[{"a": "],\\\\"}"}, 2 ,[3]]')
        >>> list(list_slices(p, slice_bytes=4))
        [[{'a': '],"}'}, 2, [3]]]
        >>> _ = p.write_text('[{"a": 1, "a": 2}]')
        >>> list(list_slices(p))
        [None]
    """
    try:
        handle = Path(path).open("rb")
    except OSError:
        yield None
        return
    with handle:
        total = os.fstat(handle.fileno()).st_size
        yield from _slices(handle, slice_bytes, progress, total)


def _slices(
    handle: Any, slice_bytes: int, progress: Callable[[int, int], None] | None, total: int
) -> Iterator[list[Any] | None]:
    doc = JsonDoc("", "", 0)
    decode = codecs.getincrementaldecoder("utf-8-sig")("strict").decode
    text, i, expect = "", 0, "["  # what comes next: "[", a "value", a "sep" (',' or ']'), the "end"
    size = slice_bytes
    while True:
        chunk = handle.read(size)
        if progress is not None:
            progress(handle.tell(), total)
        try:
            text = text[i:] + decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            yield None
            return
        i, values, size, whole = 0, [], slice_bytes, True
        while (i := _ws(text, i)) < len(text):
            if expect == "value" and whole:  # once a slice: its complete elements in one call
                whole, run = False, _run(doc, text, i)
                if run:
                    values += run[0]
                    i, expect = run[1], "sep"
                    continue
            if expect == "value":
                doc.text = text
                try:
                    value, end, bad = doc.value(i)
                except json.JSONDecodeError:
                    if chunk:  # the element may go on: read at least as much again (linear time)
                        size = max(slice_bytes, len(text) - i)
                        break
                    yield None
                    return
                if chunk and (end == len(text) or text[end] not in " \t\n\r,]"):
                    size = max(slice_bytes, len(text) - i)
                    break  # a number may go on in the next slice ("1" of "1.5"), or the text is wrong
                if bad:
                    yield None
                    return
                values.append(value)
                i, expect = end, "sep"
            elif expect == "sep" and text[i] in ",]":
                i, expect = i + 1, "value" if text[i] == "," else "end"
            elif expect == "[" and text[i] == "[":
                i, expect = i + 1, "value"
            else:  # not a list, no separator, or more after the list
                yield None
                return
        if values:
            yield values
        if not chunk:
            if expect != "end":
                yield None
            return


def _run(doc: JsonDoc, text: str, i: int) -> tuple[list[Any], int] | None:
    """The elements from ``i`` to the last ``}`` of ``text``, and where they end, when the text
    between is a list's elements (checked by decoding it as one: ``[`` + it + ``]`` is JSON only
    if the ``}`` closes an element outside any string), or ``None``: then they are read one by one."""
    k = text.rfind("}", i) + 1
    if k == 0 or text[_ws(text, k) : _ws(text, k) + 1] not in (",", "]"):
        return None
    doc.text = f"[{text[i:k]}]"
    try:
        values, end, bad = doc.value(0)
    except json.JSONDecodeError:
        return None
    finally:
        doc.text = text
    return (values, k) if end == k - i + 2 and not bad and values else None


def _ws(text: str, i: int) -> int:
    return _JSON_WS.match(text, i).end()  # type: ignore[union-attr]
