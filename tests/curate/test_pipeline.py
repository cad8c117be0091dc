"""`webtraj curate` end to end on small runs written through RunStore: statistics, bad
input, the exported files, byte-identical output (repeat, chunking, Ray)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curate.conftest import (
    CONSTRAINTS,
    make_score,
    make_task,
    make_traj,
    matching_rows,
    write_run,
)
from webtraj.cli.app import app
from webtraj.curate.settings import CurateSettings
from webtraj.execute.curation import CurateRun, curate_run, ensure_curves
from webtraj.model import Termination
from webtraj.store import RunStore
from webtraj.store.reader import TRAJECTORIES, TRAJECTORY_JSON, missing_curves

FILES = ("train.jsonl", "validation.jsonl", "train.parquet", "validation.parquet",
         "tasks.jsonl", "stats.json")
NAMES = [c.name for c in CONSTRAINTS]


def _curate(run: Path, out: Path, **kw) -> dict:
    settings = CurateSettings(judge=kw.pop("judge", "rule"), **{
        k: kw.pop(k) for k in ("second_judge", "relabel", "llm", "seed") if k in kw})
    rescored = ensure_curves(run, settings) if kw.pop("rescore", True) else 0
    curate_run(CurateRun(run=run, out=out, settings=settings, **kw), rescored=rescored)
    return orjson.loads((out / "stats.json").read_bytes())


def _productive_seed() -> int:
    """A seed whose validation task (1 of 3) has records (hotels-003 has no constraints)."""
    from webtraj.curate.split import validation_tasks

    return next(seed for seed in range(50) if validation_tasks(
        ["hotels-001", "hotels-002", "hotels-003"], 0.34, seed) & {"hotels-001", "hotels-002"})


def _bytes(out: Path) -> dict[str, bytes]:
    return {f: (out / f).read_bytes() for f in FILES}


def test_statistics_and_bad_input_are_counted(small_run, tmp_path):
    stats = _curate(small_run, tmp_path / "out", val_fraction=0.34)
    assert stats["trajectories"] == 6
    assert stats["fully_successful"] == 1          # only trial 0 ends at CSR 1
    assert stats["with_usable_prefix"] == 4
    assert stats["full_instances"] == 2 and stats["partial_instances"] == 2
    assert stats["relabeled"] == 2
    assert stats["dropped"] == {"no_constraints": 1, "zero_csr": 1}
    # The trajectory with an unscored observation is kept: o_1 is unknown, o_2 is the best.
    assert stats["unscored_observations"] == 1 and stats["trajectories_with_unscored"] == 1
    assert stats["unscored_before_best"] == 1
    assert stats["steps_without_action"] == 1
    # own stop (hotels-001 t0), added stop (t1 went on), relabeled stops (hotels-002 t0, t2)
    assert stats["records"] == {"added_stop": 1, "own_stop": 1, "relabeled_stop": 2,
                                "step": 7}
    assert stats["steps_kept"] == 11
    assert stats["invalid_stops_not_kept"] == 1
    # The task without constraints had no scores: it was scored, and still has nothing.
    assert stats["rescored_trajectories"] == 1


def test_without_rescoring_missing_scores_are_dropped(small_run, tmp_path):
    stats = _curate(small_run, tmp_path / "out", rescore=False)
    assert stats["dropped"]["no_constraints"] == 1
    assert stats["rescored_trajectories"] == 0


def test_broken_inputs_never_crash(tmp_path):
    task = make_task("hotels-009")
    good = make_traj(task, 2)
    rows = matching_rows(task, [[], NAMES[:2], NAMES])
    no_scores = make_traj(task, 2, trial=1)
    short = make_traj(task, 2, trial=2)
    final_only = make_traj(task, 2, trial=3)
    corrupt = make_traj(task, 2, trial=4)
    final_score = make_score(task, rows[-1:])     # steps=final: no curve
    run = write_run(tmp_path / "run", [
        (good, [make_score(task, rows)]), (no_scores, []),
        (short, [make_score(task, rows[:2])]), (final_only, [final_score]),
        (corrupt, [make_score(task, rows)])])
    (run / TRAJECTORIES / corrupt.trajectory_id / TRAJECTORY_JSON).write_text("{not json")
    stats = _curate(run, tmp_path / "out", rescore=False)
    assert stats["trajectories"] == 5
    assert stats["with_usable_prefix"] == 1
    assert stats["dropped"] == {"bad_score_shape": 1, "no_score": 1, "no_step_scores": 1,
                                "unreadable": 1}


def test_missing_curves_are_computed_with_the_rule_judge(tmp_path):
    task = make_task("hotels-010")
    traj = make_traj(task, 2)
    run = write_run(tmp_path / "run", [(traj, [])])
    stats = _curate(run, tmp_path / "out")
    assert stats["rescored_trajectories"] == 1
    assert missing_curves(run, "constraints:rule") == []
    # Whatever the rule judge read on these synthetic pages, it was a curve, not "no score".
    assert "no_score" not in stats["dropped"] and "no_step_scores" not in stats["dropped"]
    assert stats["trajectories"] == 1


def test_curating_again_adds_no_copies_of_error_scores(small_run, tmp_path):
    """An episode that ended in an error gets the same error score at every scoring: the
    first curation stores it, later ones (and `eval --run`) add no copy of it, and the
    curated output stays the same."""
    task = make_task("hotels-020")
    errored = [make_traj(task, 2, trial=i).model_copy(update={"error": "browser crashed"})
               for i in range(2)]
    with RunStore.open(small_run, write=True) as store:
        for traj in errored:
            store.add_trajectory(traj)

    def score_sets() -> int:
        with RunStore.open(small_run) as store:
            return sum(len(store.scores(t.trajectory_id, latest_only=False))
                       for t in store.iter_trajectories())

    counts, stats = [], []
    for i in range(4):
        res = CliRunner().invoke(app, ["curate", "--run", str(small_run), "--judge", "rule",
                                       "--out", str(tmp_path / f"out{i}")])
        assert res.exit_code == 0, res.output
        counts.append(score_sets())
        stats.append(orjson.loads((tmp_path / f"out{i}" / "stats.json").read_bytes()))
    assert counts[1:] == counts[:1] * 3, counts
    assert [s["rescored_trajectories"] for s in stats[1:]] == [0, 0, 0]
    assert all({k: v for k, v in s.items() if k != "rescored_trajectories"}
               == {k: v for k, v in stats[0].items() if k != "rescored_trajectories"}
               for s in stats[1:])
    with RunStore.open(small_run) as store:
        for traj in errored:
            (score,) = store.scores(traj.trajectory_id)
            assert score.error and score.value is None and "browser crashed" in score.reason
    res = CliRunner().invoke(app, ["eval", "--run", str(small_run), "--evaluator",
                                   "constraints:judge=rule,steps=all"])
    assert res.exit_code == 0, res.output
    # Re-scoring added the other trajectories' scores beside the old ones, no error copy.
    with RunStore.open(small_run) as store:
        for traj in errored:
            assert len(store.scores(traj.trajectory_id, latest_only=False)) == 1


def test_export_loads_with_datasets_and_renders_through_a_chat_template(small_run, tmp_path,
                                                                         monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    out = tmp_path / "out"
    _curate(small_run, out, val_fraction=0.34, seed=_productive_seed())
    ds = datasets.load_dataset("json", data_files={"train": str(out / "train.jsonl"),
                                                   "validation": str(out / "validation.jsonl")},
                               cache_dir=str(tmp_path / "hf"))
    assert ds["train"].column_names == ["messages"]
    assert len(ds["train"]) + len(ds["validation"]) == 11
    record = ds["train"][0]["messages"]
    # The system prompt, the llm agent's worked example, the step's prompt, the answer.
    assert [m["role"] for m in record] == ["system", "user", "assistant", "user", "assistant"]
    tok = _local_tokenizer([m["content"] for m in record])
    text = tok.apply_chat_template(record, tokenize=False)
    assert record[-2]["content"] in text and text.rstrip().endswith("<|end|>")
    ids = tok.apply_chat_template(record, tokenize=True)
    ids = ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids
    assert len(ids) > 50 and tok.unk_token_id not in ids[:3]
    # The Parquet files carry the same messages plus provenance.
    table = pq.read_table(out / "train.parquet")
    assert table.num_rows == len(ds["train"])
    assert table.column("messages").to_pylist()[0] == record
    pq_ds = datasets.load_dataset("parquet", data_files=str(out / "train.parquet"),
                                  cache_dir=str(tmp_path / "hf2"))["train"]
    assert pq_ds[0]["messages"] == record


def _local_tokenizer(texts: list[str]):
    """A word-level tokenizer built here (no download) with a chat template."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]
    words = sorted({w for t in texts for w in t.split()})
    vocab = {w: i for i, w in enumerate([*specials, *words])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]",
                                  eos_token="<|end|>", additional_special_tokens=specials[1:4])
    tok.chat_template = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|>\n"
                         "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
    return tok


