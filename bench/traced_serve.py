"""deploy/serve.py with tracemalloc on, for hunting what holds memory (bench/soak.py --trace).

    python bench/traced_serve.py SNAPSHOT_DIR [deploy/serve.py arguments]

Each SIGUSR1 writes a tracemalloc snapshot to SNAPSHOT_DIR/<n>.pickle (after a full collection).
"""

from __future__ import annotations

import gc
import signal
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deploy.serve import main

if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    tracemalloc.start(12)
    taken = [0]

    def snapshot(*_) -> None:
        gc.collect()
        tracemalloc.take_snapshot().dump(str(out / f"{taken[0]}.pickle"))
        taken[0] += 1

    signal.signal(signal.SIGUSR1, snapshot)
    sys.exit(main(sys.argv[2:]))
