"""The benchmark's own modules (bench/ is not a package), for tests that reuse its data."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def bench_module(name: str):
    """Import bench/<name>.py once, under its own name (bench modules import each other so)."""
    if name in sys.modules:
        return sys.modules[name]
    if name != "layout":  # bench modules import bench/layout.py by name, as they do when run
        bench_module("layout")
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
