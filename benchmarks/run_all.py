"""``make bench``: every benchmark script, one after another, printing its table; the same text
goes to ``docs/generated/bench.md``, the page the docs quote measured figures from."""

import contextlib
import io
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE.parent / "docs" / "generated" / "bench.md"


class Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal):
        self.terminal, self.kept = terminal, io.StringIO()

    def write(self, text):
        self.terminal.write(text)
        return self.kept.write(text)

    def flush(self):
        self.terminal.flush()


def main() -> None:
    sections = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n== {script.name} ==", flush=True)
        sys.argv = [str(script)]
        tee = Tee(sys.stdout)
        with contextlib.redirect_stdout(tee):
            runpy.run_path(str(script), run_name="__main__")
        sections.append(f"## {script.name}\n\n```\n{tee.kept.getvalue().strip()}\n```\n")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("# Benchmarks, as measured by `make bench`\n\nWritten by `benchmarks/run_all.py`; "
                   "each section is one script's output on the machine it names. Timings vary from run "
                   "to run; the token counts do not (a test compares the strategy table with the code).\n\n"
                   + "\n".join(sections), encoding="utf-8")
    print(f"\nwritten: {OUT}")


if __name__ == "__main__":
    main()
