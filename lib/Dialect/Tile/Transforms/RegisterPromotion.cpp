//===- RegisterPromotion.cpp - which tile vars can live in registers ------===//
//
// The legality and use classification of `@registers`, per the contract in
// docs/spec.md ("## @registers"): five rejections, three kinds of use.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/RegisterPromotion.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

StringRef mlir::tile::stringifyRegisterUseKind(RegisterUseKind kind) {
  switch (kind) {
  case RegisterUseKind::Elementwise:
    return "elementwise";
  case RegisterUseKind::ShuffleFoldable:
    return "shuffle";
  case RegisterUseKind::Spill:
    return "spill";
  }
  llvm_unreachable("unknown RegisterUseKind");
}

static RegisterUseKind classifyReduction(ReductionOpInterface op,
                                         std::string &reason) {
  StringRef what = op->getName().stripDialect();
  RankedTensorType type = op.getInput().getType();
  int64_t row = type.getDimSize(type.getRank() - 1);
  // The lowering folds exactly what the InWarp strategy says; the rest only
  // words the reason.
  if (getReductionStrategy(op) == ReductionStrategy::InWarp) {
    reason = op.getAxis() == 0
                 ? llvm::formatv("{0} over columns of {1} elements in a CTA "
                                 "of one warp, each column in the lanes {2} "
                                 "apart",
                                 what, type.getDimSize(0), row)
                       .str()
                 : llvm::formatv("{0} over rows of {1} elements, each row in "
                                 "{1} lanes of one warp",
                                 what, row)
                       .str();
    return RegisterUseKind::ShuffleFoldable;
  }
  Type element = type.getElementType();
  if (op.getAxis() == 0) {
    // Promotion folds rows only; a column in one thread is served from its
    // registers by tile-plan-shared.
    reason = getReductionStrategy(op) == ReductionStrategy::InThread
                 ? llvm::formatv("{0} over columns, each in one thread's "
                                 "registers (no other thread reads them)",
                                 what)
                       .str()
                 : llvm::formatv("{0} over columns, whose elements are in "
                                 "different threads",
                                 what)
                       .str();
  } else if (!element.isF32() && !element.isInteger(32)) {
    std::string name;
    llvm::raw_string_ostream(name) << element;
    reason = llvm::formatv("{0} of an {1} tile: warp shuffles fold f32 and "
                           "i32 rows only",
                           what, name);
  } else if (!llvm::isPowerOf2_64(row)) {
    reason = llvm::formatv("{0} over rows of {1} elements, which is not a "
                           "power of two",
                           what, row);
  } else if (op.getKind() == ReductionKind::argmax) {
    reason = llvm::formatv("{0} over rows of {1} elements, more than the {2} "
                           "lanes of a warp (an argmax has no warp-segmented "
                           "form)",
                           what, row, kLanes);
  } else {
    reason = llvm::formatv("{0} over rows of {1} elements, more than the {2} "
                           "lanes of a warp",
                           what, row, kLanes);
  }
  return RegisterUseKind::Spill;
}

/// Whether `op` maps each element of its operands to the element at the same
/// index of its results, all of one shape: it needs no other thread's data.
static bool isElementwiseOfShape(Operation *op, RankedTensorType type) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() == 0)
    return false;
  return llvm::all_of(op->getResultTypes(), [&](Type result) {
    auto tensor = dyn_cast<RankedTensorType>(result);
    return tensor && tensor.getShape() == type.getShape();
  });
}

