"""How long until ``custody-lab lab`` answers on the start notebook's URL? Prints figures.

    python benchmarks/bench_lab_start.py [--starts 2] [--timeout 60]

Each start runs the installed command (``custody-lab lab --no-browser --port P``, the environment
already present: what a learner's second start is), reads the URL it prints (``open the lab at
http://…/lab/tree/notebooks/00-start-here.ipynb?token=…``), and asks for that URL every 50 ms
until it answers 200; the figure is the time from starting the command to that answer. Then it
stops the server (SIGINT, as Ctrl-C does; SIGKILL after 10 s) and waits for it to end before the
next start. Issue 42's target: within 10 s. A first start from a fresh clone (clone + bootstrap,
minutes) is not timed here. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

URL = re.compile(r"open the lab at (http://\S+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def lab_command() -> list[str]:
    installed = Path(sys.executable).with_name("custody-lab")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "custody_lab"]


def one_start(timeout: float) -> tuple[float | None, float | None, str]:
    """Seconds to the printed URL and to its first 200, and a note; ``None`` where it never came."""
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*lab_command(), "lab", "--no-browser", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    found: dict[str, float | str] = {}

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            m = URL.search(line)
            if m and "url" not in found:
                found["url"], found["printed"] = m.group(1), time.perf_counter() - t0

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    answered: float | None = None
    try:
        while time.perf_counter() - t0 < timeout and proc.poll() is None:
            url = found.get("url")
            if isinstance(url, str):
                try:
                    with urllib.request.urlopen(url, timeout=2) as r:
                        if r.status == 200:
                            answered = time.perf_counter() - t0
                            break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    pass
            time.sleep(0.05)
    finally:
        stop(proc)
        reader.join(timeout=5)
    note = "" if answered is not None else "no answer; its last lines: " + " | ".join(x.strip() for x in output[-3:])
    printed = found.get("printed")
    return (printed if isinstance(printed, float) else None), answered, note


def stop(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C for the server (its own process group), SIGKILL when it does not end in 10 s."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args(argv)
    print(f"custody-lab lab: start → the start notebook's URL answers 200 · {' '.join(lab_command())}")
    answers = []
    for k in range(args.starts):
        printed, answered, note = one_start(args.timeout)
        shown = f"{answered:5.2f} s" if answered is not None else "never"
        url_at = f"{printed:.2f} s" if printed is not None else "never"
        print(f"start {k + 1}: URL printed after {url_at}, answered after {shown} {note}".rstrip())
        if answered is not None:
            answers.append(answered)
    if answers:
        worst = max(answers)
        print(f"slowest start {worst:.2f} s · target ≤ 10 s: {'met' if worst <= 10 else 'NOT met'}")
    print("first start from a fresh clone (clone + bootstrap): not timed by this script")
    return 0


if __name__ == "__main__":
    sys.exit(main())
