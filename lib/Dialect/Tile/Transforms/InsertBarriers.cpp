//===- InsertBarriers.cpp - a tile.barrier where threads share memory -----===//
//
// Acts on the barrier analysis (tile/Analysis/Barriers.h): a tile.barrier
// before every op it names, and the kernel marked as synchronized.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Barriers.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
struct TileInsertBarriers
    : tile::impl::TileInsertBarriersBase<TileInsertBarriers> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    FailureOr<BarrierPlan> plan = planBarriers(kernel);
    if (failed(plan))
      return signalPassFailure();
    // In program order, so remarks follow the source.
    SmallVector<Operation *> before;
    kernel.walk([&](Operation *op) {
      if (plan->before.contains(op))
        before.push_back(op);
    });
    OpBuilder builder(kernel.getContext());
    for (Operation *op : before) {
      builder.setInsertionPoint(op);
      BarrierOp::create(builder, op->getLoc());
      if (remarks)
        emitRemark(op->getLoc(),
                   "barrier before this op: it touches memory that "
                   "another thread of the CTA accessed since the last "
                   "barrier");
    }
    kernel->setAttr(kSynchronizedAttr, builder.getUnitAttr());
    if (remarks)
      remarkRedundantRequests(kernel, plan->before);
  }

  /// A barrier the author wrote stays; a remark says when the kernel would
  /// need no barrier in its place: the plan without it adds none. Later
  /// ones first, and each found redundant is left out when asking about
  /// the earlier ones, so that the barriers reported can all go at once.
  void remarkRedundantRequests(KernelOp kernel,
                               const DenseSet<Operation *> &planned) {
    SmallVector<BarrierOp> requested;
    kernel.walk([&](BarrierOp barrier) {
      if (barrier.getRequested())
        requested.push_back(barrier);
    });
    DenseSet<Operation *> redundant;
    for (BarrierOp barrier : llvm::reverse(requested)) {
      redundant.insert(barrier);
      FailureOr<BarrierPlan> without = failure();
      {
        // Without the barrier the plan may fail (a barrier would be needed
        // under thread-dependent control flow): then it is needed.
        ScopedDiagnosticHandler quiet(kernel.getContext(),
                                      [](Diagnostic &) { return success(); });
        without = planBarriers(kernel, redundant);
      }
      if (failed(without) || llvm::any_of(without->before, [&](Operation *op) {
            return !planned.contains(op);
          }))
        redundant.erase(barrier);
    }
    for (BarrierOp barrier : requested)
      if (redundant.contains(barrier))
        emitRemark(barrier.getLoc(),
                   "this barrier() is redundant: no access after it conflicts "
                   "with another thread's access before it");
  }
};
} // namespace
