"""The suites: each benchmark is one package here, behind the `Suite` protocol
(`webtraj.execute.suites.protocol`): its serving, tasks, options, id syntax, evaluators,
curation default and commands. The suite registry (`webtraj.model.suite_registry`) names
them; nothing outside this package imports one (docs/suites.md).

- `booking`: webtraj's own sandbox sites (served by `webtraj.sites`, which the oracle,
  task generation and exploration share), at a date and seed a run keeps.
- `miniwob`: MiniWoB++'s pages served on loopback, scored by the page's own reward.
- `webarena_verified`: WebArena-Verified on the user's deployment: its tasks, agent logs and
  evaluators.
- `tasks_file`: the tasks of a file, each served by the suite that serves its sites.
- `imported`: a run whose trajectories came with it."""
