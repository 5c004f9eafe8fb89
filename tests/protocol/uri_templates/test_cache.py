"""The template caches (custody_lab.protocol.uri_templates.cache): least recently used, bounded in
entries *and* in template characters, so hostile huge templates cannot pin memory."""

from __future__ import annotations

import threading

from custody_lab.protocol.uri_templates import matching
from custody_lab.protocol.uri_templates import template as parsing
from custody_lab.protocol.uri_templates.cache import MAX_CACHED_CHARS, MAX_CACHED_ENTRIES, BoundedCache
from custody_lab.uri_templates import match, parse


def test_the_least_recently_used_entry_goes_first_and_a_get_makes_an_entry_recent():
    cache: BoundedCache[str, int] = BoundedCache(max_entries=2, max_chars=1600)
    cache.put("a", 1, cost=10)
    cache.put("b", 2, cost=10)
    assert cache.get("a") == 1, "precondition: a is cached"
    cache.put("c", 3, cost=10)  # b is now the least recently used
    actual = (cache.get("a"), cache.get("b"), cache.get("c"), len(cache), cache.chars)
    expected = (1, None, 3, 2, 20)
    assert actual == expected, f"put a, b; get a; put c (2 entries at most): expected {expected}, got {actual}"


def test_an_entry_costing_more_than_a_sixteenth_of_the_character_budget_is_never_stored():
    cache: BoundedCache[str, int] = BoundedCache(max_entries=100, max_chars=1600)
    cache.put("at-cap", 1, cost=100)
    cache.put("over-cap", 2, cost=101)
    actual = (cache.get("at-cap"), cache.get("over-cap"), cache.chars)
    assert actual == (1, None, 100), f"costs 100 and 101 with max_chars 1600: expected (1, None, 100), got {actual}"


def test_the_character_budget_evicts_the_oldest_entries_while_under_the_entry_limit():
    cache: BoundedCache[str, int] = BoundedCache(max_entries=100, max_chars=32)
    keys = [f"k{n:02}" for n in range(17)]
    for key in keys[:16]:
        cache.put(key, 0, cost=2)
    kept = [key for key in keys if cache.get(key) is not None]
    assert (cache.chars, kept) == (32, keys[:16]), (
        f"16 entries of 2 chars in a 32-char cache: expected all kept at 32 chars, got {cache.chars} chars, {kept}"
    )
    cache.put(keys[16], 0, cost=2)
    kept = [key for key in keys if cache.get(key) is not None]
    assert (cache.chars, kept) == (32, keys[1:]), (
        f"a 17th entry in a full 32-char cache: expected {keys[0]!r} evicted at 32 chars, got {cache.chars}, {kept}"
    )


def test_putting_a_cached_key_again_keeps_the_first_value_and_counts_its_characters_once():
    cache: BoundedCache[str, str] = BoundedCache(max_entries=4, max_chars=1600)
    cache.put("t", "first", cost=40)
    cache.put("t", "second", cost=40)
    actual = (cache.get("t"), len(cache), cache.chars)
    assert actual == ("first", 1, 40), f"put t twice: expected ('first', 1, 40), got {actual}"


def test_clear_empties_the_cache_and_its_character_count():
    cache: BoundedCache[str, int] = BoundedCache()
    cache.put("a", 1, cost=10)
    cache.clear()
    actual = (len(cache), cache.chars, cache.get("a"))
    assert actual == (0, 0, None), f"after clear: expected (0, 0, None), got {actual}"


def test_the_parser_and_the_matcher_use_the_default_bounds():
    actual = [(c.max_entries, c.max_chars) for c in (parsing._PARSED, matching._MATCHERS)]
    expected = [(MAX_CACHED_ENTRIES, MAX_CACHED_CHARS)] * 2
    assert actual == expected, f"(entries, chars) of the parse and match caches: expected {expected}, got {actual}"
    assert (MAX_CACHED_ENTRIES, MAX_CACHED_CHARS) == (512, 1 << 20), "the documented bounds"


def test_puts_from_many_threads_keep_the_character_count_equal_to_what_is_cached():
    cache: BoundedCache[int, int] = BoundedCache(max_entries=50, max_chars=1 << 16)

    def fill(start: int) -> None:
        for key in range(start, start + 400):
            cache.put(key, key, cost=1 + key % 7)
            cache.get(key - 3)

    threads = [threading.Thread(target=fill, args=(k * 400,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    held = [key for key in range(1600) if cache.get(key) is not None]
    expected = sum(1 + key % 7 for key in held)
    assert (len(cache), cache.chars) == (50, expected), (
        f"4 threads x 400 puts into 50 entries: expected (50, {expected}), got ({len(cache)}, {cache.chars})"
    )


def test_the_parse_cache_is_bounded_in_template_characters_not_only_entries() -> None:
    cache = parsing._PARSED
    cache.clear()
    size = cache.max_chars // 20  # under the per-entry cap, but 40 of them are twice the budget
    for k in range(40):
        parse(f"t{k}://" + "a" * size + "{id}")
    actual = (cache.chars <= cache.max_chars, len(cache) < 40)
    assert actual == (True, True), (
        f"40 templates of {size:,} chars: expected the cache within {cache.max_chars:,} chars, "
        f"got {cache.chars:,} chars in {len(cache)} entries"
    )
    small = parse("orders://{order_id}")
    assert parse("orders://{order_id}") is small, "a small template is still parsed once"


def test_a_template_over_the_per_entry_cap_is_not_cached() -> None:
    cache = parsing._PARSED
    cache.clear()
    huge = "x://" + "a" * (cache.max_chars // 16 + 1) + "{id}"
    parse(huge)
    assert (len(cache), cache.chars) == (0, 0), f"expected nothing cached, got {len(cache)} entries"


def test_the_matcher_cache_counts_each_compiled_template_by_its_characters() -> None:
    # The bound itself is the parse cache's (tested above, same class); here: the matcher cache
    # is one, and an entry costs its template's length.
    cache = matching._MATCHERS
    cache.clear()
    templates = [f"t{k}://" + "a" * 4000 + "{id}" for k in range(3)]
    for template in templates:
        match(template, "nothing")
    actual = (isinstance(cache, BoundedCache) and isinstance(parsing._PARSED, BoundedCache), len(cache), cache.chars)
    expected = (True, 3, sum(map(len, templates)))
    assert actual == expected, f"3 templates of ~4,000 chars: expected {expected}, got {actual}"
