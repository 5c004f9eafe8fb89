"""What the case-table readers hand the loader (custody_lab.core.table_entry): an Entry per case,
whose location may be computed only when asked for, and a Table per file."""

from __future__ import annotations

import dataclasses

import pytest

from custody_lab.core.errors import Problem
from custody_lab.core.table_entry import Entry, Table
from custody_lab.core.tables import parse_table


class CountingWhere:
    """A location computed on demand, counting how often it is computed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.text


def test_a_computed_location_is_computed_only_when_asked_and_only_once():
    where = CountingWhere("cases.json line 12 (cases[2])")
    entry = Entry(where, {"id": "a"}, offset=40)
    assert where.calls == 0, f"building an entry computed its location {where.calls} times; expected 0"
    first, second = entry.where, entry.where
    actual = (first, second, where.calls)
    expected = ("cases.json line 12 (cases[2])", "cases.json line 12 (cases[2])", 1)
    assert actual == expected, f"two reads of .where: expected {expected}, got {actual}"


def test_a_written_location_is_returned_as_given():
    entry = Entry("cases.csv line 4", {"id": "a"})
    assert entry.where == "cases.csv line 4", f"expected 'cases.csv line 4', got {entry.where!r}"


def test_place_keeps_the_location_and_offset_and_drops_the_value_and_problems_without_computing_the_location():
    where = CountingWhere("cases.csv line 4")
    problem = Problem("cases.csv line 4", "bytes", "must be 0 or more")
    entry = Entry(where, {"id": "a", "bytes": -1}, (problem,), offset=77)
    placed = entry.place()
    assert where.calls == 0, f"place() computed the location {where.calls} times; expected 0"
    actual = (placed.where, placed.value, placed.problems, placed.offset, entry.value, entry.problems)
    expected = ("cases.csv line 4", None, (), 77, {"id": "a", "bytes": -1}, (problem,))
    assert actual == expected, f"place() of an entry with a value and a problem: expected {expected}, got {actual}"


def test_an_entry_repr_shows_its_location_value_problems_and_offset():
    text = repr(Entry(lambda: "g.csv line 2", {"id": "a"}, (), 9))
    expected = "Entry('g.csv line 2', {'id': 'a'}, (), 9)"
    assert text == expected, f"expected {expected!r}, got {text!r}"


def test_an_entry_holds_exactly_its_four_slots():
    entry = Entry("x", None)
    with pytest.raises(AttributeError):
        entry.extra = 1  # type: ignore[attr-defined]
    actual = (entry.problems, entry.offset)
    assert actual == ((), 0), f"Entry('x', None) defaults: expected ((), 0), got {actual}"


def test_a_table_defaults_to_nothing_read_and_is_frozen():
    table = Table("cases.json")
    actual = (list(table.entries), table.variants, table.problems, table.policy, table.size)
    assert actual == ([], (), (), None, 0), (
        f"Table('cases.json') defaults: expected ([], (), (), None, 0), got {actual}"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.size = 1  # type: ignore[misc]


def test_the_json_reader_gives_entries_whose_locations_are_counted_lazily_and_offsets_reach_the_size():
    text = '[{"id": "a"},\n {"id": "b"}]'
    table = parse_table(text, fmt="json", source="c.json")
    entries = list(table.entries)
    assert all(isinstance(e, Entry) for e in entries) and isinstance(table, Table), (table, entries)
    lazy = [not isinstance(e._where, str) for e in entries]
    assert lazy == [True, True], f"{text!r}: expected both locations still to compute, got lazy={lazy}"
    actual = ([e.where for e in entries], entries[-1].offset, table.size)
    expected = (["c.json line 1 (cases[0])", "c.json line 2 (cases[1])"], len(text), len(text))
    assert actual == expected, f"{text!r}: expected {expected}, got {actual}"
