"""Hypothesis strategies for cases, inside and outside the seed's input domain."""

from __future__ import annotations

from hypothesis import strategies as st

from custody_lab.core.model import INITIATORS, OPERATIONS, SHAPES

# No lone surrogates: JSON.stringify escapes them and json.dumps cannot encode them as UTF-8.
text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
ids = text.filter(lambda s: s.strip() != "")
# A URI, MIME type or provenance of only whitespace is blank (custody-incomplete): outside the seed's domain.
custody_text = text.filter(lambda s: not s.isspace())
limit_bytes = st.one_of(st.integers(0, 20000), st.sampled_from([4095, 4096, 4097, 0]))


def seed_domain_case() -> st.SearchStrategy[dict]:
    """Every field present and well typed, as the seed's Node ``route`` expects."""
    return st.fixed_dictionaries(
        {
            "id": ids,
            "initiator": st.sampled_from(INITIATORS),
            "operation": st.sampled_from(OPERATIONS),
            "shape": st.sampled_from(SHAPES),
            "uri": custody_text,
            "mime": custody_text,
            "bytes": limit_bytes,
            "current": st.booleans(),
            "allowed": st.booleans(),
            "sideEffects": st.booleans(),
            "provenance": custody_text,
        },
        optional={"requiresCurrent": st.booleans()},
    )


def any_valid_case() -> st.SearchStrategy[dict]:
    """Valid cases including the custody gaps the lab's own rules reject."""
    maybe = st.one_of(text, st.just(""), st.none())
    return st.fixed_dictionaries(
        {
            "id": ids,
            "initiator": st.sampled_from(INITIATORS),
            "operation": st.sampled_from(OPERATIONS),
            "shape": st.sampled_from(SHAPES),
            "bytes": st.integers(0, 1 << 30),
            "current": st.booleans(),
            "allowed": st.booleans(),
        },
        optional={
            "uri": maybe,
            "mime": maybe,
            "provenance": maybe,
            "sideEffects": st.one_of(st.booleans(), st.none()),
            "requiresCurrent": st.booleans(),
            "title": text,
            "description": text,
        },
    )
