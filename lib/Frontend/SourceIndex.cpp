//===- SourceIndex.cpp - the names of a .tile source and their uses -------===//
//
// A walk over the parser's syntax tree with the scopes of docs/spec.md
// ("Names and scopes"): one namespace per kernel, a block opens a scope,
// no shadowing, a var's initial value is read before the var exists, and
// file-level consts are visible to the kernels after them. Names the
// emitter would reject (undefined, redeclared) are left unresolved: the
// compiler's diagnostics say why.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/SourceIndex.h"
#include "AST.h"
#include "Parser.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using Kind = SourceSymbol::Kind;

namespace {
class Indexer {
public:
  Indexer(llvm::StringRef buffer, SourceIndex &index)
      : buffer(buffer), index(index) {}

  void indexModule(const Module &module) {
    size_t constsDone = 0;
    for (const Kernel &kernel : module.kernels) {
      for (; constsDone < kernel.fileConstsBefore; ++constsDone)
        indexFileConst(*module.consts[constsDone]);
      indexKernel(kernel);
    }
    for (; constsDone < module.consts.size(); ++constsDone)
      indexFileConst(*module.consts[constsDone]);
  }

private:
  size_t offsetOf(llvm::StringRef name) const {
    return name.data() - buffer.data();
  }
  size_t offsetOf(llvm::SMLoc loc) const {
    return loc.getPointer() - buffer.data();
  }

  unsigned declare(Kind kind, llvm::StringRef name, size_t statement,
                   std::string type = {}) {
    unsigned id = index.symbols.size();
    index.symbols.push_back(
        {kind, name.str(), offsetOf(name), kernel, std::move(type), statement});
    if (!scopes.empty())
      scopes.back().try_emplace(name, id);
    return id;
  }
  std::optional<unsigned> lookup(llvm::StringRef name) const {
    for (const auto &scope : llvm::reverse(scopes))
      if (auto it = scope.find(name); it != scope.end())
        return it->second;
    if (auto it = fileConsts.find(name); it != fileConsts.end())
      return it->second;
    return std::nullopt;
  }
  void use(llvm::StringRef name) {
    if (std::optional<unsigned> symbol = lookup(name))
      index.references.push_back({offsetOf(name), *symbol});
  }

  std::string spell(const TypeRef &type) const {
    // The type as written: from its start to the end of its last dimension.
    const char *end = type.loc.getPointer();
    if (!type.dims.empty()) {
      const Dim &last = type.dims.back();
      end = last.loc.getPointer();
      if (!last.symbol.empty())
        end += last.symbol.size();
      // Past the digits of a size, then the `]`.
      while (end < buffer.end() && *end != ']')
        ++end;
      if (end < buffer.end())
        ++end;
    } else {
      end = type.dtype.data() + type.dtype.size();
    }
    if (type.shared)
      return llvm::StringRef(type.shared->getPointer(),
                             end - type.shared->getPointer())
          .str();
    return llvm::StringRef(type.loc.getPointer(), end - type.loc.getPointer())
        .str();
  }

  void indexFileConst(const ConstStmt &constant) {
    kernel = -1;
    indexExpr(constant.value.get());
    unsigned id =
        declare(Kind::Const, constant.name, offsetOf(constant.getLoc()));
    fileConsts.try_emplace(constant.name, id);
  }

  void indexKernel(const Kernel &ast) {
    size_t start = ast.attributes.empty() ? offsetOf(ast.loc)
                                          : offsetOf(ast.attributes[0].loc);
    kernel = index.kernels.size();
    unsigned id = declare(Kind::Kernel, ast.name, start);
    index.kernels.push_back(id);
    scopes.emplace_back();
    // The leading consts of the body are visible to the parameter types.
    size_t leading = 0;
    for (; leading < ast.body.size(); ++leading) {
      auto *constant = llvm::dyn_cast<ConstStmt>(ast.body[leading].get());
      if (!constant)
        break;
      indexStmt(*constant);
    }
    for (const Param &param : ast.params) {
      declare(Kind::Parameter, param.name, offsetOf(param.loc),
              spell(param.type));
      for (const Dim &dim : param.type.dims) {
        if (dim.symbol.empty())
          continue;
        if (lookup(dim.symbol))
          use(dim.symbol);
        else
          declare(Kind::Dimension, dim.symbol, offsetOf(param.loc), "index");
      }
    }
    for (size_t i = leading; i < ast.body.size(); ++i)
      indexStmt(*ast.body[i]);
    scopes.pop_back();
    // Attributes name vars and loop indices declared anywhere in the
    // kernel, and the grid its symbols.
    for (const frontend::Attribute &attr : ast.attributes)
      for (const AttrArg &arg : attr.args) {
        indexAttrExpr(arg.value.get(), id);
        for (const ExprPtr &element : arg.list)
          indexAttrExpr(element.get(), id);
      }
  }

