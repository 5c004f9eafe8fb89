"""Dot-segments: a template value of ``.`` or ``..`` that becomes a whole path segment
(custody_lab.protocol.dot_segments), found by the function itself and refused by the template
reader's preview."""

from __future__ import annotations

import pytest

from custody_lab.protocol.dot_segments import DotSegment, dot_segments
from custody_lab.protocol.template_reading import preview
from custody_lab.uri_templates import UriTemplateError, expand

# --------------------------------------------------------------------------------------------
# dot_segments itself
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "values", "expected"),
    [
        ("crm://customer/{id}", {"id": ".."}, [("..", ("id",), 15)]),
        ("crm://customer/{id}/notes", {"id": "."}, [(".", ("id",), 15)]),
        ("x://h/{a}/{b}", {"a": "..", "b": "."}, [("..", ("a",), 6), (".", ("b",), 9)]),
        ("files://docs{/path*}", {"path": ["guides", "..", "secrets"]}, [("..", ("path",), 20)]),
        ("kb://handbook/{+path}", {"path": "v4/%2E%2e/hr"}, [("%2E%2e", ("path",), 17)]),
        ("x:{/a}", {"a": ".."}, [("..", ("a",), 3)]),  # no authority: the path starts after "x:"
        ("x://host{/a}?q=1", {"a": "."}, [(".", ("a",), 9)]),
    ],
)
def test_each_dot_segment_a_value_writes_is_reported_in_order_at_its_index(template, values, expected):
    actual = [(found.segment, found.variables, found.start) for found in dot_segments(template, values)]
    assert actual == expected, f"{template!r} with {values}: expected {expected}, got {actual}"


@pytest.mark.parametrize(
    ("template", "values"),
    [
        ("crm://customer/{id}", {"id": "%2E%2E"}),  # "%" itself is encoded: "%252E%252E" is no dot
        ("crm://customer/{id}", {"id": "..."}),
        ("crm://customer/{id}#{x}", {"id": "a", "x": ".."}),  # the fragment is not the path
        ("x://{host}/a", {"host": ".."}),  # the authority is not the path
        ("x://h/{m}", {"m": {"k": ".."}}),  # a map expands to "k,..": one segment, no dot-segment
        ("x://h/../{id}", {"id": "a"}),  # the template's own text is trusted
    ],
)
def test_dots_outside_a_whole_path_segment_or_written_by_the_template_are_not_reported(template, values):
    actual = dot_segments(template, values)
    assert actual == (), f"{template!r} with {values} -> {expand(template, values)!r}: expected (), got {actual}"


@pytest.mark.parametrize(
    ("template", "values", "names"),
    [
        ("files://docs{/a,b}", {"a": "..", "b": None}, ("a",)),  # b is undefined: never blamed
        ("files://docs{/a,b}", {"a": "x", "b": "."}, ("b",)),  # b holds the dot, a does not
        ("x://h/{a}{b}", {"a": ".", "b": "."}, ("a", "b")),  # neither holds ".." alone
        ("x://h/{a,c}{b}", {"a": ".", "c": None, "b": "."}, ("a", "b")),  # c is undefined: not blamed
    ],
)
def test_the_variable_holding_the_dots_is_blamed_or_every_defined_one_when_none_holds_them_alone(
    template, values, names
):
    actual = [found.variables for found in dot_segments(template, values)]
    assert actual == [names], f"{template!r} with {values}: expected [{names}], got {actual}"


def test_a_dot_segment_is_a_frozen_value_and_a_bad_template_raises_as_expand_does():
    found = dot_segments("crm://customer/{id}", {"id": ".."})
    assert found == (DotSegment("..", ("id",), 15),), f"expected one DotSegment at 15, got {found}"
    with pytest.raises(AttributeError):
        found[0].start = 0  # type: ignore[misc]
    with pytest.raises(UriTemplateError) as caught:
        dot_segments("crm://customer/{id", {"id": ".."})
    assert caught.value.position == 15, f"expected the error at position 15, got {caught.value.position}"


