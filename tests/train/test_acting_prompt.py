"""The training prompt is exactly the acting prompt, across runs: the llm agent acts on the 2
sandbox tasks in a new run (its sites on other ports than the run the records came from),
through the scripted endpoint answering each step with the record's answer; every request the
endpoint receives is, byte for byte, the prompt `webtraj train` trains that step on, and
`serve-local` tokenizes it into the very prefix the training sequence has before the answer."""

from __future__ import annotations

import pytest

from factories import SANDBOX_TODAY
from train_support import TASKS, curate


def _acting_run(examples, out):
    """The llm agent on TASKS, each step answered with the record of the same task and step;
    returns the requests the endpoint received, the trajectories and the run's site URLs."""
    from webtraj.execute.run import RunConfig, execute_run
    from webtraj.testing.llm_server import ScriptedLLMServer

    answers: dict[str, list[str]] = {}
    for ex in examples:
        answers.setdefault(_intent(ex.prompt), []).append(ex.completion[0]["content"])
    asked: dict[str, int] = {}

    def reply(req) -> str:
        intent = req.last_user.split("\n", 1)[0]
        n = asked[intent] = asked.get(intent, 0) + 1
        return answers[intent][n - 1] if n <= len(answers[intent]) else "no more steps"

    with ScriptedLLMServer(default=reply) as srv:
        config = RunConfig(suite="booking", agent="llm", today=SANDBOX_TODAY, task_ids=TASKS,
                           max_steps=max(map(len, answers.values())), no_cache=True,
                           evaluate=False, screenshots=False, episodes_per_worker=2,
                           llm=f"base_url={srv.base_url},model=scripted")
        with execute_run(config, out) as store:
            trajs = list(store.iter_trajectories())
            urls = store.info.site_urls
    return srv.requests, trajs, urls


def _intent(messages) -> str:
    return messages[-1]["content"].split("\n", 1)[0]


def test_acting_prompts_are_the_training_prompts_byte_for_byte(replay_dir, base_model,
                                                              tmp_path):
    from webtraj.store import RunStore
    from webtraj.train.data import read_split
    from webtraj.train.local_model import LocalModel

    data = curate(replay_dir, tmp_path / "data", 0.0)
    examples = read_split(data / "train.jsonl")
    assert len(examples) == 18
    requests, trajs, acting_urls = _acting_run(examples, tmp_path / "acting")
    with RunStore.open(replay_dir) as store:
        assert store.info.site_urls != acting_urls, "the two runs must serve on other ports"

    want = {}
    for ex in examples:
        want.setdefault(_intent(ex.prompt), []).append(ex)
    got: dict[str, list[list[dict]]] = {}
    for req in requests:
        sent = [{"role": m["role"], "content": m["content"]} for m in req.messages]
        got.setdefault(_intent(sent), []).append(sent)
    assert got.keys() == want.keys()
    for intent, exs in want.items():
        assert len(got[intent]) == len(exs), intent
        for step, (sent, ex) in enumerate(zip(got[intent], exs, strict=True)):
            assert sent == ex.prompt, f"{intent} step {step}: the acting prompt differs"
    # Answered with the records, the agent took the recorded actions (the reply is parsed
    # the way the records were written).
    for t in trajs:
        taken = [s.action.to_text() for s in t.steps]
        recorded = [ex.completion[0]["content"].rsplit("```", 2)[1]
                    for ex in want[f"TASK: {t.task.intent}"]]
        assert taken == recorded, t.task.task_id

    # Token level: what serve-local feeds the model is the prefix of the training sequence,
    # and the rest is the answer and the end of the turn (what training puts the loss on).
    model = LocalModel(str(base_model))
    tok = model.tokenizer
    pairs = [(ex, sent) for i, exs in want.items() for ex, sent in zip(exs, got[i], strict=True)]
    for ex, sent in pairs:
        full = tok.apply_chat_template(ex.prompt + ex.completion, tokenize=True)["input_ids"]
        served = model.prompt_ids(sent)
        assert full[:len(served)] == served
        rest = tok.decode(full[len(served):])
        assert rest.startswith(ex.completion[0]["content"] + tok.eos_token)


