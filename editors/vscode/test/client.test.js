// Drives tile-lsp-server through client.js, the extension's connection:
// node test/client.test.js SERVER FILE.tile prints the diagnostics, the
// hover on the first `acc +=` and the inlay hints, for FileCheck
// (test/LSP/vscode.test).
'use strict';

const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { Connection } = require('../client');

async function main() {
  const [server, file] = process.argv.slice(2);
  const text = fs.readFileSync(file, 'utf8');
  const uri = pathToFileURL(path.resolve(file)).toString();
  const connection = new Connection(server);
  const diagnostics = new Promise((resolve) =>
    connection.onNotification('textDocument/publishDiagnostics', resolve));
  const init = await connection.request('initialize', { processId: process.pid, capabilities: {} });
  console.log('inlay hints:', init.capabilities.inlayHintProvider);
  connection.notify('initialized', {});
  connection.notify('textDocument/didOpen', {
    textDocument: { uri, languageId: 'tile', version: 1, text } });
  const published = await diagnostics;
  console.log('diagnostics:', published.diagnostics.filter((d) => d.severity <= 2).length, 'errors and warnings');
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('acc +='));
  const hover = await connection.request('textDocument/hover', {
    textDocument: { uri }, position: { line, character: lines[line].indexOf('acc') } });
  console.log('hover:', hover.contents.value.split('\n\n').slice(0, 2).join(' / '));
  const hints = await connection.request('textDocument/inlayHint', {
    textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } } });
  for (const hint of hints) console.log(`hint ${hint.position.line + 1}: ${hint.label}`);
  try {
    await connection.request('textDocument/hover', { textDocument: { uri: 'file:///none.tile' }, position: { line: 0, character: 0 } });
  } catch (error) {
    console.log('unknown document:', error.code);
  }
  console.log('exit:', await connection.stop());
}

main().catch((error) => { console.error(error); process.exit(1); });
