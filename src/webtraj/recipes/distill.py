"""The distill recipe end to end (the distillation loop of the constraint-based evaluation paper):
teacher rollouts (scored as they run) ->
curation -> data choice -> LoRA training -> the student served on loopback -> student
rollouts on the same tasks -> teacher vs student comparison and data statistics.

Every stage writes into `out/` and is skipped when its output is complete, so re-running the
same config after a crash resumes (the runs resume episode by episode, training from its last
checkpoint)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from webtraj.curate.settings import CurateSettings
from webtraj.execute.curation import CurateRun, curate_run, default_judge
from webtraj.execute.run import RunConfig, execute_run
from webtraj.model.base import FrozenModel
from webtraj.store import RunStore
from webtraj.store.atomic import write_bytes_atomic
from webtraj.train.compare import Comparison, compare_runs
from webtraj.train.config import TrainConfig, TrainResult
from webtraj.train.data_choice import DataStats, all_trajectories, partial, success_only
from webtraj.train.distill_config import DistillConfig

Stage = Callable[[str], None]
REPORT = "distill_report.json"


class DistillReport(FrozenModel):
    config: DistillConfig
    judge: str
    data: DataStats
    train: TrainResult
    comparison: Comparison


def _run(config: RunConfig, out: Path) -> None:
    with execute_run(config, out):
        pass


def run_distill(cfg: DistillConfig, *, on_stage: Stage | None = None,
                train_progress: Callable | None = None) -> DistillReport:
    from webtraj.train.local_model import LocalModel
    from webtraj.train.serve import LocalServer
    from webtraj.train.sft import train

    say = on_stage or (lambda _: None)
    out = cfg.out
    teacher_dir, student_dir = out / "teacher", out / "student"
    prompt = cfg.prompt_options()
    common = {"suite": cfg.suite, "task_ids": cfg.task_ids, "limit": cfg.limit,
              "today": cfg.today, "seed": cfg.seed, "trials": cfg.teacher.trials}
    say("teacher rollouts")
    _run(RunConfig(agent=cfg.teacher.agent, llm=cfg.teacher.llm,
                   agent_options=dict(cfg.teacher.agent_options),
                   max_steps=cfg.teacher.max_steps, workers=cfg.teacher.workers, **common),
         teacher_dir)
    with RunStore.open(teacher_dir) as store:
        info = store.info
    # The student sees the teacher's sandbox date, so both runs get the same tasks.
    today = info.sandbox.today.isoformat() if info.sandbox else cfg.today
    judge = cfg.judge or default_judge(info)
    say(f"curating ({cfg.data})")
    curated = out / "curated"
    settings = CurateSettings(judge=judge, relabel=cfg.relabel, llm=cfg.relabel_llm,
                              seed=cfg.seed, prompt=prompt)
    curate_run(CurateRun(run=teacher_dir, out=curated, settings=settings,
                         val_fraction=cfg.val_fraction))
    data_dir = out / f"data-{cfg.data}"
    if cfg.data == "partial":
        stats, data_dir = partial(teacher_dir, curated, judge), curated
    elif cfg.data == "success":
        stats = success_only(teacher_dir, curated, data_dir, judge)
    else:
        stats = all_trajectories(teacher_dir, data_dir, judge, seed=cfg.seed,
                                 val_fraction=cfg.val_fraction, prompt=prompt)
    say("training the student")
    tcfg = TrainConfig(data=data_dir, base=cfg.base, out=out / "model",
                       **cfg.train.model_dump())
    result = train(tcfg, progress=train_progress)
    say("student rollouts")
    model = LocalModel(cfg.base, result.adapter)
    with LocalServer(model, name=cfg.student.name) as srv:
        spec = (f"base_url={srv.base_url},model={cfg.student.name},"
                f"max_tokens={cfg.student.max_tokens},temperature=0")
        _run(RunConfig(agent="llm", llm=spec, no_cache=True,
                       agent_options=prompt.model_dump(mode="json"),
                       max_steps=cfg.student.max_steps or cfg.teacher.max_steps,
                       workers=cfg.student.workers, **{**common, "today": today}),
             student_dir)
    comparison = compare_runs(teacher_dir, student_dir, f"constraints:{judge}")
    report = DistillReport(config=cfg, judge=judge, data=stats, train=result,
                           comparison=comparison)
    write_bytes_atomic(out / REPORT, report.model_dump_json(indent=2).encode())
    return report
