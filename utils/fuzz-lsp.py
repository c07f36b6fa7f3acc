#!/usr/bin/env python3
"""Seeded mutation fuzzing of the language servers, as an editor uses them.

Takes utils/fuzz.py's mutants (the repository's kernels, mutated the same
way: iteration I of seed S is the same mutant) and feeds each, as the new
text of one open document (textDocument/didChange), to one long-running
tile-lsp-server (.tile mutants) or tile-mlir-lsp-server (.mlir mutants),
then asks for its diagnostics, a hover, inlay hints, a definition, the
references and the document symbols at a position the seed picks.

A finding is a server that dies (its exit code and stderr are kept), a
request it leaves unanswered for --timeout seconds, a reply that is neither
a result nor an error, a diagnostic saying the compiler crashed (the server
survives that, but it is a bug), or crash text on its stderr. Each is saved to
OUT/NNN-lsp-<kind>.{tile,mlir} with the iteration; the server is restarted
and the run goes on.

usage: fuzz-lsp.py [--seed N] [--iterations N] [--start I] [--bin DIR]
                   [--out DIR] [--timeout S]
Exit code: 0 no findings, 1 findings.
"""

import argparse
import importlib.util
import pathlib
import random
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "LSP" / "Inputs"))
from lspclient import Client, ServerDied  # noqa: E402

spec = importlib.util.spec_from_file_location("fuzz", ROOT / "utils" / "fuzz.py")
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)

SERVERS = {".tile": "tile-lsp-server", ".mlir": "tile-mlir-lsp-server"}


class Session:
    """One server with one open document whose text the mutants replace."""

    def __init__(self, binary, suffix, workdir):
        self.client = Client([binary])
        self.client.initialize()
        self.path = workdir / ("mutant" + suffix)
        self.doc = self.client.open(self.path, "", language=suffix[1:])
        self.version = 1

    def feed(self, text, rng, timeout):
        """Runs one mutant; returns a finding's kind and detail, or None."""
        self.version += 1
        self.client.change(self.doc, self.version, text)
        lines = text.split("\n")
        line = rng.randrange(len(lines))
        char = rng.randrange(len(lines[line]) + 1)
        at = self.client.at(self.doc, line, char)
        requests = [
            ("textDocument/hover", at),
            ("textDocument/definition", at),
            ("textDocument/references", dict(at, context={"includeDeclaration": True})),
            ("textDocument/documentSymbol", {"textDocument": {"uri": self.doc}}),
        ]
        if self.path.suffix == ".tile":
            requests.append(("textDocument/inlayHint", {
                "textDocument": {"uri": self.doc},
                "range": {"start": {"line": 0, "character": 0},
                          "end": {"line": len(lines), "character": 0}}}))
        try:
            # MLIR's own server (MlirLspServerMain) at times tags an edit's
            # diagnostics with an older version (seed 107, iteration 248:
            # version 1): for it, the next publish is the edit's.
            version = self.version if self.path.suffix == ".tile" else None
            for diag in self.client.diagnostics(self.doc, version, timeout):
                if "compiler crashed" in diag["message"]:
                    return "compiler-crash", diag["message"]
            for method, params in requests:
                reply = self.client.request(method, params, timeout)
                if "result" not in reply and "error" not in reply:
                    return "bad-reply", "%s: %r" % (method, reply)
        except ServerDied as died:
            return "died", "exit code %s: %s" % (self.client.proc.returncode, died)
        except TimeoutError as late:
            return "timeout", str(late)
        return None

    def close(self):
        return self.client.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--bin", default=str(ROOT / "build" / "bin"))
    parser.add_argument("--out", default="fuzz-lsp-findings")
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args()

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    corpus = fuzz.load_corpus()
    sessions = {}
    findings = 0
    requests = 0
    start = time.monotonic()
    last = args.start + args.iterations - 1
    for iteration in range(args.start, args.start + args.iterations):
        suffix, text = fuzz.mutant(args.seed, iteration, corpus)
        if suffix not in sessions:
            sessions[suffix] = Session(pathlib.Path(args.bin) / SERVERS[suffix],
                                       suffix, out.resolve())
        rng = random.Random("lsp:%d:%d" % (args.seed, iteration))
        finding = sessions[suffix].feed(text, rng, args.timeout)
        requests += 6
        if finding:
            findings += 1
            kind, detail = finding
            stem = out / ("%03d-lsp-%s" % (findings, kind))
            stem.with_suffix(suffix).write_text(text)
            stem.with_suffix(".txt").write_text(
                "seed %d iteration %d\n%s\n" % (args.seed, iteration, detail))
            print("iteration %d: %s %s: %s" % (iteration, SERVERS[suffix], kind,
                                               detail[:300]), flush=True)
            sessions.pop(suffix).client.proc.kill()
    for suffix, session in sessions.items():
        code = session.close()
        if code != 0 or fuzz.CRASH_TEXT.search(session.client.stderr_text):
            findings += 1
            print("%s: exit code %d after shutdown: %s" % (
                SERVERS[suffix], code, session.client.stderr_text[-300:]),
                flush=True)
    print("%d mutants (iterations %d..%d of seed %d), %d requests in %d s, "
          "%d findings" % (args.iterations, args.start, last, args.seed,
                           requests, time.monotonic() - start, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
