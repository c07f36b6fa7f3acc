// A minimal JSON-RPC connection to a language server over stdio (LSP's
// Content-Length framing), with no dependency but node: the extension must
// package and run offline, where vscode-languageclient cannot be fetched.
// test/client.test.js drives tile-lsp-server through it.
'use strict';

const { spawn } = require('child_process');

class Connection {
  constructor(command, args = [], options = {}) {
    this.process = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options });
    this.buffer = Buffer.alloc(0);
    this.nextId = 0;
    this.pending = new Map();
    this.handlers = new Map();
    this.stderr = '';
    this.exited = new Promise((resolve) => this.process.on('exit', (code, signal) => {
      for (const { reject } of this.pending.values())
        reject(new Error(`${command} exited (${signal || code})`));
      this.pending.clear();
      resolve(signal || code);
    }));
    this.process.on('error', (error) => {
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    });
    this.process.stdout.on('data', (chunk) => this.receive(chunk));
    this.process.stderr.on('data', (chunk) => { this.stderr += chunk.toString(); });
  }

  receive(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const match = /content-length:\s*(\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString());
      if (!match) { this.buffer = this.buffer.subarray(headerEnd + 4); continue; }
      const start = headerEnd + 4, length = Number(match[1]);
      if (this.buffer.length < start + length) return;
      const message = JSON.parse(this.buffer.subarray(start, start + length).toString());
      this.buffer = this.buffer.subarray(start + length);
      this.dispatch(message);
    }
  }

  dispatch(message) {
    if ('id' in message && !('method' in message)) {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (message.error) pending.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else pending.resolve(message.result);
      return;
    }
    const handler = this.handlers.get(message.method);
    if ('id' in message) // a request of the server's: answer that we do not serve it
      this.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not supported' } });
    else if (handler)
      handler(message.params);
  }

  send(message) {
    const body = Buffer.from(JSON.stringify(message));
    this.process.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.process.stdin.write(body);
  }

  request(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method, params) { this.send({ jsonrpc: '2.0', method, params }); }

  onNotification(method, handler) { this.handlers.set(method, handler); }

  async stop() {
    try {
      await this.request('shutdown', null);
      this.notify('exit', null);
    } catch (error) { /* already gone */ }
    return this.exited;
  }
}

module.exports = { Connection };