def test_split_is_by_task(small_run, tmp_path):
    out = tmp_path / "out"
    _curate(small_run, out, val_fraction=0.34, seed=_productive_seed())
    tasks = {}
    for split in ("train", "validation"):
        tasks[split] = set(pq.read_table(out / f"{split}.parquet")
                           .column("source_task_id").to_pylist())
    assert tasks["train"] and tasks["validation"]
    assert not tasks["train"] & tasks["validation"]


def test_same_input_and_seed_give_the_same_bytes(small_run, tmp_path, monkeypatch):
    # Small row groups, so Parquet groups straddle chunk boundaries.
    monkeypatch.setattr("webtraj.curate.writers.ROW_GROUP", 3)
    a = _bytes_of(small_run, tmp_path / "a", chunk_size=64)
    b = _bytes_of(small_run, tmp_path / "b", chunk_size=1)
    assert a == b
    assert pq.ParquetFile(tmp_path / "a" / "train.parquet").num_row_groups > 1
    c = _bytes_of(small_run, tmp_path / "c", seed=7, chunk_size=2)
    assert c["stats.json"] != a["stats.json"]  # the seed is recorded (and drives wording)


def _bytes_of(run, out, **kw):
    _curate(run, out, val_fraction=0.34, rescore=False, **kw)
    return _bytes(out)


