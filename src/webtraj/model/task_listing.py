"""What `webtraj sites tasks` (and `sites list`) ask a suite for: the listing's settings,
declared once here so the command takes its options' defaults and help from them. It sits in
`model` so the command line reads it without importing a suite."""

from __future__ import annotations

from pydantic import Field

from webtraj.model.base import FrozenModel
from webtraj.model.run_settings import SuiteOptions

# The sandbox's first port: site i listens on DEFAULT_PORT_BASE + i unless told otherwise.
DEFAULT_PORT_BASE = 8760


class ListOptions(FrozenModel):
    """What `webtraj sites tasks` asks a suite for (each suite reads what applies to it; its
    own options through its options model)."""

    today: str | None = Field(default=None, description=(
        "Sandbox 'today' (YYYY-MM-DD); default: the real date. Written into each task, so "
        "that a run serves it again."))
    seed: int = Field(default=0, description="Sandbox inventory seed (written into each task).")
    port_base: int = Field(default=DEFAULT_PORT_BASE, description=(
        "Port base the sandbox start URLs use (a run moves them to the ports it serves on)."))
    host: str = "127.0.0.1"
    task_ids: tuple[str, ...] = Field(default=(), description=(
        "Comma-separated task ids or, for MiniWoB++, task names (default: every task)."))
    suite_options: SuiteOptions = Field(
        default_factory=SuiteOptions, description="The suite's own options (its options "
        "model reads them: `Suite.options`).")
