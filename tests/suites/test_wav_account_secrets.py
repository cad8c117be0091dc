"""`--accounts` passwords are known secrets of the run's store: an agent that repeats the
account's password in its answer (which only the store redacts) leaves it in no file of the
run, through `webtraj.api.run` on the WebArena-Verified stand-in deployment in real Chromium
(typing a password, and naming it `{secret:SITE}`: tests/browser/test_password_actions.py)."""

from __future__ import annotations

import json

from wav_standin import REDDIT_PASSWORD, REDDIT_USER, StandIn
from webtraj import api
from webtraj.agents.protocol import AgentDecision
from webtraj.model import Action, ActionKind


def test_accounts_passwords_are_secrets_of_the_store(tmp_path):
    class Talkative:  # defined here, so that the run keeps it in this process
        name = "talkative"

        async def act(self, task, observation, history):
            said = f"logged in as {REDDIT_USER} with the password {REDDIT_PASSWORD}"
            return AgentDecision(action=Action(kind=ActionKind.STOP, value=said),
                                 reasoning=said)

    with StandIn() as standin:
        urls, accounts = tmp_path / "urls.json", tmp_path / "accounts.json"
        urls.write_text(json.dumps(standin.urls))
        accounts.write_text(json.dumps({"reddit": {"username": REDDIT_USER,
                                                   "password": REDDIT_PASSWORD}}))
        out = tmp_path / "run"
        api.run(suite="webarena-verified", site_urls_file=str(urls), accounts_file=str(accounts),
                task_ids=["27"], agent=Talkative(), evaluate=False, out=out)
    [traj_file] = out.rglob("trajectory.json")
    traj = json.loads(traj_file.read_text())
    assert traj.get("error") is None, traj.get("error")
    assert "with the password [REDACTED]" in traj["answer"]
    leaked = [str(p.relative_to(out)) for p in out.rglob("*")
              if p.is_file() and REDDIT_PASSWORD.encode() in p.read_bytes()]
    assert leaked == []
