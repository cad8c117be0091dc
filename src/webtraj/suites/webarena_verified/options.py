"""WebArena-Verified's own options of a run and of `webtraj sites tasks`: the core carries
them as given (`suite_options`) and the suite reads them through this model
(`Suite.options`). A light module: the command line loads it through the suite registry for
its options' help."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel


class WebArenaVerifiedSuiteOptions(FrozenModel):
    """Which of the dataset's tasks, and the user's deployment they run on."""

    # A named subset of the dataset's tasks.
    subset: str | None = Field(default=None, description="WebArena-Verified: full (812 "
                               "tasks, default) | hard (258).")
    site_urls_file: str | None = Field(
        default=None, description="WebArena-Verified: JSON mapping its sites (shopping, "
        "__GITLAB__, ...) to your deployment's base URLs; the browser reaches only those "
        "origins.")
    # The file's path only, never its passwords (read when a session opens).
    accounts_file: str | None = Field(
        default=None, description="WebArena-Verified: JSON of the accounts to log in with per "
        "site (default: the official deployment's; see docs/webarena-verified.md).")
