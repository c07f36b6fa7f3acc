"""Bad input and bad clients against tile-lsp-server: each gets an error
reply or nothing, and the server keeps serving (test/LSP/robustness.test).
Prints one line per step, for FileCheck."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from lspclient import Client, position_of  # noqa: E402

server, examples, workdir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
squares = (examples / "squares.tile").read_text()
client = Client([server, "--time-limit-ms=300"])


def error_of(reply):
    return reply["error"]["code"] if "error" in reply else "no error"


def count(diagnostics, severity):
    return sum(1 for d in diagnostics if d["severity"] == severity)


print("before initialize:", error_of(client.request(
    "textDocument/hover", client.at("file:///nowhere.tile", 0, 0))))
client.initialize({"chip": "sm_80"})
print("initialize again:", error_of(client.request("initialize", {"capabilities": {}})))
print("unknown method:", error_of(client.request("tile/unknown", {})))
print("hover of an unknown document:", error_of(client.request(
    "textDocument/hover", client.at("file:///nowhere.tile", 0, 0))))
print("hover without a position:", error_of(client.request(
    "textDocument/hover", {"textDocument": {"uri": "file:///nowhere.tile"}})))
print("hover of a non-file URI:", error_of(client.request(
    "textDocument/hover", client.at("https://example.com/a.tile", 0, 0))))
# A change to a document never opened, and a message that is not JSON.
client.change("file:///never-opened.tile", 2, "kernel")
client.send_raw(b"Content-Length: 9\r\n\r\n{not json")

doc = client.open(workdir / "squares.tile", squares)
print("squares on sm_80:", count(client.diagnostics(doc, 1), 1), "errors")

# Positions outside the text, and a range past its end.
for line, char in ((-1, -1), (9999, 0), (0, 9999)):
    reply = client.request("textDocument/hover", client.at(doc, line, char))
    print("hover at %d:%d:" % (line, char), "result" in reply)
reply = client.request("textDocument/inlayHint", {
    "textDocument": {"uri": doc},
    "range": {"start": {"line": 5000, "character": 0},
              "end": {"line": -3, "character": 0}}})
print("inlay hints of an empty range:", reply["result"])
# An edit whose range lies outside the text is refused; the text stays.
client.notify("textDocument/didChange", {
    "textDocument": {"uri": doc, "version": 2},
    "contentChanges": [{"range": {"start": {"line": 500, "character": 0},
                                  "end": {"line": 501, "character": 0}},
                        "text": "x"}]})

# Binary bytes (NUL, control characters, U+FFFD) as a document.
binary = "".join(chr(c) for c in range(0, 256)) * 4
bin_doc = client.open(workdir / "binary.tile", binary)
diags = client.diagnostics(bin_doc, 1)
print("binary file:", count(diags, 1), "error(s):", diags[0]["message"][:60])

# A kernel that would loop forever if run: the server never runs kernels.
forever = ("@launch(32)\nkernel spin(O: tensor<f32>[32]) {\n"
           "  var i = 0\n  while i < 1 {\n    i = i * 1\n  }\n"
           "  O[0 :+ 32] = 0.0\n}\n")
spin = client.open(workdir / "spin.tile", forever)
print("endless kernel:", count(client.diagnostics(spin, 1), 1), "errors")

# A 10 MB file: 1000 kernels (the placement passes stop at the time limit
# of 300 ms; the front end runs to its end) after 9.7 MB of comments.
kernel = squares.replace("squares", "k%d")
n = 1000
text = "// " + "x" * 1021 + "\n"
text = text * (9700 * 1024 // len(text)) + "".join(kernel % i + "\n" for i in range(n))
big = client.open(workdir / "big.tile", text)
diags = client.diagnostics(big, 1, timeout=120)
print("%.1f MB file of %d kernels:" % (len(text) / 2**20, n), count(diags, 1),
      "errors;", [d["message"] for d in diags if d["severity"] == 3][:1])
line, char = position_of(text, "acc += x", occurrence=n - 1)
reply = client.request("textDocument/definition", client.at(big, line, char))
print("definition in the last kernel at line",
      reply["result"][0]["range"]["start"]["line"] + 1, "of", text.count("\n"))

# Requests about a closed document, then the server still serves.
client.notify("textDocument/didClose", {"textDocument": {"uri": big}})
print("hover after close:", error_of(client.request(
    "textDocument/hover", client.at(big, 0, 0))))
line, char = position_of(squares, "acc += x")
hover = client.request("textDocument/hover", client.at(doc, line, char))
print("still serving:", "registers" in hover["result"]["contents"]["value"])
print("shutdown:", client.request("shutdown"))
print("after shutdown:", error_of(client.request(
    "textDocument/hover", client.at(doc, line, char))))
client.notify("exit")
print("exit code", client.proc.wait(timeout=30))
