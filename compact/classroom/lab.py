"""The classroom dashboard for a 1280×720 projector: a button per experiment (run in a background
thread; a click while one runs is ignored, and says so), a slider per limit, the live plot. Each run
gets a new folder under ``root``; the lab keeps the newest ``keep`` per experiment and the one shown.
"""

from __future__ import annotations

import html
import io
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w
from matplotlib.figure import Figure

from ..client import banner, make_client
from ..pipeline import Limits
from ..pipeline.storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR
from ..texts import language, say
from ..trace import Trace, Turn
from .experiments import ExperimentResult, prompt, run_experiment, run_label
from .plot import headline, plot_composition, plot_context, share_turns
from .runs import new_run, prune, remove, run_names, surplus, usage
from .show import History, Text, describe_event

BUTTONS = [("lab.button.1", 1, True), ("lab.button.2", 2, True), ("lab.button.3", 3, True),
           ("lab.button.baseline", 3, False)]     # (its text's key, experiment, compaction)
SLIDERS = {   # Limits field → (min, max, step); its tip (the experiment it changes): "lab.tip.<field>"
    "context_limit": (10_000, 200_000, 5_000),
    "keep_recent_results": (0, 10, 1),
    "max_messages": (5, 100, 1),
    "tool_result_budget": (20_000, 400_000, 10_000),
    "persist_threshold": (5_000, 400_000, 5_000),
    "preview_chars": (200, 10_000, 200),
}
FIGSIZE = (7.5, 6.6)        # inches; shown at CSS_DPI css pixels per inch
CSS_DPI, PIXEL_RATIO = 96, 2    # rendered at 2× for high-DPI screens and projectors
CSS_WIDTH = int(FIGSIZE[0] * CSS_DPI)
NUMERALS = {1: "一", 2: "二", 3: "三"}     # experiment n in Chinese, as the lesson names them: 实验一
WIDE = {"width": "100%", "min_width": "0"}     # a control as wide as its column
KEEP_RUNS = 5               # the lab's own runs kept per experiment, besides the one shown
# The page's CSS: the plot as big as the window allows, and dark where the page is dark
# (JupyterLab and Voilà mark a dark theme on <body>; VS Code has its own class).
STYLE = """<style>
.compact-lab .compact-plot { width: auto; height: auto; max-width: min(100%, CSS_WIDTHpx);
  max-height: max(300px, calc(100vh - 190px)); }
body[data-jp-theme-light='false'] .compact-lab .compact-plot,
body.vscode-dark .compact-lab .compact-plot { filter: invert(0.88) hue-rotate(180deg); }
.compact-lab .lab-banner { font-size: 0.85em; line-height: 1.3; }
.compact-lab .lab-error { color: var(--jp-error-color1, #d32f2f); font-weight: bold; }
</style>""".replace("CSS_WIDTH", str(CSS_WIDTH))


def lab_figure(result: ExperimentResult, title: str | None = None) -> Figure:
    """The context plot over the composition bars, sized for the lab's column."""
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    top, bottom = fig.subplots(2, 1, height_ratios=[3, 2])
    plot_context(result, ax=top, title=title or headline(result))
    plot_composition(result, ax=bottom)
    share_turns([top, bottom])
    top.set_ylabel(say("lab.context_axis"))        # on two lines: the lab's short panels hold them
    bottom.set_ylabel(say("lab.composition_axis"))
    [tokens] = top.child_axes
    tokens.set_ylabel(say("plot.tokens_axis"), labelpad=10)   # clear of the tick labels
    return fig


def figure_png(result: ExperimentResult, title: str | None = None) -> bytes:
    buffer = io.BytesIO()
    lab_figure(result, title).savefig(buffer, format="png", dpi=CSS_DPI * PIXEL_RATIO,
                                      facecolor="white", metadata={"Software": None})
    return buffer.getvalue()


def explains(n: int, compaction: bool, limits: Limits) -> str:
    """What an experiment shows, in the numbers it runs with."""
    if not compaction:
        return say("lab.explains.baseline")
    return say(f"lab.explains.{n}", keep=limits.keep_recent_results, minimum=limits.min_compact_chars,
               budget=limits.tool_result_budget, threshold=limits.persist_threshold,
               preview=limits.preview_chars, limit=limits.context_limit)


def label_of(n: int, compaction: bool) -> str:
    """A run's label: experiment 1 (实验一, as the lesson numbers it) or baseline."""
    if not compaction:
        return say("lab.label.baseline")
    return say("lab.label.experiment", n=NUMERALS.get(n, str(n)) if language() == "zh" else str(n))


