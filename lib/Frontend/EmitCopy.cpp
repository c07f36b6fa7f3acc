//===- EmitCopy.cpp - .tile copies, barriers and pipelines ----------------===//
//
// Explicit data movement in the language (docs/spec.md, "Copies
// and pipelines"): `copy(...)` is a tile.copy, `barrier()` a requested
// tile.barrier, `var p: pipeline<T, stages = S>[...]` a ring (a tile.var
// with stages) and a hidden index var counting its rotations, which
// `advance(p)` increments; `stage(p, k)`, `front(p)` and `back(p)` are
// tile.stage ops at that rotation. The ops' verifiers check what the
// dialect requires (widths, alignment, boxes inside vars); this file checks
// the syntax and names.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "tile/Frontend/Language.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

bool Emitter::isMovementStatement(StringRef callee) {
  return isLanguageName(LanguageName::Kind::Statement, callee);
}

bool Emitter::isStageAccessor(StringRef callee) {
  return isLanguageName(LanguageName::Kind::StageAccessor, callee);
}

LogicalResult Emitter::checkNotPipeline(Value var, StringRef name, SMLoc loc) {
  if (!rotations.contains(var))
    return success();
  return error(loc) << "'" << name
                    << "' is a pipeline: use one of its stages, front(" << name
                    << "), back(" << name << ") or stage(" << name << ", k)";
}

/// Fails with the op's own message (at its location) unless it verifies.
static LogicalResult verified(Operation *op) { return mlir::verify(op); }

LogicalResult Emitter::emitPipelineVar(const VarStmt &var,
                                       RankedTensorType tile) {
  if (var.init)
    return error(var.init->getLoc())
           << "a pipeline has no initial value; copies fill its stages: "
              "copy(X[...], back("
           << var.name << "))";
  FailureOr<int64_t> stages = emitDimSize(var.type->stages);
  if (failed(stages))
    return failure();
  if (*stages < 2)
    return error(var.type->stages.loc)
           << "a pipeline has at least 2 stages, got " << *stages;
  Location loc = getLoc(var.getLoc());
  MLIRContext *ctx = builder.getContext();
  auto ring = VarOp::create(
      builder, loc, var.name,
      VarType::get(ctx, tile.getShape(), tile.getElementType()), Value());
  ring.setStagesAttr(builder.getI64IntegerAttr(*stages));
  // The rotation: its name cannot clash with a source name.
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  auto rotation =
      VarOp::create(builder, loc, (var.name + ".rotation").str(),
                    VarType::get(ctx, {}, builder.getIndexType()), zero);
  if (failed(verified(ring)) ||
      failed(define(var.name,
                    {Symbol::Kind::Var, var.nameLoc, ring.getResult(), {}})))
    return failure();
  rotations[ring.getResult()] = rotation.getResult();
  declaredVars.try_emplace(var.name, tile);
  return success();
}

/// The pipeline a call's first argument names, or an error.
FailureOr<Value> Emitter::emitPipelineName(const CallExpr &call) {
  auto *name =
      call.args.empty() ? nullptr : dyn_cast<NameExpr>(call.args.front().get());
  if (!name)
    return error(call.args.empty() ? call.getLoc()
                                   : call.args.front()->getLoc())
           << "'" << call.callee
           << "' takes a pipeline by name: " << call.callee << "(p"
           << (call.callee == "stage" ? ", k" : "") << ")";
  FailureOr<Symbol> symbol = resolve(name->name, name->getLoc());
  if (failed(symbol))
    return failure();
  if (symbol->kind != Symbol::Kind::Var || !rotations.contains(symbol->value))
    return error(name->getLoc())
           << "'" << name->name
           << "' is not a pipeline (var p: pipeline<dtype, stages = S>[...])";
  return symbol->value;
}

