"""The task panel: a small page in its own browser context (its own window when headed).

Why a separate context and not an overlay on the site: an overlay would have to be kept out
of the accessibility tree, the screenshot, the HTML and the page's own scripts (focus traps,
MutationObservers, z-index fights); a separate window is none of these by construction, and
the recorded context keeps exactly the tabs the person opened. The panel shows the intent and
the recorder's state, and takes the answer: "Finish" (or Control+Shift+Enter in the site's
tab, which takes the answer typed in the panel) ends the task, "Give up" ends it unfinished.
`data-state` on the body is `observing` while the recorder reads the page and `ready` when
the last observation is current, and `data-observations` counts them: a person may act
any time, a test driver waits for the next observation."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page

PANEL_BINDING = "__webtrajPanel"
FINISH_HOTKEY = "Control+Shift+Enter"

PANEL_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>webtraj record</title>
<style>
body { font: 15px system-ui, sans-serif; margin: 12px; background: #f6f7f9; }
#intent { font-size: 17px; background: #fff; border: 1px solid #ccd; padding: 10px; }
#answer { width: 100%; box-sizing: border-box; margin: 8px 0; }
#status { color: #555; font-size: 13px; }
button { font-size: 15px; margin-right: 8px; }
</style></head>
<body data-state="observing">
<div id="progress"></div><h2>Task</h2><div id="intent"></div>
<label for="answer">Answer (leave empty when the task needs none)</label>
<textarea id="answer" rows="2"></textarea>
<button id="finish">Finish</button><button id="giveup">Give up</button>
<p id="status"></p>
<script>
const send = (kind) =>
  window.__webtrajPanel({kind, answer: document.getElementById('answer').value});
document.getElementById('finish').onclick = () => send('finish');
document.getElementById('giveup').onclick = () => send('give_up');
window.__webtrajShow = (s) => {
  document.body.dataset.state = s.state;
  document.body.dataset.steps = String(s.steps);
  if (s.observations !== undefined) document.body.dataset.observations = String(s.observations);
  document.getElementById('status').textContent = s.status;
  if (s.intent !== undefined) {
    document.getElementById('intent').textContent = s.intent;
    document.getElementById('progress').textContent = s.progress;
    document.getElementById('answer').value = '';
  }
};
window.__webtrajAnswer = () => document.getElementById('answer').value;
</script></body></html>"""


class Panel:
    """The panel window; `on_message` receives {"kind": "finish"|"give_up", "answer": str}."""

    def __init__(self, browser: Browser, on_message: Callable[[dict[str, Any]], None]) -> None:
        self.browser = browser
        self.on_message = on_message
        self.context: BrowserContext | None = None
        self.page: Page | None = None

    async def open(self) -> Panel:
        self.context = await self.browser.new_context(viewport={"width": 480, "height": 360})
        await self.context.expose_binding(
            PANEL_BINDING, lambda _source, payload: self.on_message(dict(payload or {})))
        self.page = await self.context.new_page()
        await self.page.set_content(PANEL_HTML)
        return self

    async def show_task(self, intent: str, progress: str) -> None:
        await self._call({"intent": intent, "progress": progress, "state": "observing",
                          "steps": 0, "status": "opening the start page..."})

    async def status(self, state: str, steps: int, status: str,
                     observations: int | None = None) -> None:
        payload: dict[str, Any] = {"state": state, "steps": steps, "status": status}
        if observations is not None:
            payload["observations"] = observations
        await self._call(payload)

    async def answer(self) -> str:
        """The answer typed in the panel so far (for the hotkey)."""
        if self.page is None or self.page.is_closed():
            return ""
        try:
            return str(await self.page.evaluate("window.__webtrajAnswer()"))
        except Exception:  # noqa: BLE001 - a closed panel has no answer
            return ""

    async def _call(self, payload: dict[str, Any]) -> None:
        if self.page is None or self.page.is_closed():
            return
        try:
            await self.page.evaluate("(s) => window.__webtrajShow(s)", payload)
        except Exception:  # noqa: BLE001 - the person closed the panel: keep recording
            return

    async def close(self) -> None:
        if self.context is not None:
            with contextlib.suppress(Exception):  # the browser is already gone
                await self.context.close()
            self.context = None
