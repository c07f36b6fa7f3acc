//===- KernelBuilder.cpp - build tile kernels statement by statement ------===//
//
// Each call wraps the values it is given in ValueExprs, makes the syntax
// tree node the .tile parser would make, and hands it to the Emitter: one
// definition of the language's semantics for every front end.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/KernelBuilder.h"

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/StringSaver.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;

namespace {
/// A block open in the kernel body: the op whose region it is.
struct OpenBlock {
  Operation *op;
  /// A while whose condition is being built, its body not yet begun.
  bool inCondition = false;
};
} // namespace

struct KernelBuilder::Impl {
  Impl(MLIRContext *context, llvm::SourceMgr &sourceMgr, unsigned bufferID)
      : sourceMgr(sourceMgr), bufferID(bufferID),
        diag(sourceMgr, bufferID, context), saver(allocator),
        module(ModuleOp::create(diag.getLoc(bufferStart()))),
        emitter(diag, *module) {
    context->loadDialect<TileDialect, arith::ArithDialect, math::MathDialect,
                         scf::SCFDialect>();
    emitter.builtinPrefix = "tile."; // the Python package's spelling
  }

  SMLoc bufferStart() const {
    return SMLoc::getFromPointer(
        sourceMgr.getMemoryBuffer(bufferID)->getBufferStart());
  }
  SMLoc loc(Pos pos) const {
    SMLoc at = sourceMgr.FindLocForLineAndColumn(bufferID, pos.line,
                                                 std::max(pos.column, 1u));
    return at.isValid() ? at : bufferStart();
  }
  StringRef save(StringRef text) { return saver.save(text); }

  ValueId add(Operand operand) {
    emitter.evaluated.push_back(operand);
    return emitter.evaluated.size() - 1;
  }
  FailureOr<ValueId> add(FailureOr<Operand> operand) {
    if (failed(operand))
      return failure();
    return add(*operand);
  }
  ExprPtr wrap(ValueId id) {
    return std::make_unique<ValueExpr>(emitter.evaluated[id].loc, id);
  }
  ExprId addExpr(ExprPtr expr) {
    exprs.push_back(std::move(expr));
    return exprs.size() - 1;
  }
  /// An attribute expression, moved out of the pool (each is used once).
  ExprPtr takeExpr(ExprId id) { return std::move(exprs[id]); }

  std::vector<SliceExpr::Range> ranges(ArrayRef<Range> ranges) {
    std::vector<SliceExpr::Range> result;
    for (const Range &range : ranges)
      result.push_back(
          {wrap(range.start), range.extent ? wrap(*range.extent) : nullptr});
    return result;
  }

  llvm::SourceMgr &sourceMgr;
  unsigned bufferID;
  Diagnoser diag;
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver;
  OwningOpRef<ModuleOp> module;
  Emitter emitter;
  std::vector<ExprPtr> exprs;
  /// Slices prepared as assignment targets.
  std::vector<std::pair<std::unique_ptr<SliceExpr>, Emitter::Slice>> slices;
  /// The kernel being built, whose attributes endKernel reads.
  std::optional<frontend::Kernel> kernel;
  KernelOp kernelOp;
  std::vector<OpenBlock> open;
  bool hadError = false;
};

static std::optional<BinaryOp> parseBinaryOp(StringRef op) {
  for (BinaryOp candidate :
       {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
        BinaryOp::Rem, BinaryOp::Lt, BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge,
        BinaryOp::Eq, BinaryOp::Ne, BinaryOp::And, BinaryOp::Or,
        BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor, BinaryOp::Shl,
        BinaryOp::Shr})
    if (spell(candidate) == op)
      return candidate;
  return std::nullopt;
}

/// `not`, `~` or `-` (the only other spelling a front end passes).
static UnaryOp parseUnaryOp(StringRef op) {
  if (op == "not")
    return UnaryOp::Not;
  return op == "~" ? UnaryOp::BitNot : UnaryOp::Neg;
}

KernelBuilder::KernelBuilder(MLIRContext *context, llvm::SourceMgr &sourceMgr,
                             unsigned bufferID)
    : impl(std::make_unique<Impl>(context, sourceMgr, bufferID)) {}

