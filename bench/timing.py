"""What every benchmark here shares: best-and-median timing, and the machine it ran on."""

from __future__ import annotations

import platform
import statistics
import subprocess
import time
from collections.abc import Callable


def timed(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(best, median) seconds of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def cpu_model() -> str:
    """The CPU's model name and count, from lscpu (Linux), else what platform knows."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return platform.processor() or "unknown"
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    name = fields.get("Model name", "unknown").strip()
    cpus = fields.get("CPU(s)", "?").strip()
    return f"{name}, {cpus} CPUs"
