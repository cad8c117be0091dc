"""Your own constraint judge: a constraint is met when its value appears in the page's URL.

    PYTHONPATH=examples webtraj eval --run runs/heur \
        --evaluator constraints:judge=my_judge:UrlJudge,steps=all

A judge sees the task and the observations to judge (URL and page only, never the actions),
and returns one CSR per observation with a check per constraint."""

from urllib.parse import unquote_plus

from pydantic import BaseModel, ConfigDict

from webtraj.evaluate.constraints.csr import ObservationCSR
from webtraj.model.score import ConstraintCheck


class UrlJudge:
    name = "url"

    class Options(BaseModel):  # given as judge_options={...}
        model_config = ConfigDict(extra="forbid")
        case_sensitive: bool = False

    def __init__(self, options: Options) -> None:
        self.options = options

    def _fold(self, text: str) -> str:
        return text if self.options.case_sensitive else text.casefold()

    async def judge(self, task, observations, trajectory, artifacts):
        out = []
        for obs in observations:
            url = self._fold(unquote_plus(obs.url))
            out.append(ObservationCSR([
                ConstraintCheck(name=c.name, ground_truth=str(c.value), agent_state=obs.url,
                                matching=self._fold(str(c.value)) in url)
                for c in task.constraints]))
        return out