def test_prompts_name_sandbox_sites_by_their_stable_origin():
    import datetime as dt

    from webtraj.agents.prompt_urls import PromptUrls
    from webtraj.agents.prompting import user_prompt
    from webtraj.model.action_text import parse_action
    from webtraj.model.trajectory import Observation
    from webtraj.sites.tasks import booking_suite

    today = dt.date.fromisoformat(SANDBOX_TODAY)
    task = next(t for t in booking_suite(today, port_base=31000) if t.task_id == TASKS[1])
    same = next(t for t in booking_suite(today, port_base=42000) if t.task_id == TASKS[1])
    served = task.start_url.rstrip("/")
    obs = Observation(url=f"{served}/cars?age=30", axtree="[1] [link] [Home] [url=/]",
                      last_action_error=f"timeout at {served}/pay")
    shown = user_prompt(task, obs, [], tree=obs.axtree, window=8)
    assert served not in shown and "URL: http://127.0.0.1:8764/cars?age=30" in shown
    assert "timeout at http://127.0.0.1:8764/pay" in shown
    other = obs.model_copy(update={"url": f"{same.start_url}cars?age=30",
                                   "last_action_error": f"timeout at {same.start_url}pay"})
    assert user_prompt(same, other, [], tree=obs.axtree, window=8) == shown
    # A goto the model writes to the stable origin goes where the site is served.
    urls = PromptUrls(task)
    goto = parse_action("goto [http://127.0.0.1:8764/cars?age=30]")
    assert urls.served_action(goto).value == f"{served}/cars?age=30"
    assert urls.served_action(parse_action("click [4]")) == parse_action("click [4]")
    # Another port that starts with the same digits, and tasks of other sources, are left be.
    assert urls.show(f"{served}1/x") == f"{served}1/x"
    plain = task.model_copy(update={"metadata": {}})
    assert served in user_prompt(plain, obs, [], tree=obs.axtree, window=8)


@pytest.mark.parametrize("options", [
    {},  # the llm agent's defaults: its worked example after the system prompt
    {"history_window": 2, "tree_tokens": 300, "few_shot": False},
    {"action_set": "both", "history_window": 0},
])
def test_curated_messages_are_the_agents_messages_at_each_step(replay_dir, tmp_path, options):
    """For every record of a real run, the messages before the answer are, element by
    element, `LLMAgent.messages(task, observation_t, steps before t)` with the options the
    dataset was curated with, and stats.json records those options."""
    import orjson
    import pyarrow.parquet as pq

    from webtraj.agents.llm_agent import LLMAgent
    from webtraj.agents.prompt_builder import PromptOptions
    from webtraj.curate.chat_records import history_by_id, observation_at
    from webtraj.execute.curation import CurateRun, CurateSettings, curate_run
    from webtraj.model.task import Task
    from webtraj.store import RunStore

    prompt = PromptOptions.model_validate(options)
    out = tmp_path / "data"
    curate_run(CurateRun(run=replay_dir, out=out, val_fraction=0.5,
                         settings=CurateSettings(judge="oracle", prompt=prompt)))
    stats = orjson.loads((out / "stats.json").read_bytes())
    assert stats["prompt"] == prompt.model_dump(mode="json")
    assert PromptOptions.model_validate(stats["prompt"]) == prompt

    with RunStore.open(replay_dir) as store:
        trajs = {t.trajectory_id: t for t in store.iter_trajectories()}
    relabeled = {}
    if (out / "tasks.jsonl").exists():
        for line in (out / "tasks.jsonl").read_bytes().splitlines():
            task = Task.model_validate_json(line)
            relabeled[task.task_id] = task
    agent = LLMAgent(None, prompt)  # type: ignore[arg-type]  # no calls made
    checked = 0
    for split in ("train", "validation"):
        rows = pq.read_table(out / f"{split}.parquet").to_pylist()
        lines = (out / f"{split}.jsonl").read_bytes().splitlines()
        assert len(rows) == len(lines)
        for row, line in zip(rows, lines, strict=True):
            traj = trajs[row["trajectory_id"]]
            task = relabeled[row["task_id"]] if row["relabeled"] else traj.task
            t = row["step"]
            sent = agent.messages(task, observation_at(traj, t),
                                  history_by_id(list(traj.steps[:t])))
            want = [{"role": m.role, "content": m.content} for m in sent]
            got = orjson.loads(line)["messages"]
            assert got == row["messages"]
            assert len(got) == len(want) + 1 and got[-1]["role"] == "assistant"
            for i, (g, w) in enumerate(zip(got[:-1], want, strict=True)):
                assert g == w, f"{row['trajectory_id']} step {t} message {i}"
            checked += 1
    assert checked == 18
