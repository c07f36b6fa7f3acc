// The tile extension: the .tile grammar (syntaxes/), and two language
// servers wired to VS Code through client.js: tile-lsp-server for .tile and
// tile-mlir-lsp-server for .mlir (docs/editors.md). Each server is started
// on the first document of its language and gets the whole text of every
// edit; its answers become VS Code's diagnostics, hovers, inlay hints,
// definitions, references, symbols and completions.
'use strict';

const vscode = require('vscode');
const { Connection } = require('./client');

const servers = new Map(); // language id -> { connection, ready }

function toRange(range) {
  return new vscode.Range(range.start.line, range.start.character,
                          range.end.line, range.end.character);
}
function toPosition(position) {
  return { line: position.line, character: position.character };
}
function toLocation(location) {
  return new vscode.Location(vscode.Uri.parse(location.uri), toRange(location.range));
}
function toSymbol(symbol) {
  const result = new vscode.DocumentSymbol(symbol.name, symbol.detail || '',
    symbol.kind - 1, toRange(symbol.range), toRange(symbol.selectionRange));
  result.children = (symbol.children || []).map(toSymbol);
  return result;
}
function at(document, position) {
  return { textDocument: { uri: document.uri.toString() }, position: toPosition(position) };
}

function serverCommand(language) {
  const config = vscode.workspace.getConfiguration('tile');
  const key = language === 'tile' ? 'server.path' : 'mlirServer.path';
  const fallback = language === 'tile' ? 'tile-lsp-server' : 'tile-mlir-lsp-server';
  return config.get(key) || fallback;
}

function start(language, diagnostics, output) {
  if (servers.has(language)) return servers.get(language);
  const config = vscode.workspace.getConfiguration('tile');
  const connection = new Connection(serverCommand(language));
  connection.process.on('error', (error) =>
    output.appendLine(`${language}: cannot start ${serverCommand(language)}: ${error.message}`));
  connection.exited.then((code) => {
    output.appendLine(`${language} server exited (${code}): ${connection.stderr}`);
    servers.delete(language);
  });
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    const uri = vscode.Uri.parse(params.uri);
    diagnostics.set(uri, params.diagnostics.map((d) => {
      const diagnostic = new vscode.Diagnostic(toRange(d.range), d.message, (d.severity || 1) - 1);
      diagnostic.source = d.source;
      diagnostic.relatedInformation = (d.relatedInformation || []).map((r) =>
        new vscode.DiagnosticRelatedInformation(toLocation(r.location), r.message));
      return diagnostic;
    }));
  });
  const options = language === 'tile' ? {
    chip: config.get('chip'),
    time_limit_ms: config.get('timeLimitMs'),
    remark_hints: config.get('remarkHints'),
  } : undefined;
  const ready = connection.request('initialize', {
    processId: process.pid,
    rootUri: vscode.workspace.workspaceFolders ? vscode.workspace.workspaceFolders[0].uri.toString() : null,
    capabilities: {},
    initializationOptions: options,
  }).then(() => connection.notify('initialized', {}));
  const server = { connection, ready };
  servers.set(language, server);
  return server;
}

function activate(context) {
  const output = vscode.window.createOutputChannel('tile');
  const diagnostics = vscode.languages.createDiagnosticCollection('tile');
  context.subscriptions.push(output, diagnostics);
  const languages = ['tile'];
  if (vscode.workspace.getConfiguration('tile').get('mlirServer.enabled')) languages.push('mlir');
  const served = (document) => languages.includes(document.languageId);

  // Sends `method` once the document's server is up.
  const send = async (document, method, params) => {
    const server = start(document.languageId, diagnostics, output);
    await server.ready;
    server.connection.notify(method, params);
  };
  const ask = async (document, method, params) => {
    if (!served(document)) return null;
    const server = start(document.languageId, diagnostics, output);
    await server.ready;
    return server.connection.request(method, params).catch(() => null);
  };
  const open = (document) => served(document) && send(document, 'textDocument/didOpen', {
    textDocument: { uri: document.uri.toString(), languageId: document.languageId,
                    version: document.version, text: document.getText() },
  });
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(open),
    vscode.workspace.onDidChangeTextDocument((event) => served(event.document) &&
      send(event.document, 'textDocument/didChange', {
        textDocument: { uri: event.document.uri.toString(), version: event.document.version },
        contentChanges: [{ text: event.document.getText() }],
      })),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (!served(document)) return;
      diagnostics.delete(document.uri);
      send(document, 'textDocument/didClose', { textDocument: { uri: document.uri.toString() } });
    }));
  vscode.workspace.textDocuments.forEach(open);

  for (const language of languages) {
    const selector = { language };
    context.subscriptions.push(
      vscode.languages.registerHoverProvider(selector, {
        async provideHover(document, position) {
          const hover = await ask(document, 'textDocument/hover', at(document, position));
          if (!hover) return null;
          const contents = hover.contents.value !== undefined ? hover.contents.value : String(hover.contents);
          return new vscode.Hover(new vscode.MarkdownString(contents), hover.range && toRange(hover.range));
        },
      }),
      vscode.languages.registerDefinitionProvider(selector, {
        async provideDefinition(document, position) {
          const locations = await ask(document, 'textDocument/definition', at(document, position));
          return (locations || []).map(toLocation);
        },
      }),
      vscode.languages.registerReferenceProvider(selector, {
        async provideReferences(document, position, context) {
          const locations = await ask(document, 'textDocument/references',
            { ...at(document, position), context: { includeDeclaration: context.includeDeclaration } });
          return (locations || []).map(toLocation);
        },
      }),
      vscode.languages.registerDocumentSymbolProvider(selector, {
        async provideDocumentSymbols(document) {
          const symbols = await ask(document, 'textDocument/documentSymbol',
            { textDocument: { uri: document.uri.toString() } });
          return (symbols || []).map(toSymbol);
        },
      }),
      vscode.languages.registerCompletionItemProvider(selector, {
        async provideCompletionItems(document, position) {
          const list = await ask(document, 'textDocument/completion', at(document, position));
          const items = list ? (Array.isArray(list) ? list : list.items) : [];
          return items.map((item) => {
            const result = new vscode.CompletionItem(item.label, (item.kind || 1) - 1);
            result.detail = item.detail;
            if (item.documentation)
              result.documentation = item.documentation.value || item.documentation;
            if (item.insertText) result.insertText = item.insertText;
            return result;
          });
        },
      }, '.', '@'));
  }
  context.subscriptions.push(vscode.languages.registerInlayHintsProvider({ language: 'tile' }, {
    async provideInlayHints(document, range) {
      const hints = await ask(document, 'textDocument/inlayHint', {
        textDocument: { uri: document.uri.toString() },
        range: { start: toPosition(range.start), end: toPosition(range.end) },
      });
      return (hints || []).map((hint) => {
        const result = new vscode.InlayHint(
          new vscode.Position(hint.position.line, hint.position.character), hint.label, hint.kind);
        result.paddingLeft = !!hint.paddingLeft;
        return result;
      });
    },
  }));
}

async function deactivate() {
  await Promise.all([...servers.values()].map((server) => server.connection.stop()));
}

module.exports = { activate, deactivate };
