"""Helpers for the real-browser tests: Debian's Chromium driven by Playwright, servers on 127.0.0.1.

The browser is the system's ``/usr/bin/chromium`` (``apt-get install chromium``), launched with a
fresh profile; ``playwright install`` is never used (it downloads a browser and fails offline).
On a learner's machine a missing browser or Playwright skips the tests with the reason; under
``CI=true`` it fails them, so CI can never pass by skipping.

Selectors are ipywidgets 8 classes (``.widget-slider``, ``.widget-dropdown select``,
``.widget-html``, ``.jupyter-widgets``) and the lab's own classes (``custody-outcome``,
``custody-trace``, ``trace-failed``, ``custody-untrusted``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from .timing import scaled, scaled_ms

ROOT = Path(__file__).resolve().parent.parent
#: Screenshots and server logs (gitignored; CI keeps the folder as artifacts, ``CUSTODY_LAB_ARTIFACTS``
#: moves it). The suite prints where it is.
ARTIFACTS = Path(os.environ.get("CUSTODY_LAB_ARTIFACTS") or ROOT / "test-artifacts")
#: The only host a page may ask: every server of these tests binds 127.0.0.1.
LOOPBACK = "127.0.0.1"
#: The sizes of the notebook screenshots: a 1280 px window, and the same window at 200 % zoom.
SCREEN_SIZES = ((1280, 900), (640, 450))
CHROMIUM = Path(os.environ.get("CUSTODY_LAB_CHROMIUM", "/usr/bin/chromium"))
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Milliseconds to wait for a kernel-backed change to show (a first kernel start on a busy CI
#: machine), scaled by ``CUSTODY_LAB_TIMEOUT_FACTOR`` (tests/timing.py): deadlines, never pauses.
SLOW = scaled_ms(90_000)
QUICK = scaled_ms(30_000)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require_browser() -> None:
    """Skip (learner's machine) or fail (``CI=true``) when Chromium or Playwright is missing."""
    problems = []
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        problems.append(f"no Chromium at {CHROMIUM} (install it: apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ModuleNotFoundError:
        problems.append("Python package 'playwright' is not installed (pip install the test extra)")
    if problems:
        reason = "real-browser tests cannot run: " + "; ".join(problems)
        if in_ci():
            pytest.fail(f"CI=true: {reason}", pytrace=False)
        pytest.skip(reason)


@contextmanager
def workspace(prefix: str, notebook: str, cells: list[tuple[str, str]]) -> Iterator[Path]:
    """A throwaway copy of the notebooks and data under ``<base>/root``, plus one notebook made for a
    test file from ``cells`` (``("markdown" | "code", source)`` pairs); removed afterwards."""
    import nbformat

    require_browser()
    base = Path(tempfile.mkdtemp(prefix=prefix))
    root = base / "root"
    for folder in ("notebooks", "data"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    new = {"markdown": nbformat.v4.new_markdown_cell, "code": nbformat.v4.new_code_cell}
    nb.cells = [new[kind](source) for kind, source in cells]
    nbformat.write(nb, root / notebook)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def isolated_jupyter_env(base: Path) -> dict[str, str]:
    """Environment for a test server: its own Jupyter config/data/runtime dirs and its own exercise
    progress file (a kernel must not see what other tests recorded), no display."""
    env = {
        name: str(base / name.lower())
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR")
    }
    for path in env.values():
        Path(path).mkdir(parents=True, exist_ok=True)
    env["CUSTODY_LAB_PROGRESS"] = str(base / "progress.json")
    env["MPLBACKEND"] = "Agg"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def is_outside(url: str) -> bool:
    """Whether a request for ``url`` would leave this machine: any network scheme to a host but
    :data:`LOOPBACK` (``data:``, ``blob:`` and ``about:`` never touch the network).

    >>> [is_outside(u) for u in ("http://127.0.0.1:8888/lab", "https://cdn.jsdelivr.net/x.css",
    ...                          "ws://localhost:1/api", "data:;base64,=", "blob:http://127.0.0.1/1")]
    [False, True, True, False, False]
    """
    parts = urlsplit(url)
    return parts.scheme in ("http", "https", "ws", "wss", "ftp") and parts.hostname != LOOPBACK


def _refuse_outside(route: Any) -> None:
    if is_outside(route.request.url):
        route.abort("internetdisconnected")
    else:
        route.continue_()


def record_requests(page: Any) -> list[str]:
    """Start recording the URL of every request and WebSocket ``page`` opens (refused ones too);
    returns the list, which grows as the page works."""
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    page.on("websocket", lambda ws: seen.append(ws.url))
    return seen


@contextmanager
def chromium() -> Iterator[Any]:
    """A Playwright ``BrowserContext`` on the system Chromium with a fresh, temporary profile and
    the network blocked: a request to any host but :data:`LOOPBACK` fails, as it would offline."""
    from playwright.sync_api import sync_playwright

    profile = Path(tempfile.mkdtemp(prefix="custody-lab-chromium-"))
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(profile),
                executable_path=str(CHROMIUM),
                headless=True,
                args=LAUNCH_ARGS,
                viewport={"width": 1400, "height": 1000},
            )
            context.route("**/*", _refuse_outside)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class DialogWatcher:
    """Records every ``alert``/``confirm``/``prompt`` a page opens (and dismisses it)."""

    def __init__(self, page: Any) -> None:
        self.messages: list[str] = []
        page.on("dialog", self._on_dialog)

    def _on_dialog(self, dialog: Any) -> None:
        self.messages.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()


#: Seconds a test gives JupyterLab or Voila to start answering (``serve_lab``/``serve_voila``'s
#: ``timeout``), scaled: a deadline, never a pause.
SERVER_START = scaled(90)


def open_page(page: Any, url: str) -> None:
    """Go to ``url`` and return once the server has answered (``commit``), never waiting for the
    page's ``load`` event: Voila sends its page while it runs the notebook, so ``load`` comes only
    after the last cell, longer than a navigation timeout on a busy machine. The caller then waits
    for what it needs on the page (a heading, a widget), with its own deadline."""
    page.goto(url, wait_until="commit", timeout=SLOW)


def save_notebook(page: Any, notebook: str) -> None:
    """Save the open notebook (Ctrl+S) and return once the server has written it: its answer to
    JupyterLab's ``PUT /api/contents/<notebook>``. Reading the file before that can catch it half
    written (``NotJSONError: ''``)."""
    path = "/api/contents/" + quote(notebook)

    def is_the_save(response: Any) -> bool:
        return response.request.method == "PUT" and urlsplit(response.url).path.endswith(path)

    with page.expect_response(is_the_save, timeout=SLOW) as saving:
        page.keyboard.press("Control+s")
    response = saving.value
    assert response.ok, f"saving {notebook}: the server answered {response.status} {response.status_text}"


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot of the viewport to ``test-artifacts/<name>.png`` (gitignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def screenshots(page: Any, name: str, sizes: tuple[tuple[int, int], ...] = SCREEN_SIZES) -> list[Path]:
    """Screenshots of the viewport at each ``(width, height)`` (``<name>-<w>x<h>.png``); the page's
    own viewport size is restored afterwards."""
    before = page.viewport_size
    paths = []
    try:
        for width, height in sizes:
            page.set_viewport_size({"width": width, "height": height})
            wait_for_layout(page)
            paths.append(screenshot(page, f"{name}-{width}x{height}"))
    finally:
        if before:
            page.set_viewport_size(before)
    return paths


def wait_for_layout(page: Any, timeout: float = QUICK) -> None:
    """Wait until the page has laid itself out after a resize: the size of every element on it,
    read in two animation frames in a row, is the same (a condition, not a pause)."""
    page.wait_for_function(
        """() => new Promise(resolve => {
            const sizes = () => Array.from(document.querySelectorAll('body *'), el => {
                const r = el.getBoundingClientRect(); return `${r.width}x${r.height}`; }).join();
            requestAnimationFrame(() => { const a = sizes();
                requestAnimationFrame(() => resolve(a === sizes())); });
        })""",
        timeout=timeout,
    )


# -- JupyterLab ---------------------------------------------------------------------------------


def wait_for_kernel_idle(page: Any, timeout: float = SLOW) -> None:
    """Wait until JupyterLab's status bar says the kernel is idle."""
    from playwright.sync_api import expect

    expect(page.locator("#jp-main-statusbar")).to_contain_text("Idle", timeout=timeout)


def run_all_cells(page: Any) -> None:
    """Run ▸ Run All Cells, through the menu as a learner would."""
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def bring_into_view(locator: Any) -> None:
    """Scroll an element to the top of its scroller, then wait until it is visible.

    Playwright's own ``scroll_into_view_if_needed`` first waits for the element to be visible,
    which an output inside an off-screen JupyterLab cell (``content-visibility: auto``) never is;
    the DOM's ``scrollIntoView`` has no such precondition.
    """
    locator.evaluate("el => el.scrollIntoView({block: 'start'})")
    locator.wait_for(state="visible")


def scroll_until_attached(page: Any, locator: Any, timeout: float = SLOW) -> Any:
    """Scroll a (possibly virtualised) JupyterLab notebook until ``locator`` is in the DOM.

    JupyterLab 4 may attach only the cells near the viewport, so an output far down does not exist
    until its cell is scrolled to. Outside JupyterLab (Voila) this is a plain wait.
    """
    deadline = time.monotonic() + timeout / 1000
    scroller = page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer")
    direction = 1
    while time.monotonic() < deadline:
        if locator.count() > 0:
            bring_into_view(locator.first)
            return locator.first
        if scroller.count() > 0:
            at_end = scroller.first.evaluate(
                "(el, d) => { const before = el.scrollTop; el.scrollBy(0, d * el.clientHeight * 0.8);"
                " return el.scrollTop === before; }",
                direction,
            )
            if at_end:
                direction = -direction  # bounce: outputs may still be arriving
        page.wait_for_timeout(250)
    raise AssertionError(f"{locator} did not appear within {timeout / 1000:.0f} s")


# -- the case explorer -------------------------------------------------------------------------


def labelled(scope: Any, widget_class: str, label: str) -> Any:
    """The ipywidgets control of class ``widget_class`` whose description is exactly ``label``."""
    return scope.locator(
        f".{widget_class}",
        has=scope.page.locator(".widget-label", has_text=re.compile(rf"^\s*{re.escape(label)}\s*$")),
    )


def find_explorer(page: Any, timeout: float = SLOW) -> Any:
    """The output area of the first CaseExplorer on the page (scrolled into view)."""
    outputs = page.locator(".jp-OutputArea-output", has=page.locator(".custody-outcome"))
    return scroll_until_attached(page, outputs, timeout)


def choose(scope: Any, label: str, value: str) -> None:
    """Pick ``value`` in the dropdown described by ``label``."""
    labelled(scope, "widget-dropdown", label).locator("select").select_option(value)


def wait_for_run_all(page: Any, code_cells: int, timeout: float = SLOW) -> None:
    """Wait until every code cell has run: ``code_cells`` numbered prompts, none queued (``[*]``),
    and the kernel idle. (Between two queued cells the kernel is briefly idle, so idle alone
    proves nothing.)"""
    prompts = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt")
    deadline = time.monotonic() + timeout / 1000
    texts: list[str] = []
    while time.monotonic() < deadline:
        texts = [t.strip() for t in prompts.all_text_contents()]
        done = [t for t in texts if re.fullmatch(r"\[\d+\]:", t)]
        if len(done) >= code_cells and not any("*" in t for t in texts):
            wait_for_kernel_idle(page, timeout)
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"Run All did not finish within {timeout / 1000:.0f} s; prompts: {texts}")


def number_box(slider: Any) -> Any:
    """The ``input`` of the box beside a lab slider (its readout is off: a typed readout clamps)."""
    return slider.locator("xpath=..").locator(".custody-number-box input")


def set_slider(page: Any, slider: Any, value: int | str) -> None:
    """Type a value into the box beside a lab slider and press Enter, as a learner does."""
    box = number_box(slider)
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def outcome_text(explorer: Any) -> str:
    return explorer.locator(".custody-outcome").first.text_content() or ""


def fired_rule(explorer: Any) -> str:
    """The code of the trace row that fired ('' when the case was accepted)."""
    row = explorer.locator(".custody-trace tr.trace-failed code")
    return (row.first.text_content() or "") if row.count() else ""


def chart_src(explorer: Any) -> str:
    return explorer.locator("img").first.get_attribute("src") or ""


# -- hostile text ------------------------------------------------------------------------------

#: Every free-text field of a case carries markup that would run if it ever reached the DOM as
#: HTML; each one sets ``window.__custodyPwned`` and opens a dialog.
HOSTILE = {
    "id": "hostile-draft",
    "initiator": "model",
    "operation": "mutate",
    "shape": "embedded-resource",
    "uri": "draft://fixture/<img src=x onerror=\"window.__custodyPwned='uri';alert('uri')\">",
    "mime": "application/json",
    "bytes": 760,
    "current": True,
    "allowed": True,
    "sideEffects": True,
    "provenance": "draft-tool@3",
    "title": "<img src=x onerror=\"window.__custodyPwned='title';alert('title')\">approved",
    "description": "<script>window.__custodyPwned='description';alert('description')</script>trust me",
}


def hostile_json() -> str:
    return json.dumps(HOSTILE, ensure_ascii=False)


def injected_elements(page: Any) -> dict[str, int]:
    """Counts of anything the hostile text would have created had it been parsed as HTML."""
    return page.evaluate(
        """() => ({
            pwned: window.__custodyPwned === undefined ? 0 : 1,
            imgSrcX: document.querySelectorAll('img[src="x"]').length,
            onerror: document.querySelectorAll('[onerror]').length,
            scripts: [...document.scripts].filter(s => s.text.includes('__custodyPwned')).length,
        })"""
    )


# -- where a change's time goes: the kernel's WebSocket frames -----------------------------------

#: An init script (``page.add_init_script``, before the page opens): every WebSocket the page opens
#: records, while ``window.__custodyTap`` is true, each frame it receives or sends as
#: ``{t: performance.now(), dir: 'in' | 'out', data}`` in ``window.__custodyFrames`` (read and
#: described by :func:`read_frames`). The listener is added before JupyterLab's own, so ``t`` is
#: the frame's arrival, before JupyterLab handles it.
WS_TAP = """(() => {
    const Native = window.WebSocket;
    if (!Native || Native.__custodyTapped) return;
    window.__custodyFrames = [];
    const keep = (dir, data) => { if (window.__custodyTap) window.__custodyFrames.push({t: performance.now(), dir, data}); };
    class Tapped extends Native {
        constructor(...args) { super(...args); this.addEventListener('message', e => keep('in', e.data)); }
        send(data) { keep('out', data); return super.send(data); }
    }
    Tapped.__custodyTapped = true;
    window.WebSocket = Tapped;
})()"""

#: Reads and empties ``window.__custodyFrames``: each frame's time, direction, size in bytes, and,
#: from Jupyter's kernel WebSocket protocol (``v1.kernel.websocket.jupyter.org``: a count and
#: 8-byte little-endian offsets, then channel, header, parent header, metadata, content, buffers;
#: or the older JSON text), its message type, a comm message's method and state keys, and a status
#: message's state.
READ_FRAMES = """() => {
    const text = new TextDecoder();
    const describe = data => {
        if (typeof data === 'string') {
            const m = JSON.parse(data);
            return [m.header, m.content, data.length];
        }
        const view = new DataView(data);
        const at = i => Number(view.getBigUint64(8 * (i + 1), true));
        const part = i => JSON.parse(text.decode(new Uint8Array(data, at(i), at(i + 1) - at(i))));
        return [part(1), part(4), data.byteLength];
    };
    const frames = (window.__custodyFrames || []).map(f => {
        try {
            const [header, content, bytes] = describe(f.data);
            const data = (content && content.data) || {};
            const sent = Date.parse(header.date) - performance.timeOrigin;  // the sender's clock: this machine's
            return {t: f.t, dir: f.dir, bytes, type: header.msg_type, date: sent, method: data.method || '',
                    keys: Object.keys(data.state || {}).join(','), state: (content && content.execution_state) || ''};
        } catch (e) {
            return {t: f.t, dir: f.dir, bytes: f.data.byteLength || f.data.length || 0, type: '?', date: f.t, method: '', keys: '', state: ''};
        }
    });
    window.__custodyFrames = [];
    return frames;
}"""


def breakdown(samples: list[dict[str, float]], frames: list[dict[str, Any]]) -> dict[str, Any]:
    """Where each change's time went, from its marks (``start``: Enter, ``src``: the image's ``src``
    set, ``decoded``) and the kernel WebSocket's frames (:data:`READ_FRAMES`: ``t`` is a frame's
    arrival in the page, ``date`` the moment its sender made it, both in the page's milliseconds;
    the kernel and the browser run on one machine, so one clock).

    Per change, in ms from the Enter (medians over the changes): ``sent`` (the box's value leaves
    the page), ``kernel_start`` (the kernel makes its echo of the value: it starts on it),
    ``png_made`` (the kernel makes the PNG's message), ``kernel_done`` (its last comm message),
    ``png_in`` (that frame reaches the page), ``src``, ``decoded``; ``kernel_cycles`` (the
    kernel's busy statuses: messages it handled for the change), and the count and bytes of the
    comm messages it sent. ``last_change`` lists the last change's messages as
    ``(method, state keys, bytes)``.

    >>> frames = [{"t": 1.0, "date": 1.0, "dir": "out", "type": "comm_msg", "method": "update", "bytes": 90},
    ...           {"t": 3.0, "date": 2.0, "dir": "in", "type": "status", "state": "busy", "method": "", "bytes": 200},
    ...           {"t": 5.0, "date": 3.0, "dir": "in", "type": "comm_msg", "method": "echo_update", "keys": "value", "bytes": 80},
    ...           {"t": 9.0, "date": 7.0, "dir": "in", "type": "comm_msg", "method": "update", "keys": "", "bytes": 9000},
    ...           {"t": 10.0, "date": 8.0, "dir": "in", "type": "comm_msg", "method": "update", "keys": "value", "bytes": 300}]
    >>> b = breakdown([{"start": 0.0, "src": 12.0, "decoded": 15.0}], frames)
    >>> [b[k] for k in ("sent", "kernel_start", "png_made", "kernel_done", "png_in", "src", "decoded")]
    [1.0, 3.0, 7.0, 8.0, 9.0, 12.0, 15.0]
    >>> b["kernel_cycles"], b["messages"], b["bytes"], b["last_change"][1]
    (1, 3, 9380, ('update', '', 9000))
    """
    import statistics

    rows: list[dict[str, float]] = []
    last: list[tuple[str, str, int]] = []
    starts = [s["start"] for s in samples] + [float("inf")]
    for k, sample in enumerate(samples):
        start = sample["start"]
        mine = [f for f in frames if start <= f["t"] < starts[k + 1]]
        sent = [f["t"] for f in mine if f["dir"] == "out" and f["type"] == "comm_msg"]
        came = [f for f in mine if f["dir"] == "in" and f["type"] == "comm_msg"]
        if not sent or not came:
            continue
        echo = next((f for f in came if f["method"] == "echo_update"), came[0])
        image = max(came, key=lambda f: f["bytes"])
        rows.append(
            {
                "sent": sent[0] - start,
                "kernel_start": echo["date"] - start,
                "png_made": image["date"] - start,
                "kernel_done": came[-1]["date"] - start,
                "png_in": image["t"] - start,
                "src": sample["src"] - start,
                "decoded": sample["decoded"] - start,
                "kernel_cycles": sum(1 for f in mine if f["type"] == "status" and f["state"] == "busy"),
                "messages": len(came),
                "bytes": sum(f["bytes"] for f in came),
            }
        )
        last = [(f["method"], f["keys"], f["bytes"]) for f in came]
    if not rows:
        return {"changes": 0, "last_change": last}
    medians: dict[str, Any] = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
    medians.update(changes=len(rows), last_change=last)
    return medians


def breakdown_text(b: dict[str, Any]) -> str:
    """:func:`breakdown`'s medians as lines to print.

    >>> print(breakdown_text({"sent": 1.0, "kernel_start": 3.0, "png_made": 7.0, "kernel_done": 8.0, "png_in": 9.0,
    ...                       "src": 12.0, "decoded": 15.0, "kernel_cycles": 2, "messages": 3, "bytes": 9380,
    ...                       "changes": 1, "last_change": []}))
        ms from Enter (medians of 1): value sent 1.0 · kernel starts on it 3.0 · PNG message made 7.0 · kernel's last message 8.0 · PNG frame in the page 9.0 · src set 12.0 · decoded 15.0
        so: to the kernel 3.0 (2 kernel cycles: the box's submit event is handled first) · kernel on the value 5.0 (PNG after 4.0) · PNG to the page 2.0 · to src 3.0 · decode 3.0 · 3 comm messages, 9,380 bytes
    """
    if not b.get("changes"):
        return "    (no WebSocket frames recorded: the breakdown is not available)"
    cycles = f"{b['kernel_cycles']:.0f} kernel cycle{'s' if b['kernel_cycles'] != 1 else ''}"
    if b["kernel_cycles"] > 1:
        cycles += ": the box's submit event is handled first"
    return (
        f"    ms from Enter (medians of {b['changes']}): value sent {b['sent']:.1f} · kernel starts on it "
        f"{b['kernel_start']:.1f} · PNG message made {b['png_made']:.1f} · kernel's last message "
        f"{b['kernel_done']:.1f} · PNG frame in the page {b['png_in']:.1f} · src set {b['src']:.1f} · "
        f"decoded {b['decoded']:.1f}\n"
        f"    so: to the kernel {b['kernel_start']:.1f} ({cycles}) · kernel on the value "
        f"{b['kernel_done'] - b['kernel_start']:.1f} (PNG after {b['png_made'] - b['kernel_start']:.1f}) · PNG to the "
        f"page {b['png_in'] - b['png_made']:.1f} · to src {b['src'] - b['png_in']:.1f} · decode "
        f"{b['decoded'] - b['src']:.1f} · {b['messages']:.0f} comm messages, {b['bytes']:,.0f} bytes"
    )
