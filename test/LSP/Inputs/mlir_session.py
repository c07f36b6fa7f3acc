"""Drives tile-mlir-lsp-server over stdio on a .mlir file of tile IR and
prints its diagnostics, a hover and a definition, for FileCheck
(test/LSP/mlir.test)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from lspclient import Client, position_of, show_diagnostics  # noqa: E402

server, source = sys.argv[1], pathlib.Path(sys.argv[2])
text = source.read_text()
client = Client([server])
caps = client.initialize()["result"]["capabilities"]
print("capability hoverProvider", caps.get("hoverProvider"))



doc = client.open(source, text, language="mlir")
show_diagnostics(client.diagnostics(doc))

# %acc's use in `tile.read %acc` -> its definition.
line, char = position_of(text, "tile.read %acc", offset=len("tile.read %"))
for location in client.request("textDocument/definition",
                               client.at(doc, line, char))["result"]:
    start = location["range"]["start"]
    print("definition of %%acc at %d:%d" % (start["line"] + 1, start["character"] + 1))
line, char = position_of(text, "tile.var")
hover = client.request("textDocument/hover", client.at(doc, line, char + 2))
print("hover tile.var:", hover["result"]["contents"]["value"].replace("\n", " | "))

# A type the tile dialect rejects: an error there.
client.change(doc, 2, text.replace("!tile.var<16x64xf32>", "!tile.var<16x64xi64>", 1))
show_diagnostics(client.diagnostics(doc, 2))
print("exit code", client.close())
