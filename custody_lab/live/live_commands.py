"""``custody-lab live`` and ``custody-lab audit``: the arguments and what each command runs.

    custody-lab live [--mode modern|legacy] [--frames] [--json] [--timeout S]
        run the six seed cases against the in-process lab server, print the simulator's receipt
        beside the live one field by field; exit 0 only when all six agree.
    custody-lab audit [--allow-calls NAME ...] [--template-values NAME=JSON ...] [--follow-links]
                      [--timeout S] [--connect-timeout S] [--strict] [--json] -- COMMAND [ARG ...]
    custody-lab audit [--header 'NAME: VALUE' ...] [the same options] URL
        start your MCP server over stdio (or connect to it at an http:// or https:// URL, over
        Streamable HTTP; options may follow the URL), list it, read its resources and (via
        completion or your values) its templates, get each of its prompts once, call only the tools
        named with --allow-calls (once per entry), follow their links only with --follow-links (at
        most 16 a result; whether each resolved), read every listed resource and list them again
        last (a read or index that changed is named), and report which custody fields each
        capability can and cannot supply. --connect-timeout bounds
        start-up (the command starting, or the URL answering, and the handshake); --timeout each
        exchange after it; the whole audit ends within --connect-timeout + 8 x --timeout. Exit 0:
        done; 1: gaps, a changed read (or nothing exercised) under --strict; 2: it could not run or
        did not finish.

This module imports nothing heavy: ``mcp`` is imported when a command runs.
"""

from __future__ import annotations

__all__ = [
    "EXIT_AGREE",
    "EXIT_DIFFER",
    "EXIT_ERROR",
    "configure_audit",
    "configure_live",
    "run_audit",
    "run_live",
]

import argparse
import sys

from ..core.text import terminal_json, visible
from .audit_report import STOP_EXCHANGES, TOTAL_EXCHANGES
from .limits import DEFAULT_CONNECT_TIMEOUT, MAX_LINKS_FOLLOWED

#: Exit codes of ``custody-lab live``.
EXIT_AGREE, EXIT_DIFFER, EXIT_ERROR = 0, 1, 2


def configure_live(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mode",
        choices=("modern", "legacy"),
        default="modern",
        help="protocol: modern (2026-07-28, default) or legacy (2025-11-25 handshake)",
    )
    p.add_argument(
        "--frames", action="store_true", help="also print every JSON-RPC frame that crossed the in-memory wire"
    )
    p.add_argument("--json", action="store_true", help="print the live receipts as JSON")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per exchange (default 5)")


def run_live(args: argparse.Namespace) -> int:
    from ..core.text import shorten, terminal_json
    from .live_errors import LiveError
    from .receipt_diff import NOT_COMPARED, compare_fixture, comparison_table
    from .session import record_fixture, run_sync

    async def go() -> list:
        return await record_fixture(mode=args.mode, frames=args.frames, timeout=args.timeout)

    try:
        receipts = run_sync(go)
    except LiveError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_ERROR
    comparisons = compare_fixture(receipts)
    if args.frames:
        for r in receipts:
            print(f"== {r.case_id}")
            for frame in r.frames:
                shown = shorten({"direction": frame.direction, **frame.message})
                print(terminal_json(shown, indent=None))  # a server's text: safe for a terminal
        print()
    if args.json:
        print(terminal_json([r.receipt for r in receipts]))
    else:
        first = receipts[0].receipt if receipts else {}
        server = first.get("server", {})
        print(
            f"server: {server.get('name')} {server.get('version')} · protocol "
            f"{first.get('protocolVersion')} · in-process, no network"
        )
        print(comparison_table(comparisons))
        print("not compared: " + "; ".join(f"{k} ({v})" for k, v in NOT_COMPARED.items()))
    agree = [c for c in comparisons if c.agrees]
    if len(agree) == len(comparisons) and comparisons:
        print(f"PASS: all {len(comparisons)} live receipts agree with the simulator on every custody field")
        return EXIT_AGREE
    print(f"FAIL: {len(comparisons) - len(agree)} of {len(comparisons)} cases differ (named above)", file=sys.stderr)
    return EXIT_DIFFER


