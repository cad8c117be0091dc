"""Overfit check (slow): a student trained long enough on the replay agent's curated records
of 2 sandbox tasks, served locally and run greedily as the `llm` agent on those tasks, takes
the recorded action at >= 90% of the recorded steps. It holds only if the training prompt is
exactly the acting prompt (same messages, same chat template, same history form)."""

from __future__ import annotations

import orjson
import pytest

from factories import SANDBOX_TODAY
from train_support import TASKS, curate, records
from webtraj.model.action_text import parse_answer


def _actions(data) -> dict[str, list[str]]:
    """Recorded actions per task, in step order (the records' answers)."""
    out: dict[str, list[str]] = {}
    for rec in records(data):
        intent = rec["messages"][-2]["content"].split("\n", 1)[0]
        out.setdefault(intent, []).append(parse_answer(rec["messages"][-1]["content"])
                                          .action.to_text())
    return out


@pytest.mark.slow
def test_student_takes_the_recorded_actions(replay_dir, tmp_path, capsys):
    from webtraj.execute.run import RunConfig, execute_run
    from webtraj.testing.tiny_model import build_tiny_model, chat_texts
    from webtraj.train.config import LoraSettings, TrainConfig
    from webtraj.train.local_model import LocalModel
    from webtraj.train.serve import LocalServer
    from webtraj.train.sft import train

    data = curate(replay_dir, tmp_path / "data", 0.0)
    base = build_tiny_model(chat_texts(records(data)), tmp_path / "base")
    # Full-rank LoRA on every linear layer and a trainable head: enough to memorize.
    cfg = TrainConfig(data=data, base=str(base), out=tmp_path / "student", epochs=60,
                      batch_size=6, per_device_batch=6, learning_rate=3e-3,
                      warmup_ratio=0, save_total_limit=1,
                      lora=LoraSettings(r=64, alpha=64, dropout=0.0, targets=("all-linear",),
                                        modules_to_save=("lm_head",)))
    result = train(cfg)
    want = _actions(data)
    with LocalServer(LocalModel(str(base), result.adapter), name="student") as srv:
        config = RunConfig(suite="booking", agent="llm", today=SANDBOX_TODAY, task_ids=TASKS,
                           max_steps=max(len(v) for v in want.values()) + 1, no_cache=True,
                           llm=f"base_url={srv.base_url},model=student,max_tokens=64")
        with execute_run(config, tmp_path / "run") as store:
            trajs = list(store.iter_trajectories())
    matched = total = 0
    for t in trajs:
        recorded = want[f"TASK: {t.task.intent}"]
        taken = [s.action.to_text() if s.action else None for s in t.steps]
        total += len(recorded)
        matched += sum(a == b for a, b in zip(taken, recorded, strict=False))
    share = matched / total
    with capsys.disabled():
        print(f"\noverfit: {matched}/{total} recorded actions taken ({share:.1%}); final loss "
              f"{result.final_loss:.4f} after {result.steps} steps, {result.runtime_s:.0f}s "
              f"training, {result.tokens_per_s:.0f} tokens/s")
    (tmp_path / "overfit.json").write_bytes(orjson.dumps({"matched": matched, "total": total}))
    assert share >= 0.9
