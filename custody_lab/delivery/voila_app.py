"""The Voila server of ``custody-lab present``: Voila 0.5.13's own app with three additions.

``custody-lab present`` runs ``python -m custody_lab.delivery.voila_app NOTEBOOK …`` instead of
``python -m voila``; every Voila flag works the same. What is added:

* **A closed or reloaded page frees its kernel at once.** Voila's page sends
  ``POST /voila/api/shutdown/<kernel>`` when it unloads, with the ``_xsrf`` cookie as its XSRF
  token, but Voila's page handler never sets that cookie, so the server refused the request (403,
  "'_xsrf' argument missing") and the kernel ran on until culled. The page handler here sets the
  cookie (tornado's own XSRF token), so the shutdown is accepted. A page that goes without
  unloading (a crashed tab, a lost network) is left to culling (:mod:`.present`).
* **``GET /api/kernels``**: the running kernels, as jupyter_server lists them (Voila itself answers
  only ``/api/kernels/<id>``); the same token as the page. A facilitator or a test can see how many
  kernels the presentation holds.
* **``GET /docs/<name>.md``**: the lab's own ``docs/<name>.md`` (the glossary, the cheat sheet)
  rendered as a page with nothing fetched from another host. A notebook's link
  ``../docs/glossary.md#actor`` resolves from the presented page (``/``) to ``/docs/glossary.md``,
  which Voila would redirect to its file handler and refuse (403).

The classes are built on first use (:func:`main`), so importing this module imports no Jupyter
package; only the Voila process does.
"""

from __future__ import annotations

__all__ = ["DOCS_DIR", "DOC_NAME", "docs_page", "main", "slug"]

import html
import re
from functools import cache
from pathlib import Path
from typing import Any

from ..core.paths import REPO_ROOT

#: The folder whose Markdown pages ``/docs/<name>.md`` serves.
DOCS_DIR = REPO_ROOT / "docs"
#: The names ``/docs/<name>.md`` accepts: a plain file name, so no path can leave :data:`DOCS_DIR`.
DOC_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")

_STYLE = {
    "light": ("#ffffff", "#1f1f1f", "#0b57d0", "#f3f3f3"),
    "dark": ("#111111", "#e8e8e8", "#8ab4f8", "#262626"),
}


def slug(heading: str) -> str:
    """The anchor of a heading, as GitHub and the lab's links spell it: tags dropped, lower case,
    punctuation but ``-`` and ``_`` removed, spaces made ``-``.

    Example:
        >>> slug("Context that flows back (MCP 2026-07-28)")
        'context-that-flows-back-mcp-2026-07-28'
        >>> slug("<code>listed-resource</code>")
        'listed-resource'
    """
    text = html.unescape(re.sub(r"<[^>]+>", "", heading)).strip().lower()
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def docs_page(name: str, theme: str = "light", folder: Path = DOCS_DIR) -> str | None:
    """``folder/<name>.md`` as a whole HTML page, or ``None`` when ``name`` is not a plain doc name
    (:data:`DOC_NAME`) or there is no such file.

    The Markdown is the lab's own (committed docs, not learner or server text), so its inline HTML
    (the glossary's ``<a id>`` anchors) is kept. Every heading gets its :func:`slug` as ``id``.
    Links to another ``.md`` page stay relative, so they reach the same route.

    Example:
        >>> page = docs_page("glossary")
        >>> '<a id="actor"></a>' in page and "<title>custody_lab glossary</title>" in page
        True
        >>> docs_page("../README") is None, docs_page("no-such-page") is None
        (True, True)
    """
    if not DOC_NAME.fullmatch(name):
        return None
    path = folder / f"{name}.md"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    body = _markdown()(text)
    titles = re.findall(r"^# (.+)$", text, flags=re.MULTILINE)
    title = titles[0].strip() if titles else name
    background, foreground, link, code = _STYLE.get(theme, _STYLE["light"])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>"
        f"body{{background:{background};color:{foreground};font:18px/1.5 system-ui,sans-serif;"
        "max-width:60rem;margin:0 auto;padding:1rem 1.5rem}"
        f"a{{color:{link}}}code,pre{{background:{code};font-size:16px}}pre{{padding:.5rem;overflow-x:auto}}"
        f"table{{border-collapse:collapse}}td,th{{border:1px solid {foreground};padding:.2rem .5rem}}"
        f"</style></head><body>\n{body}\n</body></html>\n"
    )


@cache
def _markdown() -> Any:
    import mistune

    class Renderer(mistune.HTMLRenderer):  # type: ignore[misc]
        def heading(self, text: str, level: int, **attrs: Any) -> str:
            return f'<h{level} id="{html.escape(slug(text))}">{text}</h{level}>\n'

    return mistune.create_markdown(renderer=Renderer(escape=False), plugins=["table"])


@cache
def _build() -> type:
    import inspect
    import json

    import tornado.web
    from jupyter_server.base.handlers import APIHandler, JupyterHandler
    from voila.app import Voila
    from voila.tornado.handler import TornadoVoilaHandler

    from ..whatif.theme import theme_of

    class PageHandler(TornadoVoilaHandler):  # type: ignore[misc]
        """Voila's page, which also sets the ``_xsrf`` cookie its unload beacon sends back."""

        async def prepare(self, *args: Any, **kwargs: Any) -> None:
            result = super().prepare(*args, **kwargs)
            if inspect.isawaitable(result):
                await result
            self.xsrf_token  # noqa: B018 - reading it sets the cookie (tornado)

    class KernelsHandler(APIHandler):  # type: ignore[misc]
        @tornado.web.authenticated
        def get(self) -> None:
            self.finish(json.dumps(self.kernel_manager.list_kernels(), default=str))

    class DocsHandler(JupyterHandler):  # type: ignore[misc]
        @tornado.web.authenticated
        def get(self, name: str) -> None:
            page = docs_page(name, theme_of().name)
            if page is None:
                raise tornado.web.HTTPError(404, f"no page docs/{name}.md")
            self.set_header("Content-Type", "text/html; charset=UTF-8")
            self.finish(page)

    class CustodyVoila(Voila):  # type: ignore[misc]
        def init_handlers(self) -> list[Any]:
            handlers = [
                (h[0], PageHandler, *h[2:]) if len(h) > 1 and h[1] is TornadoVoilaHandler else h
                for h in super().init_handlers()
            ]
            base = self.server_url.rstrip("/")
            return [
                (f"{base}/api/kernels", KernelsHandler),
                (f"{base}/docs/([^/]+)\\.md", DocsHandler),
                *handlers,
            ]

    return CustodyVoila


def main() -> None:
    """Run the server (``python -m custody_lab.delivery.voila_app``, as ``voila`` is run)."""
    app: Any = _build()
    app.launch_instance()


if __name__ == "__main__":
    main()
