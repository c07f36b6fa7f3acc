//===- EmitStmt.cpp - .tile statements to the tile dialect ----------------===//
//
// vars, assignments (whole, sliced, sub-tile), for, if and while: each
// statement emitted where the builder is, its control flow as scf ops.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;
using llvm::StringRef;

LogicalResult Emitter::emitBlock(const Body &block) {
  for (const StmtPtr &stmt : block)
    if (failed(emitStmt(*stmt)))
      return failure();
  return success();
}

LogicalResult Emitter::emitStmt(const Stmt &stmt) {
  switch (stmt.getKind()) {
  case Stmt::Kind::Var:
    return emitVar(cast<VarStmt>(stmt));
  case Stmt::Kind::Const:
    return error(stmt.getLoc()) << "a const goes at the top of the file or "
                                   "of a kernel's body, before any other "
                                   "statement";
  case Stmt::Kind::Assign:
    return emitAssign(cast<AssignStmt>(stmt));
  case Stmt::Kind::Call:
    return emitCallStmt(cast<CallStmt>(stmt));
  case Stmt::Kind::For:
    return emitFor(cast<ForStmt>(stmt));
  case Stmt::Kind::If:
    return emitIf(cast<IfStmt>(stmt));
  case Stmt::Kind::While:
    return emitWhile(cast<WhileStmt>(stmt));
  }
  llvm_unreachable("unknown statement kind");
}

LogicalResult Emitter::emitVar(const VarStmt &var) {
  Type valueType;
  if (var.type) {
    FailureOr<Type> type = emitVarType(*var.type);
    if (failed(type))
      return failure();
    valueType = *type;
    if (var.type->kind == TypeRef::Kind::Pipeline)
      return emitPipelineVar(var, cast<RankedTensorType>(valueType));
  }
  // The initial value is evaluated before the name exists: `var x = x`
  // refers to nothing.
  Value init;
  if (var.init) {
    FailureOr<Value> value = failure();
    if (valueType) {
      FailureOr<Operand> operand = emitExpr(*var.init);
      if (failed(operand))
        return failure();
      value = convert(*operand, valueType,
                      "the initial value of '" + var.name + "'");
    } else {
      value = emitValue(*var.init);
    }
    if (failed(value))
      return failure();
    init = *value;
    valueType = init.getType();
  }
  auto tile = dyn_cast<RankedTensorType>(valueType);
  auto varType = tile ? VarType::get(builder.getContext(), tile.getShape(),
                                     tile.getElementType())
                      : VarType::get(builder.getContext(), {}, valueType);
  auto varOp =
      VarOp::create(builder, getLoc(var.getLoc()), var.name, varType, init);
  // `shared tile<...>`: the per-thread API's threadgroup_alloc, a request.
  if (var.type && var.type->shared)
    varOp.setStorageAttr(
        StorageAttr::get(builder.getContext(), Storage::shared));
  Value handle = varOp.getResult();
  if (!var.type && isa<IntExpr>(var.init.get()))
    literalTypedVars.insert(handle);
  if (failed(define(var.name, {Symbol::Kind::Var, var.nameLoc, handle, {}})))
    return failure();
  declaredVars.try_emplace(var.name, valueType);
  return success();
}

LogicalResult Emitter::emitAssign(const AssignStmt &assign) {
  return emitAssign(assign, std::nullopt);
}

