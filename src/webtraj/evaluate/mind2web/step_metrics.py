"""Mind2Web step-level metrics, computed as the reference `ActionEvaluatorMultiChoice` does
(REFERENCE.md §1a): element accuracy, operation F1 on token sets, step and task success,
micro and macro averages, per website and per domain, error-count ratio and recall cap.

Means use numpy's pairwise summation order (re-implemented in `np_mean`), so values equal the
reference's `np.mean` results bit for bit, not only approximately.

Deliberate differences from the reference (see docs/mind2web.md):
- every step counts in the macro metrics; the reference drops empty-positive steps that come
  after the last step with a positive (`drop_trailing_unranked=True` reproduces that);
- a candidate with no known rank is never cut by the recall cap (the reference needs ranks);
- `error_ratio` lists all five buckets, with 0.0 for buckets the reference omits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from pydantic import Field

from webtraj.formats.mind2web.predictions import PredKey, StepPrediction
from webtraj.formats.mind2web.steps import TOP_K, M2WStep
from webtraj.model.base import FrozenModel

RECALL_KS = (1, 5, 10, 20, 50)
ERROR_BUCKETS = ("0", "1", "2", "3", ">3")
_OP_RE = re.compile(r"(CLICK|SELECT|TYPE)")


class ScoreSettings(FrozenModel):
    """How predictions are scored (`webtraj mind2web score`; `Scorer` takes them one by one)."""

    top_k: int = Field(default=TOP_K, ge=1, description="Recall cap: positives ranked below "
                       "k are acceptable.")
    drop_trailing_unranked: bool = Field(
        default=False, description="Reproduce the reference's drop of trailing unanswerable "
        "steps from macro metrics.")


SCORE_DEFAULTS = ScoreSettings()


# --- numerics -------------------------------------------------------------------------
def _pairwise_sum(a: Sequence[float], lo: int, n: int) -> float:
    """numpy's float64 pairwise summation (8-way unrolled blocks of up to 128)."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r = [float(a[lo + j]) for j in range(8)]
        i = 8
        end = n - (n % 8)
        while i < end:
            for j in range(8):
                r[j] += a[lo + i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(a, lo, n2) + _pairwise_sum(a, lo + n2, n - n2)


def np_mean(values: Sequence[float]) -> float:
    """`float(np.mean(values))` without numpy; 0.0 for an empty sequence."""
    if not values:
        return 0.0
    return _pairwise_sum([float(v) for v in values], 0, len(values)) / len(values)


# --- per-step pieces --------------------------------------------------------------------
def token_f1(pred: str, label: str) -> float:
    """F1 between whitespace token *sets* (case-sensitive; order and repeats ignored)."""
    p = set(pred.strip().split())
    g = set(label.strip().split())
    if not p and not g:
        return 1
    if not p or not g:
        return 0
    tp = len(p & g)
    precision = tp / len(p)
    recall = tp / len(g)
    if precision == 0 or recall == 0:
        return 0
    return 2 * precision * recall / (precision + recall)


def _first_line(value: str) -> str:
    return value.split("\n", 1)[0]


def _op_word(op: str | None) -> str:
    m = _OP_RE.match(op or "")
    return m.group(1) if m else ""


def reference_action(op: str, value: str) -> str:
    """The gold action string: `CLICK` (value ignored) or `TYPE v` / `SELECT v`, with only
    the first line of the value, stripped."""
    word = _op_word(op)
    if op == "CLICK":
        return f"{word} "
    return f"{word} {_first_line(value or '').strip()}"


def predicted_action(op: str | None, value: str | None) -> str:
    """The predicted action string: op word and the value's first line, as given (a CLICK
    with a value keeps it)."""
    return f"{_op_word(op)} {_first_line(value or '').strip()}"


def action_matches(pred_op: str | None, pred_value: str | None, ref_op: str,
                   ref_value: str | None) -> bool:
    """The operation matches and, for TYPE and SELECT, the value too (first line, spaces
    trimmed): a step's action counted right or wrong, without the token F1's partial credit."""
    word = _op_word(ref_op)
    if _op_word(pred_op) != word:
        return False
    return word == "CLICK" or (predicted_action(pred_op, pred_value)
                               == reference_action(ref_op, ref_value or ""))


class Mind2WebStepScore(FrozenModel):
    """One Mind2Web step scored: element accuracy, operation F1, step success."""

    annotation_id: str
    action_uid: str
    website: str = ""
    domain: str = ""
    element_correct: int
    op_f1: float
    step_success: int
    predicted: bool
    # Positives within the recall cap; empty means the step cannot be solved.
    acceptable: tuple[str, ...]
    ref_action: str
    pred_action: str | None = None
    pred_element: str | None = None
    best_rank: int | None = None


def acceptable_ids(step: M2WStep, top_k: int = TOP_K) -> tuple[str, ...]:
    return tuple(c.backend_node_id for c in step.pos_candidates
                 if c.rank is None or c.rank < top_k)


def score_step(step: M2WStep, pred: StepPrediction | None,
               top_k: int = TOP_K) -> Mind2WebStepScore:
    ok_ids = acceptable_ids(step, top_k)
    ref = reference_action(step.operation.op, step.operation.value)
    ranks = [c.rank for c in step.pos_candidates if c.rank is not None]
    base = {"annotation_id": step.annotation_id, "action_uid": step.action_uid,
            "website": step.website, "domain": step.domain, "acceptable": ok_ids,
            "ref_action": ref, "best_rank": min(ranks) if ranks else None}
    if not ok_ids or pred is None or pred.element is None:
        return Mind2WebStepScore(element_correct=0, op_f1=0, step_success=0,
                                 predicted=pred is not None and pred.element is not None,
                                 pred_element=pred.element if pred else None, **base)
    pa = predicted_action(pred.op, pred.value)
    elem = 1 if str(pred.element) in ok_ids else 0
    f1 = token_f1(pa, ref)
    return Mind2WebStepScore(element_correct=elem, op_f1=f1,
                             step_success=int(elem == 1 and f1 == 1), predicted=True,
                             pred_action=pa, pred_element=str(pred.element), **base)


# --- aggregation ------------------------------------------------------------------------
class MicroMetrics(FrozenModel):
    element_acc: float
    op_f1: float
    step_sr: float


class GroupMetrics(FrozenModel):
    """Macro over the group's tasks; `steps` and `tasks` are counts."""

    element_acc: float
    op_f1: float
    step_sr: float
    task_sr: float
    steps: int
    tasks: int


class Mind2WebMetrics(FrozenModel):
    element_acc: float
    op_f1: float
    step_sr: float
    task_sr: float
    micro: MicroMetrics
    per_website: dict[str, GroupMetrics]
    per_domain: dict[str, GroupMetrics] = Field(default_factory=dict)
    error_ratio: dict[str, float]
    n_tasks: int
    n_steps: int
    top_k: int = TOP_K
    # Fraction of steps with a positive ranked below k (the ceiling on element accuracy).
    recall_cap: dict[str, float] = Field(default_factory=dict)
    # Which candidate ranking the recall cap and the top-k read (a rankings file and its
    # ranker, or the ranks the data carries); set by whoever chose the ranking.
    ranking: str | None = None
    n_predicted: int = 0
    n_unanswerable: int = 0
    # Predictions by outcome (predicted, none_of_the_above, unparseable, ...), when the
    # predictions say how they came about.
    prediction_outcomes: dict[str, int] = Field(default_factory=dict)


class _TaskAcc:
    __slots__ = ("elem", "f1", "step", "website", "domain")

    def __init__(self, website: str, domain: str) -> None:
        self.elem: list[float] = []
        self.f1: list[float] = []
        self.step: list[float] = []
        self.website, self.domain = website, domain


def _group(tasks: Sequence[_TaskAcc], step_counts: int) -> GroupMetrics:
    return GroupMetrics(
        element_acc=np_mean([np_mean(t.elem) for t in tasks]),
        op_f1=np_mean([np_mean(t.f1) for t in tasks]),
        step_sr=np_mean([np_mean(t.step) for t in tasks]),
        task_sr=sum(1 for t in tasks if all(s == 1 for s in t.step)) / len(tasks),
        steps=step_counts, tasks=len(tasks))


def aggregate(results: Sequence[Mind2WebStepScore], *, top_k: int = SCORE_DEFAULTS.top_k,
              drop_trailing_unranked: bool = SCORE_DEFAULTS.drop_trailing_unranked,
              recall: Mapping[str, float] | None = None) -> Mind2WebMetrics:
    """Micro and macro metrics from per-step results, in data order."""
    n = len(results)
    micro = MicroMetrics(element_acc=np_mean([r.element_correct for r in results]),
                         op_f1=np_mean([r.op_f1 for r in results]),
                         step_sr=np_mean([r.step_success for r in results]))
    macro_rows: Sequence[Mind2WebStepScore] = results
    if drop_trailing_unranked:
        last = max((i for i, r in enumerate(results) if r.acceptable), default=-1)
        macro_rows = results[:last + 1]
    tasks: dict[str, _TaskAcc] = {}
    for r in macro_rows:
        t = tasks.get(r.annotation_id)
        if t is None:
            t = tasks[r.annotation_id] = _TaskAcc(r.website, r.domain)
        t.elem.append(r.element_correct)
        t.f1.append(r.op_f1)
        t.step.append(r.step_success)
    # The reference files a task under the website of its latest step.
    for r in macro_rows:
        if r.annotation_id in tasks:
            tasks[r.annotation_id].website = r.website
    task_list = list(tasks.values())
    errors = dict.fromkeys(ERROR_BUCKETS, 0)
    for t in task_list:
        e = sum(1 for s in t.step if s == 0)
        errors[str(e) if e <= 3 else ">3"] += 1
    n_tasks = len(task_list)
    by_site: dict[str, list[_TaskAcc]] = {}
    by_domain: dict[str, list[_TaskAcc]] = {}
    for t in task_list:
        by_site.setdefault(t.website, []).append(t)
        by_domain.setdefault(t.domain, []).append(t)
    all_group = _group(task_list, n) if task_list else None
    return Mind2WebMetrics(
        element_acc=all_group.element_acc if all_group else 0.0,
        op_f1=all_group.op_f1 if all_group else 0.0,
        step_sr=all_group.step_sr if all_group else 0.0,
        task_sr=all_group.task_sr if all_group else 0.0,
        micro=micro,
        per_website={s: _group(ts, sum(len(t.step) for t in ts)) for s, ts in by_site.items()},
        per_domain={d: _group(ts, sum(len(t.step) for t in ts))
                    for d, ts in by_domain.items() if d},
        error_ratio={k: (v / n_tasks if n_tasks else 0.0) for k, v in errors.items()},
        n_tasks=n_tasks, n_steps=n, top_k=top_k, recall_cap=dict(recall or {}),
        n_predicted=sum(1 for r in results if r.predicted),
        n_unanswerable=sum(1 for r in results if not r.acceptable),
    )


def recall_cap(steps: Iterable[M2WStep], ks: Sequence[int] = RECALL_KS) -> dict[str, float]:
    """Fraction of steps with any positive ranked below k (unranked positives do not count)."""
    hits = {k: [] for k in ks}
    for s in steps:
        ranks = [c.rank for c in s.pos_candidates if c.rank is not None]
        for k in ks:
            hits[k].append(1 if any(r < k for r in ranks) else 0)
    return {str(k): np_mean(v) for k, v in hits.items()}


class Scorer:
    """Streams steps through `score_step`, keeping only the small per-step results."""

    def __init__(self, predictions: Mapping[PredKey, StepPrediction], *,
                 top_k: int = SCORE_DEFAULTS.top_k,
                 drop_trailing_unranked: bool = SCORE_DEFAULTS.drop_trailing_unranked,
                 ks: Sequence[int] = RECALL_KS) -> None:
        self.predictions = predictions
        self.top_k = top_k
        self.drop_trailing_unranked = drop_trailing_unranked
        self.ks = ks
        self.results: list[Mind2WebStepScore] = []
        self._recall: dict[int, list[int]] = {k: [] for k in ks}
        self._ranked = True

    def add(self, step: M2WStep) -> Mind2WebStepScore:
        r = score_step(step, self.predictions.get(step.key), self.top_k)
        self.results.append(r)
        ranks = [c.rank for c in step.pos_candidates if c.rank is not None]
        if any(c.rank is None for c in step.candidates):
            self._ranked = False
        for k in self.ks:
            self._recall[k].append(1 if any(x < k for x in ranks) else 0)
        return r

    def metrics(self) -> Mind2WebMetrics:
        recall = {str(k): np_mean(v) for k, v in self._recall.items()} if self._ranked else {}
        return aggregate(self.results, top_k=self.top_k,
                         drop_trailing_unranked=self.drop_trailing_unranked, recall=recall)

    @property
    def unused_predictions(self) -> int:
        seen = {(r.annotation_id, r.action_uid) for r in self.results}
        return sum(1 for k in self.predictions if k not in seen)


def score_steps(steps: Iterable[M2WStep], predictions: Mapping[PredKey, StepPrediction] |
                Iterable[StepPrediction], *, top_k: int = SCORE_DEFAULTS.top_k,
                drop_trailing_unranked: bool = SCORE_DEFAULTS.drop_trailing_unranked
                ) -> Mind2WebMetrics:
    if not isinstance(predictions, Mapping):
        predictions = {p.key: p for p in predictions}
    scorer = Scorer(predictions, top_k=top_k, drop_trailing_unranked=drop_trailing_unranked)
    for s in steps:
        scorer.add(s)
    return scorer.metrics()

