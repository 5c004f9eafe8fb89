"""Filling in a resource template and reading it: custody_lab.protocol.template_reading, without any widget.

Which variables are required, what the typed text becomes, the preview and its template errors,
what a value can do to the path, and what a read gives. The HTML of each step and the widget are
tested in tests/views/widgets/test_template_reader.py; the dot-segments themselves in
tests/protocol/test_dot_segments.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from custody_lab.protocol.catalog import Catalog
from custody_lab.protocol.template_reading import (
    Preview,
    parse_error,
    preview,
    read_preview,
    read_template,
    template_problem,
    template_variables,
    values_from_inputs,
)
from custody_lab.uri_templates import UriTemplateError, match


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


# --------------------------------------------------------------------------------------------
# Which variables are required
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("orders://{order_id}", [("order_id", "path", True)]),
        ("crm://customer/{id}", [("id", "path", True)]),
        (
            "logs://{service}/{day}{?level}",
            [("service", "path", True), ("day", "path", True), ("level", "query", False)],
        ),
        (
            "files://docs{/path*}{?rev}{&mode}",
            [("path", "path", True), ("rev", "query", False), ("mode", "query", False)],
        ),
        ("kb://{+path}{#section}", [("path", "path", True), ("section", "fragment", False)]),
        ("logs://api{;day}{.fmt}", [("day", "matrix", False), ("fmt", "path", True)]),
        ("x://{id}{?id}", [("id", "path", True)]),  # path anywhere makes it required
    ],
)
def test_path_variables_are_required_and_query_variables_optional(template, expected):
    actual = [(v.name, v.role, v.required) for v in template_variables(template)]
    assert actual == expected, f"{template}: expected {expected}, got {actual}"


def test_every_catalog_template_has_at_least_one_required_variable(catalog):
    assert catalog.templates, "the catalog lists no templates"
    for entry in catalog.templates:
        variables = template_variables(entry.uri_template)
        assert any(v.required for v in variables), entry.uri_template
        assert [v.name for v in variables] == list(entry.variables)


def test_explode_prefix_and_reserved_are_reported():
    path, section, code = template_variables("x://{/path*}{#section}{code:3}")
    assert path.explode and not path.reserved and "comma-separated" in path.hint
    assert section.reserved and not section.required
    assert code.prefix == 3 and "first 3 characters" in code.hint


def test_an_invalid_template_has_no_variables_and_raises():
    with pytest.raises(UriTemplateError):
        template_variables("orders://{order-id}")


@pytest.mark.parametrize(
    ("inputs", "values", "missing"),
    [
        (
            {"service": "api", "day": "2026-09-04", "level": "warn"},
            {"service": "api", "day": "2026-09-04", "level": "warn"},
            (),
        ),
        ({"service": "api", "day": "", "level": ""}, {"service": "api", "day": None, "level": None}, ("day",)),
        ({"service": "   ", "day": "d"}, {"service": None, "day": "d", "level": None}, ("service",)),
        ({"service": " a b ", "day": "d"}, {"service": " a b ", "day": "d", "level": None}, ()),
        ({}, {"service": None, "day": None, "level": None}, ("service", "day")),
    ],
)
def test_empty_boxes_are_undefined_and_text_is_kept_as_typed(inputs, values, missing):
    got_values, got_missing = values_from_inputs(template_variables("logs://{service}/{day}{?level}"), inputs)
    assert (got_values, got_missing) == (values, missing), f"{inputs}: got {got_values}, {got_missing}"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a,b,c", ["a", "b", "c"]),
        (" guides , returns ", ["guides", "returns"]),
        ("a,,b", ["a", "b"]),
        (" , ", None),
        ("", None),
        ("one", ["one"]),
    ],
)
def test_an_exploded_variable_takes_a_comma_separated_list(text, value):
    values, _ = values_from_inputs(template_variables("files://docs{/path*}"), {"path": text})
    assert values["path"] == value, f"{text!r}: expected {value!r}, got {values['path']!r}"


# --------------------------------------------------------------------------------------------
# The preview and template errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "inputs", "uri"),
    [
        ("orders://{order_id}", {"order_id": "A-1002"}, "orders://A-1002"),
        ("crm://customer/{id}", {"id": "fixture 17/eu"}, "crm://customer/fixture%2017%2Feu"),
        ("logs://{service}/{day}{?level}", {"service": "api", "day": "2026-09-04"}, "logs://api/2026-09-04"),
        (
            "logs://{service}/{day}{?level}",
            {"service": "api", "day": "2026-09-04", "level": "error"},
            "logs://api/2026-09-04?level=error",
        ),
        ("files://docs{/path*}", {"path": "guides, returns"}, "files://docs/guides/returns"),
        ("kb://{+path}", {"path": "handbook/v4"}, "kb://handbook/v4"),
    ],
)
def test_the_preview_is_the_engines_expansion(template, inputs, uri):
    current = preview(template, inputs)
    assert current.ready and current.uri == uri, f"{template} {inputs}: expected {uri!r}, got {current}"
    assert current.message == f"Ready to read {uri}."


def test_a_required_variable_left_empty_is_named_and_shows_the_uri_it_would_make():
    current = preview("logs://{service}/{day}{?level}", {"service": "api"})
    assert not current.ready and current.missing == ("day",)
    assert "day is required" in current.message and "'logs://api/'" in current.message, current.message


@pytest.mark.parametrize(
    ("template", "position"),
    [
        ("orders://{order-id}", 15),
        ("orders://{order_id", 9),
        ("x://a}", 5),
        ("x://{}", 5),
        ("kb://my docs/{id}", 7),
        ("x://{!a}", 5),
        ("x://{a:0}", 7),
    ],
)
def test_an_invalid_template_gives_a_problem_with_a_caret_under_the_position(template, position):
    current = preview(template, {})
    assert current.problem is not None and not current.ready and current.uri is None
    assert current.problem.position == position, f"{template}: {current.problem}"
    first, second = current.problem.caret().split("\n")
    assert first == template and second.index("^") == position, current.problem.caret()
    assert "in URI template" not in current.problem.reason, "the reason repeats the template"
    assert "not valid" in current.message


def test_a_value_error_at_expansion_is_a_problem_too():
    # a prefix on a list is refused at expansion (RFC 6570 §2.4.1); the form can give a list
    # only to an exploded variable, so build the case by hand
    error = None
    try:
        from custody_lab.uri_templates import expand

        expand("x://{a:2}", {"a": ["b", "c"]})
    except UriTemplateError as e:
        error = e
    assert error is not None
    problem = template_problem(error)
    assert problem.position == 5 and "prefix" in problem.reason


def test_control_characters_are_shown_visibly_and_the_caret_stays_aligned():
    problem = template_problem(parse_error("x://a\tb{c}"))
    first, second = problem.caret().split("\n")
    assert "\t" not in first and "␉" in first and second.index("^") == problem.position == 5


def test_parse_error_refuses_a_valid_template():
    with pytest.raises(ValueError, match="valid URI template"):
        parse_error("orders://{order_id}")


def test_a_long_template_error_shows_80_characters_around_the_caret():
    template = "x://" + "a" * 5000 + "{id" + "b" * 5000
    problem = template_problem(parse_error(template))
    first, second = problem.caret().split("\n")
    actual = (len(first) <= 82, first[second.index("^")], problem.position, "in URI template" in problem.reason)
    assert actual == (True, "{", 5004, False), f"expected (True, '{{', 5004, False), got {actual}: {first!r}"


def test_a_five_thousand_digit_prefix_is_a_problem_not_a_crash():
    current = preview("orders://{order_id:" + "9" * 5000 + "}", {"order_id": "A-1"})
    actual = (current.ready, current.problem is not None and current.problem.position)
    assert actual == (False, 19), f"expected (False, 19), got {actual}"


# --------------------------------------------------------------------------------------------
# What a value can do to the path: "/" is encoded, and a dot-segment is refused
# --------------------------------------------------------------------------------------------


ESCAPES = [
    "../../kb/shipping",
    "../fixture-17",
    "fixture-17/../../kb/shipping",
    "a/b",
    "a?b=1",
    "a#frag",
    "...",
    "%2E%2E",
    "%2F..%2F",
    "fixture-17?x",
    "\\..\\kb",
]


@pytest.mark.parametrize("value", ESCAPES)
def test_a_value_with_dots_or_slashes_stays_inside_its_segment(value, catalog):
    current = preview("crm://customer/{id}", {"id": value})
    assert current.ready and current.uri is not None
    rest = current.uri[len("crm://customer/") :]
    for char in "/?#\\":
        assert char not in rest, f"{value!r} -> {current.uri!r}: {char!r} left unencoded"
    assert match("crm://customer/{id}", current.uri) == {"id": value}, "the value must come back whole"
    fresh = Catalog.load()
    outcome = read_preview(fresh, current)
    assert outcome.status == "not-found", f"{value!r} read something: {outcome}"
    assert list(fresh.reads) == [current.uri], "nothing but the previewed URI may be read"


@given(st.text(max_size=40) | st.sampled_from([".", ".."]))
def test_any_typed_value_stays_in_its_segment_or_is_refused_plainly(value):
    current = preview("crm://customer/{id}", {"id": value})  # never raises
    if not value.strip():
        assert current.missing == ("id",) and not current.ready
    elif value in (".", ".."):
        assert not current.ready and current.dot_segments and "Refused" in current.message
    elif current.unencodable:
        assert not current.ready and "lone surrogate" in current.message
    else:
        assert current.ready and current.uri is not None
        rest = current.uri[len("crm://customer/") :]
        assert not set(rest) & set("/?#\\<>\"' "), f"{value!r} -> {current.uri!r}"
        assert match("crm://customer/{id}", current.uri) == {"id": value}


def test_reading_a_dot_segment_is_refused_naming_the_variable_value_and_host_policy():
    fresh = Catalog.load()
    current = preview("crm://customer/{id}", {"id": ".."})
    outcome = read_preview(fresh, current)
    expected_start = "Refused: id = '..' makes the path segment '..' of 'crm://customer/..', a dot-segment"
    actual = (outcome.status, list(fresh.reads), outcome.message.startswith(expected_start))
    assert actual == ("not-ready", [], True), f"expected ('not-ready', [], True), got {actual}: {outcome.message}"
    for words in ("RFC 3986 §5.2.4", "the lab's host policy", "MCP 2026-07-28", "servers to validate"):
        assert words in outcome.message, f"the refusal should say {words!r}: {outcome.message}"


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def test_a_log_read_filters_by_the_optional_level(catalog):
    every = read_template(catalog, "logs://{service}/{day}{?level}", {"service": "api", "day": "2026-09-04"})
    errors = read_template(
        catalog, "logs://{service}/{day}{?level}", {"service": "api", "day": "2026-09-04", "level": "error"}
    )
    assert every.status == errors.status == "read"
    assert "level all" in (every.result.text or "") and "level error" in (errors.result.text or "")
    assert (errors.result.text or "").count("ERROR") == 2


def test_nothing_is_read_for_an_invalid_template():
    fresh = Catalog.load()
    outcome = read_preview(fresh, preview("orders://{order-id}", {"order-id": "A-1002"}))
    assert outcome.status == "not-ready" and not fresh.reads and "not valid" in outcome.message


def test_preview_is_a_frozen_value():
    current = preview("orders://{order_id}", {"order_id": "A-1"})
    assert isinstance(current, Preview)
    with pytest.raises(AttributeError):
        current.uri = "x"  # type: ignore[misc]
