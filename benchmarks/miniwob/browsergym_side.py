"""BrowserGym's side of benchmarks/miniwob_vs_browsergym.py, run by the Python of BrowserGym's
own virtual environment (it never imports webtraj): the given MiniWoB++ episodes with the
scripted policy of benchmarks/miniwob/policy.py, one after another, Chromium from
--chromium. Prints one JSON line: start-up (process start to the first action), per episode
steps, success and step seconds.

    VENV/bin/python benchmarks/miniwob/browsergym_side.py --miniwob-url file:///.../miniwob/ \
        --tasks click-button,enter-text --seeds 0-9 [--no-waits] --t0 EPOCH
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path


def _policy():
    path = Path(__file__).with_name("policy.py")
    spec = importlib.util.spec_from_file_location("miniwob_policy", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _use_chromium(path: str) -> None:
    """Every browser BrowserGym launches (the task's and its chat window's) is `path`."""
    from playwright.sync_api import BrowserType

    launch = BrowserType.launch

    def launch_this(self, *args, **kwargs):
        kwargs.setdefault("executable_path", path)
        return launch(self, *args, **kwargs)

    BrowserType.launch = launch_this  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--miniwob-url", required=True)
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--seeds", default="0-9")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--no-waits", action="store_true",
                        help="slow_mo 0 and pre_observation_delay 0 (BrowserGym's fixed waits)")
    parser.add_argument("--t0", type=float, default=None, help="process start (epoch s)")
    parser.add_argument("--max-steps", type=int, default=10)
    args = parser.parse_args()
    t0 = args.t0 or time.time()
    os.environ["MINIWOB_URL"] = args.miniwob_url
    import browsergym.miniwob  # noqa: F401  (registers the environments)
    import gymnasium as gym
    from browsergym.utils.obs import flatten_axtree_to_str

    _use_chromium(args.chromium)
    policy = _policy()
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    first_action: float | None = None
    episodes = []
    kwargs: dict[str, object] = {}
    if args.no_waits:
        kwargs.update(slow_mo=0, pre_observation_delay=0.0)
    for name in args.tasks.split(","):
        for seed in seeds:
            env = gym.make(f"browsergym/miniwob.{name}", **kwargs)
            try:
                obs, info = env.reset(seed=seed)
                steps, reward, step_s, done = 0, 0.0, [], False
                while not done and steps < args.max_steps:
                    tree = flatten_axtree_to_str(obs["axtree_object"])
                    found = policy.elements(tree, policy._BROWSERGYM_ELEMENT)
                    act = policy.plan(obs["goal"], steps, found)
                    if act is None:
                        break
                    kind, eid, text = act
                    action = f"click({eid!r})" if kind == "click" else \
                        f"fill({eid!r}, {text!r})"
                    if first_action is None:
                        first_action = time.time()
                    ts = time.perf_counter()
                    obs, reward, terminated, truncated, info = env.step(action)
                    step_s.append(time.perf_counter() - ts)
                    steps += 1
                    done = terminated or truncated
                episodes.append({"task": name, "seed": seed, "steps": steps,
                                 "success": reward > 0, "step_s": step_s,
                                 "error": obs.get("last_action_error") or None})
            finally:
                env.close()
    print(json.dumps({"startup_s": (first_action or time.time()) - t0,
                      "episodes": episodes}))


if __name__ == "__main__":
    sys.exit(main())
