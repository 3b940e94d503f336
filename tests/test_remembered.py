"""Remembered study sessions: loaded only while the package's code is the code that replayed them,
equal to a replay in every number, and never at the cost of a failure."""

import pickle
import shutil
from dataclasses import dataclass

import pytest

from compact.study import api_session, remembered
from compact.study.api_session import API_STRATEGIES, ApiStrategy
from compact.study.strategies import STRATEGIES, Strategy, compare, rememberable
from compact.study.workload import session_turns

PIPELINE = STRATEGIES[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "study-cache"
    monkeypatch.setenv("COMPACT_STUDY_CACHE", str(folder))
    return folder


def facts(report):
    return (report.strategy, report.input_tokens, report.cumulative_tokens, report.cumulative_cost,
            report.peak_size, report.model_calls, report.summary_calls, report.rereads,
            report.retention, report.ledger.requests, report.summaries, report.summary_turns,
            report.messages)


def test_a_remembered_session_equals_its_replay_in_every_number(cache, tmp_path):
    seen = []
    first, = compare(tmp_path / "one", strategies=[PIPELINE])
    again, = compare(tmp_path / "two", strategies=[PIPELINE], progress=lambda *u: seen.append(u))
    assert first.remembered == "" and again.remembered.startswith(str(cache))
    assert facts(again) == facts(first) and again.seconds == first.seconds
    assert seen == [("pipeline", 100, 100)]                 # the progress bar still completes
    assert [p.name.split("-")[0] for p in cache.iterdir()] == ["strategy"]


def test_a_changed_line_anywhere_in_the_package_is_a_new_key(tmp_path):
    copy = tmp_path / "compact"
    shutil.copytree(remembered.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert remembered.key("strategy", "pipeline", copy) == remembered.key("strategy", "pipeline")
    limits = copy / "pipeline" / "context.py"
    limits.write_text(limits.read_text(encoding="utf-8").replace("50_000", "50_001", 1), encoding="utf-8")
    assert remembered.key("strategy", "pipeline", copy) != remembered.key("strategy", "pipeline")
    assert remembered.key("strategy", "none") != remembered.key("strategy", "pipeline")
    assert remembered.key("api", "pipeline") != remembered.key("strategy", "pipeline")


def test_only_the_packages_own_strategies_on_the_default_session_are_remembered():
    assert rememberable(PIPELINE, None) and rememberable(PIPELINE, session_turns())
    assert not rememberable(PIPELINE, session_turns()[:12])
    assert not rememberable(Strategy("pipeline", "mine: its code is not in the key"), None)
    lesson = API_STRATEGIES[0]
    assert api_session.rememberable(lesson, None, None)
    assert not api_session.rememberable(lesson, object(), None)    # real Claude, or any client
    assert not api_session.rememberable(ApiStrategy(lesson.name, "mine", lesson.stages), None, None)


@dataclass
class Report:
    strategy: str
    remembered: str = ""


def test_damaged_and_older_entries_are_replaced_and_a_longer_name_keeps_its_own(cache):
    cache.mkdir()
    path = cache / f"strategy-x-{remembered.key('strategy', 'x')}.pickle"
    path.write_bytes(b"half a pickle")
    replays = []
    report = remembered.remembered("strategy", "x", lambda: replays.append(1) or Report("x"))
    assert replays == [1] and report.remembered == ""
    assert pickle.loads(path.read_bytes()) == Report("x")
    assert remembered.remembered("strategy", "x", lambda: 1 / 0).remembered == str(path)
    path.unlink()          # an older version leaves no entry behind, a longer name keeps its own
    (cache / "strategy-micro-000000000000000000000000.pickle").write_bytes(pickle.dumps(Report("micro")))
    remembered.keep("strategy", "micro only", Report("micro only"))
    remembered.keep("strategy", "micro", Report("micro"))      # its prefix is "micro only"'s too
    assert {p.name for p in cache.iterdir()} == {
        f"strategy-micro-{remembered.key('strategy', 'micro')}.pickle",
        f"strategy-micro-only-{remembered.key('strategy', 'micro only')}.pickle"}
    assert remembered.recall("strategy", "micro only").strategy == "micro only"


def test_off_remembers_nothing_and_an_unwritable_folder_warns_and_returns_the_replay(
        tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_STUDY_CACHE", "off")
    assert remembered.folder() is None
    remembered.keep("strategy", "x", Report("x"))
    assert remembered.recall("strategy", "x") is None
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("COMPACT_STUDY_CACHE", str(blocker / "study"))
    with pytest.warns(UserWarning, match="COMPACT_STUDY_CACHE"):
        report = remembered.remembered("strategy", "x", lambda: Report("x"))
    assert report == Report("x")