def events_html(result: ExperimentResult, failure: str | None = None) -> str:
    items = "".join(
        f"<li class='stage-event' data-stage='{e.stage}'>"
        f"{html.escape(say('lab.event', turn=t.turn, event=describe_event(e)))}</li>"
        for t in result.trace.turns for e in t.events if e.fired)
    if result.error:
        items += f"<li class='stage-event' data-stage='refused'>{html.escape(result.error)}</li>"
    if failure:
        items += f"<li class='stage-event lab-error' data-stage='error'>{html.escape(failure)}</li>"
    what = explains(result.n, result.compaction, result.limits)
    return (say("lab.events", what=html.escape(what))
            + f"<ul>{items or '<li>' + say('lab.none_fired') + '</li>'}</ul>")


def answer_html(result: ExperimentResult, failure: str | None = None) -> str:
    answer = result.answer or say("lab.no_answer_failed" if failure else "lab.no_answer_refused")
    return say("lab.answer", turns=len(result.trace.turns)) + Text(answer)._repr_html_()


def file_size(path: Path) -> str:
    try:
        return say("lab.bytes", size=path.stat().st_size)
    except FileNotFoundError:
        return say("lab.removed")


def files_html(result: ExperimentResult) -> str:
    listing = "".join(f"<li class='landed-file'>{html.escape(p.relative_to(result.workdir).as_posix())}"
                      f" ({file_size(p)})</li>" for p in result.files_written)
    return (say("lab.files", transcripts=TRANSCRIPT_DIR, results=TOOL_RESULTS_DIR,
                workdir=html.escape(str(result.workdir)))
            + f"<ul>{listing or '<li>' + say('lab.none') + '</li>'}</ul>")


def _button(text: str, tooltip: str, action: Callable[[], Any], icon: str = "", **layout: str) -> w.Button:
    button = w.Button(description=text, icon=icon, tooltip=tooltip, layout=w.Layout(**layout))
    button.on_click(lambda _b: action())
    return button


def run_folders(root: Path) -> list[Path]:
    """The run folders under ``root``, oldest first per experiment."""
    return [root / name for name in run_names(root)]


