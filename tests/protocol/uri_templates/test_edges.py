"""Edges of custody_lab.uri_templates: the uritemplate-test suite's literal apostrophe and floats,
huge prefixes and templates, and linear matchability (the template caches: test_cache.py)."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custody_lab.protocol.uri_templates import matching
from custody_lab.protocol.uri_templates.expansion import encode
from custody_lab.protocol.uri_templates.template import OPERATORS, Expression
from custody_lab.uri_templates import (
    AmbiguousTemplateError,
    UriTemplateError,
    UriTemplateTypeError,
    expand,
    match,
    parse,
)

from ...timing import scaled


def _expand_says(template: str, variables: dict[str, object], expected: str) -> None:
    actual = expand(template, variables)
    assert actual == expected, f"expand({template!r}, {variables!r}): expected {expected!r}, got {actual!r}"


# ------------------------------------------------------------ the uritemplate-test suite's expectations

#: Cases of uri-templates/uritemplate-test: spec-examples.json level 1 (the apostrophe, added
#: with RFC 6570 erratum 6937) and extended-tests.json "Additional Examples 1" (numbers as JSON
#: numbers: "number": 6, "long": 37.76, "lat": -122.427).
SUITE_VARIABLES: dict[str, object] = {"var": "value", "number": 6, "long": 37.76, "lat": -122.427}
SUITE_CASES = [
    ("'{var}'", "'value'"),
    ("/set{?number}", "/set?number=6"),
    ("/loc{?long,lat}", "/loc?long=37.76&lat=-122.427"),
]


@pytest.mark.parametrize(("template", "expected"), SUITE_CASES, ids=[case[0] for case in SUITE_CASES])
def test_the_uritemplate_test_suite_cases_expand_as_the_suite_expects(template: str, expected: str) -> None:
    _expand_says(template, SUITE_VARIABLES, expected)


def test_a_literal_apostrophe_is_copied_and_matches_back() -> None:
    template = "odata://reports/getActiveUserDetail(period='{period}')"
    uri = expand(template, {"period": "D7"})
    actual = (uri, match(template, uri))
    expected = ("odata://reports/getActiveUserDetail(period='D7')", {"period": "D7"})
    assert actual == expected, f"template {template!r}: expected {expected}, got {actual}"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (37.76, "37.76"),
        (-122.427, "-122.427"),
        (6.0, "6"),  # JSON writes 6.0 as 6
        (-0.0, "0"),
        (0.5, "0.5"),
        (1e20, "100000000000000000000"),
        (1e21, "1e%2B21"),  # exponent form from 1e21 on; "+" is encoded by a simple expression
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (123456789.125, "123456789.125"),
        (5e-324, "5e-324"),
    ],
)
def test_a_float_expands_as_json_and_javascript_write_the_number(value: float, expected: str) -> None:
    _expand_says("{v}", {"v": value}, expected)


@pytest.mark.slow  # a long property run (300 examples)
@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_expands_to_text_that_reads_back_as_the_same_float(value: float) -> None:
    text = expand("{+v}", {"v": value})
    assert float(text) == value, f"value {value!r}: expanded to {text!r}, which reads back as {float(text)!r}"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: no JavaScript to compare with")
def test_floats_expand_exactly_as_javascript_writes_them() -> None:
    values = [
        37.76,
        -122.427,
        6.0,
        1e21,
        1e20,
        1.5e-7,
        1e-6,
        1e-7,
        5e-324,
        1.7976931348623157e308,
        2**53 + 2.0,
        0.1 + 0.2,
    ]
    script = f"console.log(JSON.stringify({[repr(v) for v in values]!r}.map(s => String(Number(s)))))"
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=scaled(60), check=True)
    expected = done.stdout.strip()
    actual = "[" + ",".join(f'"{expand("{+v}", {"v": v})}"' for v in values) + "]"
    assert actual == expected, f"values {values}: expected (node) {expected}, got {actual}"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_float_json_cannot_write_is_a_uri_template_error_at_its_varspec(value: float) -> None:
    with pytest.raises(UriTemplateError) as caught:
        expand("x/{v}", {"v": value})
    actual = (caught.value.position, "finite" in str(caught.value), isinstance(caught.value, UriTemplateTypeError))
    assert actual == (3, True, False), f"value {value!r}: expected (3, True, False), got {actual} ({caught.value})"


def test_an_integer_too_long_to_write_out_is_a_uri_template_error_not_a_value_error_crash() -> None:
    with pytest.raises(UriTemplateError, match="too long to write out") as caught:
        expand("x/{v}", {"v": 10**5000})
    assert caught.value.position == 3, f"expected the varspec position 3, got {caught.value.position}"


# ------------------------------------------------------------ huge templates


@pytest.mark.parametrize("digits", ["10000", "99999", "9" * 5000, "1" + "0" * 100_000])
def test_a_prefix_of_thousands_of_digits_is_a_uri_template_error_at_the_digits(digits: str) -> None:
    template = "{var:" + digits + "}"
    with pytest.raises(UriTemplateError) as caught:
        parse(template)
    actual = (caught.value.position, "from 1 to 9999" in str(caught.value))
    assert actual == (5, True), f"prefix of {len(digits)} digits: expected (5, True), got {actual}"


@pytest.mark.parametrize(
    ("template", "position"),
    [
        ("x" * 50_000 + "}" + "y" * 50_000, 50_000),  # in the middle
        ("}" + "y" * 100_000, 0),  # at the start
        ("y" * 100_000 + "{", 100_000),  # at the end
        ("{" + "a" * 100_000 + "-}", 100_001),  # after a huge variable name, which is quoted short
        ("{" + "a" * 100_000 + ":" + "9" * 5000 + "}", 100_002),
    ],
)
def test_an_error_message_quotes_at_most_80_characters_of_a_huge_template(template: str, position: int) -> None:
    with pytest.raises(UriTemplateError) as caught:
        parse(template)
    error = caught.value
    message = str(error)
    quoted = repr(template[max(0, min(position - 40, len(template) - 80)) :][:80])
    actual = (error.position, error.template == template, quoted in message, len(message) < 300)
    expected = (position, True, True, True)
    assert actual == expected, f"template of {len(template)} chars: expected {expected}, got {actual}: {message[:400]}"


def test_a_short_template_is_still_quoted_whole_and_the_reason_is_kept_apart() -> None:
    with pytest.raises(UriTemplateError) as caught:
        parse("orders://{order-id}")
    error = caught.value
    actual = (str(error), error.reason)
    expected = (
        "expected ',', ':', '*' or '}' after variable 'order', found '-' at position 15 "
        "in URI template 'orders://{order-id}'",
        "expected ',', ':', '*' or '}' after variable 'order', found '-'",
    )
    assert actual == expected, f"expected {expected}, got {actual}"


def test_matchability_of_thousands_of_expressions_is_checked_in_linear_time() -> None:
    # The old check walked every later expression for each expression (and sliced the rest):
    # 20,000 chained query expressions took minutes; the timeout turns that into a failure.
    script = textwrap.dedent(
        """
        from custody_lab.protocol.uri_templates.matching import _check_matchable
        from custody_lab.protocol.uri_templates import parse
        n = 20_000
        chained = parse("q://x{?a0}" + "".join("{&a%d}" % k for k in range(1, n)))
        _check_matchable(chained)
        separated = parse("".join("/{s%d}" % k for k in range(n)) + "{?q}")
        _check_matchable(separated)
        clash = parse("".join("/{s%d}" % k for k in range(n)) + "{t}{u}")
        try:
            _check_matchable(clash)
        except ValueError as e:
            print(type(e).__name__, e.position)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=scaled(120), check=False
    )
    assert done.returncode == 0, f"the matchability check failed: {done.stderr[-2000:]}"
    n = 20_000
    last = sum(len(f"/{{s{k}}}") for k in range(n - 1)) + 1  # the last {s...}: {t}{u} may follow it unseen
    expected = f"AmbiguousTemplateError {last}"
    assert done.stdout.strip() == expected, f"expected {expected!r}, got {done.stdout.strip()!r}"


