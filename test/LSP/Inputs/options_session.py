"""tile-lsp-server's options: the chip from a tile.toml next to the file
wins over initializationOptions, a bad line of it is a warning, and
completion after `ctx.` and `@` (test/LSP/options.test)."""

import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from lspclient import Client, show_diagnostics  # noqa: E402

server, matmul, workdir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
project = workdir / "project"
project.mkdir(parents=True)
shutil.copy(matmul, project / "matmul.tile")
(project / "tile.toml").write_text('[lsp]\nchip = "sm_70"\nflavour = 1\n')
other = workdir / "elsewhere"
other.mkdir()
shutil.copy(matmul, other / "matmul.tile")

client = Client([server])
client.initialize({"chip": "sm_80"})
whole = {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}
for path in (other / "matmul.tile", project / "matmul.tile"):
    doc = client.open(path)
    print("==", path.parent.name)
    show_diagnostics(client.diagnostics(doc, 1))
    hints = client.request("textDocument/inlayHint",
                           {"textDocument": {"uri": doc}, "range": whole})["result"]
    print("dot:", [h["label"] for h in hints if "mma" in h["label"] or "SIMT" in h["label"]])

text = "@launch(32)\nkernel k(O: tensor<f32>[32]) {\n  var i = ctx.\n}\n"
doc = client.open(workdir / "complete.tile", text)
client.diagnostics(doc, 1)
items = client.request("textDocument/completion", client.at(doc, 2, 14))["result"]["items"]
print("after ctx.:", " ".join(sorted(i["label"] for i in items)))
items = client.request("textDocument/completion", client.at(doc, 0, 1))["result"]["items"]
print("after @:", " ".join(sorted(i["label"] for i in items)))
print("exit code", client.close())
