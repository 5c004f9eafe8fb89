"""The host lens shown: one column per profile, server text escaped, broken rules highlighted with the seed."""

from __future__ import annotations

from custody_lab.core.rules import rule
from custody_lab.protocol.host_lens import LensInput, lens, sample_result
from custody_lab.views.host_lens_html import LENS_CLASS, column_html, lens_html

HOSTILE = '<img src=x onerror="alert(1)"></pre>\x1b[2J\u202eevil'


def test_every_profile_gets_a_column_and_the_differences_sentence_comes_first():
    html = lens_html(lens(sample_result("structured", 100)))
    assert html.index("custody-host-differ") < html.index(LENS_CLASS)
    for pid in ("custodian", "plain-reader", "both-forms", "eager-fetcher"):
        assert f"custody-host-{pid}" in html, pid
    assert "2 different texts reach the model" in html
    assert "Every profile puts the same text" in lens_html(lens(sample_result("text", 10)))


def test_server_text_in_the_model_text_and_the_log_is_escaped_and_made_visible():
    inp = LensInput(HOSTILE, {"content": [{"type": "text", "text": HOSTILE}]})
    html = lens_html(lens(inp))
    assert "<img" not in html and "</pre>\x1b" not in html and "\u202e" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "\\x1b[2J" in html and "\\u202eevil" in html


def test_a_broken_rule_is_highlighted_with_its_seed_sentence_and_a_kept_one_is_not():
    (eager,) = [r for r in lens(sample_result("link", 500, link_readable=False)) if r.profile.id == "eager-fetcher"]
    html = column_html(eager)
    broken = html.split('class="custody-rule-broken"')
    assert len(broken) - 1 == len(eager.broken) == 3
    assert "avoid laundering it through a privileged background fetch." in html
    assert rule("link-dereferenced-silently").quote in html
    assert html.count('class="custody-rule-kept"') == 3
    assert "✗ breaks 3 custody rule(s)" in html
    assert f"{eager.model_bytes:,} bytes" in html and f"≈ {eager.tokens:,} tokens" in html
