//===- Server.cpp - the .tile language server -----------------------------===//
//
// The reading thread (JSONTransport::run) keeps the documents' text and
// answers requests; one worker thread analyses. A request about a version
// not yet analysed waits in its document's queue and is answered by the
// worker when that version (or a newer one) is done: nothing blocks the
// reading thread, so the next edit is read, and cancels the analysis in
// progress, while the compiler works. A crash of the compiler on some input
// is caught (CrashRecoveryContext) and reported as a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "Server.h"
#include "Features.h"
#include "tile/InitAllTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lsp;
namespace proto = llvm::lsp;
namespace json = llvm::json;
using Clock = std::chrono::steady_clock;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// Sets option `key` from `value`; an error message if it cannot.
static std::optional<std::string> setOption(llvm::StringRef key,
                                            const json::Value &value,
                                            ServerOptions &options) {
  auto milliseconds = [&](std::chrono::milliseconds &field,
                          int64_t most) -> std::optional<std::string> {
    std::optional<int64_t> number = value.getAsInteger();
    if (!number || *number < 0 || *number > most)
      return llvm::formatv("'{0}' is a number of milliseconds from 0 to {1}",
                           key, most)
          .str();
    field = std::chrono::milliseconds(*number);
    return std::nullopt;
  };
  if (key == "chip") {
    std::optional<llvm::StringRef> chip = value.getAsString();
    if (!chip)
      return std::string("'chip' is a string, e.g. \"sm_90\"");
    options.analysis.chip = chip->str();
    return std::nullopt;
  }
  if (key == "time_limit_ms")
    return milliseconds(options.analysis.timeLimit, 600000);
  if (key == "debounce_ms")
    return milliseconds(options.debounce, 10000);
  if (key == "remark_hints") {
    std::optional<bool> flag = value.getAsBoolean();
    if (!flag)
      return std::string("'remark_hints' is true or false");
    options.remarkHints = *flag;
    return std::nullopt;
  }
  return llvm::formatv("unknown option '{0}' (chip, time_limit_ms, "
                       "remark_hints; debounce_ms in initializationOptions)",
                       key)
      .str();
}

