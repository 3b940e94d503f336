"""Run folders are owned per process: two labs on one `runs/` folder (`make lab` and `make present`
on the same copy) never remove each other's runs, the folder stays bounded, and folders that
vanish are no error. The other lab is a real second process, as it is in a classroom."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compact.classroom import runs
from compact.classroom.lab import KEEP_RUNS, Lab, file_size, run_folders

OTHER_LAB = """
import json, sys
from compact.classroom.lab import Lab
lab = Lab(root=sys.argv[1])
result = lab.run(2)
print(json.dumps(str(result.workdir)), flush=True)
sys.stdin.readline()                  # stays open, showing its run, until told to close
print(json.dumps(lab.clear_old_runs()), flush=True)
"""


@pytest.fixture
def other_lab(tmp_path):
    """``start(root)``: a lab in another process on ``root``, and the run it shows."""
    started = []

    def start(root: Path) -> tuple[subprocess.Popen, Path]:
        started.append(subprocess.Popen([sys.executable, "-c", OTHER_LAB, str(root)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        return started[-1], Path(json.loads(started[-1].stdout.readline()))

    yield start
    for process in started:
        process.kill()
        process.wait()


def test_a_lab_never_clears_a_run_another_live_lab_shows(tmp_path, other_lab):
    """Nor shares a run folder with it."""
    root = tmp_path / "runs" / "lab"
    process, theirs = other_lab(root)
    mine = Lab(root=root)
    assert mine.run(2).workdir != theirs               # the same experiment: a folder of its own
    mine.run(3)
    (root / "my-notes").mkdir()                        # not a run folder: never touched
    assert mine.clear_old_runs() == 1                  # its own older run, not the other lab's
    assert (root / "my-notes").is_dir() and "2 run folder(s) kept" in mine.runs_kept.value
    assert theirs.is_dir() and (theirs / ".task_outputs" / "tool-results").is_dir()
    assert set(run_folders(root)) == {theirs, mine.result.workdir}
    process.stdin.write("\n")
    process.stdin.flush()
    assert json.loads(process.stdout.readline()) == 0  # nor does the other lab clear mine
    assert mine.result.workdir.is_dir()
    process.wait(timeout=30)
    assert mine.clear_old_runs() == 1                  # once that lab is closed, its run may go
    assert run_folders(root) == [mine.result.workdir]


RUN_OR_CLEAR = """
import sys, time
from compact.classroom.lab import Lab
lab, deadline, done = Lab(root=sys.argv[1]), time.monotonic() + float(sys.argv[3]), 0
while time.monotonic() < deadline or not done:
    if sys.argv[2] == "run":
        assert lab.run(3).transcripts, "the run's transcript is gone"
        done += 1
    else:
        done += 1 + lab.clear_old_runs()
print(done, flush=True)
if sys.argv[2] == "run":
    sys.stdin.readline()              # stays open, its runs live, until told to close
"""


def test_a_lab_clearing_while_another_runs_breaks_neither(tmp_path):
    """One lab runs experiment 3 again and again while another presses "Clear old runs" as fast
    as it can, on one folder: no FileNotFoundError in a run, no "Directory not empty" in a clear."""
    root = tmp_path / "runs" / "lab"
    runner, clearer = [subprocess.Popen([sys.executable, "-c", RUN_OR_CLEAR, str(root), mode, "4"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
                       for mode in ("run", "clear")]
    out, err = clearer.communicate(timeout=120)
    assert clearer.returncode == 0 and int(out) > 0, err[-3000:]
    line = runner.stdout.readline()                     # the runner is done and still open
    assert line.strip() and int(line) > 0, runner.communicate(timeout=30)[1][-3000:]
    # While the runner lives its runs stay: it kept its newest few (a closed lab's runs may go).
    assert 0 < len(run_folders(root)) <= KEEP_RUNS + 1
    _, err = runner.communicate("\n", timeout=60)
    assert runner.returncode == 0, err[-3000:]


MAKE_RUNS = """
import sys
from compact.classroom.runs import new_run
for _ in range(int(sys.argv[2])):
    new_run(sys.argv[1], "exp")
"""


def test_finished_runs_are_kept_to_the_newest_few_per_label(tmp_path):
    folder = tmp_path / "runs"
    made = runs.KEEP + 3                               # by a kernel that then closed
    subprocess.run([sys.executable, "-c", MAKE_RUNS, str(folder), str(made)], check=True)
    assert len(runs.run_names(folder)) == made         # its own runs stay while it lives
    (folder / "keep-me").mkdir()                       # not a run folder: never touched
    mine = runs.new_run(folder, "exp")
    names = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    newest = [f"exp-{n}" for n in range(made - runs.KEEP + 1, made + 1)]
    assert names == sorted([*newest, mine.name, "keep-me"]) and mine.name == f"exp-{made + 1}"
    assert runs.new_run(folder, "other").name == "other-1"
    for _ in range(runs.KEEP + 1):                     # this kernel's runs: all live, all kept
        runs.new_run(folder, "exp")
    assert mine.is_dir() and len(runs.run_names(folder)) == runs.KEEP + 1 + runs.KEEP + 1 + 1
    assert set(runs.statuses(folder).values()) == {"mine", "finished"}


def test_a_lab_keeps_its_newest_runs_of_each_experiment_and_goes_on_after_files_are_deleted_by_hand(tmp_path):
    lab = Lab(root=tmp_path / "runs", keep=2)
    first = lab.run(1)
    for experiment in (1, 1, 1, 3):
        lab.run(experiment)
    kept = run_folders(lab.root)
    assert [p.name for p in kept] == ["experiment1-3", "experiment1-4", "experiment3-1"]
    assert not first.workdir.exists() and [r.workdir for r in lab.runs] == kept
    count, size = runs.usage(lab.root)
    assert count == 3 and f"3 run folder(s) kept in {lab.root} ({size / 1e6:.1f} MB)" in lab.runs_kept.value
    assert "keeps its newest 2 of each experiment" in lab.runs_kept.value
    transcript = lab.result.transcripts[0]
    transcript.unlink()                                # by hand, after the run listed it
    assert file_size(transcript) == "removed since"
    shutil.rmtree(tmp_path / "runs")
    again = lab.run(2)                                 # no FileNotFoundError
    assert again.workdir.is_dir() and again.tool_results
    assert runs.statuses(lab.root) == {again.workdir.name: "mine"}
    assert runs.folder_bytes(tmp_path / "nowhere") == 0 and runs.usage(tmp_path / "nowhere") == (0, 0)