LogicalResult Emitter::emitAssign(const AssignStmt &assign,
                                  std::optional<Slice> presliced) {
  Location loc = getLoc(assign.getLoc());
  // Combines the current value with the right-hand side for `op=`.
  auto combine = [&](Value current,
                     const Operand &value) -> FailureOr<Operand> {
    if (!assign.op)
      return value;
    return emitBinary(*assign.op, {current, std::nullopt, assign.getLoc()},
                      value, assign.opLoc);
  };

  // The value to assign: the right-hand side, combined with `current` for
  // `op=`, converted to the target's `type`.
  auto assigned = [&](Value current, Type type,
                      const Twine &what) -> FailureOr<Value> {
    FailureOr<Operand> value = emitExpr(*assign.value);
    if (failed(value))
      return failure();
    FailureOr<Operand> result = combine(current, *value);
    if (failed(result))
      return failure();
    return convert(*result, type, what);
  };

  if (auto *slice = dyn_cast<SliceExpr>(assign.target.get())) {
    const Symbol *base =
        slice->baseName().empty() ? nullptr : lookup(slice->baseName());
    if (!presliced && base && base->kind == Symbol::Kind::Var)
      return emitSubTileAssign(assign, *slice, base->value);
    if (!presliced && (!base || base->kind != Symbol::Kind::Param)) {
      if (!slice->baseName().empty() && !base)
        return resolve(slice->baseName(), slice->base->getLoc());
      return error(slice->getLoc())
             << "only a part of a tensor parameter or of a tile var can be "
                "assigned to";
    }
    FailureOr<Slice> target =
        presliced ? FailureOr<Slice>(*presliced) : emitSlice(*slice);
    if (failed(target))
      return failure();
    Value current = assign.op ? emitLoad(*target, slice->getLoc()) : Value();
    FailureOr<Value> stored =
        assigned(current, target->tileType,
                 "the value stored to '" + slice->baseName() + "'");
    if (failed(stored))
      return failure();
    emitStore(*target, *stored, Value(), loc);
    return success();
  }

  const auto &name = cast<NameExpr>(*assign.target);
  FailureOr<Symbol> symbol = resolve(name.name, name.getLoc());
  if (failed(symbol))
    return failure();
  switch (symbol->kind) {
  case Symbol::Kind::Scalar:
    return error(name.getLoc()) << "cannot assign to scalar parameter '"
                                << name.name << "'; parameters are read-only";
  case Symbol::Kind::Const:
    return error(name.getLoc())
           << "cannot assign to const '" << name.name << "'";
  case Symbol::Kind::Param:
    return error(name.getLoc())
           << "cannot assign to tensor parameter '" << name.name
           << "'; store into a slice of it: " << name.name
           << "[start :+ extent, ...] = value";
  case Symbol::Kind::Dim:
    return error(name.getLoc()) << "cannot assign to '" << name.name
                                << "', a symbolic dimension of the parameters";
  case Symbol::Kind::LoopIndex:
    return error(name.getLoc())
           << "cannot assign to loop index '" << name.name << "'";
  case Symbol::Kind::Var:
    break;
  }
  Value var = symbol->value;
  if (failed(checkNotPipeline(var, name.name, name.getLoc())))
    return failure();
  Type valueType = cast<VarType>(var.getType()).getValueType();
  Value current =
      assign.op
          ? ReadOp::create(builder, getLoc(name.getLoc()), var).getResult()
          : Value();
  FailureOr<Value> written =
      assigned(current, valueType, "the value assigned to '" + name.name + "'");
  if (failed(written))
    return failure();
  WriteOp::create(builder, loc, *written, var);
  return success();
}

void Emitter::setInsertionBeforeYield(mlir::Block &block, Location loc) {
  if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>()) {
    builder.setInsertionPointToEnd(&block);
    scf::YieldOp::create(builder, loc);
  }
  builder.setInsertionPoint(block.getTerminator());
}

FailureOr<scf::ForOp> Emitter::createFor(const ForStmt &loop) {
  Location loc = getLoc(loop.getLoc());
  FailureOr<Value> lower = emitIndex(*loop.lower, "the range start");
  if (failed(lower))
    return failure();
  FailureOr<Value> upper = emitIndex(*loop.upper, "the range end");
  if (failed(upper))
    return failure();
  Value step;
  if (loop.step) {
    FailureOr<Operand> operand = emitExpr(*loop.step);
    if (failed(operand))
      return failure();
    if (operand->isLiteral() && operand->literal->kind == Literal::Kind::Int &&
        operand->literal->intValue <= 0)
      return error(loop.step->getLoc())
             << "the range step must be positive, got "
             << operand->literal->intValue;
    FailureOr<Value> value =
        convert(*operand, builder.getIndexType(), "the range step");
    if (failed(value))
      return failure();
    step = *value;
  } else {
    step = arith::ConstantIndexOp::create(builder, loc, 1);
  }
  auto forOp = scf::ForOp::create(builder, loc, *lower, *upper, step);
  // The index's name, for @pipeline.
  forOp->setAttr(kIndexAttr, builder.getStringAttr(loop.name));
  declaredLoopIndices.insert(loop.name);
  return forOp;
}