KernelBuilder::~KernelBuilder() = default;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

LogicalResult KernelBuilder::beginKernel(const Kernel &desc) {
  Impl &s = *impl;
  frontend::Kernel &kernel = s.kernel.emplace();
  kernel.loc = s.loc(desc.pos);
  kernel.name = s.save(desc.name);
  for (const Param &param : desc.params) {
    frontend::Param &ast = kernel.params.emplace_back();
    ast.loc = s.loc(param.pos);
    ast.name = s.save(param.name);
    ast.type.kind =
        param.isScalar ? TypeRef::Kind::Scalar : TypeRef::Kind::Tensor;
    ast.type.loc = s.loc(param.dtypePos);
    ast.type.dtype = s.save(param.dtype);
    ast.type.dtypeLoc = ast.type.loc;
    for (auto [index, dim] : llvm::enumerate(param.dims)) {
      frontend::Dim &astDim = ast.type.dims.emplace_back();
      astDim.loc = s.loc(index < param.dimPos.size() ? param.dimPos[index]
                                                     : param.dtypePos);
      if (auto *size = std::get_if<int64_t>(&dim))
        astDim.size = *size;
      else
        astDim.symbol = s.save(std::get<std::string>(dim));
    }
  }

  frontend::Attribute &launch = kernel.attributes.emplace_back();
  launch.loc = s.loc(desc.threadsPos);
  launch.name = "launch";
  AttrArg &threads = launch.args.emplace_back();
  threads.loc = launch.loc;
  threads.value = std::make_unique<IntExpr>(launch.loc, desc.threads);
  if (!desc.grid.empty()) {
    AttrArg &grid = launch.args.emplace_back();
    grid.loc = s.loc(desc.gridPos);
    grid.key = "grid";
    grid.isList = true;
    for (ExprId dim : desc.grid)
      grid.list.push_back(s.takeExpr(dim));
  }
  if (!desc.registers.empty()) {
    frontend::Attribute &registers = kernel.attributes.emplace_back();
    registers.loc = s.loc(desc.registersPos);
    registers.name = "registers";
    for (const auto &[name, pos] : desc.registers) {
      AttrArg &arg = registers.args.emplace_back();
      arg.loc = s.loc(pos);
      arg.value = std::make_unique<NameExpr>(arg.loc, s.save(name));
    }
  }
  if (desc.pipelinePos) {
    frontend::Attribute &pipeline = kernel.attributes.emplace_back();
    pipeline.loc = s.loc(*desc.pipelinePos);
    pipeline.name = "pipeline";
    for (const auto &[name, pos] : desc.pipelineNames) {
      AttrArg &arg = pipeline.args.emplace_back();
      arg.loc = s.loc(pos);
      arg.value = std::make_unique<NameExpr>(arg.loc, s.save(name));
    }
    for (const Kernel::Option &option : desc.pipelineOptions) {
      AttrArg &arg = pipeline.args.emplace_back();
      arg.loc = s.loc(option.pos);
      arg.key = s.save(option.key);
      arg.isList = option.isList;
      if (option.isList) {
        for (ExprId value : option.values)
          arg.list.push_back(s.takeExpr(value));
      } else if (!option.values.empty()) {
        arg.value = s.takeExpr(option.values.front());
      }
    }
  }

  FailureOr<KernelOp> op = s.emitter.beginKernel(kernel);
  if (failed(op)) {
    s.hadError = true;
    return failure();
  }
  s.kernelOp = *op;
  return success();
}

void KernelBuilder::addRegister(StringRef name, Pos pos) {
  Impl &s = *impl;
  frontend::Kernel &kernel = *s.kernel;
  frontend::Attribute *registers = nullptr;
  for (frontend::Attribute &attr : kernel.attributes)
    if (attr.name == "registers")
      registers = &attr;
  if (!registers) {
    registers = &kernel.attributes.emplace_back();
    registers->loc = s.loc(pos);
    registers->name = "registers";
  }
  AttrArg &arg = registers->args.emplace_back();
  arg.loc = s.loc(pos);
  arg.value = std::make_unique<NameExpr>(arg.loc, s.save(name));
}

