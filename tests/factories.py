"""Small builders shared by tests."""

import time

from webtraj.model import Observation, Step, Task, Trajectory
from webtraj.model.action import Action, ActionKind


def make_trajectory(task_id: str = "hotels-001", *, trial: int = 0, n_steps: int = 3,
                    site: str = "hotels", difficulty: str = "easy",
                    agent: str = "heuristic") -> Trajectory:
    task = Task(task_id=task_id, intent=f"Book a hotel ({task_id})", site=site,
                difficulty=difficulty, start_url="http://127.0.0.1:8001/")
    steps = tuple(
        Step(index=i, observation=Observation(url=f"http://127.0.0.1:8001/p{i}",
                                              axtree=f"[{i}] [button] [Go {i}]"),
             action=Action(kind=ActionKind.CLICK, element_id=str(i)), reasoning=f"step {i}")
        for i in range(n_steps)
    )
    return Trajectory(trajectory_id=Trajectory.make_id(task_id, agent, trial), task=task,
                      agent=agent, trial=trial, steps=steps,
                      final_observation=Observation(url="http://127.0.0.1:8001/done"))


# A fixed "today" for sandbox-site tests, so task dates never depend on the real date.
SANDBOX_TODAY = "2026-01-15"


def wait_until(condition, timeout: float) -> bool:
    """Poll `condition` every 0.2 s until it holds or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()
