//===- Allocation.cpp - where each shared var lives in shared memory ------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/ChipLimits.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Program order of every op of a kernel; a region op spans its contents.
struct ProgramOrder {
  explicit ProgramOrder(KernelOp kernel) { number(kernel); }

  int64_t start(Operation *op) const { return starts.lookup(op); }
  int64_t end(Operation *op) const { return ends.lookup(op); }

  /// The positions an access at `op` keeps a var live for: an access inside
  /// a loop that the var outlives keeps it live for the whole loop.
  std::pair<int64_t, int64_t> span(Operation *op, Operation *varOp) const {
    Operation *outermost = op;
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (parent->isAncestor(varOp))
        break;
      if (isa<scf::ForOp, scf::WhileOp>(parent))
        outermost = parent;
    }
    return {start(outermost), end(outermost)};
  }

private:
  void number(Operation *op) {
    starts[op] = next++;
    for (Region &region : op->getRegions())
      for (Operation &nested : region.getOps())
        number(&nested);
    ends[op] = next - 1;
  }
  DenseMap<Operation *, int64_t> starts, ends;
  int64_t next = 0;
};

/// The first tile.wait_group 0 after `copy`, in its block or the blocks
/// around it, or the kernel's return: every async copy has landed there.
Operation *findDrainingWait(CopyOp copy) {
  Operation *op = copy;
  for (;;) {
    for (Operation *next = op->getNextNode(); next;
         next = next->getNextNode()) {
      if (auto wait = dyn_cast<WaitGroupOp>(next);
          wait && wait.getPending() == 0)
        return wait;
      if (isa<ReturnOp>(next))
        return next;
    }
    op = op->getParentOp();
  }
}

/// `var`'s buffer with its live range: from the var to its last access,
/// where an op reading a read of it across threads reads the buffer itself
/// and an async copy writes it until the wait that drains it.
SharedBuffer getLiveRange(VarOp var, const ProgramOrder &order) {
  SharedBuffer buffer;
  buffer.var = var;
  buffer.bytes = getStorageBytes(var);
  buffer.alignment = getSharedAlignment(var);
  buffer.first = buffer.last = order.start(var);
  buffer.firstOp = buffer.lastOp = var;
  auto extend = [&](Operation *op) {
    auto [first, last] = order.span(op, var);
    if (first < buffer.first) {
      buffer.first = first;
      buffer.firstOp = op;
    }
    if (last > buffer.last) {
      buffer.last = last;
      buffer.lastOp = op;
    }
  };
  auto extendOver = [&](Operation *user) {
    extend(user);
    if (auto read = dyn_cast<ReadOp>(user))
      for (OpOperand &use : read->getUses())
        if (readsAcrossThreads(use))
          extend(use.getOwner());
    if (auto copy = dyn_cast<CopyOp>(user);
        copy && copy.getAsync() && getVarOp(copy.getDest()) == var)
      extend(findDrainingWait(copy));
  };
  for (Operation *user : var->getUsers()) {
    extendOver(user);
    // A ring is used through its stages.
    if (isa<StageOp>(user))
      for (Operation *stageUser : user->getUsers())
        extendOver(stageUser);
  }
  return buffer;
}

/// First fit, largest buffers first, among the buffers live at once; the
/// bytes they span.
int64_t layOut(MutableArrayRef<SharedBuffer> buffers) {
  SmallVector<SharedBuffer *> bySize;
  for (SharedBuffer &buffer : buffers)
    bySize.push_back(&buffer);
  llvm::stable_sort(bySize, [](SharedBuffer *a, SharedBuffer *b) {
    return a->bytes > b->bytes;
  });
  SmallVector<SharedBuffer *> placed;
  int64_t total = 0;
  for (SharedBuffer *buffer : bySize) {
    SmallVector<SharedBuffer *> overlapping;
    for (SharedBuffer *other : placed)
      if (other->first <= buffer->last && buffer->first <= other->last)
        overlapping.push_back(other);
    llvm::sort(overlapping, [](SharedBuffer *a, SharedBuffer *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (SharedBuffer *other : overlapping) {
      if (offset + buffer->bytes <= other->offset)
        break;
      offset =
          std::max<int64_t>(offset, llvm::alignTo(other->offset + other->bytes,
                                                  buffer->alignment));
    }
    buffer->offset = offset;
    placed.push_back(buffer);
    total = std::max(total, offset + buffer->bytes);
  }
  return total;
}

} // namespace

std::string mlir::tile::getSourceLine(Operation *op) {
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    return std::to_string(loc.getLine());
  return "?";
}

std::string SharedBuffer::describeLiveRange() const {
  std::string file;
  if (auto loc = dyn_cast<FileLineColLoc>(var->getLoc()))
    file = loc.getFilename().str() + ":";
  return file + getSourceLine(firstOp) + "-" + getSourceLine(lastOp);
}

SharedAllocation::SharedAllocation(KernelOp kernel) {
  ProgramOrder order(kernel);
  kernel.walk([&](VarOp var) {
    if (isSharedTile(var))
      buffers.push_back(getLiveRange(var, order));
  });
  totalBytes = layOut(buffers);
}
