#!/usr/bin/env python3
"""Latency and memory of tile-lsp-server, as an editor sees them
(docs/performance.md, "Language server").

For each example and for a file of about 2,000 lines of kernels (the
examples' kernels again and again, renamed), opens the document, then makes
--edits edits (a comment line at the end that changes each time) and times
each from its didChange to the publishDiagnostics of that version: the
debounce (50 ms by default), the front end and the placement passes.
Then times --edits hovers on a var of the open document, and the server's
resident memory (VmRSS) after 10 and after --memory-edits edits of
examples/squares.tile.

usage: lsp_latency.py [--bin DIR] [--edits N] [--memory-edits N]
"""

import argparse
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "LSP" / "Inputs"))
from lspclient import Client, position_of  # noqa: E402


def rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def edit_latencies(client, path, text, edits):
    doc = client.open(path, text)
    diags = client.diagnostics(doc, 1, timeout=120)
    errors = sum(1 for d in diags if d["severity"] == 1)
    times = []
    for i in range(edits):
        version = i + 2
        start = time.monotonic()
        client.change(doc, version, text + "// edit %d\n" % i)
        client.diagnostics(doc, version, timeout=120)
        times.append((time.monotonic() - start) * 1000)
    return doc, times, errors


def big_file(lines):
    kernels = []
    for path in sorted(ROOT.glob("examples/*.tile")):
        text = path.read_text()
        if "\nconst " in text or text.startswith("const "):
            continue  # file-level consts would be redefined
        kernels.append(text)
    out, n = "", 0
    while out.count("\n") < lines:
        for text in kernels:
            renamed = text
            for line in text.split("\n"):
                if line.startswith("kernel "):
                    name = line.split()[1].split("(")[0]
                    renamed = renamed.replace("kernel %s(" % name,
                                              "kernel %s_%d(" % (name, n))
            out += renamed + "\n"
            n += 1
            if out.count("\n") >= lines:
                break
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "build" / "bin"))
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--memory-edits", type=int, default=1000)
    args = parser.parse_args()
    server = str(pathlib.Path(args.bin) / "tile-lsp-server")
    client = Client([server])
    client.initialize()
    print("| file | lines | errors | median ms | max ms |")
    print("| --- | --- | --- | --- | --- |")
    files = [(p.name, p, p.read_text()) for p in sorted(ROOT.glob("examples/*.tile"))]
    big = big_file(2000)
    files.append(("2,000 lines of kernels", ROOT / "build" / "lsp-bench-2000.tile", big))
    for name, path, text in files:
        doc, times, errors = edit_latencies(client, path, text, args.edits)
        print("| %s | %d | %d | %.0f | %.0f |" % (
            name, text.count("\n"), errors, statistics.median(times), max(times)))
        client.notify("textDocument/didClose", {"textDocument": {"uri": doc}})

    squares = (ROOT / "examples" / "squares.tile").read_text()
    doc, _, _ = edit_latencies(client, ROOT / "examples" / "squares.tile", squares, 0)
    line, char = position_of(squares, "acc += x")
    times = []
    for _ in range(args.edits):
        start = time.monotonic()
        client.request("textDocument/hover", client.at(doc, line, char))
        times.append((time.monotonic() - start) * 1000)
    print("hover on squares' acc: median %.2f ms, max %.2f ms" % (
        statistics.median(times), max(times)))

    memory = {}
    for i in range(args.memory_edits):
        version = 1000 + i
        client.change(doc, version, squares + "// edit %d\n" % i)
        client.diagnostics(doc, version, timeout=120)
        if i + 1 in (10, 100, args.memory_edits):
            memory[i + 1] = rss_kib(client.proc.pid)
    print("VmRSS after " + ", ".join("%d edits %.1f MiB" % (n, kib / 1024)
                                     for n, kib in sorted(memory.items())))
    client.close()


if __name__ == "__main__":
    main()
