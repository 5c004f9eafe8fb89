"""Cause and effect in words (custody_lab.core.explain): what changed between two cases, and
whether that flipped the outcome; the case explorer shows these sentences."""

from __future__ import annotations

import pytest

import custody_lab as cl
from custody_lab.core.explain import Change, diff, flip_sentence, outcome_label, value_text


@pytest.fixture(scope="module")
def base() -> cl.Case:
    return cl.load_fixture().case("approve-draft")


@pytest.mark.parametrize(
    ("value", "text"),
    [(True, "true"), (False, "false"), (None, "null"), (1800, "1800"), ("kb://x", '"kb://x"'), ("é", '"é"')],
)
def test_a_value_is_written_as_the_case_file_writes_it(value, text):
    assert value_text(value) == text, f"value_text({value!r}): expected {text!r}, got {value_text(value)!r}"


def test_a_change_reads_field_before_arrow_after():
    change = Change("uri", "draft://fixture/9", None)
    assert str(change) == 'uri "draft://fixture/9" → null', f"got {str(change)!r}"


def test_the_diff_lists_only_the_inputs_that_differ_in_the_field_tables_order(base):
    changed = base.with_changes(allowed=False, bytes=9000)
    actual = diff(base, changed)
    expected = [Change("bytes", 760, 9000), Change("allowed", True, False)]
    assert actual == expected, f"bytes=9000, allowed=False: expected {expected}, got {actual}"
    assert diff(base, base) == [], f"a case against itself: expected [], got {diff(base, base)}"


def test_an_accepted_outcome_is_named_by_its_shape_only_when_the_other_side_chose_another_shape():
    handbook = cl.load_fixture().case("handbook")
    listed, templated = cl.route(handbook), cl.route(handbook.with_changes(shape="templated-resource"))
    rejected = cl.route(handbook.with_changes(allowed=False))
    actual = (
        outcome_label(listed),
        outcome_label(listed, listed),
        outcome_label(listed, templated),
        outcome_label(listed, rejected),
        outcome_label(rejected, listed),
    )
    expected = ("accepted", "accepted", "listed-resource", "accepted", "permission-denied")
    assert actual == expected, f"expected {expected}, got {actual}"


def test_no_change_and_an_unchanged_outcome_are_said_plainly(base):
    same = flip_sentence([], cl.route(base), cl.route(base))
    expected = "no input differs from the baseline; outcome accepted"
    assert same == expected, f"no changes: expected {expected!r}, got {same!r}"
    other = base.with_changes(bytes=800)
    kept = flip_sentence(diff(base, other), cl.route(base), cl.route(other))
    expected = "bytes 760 → 800: outcome unchanged (embedded-resource)"
    assert kept == expected, f"bytes 760 → 800 (under the limit): expected {expected!r}, got {kept!r}"


def test_flip_sentence_reads_like_the_lesson():
    base = cl.load_fixture().case("handbook")
    stale = base.with_changes(current=False, requiresCurrent=True)
    s = flip_sentence(diff(base, stale), cl.route(base), cl.route(stale))
    assert s == "current true → false, requiresCurrent false → true flipped accepted → stale-content"
    linked = base.with_changes(shape="templated-resource")
    s = flip_sentence(diff(base, linked), cl.route(base), cl.route(linked))
    assert s == 'shape "listed-resource" → "templated-resource" flipped listed-resource → templated-resource'