std::vector<std::string>
mlir::tile::lsp::applyTileToml(llvm::StringRef path, llvm::StringRef text,
                               ServerOptions &options) {
  std::vector<std::string> errors;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (auto [number, raw] : llvm::enumerate(lines)) {
    llvm::StringRef line = raw.trim();
    // A comment, a blank line or a table header ([lsp]): nothing to set.
    if (line.empty() || line.starts_with("#") || line.starts_with("["))
      continue;
    auto [key, rest] = line.split('=');
    key = key.trim();
    rest = rest.trim();
    if (size_t hash = rest.find(" #"); hash != llvm::StringRef::npos)
      rest = rest.take_front(hash).rtrim();
    json::Value value = nullptr;
    int64_t integer;
    if (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"')
      value = rest.drop_front().drop_back().str();
    else if (rest == "true" || rest == "false")
      value = rest == "true";
    else if (!rest.getAsInteger(10, integer))
      value = integer;
    std::optional<std::string> error;
    if (value.kind() == json::Value::Null)
      error = "expected key = \"string\", number, true or false";
    else if (key == "debounce_ms")
      error = "debounce_ms is the editor's: initializationOptions";
    else
      error = setOption(key, value, options);
    if (error)
      errors.push_back(llvm::formatv("{0}:{1}: {2}", path, number + 1, *error));
  }
  return errors;
}

//===----------------------------------------------------------------------===//
// The server
//===----------------------------------------------------------------------===//

namespace mlir::tile::lsp {
namespace {
/// `initialize`'s parameters this server reads.
struct InitializeRequest {
  json::Value options = nullptr;
};
bool fromJSON(const json::Value &value, InitializeRequest &result,
              json::Path path) {
  json::ObjectMapper mapper(value, path);
  if (!mapper)
    return false;
  if (const json::Object *object = value.getAsObject())
    if (const json::Value *options = object->get("initializationOptions"))
      result.options = *options;
  return true;
}

using Answer = llvm::unique_function<void(std::shared_ptr<const AnalyzedText>)>;

struct Document {
  proto::URIForFile uri;
  int64_t version = 0;
  std::string text;
  bool dirty = true;
  Clock::time_point changed;
  std::shared_ptr<const AnalyzedText> analysed;
  /// Requests about `version`s not yet analysed.
  std::vector<std::pair<int64_t, Answer>> waiting;
};

class Server {
public:
  Server(proto::MessageHandler &handler, const ServerOptions &defaults)
      : defaults(defaults) {
    registerAllTileDialects(registry);
    publishDiagnostics =
        handler.outgoingNotification<proto::PublishDiagnosticsParams>(
            "textDocument/publishDiagnostics");
    handler.method("initialize", this, &Server::onInitialize);
    handler.notification("initialized", this, &Server::onInitialized);
    handler.method("shutdown", this, &Server::onShutdown);
    handler.notification("textDocument/didOpen", this, &Server::onOpen);
    handler.notification("textDocument/didChange", this, &Server::onChange);
    handler.notification("textDocument/didClose", this, &Server::onClose);
    handler.method("textDocument/hover", this, &Server::onHover);
    handler.method("textDocument/inlayHint", this, &Server::onInlayHints);
    handler.method("textDocument/definition", this, &Server::onDefinition);
    handler.method("textDocument/references", this, &Server::onReferences);
    handler.method("textDocument/documentSymbol", this,
                   &Server::onDocumentSymbols);
    handler.method("textDocument/completion", this, &Server::onCompletion);
    worker = std::thread([this] { work(); });
  }
  ~Server() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    worker.join();
  }

  bool shutdownReceived = false;

private:
  void onInitialize(const InitializeRequest &request,
                    proto::Callback<json::Value> reply);
  void onInitialized(const proto::InitializedParams &) {}
  void onShutdown(const proto::NoParams &,
                  proto::Callback<std::nullptr_t> reply) {
    shutdownReceived = true;
    reply(nullptr);
  }
  void onOpen(const proto::DidOpenTextDocumentParams &params);
  void onChange(const proto::DidChangeTextDocumentParams &params);
  void onClose(const proto::DidCloseTextDocumentParams &params);
  void onHover(const proto::TextDocumentPositionParams &params,
               proto::Callback<std::optional<proto::Hover>> reply) {
    answer(params.textDocument.uri, std::move(reply),
           [pos = params.position](const AnalyzedText &doc) {
             return buildHover(doc, pos);
           });
  }
  void onInlayHints(const proto::InlayHintsParams &params,
                    proto::Callback<std::vector<proto::InlayHint>> reply) {
    answer(params.textDocument.uri, std::move(reply),
           [range = params.range](const AnalyzedText &doc) {
             return buildInlayHints(doc, range);
           });
  }
  void onDefinition(const proto::TextDocumentPositionParams &params,
                    proto::Callback<std::vector<proto::Location>> reply) {
    answer(params.textDocument.uri, std::move(reply),
           [uri = params.textDocument.uri,
            pos = params.position](const AnalyzedText &doc) {
             return findDefinition(doc, uri, pos);
           });
  }
  void onReferences(const proto::ReferenceParams &params,
                    proto::Callback<std::vector<proto::Location>> reply) {
    answer(params.textDocument.uri, std::move(reply),
           [uri = params.textDocument.uri, pos = params.position,
            all = params.context.includeDeclaration](const AnalyzedText &doc) {
             return findReferences(doc, uri, pos, all);
           });
  }
  void
  onDocumentSymbols(const proto::DocumentSymbolParams &params,
                    proto::Callback<std::vector<proto::DocumentSymbol>> reply) {
    answer(params.textDocument.uri, std::move(reply),
           [](const AnalyzedText &doc) { return buildDocumentSymbols(doc); });
  }
  void onCompletion(const proto::CompletionParams &params,
                    proto::Callback<proto::CompletionList> reply);

  /// Replies to a request about `uri` with `build` of the analysis of the
  /// document's current version: now if it is done, else when it is.
  template <typename T, typename Build>
  void answer(const proto::URIForFile &uri, proto::Callback<T> reply,
              Build build);
  /// Whether requests may be served; replies with the error if not.
  template <typename T> bool checkState(proto::Callback<T> &reply);

  ServerOptions optionsFor(const proto::URIForFile &uri,
                           std::vector<std::string> &errors);
  void work();
  /// The analysis of `text`, null when a newer edit cancelled it;
  /// `remarkHints` is the document's option.
  std::shared_ptr<const AnalyzedText>
  analyse(const proto::URIForFile &uri, int64_t version,
          const std::string &text, KernelCache &cache, bool &remarkHints);

  ServerOptions defaults;
  bool initialized = false;
  DialectRegistry registry;
  proto::OutgoingNotification<proto::PublishDiagnosticsParams>
      publishDiagnostics;

  std::mutex mutex;
  std::condition_variable wake;
  std::map<std::string, Document> documents;
  bool stopping = false;
  std::thread worker;
};
} // namespace
} // namespace mlir::tile::lsp