LogicalResult KernelBuilder::endKernel() {
  Impl &s = *impl;
  assert(s.open.empty() && "a block is still open");
  if (failed(s.emitter.endKernel(*s.kernel, s.kernelOp))) {
    s.hadError = true;
    return failure();
  }
  return success();
}

OwningOpRef<ModuleOp> KernelBuilder::takeModule() {
  Impl &s = *impl;
  if (s.hadError || failed(verify(*s.module)))
    return nullptr;
  return std::move(s.module);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

KernelBuilder::ValueId KernelBuilder::intLiteral(int64_t value, Pos pos) {
  Literal literal;
  literal.kind = Literal::Kind::Int;
  literal.intValue = value;
  return impl->add(Operand{Value(), literal, impl->loc(pos)});
}

KernelBuilder::ValueId KernelBuilder::floatLiteral(double value, Pos pos) {
  Literal literal;
  literal.kind = Literal::Kind::Float;
  literal.floatValue = value;
  return impl->add(Operand{Value(), literal, impl->loc(pos)});
}

KernelBuilder::ValueId KernelBuilder::boolLiteral(bool value, Pos pos) {
  Literal literal;
  literal.kind = Literal::Kind::Bool;
  literal.boolValue = value;
  return impl->add(Operand{Value(), literal, impl->loc(pos)});
}

FailureOr<KernelBuilder::ValueId> KernelBuilder::name(StringRef name, Pos pos) {
  Impl &s = *impl;
  NameExpr expr(s.loc(pos), s.save(name));
  return s.add(s.emitter.emitExpr(expr));
}

FailureOr<KernelBuilder::ValueId>
KernelBuilder::context(StringRef field, unsigned dim, Pos pos) {
  Impl &s = *impl;
  std::optional<ContextExpr::Field> kind =
      llvm::StringSwitch<std::optional<ContextExpr::Field>>(field)
          .Case("thread", ContextExpr::Field::Thread)
          .Case("threads", ContextExpr::Field::Threads)
          .Case("lanes", ContextExpr::Field::Lanes)
          .Case("block", ContextExpr::Field::Block)
          .Case("blocks", ContextExpr::Field::Blocks)
          .Default(std::nullopt);
  if (!kind || dim > 2)
    return s.diag.error(s.loc(pos))
           << "unknown context value '" << field << "'";
  ContextExpr expr(s.loc(pos), *kind, dim);
  return s.add(s.emitter.emitExpr(expr));
}

FailureOr<KernelBuilder::ValueId>
KernelBuilder::unary(StringRef op, ValueId operand, Pos pos) {
  Impl &s = *impl;
  UnaryOp kind = parseUnaryOp(op);
  UnaryExpr expr(s.loc(pos), kind, s.wrap(operand));
  return s.add(s.emitter.emitExpr(expr));
}

FailureOr<KernelBuilder::ValueId>
KernelBuilder::binary(StringRef op, ValueId lhs, ValueId rhs, Pos pos) {
  Impl &s = *impl;
  std::optional<BinaryOp> kind = parseBinaryOp(op);
  if (!kind)
    return s.diag.error(s.loc(pos)) << "unknown operator '" << op << "'";
  BinaryExpr expr(s.loc(pos), *kind, s.wrap(lhs), s.wrap(rhs));
  return s.add(s.emitter.emitExpr(expr));
}

FailureOr<KernelBuilder::ValueId>
KernelBuilder::call(StringRef callee, ArrayRef<ValueId> args, Pos pos) {
  Impl &s = *impl;
  std::vector<ExprPtr> wrapped;
  for (ValueId arg : args)
    wrapped.push_back(s.wrap(arg));
  CallExpr expr(s.loc(pos), s.save(callee), std::move(wrapped));
  return s.add(s.emitter.emitExpr(expr));
}

FailureOr<std::optional<KernelBuilder::ValueId>>
KernelBuilder::call(StringRef callee, ArrayRef<CallArg> args, Pos pos,
                    bool statement) {
  Impl &s = *impl;
  std::vector<ExprPtr> positional;
  std::vector<NamedArg> named;
  for (const CallArg &arg : args) {
    SMLoc at = s.loc(arg.pos);
    ExprPtr expr;
    switch (arg.kind) {
    case CallArg::Kind::Value:
      expr = s.wrap(arg.value);
      break;
    case CallArg::Kind::Int:
      expr = std::make_unique<IntExpr>(at, arg.ints.front());
      break;
    case CallArg::Kind::IntList: {
      std::vector<ExprPtr> elements;
      for (int64_t value : arg.ints)
        elements.push_back(std::make_unique<IntExpr>(at, value));
      expr = std::make_unique<ListExpr>(at, std::move(elements));
      break;
    }
    case CallArg::Kind::Name:
      expr = std::make_unique<NameExpr>(at, s.save(arg.word));
      break;
    case CallArg::Kind::Slice:
      expr = std::make_unique<SliceExpr>(
          at, s.save(arg.tensor), s.loc(arg.tensorPos), s.ranges(arg.ranges));
      break;
    }
    if (arg.name.empty())
      positional.push_back(std::move(expr));
    else
      named.push_back({at, s.save(arg.name), std::move(expr)});
  }
  auto expr = std::make_unique<CallExpr>(
      s.loc(pos), s.save(callee), std::move(positional), std::move(named));
  if (statement) {
    CallStmt stmt(s.loc(pos), std::move(expr));
    if (failed(s.emitter.emitCallStmt(stmt)))
      return failure();
    return std::optional<ValueId>();
  }
  FailureOr<ValueId> value = s.add(s.emitter.emitExpr(*expr));
  if (failed(value))
    return failure();
  return std::optional<ValueId>(*value);
}

FailureOr<KernelBuilder::ValueId> KernelBuilder::load(StringRef tensor,
                                                      Pos tensorPos,
                                                      ArrayRef<Range> ranges,
                                                      Pos pos) {
  Impl &s = *impl;
  SliceExpr expr(s.loc(pos), s.save(tensor), s.loc(tensorPos),
                 s.ranges(ranges));
  return s.add(s.emitter.emitExpr(expr));
}

FailureOr<KernelBuilder::ValueId>
KernelBuilder::index(ValueId base, ArrayRef<Index> indices, Pos pos) {
  Impl &s = *impl;
  std::vector<SliceExpr::Range> ranges;
  for (const Index &index : indices)
    ranges.push_back(
        {s.wrap(index.start), index.extent ? s.wrap(*index.extent) : nullptr});
  SliceExpr expr(s.loc(pos), s.wrap(base), std::move(ranges));
  return s.add(s.emitter.emitExpr(expr));
}

FailureOr<KernelBuilder::ValueId> KernelBuilder::full(ArrayRef<int64_t> shape,
                                                      StringRef dtype,
                                                      ValueId literal,
                                                      Pos pos) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  SMLoc at = s.loc(pos);
  const Operand &fill = e.evaluated[literal];
  FailureOr<Type> element = e.emitDtype(
      dtype, at,
      shape.empty() ? Emitter::DtypeUse::Scalar : Emitter::DtypeUse::Tile);
  if (failed(element))
    return failure();
  Type type = *element;
  if (!shape.empty()) {
    for (int64_t size : shape)
      if (size <= 0)
        return s.diag.error(at)
               << "a tile's dimensions must be positive, got " << size;
    if (failed(e.checkTileShape(shape, at)))
      return failure();
    type = RankedTensorType::get(shape, *element);
  }
  FailureOr<Value> value = e.convert(fill, type, "the fill value");
  if (failed(value))
    return failure();
  return s.add(Operand{*value, std::nullopt, at});
}