def configure_audit(p: argparse.ArgumentParser) -> None:
    p.epilog = (
        "examples: custody-lab audit -- python my_server.py  |  custody-lab audit http://127.0.0.1:8765/mcp "
        "--header 'Authorization: Bearer …'. Bounds: start-up within --connect-timeout, then each exchange "
        f"within --timeout, the whole audit within --connect-timeout + {TOTAL_EXCHANGES} x --timeout"
    )
    p.add_argument(
        "--allow-calls",
        action="append",
        default=[],
        metavar="NAME[=JSON]",
        help="call this tool (arguments as a JSON object after '=', none by default); once per entry: name it "
        "twice to call it twice, each call a row of its own. No tool is called otherwise, whatever its "
        "annotations claim",
    )
    p.add_argument(
        "--timeout",
        default="10",
        metavar="S",
        help=f"seconds for each exchange after start-up (default 10): each listing page, read, completion and "
        f"call; reads and calls stop {STOP_EXCHANGES} x S after the handshake and the partial report is printed; "
        f"the audit after start-up ends within {TOTAL_EXCHANGES} x S, so the whole audit within "
        f"--connect-timeout + {TOTAL_EXCHANGES} x S",
    )
    p.add_argument(
        "--connect-timeout",
        default=f"{DEFAULT_CONNECT_TIMEOUT:g}",
        metavar="S",
        help=f"seconds for start-up (default {DEFAULT_CONNECT_TIMEOUT:g}): the command starting (or the URL "
        "answering) and the handshake (server/discover, then initialize); a server slower than this is "
        "reported with a message naming this flag",
    )
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header sent with every request of a URL audit, e.g. 'Authorization: Bearer …' "
        "(no message and no report shows its value); repeatable",
    )
    p.add_argument(
        "--template-values",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a value for a template variable or a prompt argument (used before asking the server's "
        "completion); repeatable",
    )
    p.add_argument(
        "--answer",
        action="append",
        default=[],
        metavar="TARGET=JSON",
        help="a person's answer to the server's elicitation for this tool or URI, e.g. delete_note='{\"action\": "
        '"accept", "by": "Dana Ruiz", "content": {"confirm": true}, "arguments": {"note_id": "7"}}\'; without one '
        "the audit declines every request (it never answers for you), and a form asking for a secret always",
    )
    p.add_argument(
        "--follow-links",
        action="store_true",
        help=f"read each resource_link a called tool returns (at most {MAX_LINKS_FOLLOWED} a result): a second read "
        "through the same gate, reported apart, saying whether the server resolved it",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when any capability cannot supply a custody field, a read changed between the audit's two "
        "reads, or nothing was exercised",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--hosts",
        action="store_true",
        help="after the report, show how each host profile (hypothetical hosts, data/hosts/profiles.json) would read "
        "each tool result the audit called: bytes reaching the model, host rules broken, and how many different "
        'readings (under --json, a "hosts" key)',
    )
    p.add_argument(
        "server_command",
        nargs=argparse.REMAINDER,
        metavar="URL | -- COMMAND ...",
        help="your MCP server: its http:// or https:// URL (Streamable HTTP, e.g. http://127.0.0.1:8765/mcp), "
        "or the command that starts it on stdio, after --",
    )


def _print_stderr(lines: tuple[str, ...]) -> None:
    """The server's captured stderr, under a heading (already made visible and cut by the guard)."""
    if lines:
        print("--- the server's stderr (captured; control characters shown, not obeyed) ---", file=sys.stderr)
        for line in lines:
            print(f"  {line}", file=sys.stderr)


def _target(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    """``(url, [])`` or ``(None, command)`` from what followed the options; options after a URL are
    parsed here (argparse hands everything after the first positional to ``server_command``).

    Raises:
        AuditError: nothing given, both a URL and a command, ``--header`` with a command, or
            anything but options after the URL.
    """
    from .audit import AuditError

    given = list(args.server_command)
    if given and given[0] == "--":
        command = given[1:]
        if len(command) == 1 and "://" in command[0]:
            raise AuditError(f"{visible(repr(command[0]))} after -- is taken as a command: write the URL without --")
        url = None
    elif given and "://" in given[0]:
        url, rest = given[0], given[1:]
        if rest:
            more = argparse.ArgumentParser(prog="custody-lab audit", add_help=False)
            configure_audit(more)
            more.parse_args(rest, namespace=args)
            if args.server_command:
                extra = visible(" ".join(args.server_command))
                raise AuditError(f"after the URL give only options; got {extra!r} (a URL audit starts no command)")
        command = []
    else:
        url, command = None, given
    if url is None and not command:
        raise AuditError(
            "give the server command after --, e.g. custody-lab audit -- python -m custody_lab.live.lab_server, "
            "or its URL, e.g. custody-lab audit http://127.0.0.1:8765/mcp"
        )
    if url is None and args.header:
        raise AuditError("--header is for a URL audit (HTTP); a server started over stdio gets no headers")
    return url, command


def run_audit(args: argparse.Namespace) -> int:
    """Exit 0 when the audit finished, 1 for gaps (or nothing exercised) under ``--strict``, 2 when it could not run or
    did not finish (the message says what the server did; a partial report is printed first)."""
    from .audit import AuditError, audit_command
    from .audit_report import EXIT_TROUBLE, format_report

    try:
        url, command = _target(args)
        options = {
            "allow_calls": tuple(args.allow_calls),
            "timeout": args.timeout,
            "connect_timeout": args.connect_timeout,
            "template_values": tuple(args.template_values),
            "follow_links": args.follow_links,
            "answers": tuple(args.answer),
        }
        if url is not None:
            from .audit_transport import audit_url

            report = audit_url(url, headers=tuple(args.header), **options)
        else:
            report = audit_command(command, **options)
    except AuditError as e:
        print(f"error: {e}", file=sys.stderr)
        _print_stderr(e.stderr)
        return EXIT_TROUBLE
    if args.json:
        doc = report.to_dict()
        if args.hosts:
            from ..protocol.host_audit import hosts_rows

            doc["hosts"] = hosts_rows(doc)
        print(terminal_json(doc))
    else:
        print(format_report(report))
        if args.hosts:
            from ..protocol.host_audit import format_hosts, hosts_rows

            print()
            print(format_hosts(hosts_rows(report.to_dict())))
    _print_stderr(report.stderr)
    for reason in report.incomplete:
        print(f"error: the audit did not finish: {reason}", file=sys.stderr)
    for finding in report.protocol:
        print(f"error: the server broke the protocol: {finding}", file=sys.stderr)
    return report.exit_code(strict=args.strict)