void Server::onInitialize(const InitializeRequest &request,
                          proto::Callback<json::Value> reply) {
  if (initialized)
    return reply(llvm::make_error<proto::LSPError>(
        "the server is initialized already", proto::ErrorCode::InvalidRequest));
  if (const json::Object *options = request.options.getAsObject()) {
    std::lock_guard<std::mutex> lock(mutex); // the worker reads defaults
    for (const auto &[key, value] : *options)
      if (std::optional<std::string> error = setOption(key, value, defaults))
        proto::Logger::error("initializationOptions: {0}", *error);
  }
  initialized = true;
  json::Object capabilities{
      {"textDocumentSync",
       json::Object{{"openClose", true},
                    {"change", static_cast<int>(
                                   proto::TextDocumentSyncKind::Incremental)},
                    {"save", true}}},
      {"hoverProvider", true},
      {"inlayHintProvider", true},
      {"definitionProvider", true},
      {"referencesProvider", true},
      {"documentSymbolProvider", true},
      {"completionProvider",
       json::Object{{"triggerCharacters", json::Array{".", "@"}}}},
  };
  reply(json::Object{{"capabilities", std::move(capabilities)},
                     {"serverInfo", json::Object{{"name", "tile-lsp-server"},
                                                 {"version", "0.1"}}}});
}

template <typename T> bool Server::checkState(proto::Callback<T> &reply) {
  if (!initialized) {
    reply(llvm::make_error<proto::LSPError>(
        "the server is not initialized",
        proto::ErrorCode::ServerNotInitialized));
    return false;
  }
  if (shutdownReceived) {
    reply(llvm::make_error<proto::LSPError>("the server is shut down",
                                            proto::ErrorCode::InvalidRequest));
    return false;
  }
  return true;
}

template <typename T, typename Build>
void Server::answer(const proto::URIForFile &uri, proto::Callback<T> reply,
                    Build build) {
  if (!checkState(reply))
    return;
  std::unique_lock<std::mutex> lock(mutex);
  auto it = documents.find(uri.uri().str());
  if (it == documents.end()) {
    lock.unlock();
    return reply(llvm::make_error<proto::LSPError>(
        "unknown document: " + uri.uri().str(),
        proto::ErrorCode::InvalidParams));
  }
  Document &doc = it->second;
  if (doc.analysed && doc.analysed->version == doc.version) {
    std::shared_ptr<const AnalyzedText> analysed = doc.analysed;
    lock.unlock();
    return reply(build(*analysed));
  }
  doc.waiting.emplace_back(
      doc.version, [reply = std::move(reply), build = std::move(build)](
                       std::shared_ptr<const AnalyzedText> analysed) mutable {
        if (!analysed)
          return reply(llvm::make_error<proto::LSPError>(
              "the document was closed", proto::ErrorCode::ContentModified));
        reply(build(*analysed));
      });
}

void Server::onCompletion(const proto::CompletionParams &params,
                          proto::Callback<proto::CompletionList> reply) {
  if (!checkState(reply))
    return;
  std::shared_ptr<const AnalyzedText> analysed;
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = documents.find(params.textDocument.uri.uri().str());
    if (it != documents.end()) {
      analysed = it->second.analysed;
      text = it->second.text;
    }
  }
  // The text now, with the names of the last analysis: completing must not
  // wait for the compiler.
  reply(buildCompletions(analysed.get(), text, params.position));
}

void Server::onOpen(const proto::DidOpenTextDocumentParams &params) {
  if (!initialized || shutdownReceived) {
    proto::Logger::error("didOpen before initialize or after shutdown");
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    Document &doc = documents[params.textDocument.uri.uri().str()];
    doc.uri = params.textDocument.uri;
    doc.version = params.textDocument.version;
    doc.text = params.textDocument.text;
    doc.dirty = true;
    doc.changed = Clock::now();
  }
  wake.notify_all();
}

void Server::onChange(const proto::DidChangeTextDocumentParams &params) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = documents.find(params.textDocument.uri.uri().str());
    if (it == documents.end()) {
      proto::Logger::error("didChange of a document not open: {0}",
                           params.textDocument.uri.uri());
      return;
    }
    Document &doc = it->second;
    if (failed(proto::TextDocumentContentChangeEvent::applyTo(
            params.contentChanges, doc.text))) {
      proto::Logger::error("didChange of {0}: a change outside the text",
                           params.textDocument.uri.uri());
      return;
    }
    doc.version = params.textDocument.version;
    doc.dirty = true;
    doc.changed = Clock::now();
  }
  wake.notify_all();
}