KernelBuilder::ValueInfo KernelBuilder::describe(ValueId id) const {
  const Operand &operand = impl->emitter.evaluated[id];
  ValueInfo info;
  if (operand.isLiteral()) {
    const Literal &literal = *operand.literal;
    switch (literal.kind) {
    case Literal::Kind::Int:
      info.kind = ValueInfo::Kind::IntLiteral;
      break;
    case Literal::Kind::Float:
      info.kind = ValueInfo::Kind::FloatLiteral;
      break;
    case Literal::Kind::Bool:
      info.kind = ValueInfo::Kind::BoolLiteral;
      break;
    }
    info.intValue = literal.intValue;
    info.floatValue = literal.floatValue;
    info.boolValue = literal.boolValue;
    return info;
  }
  Type type = operand.value.getType();
  if (auto tile = dyn_cast<RankedTensorType>(type)) {
    info.kind = ValueInfo::Kind::Tile;
    info.shape.assign(tile.getShape().begin(), tile.getShape().end());
    type = tile.getElementType();
  }
  llvm::raw_string_ostream os(info.dtype);
  os << type;
  return info;
}

std::string KernelBuilder::suggestBuiltin(StringRef name) {
  return Emitter::suggestFunction(name, "tile.");
}

std::vector<std::string> KernelBuilder::getBuiltinNames() {
  std::vector<std::string> names;
  for (StringRef name : Emitter::getBuiltinNames())
    names.push_back(name.str());
  return names;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

LogicalResult KernelBuilder::declareVar(
    StringRef name, Pos pos,
    std::optional<std::pair<std::string, std::vector<int64_t>>> type,
    std::optional<ValueId> init, Pos typePos, unsigned depth) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  SMLoc at = s.loc(pos);
  VarStmt stmt(at, s.save(name), at);
  if (type) {
    auto ref = std::make_unique<TypeRef>();
    ref->kind =
        type->second.empty() ? TypeRef::Kind::Scalar : TypeRef::Kind::Tile;
    ref->loc = s.loc(typePos);
    ref->dtype = s.save(type->first);
    ref->dtypeLoc = ref->loc;
    for (int64_t size : type->second) {
      frontend::Dim &dim = ref->dims.emplace_back();
      dim.loc = ref->loc;
      dim.size = size;
    }
    stmt.type = std::move(ref);
  }
  if (init)
    stmt.init = s.wrap(*init);
  unsigned current = s.open.size();
  if (depth >= current)
    return e.emitVar(stmt);
  // Declared in an enclosing block: before the statement there that holds
  // the current position, and visible in that block's scope. An initial
  // value computed here would not dominate it.
  assert(!init && "a var declared in an enclosing block has no initial value");
  OpBuilder::InsertionGuard guard(e.builder);
  e.builder.setInsertionPoint(s.open[depth].op);
  if (failed(e.emitVar(stmt)))
    return failure();
  auto &inner = e.scopes.back();
  auto entry = inner.find(stmt.name);
  e.scopes[depth].try_emplace(stmt.name, entry->second);
  inner.erase(entry);
  return success();
}

