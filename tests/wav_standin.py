"""A stand-in WebArena deployment on 127.0.0.1: just the pages and requests that six real
WebArena-Verified tasks' evaluators look at, over two sites.

- reddit (Postmill): 27 (retrieve: a forum's newest post), 399 (mutate: POST the biography
  form, answered 302), 404 (mutate: POST an upvote to /sv/124260.json).
- reddit 595 (mutate: subscribe to a forum from its hottest post; the evaluator reads the
  response body `{"subscribed": true}` of POST /f/space/subscribe.json).
- gitlab: 44 (navigate: the todos page), 156 (navigate: merge requests assigned to me),
  132 (retrieve: a count of commits), 527 (mutate: star a repo; the evaluator reads the
  response body `{"star_count": 56}` of POST .../toggle_star.json).

The reddit site needs a login (a session cookie from POST /login with the account's
password and the form's CSRF token), as the real Postmill does.
"""

from __future__ import annotations

import html
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TASK_IDS = ("27", "399", "404", "595", "44", "156", "132", "527")
SPACE_POST = "/f/space/69581/the-moon-saturn-and-jupiter-through-my-4-telescope-and"
SPACE_TOKEN = "tok-595-secret-value"
REDDIT_USER, REDDIT_PASSWORD = "MarvelsGrantMan136", "test1234"


def _page(title: str, body: str) -> bytes:
    return (f"<!doctype html><html><head><title>{html.escape(title)}</title></head>"
            f"<body><h1>{html.escape(title)}</h1>{body}</body></html>").encode()


class _Site(BaseHTTPRequestHandler):
    pages: dict[str, tuple[str, str]] = {}
    log_requests: list[tuple[str, str, str]]

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes = b"", ctype: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _form(self) -> dict[str, str]:
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n).decode()
        return {k: v[0] for k, v in parse_qs(data, keep_blank_values=True).items()}

    def do_GET(self) -> None:
        self.log_requests.append(("GET", self.path, ""))
        path = urlsplit(self.path).path.rstrip("/") or "/"
        page = self.pages.get(path)
        if page is None:
            self._send(404, _page("Not found", ""))
            return
        self._send(200, _page(*page))


class _Gitlab(_Site):
    stars = 56  # the repo's count once starred (each episode starts from the same state)
    # When set, the star response sends its headers and half its body, then waits for this
    # event: the browser never has the whole body (a test navigates away meanwhile).
    stall: threading.Event | None = None

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        self.log_requests.append(("POST", self.path, ""))
        stall = type(self).stall
        if path == "/umano/AndroidSlidingUpPanel/toggle_star.json" and stall is not None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "19")
            self.end_headers()
            self.wfile.write(b'{"star_count": ')
            self.wfile.flush()
            stall.wait(120)
            return
        if path == "/umano/AndroidSlidingUpPanel/toggle_star.json":
            self._send(200, b'{"star_count": %d}' % type(self).stars, ctype="application/json")
            return
        self._send(404, _page("Not found", ""))


class _Reddit(_Site):
    sessions: set[str] = set()
    bio = ""
    votes: dict[str, int] = {}

    def _logged_in(self) -> bool:
        cookie = self.headers.get("Cookie") or ""
        return any(c.strip().startswith("PHPSESSID=") and c.strip()[10:] in self.sessions
                   for c in cookie.split(";"))

    def do_GET(self) -> None:
        path = urlsplit(self.path).path.rstrip("/") or "/"
        if path == "/login":
            self.log_requests.append(("GET", self.path, ""))
            self._send(200, _page("Log in", (
                '<form method="post" action="/login">'
                '<input type="hidden" name="_csrf_token" value="csrf-abc">'
                '<label>Username <input name="_username"></label>'
                '<label>Password <input type="password" name="_password"></label>'
                '<button type="submit">Log in</button></form>')))
            return
        if path.startswith("/user/") and path.endswith("/edit_biography"):
            self.log_requests.append(("GET", self.path, ""))
            if not self._logged_in():
                self._send(302, headers={"Location": "/login"})
                return
            self._send(200, _page("Edit biography", (
                f'<form method="post" action="{html.escape(path)}">'
                '<label>Biography <textarea name="user_biography[biography]"></textarea>'
                '</label><input type="hidden" name="user_biography[_token]" value="t1">'
                '<button type="submit">Save</button></form>')))
            return
        if path == f"/user/{REDDIT_USER}":
            self.log_requests.append(("GET", self.path, ""))
            self._send(200, _page(REDDIT_USER, f"<p>Biography: {html.escape(self.bio)}</p>"
                                  f'<a href="{path}/edit_biography">Edit biography</a>'))
            return
        super().do_GET()

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        form = self._form()
        self.log_requests.append(("POST", self.path, repr(form)))
        if path == "/login":
            if (form.get("_username") == REDDIT_USER and form.get("_password") ==
                    REDDIT_PASSWORD and form.get("_csrf_token") == "csrf-abc"):
                sid = uuid.uuid4().hex
                self.sessions.add(sid)
                self._send(302, headers={"Location": "/",
                                         "Set-Cookie": f"PHPSESSID={sid}; Path=/; HttpOnly"})
            else:
                self._send(302, headers={"Location": "/login"})
            return
        if not self._logged_in():
            self._send(302, headers={"Location": "/login"})
            return
        if path.endswith("/edit_biography"):
            type(self).bio = form.get("user_biography[biography]", "")
            self._send(302, headers={"Location": f"/user/{REDDIT_USER}"})
            return
        if path in ("/f/space/subscribe.json", "/f/space/unsubscribe.json"):
            subscribed = path.endswith("/subscribe.json")
            # with a credential beside the answer: the stored HAR must not keep it
            self._send(200, b'{"subscribed": %s, "api_token": "%s"}' % (
                b"true" if subscribed else b"false", SPACE_TOKEN.encode()),
                ctype="application/json")
            return
        if path.startswith("/sv/") and path.endswith(".json"):
            type(self).votes[path] = int(form.get("choice", "0"))
            self._send(200, b'{"netScore": 1}', ctype="application/json")
            return
        self._send(404, _page("Not found", ""))


