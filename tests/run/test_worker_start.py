"""How a local worker starts and takes its episodes (issue 42): the worker process does not run
the parent's main module again and imports little before its browser starts; each worker holds
one episode beyond those it runs and starts it while the parent is still storing the last; no
episode sees another's storage."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from factories import wait_until
from one_page_site import serve_page
from webtraj.execute.episode import EpisodeSpec
from webtraj.execute.local import LocalExecutor
from webtraj.execute.worker import WorkerConfig
from webtraj.model import Action, Task

# Says whether this browser context has seen the page before (storage or cookie), then marks it.
PAGE = (b"<!doctype html><title>?</title><h1>Nothing to do</h1><script>"
        b"document.title = localStorage.getItem('seen') || document.cookie ? 'seen' : 'fresh';"
        b"localStorage.setItem('seen', '1'); document.cookie = 'seen=1; path=/';</script>")


def test_a_spawned_child_does_not_run_the_parents_main_module_again(tmp_path):
    marker = tmp_path / "imports.txt"
    script = tmp_path / "main_script.py"
    script.write_text(textwrap.dedent(f"""
        import multiprocessing as mp
        import os
        import sys

        with open({str(marker)!r}, "a") as f:
            f.write("imported\\n")

        if __name__ == "__main__":
            from webtraj.runtime.children import main_module_hidden

            ctx = mp.get_context("spawn")
            hidden = ctx.Process(target=os.getpid)
            with main_module_hidden():
                hidden.start()
            hidden.join()
            assert sys.modules["__main__"].__file__ == {str(script)!r}
            plain = ctx.Process(target=os.getpid)
            plain.start()
            plain.join()
            assert hidden.exitcode == 0 and plain.exitcode == 0
    """))
    subprocess.run([sys.executable, str(script)], check=True, timeout=120)
    # The script itself and the plain child (which runs it as __mp_main__), not the hidden one.
    assert marker.read_text().splitlines() == ["imported", "imported"]


def test_the_worker_process_entry_imports_nothing_heavy():
    code = ("import sys, webtraj.execute.worker_process; "
            "print([m for m in ('webtraj.execute.worker', 'webtraj.agents', 'pydantic', "
            "'playwright') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    assert out.strip() == "[]"


def test_a_worker_starts_its_next_episode_while_the_parent_stores_the_last(tmp_path):
    with serve_page(PAGE) as base:
        tasks = [Task(task_id=f"t{i}", intent="Stop", start_url=f"{base}/{i}",
                      reference_actions=(Action(kind="stop", value=""),)) for i in range(3)]
        specs = [EpisodeSpec(task=t, agent="replay", max_steps=3) for t in tasks]
        config = WorkerConfig(agent="replay", scratch=str(tmp_path))
        started: list[str] = []
        results: dict[str, object] = {}
        next_began_while_storing: list[bool] = []

        def on_result(spec, traj, _artifacts):
            results[spec.trajectory_id] = traj
            later = specs[len(results):len(results) + 1]
            if later:  # the next episode's scratch folder appears once its worker starts it
                next_began_while_storing.append(
                    wait_until(lambda: config.workdir(later[0]).is_dir(), 60))

        LocalExecutor(config, 1).run(specs, on_result,
                                     lambda spec, _pid: started.append(spec.trajectory_id))
    assert started == [s.trajectory_id for s in specs]  # counted as started in order
    assert [results[s.trajectory_id].termination for s in specs] == ["stop"] * 3
    assert next_began_while_storing == [True, True]
    # Each episode has a context of its own: none sees the storage of the one before.
    assert [results[s.trajectory_id].steps[0].observation.title for s in specs] == \
        ["fresh"] * 3