LogicalResult Emitter::emitSubTileAssign(const AssignStmt &assign,
                                         const SliceExpr &target, Value var,
                                         Value whole) {
  if (failed(checkNotPipeline(var, target.baseName(), target.base->getLoc())))
    return failure();
  Type valueType = cast<VarType>(var.getType()).getValueType();
  auto type = dyn_cast<RankedTensorType>(valueType);
  if (!type)
    return error(target.base->getLoc())
           << "'" << target.baseName() << "' is a scalar var; only tiles and "
           << "tensors can be indexed";
  FailureOr<SubTile> sub = emitSubTile(target, type);
  if (failed(sub))
    return failure();
  auto subType = type.clone(sub->shape);
  Location loc = getLoc(assign.getLoc());
  if (!whole)
    whole =
        ReadOp::create(builder, getLoc(target.base->getLoc()), var).getResult();
  FailureOr<Operand> value = emitExpr(*assign.value);
  if (failed(value))
    return failure();
  if (assign.op) {
    Value current = ExtractSliceOp::create(builder, getLoc(target.getLoc()),
                                           subType, whole, sub->offsets);
    value = emitBinary(*assign.op, {current, std::nullopt, target.getLoc()},
                       *value, assign.opLoc);
    if (failed(value))
      return failure();
  }
  FailureOr<Value> part =
      convert(*value, subType,
              "the value assigned to part of '" + target.baseName() + "'");
  if (failed(part))
    return failure();
  Value updated =
      InsertSliceOp::create(builder, loc, *part, whole, sub->offsets);
  WriteOp::create(builder, loc, updated, var);
  return success();
}

LogicalResult Emitter::emitFor(const ForStmt &loop) {
  FailureOr<scf::ForOp> forOp = createFor(loop);
  if (failed(forOp))
    return failure();
  OpBuilder::InsertionGuard guard(builder);
  setInsertionBeforeYield(*forOp->getBody(), forOp->getLoc());
  ScopeGuard scope(*this);
  if (failed(define(loop.name, {Symbol::Kind::LoopIndex,
                                loop.nameLoc,
                                forOp->getInductionVar(),
                                {}})))
    return failure();
  return emitBlock(loop.body);
}

FailureOr<scf::IfOp> Emitter::createIf(const IfStmt &stmt) {
  FailureOr<Value> condition = emitCondition(*stmt.condition, "'if'");
  if (failed(condition))
    return failure();
  return scf::IfOp::create(builder, getLoc(stmt.getLoc()), *condition,
                           stmt.hasElse);
}

LogicalResult Emitter::emitIf(const IfStmt &stmt) {
  FailureOr<scf::IfOp> ifOp = createIf(stmt);
  if (failed(ifOp))
    return failure();
  Location loc = ifOp->getLoc();
  OpBuilder::InsertionGuard guard(builder);
  {
    setInsertionBeforeYield(ifOp->getThenRegion().front(), loc);
    ScopeGuard scope(*this);
    if (failed(emitBlock(stmt.thenBody)))
      return failure();
  }
  if (!stmt.hasElse)
    return success();
  setInsertionBeforeYield(ifOp->getElseRegion().front(), loc);
  ScopeGuard scope(*this);
  return emitBlock(stmt.elseBody);
}

scf::WhileOp Emitter::createWhile(const WhileStmt &loop) {
  return scf::WhileOp::create(builder, getLoc(loop.getLoc()), TypeRange(),
                              ValueRange());
}

LogicalResult Emitter::emitWhileCondition(const Expr &condition) {
  FailureOr<Value> value = emitCondition(condition, "'while'");
  if (failed(value))
    return failure();
  scf::ConditionOp::create(builder, getLoc(condition.getLoc()), *value,
                           ValueRange());
  return success();
}

LogicalResult Emitter::emitWhile(const WhileStmt &loop) {
  scf::WhileOp whileOp = createWhile(loop);
  OpBuilder::InsertionGuard guard(builder);
  // The condition is evaluated anew before every iteration.
  builder.createBlock(&whileOp.getBefore());
  if (failed(emitWhileCondition(*loop.condition)))
    return failure();
  builder.createBlock(&whileOp.getAfter());
  ScopeGuard scope(*this);
  if (failed(emitBlock(loop.body)))
    return failure();
  scf::YieldOp::create(builder, whileOp.getLoc());
  return success();
}
