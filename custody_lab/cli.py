"""The ``custody-lab`` command.

    custody-lab fixture                 print the seed fixture with its sha256 and a PASS line
    custody-lab route FILE [--json]     route every case in a JSON or CSV file
    custody-lab sweep | live | audit | serve | lab | present | check | solutions   (see ``custody-lab -h``)

Every subcommand is wired here, in :func:`build_parser`; the modules that run them (``whatif``,
``live``, ``delivery``, ``teaching``) never import this one. Importing this module stays light:
each command imports pandas, ``mcp`` or Jupyter only when it runs.
"""

from __future__ import annotations

__all__ = ["build_parser", "main"]

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence

from . import delivery
from .core.errors import CaseFileError, CustodyLabError
from .core.model import Policy
from .core.tables import load_policy
from .core.text import terminal_json, visible
from .delivery import machine_check
from .live import live_commands, serve_command
from .teaching import solutions
from .whatif import sweep_command

#: A subcommand's two halves: add its arguments, then run it (returning the exit code).
_Configure = Callable[[argparse.ArgumentParser], None]
_Run = Callable[[argparse.Namespace], int]


def _load_policy(path: str | None) -> Policy | None:
    """The ``--policy`` file, read by the one policy loader (``sweep`` reads it the same way)."""
    return None if path is None else load_policy(path)


def _cmd_fixture(args: argparse.Namespace) -> int:
    from .core.loading import load_fixture
    from .core.receipts import FIXTURE_SHA256, fixture_payload

    payload = fixture_payload()
    fixture = load_fixture()
    print(json.dumps(payload, indent=2, ensure_ascii=False))
    problems = []
    if payload["sha256"] != FIXTURE_SHA256:
        problems.append(f"sha256 {payload['sha256']} differs from the seed's {FIXTURE_SHA256}")
    if not all(row["accepted"] for row in payload["accepted"]):
        problems.append("a seed case was rejected")
    got = [row.get("rejection") for row in payload["adversarial"]]
    want = [fixture.expected.get(c.id) for c in fixture.adversarial]
    if got != want:
        problems.append(f"adversarial rejections {got} differ from the expected {want}")
    for row in payload["accepted"] + payload["adversarial"]:
        c = row["custody"]
        if not (c["uri"] and c["mime"] and c["provenance"] and c["permissionChecked"]):
            problems.append(f"{row['id']}: custody lost its URI, MIME type or provenance")
    if problems:
        for p in problems:
            print(f"FAIL: {p}", file=sys.stderr)
        return 1
    print(
        f"PASS: {len(payload['accepted'])} custody routes and {len(payload['adversarial'])} named "
        "rejections preserve actor, URI, MIME, provenance, size, and side effects; "
        f"sha256 matches the seed ({FIXTURE_SHA256[:8]}…{FIXTURE_SHA256[-2:]})"
    )
    return 0


def _cmd_route(args: argparse.Namespace) -> int:
    from .core.loading import progress_line, read_cases
    from .core.router import route

    policy = _load_policy(args.policy)
    result = read_cases(args.file, progress=progress_line(args.file))
    policy = policy or result.policy
    decisions = [route(c, policy) for c in result.cases]
    if args.json:
        print(terminal_json([d.to_dict() for d in decisions]))
    else:  # case text is data: its control characters are shown, not obeyed
        ids = [visible(d.id) for d in decisions]
        width = max(map(len, ids), default=0)
        for shown, d in zip(ids, decisions):
            verdict = "accepted" if d.accepted else "rejected"
            print(f"{shown:<{width}}  {verdict:<8}  {d.outcome}")
    if result.problems:
        rows = len({p.location for p in result.problems})
        count = (
            f"{rows} bad row(s)"
            if rows == len(result.problems)
            else f"{len(result.problems)} problems in {rows} row(s)"
        )
        print(f"{visible(args.file)}: {count}; {len(result.cases)} good row(s) routed above", file=sys.stderr)
        for p in result.problems:
            print(f"  - {visible(p)}", file=sys.stderr)
        return 2
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand; this is the one place they are wired."""
    parser = argparse.ArgumentParser(prog="custody-lab", description="The MCP context-custody lab.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fixture", help="print the seed fixture and check its sha256")
    p.set_defaults(run=_cmd_fixture)
    p = sub.add_parser("route", help="route every case in a JSON or CSV file")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print the receipts as JSON")
    p.add_argument("--policy", help='a policy JSON file ({"embedLimitBytes": 2048})')
    p.set_defaults(run=_cmd_route)
    commands: list[tuple[str, str, _Configure, _Run]] = [
        (
            "sweep",
            "route every row of a grid or inventory file at once (what-if analysis)",
            sweep_command.configure,
            sweep_command.run,
        ),
        (
            "live",
            "compare live MCP receipts with the simulator, field by field",
            live_commands.configure_live,
            live_commands.run_live,
        ),
        (
            "audit",
            "audit your own MCP server (stdio or a Streamable HTTP URL) for the custody fields it can supply",
            live_commands.configure_audit,
            live_commands.run_audit,
        ),
        (
            "serve",
            "serve the lab's MCP server to any client (stdio, or --http), logging receipts",
            serve_command.configure,
            serve_command.run,
        ),
        ("lab", "open JupyterLab on the start notebook", delivery.configure_lab, delivery.run_lab),
        (
            "present",
            "serve one notebook as a Voila app (widgets, no code) for a projector",
            delivery.configure_present,
            delivery.run_present,
        ),
        (
            "check",
            "check this machine for the lab in about half a minute: a kernel runs the start notebook, "
            "a widget round trip, the live server (one line per check, what to do when one fails)",
            machine_check.configure_check,
            machine_check.run_check,
        ),
        (
            "solutions",
            "print every exercise's reference answer and its reason (for facilitators)",
            solutions.configure,
            solutions.run,
        ),
    ]
    for name, help_text, configure, run in commands:
        p = sub.add_parser(name, help=help_text)
        configure(p)
        p.set_defaults(run=run)
    return parser


def _quiet_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush into a closed pipe
    stays silent (the recipe of Python's ``signal`` documentation, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a stdout without a file descriptor (a test's capture)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        code = int(args.run(args))
        sys.stdout.flush()  # inside the try: a reader that stopped early is seen here, not at exit
        return code
    except BrokenPipeError:  # ``custody-lab route --json FILE | head``: the reader had enough
        _quiet_stdout()
        return 0
    except CaseFileError as e:  # its lines quote the file: shown, not obeyed
        print("\n".join(map(visible, str(e).splitlines())), file=sys.stderr)
        return 2
    except CustodyLabError as e:  # top level: a clear message instead of a traceback
        print("\n".join(map(visible, f"error: {e}".splitlines())), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