LogicalResult KernelBuilder::assign(StringRef name, Pos namePos, StringRef op,
                                    Pos opPos, ValueId value, Pos pos) {
  Impl &s = *impl;
  std::optional<BinaryOp> kind;
  if (!op.empty() && !(kind = parseBinaryOp(op)))
    return s.diag.error(s.loc(opPos)) << "unknown operator '" << op << "='";
  AssignStmt stmt(s.loc(pos),
                  std::make_unique<NameExpr>(s.loc(namePos), s.save(name)),
                  kind, s.loc(opPos), s.wrap(value));
  return s.emitter.emitAssign(stmt);
}

FailureOr<KernelBuilder::SliceId>
KernelBuilder::prepareSlice(StringRef tensor, Pos tensorPos,
                            ArrayRef<Range> ranges, Pos pos) {
  Impl &s = *impl;
  auto expr = std::make_unique<SliceExpr>(s.loc(pos), s.save(tensor),
                                          s.loc(tensorPos), s.ranges(ranges));
  FailureOr<Emitter::Slice> slice = s.emitter.emitSlice(*expr);
  if (failed(slice))
    return failure();
  s.slices.push_back({std::move(expr), *slice});
  return s.slices.size() - 1;
}

FailureOr<KernelBuilder::ValueId> KernelBuilder::loadSlice(SliceId slice,
                                                           Pos pos) {
  Impl &s = *impl;
  SMLoc at = s.loc(pos);
  return s.add(Operand{s.emitter.emitLoad(s.slices[slice].second, at),
                       std::nullopt, at});
}