def _decisions(run: Path, out: Path) -> dict[str, dict]:
    """The curation decisions the run's index holds for the dataset at `out`, unstamped."""
    import sqlite3

    from webtraj.store.decisions import decisions_of

    with sqlite3.connect(run / "index.sqlite") as conn:
        ids = [tid for (tid,) in conn.execute("SELECT trajectory_id FROM trajectories")]
        return {tid: d.model_dump(exclude={"dataset", "curated_at"})
                for tid in ids for d in decisions_of(conn, tid)
                if d.dataset == str(out.resolve())}


def test_ray_executor_gives_byte_identical_output(small_run, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setattr("webtraj.curate.writers.ROW_GROUP", 3)
    local = _bytes_of(small_run, tmp_path / "local", chunk_size=2)
    ray_out = _bytes_of(small_run, tmp_path / "ray", chunk_size=2, executor="ray",
                        num_cpus=2)
    assert local == ray_out
    decided = _decisions(small_run, tmp_path / "local")
    assert len(decided) == 6
    assert _decisions(small_run, tmp_path / "ray") == decided


def test_worker_processes_record_every_decision(small_run, tmp_path):
    """Worker processes send each trajectory's decision back with the records (they were
    once lost on the way, leaving the run's index without them)."""
    _curate(small_run, tmp_path / "one", rescore=False, chunk_size=2, num_cpus=1)
    _curate(small_run, tmp_path / "pool", rescore=False, chunk_size=2, num_cpus=2)
    one = _decisions(small_run, tmp_path / "one")
    assert len(one) == 6 and sum(d["kept"] for d in one.values()) == 4
    assert _decisions(small_run, tmp_path / "pool") == one


def test_two_judges_filter_from_the_command_line(tmp_path):
    task = make_task("hotels-011")
    items = []
    for trial, (a, b) in enumerate([
            ([[], NAMES[:2], NAMES[:3]], [[], NAMES[:1], NAMES[:3]]),   # agree
            ([[], NAMES[:2], NAMES[:3]], [[], NAMES[:3], NAMES[:3]]),   # t' differs
            ([[], NAMES[:2], NAMES[:3]], [[], NAMES[:2], NAMES[1:4]])]):  # C' differs
        traj = make_traj(task, 2, trial=trial)
        items.append((traj, [make_score(task, matching_rows(task, a), "rule"),
                             make_score(task, matching_rows(task, b), "llm")]))
    run = write_run(tmp_path / "run", items)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["curate", "--run", str(run), "--judge", "rule",
                                   "--second-judge", "llm", "--out", str(out)])
    assert res.exit_code == 0, res.output
    stats = orjson.loads((out / "stats.json").read_bytes())
    assert stats["with_usable_prefix"] == 1
    assert stats["dropped"] == {"judges_disagree": 2}
    assert "judges_disagree" in res.output


def test_cli_refuses_a_model_judge_without_a_model(small_run, tmp_path):
    res = CliRunner().invoke(app, ["curate", "--run", str(small_run), "--judge", "llm",
                                   "--out", str(tmp_path / "o")])
    assert res.exit_code != 0
    assert not (tmp_path / "o" / "stats.json").exists()


# sha256 of the files curated from `small_run` (a third of the tasks in validation) before
# curation ran on worker processes: a change to the bytes written changes the curated data.
# Regenerated when the system prompt's action list became generated from the action model,
# and again when records became exactly the llm agent's messages (its worked example after
# the system prompt, the page fenced as data, the system prompt saying so) and stats.json
# began to record the prompt options; checked then: the answers, the other Parquet columns
# and tasks.jsonl unchanged, each user turn the old one with its page fenced.
GOLDEN = {
    "train.jsonl": "ee50c9bc7867140801fc5188afcfaead71fe4846f68a20722cce3d6ddf8aa86d",
    "validation.jsonl": "57be4113c1eecc994cd88333711feb916b8d39aa2a658bb7b729e8079168271f",
    "train.parquet": "83c9efe9faffc7a34d726b351017135cddc491abf8280a491bb4d8ebf5d96e75",
    "validation.parquet": "42467a7ce2d10ece2b8ffdb93e944159a37de51a4c949cad2dd36591ec9229b3",
    "tasks.jsonl": "9adb819920d461a734ceb8d88c18c1183cf1a641931c750be80d992f17811f05",
    "stats.json": "d5ddd144752ddbb934b8ce9d5da6fafa4fb2c7ac21b99609c74870d3413c8fc2",
}