RegisterUseKind mlir::tile::classifyRegisterUse(OpOperand &use,
                                                std::string &reason) {
  reason.clear();
  Operation *user = use.getOwner();
  auto type = dyn_cast<RankedTensorType>(use.get().getType());
  if (!type) {
    reason = "not a tile value";
    return RegisterUseKind::Spill;
  }
  if (auto reduction = dyn_cast<ReductionOpInterface>(user);
      reduction && use.get() == reduction.getInput())
    return classifyReduction(reduction, reason);
  if (isElementwiseOfShape(user, type))
    return RegisterUseKind::Elementwise;
  // A dot's accumulator is read at the element it adds to.
  if (auto dot = dyn_cast<DotOp>(user);
      dot && dot.getAcc() && use.getOperandNumber() == 2)
    return RegisterUseKind::Elementwise;
  // A sub-tile whose elements stay with their owners, in the same slot in
  // every thread, moves between each thread's own registers.
  if (isa<ExtractSliceOp, InsertSliceOp>(user)) {
    if (classifyTileUse(use) == TileUseKind::ByOwner)
      return RegisterUseKind::Elementwise;
    reason = "a sub-tile whose elements other threads hold";
    return RegisterUseKind::Spill;
  }
  if (auto write = dyn_cast<WriteOp>(user)) {
    // `t = t`: the value read is written back to the same var.
    auto read = use.get().getDefiningOp<ReadOp>();
    if (read && read.getVar() == write.getVar())
      return RegisterUseKind::Elementwise;
    VarOp target = getVarOp(write.getVar());
    reason = llvm::formatv("a copy into var '{0}'",
                           target ? target.getName() : StringRef("?"));
  } else if (auto var = dyn_cast<VarOp>(user)) {
    reason = llvm::formatv("the initial value of var '{0}'", var.getName());
  } else if (isa<StoreOp>(user)) {
    reason = "a store to a tensor";
  } else if (isa<ScatterOp>(user)) {
    reason = "a scatter to a tensor";
  } else if (isa<AtomicOp>(user)) {
    reason = "an atomic update of a tensor";
  } else if (isa<GatherOp>(user)) {
    reason = "the indices of a gather";
  } else if (isa<DotOp>(user)) {
    reason = "an operand of a dot";
  } else if (isa<TransposeOp>(user)) {
    reason = "a transpose";
  } else if (isa<ExtractOp>(user)) {
    reason = "an element every thread reads";
  } else {
    reason = llvm::formatv("read by '{0}', which is not elementwise",
                           user->getName().getStringRef());
  }
  return RegisterUseKind::Spill;
}

//===----------------------------------------------------------------------===//
// RegisterPromotionAnalysis
//===----------------------------------------------------------------------===//

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

/// The region op between `write` and the block of `var` that is not an
/// scf.for (an if, a while, ...), or null: only a for can carry the value.
static Operation *findNonLoopAncestor(WriteOp write, VarOp var) {
  Operation *varScope = var->getBlock()->getParentOp();
  for (Operation *op = write->getParentOp(); op && op != varScope;
       op = op->getParentOp())
    if (!isa<scf::ForOp>(op))
      return op;
  return nullptr;
}

static StringRef describeRegionOp(Operation *op) {
  if (isa<scf::IfOp>(op))
    return "an if";
  if (isa<scf::WhileOp>(op))
    return "a while";
  return op->getName().getStringRef();
}

RegisterPromotionAnalysis::RegisterPromotionAnalysis(Operation *op) {
  auto kernel = cast<KernelOp>(op);
  SmallVector<StringRef> requested = kernel.getRegisterNames();
  kernel.walk([&](VarOp var) {
    if (var.getStorage() == Storage::registers &&
        !llvm::is_contained(requested, var.getName()))
      requested.push_back(var.getName());
  });

  for (StringRef name : requested) {
    SmallVector<VarOp> tiles;
    VarOp scalar;
    kernel.walk([&](VarOp var) {
      if (var.getName() != name)
        return;
      if (var.getVarType().isScalar())
        scalar = var;
      else
        tiles.push_back(var);
    });
    if (tiles.empty()) {
      Error error{kernel.getLoc(),
                  llvm::formatv("'{0}' in @registers of kernel '{1}' is not "
                                "a 'var {0}: tile<..>[..]' of the kernel: the "
                                "name refers to nothing",
                                name, kernel.getSymName()),
                  std::nullopt, ""};
      if (scalar) {
        error.noteLoc = scalar.getLoc();
        error.note = llvm::formatv("'{0}' is a scalar var", name);
      }
      errors.push_back(std::move(error));
      continue;
    }
    for (VarOp var : tiles)
      analyzeVar(var, kernel.getThreads());
  }
}

