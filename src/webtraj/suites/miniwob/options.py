"""MiniWoB++'s own options of a run and of `webtraj sites tasks`: the core carries them as
given (`suite_options`) and the suite reads them through this model (`Suite.options`). A
light module: the command line loads it through the suite registry for its options' help."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.suite_registry import OptionFlag


class MiniWoBSuiteOptions(FrozenModel):
    """Which instances of the named task pages a run or a listing takes."""

    # Given as text in the suite's seed syntax (`Suite.setting_syntax`), after --task-ids.
    seeds: Annotated[tuple[int, ...], OptionFlag(form="e.g. 0-9 or 0,3,5",
                                                 listing_form="e.g. 0-9", after="task_ids")] = \
        Field(default=(), description="MiniWoB++ seeds (default 0).")
