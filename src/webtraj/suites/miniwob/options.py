"""MiniWoB++'s own options of a run and of `webtraj sites tasks`: the core carries them as
given (`suite_options`) and the suite reads them through this model (`Suite.options`). A
light module: the command line loads it through the suite registry for its options' help."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel


class MiniWoBSuiteOptions(FrozenModel):
    """Which instances of the named task pages a run or a listing takes."""

    seeds: tuple[int, ...] = Field(default=(), description="MiniWoB++ seeds (default 0).")