void RegisterPromotionAnalysis::analyzeVar(VarOp var, int64_t threads) {
  StringRef name = var.getName();
  ArrayRef<int64_t> shape = var.getVarType().getShape();
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  Var result{var, elements, threads, elements / threads, {}};
  size_t errorsBefore = errors.size();
  auto fail = [&](Location loc, std::string message) {
    errors.push_back({loc, std::move(message), std::nullopt, ""});
  };

  if (var.getStorage() == Storage::shared || var.isRing())
    fail(var.getLoc(),
         llvm::formatv("'{0}' is declared {1}: it lives in shared memory", name,
                       var.isRing() ? "a pipeline" : "shared"));
  else if (!var.getInit())
    fail(var.getLoc(),
         llvm::formatv("'{0}' is declared without an initial value: a "
                       "register tile needs one",
                       name));
  if (elements % threads != 0)
    fail(var.getLoc(),
         llvm::formatv("'{0}': {1} has {2} elements, which {3} threads cannot "
                       "share evenly: every thread must hold the same number "
                       "of elements",
                       name, formatShape(shape), elements, threads));
  else if (result.slots > kMaxRegisterSlots) {
    fail(var.getLoc(),
         llvm::formatv("'{0}': {1} has {2} elements, {3} per thread with {4} "
                       "threads, over the cap for one register tile ({5} per "
                       "thread)",
                       name, formatShape(shape), elements, result.slots,
                       threads, kMaxRegisterSlots));
    // The fewest threads, a multiple of a warp, that hold it in the cap.
    int64_t enough = llvm::alignTo(
        llvm::divideCeil(elements, kMaxRegisterSlots), int64_t(kLanes));
    errors.back().hint =
        enough <= 1024 && elements % enough == 0
            ? llvm::formatv("use more threads (@launch({0}) holds it, {1} "
                            "per thread) or a smaller tile",
                            enough, elements / enough)
                  .str()
            : std::string("use a smaller tile: no CTA holds it in registers");
  }

  // Uses in program order, so remarks and spills follow the source.
  var->getParentOfType<KernelOp>().walk([&](Operation *op) {
    if (auto write = dyn_cast<WriteOp>(op)) {
      if (write.getVar() != var.getResult())
        return;
      if (Operation *scope = findNonLoopAncestor(write, var)) {
        errors.push_back(
            {write.getLoc(),
             llvm::formatv("'{0}' is updated inside {1}: an update of a "
                           "register tile inside an if or a while is not "
                           "supported",
                           name, describeRegionOp(scope)),
             var.getLoc(), llvm::formatv("'{0}' is declared here", name),
             isa<scf::IfOp>(scope)
                 ? llvm::formatv("update it after the if instead, choosing "
                                 "element by element: '{0} = where(cond, new "
                                 "value, {0})'",
                                 name)
                       .str()
                 : std::string("a for loop carries a register tile through "
                               "its iterations; a while does not")});
      }
      result.uses.push_back({RegisterUseKind::Elementwise, write, 0, ""});
      return;
    }
    auto read = dyn_cast<ReadOp>(op);
    if (!read || read.getVar() != var.getResult())
      return;
    SmallVector<OpOperand *> readUses;
    for (OpOperand &use : read.getResult().getUses())
      readUses.push_back(&use);
    // Use lists run newest first; report them in program order.
    for (OpOperand *use : llvm::reverse(readUses)) {
      RegisterUse entry{RegisterUseKind::Elementwise, use->getOwner(),
                        use->getOperandNumber(), ""};
      entry.kind = classifyRegisterUse(*use, entry.reason);
      result.uses.push_back(std::move(entry));
    }
  });
  for (Operation *user : var->getUsers())
    if (!isa<ReadOp, WriteOp>(user))
      fail(user->getLoc(),
           llvm::formatv("'{0}' is used by '{1}', which needs it in memory: "
                         "a register tile can only be read and written",
                         name, user->getName().getStringRef()));

  if (errors.size() == errorsBefore)
    vars.push_back(std::move(result));
}
