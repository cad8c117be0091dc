"""`webtraj judges compare`: how constraint judges agree with a reference and each other."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from webtraj.cli.common import command_line, console, esc, fail, print_json
from webtraj.cli.model_options import llm_option
from webtraj.cli.run_settings import setting
from webtraj.evaluate.constraints.evaluator import ConstraintsOptions

app = typer.Typer(help="Compare constraint judges.\n\nExample: webtraj judges compare --run "
                  "runs/heur --judges rule --reference oracle", no_args_is_help=True)


def _f(v: float | None, signed: bool = False) -> str:
    if v is None:
        return "-"
    return f"{v:+.3f}" if signed else f"{v:.3f}"


@app.command()
def compare(
    run: Path = typer.Option(..., "--run", help="Run directory."),
    judges: str = typer.Option("rule", "--judges", help="Comma-separated: rule,llm,vlm,oracle"),
    reference: str = typer.Option(None, "--reference", help="Reference judge, e.g. oracle."),
    llm: str = llm_option("the llm and vlm judges"),
    rescore: bool = typer.Option(False, "--rescore", help="Judge again even if scores exist."),
    steps: str = setting("steps", model=ConstraintsOptions),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Judge a run's trajectories with each judge (where not done yet) and report agreement:
    accuracy, Cohen's kappa, confusion counts and SR/CSR gap, overall and per constraint.

    Example: webtraj judges compare --run runs/demo/heuristic --judges rule,llm --reference oracle
    """
    from webtraj.evaluate.agreement import compare as compare_pair
    from webtraj.evaluate.run_scoring import RunEnvironments, score_run
    from webtraj.model import InputError
    from webtraj.report.html import write_report
    from webtraj.store import RunStore

    names = [j.strip() for j in judges.split(",") if j.strip()]
    everyone = names + ([reference] if reference and reference not in names else [])
    try:
        store = RunStore.open(run, write=True, command=command_line())
    except InputError as exc:
        raise fail(str(exc)) from None
    with store:
        envs = RunEnvironments(store.info, llm=llm)
        for judge in everyone:
            evaluator = f"constraints:{judge}"
            have = {r.trajectory_id for r in store.rows()
                    if store.scores(r.trajectory_id, evaluator=evaluator)}
            if rescore or len(have) < len(store):
                config = {"evaluator": "constraints", "judge": judge, "steps": steps}
                try:
                    done = score_run(store, [config], envs)
                except (InputError, ValueError) as exc:
                    raise fail(f"judge {judge}: {exc}") from None
                console.print(f"judged {done.trajectories} trajectories with {esc(judge)} "
                              f"({done.unscored} unscored, {done.errors} errors)")
        per_traj = []
        for row in store.rows():
            per_traj.append({s.evaluator: s for s in store.scores(row.trajectory_id)})
        write_report(store)  # the static report shows the judges' scores
    pairs = ([(j, reference) for j in names if j != reference] if reference else
             [(a, b) for i, a in enumerate(names) for b in names[i + 1:]])
    if not pairs:
        raise fail("nothing to compare: give --reference or at least two --judges")
    results = [compare_pair(per_traj, f"constraints:{a}", f"constraints:{b}")
               for a, b in pairs]
    if as_json:
        print_json([r.summary() for r in results])
        return
    for r in results:
        t = Table(title=f"{esc(r.judge)} vs {esc(r.reference)} ({r.trajectories} trajectories, "
                        f"{r.undecided} undecided checks)")
        for col in ("constraint", "checks", "accuracy", "kappa", "yes/yes", "yes/no", "no/yes",
                    "no/no"):
            t.add_column(col, justify="left" if col == "constraint" else "right")
        rows = [*sorted(r.by_constraint.items()), ("all", r.overall)]
        for name, c in rows:
            t.add_row(esc(name), str(c.n), _f(c.accuracy), _f(c.kappa), str(c.yes_yes),
                      str(c.yes_no), str(c.no_yes), str(c.no_no),
                      style="bold" if name == "all" else None)
        console.print(t)
        if r.all_steps.n:
            console.print(f"every step: {r.all_steps.n} checks, accuracy "
                          f"{_f(r.all_steps.accuracy)}, kappa {_f(r.all_steps.kappa)}")
        console.print(f"SR {_f(r.judge_sr)} vs {_f(r.reference_sr)} (gap {_f(r.sr_gap, True)}); "
                      f"CSR {_f(r.judge_csr)} vs {_f(r.reference_csr)} "
                      f"(gap {_f(r.csr_gap, True)})")
