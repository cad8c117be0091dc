"""WebArena-Verified's own options of a run and of `webtraj sites tasks`: the core carries
them as given (`suite_options`) and the suite reads them through this model
(`Suite.options`). A light module: the command line loads it through the suite registry for
its options' help."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.suite_registry import OptionFlag


class WebArenaVerifiedSuiteOptions(FrozenModel):
    """Which of the dataset's tasks, and the user's deployment they run on."""

    # A named subset of the dataset's tasks.
    subset: Annotated[str | None, OptionFlag(after="accounts_file")] = Field(
        default=None, description="WebArena-Verified: full (812 tasks, default) | hard (258).")
    # A run's only (the tasks listed are the same), after --prices.
    site_urls_file: Annotated[str | None, OptionFlag(
        flag="--site-urls", listing=False, after="prices", path=True)] = Field(
        default=None, description="WebArena-Verified: JSON mapping its sites (shopping, "
        "__GITLAB__, ...) to your deployment's base URLs; the browser reaches only those "
        "origins.")
    # The file's path only, never its passwords (read when a session opens).
    accounts_file: Annotated[str | None, OptionFlag(
        flag="--accounts", listing=False, after="site_urls_file", path=True)] = Field(
        default=None, description="WebArena-Verified: JSON of the accounts to log in with per "
        "site (default: the official deployment's; see docs/webarena-verified.md).")
