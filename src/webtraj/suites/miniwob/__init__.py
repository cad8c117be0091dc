"""MiniWoB++ as a webtraj suite: the `miniwob` package's pages served on loopback
(`server.MiniWoBServer`), each task instance (page x seed) a `Task` (`tasks.build_tasks`),
scored by the page's own reward (evaluator `miniwob`). Modules are imported where used: the
evaluator needs none of the web framework."""
