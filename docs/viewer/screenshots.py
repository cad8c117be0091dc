"""Rebuild the screenshots in docs/viewer: real runs of the sandbox suite (the replay agent,
the heuristic agent, and the llm agent against the scripted model server), scored by the
oracle and the rule judge, the replay run curated; a MiniWoB++ run (the llm agent against
the scripted model server, when the miniwob extra is installed) and an imported Mind2Web
run of synthetic tasks scored by the `mind2web` evaluator, so the runs page shows each
family's metrics; then each page in headless Chromium.

    PYTHONPATH=src .venv/bin/python docs/viewer/screenshots.py [--out docs/viewer]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import re
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from webtraj.curate.settings import CurateSettings
from webtraj.execute.curation import CurateRun, curate_run, ensure_curves
from webtraj.execute.run import RunConfig, execute_run
from webtraj.model.action_text import ACTION_PHRASE
from webtraj.testing import ScriptedLLMServer
from webtraj.testing.llm_rules import ScriptedReply
from webtraj.view.server import Viewer

TASKS = ("booking.hotels.06", "booking.rentals.07", "booking.hotels.01", "booking.cars.01")
TODAY = "2026-01-15"


def _reply(request) -> ScriptedReply:
    text = request.last_user
    line = next((ln for ln in text.splitlines() if "Accept all cookies" in ln), None)
    if "PREVIOUS ACTIONS:\nNone" in text and line is not None:
        element = line.strip().split("]")[0].lstrip("[")
        return ScriptedReply(content="A cookie banner covers the page; I accept it first. "
                             f"{ACTION_PHRASE} ```click [{element}]```",
                             prompt_tokens=3120, completion_tokens=41)
    return ScriptedReply(content=f"I cannot do more here. {ACTION_PHRASE} ```stop []```",
                         prompt_tokens=3380, completion_tokens=12)


def _miniwob_reply(request) -> str:
    """Click the button the instruction names, then stop."""
    text = request.last_user
    if "PREVIOUS ACTIONS:\nNone" not in text:
        return f"Clicked it. {ACTION_PHRASE} ```stop []```"
    word = re.search(r'"([^"]*)"', re.search(r"^TASK: (.*)$", text, re.M).group(1)).group(1)
    for line in text.splitlines():
        m = re.match(r"\s*\[(\d+)\] \[button\] \[([^\]]*)\]", line)
        if m and m.group(2) == word:
            return f"The button is {word}. {ACTION_PHRASE} ```click [{m.group(1)}]```"
    return f"No such button. {ACTION_PHRASE} ```stop []```"


def build_other_suites(root: Path) -> None:
    from typer.testing import CliRunner

    from webtraj.cli.app import app
    from webtraj.formats.mind2web.synthetic import synthetic_tasks, write_raw_json

    def cli(*args: str) -> None:
        res = CliRunner().invoke(app, list(args))
        if res.exit_code:
            raise SystemExit(res.output)

    if importlib.util.find_spec("miniwob") is not None:
        with ScriptedLLMServer(default=_miniwob_reply) as server:
            cli("run", "--suite", "miniwob", "--task-ids", "click-button", "--seeds", "0-2",
                "--agent", "llm", "--llm", f"base_url={server.base_url},model=scripted",
                "--max-steps", "3", "--out", str(root / "miniwob"))
    data = root.parent / "m2w-data"
    write_raw_json(data, list(synthetic_tasks(5, seed=3, mean_elements=60)))
    cli("import", "mind2web", str(data), "--out", str(root / "mind2web"))
    cli("eval", "--run", str(root / "mind2web"))


def build(root: Path) -> None:
    for agent in ("replay", "heuristic"):
        with execute_run(RunConfig(suite="booking", agent=agent, today=TODAY, task_ids=TASKS,
                                   workers=1, max_steps=12), root / agent):
            pass
    with ScriptedLLMServer(default=_reply) as server:
        llm_run = RunConfig(suite="booking", agent="llm", today=TODAY, task_ids=TASKS[:2],
                            workers=1, max_steps=4,
                            llm=f"base_url={server.base_url},model=scripted")
        with execute_run(llm_run, root / "llm"):
            pass
    for agent in ("replay", "heuristic"):
        ensure_curves(root / agent, CurateSettings(judge="oracle", second_judge="rule"))
    curate_run(CurateRun(run=root / "replay", out=root.parent / "curated",
                         settings=CurateSettings(judge="oracle"), val_fraction=0.0))


async def shoot(url: str, out: Path, root: Path) -> None:
    from playwright.async_api import async_playwright

    from webtraj.browser.chromium import launch_chromium

    traj = sorted(p.name for p in (root / "replay" / "trajectories").iterdir())[0]
    llm = sorted(p.name for p in (root / "llm" / "trajectories").iterdir())[0]
    pages = {
        "runs": ("", None),
        "run": ("run?" + urlencode({"r": "replay"}), None),
        "trajectory": ("trajectory?" + urlencode({"r": "replay", "t": traj}) + "#step-2",
                       None),
        "curation": ("trajectory?" + urlencode({"r": "replay", "t": traj}), "#curation"),
        "usage": ("trajectory?" + urlencode({"r": "llm", "t": llm}), ".step.current"),
        "prompt": ("prompt?" + urlencode({"r": "llm", "t": llm, "i": 1}), None),
        "network": ("network?" + urlencode({"r": "replay", "t": traj}), None),
        "compare": ("compare?" + urlencode({"r": ["replay", "heuristic"],
                                            "task": "booking.hotels.06"}, doseq=True), None),
    }
    # The pages people read most, also as they look in a narrow window (800 px).
    narrow = ("run", "trajectory", "compare")
    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        for width in (1280, 800):
            page = await browser.new_page(viewport={"width": width, "height": 1000})
            for name, (path, element) in pages.items():
                if width != 1280 and name not in narrow:
                    continue
                shot = out / (f"{name}.png" if width == 1280 else f"{name}-{width}.png")
                await page.goto(url + path)
                await page.wait_for_load_state("networkidle")
                if element:
                    await page.locator(element).screenshot(path=str(shot))
                else:
                    await page.screenshot(path=str(shot), full_page=True)
            await page.close()
        await browser.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "runs"
        build(root)
        build_other_suites(root)
        with Viewer([root]) as v:
            asyncio.run(shoot(v.url, args.out, root))
    print(f"wrote screenshots to {args.out}")


if __name__ == "__main__":
    main()
