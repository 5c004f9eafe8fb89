"""The facilitator's guide (docs/workshop.md) and the notebooks agree: the 90-minute plan has
contiguous times, one row per lesson in the session, each notebook's own **Time** line equal to its
row (or saying it is take-home), the three judgement decisions in the room with slack to spare, and
a discussion prompt for each in-room judgement exercise whose wrong answers are its own mistakes."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shlex
from pathlib import Path

import pytest

from custody_lab.exercises import all_exercises, get
from custody_lab.teaching.placement import ASK_CALL

from .exercise_assertions import assert_mistake
from .test_packaging import command_problems

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDE_PATH = ROOT / "docs" / "workshop.md"
GUIDE = GUIDE_PATH.read_text(encoding="utf-8")
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
#: The plan's slack: rows no notebook owns, spent when a discussion runs long, else on questions.
SLACK = ("buffer", "questions")
#: Rows of the plan that are no lesson: the time a room needs around the notebooks.
AROUND = ("start-up", *SLACK)
ROW = re.compile(r"^\| (\d+):(\d\d)–(\d+):(\d\d) \| (`[^|]*`|[a-z -]+) \|", re.MULTILINE)


def guide_section(heading: str, text: str = GUIDE) -> str:
    """The body of the guide's ``## heading`` section, up to the next ``## `` heading."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 5)
    return text[start : len(text) if end == -1 else end]


def plan(text: str = GUIDE) -> list[tuple[int, int, str]]:
    section = guide_section("The 90-minute plan", text)
    rows = [(int(a) * 60 + int(b), int(c) * 60 + int(d), what.strip("`")) for a, b, c, d, what in ROW.findall(section)]
    assert len(rows) >= 8, f"the plan table has only {len(rows)} rows"
    return rows


def first_cell(path: Path) -> str:
    return "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])


def test_the_plan_runs_from_0_00_to_1_30_without_gaps_or_overlaps():
    rows = plan()
    assert rows[0][0] == 0 and rows[-1][1] == 90, rows
    for (_, end, what), (start, _, nxt) in zip(rows, rows[1:]):
        assert end == start, f"{what} ends at {end} min but {nxt} starts at {start} min"


def test_every_row_names_a_notebook_that_exists_or_a_break_or_the_recap():
    names = {p.stem for p in NOTEBOOKS}
    for _, _, what in plan():
        assert what in names or what in ("break", "recap", *AROUND), f"plan row {what!r} is not a notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebook_states_the_time_its_plan_row_gives_or_says_it_is_take_home(path):
    rows = {what: end - start for start, end, what in plan()}
    found = re.search(r"\*\*Time\*\* · (?:about (\d+) minutes|after the session)", first_cell(path))
    assert found, f"{path.name}: the first cell has no '**Time** · about N minutes' (or 'after the session') line"
    if path.stem in rows:
        assert found.group(1) and int(found.group(1)) == rows[path.stem], (
            f"{path.name}: says {found.group(0)!r}; the plan in docs/workshop.md gives {rows[path.stem]} minutes"
        )
    else:
        assert found.group(1) is None, f"{path.name} has no plan row, so its Time line must say 'after the session'"
        assert f"`{path.stem}`" in GUIDE, f"{path.name} is not mentioned in the facilitator's guide at all"


# --------------------------------------------------------------------------------------------
# Issue 22 §6: time to start and to ask, and a workshop path without holes
# --------------------------------------------------------------------------------------------

#: A Markdown cell that opens a part for after the session (its first line, a heading or an italic note).
ON_YOUR_OWN = re.compile(
    r"^(?:#+ |\*)[^\n]*(?:OPTIONAL|on your own|after the session|beyond the workshop)", re.IGNORECASE
)
_RANGE = re.compile(r"`([a-z]+)-(\d\d)`\s*(?:…|\.\.\.|to)\s*`\1-(\d\d)`")


def slack_minutes(text: str = GUIDE) -> int:
    """The plan's slack: the minutes of its ``buffer`` and ``questions`` rows."""
    return sum(end - start for start, end, what in plan(text) if what in SLACK)


def test_the_plan_starts_with_five_minutes_for_start_up_and_kernel_start():
    first = plan()[0]
    assert first[2] == "start-up", f"the plan starts with {first[2]!r}, not the start-up (Binder, kernels)"
    assert first[1] - first[0] >= 5, f"the start-up row has {first[1] - first[0]} minutes; at least 5 are needed"


def test_the_plan_keeps_at_least_ten_minutes_of_slack_in_its_buffer_and_question_rows():
    assert slack_minutes() >= 10, f"the plan's {' and '.join(SLACK)} rows give {slack_minutes()} minutes; 10 needed"
    assert "**slack**" in guide_section("The 90-minute plan"), "the guide must say what the plan's slack is"


def plan_rows(text: str = GUIDE) -> dict[str, str]:
    section = guide_section("The 90-minute plan", text)
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[1].startswith("`"):
            rows[cells[1].strip("`")] = cells[3]
    return rows


