"""The distill recipe: the constraint-based evaluation paper's three data choices on a run with
cut-short trajectories,
the teacher-vs-student comparison, the recipe file's errors, and (slow) the whole loop
through `webtraj distill` with the replay agent as teacher and a tiny student."""

from __future__ import annotations

import orjson
import pytest

from factories import SANDBOX_TODAY
from train_support import TASKS, TINY_LORA, curate


@pytest.fixture(scope="module")
def cut_short(tmp_path_factory):
    """Replay stopped after 6 steps: the car search is done (CSR 1, no stop taken), the
    hotel search is not (CSR 0)."""
    from webtraj.execute.run import RunConfig, execute_run

    out = tmp_path_factory.mktemp("short") / "run"
    config = RunConfig(suite="booking", agent="replay", today=SANDBOX_TODAY, task_ids=TASKS,
                       max_steps=6)
    with execute_run(config, out):
        pass
    return out


def _lines(folder):
    return [orjson.loads(x) for s in ("train", "validation")
            for x in (folder / f"{s}.jsonl").read_bytes().splitlines()]


def test_data_choices_are_the_papers_table_2_rows(cut_short, replay_dir, tmp_path):
    from webtraj.train.data_choice import all_trajectories, partial, success_only

    curated = curate(cut_short, tmp_path / "curated", 0.5)
    part = partial(cut_short, curated, "oracle")
    succ = success_only(cut_short, curated, tmp_path / "success", "oracle")
    every = all_trajectories(cut_short, tmp_path / "all", "oracle", seed=0, val_fraction=0.5)
    assert part.successful_trajectories == succ.successful_trajectories == 1
    # Success only: the car trajectory, its 6 steps and the stop curate adds at CSR 1.
    kept = _lines(tmp_path / "success")
    assert len(kept) == 7 and all("Denver" in r["messages"][-2]["content"] for r in kept)
    assert "```stop []```" in kept[-1]["messages"][-1]["content"]
    # All: every step of both trajectories against the original tasks, no stop added.
    assert sum(every.records.values()) == 12 and every.used_trajectories == 2
    answers = [r["messages"][-1]["content"] for r in _lines(tmp_path / "all")]
    assert not any("```stop" in a for a in answers)
    assert sum("Tokyo" in r["messages"][-2]["content"] for r in _lines(tmp_path / "all")) == 6
    # Partial: the curated set (here the car prefix; the hotel one never raised the CSR).
    assert sum(part.records.values()) == len(_lines(curated)) == 7
    assert part.used_trajectories == 1 and part.trajectories == 2
    # The split is curate's, by task: the hotel task is held out in every choice.
    assert b"Tokyo" in (tmp_path / "all" / "validation.jsonl").read_bytes()

    full = curate(replay_dir, tmp_path / "full", 0.5)
    ok = success_only(replay_dir, full, tmp_path / "ok", "oracle")
    assert ok.successful_trajectories == 2 and sum(ok.records.values()) == 18


def test_comparison_is_per_site_and_difficulty_with_totals(replay_dir, cut_short):
    from webtraj.train.compare import compare_runs

    cmp = compare_runs(replay_dir, cut_short, "constraints:oracle")
    keys = [(r.site, r.difficulty) for r in cmp.rows]
    assert keys == [("cars", "easy"), ("cars", "all"), ("hotels", "easy"), ("hotels", "all"),
                    ("all", "all")]
    total = cmp.rows[-1]
    assert total.teacher.sr == 1.0 and total.teacher.csr == 1.0 and total.teacher.episodes == 2
    assert total.student.sr == 0.5 and total.student.csr == 0.5
    assert total.student.errors == 0 and total.student.scored == 2


def test_recipe_errors_name_the_file_and_the_field(tmp_path):
    from webtraj.model.errors import InputError
    from webtraj.train.distill_config import load_distill_config

    bad = tmp_path / "d.yaml"
    bad.write_text("out: x\nbase: m\ndata: best\n")
    with pytest.raises(InputError) as err:
        load_distill_config(bad)
    assert err.value.field == "data" and str(bad) in str(err.value)
    bad.write_text("out: x\nbase: m\ntrain: {lr: 1}\n")
    with pytest.raises(InputError, match="train.lr"):
        load_distill_config(bad)
    good = tmp_path / "d.json"
    good.write_text('{"out": "x", "base": "m", "train": {"epochs": 1}}')
    cfg = load_distill_config(good, data="success")
    assert cfg.data == "success" and cfg.train.learning_rate == 1e-4
    assert cfg.train.lora.targets == ("q_proj", "v_proj") and cfg.train.batch_size == 16


@pytest.mark.slow
def test_distill_end_to_end_replay_teacher_tiny_student(base_model, tmp_path):
    from typer.testing import CliRunner

    from webtraj.cli.app import app

    recipe = {"out": str(tmp_path / "distill"), "suite": "booking", "today": SANDBOX_TODAY,
              "task_ids": list(TASKS), "teacher": {"agent": "replay", "max_steps": 15},
              "data": "partial", "val_fraction": 0.5, "base": str(base_model),
              "train": {"epochs": 1, "batch_size": 4, "per_device_batch": 4,
                        "learning_rate": 1e-2, "warmup_ratio": 0,
                        "lora": {k: list(v) if isinstance(v, tuple) else v
                                 for k, v in TINY_LORA.items()}},
              "student": {"max_tokens": 40, "max_steps": 3}}
    path = tmp_path / "recipe.json"
    path.write_bytes(orjson.dumps(recipe))
    res = CliRunner().invoke(app, ["distill", str(path)])
    assert res.exit_code == 0, res.output
    report = orjson.loads((tmp_path / "distill" / "distill_report.json").read_bytes())
    total = report["comparison"]["rows"][-1]
    assert total["teacher"]["sr"] == 1.0 and total["teacher"]["episodes"] == 2
    assert total["student"]["episodes"] == 2 and total["student"]["scored"] == 2
    assert report["data"]["records"] == {"train": 7, "validation": 11}
    assert report["train"]["final_loss"] < report["train"]["first_loss"]
    out = " ".join(res.output.split())
    assert "Teacher vs student" in out and "Training data (partial)" in out
    assert "Loss per epoch" in out
