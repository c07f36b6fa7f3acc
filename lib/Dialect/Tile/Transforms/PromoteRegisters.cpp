//===- PromoteRegisters.cpp - keep @registers vars in registers -----------===//
//
// Acts on RegisterPromotionAnalysis: marks shuffle-folded reductions, stores
// the value to a shared tile before each use that needs one, then turns the
// var into SSA values (a mem2reg over structured control flow, scf.for
// carrying the value as an iter_arg).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Dialect/Tile/Transforms/RegisterPromotion.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPROMOTEREGISTERS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Whether a read (or, with `writesOnly`, a write) of `var` is nested in `op`.
static bool accesses(Operation *op, Value var, bool writesOnly) {
  return op
      ->walk([&](Operation *nested) {
        bool hit = isa<WriteOp>(nested)
                       ? cast<WriteOp>(nested).getVar() == var
                       : !writesOnly && isa<ReadOp>(nested) &&
                             cast<ReadOp>(nested).getVar() == var;
        return hit ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Replaces the reads and writes of `var` from `begin` to the end of `block`
/// by SSA values, `current` being its value at `begin`; returns its value at
/// the end of the block. The analysis has ruled out writes under anything but
/// scf.for, so other region ops only read `current`.
static Value promoteInBlock(RewriterBase &rewriter, Block &block,
                            Block::iterator begin, Value var, Value current) {
  for (Operation &op :
       llvm::make_early_inc_range(llvm::make_range(begin, block.end()))) {
    if (auto read = dyn_cast<ReadOp>(op); read && read.getVar() == var) {
      rewriter.replaceOp(read, current);
      continue;
    }
    if (auto write = dyn_cast<WriteOp>(op); write && write.getVar() == var) {
      current = write.getValue();
      rewriter.eraseOp(write);
      continue;
    }
    if (op.getNumRegions() == 0 || !accesses(&op, var, /*writesOnly=*/false))
      continue;
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop || !accesses(&op, var, /*writesOnly=*/true)) {
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          promoteInBlock(rewriter, nested, nested.begin(), var, current);
      continue;
    }
    // The loop updates the var: carry it. The yield is fixed up below, once
    // the body's final value is known.
    rewriter.setInsertionPoint(loop);
    auto carried = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, current, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>{args.front()};
        }));
    Block *body = carried.getBody();
    Value last = promoteInBlock(rewriter, *body, body->begin(), var,
                                carried.getRegionIterArgs().back());
    Operation *yield = body->getTerminator();
    yield->setOperand(yield->getNumOperands() - 1, last);
    current = carried.getResults().back();
  }
  return current;
}

namespace {
struct TilePromoteRegisters
    : public tile::impl::TilePromoteRegistersBase<TilePromoteRegisters> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// One remark, as a diagnostic with `remarks=true`, otherwise through
  /// MLIR's remark engine (enabled by `--remarks-filter=...`).
  void report(Location loc, RegisterUseKind kind, const Twine &message);
  void reportAnalysis(const RegisterPromotionAnalysis::Var &var);
  /// Turns `var` into SSA values; `spills` are its spill vars. Returns the
  /// spills left after merging those that hold one value.
  SmallVector<VarOp> promote(VarOp var, ArrayRef<VarOp> spills);
};
} // namespace

void TilePromoteRegisters::report(Location loc, RegisterUseKind kind,
                                  const Twine &message) {
  if (remarks) {
    emitRemark(loc) << message;
    return;
  }
  auto opts = remark::RemarkOpts::name("RegisterPromotion")
                  .category(getArgument())
                  .function(getOperation().getSymName());
  std::string text = message.str();
  if (kind == RegisterUseKind::Spill)
    remark::missed(loc, opts) << StringRef(text);
  else
    remark::passed(loc, opts) << StringRef(text);
}

void TilePromoteRegisters::reportAnalysis(
    const RegisterPromotionAnalysis::Var &var) {
  VarOp op = var.op;
  StringRef name = op.getName();
  report(op.getLoc(), RegisterUseKind::Elementwise,
         llvm::formatv("'{0}': {1} elements per thread ({2} elements, {3} "
                       "threads), kept in registers",
                       name, var.slots, var.elements, var.threads));
  for (const RegisterUse &use : var.uses) {
    Location loc = use.user->getLoc();
    switch (use.kind) {
    case RegisterUseKind::Elementwise:
      report(loc, use.kind,
             llvm::formatv("'{0}' stays in registers: {1}", name,
                           use.isWrite() ? "updated element by element"
                                         : "read element by element"));
      break;
    case RegisterUseKind::ShuffleFoldable:
      report(loc, use.kind,
             llvm::formatv("'{0}' folded with warp shuffles: {1}", name,
                           use.reason));
      break;
    case RegisterUseKind::Spill:
      report(loc, use.kind,
             llvm::formatv("'{0}' spilled to shared tile '{0}' for this use: "
                           "{1}",
                           name, use.reason));
      break;
    }
  }
}