FailureOr<Value> Emitter::emitStage(const CallExpr &call) {
  unsigned arity = call.callee == "stage" ? 2 : 1;
  if (call.args.size() != arity || !call.named.empty())
    return error(call.getLoc())
           << "'" << call.callee << "' takes " << arity
           << (arity == 1 ? " argument, the pipeline"
                          : " arguments, the pipeline and a stage number");
  FailureOr<Value> ring = emitPipelineName(call);
  if (failed(ring))
    return failure();
  int64_t stages = *cast<VarOp>(ring->getDefiningOp()).getStages();
  int64_t k = call.callee == "back" ? stages - 1 : 0;
  if (call.callee == "stage") {
    FailureOr<Literal> number =
        evaluateConstant(*call.args[1], "a stage number");
    if (failed(number))
      return failure();
    if (number->kind != Literal::Kind::Int || number->intValue < 0 ||
        number->intValue >= stages)
      return error(call.args[1]->getLoc())
             << "a stage of a pipeline of " << stages
             << " stages is an integer from 0 to " << stages - 1;
    k = number->intValue;
  }
  Location loc = getLoc(call.getLoc());
  // One read of the rotation per block between advances: stages of one
  // rotation value are distinct memory to the barrier analysis, those of
  // two reads may be the same stage.
  Value &rotation = rotationReads[*ring];
  if (!rotation || rotation.getParentBlock() != builder.getInsertionBlock())
    rotation = ReadOp::create(builder, loc, rotations.lookup(*ring));
  return StageOp::create(builder, loc, *ring, rotation,
                         static_cast<uint64_t>(k))
      .getResult();
}

FailureOr<Operand> Emitter::emitStageRead(const CallExpr &call) {
  FailureOr<Value> stage = emitStage(call);
  if (failed(stage))
    return failure();
  return Operand{ReadOp::create(builder, getLoc(call.getLoc()), *stage),
                 std::nullopt, call.getLoc()};
}

//===----------------------------------------------------------------------===//
// copy
//===----------------------------------------------------------------------===//

/// One side of a copy: a tensor parameter or a tile var (a stage too), and
/// where a slice gives them, the box's offsets and extents in it.
struct Emitter::CopySide {
  Value ref;
  StringRef name;
  SMLoc loc;
  int64_t rank = 0;
  bool isTensor = false;
  bool sliced = false;
  SmallVector<Value> offsets;
  /// A slice's extents, or a whole var's shape; none for a whole tensor.
  std::optional<SmallVector<int64_t>> extents;
};

static constexpr StringRef kCopyUsage =
    "copy(X[r :+ 16, c :+ 64], t), copy(t, Y[...], mask = m, width = 4) or "
    "copy(X, t, count = 256, src_offset = i)";

/// The side `expr` names: its base, and a slice's offsets and extents.
FailureOr<Emitter::CopySide> Emitter::emitCopySide(const Expr &expr,
                                                   StringRef role) {
  CopySide side;
  side.loc = expr.getLoc();
  const Expr *base = &expr;
  const auto *slice = dyn_cast<SliceExpr>(&expr);
  if (slice)
    base = slice->base.get();
  if (const auto *call = dyn_cast<CallExpr>(base);
      call && isStageAccessor(call->callee)) {
    FailureOr<Value> stage = emitStage(*call);
    if (failed(stage))
      return failure();
    side.ref = *stage;
    side.name = cast<NameExpr>(*call->args.front()).name;
  } else if (const auto *name = dyn_cast<NameExpr>(base)) {
    FailureOr<Symbol> symbol = resolve(name->name, name->getLoc());
    if (failed(symbol))
      return failure();
    side.name = name->name;
    if (symbol->kind == Symbol::Kind::Param) {
      side.ref = symbol->value;
      side.isTensor = true;
    } else if (symbol->kind == Symbol::Kind::Var &&
               !cast<VarType>(symbol->value.getType()).isScalar()) {
      if (failed(checkNotPipeline(symbol->value, name->name, name->getLoc())))
        return failure();
      side.ref = symbol->value;
    } else {
      return error(name->getLoc())
             << "the " << role << " of 'copy' is a tensor parameter, a tile "
             << "var or a pipeline stage; '" << name->name << "' is not";
    }
  } else {
    return error(base->getLoc())
           << "the " << role << " of 'copy' is a tensor parameter, a tile var "
           << "or a pipeline stage, or a slice of one: " << kCopyUsage;
  }
  if (side.isTensor) {
    side.rank = cast<GlobalTensorType>(side.ref.getType()).getRank();
  } else {
    ArrayRef<int64_t> shape = cast<VarType>(side.ref.getType()).getShape();
    side.rank = shape.size();
    side.extents.emplace(shape);
  }
  if (!slice)
    return side;
  side.sliced = true;
  if (slice->ranges.size() != static_cast<size_t>(side.rank))
    return error(slice->getLoc())
           << "'" << side.name << "' has " << side.rank
           << (side.rank == 1 ? " dimension" : " dimensions")
           << " but the slice has " << slice->ranges.size();
  SmallVector<int64_t> extents;
  for (const SliceExpr::Range &range : slice->ranges) {
    FailureOr<Value> offset = emitIndex(*range.start, "a copy's offset");
    if (failed(offset))
      return failure();
    side.offsets.push_back(*offset);
    // A single index is a range of one element: the box keeps the rank.
    int64_t extent = 1;
    if (range.isRange()) {
      FailureOr<int64_t> constant =
          emitConstantInt(*range.extent, "a slice extent");
      if (failed(constant))
        return failure();
      if (*constant <= 0)
        return error(range.extent->getLoc())
               << "a slice extent must be positive, got " << *constant;
      extent = *constant;
    }
    extents.push_back(extent);
  }
  side.extents = std::move(extents);
  return side;
}

