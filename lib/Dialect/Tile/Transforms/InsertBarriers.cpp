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
  }
};
} // namespace