SmallVector<VarOp> TilePromoteRegisters::promote(VarOp var,
                                                 ArrayRef<VarOp> spills) {
  IRRewriter rewriter(var.getContext());
  promoteInBlock(rewriter, *var->getBlock(), std::next(var->getIterator()),
                 var.getResult(), var.getInit());
  rewriter.eraseOp(var);

  // A spill whose value an earlier spill already holds, where that one
  // dominates it, reads the earlier one instead.
  SmallVector<VarOp> ordered, kept;
  getOperation().walk([&](VarOp spill) {
    if (llvm::is_contained(spills, spill))
      ordered.push_back(spill);
  });
  for (VarOp spill : ordered) {
    auto holder = llvm::find_if(kept, [&](VarOp earlier) {
      Operation *ancestor =
          earlier->getBlock()->findAncestorOpInBlock(*spill.getOperation());
      return earlier.getInit() == spill.getInit() && ancestor &&
             earlier->isBeforeInBlock(ancestor);
    });
    if (holder == kept.end()) {
      kept.push_back(spill);
      continue;
    }
    Operation *read = *spill->getUsers().begin();
    rewriter.replaceOp(read, *(*holder)->getUsers().begin());
    rewriter.eraseOp(spill);
  }
  return kept;
}

void TilePromoteRegisters::runOnOperation() {
  KernelOp kernel = getOperation();
  RegisterPromotionAnalysis &analysis =
      getAnalysis<RegisterPromotionAnalysis>();
  if (analysis.hasErrors()) {
    for (const RegisterPromotionAnalysis::Error &error : analysis.getErrors()) {
      InFlightDiagnostic diag = emitError(error.loc) << error.message;
      if (error.noteLoc)
        diag.attachNote(*error.noteLoc) << error.note;
      if (!error.hint.empty())
        diag.attachNote(error.loc) << error.hint;
    }
    return signalPassFailure();
  }
  if (analysis.getVars().empty())
    return markAllAnalysesPreserved();

  // Mark and spill every var's uses before any scf.for is rebuilt, while the
  // analysis' ops are all alive.
  OpBuilder builder(kernel.getContext());
  SmallVector<SmallVector<VarOp>> spills;
  for (const RegisterPromotionAnalysis::Var &var : analysis.getVars()) {
    VarOp op = var.op;
    reportAnalysis(var);
    SmallVector<VarOp> &varSpills = spills.emplace_back();
    for (const RegisterUse &use : var.uses) {
      if (use.kind == RegisterUseKind::ShuffleFoldable)
        use.user->setAttr(kFoldAttr, builder.getStringAttr("shuffle"));
      if (use.kind != RegisterUseKind::Spill)
        continue;
      OpOperand &operand = use.user->getOpOperand(use.operandNumber);
      builder.setInsertionPoint(use.user);
      auto spill = VarOp::create(builder, use.user->getLoc(), op.getName(),
                                 op.getVarType(), operand.get());
      spill->setAttr(kSpillOfAttr, op.getNameAttr());
      operand.set(ReadOp::create(builder, use.user->getLoc(),
                                 op.getVarType().getValueType(), spill));
      varSpills.push_back(spill);
    }
  }

  SmallVector<Attribute> promoted;
  if (auto earlier = kernel->getAttrOfType<ArrayAttr>(kPromotedAttr))
    llvm::append_range(promoted, earlier.getValue());
  for (auto [var, varSpills] : llvm::zip(analysis.getVars(), spills)) {
    VarOp op = var.op;
    StringRef name = op.getName();
    StringAttr nameAttr = op.getNameAttr();
    auto type = cast<RankedTensorType>(op.getVarType().getValueType());
    int64_t shuffles = llvm::count_if(var.uses, [](const RegisterUse &use) {
      return use.kind == RegisterUseKind::ShuffleFoldable;
    });
    SmallVector<VarOp> kept = promote(op, varSpills);
    promoted.push_back(PromotedVarAttr::get(kernel.getContext(), nameAttr, type,
                                            var.threads, var.slots, shuffles,
                                            kept.size()));
    for (VarOp spill : kept) {
      unsigned uses = (*spill->getUsers().begin())->getResult(0).getNumUses();
      bool inLoop = spill->getParentOfType<LoopLikeOpInterface>() != nullptr;
      report(spill.getLoc(), RegisterUseKind::Spill,
             llvm::formatv("'{0}' stored to shared tile '{0}' here, once{1}, "
                           "for {2} use(s)",
                           name, inLoop ? " per loop iteration" : "", uses));
    }
  }
  kernel->setAttr(kPromotedAttr, builder.getArrayAttr(promoted));
  kernel.removeRegistersAttr();
}
