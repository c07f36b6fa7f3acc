"""Deployment: save()'s C header and examples/aot/launch.cpp, a C++
program that launches the saved kernel through libTileRuntime, run against
the fake CUDA driver (unittests/Runtime/FakeCudaDriver.cpp), whose `copy`
kernel copies X to O."""

import importlib.util
import os
import shutil
import subprocess

import pytest

from conftest import BUILD, ROOT

FAKE = os.path.join(BUILD, "lib", "libTileFakeCudaDriver.so")
RUNTIME = os.path.join(BUILD, "lib", "libTileRuntime.a")


def load_copy():
    path = os.path.join(ROOT, "examples", "aot", "save_copy.py")
    spec = importlib.util.spec_from_file_location("aot_copy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.copy


def test_header_declares_the_typed_launch(tmp_path):
    paths = load_copy().compile().save(tmp_path)
    assert [os.path.basename(p) for p in paths] == ["copy.ptx", "copy.json",
                                                    "copy.h"]
    header = (tmp_path / "copy.h").read_text()
    assert ("static inline int copy_launch(const float *X, float *O, "
            "int64_t K, const char *driver_library)") in header
    assert '{"X", (void *)X, (size_t)4 * (size_t)K * 4}' in header
    assert ".entry copy(" in header and '\\"kernel\\": \\"copy\\"' in header


@pytest.mark.skipif(not (os.path.exists(FAKE) and os.path.exists(RUNTIME)
                         and shutil.which("g++")),
                    reason="needs the build's fake driver, libTileRuntime "
                           "and g++")
def test_cpp_launcher_through_the_fake_driver(tmp_path):
    load_copy().compile().save(tmp_path / "out")
    program = tmp_path / "launch"
    subprocess.run(["g++", "-std=c++17", "-Wall", "-Werror",
                    "-I", str(tmp_path / "out"),
                    "-I", os.path.join(ROOT, "include", "tile", "Runtime"),
                    os.path.join(ROOT, "examples", "aot", "launch.cpp"),
                    RUNTIME, "-ldl", "-o", str(program)], check=True)
    ran = subprocess.run([str(program), "1000", FAKE], capture_output=True,
                         text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "copy: 4000 elements copied by copy\n"
    # Without a driver: the runtime's status and message, no crash.
    ran = subprocess.run([str(program), "64", "libtile-no-such-driver.so"],
                         capture_output=True, text=True)
    assert ran.returncode == 3
    assert "launch: no CUDA driver" in ran.stderr


def test_save_replaces_files_whole(tmp_path):
    # A rename, not a rewrite in place: a second link to the old file keeps
    # the old bytes (open(path, "w") truncated them first), and no
    # temporary file stays behind.
    (tmp_path / "copy.ptx").write_text("old")
    os.link(tmp_path / "copy.ptx", tmp_path / "earlier.ptx")
    load_copy().compile().save(tmp_path)
    assert (tmp_path / "earlier.ptx").read_text() == "old"
    assert ".entry copy(" in (tmp_path / "copy.ptx").read_text()
    assert sorted(os.listdir(tmp_path)) == ["copy.h", "copy.json", "copy.ptx",
                                            "earlier.ptx"]


def test_save_that_cannot_write_says_so(tmp_path):
    (tmp_path / "copy.json").mkdir()
    with pytest.raises(OSError, match=r"cannot write .*copy\.json: Is a "
                                      r"directory"):
        load_copy().compile().save(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["copy.json", "copy.ptx"]