def _rows_digest(path: Path) -> str:
    """Parquet by content (its bytes name the pyarrow version that wrote them)."""
    import hashlib

    table = pq.read_table(path)
    return hashlib.sha256(orjson.dumps(table.to_pylist()) + str(table.schema).encode()
                          ).hexdigest()


@pytest.mark.parametrize("num_cpus", [1, 2])
def test_curated_bytes_are_the_reference_bytes(small_run, tmp_path, num_cpus):
    import hashlib

    out = tmp_path / "out"
    _curate(small_run, out, val_fraction=0.34, seed=_productive_seed(), rescore=False,
            chunk_size=1, num_cpus=num_cpus)
    got = {f: (_rows_digest(out / f) if f.endswith(".parquet")
               else hashlib.sha256((out / f).read_bytes()).hexdigest()) for f in FILES}
    assert got == GOLDEN


def test_cli_says_why_it_kept_nothing(tmp_path):
    """A run of failed episodes (no step taken) and one that never improved on its start
    page: nothing to keep, so the
    command fails and counts the trajectories by reason, instead of writing empty data."""
    task = make_task()
    errored = [make_traj(task, 0, trial=k).model_copy(update={
        "termination": Termination.ERROR,
        "error": "infrastructure failure: LLM call failed"})
        for k in range(2)]
    zero = make_traj(task, 2, trial=2)
    run = write_run(tmp_path / "run", [
        *((t, []) for t in errored),
        (zero, [make_score(task, matching_rows(task, [[], [], []]), "rule")])])
    res = CliRunner().invoke(app, ["curate", "--run", str(run), "--judge", "rule",
                                   "--out", str(tmp_path / "out")], env={"COLUMNS": "300"})
    out = " ".join(res.output.split())
    assert res.exit_code == 1, res.output
    assert "curation kept nothing (rule judge): of 3 trajectories, none gave a record" in out
    assert "dropped 2 no_actions, 1 best_at_start" in out
    assert "wrote" not in out

    empty = write_run(tmp_path / "empty", [])
    res = CliRunner().invoke(app, ["curate", "--run", str(empty), "--judge", "rule",
                                   "--out", str(tmp_path / "out2")], env={"COLUMNS": "300"})
    assert res.exit_code == 1 and "the run has no trajectory" in " ".join(res.output.split())


def test_cli_prompt_options_shape_the_records_and_are_recorded(small_run, tmp_path):
    """`--prompt-option` builds the records as the llm agent with those options would send
    them; stats.json (the dataset's manifest) records the options, defaults included."""
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["curate", "--run", str(small_run), "--judge", "rule",
                                   "--prompt-option", "history_window=1",
                                   "--prompt-option", "few_shot=false", "--out", str(out)])
    assert res.exit_code == 0, res.output
    stats = orjson.loads((out / "stats.json").read_bytes())
    assert stats["prompt"] == {"history_window": 1, "tree_tokens": 6000, "few_shot": False,
                               "action_set": "ids"}
    records = [orjson.loads(x)["messages"] for s in ("train", "validation")
               for x in (out / f"{s}.jsonl").read_bytes().splitlines()]
    assert records and all([m["role"] for m in r] == ["system", "user", "assistant"]
                           for r in records)
    assert any("(showing the last 1 of" in r[1]["content"] for r in records)
    default = tmp_path / "default"
    res = CliRunner().invoke(app, ["curate", "--run", str(small_run), "--judge", "rule",
                                   "--out", str(default)])
    assert res.exit_code == 0, res.output
    assert orjson.loads((default / "stats.json").read_bytes())["prompt"]["few_shot"] is True

    # Too small, or too large to be meant (past 64 bits it cannot even be written as JSON):
    # refused before curation starts, naming the option.
    for option in ("tree_tokens=5", f"tree_tokens={10**23}", f"history_window={10**23}"):
        bad = CliRunner().invoke(app, ["curate", "--run", str(small_run), "--judge", "rule",
                                       "--prompt-option", option,
                                       "--out", str(tmp_path / "bad")])
        assert bad.exit_code == 2 and option.split("=")[0] in bad.output, bad.output
        assert "internal error" not in bad.output and "Traceback" not in bad.output
        assert not (tmp_path / "bad").exists()
