# -*- Python -*-
# Runs every GoogleTest binary of the build as lit tests, one per test case.

import os

import lit.formats

config.name = "TILE-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.tile_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
# The sanitizers' options (utils/run-tests.sh --sanitize) reach the tests.
for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