def workshop_ids(row_text: str) -> list[str]:
    """The exercise ids a plan row gives the room, ``route-01``…``route-04`` ranges included; a
    sentence or clause that leaves them for later ("after the session", "on your own",
    OPTIONAL, take-home) gives none."""
    ids: set[str] = set()
    for clause in re.split(r"(?<=[.;])\s+", row_text):
        if re.search(r"after the session|on your own|OPTIONAL|take-home", clause):
            continue
        ids |= set(re.findall(r"`([a-z]+-\d\d)`", clause))
        for topic, low, high in _RANGE.findall(clause):
            ids |= {f"{topic}-{n:02d}" for n in range(int(low), int(high) + 1)}
    return sorted(ids)


def asked(path: Path) -> tuple[list[dict], dict[str, int]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first: dict[str, int] = {}
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            for exercise_id in ASK_CALL.findall("".join(cell["source"])):
                first.setdefault(exercise_id, index)
    return cells, first


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebooks_workshop_path_is_contiguous(path):
    row = plan_rows().get(path.stem)
    if row is None:
        pytest.skip(f"{path.stem} is take-home work")
    cells, first = asked(path)
    wanted = workshop_ids(row)
    missing = [i for i in wanted if i not in first]
    assert not missing, f"{path.name}: the plan's row names {missing}, which the notebook does not ask"
    if len(wanted) < 2:
        return
    start, end = min(first[i] for i in wanted), max(first[i] for i in wanted)
    holes = [
        index
        for index in range(start, end)
        if cells[index]["cell_type"] == "markdown" and ON_YOUR_OWN.match("".join(cells[index]["source"]).lstrip())
    ]
    assert not holes, (
        f"{path.name}: an on-your-own part (cells {holes}) sits between the workshop's exercises "
        f"(cells {start}–{end}); move it after the last one"
    )
    later = sorted(i for i, at in first.items() if i not in wanted and start < at < end)
    assert not later, f"{path.name}: exercises outside the plan's row ({later}) sit inside the workshop path"


def test_the_workshop_path_check_finds_ranges_and_a_hole():
    assert workshop_ids("then `route-01`…`route-03` and `link-02`; `uri-05` is for after the session.") == [
        "link-02",
        "route-01",
        "route-02",
        "route-03",
    ]
    assert workshop_ids("`link-01`. The exercises `link-04` … `link-08` are for after the session.") == ["link-01"]
    assert ON_YOUR_OWN.match("## OPTIONAL · Levels 3 and 4") and ON_YOUR_OWN.match("*Beyond the workshop's time*")
    assert not ON_YOUR_OWN.match("The optional section below") and not ON_YOUR_OWN.match("## Read a blob")


# --------------------------------------------------------------------------------------------
# Issue 37 §3: judgement in the 90 minutes
# --------------------------------------------------------------------------------------------

#: The three decisions the room must make together, each with the exercises that make it.
JUDGEMENT: dict[str, tuple[str, ...]] = {
    "resource or tool": tuple(e.id for e in all_exercises("primitive")),
    "link or embed, weighed by size, reuse, permission and change": tuple(f"link-{n:02d}" for n in range(4, 9)),
    "refuse and fix": tuple(e.id for e in all_exercises("fix")),
}
JUDGEMENT_IDS = frozenset(i for ids in JUDGEMENT.values() for i in ids)


def in_room(text: str = GUIDE) -> dict[str, list[str]]:
    """Each plan row's notebook and the exercise ids its row gives the room."""
    return {notebook: workshop_ids(row) for notebook, row in plan_rows(text).items()}


def judgement_missing(text: str = GUIDE) -> list[str]:
    """The judgement kinds no notebook row of the plan gives the room."""
    asked_in_room = {i for ids in in_room(text).values() for i in ids}
    return [kind for kind, ids in JUDGEMENT.items() if not asked_in_room & set(ids)]


def in_room_judgement(text: str = GUIDE) -> list[tuple[str, str]]:
    """(notebook, exercise id) for each judgement exercise the plan gives the room."""
    return sorted((nb, i) for nb, ids in in_room(text).items() for i in ids if i in JUDGEMENT_IDS)


def test_the_room_makes_each_of_the_three_judgement_decisions():
    assert all(JUDGEMENT.values()), f"a judgement kind has no exercises: {JUDGEMENT}"
    assert not judgement_missing(), f"the plan gives the room no exercise for: {judgement_missing()}"


def test_the_judgement_check_fails_a_plan_that_leaves_one_decision_out():
    row = plan_rows()["01-route-a-custody-case"]
    without_fix = GUIDE.replace(row, re.sub(r"`fix-\d\d`", "`route-01`", row))
    assert judgement_missing(without_fix) == ["refuse and fix"], judgement_missing(without_fix)
    assert slack_minutes(GUIDE.replace("| buffer |", "| 06-ask-what-if |")) < 10


@pytest.mark.parametrize(("notebook", "exercise_id"), in_room_judgement())
def test_each_in_room_judgement_exercise_sits_in_the_session_part_of_its_notebook(notebook, exercise_id):
    cells, first = asked(ROOT / "notebooks" / f"{notebook}.ipynb")
    at = first[exercise_id]
    sources = ["".join(c["source"]).lstrip() for c in cells]
    section = max(i for i in range(at + 1) if cells[i]["cell_type"] == "markdown" and sources[i].startswith("## "))
    marked = [i for i in range(section, at) if cells[i]["cell_type"] == "markdown" and ON_YOUR_OWN.match(sources[i])]
    assert not marked, f"{notebook}: {exercise_id} (cell {at}) sits under an on-your-own marker (cells {marked})"


def discussions() -> dict[str, str]:
    """The guide's discussion of each exercise: its ``### `id` · …`` subsection, by id."""
    body = guide_section("Leading the judgement discussions")
    parts = re.split(r"^### ", body, flags=re.M)[1:]
    found = {}
    for part in parts:
        heading = re.match(r"`([a-z]+-\d\d)`", part)
        assert heading, f"a discussion heading does not start with a backticked exercise id: {part[:60]!r}"
        found[heading.group(1)] = part
    return found


def test_the_guide_discusses_exactly_the_judgement_exercises_the_room_does():
    wanted = sorted(i for _, i in in_room_judgement())
    assert sorted(discussions()) == wanted, f"the guide discusses {sorted(discussions())}; the room does {wanted}"


@pytest.mark.parametrize(("notebook", "exercise_id"), in_room_judgement())
def test_each_discussion_asks_the_room_and_its_wrong_answers_are_the_exercises_own_mistakes(notebook, exercise_id):
    text = discussions()[exercise_id]
    exercise = get(exercise_id)
    heading = text.splitlines()[0]
    assert exercise.title in heading and f"(notebook {notebook[:2]})" in heading, (
        f"heading {heading!r}: expected the title {exercise.title!r} and (notebook {notebook[:2]})"
    )
    prompt = re.search(r"^\*\*Ask the room\*\*: (.+?)(?:\n\n|\Z)", text, re.M | re.S)
    assert prompt and len(prompt.group(1).split()) >= 12, f"{exercise_id}: no '**Ask the room**: …' prompt"
    rows = [r for r in table_rows(text) if r[0] != "wrong answer" and not set(r[0]) <= {"-", " "}]
    assert len(rows) >= 2, f"{exercise_id}: the guide lists {len(rows)} wrong answers; at least 2 are wanted"
    names = {m.name for m in exercise.mistakes}
    for answer, mistake, ask_back in rows:
        name = mistake.strip("`")
        assert name in names, f"{exercise_id}: {name!r} is not one of its mistakes {sorted(names)}"
        assert_mistake(exercise_id, ast.literal_eval(answer.strip("`")), name)
        assert ask_back.endswith("?"), f"{exercise_id}: ask back with a question, not {ask_back!r}"


def table_rows(text: str) -> list[list[str]]:
    rows = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows]


