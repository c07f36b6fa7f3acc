"""Shared fixtures of the tile package's tests.

Tests that need a GPU are marked ``cuda`` and skipped without a driver and
a device (as lit's ``REQUIRES: cuda-device``); everything else runs on the
CPU backends.
"""

import importlib.util
import os
import shutil
import tempfile

import numpy as np
import pytest

import tile

# The compile cache of this run, not the user's (removed at the end).
CACHE_DIR = os.environ["TILE_CACHE_DIR"] = tempfile.mkdtemp(
    prefix="tile-test-cache-")

# The runtime's own probe, which backend="auto" asks too.
HAS_CUDA = tile.cuda_device() is not None
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The build directory: its tools (tile-launch) and test libraries (the fake
# CUDA driver); the package itself is the installed one.
BUILD = os.environ.get("TILE_BUILD_DIR") or os.path.join(ROOT, "build")


def example(name):
    """The module examples/python/NAME.py."""
    path = os.path.join(ROOT, "examples", "python", name + ".py")
    spec = importlib.util.spec_from_file_location("example_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA device")


def pytest_unconfigure(config):
    shutil.rmtree(CACHE_DIR, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    if HAS_CUDA:
        return
    skip = pytest.mark.skip(reason="needs a CUDA driver and device")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    return np.random.default_rng(1)