# --------------------------------------------------------------------------------------------
# The preview finds them and is not ready to read
# --------------------------------------------------------------------------------------------


DOT_SEGMENT_CASES = [
    ("crm://customer/{id}", {"id": ".."}, "crm://customer/..", "..", ("id",)),
    ("crm://customer/{id}", {"id": "."}, "crm://customer/.", ".", ("id",)),
    ("crm://customer/{id}/notes", {"id": ".."}, "crm://customer/../notes", "..", ("id",)),
    ("files://docs{/path*}", {"path": "guides, .., secrets"}, "files://docs/guides/../secrets", "..", ("path",)),
    ("files://docs{/a,b}", {"a": "x", "b": "."}, "files://docs/x/.", ".", ("b",)),  # b holds it, not a
    ("x://h/{a}{b}", {"a": ".", "b": "."}, "x://h/..", "..", ("a", "b")),  # neither holds it alone
    ("kb://handbook/{+path}", {"path": "v4/%2e%2E/hr"}, "kb://handbook/v4/%2e%2E/hr", "%2e%2E", ("path",)),
    ("{/id}", {"id": ".."}, "/..", "..", ("id",)),  # a relative reference has a path too
]


@pytest.mark.parametrize(("template", "inputs", "uri", "segment", "names"), DOT_SEGMENT_CASES)
def test_a_value_that_makes_a_dot_segment_is_found_with_its_variables(template, inputs, uri, segment, names):
    current = preview(template, inputs)
    found = current.dot_segments
    actual = (current.uri, [(f.segment, f.variables, current.uri[f.start : f.start + len(f.segment)]) for f in found])
    expected = (uri, [(segment, names, segment)])
    assert actual == expected, f"{template!r} with {inputs}: expected {expected}, got {actual}"
    assert not current.ready, f"{template!r} with {inputs}: a dot-segment must not be ready to read"
    direct = dot_segments(template, current.values)
    assert direct == found, f"{template!r} with {current.values}: dot_segments gave {direct}, the preview {found}"


@pytest.mark.parametrize(
    ("template", "inputs"),
    [
        ("crm://customer/{id}", {"id": "../.."}),  # "/" encoded: one segment "..%2F.."
        ("crm://customer/{id}", {"id": "..."}),
        ("crm://customer/{id}.json", {"id": ".."}),  # "....json"
        ("crm://x-{id}", {"id": ".."}),
        ("orders://{order_id}", {"order_id": ".."}),  # the authority, not a path segment
        ("logs://{service}/today{?level}", {"service": "api", "level": ".."}),  # in the query
        ("kb://handbook/./{id}", {"id": "returns"}),  # the template's own text, not a value
    ],
)
def test_dots_that_make_no_dot_segment_of_a_value_are_not_flagged(template, inputs):
    current = preview(template, inputs)
    assert current.dot_segments == (), f"{template!r} with {inputs} -> {current.uri!r}: got {current.dot_segments}"


# --------------------------------------------------------------------------------------------
# The claims notebook 03 makes about dots and slashes in a value
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [".", ".."])
def test_a_dot_value_expands_to_a_dot_segment_in_a_simple_expression(value):
    assert expand("crm://customer/{id}", {"id": value}) == f"crm://customer/{value}"
    found = [(f.segment, f.variables) for f in dot_segments("crm://customer/{id}", {"id": value})]
    assert found == [(value, ("id",))], f"{value!r}: expected [({value!r}, ('id',))], got {found}"


def test_a_value_with_slashes_stays_in_one_segment_under_simple_expansion_but_not_under_reserved():
    assert expand("crm://customer/{id}", {"id": "../../kb/shipping"}) == "crm://customer/..%2F..%2Fkb%2Fshipping"
    assert expand("crm://customer/{+id}", {"id": "../../kb/shipping"}) == "crm://customer/../../kb/shipping"
