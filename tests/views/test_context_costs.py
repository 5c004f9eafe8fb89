"""The link-or-embed views: the cumulative-bytes plot and the same-URI verdict, escaped."""

from __future__ import annotations

import pytest

from custody_lab.protocol.catalog import Catalog
from custody_lab.protocol.link_or_embed import compare_shapes, resource_link_block, same_uri_invariant
from custody_lab.views.context_costs import plot_cumulative, uri_check_html
from custody_lab.views.html import ViewError


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.mark.parametrize(("size", "reuse"), [(18000, 5), (300, 1), (2500, 20)])
def test_the_plot_has_two_lines_told_apart_without_colour(size, reuse, tmp_path):
    costs = compare_shapes(size, reuse)
    fig = plot_cumulative(costs)
    ax = fig.axes[0]
    lines = [line for line in ax.get_lines() if len(line.get_xdata()) == reuse]
    assert len(lines) == 2
    assert {line.get_linestyle() for line in lines} == {"-", "--"}
    assert {line.get_marker() for line in lines} == {"o", "s"}
    assert list(lines[0].get_ydata()) == list(costs.embed_cumulative)
    texts = [t.get_text() for t in ax.texts]
    assert f"embed: {costs.embed_total:,}" in texts and f"link: {costs.link_total:,}" in texts
    assert costs.shape in ax.get_title()
    fig.savefig(tmp_path / "plot.png")
    assert (tmp_path / "plot.png").stat().st_size > 1000


def test_the_plot_draws_into_a_given_axes():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.subplots()
    assert plot_cumulative(compare_shapes(1000, 3), ax=ax) is fig


def test_the_plot_refuses_axes_that_belong_to_no_figure():
    class DetachedAxes:  # what get_figure() says of axes removed from their figure
        def get_figure(self, root: bool = False) -> None:
            return None

    with pytest.raises(ViewError, match="ax: the axes passed to plot_cumulative belong to no figure"):
        plot_cumulative(compare_shapes(1000, 3), ax=DetachedAxes())  # type: ignore[arg-type]


def test_a_hostile_uri_is_escaped_in_the_html(catalog):
    check = same_uri_invariant(resource_link_block("x://<script>alert(1)</script>", "x"), catalog)
    page = uri_check_html(check)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "NOT REGISTERED" in page and "SAME URI" not in page, page