@pytest.mark.parametrize(
    ("template", "ok"),
    [
        ("{?a}{&b}{&c}/x", True),  # each "&" carries on the query
        ("{?a}{&b}{&a}", False),  # a repeated name starts anew: "&" can follow {?a}'s pieces
        ("{;a}{;b}/x", True),
        ("{;a}{;a}", False),
        ("{a}{?b}{&c}{#d}", True),
        ("{a}{?b}{&c}{d}", False),  # {d} may start with what {a} produces
        ("{?a}{b}{&c}", False),  # {b} may produce what follows {?a}'s values
    ],
)
def test_chains_of_expressions_are_judged_like_the_rule_says(template: str, ok: bool) -> None:
    try:
        match(template, "")
        actual = True
    except AmbiguousTemplateError:
        actual = False
    assert actual == ok, f"template {template!r}: expected matchable={ok}, got {actual}"


# ------------------------------------------------------------ trailing undefined variables


@pytest.mark.parametrize(
    ("template", "values", "expected"),
    [
        ("{a,b}", {"a": "x"}, {"a": "x"}),
        ("{a,b,c}", {"a": "x", "b": "y"}, {"a": "x", "b": "y"}),
        ("{a,b*}", {"a": "x"}, {"a": "x"}),
        ("X{.a,b}", {"a": "x"}, {"a": "x"}),
        ("p{/a,b,c}", {"a": "x"}, {"a": "x"}),
        ("p{/a,b,c}?q", {"a": "x", "b": ""}, {"a": "x", "b": ""}),
    ],
)
def test_an_expression_whose_later_variables_are_undefined_round_trips(
    template: str, values: dict[str, object], expected: dict[str, object]
) -> None:
    uri = expand(template, values)
    actual = match(template, uri)
    assert actual == expected, f"template {template!r} values {values} -> {uri!r}: expected {expected}, got {actual}"