  /// Resolves the names of an attribute argument against the whole kernel.
  void indexAttrExpr(const Expr *expr, unsigned kernelSymbol) {
    if (!expr)
      return;
    if (auto *name = llvm::dyn_cast<NameExpr>(expr)) {
      for (unsigned id = kernelSymbol + 1; id < index.symbols.size(); ++id)
        if (index.symbols[id].name == name->name) {
          index.references.push_back({offsetOf(name->name), id});
          return;
        }
      if (auto it = fileConsts.find(name->name); it != fileConsts.end())
        index.references.push_back({offsetOf(name->name), it->second});
      return;
    }
    forEachChild(
        expr, [&](const Expr *child) { indexAttrExpr(child, kernelSymbol); });
  }

  template <typename Fn> static void forEachChild(const Expr *expr, Fn fn) {
    if (auto *unary = llvm::dyn_cast<UnaryExpr>(expr)) {
      fn(unary->operand.get());
    } else if (auto *binary = llvm::dyn_cast<BinaryExpr>(expr)) {
      fn(binary->lhs.get());
      fn(binary->rhs.get());
    } else if (auto *call = llvm::dyn_cast<CallExpr>(expr)) {
      for (const ExprPtr &arg : call->args)
        fn(arg.get());
      for (const NamedArg &arg : call->named)
        fn(arg.value.get());
    } else if (auto *slice = llvm::dyn_cast<SliceExpr>(expr)) {
      fn(slice->base.get());
      for (const SliceExpr::Range &range : slice->ranges) {
        fn(range.start.get());
        fn(range.extent.get());
      }
    } else if (auto *list = llvm::dyn_cast<ListExpr>(expr)) {
      for (const ExprPtr &element : list->elements)
        fn(element.get());
    }
  }

  void indexExpr(const Expr *expr) {
    if (!expr)
      return;
    if (auto *name = llvm::dyn_cast<NameExpr>(expr))
      return use(name->name);
    if (auto *call = llvm::dyn_cast<CallExpr>(expr))
      index.calls.push_back(
          {offsetOf(call->callee), call->callee.str(), kernel});
    forEachChild(expr, [&](const Expr *child) { indexExpr(child); });
  }

  void indexType(const TypeRef *type) {
    if (!type)
      return;
    for (const Dim &dim : type->dims)
      if (!dim.symbol.empty())
        use(dim.symbol);
    if (!type->stages.symbol.empty())
      use(type->stages.symbol);
  }

  void indexBody(const Body &body) {
    scopes.emplace_back();
    for (const StmtPtr &stmt : body)
      indexStmt(*stmt);
    scopes.pop_back();
  }

  void indexStmt(const Stmt &stmt) {
    size_t at = offsetOf(stmt.getLoc());
    if (auto *var = llvm::dyn_cast<VarStmt>(&stmt)) {
      indexType(var->type.get());
      indexExpr(var->init.get());
      declare(Kind::Var, var->name, at, var->type ? spell(*var->type) : "");
    } else if (auto *constant = llvm::dyn_cast<ConstStmt>(&stmt)) {
      indexExpr(constant->value.get());
      declare(Kind::Const, constant->name, at);
    } else if (auto *assign = llvm::dyn_cast<AssignStmt>(&stmt)) {
      indexExpr(assign->value.get());
      indexExpr(assign->target.get());
    } else if (auto *call = llvm::dyn_cast<CallStmt>(&stmt)) {
      indexExpr(call->call.get());
    } else if (auto *loop = llvm::dyn_cast<ForStmt>(&stmt)) {
      indexExpr(loop->lower.get());
      indexExpr(loop->upper.get());
      indexExpr(loop->step.get());
      scopes.emplace_back();
      declare(Kind::LoopIndex, loop->name, at, "index");
      indexBody(loop->body);
      scopes.pop_back();
    } else if (auto *branch = llvm::dyn_cast<IfStmt>(&stmt)) {
      indexExpr(branch->condition.get());
      indexBody(branch->thenBody);
      indexBody(branch->elseBody);
    } else if (auto *loop = llvm::dyn_cast<WhileStmt>(&stmt)) {
      indexExpr(loop->condition.get());
      indexBody(loop->body);
    }
  }

  llvm::StringRef buffer;
  SourceIndex &index;
  int kernel = -1;
  std::vector<llvm::StringMap<unsigned>> scopes;
  llvm::StringMap<unsigned> fileConsts;
};
} // namespace

std::optional<unsigned> SourceIndex::symbolAt(size_t offset) const {
  auto covers = [&](size_t start, const std::string &name) {
    return start <= offset && offset <= start + name.size();
  };
  for (const SourceReference &ref : references)
    if (covers(ref.offset, symbols[ref.symbol].name))
      return ref.symbol;
  for (auto [id, symbol] : llvm::enumerate(symbols))
    if (covers(symbol.offset, symbol.name))
      return id;
  return std::nullopt;
}

std::optional<SourceIndex>
mlir::tile::indexTileSource(llvm::SourceMgr &sourceMgr, MLIRContext *context) {
  unsigned bufferID = sourceMgr.getMainFileID();
  Diagnoser diag(sourceMgr, bufferID, context);
  llvm::StringRef buffer = sourceMgr.getMemoryBuffer(bufferID)->getBuffer();
  std::optional<Module> ast = parseModule(diag, buffer);
  if (!ast)
    return std::nullopt;
  SourceIndex index;
  Indexer(buffer, index).indexModule(*ast);
  return index;
}
