"""The matcher's limits, stated as public constants: at each limit ``match`` works, one past it
the template is refused with an error that names the limit (or, for the URI, it does not match)."""

from __future__ import annotations

import pytest

from custody_lab import uri_templates
from custody_lab.uri_templates import (
    MAX_EXPRESSIONS,
    MAX_PREFIX_LENGTH,
    MAX_TEMPLATE_LENGTH,
    MAX_URI_LENGTH,
    MAX_VARIABLES,
    UriTemplateError,
    expand,
    match,
    parse,
)


def _refusal(template: str) -> UriTemplateError:
    with pytest.raises(UriTemplateError) as caught:
        match(template, "x")
    return caught.value


def test_the_limits_are_public_names_with_the_mcp_sdks_values_where_it_has_one() -> None:
    actual = {name: getattr(uri_templates, name) for name in uri_templates.__all__ if name.startswith("MAX_")}
    expected = {
        "MAX_TEMPLATE_LENGTH": 8_192,  # mcp.shared.uri_template.DEFAULT_MAX_TEMPLATE_LENGTH
        "MAX_VARIABLES": 256,  # ... DEFAULT_MAX_VARIABLES
        "MAX_URI_LENGTH": 65_536,  # ... DEFAULT_MAX_URI_LENGTH
        "MAX_EXPRESSIONS": 128,
        "MAX_PREFIX_LENGTH": 9_999,  # RFC 6570 §2.4.1: at most four digits
    }
    assert actual == expected, f"expected {expected}, got {actual}"


def test_a_template_of_exactly_max_template_length_characters_matches() -> None:
    template = "t://" + "a" * (MAX_TEMPLATE_LENGTH - len("t://{id}")) + "{id}"
    uri = expand(template, {"id": "A-1"})
    actual = (len(template), match(template, uri), parse(template).match(uri))
    expected = (MAX_TEMPLATE_LENGTH, {"id": "A-1"}, {"id": "A-1"})
    assert actual == expected, f"expected {expected}, got {actual}"


@pytest.mark.parametrize("parsed", [False, True], ids=["text", "parsed"])
def test_a_template_one_character_longer_is_refused_naming_the_limit(parsed: bool) -> None:
    text = "t://" + "a" * (MAX_TEMPLATE_LENGTH + 1 - len("t://{id}")) + "{id}"
    with pytest.raises(UriTemplateError) as caught:
        match(parse(text) if parsed else text, "t://x")
    error = caught.value
    actual = ("MAX_TEMPLATE_LENGTH" in error.reason, f"{MAX_TEMPLATE_LENGTH:,}" in error.reason, error.position)
    assert actual == (True, True, None), f"{len(text)} characters: got {error}"
    with pytest.raises(UriTemplateError, match="MAX_TEMPLATE_LENGTH"):
        expand(parse(text) if parsed else text, {"id": "x"})  # the same limit in both directions


def test_a_template_of_max_expressions_expressions_matches() -> None:
    template = "".join(f"/{{s{k}}}" for k in range(MAX_EXPRESSIONS))
    values = {f"s{k}": str(k) for k in range(MAX_EXPRESSIONS)}
    actual = match(template, expand(template, values))
    assert actual == values, f"{MAX_EXPRESSIONS} expressions: expected the values back, got {actual}"


def test_one_expression_more_is_refused_at_that_expression_naming_the_limit() -> None:
    template = "".join(f"/{{s{k}}}" for k in range(MAX_EXPRESSIONS + 1))
    error = _refusal(template)
    first_past = template.index(f"{{s{MAX_EXPRESSIONS}}}")
    actual = ("MAX_EXPRESSIONS" in error.reason, f"{MAX_EXPRESSIONS + 1:,} expressions" in error.reason, error.position)
    expected = (True, True, first_past)
    assert actual == expected, f"{MAX_EXPRESSIONS + 1} expressions: expected {expected}, got {actual} ({error})"


@pytest.mark.parametrize("operator", ["", "?"])
def test_a_template_of_max_variables_variables_matches(operator: str) -> None:
    names = [f"a{k}" for k in range(MAX_VARIABLES)]
    template = "{" + operator + ",".join(names) + "}"
    values = {name: "v" for name in names}
    actual = match(template, expand(template, values))
    assert actual == values, f"{MAX_VARIABLES} variables in {template[:8]}...: got {actual}"


