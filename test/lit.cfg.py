# -*- Python -*-
# lit configuration for the tile regression tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tile", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")
config.excludes = ["Inputs", "lib", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tile_src", config.tile_src_root))
config.substitutions.append(("%tile_obj", config.tile_obj_root))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx_flags", config.cxx_flags))
config.substitutions.append(("%exe_linker_flags", config.exe_linker_flags))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%python", config.python_executable))
# Runs a command and succeeds only if it exits with the code given first.
config.substitutions.append(
    ("%expect_exit", config.python_executable + " " +
     os.path.join(config.tile_src_root, "test", "Runtime", "Inputs", "expect-exit.py")))

# The sanitizers' options (utils/run-tests.sh --sanitize) reach the tools.
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

# A build under AddressSanitizer and UBSan (utils/run-tests.sh --sanitize):
# its programs need the sanitizers' shared runtime.
if "-fsanitize=" in config.cxx_flags:
    config.available_features.add("sanitize")

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
tools = ["tile-opt", "tile-translate", "tile-launch", "tile-emulate", "tile-run",
         "tile-lsp-server", "tile-mlir-lsp-server"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# node runs the VS Code extension's client (editors/vscode) against the server.
if shutil.which("node"):
    config.available_features.add("node")

# ptxas validates emitted PTX without a GPU.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))


def cuda_device_answers():
    """True when a CUDA driver is installed and reports at least one device."""
    try:
        import ctypes

        cuda = ctypes.CDLL("libcuda.so.1")
        if cuda.cuInit(0) != 0:
            return False
        count = ctypes.c_int(0)
        return cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except OSError:
        return False


if cuda_device_answers():
    config.available_features.add("cuda-device")


def interpret_python():
    """A Python that imports torch and triton, for the GPU bundle's check
    under Triton's interpreter (utils/gpu-bundle/requirements-interpret.txt):
    $TILE_INTERPRET_PYTHON, else the one that runs the tests."""
    for python in (os.environ.get("TILE_INTERPRET_PYTHON"),
                   config.python_executable):
        try:
            if python and subprocess.run(
                    [python, "-c", "import torch, triton"],
                    capture_output=True, timeout=120).returncode == 0:
                return python
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None


if (python := interpret_python()):
    config.available_features.add("triton-interpret")
    config.substitutions.append(("%interpret_python", python))
