"""Curated records carry the images the agent was sent: the llm agent acts with
observation=tree+screenshot through the scripted endpoint (answered with the replay agent's
recorded answers); `webtraj curate` with the same prompt options writes records in TRL's
vision form whose messages, images put back, are every request the agent sent, image pixels
included; each distinct image is one file; the Parquet file carries the bytes and loads as
a Hugging Face dataset with PIL images."""

from __future__ import annotations

import io

import orjson
import pytest

from factories import SANDBOX_TODAY
from train_support import TASKS, curate, recorded_replies

VISION = {"observation": "tree+screenshot", "image_max_side": 320}


def _parts(messages):
    """Wire-form messages with every content as a list of parts (the records' form)."""
    return [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]
             if isinstance(m["content"], str) else list(m["content"])} for m in messages]


def _pixels(data: bytes):
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return img.size, img.convert("RGB").tobytes()


@pytest.fixture(scope="module")
def vision_run(replay_dir, tmp_path_factory):
    """The llm agent with screenshots in its prompt, answered with the recorded answers;
    returns the requests the endpoint received (per task intent, in order) and the run."""
    from webtraj.execute.run import RunConfig, execute_run
    from webtraj.testing.llm_server import ScriptedLLMServer

    text = curate(replay_dir, tmp_path_factory.mktemp("text") / "data", 0.0)
    reply, longest = recorded_replies(text)
    out = tmp_path_factory.mktemp("vision") / "run"
    with ScriptedLLMServer(default=reply) as srv:
        # One task (the car search, 7 steps) keeps the default suite short.
        config = RunConfig(suite="booking", agent="llm", today=SANDBOX_TODAY,
                           task_ids=TASKS[1:], max_steps=longest,
                           no_cache=True, agent_options=VISION,
                           llm=f"base_url={srv.base_url},model=scripted")
        with execute_run(config, out):
            pass
        requests = srv.requests
    return requests, out


def test_curated_records_are_the_agents_messages_images_included(vision_run, tmp_path):
    from typer.testing import CliRunner

    from webtraj.cli.app import app
    from webtraj.curate.vision import wire_turns

    requests, run = vision_run
    data = tmp_path / "data"
    # As a user curates: no --prompt-option; the run's own llm agent options (its
    # observation included) build the records.
    result = CliRunner().invoke(app, ["curate", "--run", str(run), "--out", str(data),
                                      "--judge", "oracle", "--val-fraction", "0"])
    assert result.exit_code == 0, result.output
    recs = [orjson.loads(x) for x in (data / "train.jsonl").read_bytes().splitlines()]
    assert len(recs) > 0
    sent: dict[str, list] = {}
    for req in requests:
        msgs = [{"role": m["role"], "content": m["content"]} for m in req.messages]
        sent.setdefault(req.last_user.split("\n", 1)[0], []).append(msgs)
    got: dict[str, list] = {}
    for rec in recs:
        # TRL's vision form: every content a list of parts, image parts with a file each.
        assert all(isinstance(m["content"], list) for m in rec["messages"])
        user = rec["messages"][-2]["content"]
        assert [p["type"] for p in user] == ["text", "image"]
        assert len(rec["images"]) == 1 and rec["images"][0].startswith("images/")
        assert b"base64" not in orjson.dumps(rec)
        turns = wire_turns(rec, lambda name: (data / name).read_bytes())
        got.setdefault(user[0]["text"].split("\n", 1)[0], []).append(turns)
    assert got.keys() == sent.keys() and len(got) == 1
    compared = 0
    for intent, records in got.items():
        for step, turns in enumerate(records):
            agent = _parts(sent[intent][step])
            # Same text, same parts in the same places; the image is the one sent.
            strip = [[{**p, "image_url": None} if p["type"] == "image_url" else p
                      for p in m["content"]] for m in agent]
            assert strip == [[{**p, "image_url": None} if p["type"] == "image_url" else p
                              for p in m["content"]] for m in turns[:-1]], (intent, step)
            from webtraj.llm.images import decode_data_url

            mine = decode_data_url(turns[-2]["content"][1]["image_url"]["url"])[1]
            theirs = decode_data_url(agent[-1]["content"][1]["image_url"]["url"])[1]
            assert _pixels(mine) == _pixels(theirs)
            assert max(_pixels(mine)[0]) == 320  # the agent's downscale, not the raw capture
            compared += 1
    assert compared == len(recs)
    # Each distinct image is one file, named by its content.
    names = {n for r in recs for n in r["images"]}
    assert sorted(p.name for p in (data / "images").iterdir()) == sorted(
        n.split("/", 1)[1] for n in names)
    stats = orjson.loads((data / "stats.json").read_bytes())
    assert stats["prompt"]["observation"] == "tree+screenshot"