void Server::onClose(const proto::DidCloseTextDocumentParams &params) {
  std::vector<std::pair<int64_t, Answer>> waiting;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = documents.find(params.textDocument.uri.uri().str());
    if (it == documents.end())
      return;
    waiting = std::move(it->second.waiting);
    documents.erase(it);
  }
  for (auto &[version, reply] : waiting)
    reply(nullptr);
  publishDiagnostics(
      proto::PublishDiagnosticsParams(params.textDocument.uri, 0));
}

ServerOptions Server::optionsFor(const proto::URIForFile &uri,
                                 std::vector<std::string> &errors) {
  ServerOptions options = defaults;
  // The nearest tile.toml up from the document's directory.
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(uri.file()));
  while (!dir.empty()) {
    llvm::SmallString<256> toml(dir);
    llvm::sys::path::append(toml, "tile.toml");
    if (auto file = llvm::MemoryBuffer::getFile(toml, /*IsText=*/true)) {
      errors = applyTileToml(toml, (*file)->getBuffer(), options);
      break;
    }
    llvm::StringRef parent = llvm::sys::path::parent_path(dir);
    if (parent == dir)
      break;
    dir = parent;
  }
  return options;
}

std::shared_ptr<const AnalyzedText>
Server::analyse(const proto::URIForFile &uri, int64_t version,
                const std::string &text, KernelCache &cache,
                bool &remarkHints) {
  std::vector<std::string> errors;
  ServerOptions options = optionsFor(uri, errors);
  remarkHints = options.remarkHints;
  auto isStale = [&] {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = documents.find(uri.uri().str());
    return stopping || it == documents.end() || it->second.version != version;
  };
  Analysis analysis;
  llvm::CrashRecoveryContext crashes;
  if (!crashes.RunSafely([&] {
        analysis = analyzeTileSource(uri.file(), text, options.analysis,
                                     registry, isStale, &cache);
      })) {
    analysis = Analysis();
    analysis.findings.push_back(
        {Finding::Severity::Error,
         SourcePos{},
         "the compiler crashed analysing this text (a bug in tile: please "
         "report it with this file)",
         {}});
  }
  if (analysis.cancelled)
    return nullptr;
  for (const std::string &error : errors)
    analysis.findings.push_back(
        {Finding::Severity::Warning, SourcePos{}, error, {}});
  return std::make_shared<const AnalyzedText>(version, text,
                                              std::move(analysis));
}

void Server::work() {
  // Each open document's kernel results, which only this thread touches.
  std::map<std::string, KernelCache> caches;
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    for (auto it = caches.begin(); it != caches.end();)
      it = documents.count(it->first) ? std::next(it) : caches.erase(it);
    // The document edited longest ago among those with news.
    Document *next = nullptr;
    for (auto &[key, doc] : documents)
      if (doc.dirty && (!next || doc.changed < next->changed))
        next = &doc;
    if (stopping)
      return;
    if (!next) {
      wake.wait(lock);
      continue;
    }
    Clock::time_point due = next->changed + defaults.debounce;
    if (Clock::now() < due) {
      wake.wait_until(lock, due);
      continue;
    }
    next->dirty = false;
    proto::URIForFile uri = next->uri;
    int64_t version = next->version;
    std::string text = next->text;
    lock.unlock();
    bool remarkHints = true;
    std::shared_ptr<const AnalyzedText> analysed =
        analyse(uri, version, text, caches[uri.uri().str()], remarkHints);
    lock.lock();
    auto it = documents.find(uri.uri().str());
    if (!analysed || it == documents.end())
      continue;
    Document &doc = it->second;
    doc.analysed = analysed;
    std::vector<Answer> ready;
    llvm::erase_if(doc.waiting, [&](std::pair<int64_t, Answer> &entry) {
      if (entry.first > version)
        return false;
      ready.push_back(std::move(entry.second));
      return true;
    });
    lock.unlock();
    for (Answer &reply : ready)
      reply(analysed);
    proto::PublishDiagnosticsParams diagnostics(uri, version);
    diagnostics.diagnostics = buildDiagnostics(*analysed, uri, remarkHints);
    publishDiagnostics(diagnostics);
    lock.lock();
  }
}

bool mlir::tile::lsp::runTileLSPServer(proto::JSONTransport &transport,
                                       const ServerOptions &defaults) {
  llvm::CrashRecoveryContext::Enable();
  proto::MessageHandler handler(transport);
  Server server(handler, defaults);
  if (llvm::Error error = transport.run(handler)) {
    proto::Logger::error("transport error: {0}", error);
    llvm::consumeError(std::move(error));
    return false;
  }
  return server.shutdownReceived;
}