_REDDIT_PAGES = {
    "/": ("Postmill", '<a href="/forums">Forums</a> <a href="/f/personalfinance">personalfinance'
          f'</a> <a href="/f/books">books</a> <a href="/user/{REDDIT_USER}">Profile</a>'),
    "/forums": ("Forums", '<a href="/f/personalfinance">personalfinance</a>'
                '<a href="/f/books">books</a>'),
    "/f/personalfinance": ("personalfinance", (
        "<article><h2>56 year old mom has no retirement. Where do I even start on her "
        "behalf?</h2><p>Submitted by Hammer94</p><p>3 comments, none downvoted</p></article>")),
    "/f/books": ("books", (
        '<article><h2>Newest books post</h2><form method="post" action="/sv/124260.json">'
        '<input type="hidden" name="choice" value="1">'
        '<button type="submit">Upvote</button></form></article>')),
    SPACE_POST: ("The Moon, Saturn and Jupiter through my 4\" telescope and", (
        '<form method="post" action="/f/space/subscribe.json"><button type="submit">'
        'Subscribe</button></form><form method="post" action="/f/space/unsubscribe.json">'
        '<button type="submit">Unsubscribe</button></form>')),
}

_GITLAB_PAGES = {
    "/": ("Projects · Dashboard", '<a href="/dashboard/todos">To-Do List</a> '
          '<a href="/dashboard/merge_requests?assignee_username=byteblaze">Merge requests</a> '
          '<a href="/dashboard/issues?assignee_username=byteblaze">Issues</a> '
          '<a href="/a11yproject/a11yproject.com">a11yproject.com</a>'),
    "/dashboard/todos": ("To-Do List", "<p>No pending todos</p>"),
    "/dashboard/merge_requests": ("Merge requests", "<p>Assigned to you: 3</p>"),
    "/dashboard/issues": ("Issues", "<p>Assigned to you: 5</p>"),
    "/a11yproject/a11yproject.com": ("a11yproject.com", (
        '<a href="/a11yproject/a11yproject.com/-/commits/main">Commits</a>')),
    "/umano/AndroidSlidingUpPanel": ("AndroidSlidingUpPanel", (
        '<form method="post" action="/umano/AndroidSlidingUpPanel/toggle_star.json">'
        '<button type="submit">Star</button></form>')),
    "/a11yproject/a11yproject.com/-/commits/main": ("Commits", (
        "<ul><li>05 Mar, 2023: Update README (kilian)</li>"
        "<li>02 Mar, 2023: Fix link (Eric)</li></ul>")),
}


class StandIn:
    """Both sites, each on its own loopback port, for a `with` block."""

    def __init__(self) -> None:
        self.requests: dict[str, list[tuple[str, str, str]]] = {"reddit": [], "gitlab": []}
        reddit = type("Reddit", (_Reddit,), {"pages": _REDDIT_PAGES, "sessions": set(),
                                             "votes": {}, "bio": "",
                                             "log_requests": self.requests["reddit"]})
        gitlab = type("Gitlab", (_Gitlab,), {"pages": _GITLAB_PAGES,
                                           "log_requests": self.requests["gitlab"]})
        self.reddit_cls = reddit
        self.gitlab_cls = gitlab
        self._servers = {"reddit": ThreadingHTTPServer(("127.0.0.1", 0), reddit),
                         "gitlab": ThreadingHTTPServer(("127.0.0.1", 0), gitlab)}
        self.urls = {k: f"http://127.0.0.1:{s.server_address[1]}"
                     for k, s in self._servers.items()}

    def __enter__(self) -> StandIn:
        for s in self._servers.values():
            threading.Thread(target=s.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        for s in self._servers.values():
            s.shutdown()
            s.server_close()
