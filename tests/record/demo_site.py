"""A small site for recording tests, served by a threaded `http.server` on 127.0.0.1."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOME = """<!doctype html><html lang=en><head><meta charset=utf-8><title>Home</title></head>
<body style="margin:0">
<h1>Demo home</h1>
<button onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Like</button>
<input aria-label="Note"> <input type="password" aria-label="PIN">
<a href="/details">Details</a>
<a href="/details?tab=1" target="_blank">Details in a new tab</a>
<div style="height:3000px; background:#eef"></div>
</body></html>"""

DETAILS = """<!doctype html><html lang=en><head><meta charset=utf-8><title>Details</title>
</head><body><h1>Details</h1><a href="/">Home</a></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = (DETAILS if self.path.startswith("/details") else HOME).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


class DemoSite:
    def __enter__(self) -> DemoSite:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