LogicalResult Emitter::emitCopy(const CallExpr &call) {
  if (call.args.size() != 2)
    return error(call.getLoc())
           << "'copy' takes 2 arguments, the source and the destination, "
              "got "
           << call.args.size() << ": " << kCopyUsage;
  llvm::StringMap<const NamedArg *> named;
  for (const NamedArg &arg : call.named) {
    if (!llvm::is_contained(
            {"count", "src_offset", "dst_offset", "mask", "width", "async"},
            arg.name))
      return error(arg.loc) << "'copy' has no argument named '" << arg.name
                            << "'; it takes 'count', 'src_offset', "
                               "'dst_offset', 'mask', 'width' and 'async'";
    if (!named.try_emplace(arg.name, &arg).second)
      return error(arg.loc) << "argument '" << arg.name << "' given twice";
  }
  FailureOr<CopySide> source = emitCopySide(*call.args[0], "source");
  if (failed(source))
    return failure();
  FailureOr<CopySide> dest = emitCopySide(*call.args[1], "destination");
  if (failed(dest))
    return failure();
  if (source->isTensor && dest->isTensor)
    return error(call.getLoc())
           << "a copy between two tensors is a load and a store: " << dest->name
           << "[...] = " << source->name << "[...]";

  SmallVector<int64_t> box;
  if (const NamedArg *count = named.lookup("count")) {
    FailureOr<int64_t> elements =
        emitConstantInt(*count->value, "the count of 'copy'");
    if (failed(elements))
      return failure();
    if (*elements <= 0)
      return error(count->value->getLoc())
             << "the count of 'copy' is positive, got " << *elements;
    box.push_back(*elements);
    for (auto [side, key] :
         {std::pair{&*source, "src_offset"}, std::pair{&*dest, "dst_offset"}}) {
      if (side->sliced)
        return error(side->loc)
               << "with count, a side of 'copy' is a whole tensor or var and "
                  "its offset is "
               << key << "; a slice gives its own offsets and extents";
      if (side->rank != 1)
        return error(side->loc)
               << "count copies elements of 1-D tensors and vars; '"
               << side->name << "' has " << side->rank
               << " dimensions: copy a slice of it";
      Value offset;
      if (const NamedArg *arg = named.lookup(key)) {
        FailureOr<Value> index = emitIndex(*arg->value, key);
        if (failed(index))
          return failure();
        offset = *index;
      } else {
        offset =
            arith::ConstantIndexOp::create(builder, getLoc(call.getLoc()), 0);
      }
      side->offsets.push_back(offset);
    }
  } else {
    for (StringRef key : {"src_offset", "dst_offset"})
      if (const NamedArg *arg = named.lookup(key))
        return error(arg->loc)
               << "'" << key << "' goes with 'count'; a slice gives its own "
               << "offsets: copy(X[i :+ 256], t)";
    for (CopySide *side : {&*source, &*dest})
      if (!side->extents)
        return error(side->loc)
               << "the box of tensor '" << side->name
               << "' in the copy is a slice of it (" << side->name
               << "[a :+ R, ...]), or give count = N";
    if (*source->extents != *dest->extents)
      return error(call.getLoc())
             << "the source and the destination of 'copy' are ["
             << llvm::interleaved(*source->extents) << "] and ["
             << llvm::interleaved(*dest->extents) << "]"
             << ": they must have the same shape";
    box = *source->extents;
    for (CopySide *side : {&*source, &*dest})
      if (!side->sliced)
        side->offsets.assign(side->rank, arith::ConstantIndexOp::create(
                                             builder, getLoc(side->loc), 0));
  }

  int64_t width = 1;
  if (const NamedArg *arg = named.lookup("width")) {
    FailureOr<int64_t> value =
        emitConstantInt(*arg->value, "the width of 'copy'");
    if (failed(value))
      return failure();
    width = *value;
  }
  bool async = false;
  if (const NamedArg *arg = named.lookup("async")) {
    FailureOr<Operand> value = emitExpr(*arg->value);
    if (failed(value))
      return failure();
    if (!value->isLiteral() || value->literal->kind != Literal::Kind::Bool)
      return error(arg->value->getLoc()) << "'async' is true or false";
    async = value->literal->boolValue;
  }
  Value mask;
  if (const NamedArg *arg = named.lookup("mask")) {
    FailureOr<Operand> operand = emitExpr(*arg->value);
    if (failed(operand))
      return failure();
    if (!operand->isLiteral() &&
        !getElementTypeOrSelf(operand->value.getType()).isInteger(1))
      return error(arg->value->getLoc())
             << "the mask of 'copy' is boolean, got "
             << describe(operand->value.getType());
    FailureOr<Value> converted = convert(
        *operand, RankedTensorType::get(box, builder.getI1Type()), "the mask");
    if (failed(converted))
      return failure();
    mask = *converted;
  }
  auto op = CopyOp::create(builder, getLoc(call.getLoc()), source->ref,
                           source->offsets, dest->ref, dest->offsets, mask, box,
                           static_cast<uint64_t>(width), async);
  return verified(op);
}