LogicalResult KernelBuilder::storeSlice(SliceId slice, ValueId value, Pos pos) {
  Impl &s = *impl;
  auto &[expr, target] = s.slices[slice];
  // The statement refers to the slice's syntax for its messages; the
  // emitted slice is the one prepared.
  auto copy = std::make_unique<SliceExpr>(expr->getLoc(), expr->baseName(),
                                          expr->base->getLoc(),
                                          std::vector<SliceExpr::Range>());
  AssignStmt stmt(s.loc(pos), std::move(copy), std::nullopt, s.loc(pos),
                  s.wrap(value));
  return s.emitter.emitAssign(stmt, target);
}

//===----------------------------------------------------------------------===//
// Vars, stages, copies
//===----------------------------------------------------------------------===//

LogicalResult KernelBuilder::setVarPlacement(StringRef name, bool shared,
                                             std::optional<int64_t> stages,
                                             Pos pos) {
  Impl &s = *impl;
  const Symbol *symbol = s.emitter.lookup(name);
  if (!symbol || symbol->kind != Symbol::Kind::Var)
    return s.emitter.error(s.loc(pos)) << "'" << name << "' is not a var";
  auto var = symbol->value.getDefiningOp<VarOp>();
  MLIRContext *ctx = var->getContext();
  if (shared)
    var.setStorageAttr(StorageAttr::get(ctx, Storage::shared));
  if (stages)
    var.setStagesAttr(IntegerAttr::get(IntegerType::get(ctx, 64), *stages));
  return verify(var);
}

FailureOr<KernelBuilder::ValueId> KernelBuilder::readVar(const VarRef &ref,
                                                         Pos pos) {
  Impl &s = *impl;
  FailureOr<Value> var = resolve(ref);
  if (failed(var))
    return failure();
  SMLoc at = s.loc(pos);
  return s.add(
      Operand{ReadOp::create(s.emitter.builder, s.diag.getLoc(at), *var),
              std::nullopt, at});
}

LogicalResult KernelBuilder::writeVar(const VarRef &ref, ValueId value,
                                      Pos pos) {
  Impl &s = *impl;
  FailureOr<Value> var = resolve(ref);
  if (failed(var))
    return failure();
  Type type = cast<VarType>(var->getType()).getValueType();
  FailureOr<Value> converted =
      s.emitter.convert(s.emitter.evaluated[value], type,
                        "the value written to '" + ref.name + "'");
  if (failed(converted))
    return failure();
  WriteOp::create(s.emitter.builder, s.diag.getLoc(s.loc(pos)), *converted,
                  *var);
  return success();
}

LogicalResult KernelBuilder::assignPart(const VarRef &ref,
                                        ArrayRef<Index> indices, StringRef op,
                                        Pos opPos, ValueId value, Pos pos,
                                        std::optional<ValueId> whole) {
  Impl &s = *impl;
  std::optional<BinaryOp> kind;
  if (!op.empty() && !(kind = parseBinaryOp(op)))
    return s.diag.error(s.loc(opPos)) << "unknown operator '" << op << "='";
  FailureOr<Value> var = resolve(ref);
  if (failed(var))
    return failure();
  std::vector<SliceExpr::Range> ranges;
  for (const Index &index : indices)
    ranges.push_back(
        {s.wrap(index.start), index.extent ? s.wrap(*index.extent) : nullptr});
  SliceExpr target(s.loc(pos), s.save(ref.name), s.loc(ref.pos),
                   std::move(ranges));
  AssignStmt stmt(s.loc(pos),
                  std::make_unique<NameExpr>(s.loc(ref.pos), s.save(ref.name)),
                  kind, s.loc(opPos), s.wrap(value));
  return s.emitter.emitSubTileAssign(
      stmt, target, *var, whole ? s.emitter.evaluated[*whole].value : Value());
}

