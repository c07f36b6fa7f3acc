"""Shared fixtures of the tile package's tests.

Tests that need a GPU are marked ``cuda`` and skipped without a driver and
a device (as lit's ``REQUIRES: cuda-device``); everything else runs on the
CPU backends.
"""

import ctypes

import numpy as np
import pytest


def cuda_device_answers():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        if cuda.cuInit(0) != 0:
            return False
        count = ctypes.c_int(0)
        return cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and \
            count.value > 0
    except OSError:
        return False


HAS_CUDA = cuda_device_answers()


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA device")


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
