"""Mind2Web -> MindAct multiple-choice fine-tuning records (the Mind2Web paper, §3.2), in the chat
form
`webtraj train` reads.

Per step, the top-k candidates (the positives always among them) are shuffled with the step's
seeded RNG and cut into groups of 5, as the tournament does at inference; each group becomes
one question built by the very prompt `webtraj mind2web predict` sends (system + user). The
target is `Answer: <letter>. Action: <OP> Value: <value>` for the group that holds the
ground-truth element and `Answer: A.` (none of the above) for up to `neg_groups` groups that
do not. Steps whose page cannot be parsed or whose positive is not on the page are skipped
and counted."""

from __future__ import annotations

from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict, Field

from webtraj.agents.mindact.prompt import SYSTEM_PROMPT, build_choice_prompt
from webtraj.agents.mindact.settings import ChoiceSettings
from webtraj.agents.mindact.tournament import GROUP_SIZE, step_page, step_rng, top_candidates
from webtraj.curate.split import TRAIN, VALIDATION, validation_tasks
from webtraj.formats.mind2web.load import iter_steps
from webtraj.formats.mind2web.steps import IssueLog, M2WStep
from webtraj.store.atomic import write_bytes_atomic


class SftExportSettings(ChoiceSettings):
    """Settings of the export (`webtraj mind2web export-sft`): the candidates each step's
    questions hold are chosen as at inference (`ChoiceSettings`, the same defaults)."""

    seed: int = Field(default=ChoiceSettings().seed, description="Seed of the candidate "
                      "shuffle and the split.")
    neg_groups: int = Field(default=1, ge=0, description="'None of the above' questions per "
                            "step.")
    val_fraction: float = Field(default=0.0, ge=0.0, le=0.99, description="Share of tasks in "
                                "validation.")
    limit: int | None = Field(default=None, ge=1, description="Only the first N steps.")


class ExportStats(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: int = 0
    records: dict[str, int] = {}
    positive_groups: int = 0
    none_groups: int = 0
    skipped_unparseable: int = 0
    skipped_no_positive: int = 0
    input_problems: int = 0


def answer_text(letter: str, op: str = "", value: str = "") -> str:
    if letter == "A":
        return "Answer: A."
    return f"Answer: {letter}. Action: {op} Value: {value if op != 'CLICK' else ''}".rstrip()


def step_records(step: M2WStep, *, seed: int, top_k: int, neg_groups: int,
                 previous_k: int, stats: ExportStats, issues: IssueLog) -> list[bytes]:
    page = step_page(step, issues)
    if page is None:
        stats.skipped_unparseable += 1
        return []
    pos = {p for p in step.positive_ids if p in page.index}
    if not pos:
        stats.skipped_no_positive += 1
        return []
    pool = [c for c in top_candidates(step, top_k) if c in page.index]
    pool += [p for p in sorted(pos) if p not in pool]
    step_rng(seed, step).shuffle(pool)
    out, negatives = [], 0
    for i in range(0, len(pool), GROUP_SIZE):
        group = pool[i:i + GROUP_SIZE]
        prompt = build_choice_prompt(step, page, group, previous_k=previous_k)
        letters = [chr(66 + n) for n, (cid, _) in enumerate(prompt.choices) if cid in pos]
        if letters:
            text = answer_text(letters[0], step.operation.op, step.operation.value)
            stats.positive_groups += 1
        elif negatives < neg_groups:
            text = answer_text("A")
            negatives += 1
            stats.none_groups += 1
        else:
            continue
        out.append(orjson.dumps({"messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt.text},
            {"role": "assistant", "content": text}]}) + b"\n")
    return out


def export_sft(source: str | Path, out: Path,
               settings: SftExportSettings = SftExportSettings()
               ) -> tuple[ExportStats, IssueLog]:
    """Write `train.jsonl` / `validation.jsonl` (split by task) and `export_stats.json`."""
    seed, limit = settings.seed, settings.limit
    issues = IssueLog()
    stats = ExportStats()
    by_task: dict[str, list[bytes]] = {}
    for step in iter_steps(source, issues=issues):
        if limit is not None and stats.steps >= limit:
            break
        stats.steps += 1
        by_task.setdefault(step.annotation_id, []).extend(step_records(
            step, seed=seed, top_k=settings.top_k, neg_groups=settings.neg_groups,
            previous_k=settings.previous_k, stats=stats, issues=issues))
    held_out = validation_tasks(list(by_task), settings.val_fraction, seed)
    lines: dict[str, list[bytes]] = {TRAIN: [], VALIDATION: []}
    for task, recs in by_task.items():
        lines[VALIDATION if task in held_out else TRAIN] += recs
    out.mkdir(parents=True, exist_ok=True)
    for split, recs in lines.items():
        write_bytes_atomic(out / f"{split}.jsonl", b"".join(recs))
    stats.records = {s: len(v) for s, v in lines.items()}
    stats.input_problems = len(issues)
    write_bytes_atomic(out / "export_stats.json", stats.model_dump_json(indent=2).encode())
    return stats, issues