def _old_following_chars(expression: Expression, rest: tuple[str | Expression, ...]) -> set[str]:
    """The check as it was before it became linear: walk the later parts up to a literal."""
    chars: set[str] = set()
    for part in rest:
        if isinstance(part, str):
            chars.add(encode(part, allow_reserved=True)[0])
            return chars
        operator, other = OPERATORS[expression.operator], OPERATORS[part.operator]
        names = {spec.name for spec in expression.varspecs}
        continues = (
            operator.named
            and other.named
            and other.first == operator.sep
            and not names & {spec.name for spec in part.varspecs}
        )
        if not continues:
            chars |= {other.first} if other.first else matching._BODY_CHARS[part.operator]
    return chars


@pytest.mark.slow  # a long property run (300 examples)
@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "{a}",
                "{b}",
                "{+a}",
                "{#c}",
                "{.a}",
                "{/b}",
                "{;a}",
                "{;b}",
                "{?a}",
                "{?b,c}",
                "{&a}",
                "{&c}",
                "/",
                "x",
                "?",
                "&",
                ";",
                "#",
                ".",
            ]
        ),
        max_size=8,
    ).map("".join)
)
def test_the_one_pass_follower_sets_equal_walking_the_rest_for_each_expression(template: str) -> None:
    parts = parse(template).parts
    actual = matching._following_chars(parts)
    expected = [
        None
        if not isinstance(part, Expression) or all(isinstance(p, str) for p in parts[i + 1 :])
        else _old_following_chars(part, parts[i + 1 :])
        for i, part in enumerate(parts)
    ]
    assert actual == expected, f"template {template!r}: expected {expected}, got {actual}"


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("{a,b}", "x,y,z", None),  # more pieces than variables
        ("{a,b*}", "x,y,z", {"a": "x", "b": ["y", "z"]}),  # the exploded last takes the rest
        ("p{/a,b}", "p/x/y/z", None),
        ("{+a}", "x,y", {"a": "x,y"}),  # one reserved value keeps its commas
    ],
)
def test_the_pieces_of_an_expression_are_its_variables_in_order(
    template: str, uri: str, expected: dict[str, object] | None
) -> None:
    actual = match(template, uri)
    assert actual == expected, f"match({template!r}, {uri!r}): expected {expected}, got {actual}"


# -- encode is one library pass, byte for byte what the per-character rule of §3.2.1 gives -----------------


def _encode_by_the_rule(text: str, allow_reserved: bool) -> str:
    from custody_lab.protocol.uri_templates.template import RESERVED, UNRESERVED, is_triplet

    out, index = [], 0
    while index < len(text):
        char = text[index]
        if allow_reserved and char == "%" and is_triplet(text, index):
            out.append(text[index : index + 3])
            index += 3
            continue
        if char in UNRESERVED or (allow_reserved and char in RESERVED):
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        index += 1
    return "".join(out)


@pytest.mark.parametrize("allow_reserved", [False, True])
@pytest.mark.parametrize(
    "text",
    [
        "",
        "a b/%2F",
        "%",
        "%%41",
        "%4",
        "%zz%41%",
        "é/ü?#[]@!$&'()*+,;=",
        "\U0001f600 %e2%82%ac",
        "~._-AZaz09",
        "\x00\x7f",
    ],
)
def test_encode_gives_what_the_per_character_rule_gives(text: str, allow_reserved: bool) -> None:
    from custody_lab.protocol.uri_templates.expansion import encode

    assert encode(text, allow_reserved) == _encode_by_the_rule(text, allow_reserved)