# --------------------------------------------------------------------------------------------
# The guide's commands run as written; the README points at the guide and keeps no second plan
# --------------------------------------------------------------------------------------------

_COMMAND = re.compile(r"^(?:[A-Z_]+=\S+ )*(?:\.venv/bin/|python3 -m )")


def guide_commands() -> list[str]:
    """Every command in the guide: inline code and ```bash lines that start a program of the lab."""
    inline = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", GUIDE, flags=re.M | re.S))
    blocks = re.findall(r"^```bash\n(.*?)^```", GUIDE, re.M | re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    return [c for c in inline + lines if _COMMAND.match(c)]


def test_the_guide_gives_the_answers_the_projector_and_the_install_commands():
    joined = "\n".join(guide_commands())
    for must in ("custody-lab solutions", "custody-lab present notebooks/", "python3 -m custody_lab.bootstrap test"):
        assert must in joined, f"docs/workshop.md has no command with {must!r}: {guide_commands()}"


@pytest.mark.parametrize("command", guide_commands())
def test_every_command_in_the_guide_runs_as_written(command, capsys):
    words = shlex.split(command)
    while "=" in words[0]:
        words = words[1:]  # an environment assignment in front of the command
    if words[0] == ".venv/bin/custody-lab":
        from custody_lab.cli import build_parser, main

        args = build_parser().parse_args(words[1:])
        paths = [w for w in words[2:] if "/" in w or w.endswith(".ipynb")]
        assert all((ROOT / w).exists() for w in paths), f"{command!r}: no such file among {paths}"
        if args.command == "solutions":
            assert main(words[1:]) == 0, f"{command!r} failed"
            assert len(capsys.readouterr().out.splitlines()) >= 2, f"{command!r} printed no table"
    elif words[:3] == [".venv/bin/python", "-m", "pip"]:
        assert importlib.util.find_spec("pip") and words[3] == "download", command
    else:
        assert not command_problems(" ".join(shlex.quote(w) for w in words)), (
            f"{command!r}: {command_problems(command)}"
        )


def test_the_readme_points_at_the_guide_and_holds_no_second_plan():
    assert "(docs/workshop.md)" in README, "README.md does not link docs/workshop.md"
    assert "90-minute plan" not in README and not ROW.search(README), "README.md still holds a plan of the session"
