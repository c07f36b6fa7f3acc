"""The Python examples of the README and the docs run as written."""

import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def python_blocks(path):
    with open(os.path.join(ROOT, path)) as f:
        # A fence may name the file the text says to save (```python bad.py).
        return re.findall(r"```python[^\n]*\n(.*?)```", f.read(), re.S)


@pytest.mark.parametrize("path, count", [("README.md", 1),
                                         ("docs/python.md", 3),
                                         ("docs/tutorial.md", 3)])
def test_documented_python_runs(path, count, tmp_path, capsys):
    blocks = python_blocks(path)
    assert len(blocks) == count
    # Each document's blocks run in order, as one program, from a file (the
    # front end reads a kernel's source).
    source = "\n".join(blocks).replace('"out"', repr(str(tmp_path / "out")))
    script = tmp_path / "doc.py"
    script.write_text(source)
    exec(compile(source, str(script), "exec"), {"__name__": "doc"})
    out = capsys.readouterr().out
    if "print(" in source:
        assert "matches interp" in out