class Lab:
    """Build with ``Lab()`` and display it; ``run(n)`` is what each button does."""

    def __init__(self, client: Any = None, root: str | Path | None = None,
                 limits: Limits = Limits(), keep: int = KEEP_RUNS) -> None:
        self.client = client or make_client(quiet=True)   # offline unless a key is set
        self.root = (Path(root) if root else Path.cwd() / "runs" / "lab").resolve()
        self.keep = keep
        self.folders: list[Path] = []                     # the run folders this lab made, oldest first
        self.runs: list[ExperimentResult] = []
        self.result: ExperimentResult | None = None       # what the dashboard shows
        self.failure: str | None = None                   # why the last run failed, if it did
        self.title: str | None = None                     # the shown plot's title, if not its headline
        self._lock = threading.Lock()                     # one run at a time
        self._thread: threading.Thread | None = None
        self._ignored = 0                                 # clicks ignored during this run
        self._base = limits
        self.sliders = {name: w.IntSlider(getattr(limits, name), low, high, step, description=name,
                                          tooltip=say(f"lab.tip.{name}"), readout_format=",d",
                                          continuous_update=False, style={"description_width": "150px"},
                                          layout=w.Layout(**WIDE))
                        for name, (low, high, step) in SLIDERS.items()}
        for slider in self.sliders.values():
            slider.observe(self._sliders_moved, names="value")
        self.buttons = [_button(say(key), prompt(n), lambda n=n, c=compaction: self.click(n, compaction=c),
                                **WIDE) for key, n, compaction in BUTTONS]
        self.reset = _button(say("lab.reset"), say("lab.reset_tip"), self.reset_sliders, "undo",
                             width="auto", align_self="flex-end")
        self.progress = w.IntProgress(0, 0, 40, description=say("lab.idle"), bar_style="info",
                                      layout=w.Layout(**WIDE))
        self.status = w.HTML(f"<div class='lab-banner'><b>{html.escape(banner(self.client))}</b></div>")
        self.state = w.HTML(f"<div class='lab-state'><i>{say('lab.press')}</i></div>",
                            layout=w.Layout(min_width="0"))
        self.started = 0                                  # runs started, numbered in the state line
        self.plot = w.Image(format="png", layout=w.Layout(min_width="0", margin="0"))
        self.plot.add_class("compact-plot")
        self._make_panes()
        self.widget = self._arrange()

    def _make_panes(self) -> None:
        self.events = w.HTML(f"<i>{say('lab.events_empty')}</i>")
        self.answer = w.HTML()
        self.files = w.HTML()
        self.runs_kept = w.HTML()
        self.clear = _button(say("lab.clear"), say("lab.clear_tip"), self.clear_old_runs, "trash",
                             width="auto")
        self.turn = w.IntSlider(1, 1, 1, description=say("lab.turn"), disabled=True)
        self.turn.observe(self._show_turn, names="value")
        self.inspector = w.HTML()
        self._update_runs_kept()
        pane = w.Layout(max_height="45vh", overflow="auto")
        self.tabs = w.Tab(children=[
            w.VBox([self.events], layout=pane), w.VBox([self.answer], layout=pane),
            w.VBox([self.files, w.HBox([self.runs_kept, self.clear])], layout=pane),
            w.VBox([w.HTML(say("lab.inspect")), self.turn, self.inspector], layout=pane)],
            titles=[say(f"lab.tab.{key}") for key in ("events", "answer", "files", "inspector")])

    def _arrange(self) -> w.VBox:
        controls = w.VBox([*self.buttons, self.progress, *self.sliders.values(), self.reset],
                          layout=w.Layout(flex="0 1 320px", min_width="260px", max_width="420px"))
        widget = w.VBox([
            w.HTML(STYLE), self.status,
            w.HBox([controls, w.VBox([self.state, self.plot],
                                     layout=w.Layout(flex="1 1 420px", min_width="0"))],
                   layout=w.Layout(flex_flow="row wrap", align_items="flex-start",
                                   grid_gap="8px 12px")),
            self.tabs,
        ])
        widget.add_class("compact-lab")
        return widget

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        # What a saved notebook shows once the kernel is gone, instead of a VBox(...) repr.
        bundle["text/plain"] = say("lab.saved")
        return bundle

    @property
    def limits(self) -> Limits:
        return self._base.with_(**{name: s.value for name, s in self.sliders.items()})

    def reset_sliders(self) -> None:
        """Every slider back to the lesson's number (the next run uses them)."""
        for name, slider in self.sliders.items():
            slider.value = getattr(self._base, name)

    # ------------------------------------------------------------------ running

    def click(self, n: int, compaction: bool = True) -> bool:
        """A button press: start the run in the background, or ignore it (visibly) when busy."""
        if not self._lock.acquire(blocking=False):
            self._ignored += 1
            self._say(say("lab.busy_click", label=label_of(n, compaction)))
            return False
        self._ignored = 0             # counted from here: the thread may start after a 2nd click

        def work() -> None:
            try:
                self._run(n, compaction)
            except Exception:
                pass                # already shown in the dashboard; a button has nowhere to raise
            finally:
                self._lock.release()

        self._thread = threading.Thread(target=work, name=f"lab-{run_label(n, compaction)}",
                                        daemon=True)
        self._thread.start()
        return True

    def wait(self, timeout: float = 120) -> None:
        """Wait for a button's run to finish (for code and tests that pressed one)."""
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self, n: int, compaction: bool = True) -> ExperimentResult:
        """Run an experiment with the sliders' limits and redraw; a failure is shown, and raised."""
        with self._lock:
            self._ignored = 0
            return self._run(n, compaction)

    def _new_folder(self, n: int, compaction: bool) -> Path:
        """A new run folder; of each experiment's older ones the newest ``keep`` (and the one shown) stay."""
        self.folders.append(new_run(self.root, run_label(n, compaction)))
        shown = self.result.workdir if self.result else None
        self._forget(remove(self.root, [f for f in surplus(self.folders, self.keep) if f != shown]))
        return self.folders[-1]

    def _forget(self, removed: list[Path]) -> None:
        gone = {f.resolve() for f in removed}
        self.folders = [f for f in self.folders if f.resolve() not in gone]
        self.runs = [r for r in self.runs if r.workdir.resolve() not in gone]

    def _run(self, n: int, compaction: bool) -> ExperimentResult:
        limits, label = self.limits, label_of(n, compaction)
        self._disable_buttons(True)
        self.progress.max, self.progress.value, self.progress.bar_style = 40, 0, "info"
        self.progress.description = say("lab.progress.running", label=label)
        self.started += 1
        self._say(say("lab.state.running", run=self.started, label=label))
        turns: list[Turn] = []
        folder = self._new_folder(n, compaction)
        started = time.perf_counter()
        try:
            result = run_experiment(n, limits=limits, client=self.client, workdir=folder,
                                    compaction=compaction, on_turn=lambda t: self._tick(t, turns))
        except Exception as error:
            self.failure = f"{type(error).__name__}: {error}"
            partial = ExperimentResult(n=n, prompt=prompt(n), workdir=folder, limits=limits,
                                       compaction=compaction, trace=getattr(error, "trace", None)
                                       or Trace(turns=turns), messages=[])
            self.result = partial
            self.progress.bar_style, self.progress.description = "danger", say("lab.progress.failed")
            self._redraw(partial, title=say("lab.failed_title", label=label, turns=len(partial.trace.turns),
                                            error=type(error).__name__))
            self._say(say("lab.state.failed", run=self.started, label=html.escape(label),
                          failure=html.escape(self.failure)))
            self.tabs.selected_index = 0
            raise
        else:
            self.failure = None
            self.runs.append(result)
            self.result = result
            self.progress.max = self.progress.value = max(len(result.trace.turns), 1)
            self.progress.description = say("lab.progress.done")
            self._redraw(result)
            self._describe_run(time.perf_counter() - started)
            return result
        finally:
            self._disable_buttons(False)
            self._mark_shown()
            self._update_runs_kept()

    def _disable_buttons(self, running: bool) -> None:
        """No run can start, and no run can be cleared, while one is running."""
        for button in [*self.buttons, self.clear]:
            button.disabled = running

    def _mark_shown(self) -> None:
        """Highlight the button of the run the dashboard shows, and only that one."""
        shown = (self.result.n, self.result.compaction) if self.result else None
        for (_key, n, compaction), button in zip(BUTTONS, self.buttons, strict=True):
            button.button_style = "info" if (n, compaction) == shown else ""

    def _tick(self, turn: Turn, turns: list[Turn]) -> None:
        turns.append(turn)
        self.progress.value = min(turn.turn, self.progress.max)
        self.progress.description = say("lab.progress.turn", turn=turn.turn)

    def _describe_run(self, seconds: float) -> None:
        result = self.result
        label = label_of(result.n, result.compaction)
        changed = [name for name, s in self.sliders.items() if s.value != getattr(result.limits, name)]
        note = say("lab.state.stale", changed=", ".join(changed)) if changed else ""
        timing = say("lab.state.timing", seconds=seconds) if seconds else ""
        ignored = say("lab.state.ignored", count=self._ignored) if self._ignored else ""
        self._say(say("lab.state.done", run=self.started, label=html.escape(label), timing=timing,
                      what=html.escape(explains(result.n, result.compaction, result.limits)),
                      note=note, ignored=ignored))

    def _say(self, text: str) -> None:
        """The line above the plot: which run the plot shows, or why there is none."""
        self.state.value = f"<div class='lab-state'>{text}</div>"

    def _sliders_moved(self, _change: Any) -> None:
        if self.result is not None and self.failure is None and not self._lock.locked():
            self._describe_run(0)

    def figure(self) -> Figure:
        """The plot the dashboard shows, as a figure (for a page without widgets)."""
        if self.result is None:
            raise RuntimeError("no run yet: press a button or call lab.run(n) first")
        return lab_figure(self.result, self.title)

    def _redraw(self, result: ExperimentResult, title: str | None = None) -> None:
        self.title = title
        self.plot.value = figure_png(result, title)
        self.events.value = events_html(result, self.failure)
        self.answer.value = answer_html(result, self.failure)
        self.files.value = files_html(result)
        count = max(len(result.trace.turns), 1)
        self.turn.unobserve(self._show_turn, names="value")
        self.turn.max, self.turn.value = count, count
        self.turn.disabled = not result.trace.turns
        self.turn.observe(self._show_turn, names="value")
        self._show_turn()

    def _show_turn(self, _change: Any = None) -> None:
        if not self.result or not self.result.trace.turns:
            self.inspector.value = ""
            return
        turn = self.result.trace.turns[self.turn.value - 1]
        line = say("lab.inspector", turn=turn.turn, count=len(turn.sent), chars=turn.size_sent,
                   stages=", ".join(turn.stages) or say("lab.none"))
        table = History(turn.sent, preview=240)._repr_html_()
        self.inspector.value = f"<p>{html.escape(line)}</p>{table}"

    # ------------------------------------------------------------------ run folders

    def _update_runs_kept(self) -> None:
        count, size = usage(self.root)
        kept = say("lab.runs_kept", count=count, root=html.escape(str(self.root)), mb=size / 1e6,
                   keep=self.keep)
        self.runs_kept.value = f"<span class='runs-kept'>{kept}</span>"

    def clear_old_runs(self) -> int:
        """Delete this lab's run folders but the one shown, and closed labs' ones; the number removed."""
        if not self._lock.acquire(blocking=False):
            self._say(say("lab.busy_clear"))
            return 0
        try:
            shown = self.result.workdir if self.result else None
            removed = remove(self.root, [f for f in self.folders if f != shown]) + prune(self.root, keep=0)
            self._forget(removed)
            return len(removed)
        finally:
            self._lock.release()
            self._update_runs_kept()
