"""Charts with words: every what-if plot has alternative text and a table equivalent of its own numbers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from custody_lab.sweep import compare, grid, sweep
from custody_lab.views import figures
from custody_lab.views.html import ViewError
from custody_lab.whatif import plot_text


@pytest.fixture(scope="module")
def swept() -> pd.DataFrame:
    return sweep(grid(bytes=[0, 1000, 2048, 4096, 4097, 8000]))


def test_outcome_share_table_holds_the_bar_segments_the_figure_draws(swept):
    shown = figures.outcome_share(swept, by="shape")
    ax = shown.figure.axes[0]
    widths = sorted(round(p.get_width(), 6) for p in ax.patches if p.get_width() > 0)
    counts = plot_text.outcome_counts_by(swept, "shape")
    expected = sorted(round(n / counts.loc[v].sum(), 6) for v in counts.index for n in counts.loc[v] if n)
    assert widths == expected, f"segment widths {widths[:5]}… differ from the table's shares {expected[:5]}…"
    assert shown.table["rows"].sum() == len(swept)
    assert shown.table["shape"].tolist() == [str(v) for v in counts.index]


def test_policy_comparison_table_holds_the_bar_lengths_the_figure_draws():
    comparison = compare(grid(), None, {"embedLimitBytes": 2048})
    shown = figures.policy_comparison(comparison)
    bars = [p.get_width() for p in shown.figure.axes[0].patches]
    n = len(shown.table)
    assert bars[:n] == shown.table["before"].tolist() and bars[n:] == shown.table["after"].tolist()
    assert (shown.table["change"] == shown.table["after"] - shown.table["before"]).all()
    assert f"{comparison.changed:,} cases change outcome" in shown.alt


def test_bytes_shape_bands_cover_every_row_once_and_merge_only_equal_results(swept):
    text = plot_text.bytes_shape_text(swept)
    for shape, bands in text.table.groupby("shape", sort=False):
        assert bands["rows"].sum() == int((swept["shape"] == shape).sum()), shape
        assert (bands["from bytes"].to_numpy()[1:] > bands["to bytes"].to_numpy()[:-1]).all(), shape
    embedded = text.table[text.table["shape"] == "embedded-resource"]
    # the embed limit (4096) splits the embedded resource's sizes: 4097 and 8000 are over budget
    assert embedded["to bytes"].tolist()[0] == 4096 and "embed-over-budget" in embedded["refusals"].iloc[-1]


def test_the_html_has_the_alt_text_on_the_image_and_the_table_under_text_equivalent(swept):
    html = figures.bytes_shape_map(swept).html()
    assert (
        '<img class="custody-chart-light" src="data:image/png;base64,' in html
        and 'alt="A map of share accepted by shape' in html
    )
    assert "<summary>Text equivalent" in html and "<th>from bytes</th>" in html
    bundle = figures.bytes_shape_map(swept)._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"} and "from bytes" in bundle["text/plain"]


def test_values_from_the_data_are_escaped_in_the_alt_text_and_the_table():
    frame = pd.DataFrame({"team": ['"><script>alert(1)</script>', "ops"], "outcome": ["listed-resource"] * 2})
    html = figures.outcome_share(frame, by="team").html()
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("alt", ["", "   ", None])
def test_a_figure_without_alternative_text_is_refused(alt):
    with pytest.raises(ViewError, match="alternative text"):
        figures.described(object(), alt, [{"a": 1}])  # type: ignore[arg-type]


def test_a_figure_without_a_table_equivalent_is_refused():
    with pytest.raises(ViewError, match="table equivalent"):
        figures.described(object(), "a chart", [])


def test_savefig_still_exports_the_picture(tmp_path, swept):
    path = tmp_path / "share.png"
    figures.outcome_share(swept).savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.asarray(matplotlib.image.imread(path)).shape[0] > 100


def test_the_case_explorer_says_in_words_what_its_matrix_shows_and_follows_each_change():
    from custody_lab.widgets import CaseExplorer

    ex = CaseExplorer("approve-draft")
    assert "is accepted as embedded-resource" in ex.chart_caption.value
    assert ex.children.index(ex.chart_caption) == ex.children.index(ex.picture) + 1  # shown right under the chart
    assert ex.picture.image is ex.chart
    ex.controls["bytes"].value = 5000
    assert "5000 bytes) is refused with embed-over-budget" in ex.chart_caption.value, ex.chart_caption.value
    assert "<td>approve-draft</td><td>True</td>" in ex.matrix_text.value  # the explored row comes first
    assert ex.matrix_text.value.count("<tr>") == 1 + 1 + 10  # header, the explored case, ten context cases


def test_a_hostile_case_id_is_escaped_in_the_matrix_text():
    import custody_lab as cl
    from custody_lab.widgets import CaseExplorer

    hostile = cl.load_fixture().case("handbook").with_changes(id="<img src=x onerror=alert(1)>")
    ex = CaseExplorer(hostile)
    assert "<img src=x" not in ex.matrix_text.value and "&lt;img src=x" in ex.matrix_text.value


def test_the_cumulative_chart_table_holds_the_two_lines_points_and_the_alt_names_the_break_even():
    from custody_lab.protocol.link_or_embed import compare_shapes

    costs = compare_shapes(18000, 5)
    shown = figures.cumulative(costs)
    lines = [line.get_ydata().tolist() for line in shown.figure.axes[0].get_lines() if len(line.get_ydata()) == 5]
    table = [shown.table[c] for c in shown.table.columns[1:3]]
    assert sorted(lines) == sorted(table), (lines, table)
    assert "from call 2 on" in shown.alt
    assert "never ahead" in figures.cumulative_text(compare_shapes(100, 1))[0]


def test_the_link_or_embed_calculator_shows_its_charts_words_under_it():
    from custody_lab.views.widgets.link_or_embed_calculator import LinkOrEmbedCalculator

    calc = LinkOrEmbedCalculator()
    assert "Two lines, bytes in context" in calc.plot_caption.value


def test_show_png_marks_a_light_chart_to_follow_a_dark_page_and_leaves_a_dark_one(tmp_path):
    """An exported chart shown in a notebook follows the page's theme as the lab's other charts do:
    drawn light it carries the class the dark page's rule inverts; drawn dark it does not."""
    import matplotlib.pyplot as plt

    from custody_lab.views.chart import export, matrix_figure
    from custody_lab.views.html import CHART_THEME_STYLE, LIGHT_CHART_CLASS

    light = figures.show_png(export(matrix_figure([]), tmp_path / "light.png"), 'alt <with> "quotes"')
    html = light._repr_mimebundle_()["text/html"]
    assert light.light and f'class="{LIGHT_CHART_CLASS}"' in html and html.startswith(CHART_THEME_STYLE)
    assert 'alt="alt &lt;with&gt; &quot;quotes&quot;"' in html, html[-300:]

    fig = plt.figure(figsize=(2, 1), facecolor="#111111")
    fig.savefig(tmp_path / "dark.png", facecolor=fig.get_facecolor())
    plt.close(fig)
    dark = figures.show_png(tmp_path / "dark.png", "a dark chart")
    assert not dark.light and f'class="{LIGHT_CHART_CLASS}"' not in dark._repr_mimebundle_()["text/html"]


def test_show_png_names_the_path_it_cannot_show(tmp_path):
    (tmp_path / "m.svg").write_text("<svg/>", encoding="utf-8")
    with pytest.raises(ViewError, match=r"m\.svg: it is not a PNG"):
        figures.show_png(tmp_path / "m.svg", "the matrix")
    with pytest.raises(ViewError, match=r"cannot show .*missing\.png"):
        figures.show_png(tmp_path / "missing.png", "the matrix")
    with pytest.raises(ViewError, match="alternative text"):
        figures.show_png(tmp_path / "m.svg", " ")
