"""The Python examples of the README and the docs run as written."""

import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def python_blocks(path):
    with open(os.path.join(ROOT, path)) as f:
        # A fence may name the file the text says to save (```python bad.py).
        return re.findall(r"```python[^\n]*\n(.*?)```", f.read(), re.S)


def saved_files(path):
    """The files the text says to save (```tile sumsq.tile): name, text."""
    with open(os.path.join(ROOT, path)) as f:
        return re.findall(r"```tile (\S+)\n(.*?)```", f.read(), re.S)


@pytest.mark.parametrize("path, count", [("README.md", 1),
                                         ("docs/python.md", 4),
                                         ("docs/tutorial.md", 4)])
def test_documented_python_runs(path, count, tmp_path, capsys, monkeypatch):
    blocks = python_blocks(path)
    assert len(blocks) == count
    # Run where a reader would: beside the files the text saved, with the
    # tree's examples/ (tile.load_kernel("examples/embedding.tile")).
    for name, text in saved_files(path):
        (tmp_path / name).write_text(text)
    os.symlink(os.path.join(ROOT, "examples"), tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    # Each document's blocks run in order, as one program, from a file (the
    # front end reads a kernel's source).
    source = "\n".join(blocks).replace('"out"', repr(str(tmp_path / "out")))
    script = tmp_path / "doc.py"
    script.write_text(source)
    exec(compile(source, str(script), "exec"), {"__name__": "doc"})
    out = capsys.readouterr().out
    if "print(" in source:
        assert "matches interp" in out
