"""A small LSP client over stdio, as an editor drives a server: JSON-RPC
messages with Content-Length headers, requests matched to their replies by
id, notifications kept in arrival order. For the tests of tile-lsp-server,
tile-mlir-lsp-server, the fuzzer's LSP mode and bench/lsp_latency.py."""

import json
import os
import pathlib
import select
import subprocess
import time


class ServerDied(Exception):
    pass


class Client:
    def __init__(self, argv, cwd=None, env=None):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.next_id = 0
        self.buffer = b""
        self.replies = {}
        self.notifications = []
        self.stderr_text = ""

    # -- transport ----------------------------------------------------------
    def send(self, message):
        body = json.dumps(message).encode()
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise ServerDied(self.stderr())

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _read_message(self, deadline):
        while True:
            header_end = self.buffer.find(b"\r\n\r\n")
            if header_end >= 0:
                length = None
                for line in self.buffer[:header_end].split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                start = header_end + 4
                if length is not None and len(self.buffer) >= start + length:
                    body = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return json.loads(body)
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise ServerDied(self.stderr())
            self.buffer += chunk

    def _pump(self, deadline):
        message = self._read_message(deadline)
        if message is None:
            return False
        if "id" in message and "method" not in message:
            self.replies[message["id"]] = message
        else:
            self.notifications.append(message)
        return True

    def stderr(self):
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "(server still running)"
        return self.proc.stderr.read().decode(errors="replace")

    # -- JSON-RPC -----------------------------------------------------------
    def request_async(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.next_id

    def wait_reply(self, id, timeout=30):
        deadline = time.monotonic() + timeout
        while id not in self.replies:
            if not self._pump(deadline):
                raise TimeoutError("no reply to request %d" % id)
        return self.replies.pop(id)

    def request(self, method, params=None, timeout=30):
        """The whole reply: {"result": ...} or {"error": ...}."""
        return self.wait_reply(self.request_async(method, params), timeout)

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def wait_notification(self, method, predicate=lambda params: True,
                          timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for i, message in enumerate(self.notifications):
                if message.get("method") == method and predicate(message.get("params")):
                    del self.notifications[i]
                    return message["params"]
            if not self._pump(deadline):
                raise TimeoutError("no %s notification" % method)

    # -- LSP ----------------------------------------------------------------
    def initialize(self, options=None, root=None):
        params = {"processId": os.getpid(), "capabilities": {},
                  "rootUri": uri(root) if root else None}
        if options is not None:
            params["initializationOptions"] = options
        reply = self.request("initialize", params)
        self.notify("initialized", {})
        return reply

    def open(self, path, text=None, version=1, language="tile"):
        path = pathlib.Path(path).resolve()
        if text is None:
            text = path.read_text()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(path), "languageId": language, "version": version,
            "text": text}})
        return uri(path)

    def change(self, doc, version, text, range=None):
        change = {"text": text}
        if range is not None:
            change["range"] = range
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": doc, "version": version},
            "contentChanges": [change]})

    def diagnostics(self, doc, version=None, timeout=30):
        return self.wait_notification(
            "textDocument/publishDiagnostics",
            lambda p: p["uri"] == doc and (version is None or p.get("version") == version),
            timeout)["diagnostics"]

    def at(self, doc, line, character):
        return {"textDocument": {"uri": doc},
                "position": {"line": line, "character": character}}

    def close(self):
        if self.proc.poll() is None:
            try:
                self.request("shutdown", timeout=10)
                self.notify("exit")
            except (ServerDied, TimeoutError, BrokenPipeError):
                pass
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.stderr_text = self.proc.stderr.read().decode(errors="replace")
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()
        return code


def uri(path):
    return pathlib.Path(path).resolve().as_uri()


def position_of(text, needle, occurrence=0, offset=0):
    """The LSP position of the `occurrence`-th `needle` in `text`, plus
    `offset` characters (ASCII text)."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    index += offset
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1)


def show_diagnostics(diagnostics):
    """Prints a publishDiagnostics list, one line each, for FileCheck."""
    print("diagnostics", len(diagnostics))
    for d in diagnostics:
        start = d["range"]["start"]
        print("  severity %d at %d:%d: %s" % (
            d["severity"], start["line"] + 1, start["character"] + 1,
            d["message"]))
