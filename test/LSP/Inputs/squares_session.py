"""Drives tile-lsp-server over stdio on examples/squares.tile as an editor
does and prints what it answers, for FileCheck (test/LSP/squares.test)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from lspclient import Client, position_of, show_diagnostics  # noqa: E402

server, source = sys.argv[1], pathlib.Path(sys.argv[2])
text = source.read_text()
client = Client([server])

caps = client.initialize()["result"]["capabilities"]
for key in ("hoverProvider", "inlayHintProvider", "definitionProvider",
            "referencesProvider", "documentSymbolProvider"):
    print("capability", key, caps.get(key))



doc = client.open(source, text)
show_diagnostics(client.diagnostics(doc, 1))

# Hover on the use of `acc` in `acc += x * x`.
line, char = position_of(text, "acc += x")
hover = client.request("textDocument/hover", client.at(doc, line, char + 1))
print("hover acc:", hover["result"]["contents"]["value"].replace("\n", " | "))

# Hover on the `*` of `x * x`: the value's type.
line, char = position_of(text, "* x")
hover = client.request("textDocument/hover", client.at(doc, line, char))
print("hover *:", hover["result"]["contents"]["value"])

hints = client.request("textDocument/inlayHint", {
    "textDocument": {"uri": doc},
    "range": {"start": {"line": 0, "character": 0},
              "end": {"line": 100, "character": 0}}})["result"]
for hint in hints:
    print("hint %d:%d %s" % (hint["position"]["line"] + 1,
                             hint["position"]["character"] + 1, hint["label"]))

line, char = position_of(text, "acc += x")
for location in client.request("textDocument/definition",
                               client.at(doc, line, char))["result"]:
    start = location["range"]["start"]
    print("definition of acc at %d:%d" % (start["line"] + 1, start["character"] + 1))

refs = client.request("textDocument/references", dict(
    client.at(doc, line, char), context={"includeDeclaration": True}))["result"]
print("references of acc:", " ".join(
    "%d:%d" % (r["range"]["start"]["line"] + 1, r["range"]["start"]["character"] + 1)
    for r in refs))

symbols = client.request("textDocument/documentSymbol",
                         {"textDocument": {"uri": doc}})["result"]
for symbol in symbols:
    print("symbol", symbol["name"], "children:",
          " ".join(child["name"] for child in symbol.get("children", [])))

line, char = position_of(text, "rowsum")
completion = client.request("textDocument/completion",
                            client.at(doc, line, char + 3))["result"]
labels = {item["label"]: item.get("detail", "") for item in completion["items"]}
print("completion rowsum:", labels.get("rowsum"), "| dot:", labels.get("dot"))

# Break @registers(acc): an error on that line.
broken = text.replace("@registers(acc)", "@registers(accx)")
client.change(doc, 2, broken)
show_diagnostics(client.diagnostics(doc, 2))

print("exit code", client.close())