//===----------------------------------------------------------------------===//
// The statements
//===----------------------------------------------------------------------===//

LogicalResult Emitter::emitMovementStmt(const CallExpr &call) {
  Location loc = getLoc(call.getLoc());
  if (call.callee == "copy")
    return emitCopy(call);
  if (call.callee == "advance") {
    if (call.args.size() != 1 || !call.named.empty())
      return error(call.getLoc()) << "'advance' takes 1 argument, the pipeline";
    FailureOr<Value> ring = emitPipelineName(call);
    if (failed(ring))
      return failure();
    // Renames the stages: stage k is now the one stage k + 1 was.
    Value rotation = rotations.lookup(*ring);
    rotationReads.erase(*ring);
    Value current = ReadOp::create(builder, loc, rotation);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    WriteOp::create(builder, loc,
                    arith::AddIOp::create(builder, loc, current, one),
                    rotation);
    return success();
  }
  if (call.callee == "wait_group") {
    if (call.args.size() != 1 || !call.named.empty())
      return error(call.getLoc())
             << "'wait_group' takes 1 argument, the groups left in flight";
    FailureOr<Literal> pending =
        evaluateConstant(*call.args[0], "the groups 'wait_group' leaves");
    if (failed(pending))
      return failure();
    if (pending->kind != Literal::Kind::Int || pending->intValue < 0 ||
        pending->intValue > 7)
      return error(call.args[0]->getLoc())
             << "wait_group(N) leaves N groups of async copies in flight, "
                "an integer from 0 to 7";
    WaitGroupOp::create(builder, loc, static_cast<uint64_t>(pending->intValue));
    return success();
  }
  if (!call.args.empty() || !call.named.empty())
    return error(call.getLoc()) << "'" << call.callee << "' takes no arguments";
  if (call.callee == "barrier")
    BarrierOp::create(builder, loc, /*requested=*/true);
  else
    CommitGroupOp::create(builder, loc);
  return success();
}
