"""Tests for custody_lab.uri_templates: RFC 6570 expansion, template errors, and matching."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custody_lab.core.errors import CustodyLabError
from custody_lab.uri_templates import (
    AmbiguousTemplateError,
    Expression,
    UriTemplate,
    UriTemplateError,
    UriTemplateTypeError,
    VarSpec,
    expand,
    match,
    parse,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "uri_templates"
RFC = json.loads((FIXTURES / "rfc6570_examples.json").read_text(encoding="utf-8"))
INVALID = json.loads((FIXTURES / "invalid_templates.json").read_text(encoding="utf-8"))["invalid"]


def _expand_says(template: str, variables: dict[str, Any], expected: str) -> None:
    actual = expand(template, variables)
    assert actual == expected, f"expand({template!r}, {variables!r}): expected {expected!r}, got {actual!r}"


def _match_says(template: str, uri: str, expected: dict[str, Any] | None) -> None:
    actual = match(template, uri)
    assert actual == expected, f"match({template!r}, {uri!r}): expected {expected!r}, got {actual!r}"


# ------------------------------------------------------------ fixture-driven


def test_rfc_fixture_lists_examples_from_every_section() -> None:
    sections = {example["section"] for example in RFC["examples"]}
    assert RFC["examples"], "the RFC 6570 fixture has no examples"
    assert len(sections) == 13, f"expected the 4 level tables of §1.2 and §3.2.1-§3.2.9, got {sorted(sections)}"


def _example_id(example: dict[str, Any]) -> str:
    words = example["section"].split()
    return " ".join(words[:3] if words[0] == "1.2" else words[:1]) + " " + example["template"]


@pytest.mark.parametrize("example", RFC["examples"], ids=_example_id)
def test_every_rfc_example_expands_exactly(example: dict[str, Any]) -> None:
    accepted = example["expected"] if isinstance(example["expected"], list) else [example["expected"]]
    actual = expand(example["template"], RFC["variables"])
    assert actual in accepted, f"template {example['template']!r}: expected {accepted!r}, got {actual!r}"


def test_invalid_fixture_is_not_empty() -> None:
    assert INVALID, "the invalid-templates fixture has no entries"


@pytest.mark.parametrize("case", INVALID, ids=lambda c: repr(c["template"]))
def test_every_invalid_template_raises_with_its_position(case: dict[str, Any]) -> None:
    with pytest.raises(UriTemplateError) as caught:
        parse(case["template"])
    error = caught.value
    assert (error.template, error.position) == (case["template"], case["position"]), (
        f"template {case['template']!r} ({case['reason']}): expected position {case['position']}, "
        f"got {error.position} ({error})"
    )
    assert "expected" in str(error), f"message should say what was expected: {error}"


def test_invalid_templates_are_rejected_by_expand_too() -> None:
    for case in INVALID:
        with pytest.raises(UriTemplateError):
            expand(case["template"], {"var": "value"})


# ------------------------------------------------------------ parsing


def test_parse_exposes_operators_varspecs_and_variable_names() -> None:
    template = parse("logs://{service}{/path*}{?level,since:10}")
    expressions = [part for part in template.parts if isinstance(part, Expression)]
    assert template.template == "logs://{service}{/path*}{?level,since:10}"
    assert template.parts[0] == "logs://"
    assert [e.operator for e in expressions] == ["", "/", "?"]
    assert expressions[1].varspecs == (VarSpec("path", None, True, 18),)
    assert expressions[2].varspecs[1] == VarSpec("since", 10, False, 32)
    assert template.variable_names == template.variables == ("service", "path", "level", "since")


def test_parse_is_cached_and_the_template_is_immutable() -> None:
    template = parse("orders://{order_id}")
    assert parse("orders://{order_id}") is template
    with pytest.raises(AttributeError):
        template.template = "changed"  # type: ignore[misc]


def test_a_repeated_variable_is_listed_once() -> None:
    assert parse("{/var:1,var}{?var}").variable_names == ("var",)


def test_variable_names_may_hold_dots_and_percent_triplets() -> None:
    assert parse("{a.b,c%20d,_1}").variable_names == ("a.b", "c%20d", "_1")
    _expand_says("{?a.b}", {"a.b": "x"}, "?a.b=x")


def test_error_message_names_the_template_and_what_was_expected() -> None:
    with pytest.raises(UriTemplateError) as caught:
        parse("orders://{order_id")
    assert "expected '}'" in str(caught.value)
    assert "'orders://{order_id'" in str(caught.value)


# ------------------------------------------------------------ expansion


def test_simple_expansion_percent_encodes_slash_and_question_mark() -> None:
    _expand_says("orders://{order_id}", {"order_id": "a/b?c"}, "orders://a%2Fb%3Fc")


def test_user_value_cannot_escape_its_segment() -> None:
    template, value = "orders://{order_id}", "../admin?x=1#y"
    uri = expand(template, {"order_id": value})
    assert uri == "orders://..%2Fadmin%3Fx%3D1%23y", f"got {uri!r}"
    assert "/" not in uri.removeprefix("orders://"), f"a '/' escaped into {uri!r}"
    _match_says(template, uri, {"order_id": value})


def test_expand_accepts_a_parsed_template_and_the_method_form() -> None:
    template = parse("orders://{order_id}")
    values = {"order_id": "A-1002"}
    assert expand(template, values) == template.expand(values) == "orders://A-1002"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("{?empty}", "?empty="),
        ("{?undef}", ""),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{&empty}", "&empty="),
        ("{/empty}", "/"),
        ("{#empty}", "#"),
        ("a{empty}b", "ab"),
        ("{x,empty,y}", "1024,,768"),
        ("{x,undef,y}", "1024,768"),
    ],
)
def test_empty_strings_are_defined_but_undefined_variables_vanish(template: str, expected: str) -> None:
    _expand_says(template, {"x": "1024", "y": "768", "empty": "", "undef": None}, expected)


@pytest.mark.parametrize("empty", [[], (), {}])
def test_empty_lists_and_empty_maps_are_undefined(empty: object) -> None:
    _expand_says("X{.v}{?v}{/v*}", {"v": empty}, "X")


def test_none_members_of_lists_and_maps_are_skipped() -> None:
    values = {"list": ["a", None, "b"], "keys": {"k": None, "m": "1"}, "nothing": [None]}
    _expand_says("{/list*}{?keys*}", values, "/a/b?m=1")
    _expand_says("{list}-{keys}", values, "a,b-m,1")
    _expand_says("X{.nothing}", values, "X")


def test_integers_are_expanded_with_str() -> None:
    _expand_says("{/id}{?limit,page*}", {"id": 42, "limit": 0, "page": [1, -2]}, "/42?limit=0&page=1&page=-2")


@pytest.mark.parametrize("value", [True, False, [True], {"k": False}])
def test_booleans_are_rejected_with_a_uri_template_error(value: object) -> None:
    with pytest.raises(UriTemplateError, match="boolean is not a URI template value") as caught:
        expand("x/{flag}", {"flag": value})
    assert caught.value.position == 3, f"expected the varspec position 3, got {caught.value.position}"


@pytest.mark.parametrize("value", [1j, b"bytes", {"a", "b"}, [["nested"]], object()])
def test_unsupported_value_types_raise_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="'v'"):
        expand("{v}", {"v": value})


@pytest.mark.parametrize(
    ("value", "type_name"),
    [
        (1j, "complex"),
        (b"bytes", "bytes"),
        ({"a", "b"}, "set"),
        ([["nested"]], "list"),
        (object(), "object"),
        ({"k": 1j}, "complex"),
    ],
)
def test_an_unsupported_value_is_a_uri_template_type_error_at_its_varspec(value: object, type_name: str) -> None:
    template = "x/{a}{?v}"
    with pytest.raises(UriTemplateTypeError) as caught:
        expand(template, {"a": "ok", "v": value})
    error = caught.value
    actual = (error.template, error.position, f"got {type_name}" in str(error))
    expected = (template, template.index("v"), True)
    assert actual == expected, f"expand({template!r}, v={value!r}): expected {expected}, got {actual}"


def test_non_ascii_values_are_utf8_percent_encoded() -> None:
    _expand_says("{v}", {"v": "é"}, "%C3%A9")
    _expand_says("{+v}", {"v": "日本/😀"}, "%E6%97%A5%E6%9C%AC/%F0%9F%98%80")


def test_non_ascii_literals_are_percent_encoded_and_triplets_kept() -> None:
    _expand_says("café/{v}", {"v": "é"}, "caf%C3%A9/%C3%A9")
    _expand_says("a%2Fb/{v}", {"v": "x"}, "a%2Fb/x")


def test_existing_triplets_are_kept_by_reserved_and_fragment_but_reencoded_by_simple() -> None:
    values = {"v": "a%2Fb"}
    _expand_says("{+v}", values, "a%2Fb")
    _expand_says("{#v}", values, "#a%2Fb")
    _expand_says("{v}", values, "a%252Fb")
    _expand_says("{+v}", {"v": "100% sure"}, "100%25%20sure")


def test_reserved_characters_pass_only_under_plus_and_hash() -> None:
    values = {"v": ":/?#[]@!$&'()*+,;="}
    _expand_says("{+v}", values, ":/?#[]@!$&'()*+,;=")
    _expand_says("{v}", values, "%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D")


def test_prefix_of_9999_on_a_short_value_returns_the_whole_value() -> None:
    _expand_says("{var:9999}", {"var": "value"}, "value")


def test_prefix_counts_unicode_characters_not_bytes() -> None:
    _expand_says("{v:2}", {"v": "日本語"}, "%E6%97%A5%E6%9C%AC")


def test_prefix_under_reserved_never_splits_a_percent_triplet() -> None:
    _expand_says("{+v:2}", {"v": "%2Fabc"}, "%2Fa")
    _expand_says("{#v:1}", {"v": "%2Fabc"}, "#%2F")
    _expand_says("{v:2}", {"v": "%2Fabc"}, "%252")


def test_exploded_path_parameter_map_with_an_empty_value_appends_only_the_key() -> None:
    _expand_says("{;keys*}", {"keys": {"a": "", "b": "1"}}, ";a;b=1")
    _expand_says("{;list*}", {"list": ["", "x"]}, ";list;list=x")


def test_exploded_form_query_map_with_an_empty_value_keeps_the_equals_sign() -> None:
    _expand_says("{?keys*}", {"keys": {"a": "", "b": "1"}}, "?a=&b=1")
    _expand_says("{&list*}", {"list": [""]}, "&list=")


def test_exploded_map_in_unnamed_expression_gives_only_the_key_for_an_empty_value() -> None:
    _expand_says("{keys*}", {"keys": {"a": "", "b": "1"}}, "a,b=1")
    _expand_says("{/keys*}", {"keys": {"a": ""}}, "/a")


def test_map_keys_are_encoded_like_values() -> None:
    _expand_says("{?keys*}", {"keys": {"a&b": "c d"}}, "?a%26b=c%20d")


def test_prefix_on_a_list_value_raises_naming_the_variable() -> None:
    with pytest.raises(UriTemplateError, match="'list'") as caught:
        expand("items{/list:3}", {"list": ["red", "green"]})
    assert caught.value.position == 7, f"expected the varspec position 7, got {caught.value.position}"


def test_prefix_on_a_map_value_raises() -> None:
    with pytest.raises(UriTemplateError, match="'keys'"):
        expand("{?keys:3}", {"keys": {"a": "b"}})


def test_prefix_on_an_undefined_list_is_not_an_error() -> None:
    _expand_says("x{/list:3}", {"list": []}, "x")


def test_explode_with_prefix_is_a_parse_error() -> None:
    with pytest.raises(UriTemplateError) as caught:
        parse("{list:3*}")
    assert caught.value.position == 7


# ------------------------------------------------------------ matching


def test_match_returns_the_order_id() -> None:
    _match_says("orders://{order_id}", "orders://A-1003", {"order_id": "A-1003"})


def test_match_returns_none_for_another_scheme() -> None:
    _match_says("orders://{order_id}", "tickets://T-501", None)


def test_match_reads_an_optional_query_variable_when_present() -> None:
    _match_says(
        "logs://{service}/{day}{?level}",
        "logs://api/today?level=warn",
        {"service": "api", "day": "today", "level": "warn"},
    )


def test_match_leaves_out_an_optional_query_variable_when_absent() -> None:
    _match_says("logs://{service}/{day}{?level}", "logs://api/today", {"service": "api", "day": "today"})


@pytest.mark.parametrize("uri", ["orders://a/b", "orders://a?b", "orders://a#b", "orders://a b"])
def test_simple_match_never_captures_unencoded_delimiters(uri: str) -> None:
    _match_says("orders://{order_id}", uri, None)


def test_percent_encoded_slash_in_the_uri_decodes_to_slash() -> None:
    _match_says("orders://{order_id}", "orders://a%2Fb", {"order_id": "a/b"})


def test_integers_come_back_as_strings() -> None:
    template = "orders://{id}{?limit}"
    _match_says(template, expand(template, {"id": 7, "limit": 50}), {"id": "7", "limit": "50"})


def test_invalid_utf8_in_the_uri_does_not_match() -> None:
    _match_says("orders://{order_id}", "orders://%FF", None)


def test_match_accepts_a_parsed_template_and_the_method_form() -> None:
    template = parse("orders://{order_id}")
    assert template.match("orders://A-1") == match(template, "orders://A-1") == {"order_id": "A-1"}


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("file:///{+path}", "file:///docs/a%20b/c.txt", {"path": "docs/a b/c.txt"}),
        ("{+path}/here", "/foo/bar/here", {"path": "/foo/bar"}),
        ("repo://{owner}{/path*}", "repo://me/a/b", {"owner": "me", "path": ["a", "b"]}),
        ("repo://{owner}{/path*}", "repo://me", {"owner": "me"}),
        ("{/var,x}/here", "/value/1024/here", {"var": "value", "x": "1024"}),
        ("{/var:1,var}", "/v/value", {"var": "value"}),
        ("www{.dom*}", "www.example.com", {"dom": ["example", "com"]}),
        ("X{.x,y}", "X.1024.768", {"x": "1024", "y": "768"}),
        ("map?{x,y}", "map?1024,768", {"x": "1024", "y": "768"}),
        ("{count*}", "one,two,three", {"count": ["one", "two", "three"]}),
        ("{;x,y,empty}", ";x=1024;y=768;empty", {"x": "1024", "y": "768", "empty": ""}),
        ("{;v,bar,who}", ";v=6;who=fred", {"v": "6", "who": "fred"}),
        ("{;list*}", ";list=red;list=green;list=blue", {"list": ["red", "green", "blue"]}),
        ("{?x,y,empty}", "?x=1024&y=768&empty=", {"x": "1024", "y": "768", "empty": ""}),
        ("{?x,y}", "?y=768", {"y": "768"}),
        ("{?list*}", "?list=red&list=green", {"list": ["red", "green"]}),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024", {"x": "1024"}),
        ("{?a}{&b}", "&b=2", {"b": "2"}),
        ("{?a}{&b}", "?a=1&b=2", {"a": "1", "b": "2"}),
        ("foo{#frag}", "foo#a/b?c#d", {"frag": "a/b?c#d"}),
        ("foo{#frag}", "foo", {}),
        ("{?var:3}", "?var=val", {"var": "val"}),
        ("{x,y}", "1024", {"x": "1024"}),  # y undefined: no "," and no y
        ("{x,y}", "1024,", {"x": "1024", "y": ""}),  # y empty: the "," is there
    ],
)
def test_match_reads_back_each_supported_expression_type(template: str, uri: str, expected: dict[str, Any]) -> None:
    _match_says(template, uri, expected)


@pytest.mark.parametrize(
    ("template", "uri"),
    [
        ("{?x,y}", "?y=768&x=1024"),  # parameters must come in template order
        ("{?x}", "&x=1"),  # "?" opens the query
        ("{?x}", "?z=1"),  # unknown parameter
        ("{?var:3}", "?var=value"),  # longer than the prefix allows
        ("{/var:1,var}", "/x/value"),  # the prefix must agree with the full value
        ("{a}/{a}", "x/y"),  # a repeated variable has one value
        ("{;x}", ";x="),  # ";" never writes "x=" for an empty value
    ],
)
def test_match_returns_none_for_uris_expansion_cannot_produce(template: str, uri: str) -> None:
    _match_says(template, uri, None)


@pytest.mark.parametrize(
    "template",
    [
        "{a}{b}",  # where does a end and b begin?
        "{name}{.ext}",  # a name may contain dots
        "{+path}{id}",
        "up{+path}{var}/here",  # reserved expression followed by another expression
        "{+path}/items/{id}",
        "{#frag}{x}",
        "{+a,b}",  # reserved values may contain ","
        "{#a,b}",
        "{keys*}{+rest}",
        "{+keys*}",  # an exploded associative array under "+"
        "{#keys*}",
        "{a*,b}",  # only the last variable may be exploded
        "{/a*,b}",
        "{?a,a}",  # repeated name inside a named expression
        "{?a}{&a}",
        "{a}/{a*}",  # exploded in one place only
        "{/a}{/b}",  # optional path segments side by side
        "X{.a}.{b}",
        "{?a}?{b}",  # an optional "?" expression followed by "?"
    ],
)
def test_ambiguous_templates_raise_from_match(template: str) -> None:
    with pytest.raises(AmbiguousTemplateError) as caught:
        match(template, "anything")
    assert caught.value.template == template
    position = caught.value.position
    assert position is not None and template.rfind("{", 0, position + 1) > template.rfind("}", 0, position), (
        f"{template!r}: position {position} should point into the offending expression"
    )


def test_ambiguous_template_error_is_a_uri_template_error_and_expansion_still_works() -> None:
    assert issubclass(AmbiguousTemplateError, UriTemplateError)
    _expand_says("{a}{b}", {"a": "x", "b": "y"}, "xy")


# ------------------------------------------------------------ properties

VALUE_CHARS = list("aZ09-._~ :/?#[]@!$&'()*+,;=%\"<>{}|\\^`") + ["é", "日", "😀", "\u00a0"]
TRIPLET = re.compile("%[0-9A-Fa-f]{2}")
# First characters of literals placed between expressions: no operator can produce them except + and #.
SAFE_FIRST = list("!$()*+:@[]#")
LITERAL_TAIL = ["a", "Z", "0", "-", ".", "_", "~", "/", ":", "?", "=", "&", ";", ",", "!", "é", "%41"]
OPERATORS = ["", "+", "#", ".", "/", ";", "?", "&"]


def _text(op: str) -> st.SearchStrategy[str]:
    chars = [c for c in VALUE_CHARS if c != "."] if op == "." else VALUE_CHARS  # a dot separates labels
    text = st.lists(st.sampled_from(chars + ["%41", "%2F"]), max_size=6).map("".join)
    if op in ("+", "#"):  # reserved values come back decoded, so leave out ready-made triplets
        text = text.filter(lambda value: not TRIPLET.search(value))
    return text


def _scalar(op: str) -> st.SearchStrategy[str | int]:
    return st.one_of(_text(op), st.integers(-999, 10**6))


@st.composite
def matchable_cases(draw: st.DrawFn) -> tuple[str, dict[str, object], dict[str, object]]:
    """A template from the documented matchable subset, values for it, and what match should return."""
    count = draw(st.integers(1, 3))
    ops = [draw(st.sampled_from(OPERATORS if k == count - 1 else OPERATORS[:1] + OPERATORS[3:])) for k in range(count)]
    template = draw(st.lists(st.sampled_from(LITERAL_TAIL), max_size=3).map("".join))
    values: dict[str, object] = {}
    expected: dict[str, object] = {}
    for k, op in enumerate(ops):
        if k:
            prev = ops[k - 1]
            # No literal is needed where the next expression starts with a character the previous one
            # cannot produce ("#", "?" after a non-query, "&" continuing a query); otherwise add one.
            glued = op == "#" or (op == "?" and prev in ("", ".", "/", ";")) or (op == "&" and prev in ("?", "&"))
            if not (glued and draw(st.booleans())):
                template += draw(st.sampled_from(SAFE_FIRST))
                template += draw(st.lists(st.sampled_from(LITERAL_TAIL), max_size=2).map("".join))
        nvars = 1 if op in ("+", "#") else draw(st.integers(1, 3))
        named = op in (";", "?", "&")
        absent_unit = op in ("#", ".", "/") and draw(st.integers(0, 3)) == 0
        # "", "." and "/" skip undefined variables with their separator: a trailing run of them
        # leaves the URI early and must come back absent.
        defined_up_to = draw(st.integers(1, nvars)) if op in ("", ".", "/") else nvars
        specs = []
        for j in range(nvars):
            name = f"v{len(values)}"
            explode = op not in ("+", "#") and (named or j == nvars - 1) and draw(st.booleans())
            prefix = None if explode else draw(st.none() | st.integers(1, 4))
            specs.append(f"{name}*" if explode else name if prefix is None else f"{name}:{prefix}")
            if absent_unit or j >= defined_up_to or (named and draw(st.integers(0, 2)) == 0):
                values[name] = None
                continue
            if explode:
                members = draw(st.lists(_scalar(op), min_size=1, max_size=3))
                values[name] = members
                expected[name] = [str(m) for m in members]
            else:
                value = draw(_scalar(op))
                values[name] = value
                expected[name] = str(value) if prefix is None else str(value)[:prefix]
        template += "{" + op + ",".join(specs) + "}"
    template += draw(st.one_of(st.just(""), st.sampled_from(SAFE_FIRST).map(lambda c: c + "x/")))
    return template, values, expected


@pytest.mark.slow  # a long property run (200 examples)
@settings(max_examples=200, deadline=None)
@given(matchable_cases())
def test_match_inverts_expand_for_matchable_templates(case: tuple[str, dict[str, object], dict[str, object]]) -> None:
    template, values, expected = case
    uri = expand(template, values)
    actual = match(template, uri)
    assert actual == expected, (
        f"template {template!r} values {values!r} -> uri {uri!r}: expected {expected!r}, got {actual!r}"
    )


@pytest.mark.slow  # a long property run (200 examples)
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12), st.sampled_from(OPERATORS))
def test_expansion_only_emits_uri_characters(value: str, op: str) -> None:
    uri = expand("x{" + op + "v}", {"v": value})
    uri_chars = re.compile(r"(?:[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=-]|%[0-9A-F]{2})*")
    assert uri_chars.fullmatch(uri), f"value {value!r} under {op!r}: {uri!r} is not made of URI characters"


@pytest.mark.slow  # a long property run (200 examples)
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_simple_expansion_leaves_only_unreserved_characters_and_triplets(value: str) -> None:
    encoded = expand("{v}", {"v": value})
    assert re.fullmatch(r"(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})*", encoded), (
        f"value {value!r}: expected only unreserved characters and %XX, got {encoded!r}"
    )


@pytest.mark.slow  # a long property run (200 examples)
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_any_text_survives_a_simple_round_trip(value: str) -> None:
    template = "orders://{order_id}/items"
    uri = expand(template, {"order_id": value})
    _match_says(template, uri, {"order_id": value})


def test_uri_template_is_exported_as_a_value_type() -> None:
    assert isinstance(parse("{a}"), UriTemplate)
    assert str(parse("x{/a*}")) == "x{/a*}"
    assert str(parse("x{/a*,b:3}").parts[1]) == "{/a*,b:3}"


def test_a_lone_surrogate_in_a_value_is_a_template_error_not_a_unicode_crash():
    from custody_lab.uri_templates import UriTemplateError, expand

    with pytest.raises(UriTemplateError, match="no UTF-8 form") as info:
        expand("orders://{order_id}", {"order_id": "A\ud800"})
    assert info.value.position == 10, info.value.position


# ------------------------------------------------------------ the error family


def test_uri_template_errors_belong_to_the_lab_family_and_stay_value_errors() -> None:
    with pytest.raises(UriTemplateError) as caught:
        parse("a{b")
    error = caught.value
    kinds = (isinstance(error, CustodyLabError), isinstance(error, ValueError), error.template, error.position)
    assert kinds == (True, True, "a{b", 1), f"parse('a{{b'): expected (True, True, 'a{{b', 1), got {kinds}"
    assert issubclass(AmbiguousTemplateError, UriTemplateError)
    assert issubclass(UriTemplateTypeError, UriTemplateError) and issubclass(UriTemplateTypeError, TypeError)


@pytest.mark.parametrize("template", [None, 42, b"orders://{id}", ["orders://{id}"]])
def test_a_template_that_is_not_text_is_a_uri_template_type_error(template: object) -> None:
    with pytest.raises(UriTemplateTypeError, match=type(template).__name__) as caught:
        parse(template)  # type: ignore[arg-type]
    assert caught.value.position is None, f"parse({template!r}): expected no position, got {caught.value.position}"


@pytest.mark.parametrize("variables", [None, [("id", "A-1")], "id=A-1"])
def test_variables_that_are_not_a_mapping_are_a_uri_template_type_error(variables: object) -> None:
    with pytest.raises(UriTemplateTypeError, match=type(variables).__name__) as caught:
        expand("orders://{id}", variables)  # type: ignore[arg-type]
    assert caught.value.template == "orders://{id}", (
        f"expected the template in the error, got {caught.value.template!r}"
    )


@pytest.mark.parametrize("uri", [None, b"orders://A-1", 7])
def test_a_uri_that_is_not_text_is_a_uri_template_type_error(uri: object) -> None:
    with pytest.raises(UriTemplateTypeError, match=type(uri).__name__):
        match("orders://{id}", uri)  # type: ignore[arg-type]


@pytest.mark.slow  # a long property run (300 examples)
@settings(max_examples=300)
@given(st.text(alphabet="{}%,:*+#./;?&=abc012 \x00é", max_size=24))
def test_parse_of_any_text_either_succeeds_or_raises_a_uri_template_error(template: str) -> None:
    try:
        parsed = parse(template)
    except UriTemplateError as e:
        assert e.template == template, f"parse({template!r}): the error names {e.template!r}"
        assert e.position is None or 0 <= e.position < len(template), f"parse({template!r}): position {e.position}"
        return
    assert str(parsed) == template, f"parse({template!r}) kept {str(parsed)!r}"


@pytest.mark.slow  # a long property run (200 examples)
@settings(max_examples=200)
@given(
    st.sampled_from(["{v}", "{+v}", "{#v}", "{.v}", "{/v*}", "{;v}", "{?v}", "{&v*}", "{v:3}"]),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4) | st.binary(max_size=3),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=6,
    ),
)
def test_expand_of_any_value_returns_text_or_raises_a_uri_template_error(template: str, value: object) -> None:
    try:
        uri = expand(template, {"v": value})
    except UriTemplateError as e:
        where = (e.template, e.position)
        expected = (template, template.index("v"))
        assert where == expected, f"expand({template!r}, {value!r}): expected the error at {expected}, got {where}"
        return
    assert isinstance(uri, str), f"expand({template!r}, {value!r}) gave {uri!r}"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("x/\U0001f600/{a}", "x/%F0%9F%98%80/1"),  # U+1F600: a ucschar outside the BMP (RFC 3987)
        ("x/\U000f0000/{a}", "x/%F3%B0%80%80/1"),  # U+F0000: iprivate, plane 15
        ("x/\U000e1000/{a}", "x/%F3%A1%80%80/1"),  # U+E1000: plane 14 after its tag block
    ],
)
def test_astral_literal_letters_are_allowed_and_percent_encoded(template: str, expected: str) -> None:
    _expand_says(template, {"a": 1}, expected)


def test_a_variable_name_may_start_with_a_percent_triplet() -> None:
    names = parse("{%41b,c}").variable_names
    assert names == ("%41b", "c"), f"parse('{{%41b,c}}'): expected ('%41b', 'c'), got {names}"
    _expand_says("{?%41b}", {"%41b": "x"}, "?%41b=x")