def test_the_parquet_dataset_carries_the_image_bytes(vision_run, tmp_path):
    from datasets import load_dataset

    from webtraj.agents.prompt_builder import PromptOptions
    from webtraj.curate.settings import CurateSettings
    from webtraj.execute.curation import CurateRun, curate_run

    _, run = vision_run
    data = tmp_path / "data"
    curate_run(CurateRun(run=run, out=data, val_fraction=0.0, num_cpus=2, chunk_size=1,
                         settings=CurateSettings(judge="oracle",
                                                 prompt=PromptOptions(**VISION))))
    recs = [orjson.loads(x) for x in (data / "train.jsonl").read_bytes().splitlines()]
    ds = load_dataset("parquet", data_files=str(data / "train.parquet"), split="train")
    assert len(ds) == len(recs)
    for row, rec in zip(ds, recs, strict=True):
        assert row["messages"][-2]["content"][1]["type"] == "image"
        [img] = row["images"]
        assert (img.size, img.convert("RGB").tobytes()) == _pixels(
            (data / rec["images"][0]).read_bytes())


def test_the_vision_student_acts_with_images_through_serve_local(vision_run, tmp_path):
    """run -> curate -> train -> serve -> run: the tiny vision-language student, trained on
    the curated image records, acts as the llm agent with the same observation through
    serve-local, and every request reaches it with the step's screenshot."""
    from webtraj.agents.prompt_builder import PromptOptions
    from webtraj.curate.settings import CurateSettings
    from webtraj.execute.curation import CurateRun, curate_run
    from webtraj.execute.run import RunConfig, execute_run
    from webtraj.testing.tiny_model import build_tiny_vlm, chat_texts
    from webtraj.train.config import LoraSettings, TrainConfig
    from webtraj.train.local_model import LocalModel
    from webtraj.train.serve import LocalServer
    from webtraj.train.sft import train

    _, run = vision_run
    data = tmp_path / "data"
    curate_run(CurateRun(run=run, out=data, val_fraction=0.0, settings=CurateSettings(
        judge="oracle", prompt=PromptOptions(**VISION))))
    recs = [orjson.loads(x) for x in (data / "train.jsonl").read_bytes().splitlines()]
    base = build_tiny_vlm(chat_texts(recs), tmp_path / "base")
    result = train(TrainConfig(data=data, base=str(base), out=tmp_path / "student", epochs=1,
                               batch_size=6, learning_rate=1e-2, warmup_ratio=0,
                               lora=LoraSettings(modules_to_save=("lm_head",))))
    assert result.kind == "vision" and result.steps == 2

    class Seeing(LocalModel):
        """The served model, keeping the image sizes of every prompt it answers."""

        seen: list = []

        def prompt_inputs(self, messages):
            self.seen.append([p["image"].size for m in messages if isinstance(m["content"], list)
                              for p in m["content"] if p["type"] == "image"])
            return super().prompt_inputs(messages)

    model = Seeing(str(base), result.adapter)
    with LocalServer(model, name="student") as srv:
        config = RunConfig(suite="booking", agent="llm", today=SANDBOX_TODAY,
                           task_ids=TASKS[:1], max_steps=2, no_cache=True, evaluate=False,
                           agent_options=VISION,
                           llm=f"base_url={srv.base_url},model=student,max_tokens=24")
        with execute_run(config, tmp_path / "student-run") as store:
            [traj] = list(store.iter_trajectories())
    # The student's words end the episode or not (a stop after one step is its choice).
    assert traj.error is None and 1 <= len(traj.steps) <= 2
    assert all(s.raw_output is not None for s in traj.steps)
    assert len(model.seen) == len(traj.steps)
    assert all(len(sizes) == 1 and max(sizes[0]) == 320 for sizes in model.seen)
