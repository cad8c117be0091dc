"""What a page may not do even on an allowed origin: WebRTC, and dialogs without end.

Installed in every document before the page's own scripts (an init script), with one binding
back to the environment:

- WebRTC (`RTCPeerConnection`) is disabled: the constructor reports the attempt (the ICE
  servers it named) and throws `NotSupportedError`. ICE would otherwise send UDP (STUN/TURN,
  connectivity checks) to page-chosen ports that neither the request guard nor the refusing
  proxy sees. Chromium is also launched with WebRTC's `disable_non_proxied_udp` policy
  (chromium.py), so a peer connection that slipped past the script still sends no UDP.
- `alert`, `confirm` and `prompt` are answered at once by the environment (tabs.py); a document
  that has shown `DIALOG_LIMIT` of them gets an exception instead of another dialog, so a
  script looping on `alert()` ends and the episode goes on taking steps. The first refusal in a
  document is reported and recorded.

The binding is visible to the page: a page can only add records of its own attempts, at most
`MAX_REPORTS` per episode.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from playwright.async_api import BrowserContext

from webtraj.model.episode import DialogRecord

BINDING = "__webtrajShield"
# Dialogs one document may show; later ones throw in the page instead of opening.
DIALOG_LIMIT = 20
# Reports taken from the page per episode (the binding is callable by the page).
MAX_REPORTS = 200
_MAX_ICE_URLS = 10

SHIELD_SCRIPT = """(() => {
  const early = window['__BINDING__'];
  const report = (kind, detail) => {
    try { (early || window['__BINDING__'])(kind, String(detail).slice(0, 2000)); } catch (e) {}
  };
  const lock = (name, value, writable) => {
    try { Object.defineProperty(window, name, {value, writable, configurable: writable}); }
    catch (e) { /* already locked in this document */ }
  };
  const iceUrls = (config) => {
    const urls = [];
    try {
      for (const server of (config && config.iceServers) || [])
        for (const url of [].concat(server.urls || server.url || [])) urls.push(String(url));
    } catch (e) { /* a hostile config object: the attempt is still reported */ }
    return urls.slice(0, __MAX_ICE__);
  };
  const refuse = function RTCPeerConnection(config) {
    report('webrtc', JSON.stringify(iceUrls(config)));
    throw new DOMException('WebRTC is disabled in webtraj episodes', 'NotSupportedError');
  };
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'mozRTCPeerConnection'])
    if (name in window) lock(name, refuse, false);
  let shown = 0, refused = false;
  for (const name of ['alert', 'confirm', 'prompt']) {
    const native = window[name];
    if (typeof native !== 'function') continue;
    // Writable: a site may replace its own dialogs (strict-mode code assigning them must not
    // throw); a replacement shows no native dialog.
    lock(name, function (...args) {
      if (++shown > __LIMIT__) {
        if (!refused) { refused = true; report('dialog-limit', name + ' ' + (args[0] ?? '')); }
        throw new DOMException('webtraj: this document has shown its __LIMIT__ dialogs',
                               'NotAllowedError');
      }
      return native.apply(window, args);
    }, true);
  }
})();""".replace("__BINDING__", BINDING).replace("__LIMIT__", str(DIALOG_LIMIT)).replace(
    "__MAX_ICE__", str(_MAX_ICE_URLS))


class PageShield:
    """Installs the shield script in a context and turns the page's reports into records:
    WebRTC attempts go to `on_webrtc(url)` (the allowlist records them as blocked requests),
    refused dialogs to `dialogs`."""

    def __init__(self, on_webrtc: Callable[[str], object], dialogs: list[DialogRecord]) -> None:
        self.on_webrtc = on_webrtc
        self.dialogs = dialogs
        self._reports = 0

    async def install(self, context: BrowserContext) -> None:
        await context.expose_binding(BINDING, self._report)
        await context.add_init_script(SHIELD_SCRIPT)

    def _report(self, source: dict[str, Any], kind: object, detail: object) -> None:
        if self._reports >= MAX_REPORTS:
            return
        self._reports += 1
        frame = source.get("frame")
        url = getattr(frame, "url", "") or ""
        if kind == "webrtc":
            for ice in _ice_urls(str(detail)) or ["webrtc:"]:
                self.on_webrtc(ice)
        elif kind == "dialog-limit":
            name, _, message = str(detail).partition(" ")
            self.dialogs.append(DialogRecord(
                kind=name if name in ("alert", "confirm", "prompt") else "dialog",
                message=message, url=url, accepted=False, refused=True, time=time.time()))


def _ice_urls(detail: str) -> list[str]:
    try:
        urls = json.loads(detail)
    except ValueError:
        return []
    if not isinstance(urls, list):
        return []
    return [str(u)[:500] for u in urls[:_MAX_ICE_URLS]]