@pytest.mark.parametrize("operator", ["", "?"])
def test_one_variable_more_is_refused_at_that_variable_naming_the_limit(operator: str) -> None:
    # Fewer expressions than MAX_EXPRESSIONS: the variables are counted over all of them.
    names = [f"a{k}" for k in range(MAX_VARIABLES + 1)]
    template = "{" + operator + ",".join(names[:10]) + "}/{" + operator + ",".join(names[10:]) + "}"
    error = _refusal(template)
    first_past = template.index(f",a{MAX_VARIABLES}}}") + 1
    actual = ("MAX_VARIABLES" in error.reason, f"{MAX_VARIABLES + 1:,} variables" in error.reason, error.position)
    expected = (True, True, first_past)
    assert actual == expected, f"{MAX_VARIABLES + 1} variables: expected {expected}, got {actual} ({error})"


def test_a_uri_of_exactly_max_uri_length_characters_matches_and_one_longer_does_not() -> None:
    template = "orders://{order_id}"
    at_limit = "orders://" + "A" * (MAX_URI_LENGTH - len("orders://"))
    past = at_limit + "A"
    actual = (len(at_limit), match(template, at_limit) is not None, match(template, past))
    expected = (MAX_URI_LENGTH, True, None)
    assert actual == expected, f"expected {expected}, got {actual}"


def test_a_prefix_of_max_prefix_length_parses_and_one_more_is_refused_naming_the_range() -> None:
    spec = parse(f"{{var:{MAX_PREFIX_LENGTH}}}").parts[0]
    with pytest.raises(UriTemplateError) as caught:
        parse(f"{{var:{MAX_PREFIX_LENGTH + 1}}}")
    actual = (str(spec), f"from 1 to {MAX_PREFIX_LENGTH}" in caught.value.reason, caught.value.position)
    expected = (f"{{var:{MAX_PREFIX_LENGTH}}}", True, 5)
    assert actual == expected, f"expected {expected}, got {actual}"


# -- expand is bounded as match is (issue 39 §3) ------------------------------------------------------------


def test_expand_refuses_a_template_over_the_expression_and_variable_limits_as_match_does() -> None:
    too_many = "".join(f"/{{s{k}}}" for k in range(MAX_EXPRESSIONS + 1))
    with pytest.raises(UriTemplateError, match="MAX_EXPRESSIONS"):
        expand(too_many, {})
    wide = "x://{?" + ",".join(f"v{k}" for k in range(MAX_VARIABLES + 1)) + "}"
    with pytest.raises(UriTemplateError, match="MAX_VARIABLES"):
        expand(wide, {})


def test_a_value_too_long_for_a_uri_is_refused_before_any_of_it_is_encoded(monkeypatch) -> None:
    from custody_lab.protocol.uri_templates import expansion

    encoded: list[int] = []
    real = expansion.quote
    monkeypatch.setattr(expansion, "quote", lambda text, safe: encoded.append(len(text)) or real(text, safe=safe))
    with pytest.raises(UriTemplateError, match="MAX_URI_LENGTH") as caught:
        expand("x://{x}", {"x": "%" * 4_000_000})
    assert "'x'" in caught.value.reason and caught.value.position == 5, caught.value
    assert encoded == [], f"encoded {encoded} characters before refusing"
    with pytest.raises(UriTemplateError, match="MAX_URI_LENGTH"):
        expand("x://{x}", {"x": ["a" * 40_000, "b" * 40_000]})  # a list counts all its members


def test_a_prefix_bounds_what_a_long_value_adds_and_the_limit_is_inclusive() -> None:
    assert expand("x://{x:5}", {"x": "a" * 1_000_000}) == "x://aaaaa"
    at_limit = expand("x://{x}", {"x": "a" * (MAX_URI_LENGTH - len("x://"))})
    assert len(at_limit) == MAX_URI_LENGTH
    with pytest.raises(UriTemplateError, match="MAX_URI_LENGTH"):
        expand("x://{x}", {"x": "a" * (MAX_URI_LENGTH - len("x://") + 1)})
    with pytest.raises(UriTemplateError, match="the expansion is"):  # fits as characters, not encoded
        expand("x://{x}", {"x": " " * (MAX_URI_LENGTH // 2)})
