"""The classroom dashboard: a button per experiment, sliders for the limits, the live plot.

Every control calls the same package functions the tests call (``run_experiment``,
``plot_run``); the lab only arranges them. The plot is an ``ipywidgets.Image`` holding a
PNG, so what the browser shows is exactly what a test can read back.
"""

from __future__ import annotations

import html
import io
import tempfile
from pathlib import Path
from typing import Any

import ipywidgets as w

from ..client import banner, make_client
from ..pipeline import Limits
from ..pipeline.storage import TOOL_RESULTS_DIR, TRANSCRIPT_DIR
from .experiments import PROMPTS, SHOWS, ExperimentResult, run_experiment
from .plot import plot_run
from .show import rows

BUTTONS = [("Experiment 1 · micro_compact", 1, True), ("Experiment 2 · tool_result_budget", 2, True),
           ("Experiment 3 · compact_history", 3, True), ("Baseline · no compaction", 3, False)]


def figure_png(result: ExperimentResult) -> bytes:
    buffer = io.BytesIO()
    plot_run(result).savefig(buffer, format="png", dpi=72)
    return buffer.getvalue()


def messages_html(messages: list) -> str:
    """The message list as sent, one row per content block (the notebooks' ``show`` table)."""
    head = "<tr><th>#</th><th>role</th><th>block</th><th>chars</th><th>preview</th></tr>"
    body = "".join(
        f"<tr><td>{index}</td><td>{role}</td><td>{kind}</td><td>{chars:,}</td>"
        f"<td style='font-family:monospace;white-space:pre-wrap'>{html.escape(text)}</td></tr>"
        for index, role, kind, chars, text in rows(messages, preview=240))
    return f"<table class='compact-messages'>{head}{body}</table>"


class Lab:
    """Build with ``Lab()`` and display it; ``run(n)`` is what each button does."""

    def __init__(self, client: Any = None, root: str | Path | None = None,
                 limits: Limits = Limits()) -> None:
        self.client = client or make_client(quiet=True)   # offline unless a key is set
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="compact-lab-"))
        self.runs: list[ExperimentResult] = []
        self.result: ExperimentResult | None = None
        self.sliders = {
            "context_limit": w.IntSlider(limits.context_limit, 10_000, 200_000, 5_000,
                                         description="context_limit"),
            "keep_recent_results": w.IntSlider(limits.keep_recent_results, 0, 10,
                                               description="keep recent"),
            "max_messages": w.IntSlider(limits.max_messages, 5, 100, description="max_messages"),
            "persist_threshold": w.IntSlider(limits.persist_threshold, 5_000, 100_000, 5_000,
                                             description="persist >"),
        }
        for slider in self.sliders.values():
            slider.style.description_width = "110px"
            slider.layout.width = "420px"
        self.buttons = []
        for label, n, compaction in BUTTONS:
            button = w.Button(description=label, layout=w.Layout(width="270px"),
                              button_style="" if compaction else "warning",
                              tooltip=PROMPTS[n])
            button.on_click(lambda _b, n=n, c=compaction: self.run(n, compaction=c))
            self.buttons.append(button)
        self.progress = w.IntProgress(0, 0, 40, description="idle", bar_style="info")
        self.status = w.HTML(self._banner())
        self.plot = w.Image(format="png", layout=w.Layout(width="820px"))
        self.events = w.HTML("<i>Press a button to run an experiment.</i>")
        self.answer = w.HTML()
        self.files = w.HTML()
        self.turn = w.IntSlider(1, 1, 1, description="turn", disabled=True)
        self.turn.observe(self._show_turn, names="value")
        self.inspector = w.HTML()
        self.widget = w.VBox([
            self.status,
            w.HBox([w.VBox(self.buttons), w.VBox(list(self.sliders.values()))]),
            self.progress, self.plot, self.events, self.answer, self.files,
            w.HTML("<b>Inspect the message list as sent at a turn:</b>"), self.turn,
            self.inspector,
        ])

    def _banner(self) -> str:
        return f"<b>{html.escape(banner(self.client))}</b>"

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)

    @property
    def limits(self) -> Limits:
        return Limits().with_(**{name: s.value for name, s in self.sliders.items()})

    def run(self, n: int, compaction: bool = True) -> ExperimentResult:
        """Run an experiment with the sliders' limits and redraw everything."""
        for button in self.buttons:
            button.disabled = True
        label = f"experiment {n}" if compaction else "baseline"
        self.progress.max, self.progress.value = 40, 0
        self.progress.description = f"running {label}"
        try:
            folder = self.root / f"run-{len(self.runs) + 1:02d}-{label.replace(' ', '')}"
            result = run_experiment(n, self.limits, client=self.client, workdir=folder,
                                    compaction=compaction, on_turn=self._tick)
            self.progress.max = self.progress.value = max(len(result.trace.turns), 1)
            self.runs.append(result)
            self.result = result
            self._redraw(result)
        finally:
            for button in self.buttons:
                button.disabled = False
            self.progress.description = "done"
        return result

    def _tick(self, turn: Any) -> None:
        self.progress.value = turn.turn
        self.progress.description = f"turn {turn.turn}"

    def _redraw(self, result: ExperimentResult) -> None:
        self.plot.value = figure_png(result)
        what = SHOWS[result.n] if result.compaction else "no compaction: the context just grows"
        items = "".join(
            f"<li class='stage-event' data-stage='{e.stage}'>turn {t.turn}: "
            f"{html.escape(str(e))}</li>"
            for t in result.trace.turns for e in t.events if e.fired)
        refusal = (f"<li class='stage-event' data-stage='refused'>"
                   f"{html.escape(result.error)}</li>" if result.error else "")
        self.events.value = (f"<b>Stage events</b> ({html.escape(what)}):"
                             f"<ul>{items or '<li>none fired</li>'}{refusal}</ul>")
        answer = result.answer or "(no answer: the request was refused)"
        self.answer.value = (f"<b>Answer</b> after {len(result.trace.turns)} turns:"
                             f"<pre style='white-space:pre-wrap'>{html.escape(answer)}</pre>")
        listing = "".join(f"<li class='landed-file'>{html.escape(str(p.relative_to(result.workdir)))}"
                          f" ({p.stat().st_size:,} bytes)</li>" for p in result.files_written)
        self.files.value = (f"<b>Files in {TRANSCRIPT_DIR}/ and {TOOL_RESULTS_DIR}/</b> "
                            f"(in {html.escape(str(result.workdir))}):"
                            f"<ul>{listing or '<li>none</li>'}</ul>")
        count = max(len(result.trace.turns), 1)
        self.turn.unobserve(self._show_turn, names="value")
        self.turn.max, self.turn.value, self.turn.disabled = count, count, False
        self.turn.observe(self._show_turn, names="value")
        self._show_turn()

    def _show_turn(self, _change: Any = None) -> None:
        if not self.result or not self.result.trace.turns:
            self.inspector.value = ""
            return
        turn = self.result.trace.turns[self.turn.value - 1]
        self.inspector.value = (f"<p>Turn {turn.turn}: {len(turn.sent)} messages, "
                                f"{turn.size_sent:,} chars sent, stages: "
                                f"{', '.join(turn.stages) or 'none'}</p>" + messages_html(turn.sent))
