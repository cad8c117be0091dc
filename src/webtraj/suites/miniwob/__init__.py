"""MiniWoB++ as a webtraj suite: the `miniwob` package's pages served on loopback, each task
instance (page x seed) a `Task`, scored by the page's own reward (evaluator `miniwob`)."""

from webtraj.suites.miniwob.assets import html_dir, task_names
from webtraj.suites.miniwob.server import MiniWoBServer
from webtraj.suites.miniwob.tasks import PageProbe, build_tasks, parse_seeds, task_id

__all__ = ["MiniWoBServer", "PageProbe", "build_tasks", "html_dir", "parse_seeds", "task_id",
           "task_names"]