FailureOr<Value> KernelBuilder::resolve(const VarRef &ref) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  SMLoc at = s.loc(ref.pos);
  const Symbol *symbol = e.lookup(ref.name);
  if (!symbol)
    return e.error(at) << "undefined name '" << ref.name << "'"
                       << e.suggestVisibleName(ref.name);
  if (!ref.rotation)
    return symbol->value;
  FailureOr<Value> rotation =
      e.convert(e.evaluated[*ref.rotation], e.builder.getIndexType(),
                "a ring's rotation");
  if (failed(rotation))
    return failure();
  auto stage = StageOp::create(e.builder, s.diag.getLoc(at), symbol->value,
                               *rotation, static_cast<uint64_t>(ref.stage));
  if (failed(verify(stage)))
    return failure();
  return stage.getResult();
}

LogicalResult KernelBuilder::copy(const CopySide &source, const CopySide &dest,
                                  ArrayRef<int64_t> shape, int64_t width,
                                  std::optional<ValueId> mask, bool async,
                                  Pos pos) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  Location loc = s.diag.getLoc(s.loc(pos));
  auto side = [&](const CopySide &side, Value &value,
                  SmallVector<Value> &offsets) -> LogicalResult {
    FailureOr<Value> resolved = resolve(side.ref);
    if (failed(resolved))
      return failure();
    value = *resolved;
    // No offsets: the origin, one 0 for every dimension, as the .tile
    // front end has it for a whole var (the op's verifier checks the rest).
    if (side.offsets.empty()) {
      int64_t rank = 0;
      if (auto var = dyn_cast<VarType>(value.getType()))
        rank = var.getShape().size();
      else if (auto tensor = dyn_cast<GlobalTensorType>(value.getType()))
        rank = tensor.getRank();
      if (rank)
        offsets.assign(rank, arith::ConstantIndexOp::create(e.builder, loc, 0));
      return success();
    }
    for (ValueId offset : side.offsets) {
      FailureOr<Value> index = e.convert(
          e.evaluated[offset], e.builder.getIndexType(), "a copy's offset");
      if (failed(index))
        return failure();
      offsets.push_back(*index);
    }
    return success();
  };
  Value from, to, maskValue;
  SmallVector<Value> fromOffsets, toOffsets;
  if (failed(side(source, from, fromOffsets)) ||
      failed(side(dest, to, toOffsets)))
    return failure();
  if (mask) {
    FailureOr<Value> converted = e.convert(
        e.evaluated[*mask], RankedTensorType::get(shape, e.builder.getI1Type()),
        "the copy's mask");
    if (failed(converted))
      return failure();
    maskValue = *converted;
  }
  auto op =
      CopyOp::create(e.builder, loc, from, fromOffsets, to, toOffsets,
                     maskValue, shape, static_cast<uint64_t>(width), async);
  return verify(op);
}

void KernelBuilder::barrier(Pos pos) {
  Impl &s = *impl;
  BarrierOp::create(s.emitter.builder, s.diag.getLoc(s.loc(pos)),
                    /*requested=*/true);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

FailureOr<KernelBuilder::ValueId>
KernelBuilder::beginFor(StringRef index, Pos indexPos, ValueId lower,
                        ValueId upper, std::optional<ValueId> step, Pos pos) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  ForStmt stmt(s.loc(pos));
  stmt.name = s.save(index);
  stmt.nameLoc = s.loc(indexPos);
  stmt.lower = s.wrap(lower);
  stmt.upper = s.wrap(upper);
  if (step)
    stmt.step = s.wrap(*step);
  FailureOr<scf::ForOp> forOp = e.createFor(stmt);
  if (failed(forOp))
    return failure();
  s.open.push_back({*forOp});
  e.setInsertionBeforeYield(*forOp->getBody(), forOp->getLoc());
  e.scopes.emplace_back();
  Value iv = forOp->getInductionVar();
  if (failed(e.define(stmt.name, {Symbol::Kind::LoopIndex, stmt.nameLoc, iv})))
    return failure();
  return s.add(Operand{iv, std::nullopt, stmt.nameLoc});
}

