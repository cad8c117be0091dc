"""Users' constraint judges: by spec (`my_pkg.mod:MyJudge`) or by entry point of the
`webtraj.judges` group; a class or factory implementing `ConstraintJudge`, with its options
model in `Options` (given as the constraints evaluator's `judge_options`). It is called with
`options=`, and with `env=` / `llm=` (the run's shared model client) when it has such
parameters."""

from __future__ import annotations

import inspect
from typing import Any

from webtraj.evaluate.constraints.judge import ConstraintJudge
from webtraj.evaluate.protocol import EvalEnv
from webtraj.model.plugins import (
    is_spec,
    load_entry_point,
    load_spec,
    options_model_of,
    validate_options,
)

BUILTIN_JUDGES = ("rule", "llm", "vlm", "oracle")
JUDGE_ENTRY_POINT_GROUP = "webtraj.judges"


def load_judge(name: str) -> Any:
    """A user's judge class or factory, by spec or entry-point name."""
    target = (load_spec(name, what="judge") if is_spec(name)
              else load_entry_point(JUDGE_ENTRY_POINT_GROUP, name, what="judge"))
    if target is None:
        raise ValueError(f"unknown judge {name!r}; use {', '.join(BUILTIN_JUDGES)}, an entry "
                         f"point of {JUDGE_ENTRY_POINT_GROUP!r} or 'package.module:Judge'")
    if not callable(target):
        raise ValueError(f"judge {name!r} is not a class or a factory")
    return target


def make_plugin_judge(name: str, options: dict[str, Any], env: EvalEnv) -> ConstraintJudge:
    target = load_judge(name)
    params = inspect.signature(target).parameters
    kwargs: dict[str, Any] = {}
    model = options_model_of(target)
    opts = validate_options(model, options, owner=f"judge {name!r}")
    if model is not None:
        kwargs["options"] = opts
    if "env" in params:
        kwargs["env"] = env
    if "llm" in params:
        kwargs["llm"] = env.llm
    judge = target(**kwargs)
    if not inspect.iscoroutinefunction(getattr(judge, "judge", None)):
        raise ValueError(f"judge {name!r} does not implement ConstraintJudge: it needs "
                         "`async def judge(task, observations, trajectory, artifacts)`")
    if not isinstance(getattr(judge, "name", None), str):
        raise ValueError(f"judge {name!r} needs a `name` string")
    return judge
