"""How an episode's browser context is set up and how patient its actions are."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr

from webtraj.model.base import FrozenModel
from webtraj.model.run_settings import ScreenshotFormat, run_default


class FormLogin(FrozenModel):
    """An account to log in with before an episode starts, through the site's own login form
    (the first form with a password field: the field before it gets the user name)."""

    site: str
    login_url: str
    username: str
    password: SecretStr


class EnvConfig(FrozenModel):
    """Per-episode settings. Defaults suit the sandbox sites on loopback.

    The start URL's origin is always allowed; `allowed_origins` adds others. An episode never
    reaches an origin nobody named."""

    viewport_width: int = Field(default=1280, ge=200)
    viewport_height: int = Field(default=720, ge=200)
    # Device pixels per CSS pixel of the page; each observation records the ratio its
    # screenshot really has, so a vision agent's points map back to CSS pixels.
    device_scale_factor: float = Field(default=1.0, gt=0, le=4)
    locale: str = "en-US"
    timezone_id: str = "UTC"
    allowed_origins: tuple[str, ...] = ()
    # Accounts an episode logs in with (in its first tab) before going to its start URL.
    logins: tuple[FormLogin, ...] = ()
    # HAR of every request (plain http on loopback included); written when the episode closes.
    har_path: Path | None = None
    # "omit" keeps HAR small (URLs, headers, post data); "embed" also keeps response bodies.
    har_content: Literal["omit", "embed"] = "omit"
    # With "omit": the responses (URL regexes, full match) whose bodies the HAR keeps anyway,
    # each up to `max_response_body_bytes` (what a task's evaluators read).
    response_body_urls: tuple[str, ...] = ()
    max_response_body_bytes: int = Field(default=1_000_000, ge=1)
    # Where downloads are saved (the episode's scratch folder); None refuses downloads. See
    # downloads.py for what is kept.
    downloads_dir: Path | None = None
    # Caps on what downloads write there (downloads.py): each file, and all of an episode's.
    max_download_bytes: int = Field(default=run_default("max_download_bytes"), ge=0)
    max_episode_download_bytes: int = Field(default=run_default("max_episode_download_bytes"),
                                            ge=0)
    # Observation contents.
    visible_only: bool = False
    screenshot: bool = True
    # PNG is lossless (encoded for speed, same pixels); JPEG/WebP are smaller and lossy.
    screenshot_format: ScreenshotFormat = run_default("screenshot_format")
    screenshot_quality: int = Field(default=run_default("screenshot_quality"), ge=1, le=100)
    full_page_screenshot: bool = False
    html: bool = False
    # Parsed JSON-LD of the page (what rule judges read as structured data).
    structured_data: bool = True
    # Ids (`n3`) for visible interactive elements the accessibility tree has no line for
    # (click handlers, tabindex, canvas, svg shapes; see marks.py), and the mouse position.
    mark_elements: bool = True
    # A second screenshot with every id drawn at its box (set-of-marks, for vision agents
    # and VLM judges), stored beside the plain one.
    set_of_marks: bool = False
    # Patience, in milliseconds.
    action_timeout_ms: int = Field(default=5_000, ge=100)
    navigation_timeout_ms: int = Field(default=15_000, ge=100)
    # Settling after an action (settle.py): at most this long, and the DOM must have been
    # quiet this long once nothing is pending in the page.
    settle_timeout_ms: int = Field(default=3_000, ge=0)
    dom_quiet_ms: int = Field(default=0, ge=0)
    # JavaScript dialogs: alerts and beforeunload are always accepted (leaving a page is never
    # refused); confirm/prompt follow this.
    dialog_policy: Literal["accept", "dismiss"] = "accept"
    # Extraction retries when a frame detaches or a navigation replaces the document.
    extraction_retries: int = Field(default=3, ge=0)
    # Reading the page (accessibility tree, screenshot, titles) takes at most this long: a
    # bound against a hung page, not a patience setting (a large page takes seconds: ~6 s
    # for the tree of 10,000 buttons on a loaded 2-core machine), so it is apart from the
    # actions' timeout. The tree is not read at all on a document with more elements than
    # `max_page_elements` or a tree over `max_tree_chars`: the observation is then marked
    # unreadable with the reason (judgements on it are unknown), deterministically rather
    # than by a timeout that depends on load.
    capture_timeout_ms: int = Field(default=20_000, ge=100)
    max_page_elements: int = Field(default=20_000, ge=1)
    max_tree_chars: int = Field(default=4_000_000, ge=1)
    # Pages nesting elements deeper than this are not read either (the browser's snapshot of
    # 3,000 nested levels takes over a minute; formatting a tree costs stack frames per
    # level). The deepest real pages nest a few dozen levels.
    max_page_depth: int = Field(default=256, ge=1, le=400)
    # The page's HTML (when `html`) is not kept past this size.
    max_html_chars: int = Field(default=10_000_000, ge=1)

    def known_secrets(self) -> tuple[str, ...]:
        """The secret values this episode holds (its accounts' passwords): whatever it writes
        (journals, the store's files) redacts them in every encoding."""
        return tuple(self.named_secrets().values())

    def named_secrets(self) -> dict[str, str]:
        """The known secrets by name (an account's site): a stored action names the one it
        typed (`{secret:SITE}`, passwords.py) and replaying it types the value."""
        return {lg.site: lg.password.get_secret_value() for lg in self.logins}