LogicalResult KernelBuilder::beginIf(ValueId condition, bool hasElse, Pos pos) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  IfStmt stmt(s.loc(pos));
  stmt.condition = s.wrap(condition);
  stmt.hasElse = hasElse;
  FailureOr<scf::IfOp> ifOp = e.createIf(stmt);
  if (failed(ifOp))
    return failure();
  s.open.push_back({*ifOp});
  e.setInsertionBeforeYield(ifOp->getThenRegion().front(), ifOp->getLoc());
  e.scopes.emplace_back();
  return success();
}

void KernelBuilder::beginElse() {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  auto ifOp = cast<scf::IfOp>(s.open.back().op);
  e.scopes.pop_back();
  e.scopes.emplace_back();
  e.setInsertionBeforeYield(ifOp.getElseRegion().front(), ifOp.getLoc());
}

void KernelBuilder::beginWhile(Pos pos) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  WhileStmt stmt(s.loc(pos));
  scf::WhileOp whileOp = e.createWhile(stmt);
  s.open.push_back({whileOp, /*inCondition=*/true});
  e.builder.createBlock(&whileOp.getBefore());
}

LogicalResult KernelBuilder::beginWhileBody(ValueId condition, Pos pos) {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  (void)pos;
  ExprPtr expr = s.wrap(condition);
  if (failed(e.emitWhileCondition(*expr)))
    return failure();
  auto whileOp = cast<scf::WhileOp>(s.open.back().op);
  s.open.back().inCondition = false;
  e.builder.createBlock(&whileOp.getAfter());
  e.scopes.emplace_back();
  return success();
}

void KernelBuilder::endBlock() {
  Impl &s = *impl;
  Emitter &e = s.emitter;
  OpenBlock block = s.open.back();
  s.open.pop_back();
  if (!block.inCondition)
    e.scopes.pop_back();
  if (auto whileOp = dyn_cast<scf::WhileOp>(block.op))
    scf::YieldOp::create(e.builder, whileOp.getLoc());
  e.builder.setInsertionPointAfter(block.op);
}

unsigned KernelBuilder::getDepth() const { return impl->open.size(); }

//===----------------------------------------------------------------------===//
// Attribute expressions
//===----------------------------------------------------------------------===//

KernelBuilder::ExprId KernelBuilder::exprInt(int64_t value, Pos pos) {
  return impl->addExpr(std::make_unique<IntExpr>(impl->loc(pos), value));
}

KernelBuilder::ExprId KernelBuilder::exprFloat(double value, Pos pos) {
  return impl->addExpr(std::make_unique<FloatExpr>(impl->loc(pos), value));
}

KernelBuilder::ExprId KernelBuilder::exprBool(bool value, Pos pos) {
  return impl->addExpr(std::make_unique<BoolExpr>(impl->loc(pos), value));
}

KernelBuilder::ExprId KernelBuilder::exprName(StringRef name, Pos pos) {
  return impl->addExpr(
      std::make_unique<NameExpr>(impl->loc(pos), impl->save(name)));
}

KernelBuilder::ExprId KernelBuilder::exprUnary(StringRef op, ExprId operand,
                                               Pos pos) {
  UnaryOp kind = parseUnaryOp(op);
  return impl->addExpr(std::make_unique<UnaryExpr>(impl->loc(pos), kind,
                                                   impl->takeExpr(operand)));
}

KernelBuilder::ExprId KernelBuilder::exprBinary(StringRef op, ExprId lhs,
                                                ExprId rhs, Pos pos) {
  // An unknown operator cannot come from a front end's own table; '+' keeps
  // the tree well formed and the grid check reports what it can.
  BinaryOp kind = parseBinaryOp(op).value_or(BinaryOp::Add);
  return impl->addExpr(std::make_unique<BinaryExpr>(
      impl->loc(pos), kind, impl->takeExpr(lhs), impl->takeExpr(rhs)));
}

KernelBuilder::ExprId KernelBuilder::exprCall(StringRef callee,
                                              ArrayRef<ExprId> args, Pos pos) {
  std::vector<ExprPtr> taken;
  for (ExprId arg : args)
    taken.push_back(impl->takeExpr(arg));
  return impl->addExpr(std::make_unique<CallExpr>(
      impl->loc(pos), impl->save(callee), std::move(taken)));
}
