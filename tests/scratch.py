"""Where the generated-history tests let the pipeline write: a fresh folder per example, in
memory when the system has a RAM-backed /dev/shm (its fsyncs and deletions cost nothing
there, and the 10,000-example runs create and delete 10,000 folders)."""

import os
import tempfile

RAM = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def scratch() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(dir=RAM, prefix="compact-example-")
