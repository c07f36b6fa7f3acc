"""The package as pip installs it: the tests import the installed `tile`
(not python/ on sys.path), a wheel built through pyproject.toml installs
into a fresh virtual environment and runs a kernel, and the extension's
stub matches the extension."""

import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import sysconfig
import zipfile

import pytest

import tile
from conftest import BUILD, ROOT

SITE = sysconfig.get_paths()["purelib"]
KERNEL = '''
import numpy as np, tile
@tile.kernel(threads=32)
def twice(X: tile.tensor(tile.f32, [32]), Y: tile.tensor(tile.f32, [32])):
    Y[0:32] = X[0:32] * 2.0
X = np.arange(32, dtype=np.float32)
Y = np.zeros_like(X)
twice(X, Y, backend="emulate")
assert (Y == 2 * X).all()
print(tile.__file__)
'''


def test_tests_import_the_installed_package():
    assert importlib.metadata.version("tile") == tile.__version__
    # Editable: the sources are python/tile's, the extension the install's.
    assert os.path.dirname(tile.__file__) == os.path.join(ROOT, "python",
                                                          "tile")
    assert tile._tile.__file__.startswith(SITE)
    assert os.path.exists(os.path.join(os.path.dirname(tile.__file__),
                                       "py.typed"))
    assert not os.path.exists(os.path.join(SITE, "tile-build.pth"))


def pip(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "pip", "--quiet",
                           "--disable-pip-version-check", *args],
                          check=True, **kwargs)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel of the package with this build's extension, built offline
    (no build isolation: scikit-build-core and nanobind are the venv's)."""
    out = tmp_path_factory.mktemp("wheel")
    pip("wheel", "--no-build-isolation", "--no-deps", "--wheel-dir",
        str(out), f"--config-settings=build-dir={out / 'build'}",
        f"--config-settings=cmake.define.TILE_PYTHON_PREBUILT={BUILD}", ROOT)
    [name] = [n for n in os.listdir(out) if n.endswith(".whl")]
    return out / name


def test_wheel_contents(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("tile/__init__.py", "tile/kernel.py", "tile/py.typed",
                   "tile/_tile.pyi", "tile/lib/libTileRuntime.a",
                   "tile/include/tile_runtime.h"):
        assert needed in names
    assert any(n.startswith("tile/_tile.") and n.endswith(".so")
               for n in names)
    assert wheel.name.startswith("tile-0.1.0-")


def test_wheel_installs_into_a_fresh_venv(wheel, tmp_path):
    install_and_run(wheel, tmp_path)


def install_and_run(wheel, tmp_path):
    """Installs `wheel` into a new venv and runs a kernel from there."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)],
                   check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig."
                           "get_paths()['purelib'])"], capture_output=True,
                          text=True, check=True).stdout.strip()
    # numpy from this venv, offline (a path, not a site: its editable
    # `tile` finder stays out).
    with open(os.path.join(site, "deps.pth"), "w") as f:
        f.write(os.path.dirname(importlib.util.find_spec("numpy").origin)
                + "/..\n")
    pip("--python", python, "install", "--no-deps", "--no-index", str(wheel))
    program = tmp_path / "twice.py"  # the front end reads a file's source
    program.write_text(KERNEL)
    ran = subprocess.run([python, str(program)], capture_output=True,
                         text=True, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == os.path.join(site, "tile", "__init__.py")


@pytest.mark.skipif(not os.environ.get("TILE_TEST_PIP_BUILD"),
                    reason="compiles the project's libraries again (2.5 "
                           "minutes with ccache hits, far more without): "
                           "TILE_TEST_PIP_BUILD=1")
def test_pip_wheel_compiles_the_extension(tmp_path):
    pip("wheel", "--no-build-isolation", "--no-deps", "--wheel-dir",
        str(tmp_path), f"--config-settings=build-dir={tmp_path / 'build'}", ROOT)
    [name] = [n for n in os.listdir(tmp_path) if n.endswith(".whl")]
    # Installed, the extension finds Debian's libMLIR.so (its RUNPATH).
    install_and_run(tmp_path / name, tmp_path)


def test_stub_is_installed_with_the_extension():
    # The build generates it from the extension (nanobind_add_stub).
    stub = os.path.join(os.path.dirname(tile._tile.__file__), "_tile.pyi")
    with open(stub) as f:
        text = f.read()
    assert "class Compilation:" in text
    assert "def run(self, params: list, backend: str" in text
