"""The notebook's load bar: the progress callback of read_cases, shown as a bar (views layer)."""

from __future__ import annotations

from custody_lab.views.widgets.load_bar import read_cases_with_bar
from custody_lab.widgets import LoadBar

HEADER = "id,initiator,operation,shape,uri,mime,bytes,current,allowed,sideEffects,provenance"
ROW = "{},model,generate,resource-link,report://r,text/html,10,true,true,false,p@1"


def test_the_bar_rises_with_the_load_and_ends_full_with_every_case_read(tmp_path):
    path = tmp_path / "many.csv"
    path.write_text(HEADER + "\n" + "\n".join(ROW.format(f"r{i}") for i in range(2000)) + "\n", encoding="utf-8")
    bar = LoadBar(path)
    seen: list[int] = []
    bar.bar.observe(lambda change: seen.append(change["new"]), names="value")
    from custody_lab.core.loading import read_cases

    result = read_cases(path, progress=bar)
    assert len(result.cases) == 2000 and not result.problems, result.problems
    assert seen == sorted(seen) and len(seen) >= 50 and seen[-1] == 100, seen
    assert bar.bar.bar_style == "success" and "done of 0.2 MB" in bar.label.value, bar.label.value


def test_the_file_name_on_the_bar_is_escaped():
    bar = LoadBar("<img src=x onerror=alert(1)>.csv")
    assert "<img" not in bar.label.value and "&lt;img" in bar.label.value, bar.label.value


def test_read_cases_with_bar_displays_the_bar_and_returns_what_read_cases_returns(tmp_path, monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    path = tmp_path / "two.csv"
    path.write_text(HEADER + "\n" + ROW.format("a") + "\n" + ROW.format("b") + "\n", encoding="utf-8")
    result = read_cases_with_bar(path)
    assert [c.id for c in result.cases] == ["a", "b"], result.cases
    assert len(shown) == 1 and isinstance(shown[0], LoadBar) and shown[0].bar.value == 100, shown
