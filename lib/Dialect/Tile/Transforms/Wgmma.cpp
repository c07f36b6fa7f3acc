//===- Wgmma.cpp - which tensor-core dots run on wgmma --------------------===//
//
// On sm_90, a dot on tensor cores runs on Hopper's `wgmma.mma_async`
// (LowerWgmma.cpp) instead of mma.sync when the CTA's warpgroups (4 warps
// each) split its result in blocks of 64 rows (wgmma's M) of N columns, N
// a multiple of 8 up to 256, and its operands live in shared vars that
// nothing but wgmma dots read: those are laid out in wgmma's swizzle
// (`tile.swizzle`, the widest of 128, 64 and 32 bytes their rows are whole
// blocks of), which their writers (stores, copies, cp.async ring fills)
// write and the dot's matrix descriptors describe. The others keep
// mma.sync, and their remark says why.
//
//===----------------------------------------------------------------------===//

#include "Wgmma.h"
#include "tile/Dialect/Tile/IR/Layouts.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The chip with wgmma (sm_90a's warpgroup MMA; sm_100 has tcgen05).
constexpr int kWgmmaChip = 90;
/// The rows a warpgroup's wgmma computes, the most columns it takes.
constexpr int64_t kWgmmaM = 64, kWgmmaMaxN = 256, kWarpgroupWarps = 4;

/// The wgmma swizzle of a shared [R, C] operand tile of `type` rows: the
/// widest of 128, 64 and 32 bytes that its rows are whole blocks of, or 0.
int64_t chooseSwizzle(VarType type) {
  int64_t rowBytes = type.getShape().back() *
                     type.getElementType().getIntOrFloatBitWidth() / 8;
  for (int64_t swizzle : {128, 64, 32})
    if (rowBytes % swizzle == 0)
      return swizzle;
  return 0;
}

/// Why a dot on tensor cores cannot run on wgmma for `chip` in a CTA of
/// `threads` (its operands aside), or empty.
std::string whyNotWgmmaShape(DotOp dot, int chip, int64_t threads) {
  RankedTensorType type = dot.getType();
  int64_t m = type.getDimSize(0), n = type.getDimSize(1),
          warps = threads / kLanes;
  if (chip != kWgmmaChip)
    return llvm::formatv("sm_{0} has no wgmma (sm_90a's)", chip);
  if (dot.getPrecision() == DotPrecision::tf32)
    return "wgmma takes f16 and bf16 here; a tf32 dot stays on "
           "mma.sync.m16n8k8";
  if (warps % kWarpgroupWarps)
    return llvm::formatv("the CTA's {0} warps are not whole warpgroups of 4",
                         warps);
  if (m != kWgmmaM * (warps / kWarpgroupWarps))
    return llvm::formatv("each of the CTA's {0} warpgroups computes 64 rows "
                         "on wgmma, so M must be {1}, not {2}",
                         warps / kWarpgroupWarps,
                         kWgmmaM * (warps / kWarpgroupWarps), m);
  if (n % kMmaN || n > kWgmmaMaxN)
    return llvm::formatv("wgmma takes N a multiple of 8 up to 256, not {0}", n);
  return "";
}

std::string lineOf(Operation *op) {
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    return " at line " + std::to_string(loc.getLine());
  return "";
}

/// The var a dot's operand is a read of (of the var, or of a stage of a
/// ring), or null.
VarOp operandVar(Value operand) {
  auto read = operand.getDefiningOp<ReadOp>();
  return read ? getVarOp(read.getVar()) : VarOp();
}

/// Why `var`, an operand of a wgmma dot, cannot be laid out in wgmma's
/// swizzle: a use other than writes, copies and reads by `candidates`'
/// operands, or rows not whole swizzle blocks; empty when it can.
std::string whyNotSwizzled(VarOp var, const DenseSet<Operation *> &candidates) {
  if (var.getVarType().getShape().size() != 2 ||
      var.getStorage() == Storage::registers)
    return llvm::formatv("'{0}' is not a shared tile", var.getName());
  if (!chooseSwizzle(var.getVarType()))
    return llvm::formatv("the rows of '{0}' are not whole 32-byte blocks "
                         "(wgmma's narrowest swizzle)",
                         var.getName());
  std::string why;
  auto visit = [&](Operation *user) {
    if (!why.empty() || isa<WriteOp, CopyOp>(user))
      return;
    auto read = dyn_cast<ReadOp>(user);
    if (!read) {
      why = llvm::formatv("'{0}' is also used by '{1}'{2}", var.getName(),
                          user->getName().getStringRef(), lineOf(user));
      return;
    }
    for (OpOperand &use : read->getUses())
      if (use.getOperandNumber() >= 2 || !candidates.contains(use.getOwner())) {
        why = llvm::formatv("'{0}' is also read by '{1}'{2}, which is no "
                            "wgmma operand",
                            var.getName(),
                            use.getOwner()->getName().getStringRef(),
                            lineOf(use.getOwner()));
        return;
      }
  };
  for (Operation *user : var->getUsers()) {
    if (isa<StageOp>(user))
      llvm::for_each(user->getUsers(), visit);
    else
      visit(user);
  }
  return why;
}

} // namespace

void mlir::tile::chooseWgmma(KernelOp kernel, ArrayRef<DotOp> dots, int chip,
                             DenseMap<Operation *, std::string> &notWgmma) {
  int64_t threads = kernel.getThreads();
  DenseSet<Operation *> candidates;
  DenseMap<Operation *, std::string> why;
  for (DotOp dot : dots) {
    std::string reason = whyNotWgmmaShape(dot, chip, threads);
    if (reason.empty())
      candidates.insert(dot);
    else
      why[dot] = reason;
  }
  // A var read by a dot that keeps mma.sync cannot be swizzled, which
  // may keep another dot off wgmma: until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (DotOp dot : dots) {
      if (!candidates.contains(dot))
        continue;
      for (Value operand : {dot.getLhs(), dot.getRhs()}) {
        std::string reason;
        if (VarOp var = operandVar(operand))
          reason = whyNotSwizzled(var, candidates);
        else if (!chooseSwizzle(VarType::get(
                     dot.getContext(),
                     cast<RankedTensorType>(operand.getType()).getShape(),
                     cast<RankedTensorType>(operand.getType())
                         .getElementType())))
          reason = "an operand's rows are not whole 32-byte blocks "
                   "(wgmma's narrowest swizzle)";
        if (reason.empty())
          continue;
        candidates.erase(dot);
        why[dot] = reason;
        changed = true;
        break;
      }
    }
  }
  for (DotOp dot : dots) {
    if (!candidates.contains(dot)) {
      if (chip == kWgmmaChip)
        notWgmma[dot] = why[dot];
      continue;
    }
    int64_t warps = threads / kLanes;
    setLayout(dot.getResult(), MmaLayoutAttr::get(dot.getContext(), warps, 1));
    dot.setWgmma(true);
    for (OpOperand *operand : {&dot.getLhsMutable(), &dot.getRhsMutable()}) {
      VarOp var = operandVar(operand->get());
      if (!var) {
        OpBuilder builder(dot);
        auto type = cast<RankedTensorType>(operand->get().getType());
        var = VarOp::create(builder, dot.getLoc(),
                            operand->getOperandNumber() == 0 ? "wgmma.lhs"
                                                             : "wgmma.rhs",
                            VarType::get(dot.getContext(), type.getShape(),
                                         type.getElementType()),
                            operand->get());
        var.setStorage(Storage::shared);
        operand->set(ReadOp::create(builder, dot.getLoc(), var));
      }
      var->setAttr(kSwizzleAttr,
                   Builder(var.getContext())
                       .getI64IntegerAttr(chooseSwizzle(var.getVarType())));
    }
  }
}

std::string mlir::tile::describeWgmma(DotOp dot) {
  RankedTensorType type = dot.getType();
  auto operand = [](Value value, StringRef major) {
    VarOp var = operandVar(value);
    return llvm::formatv("'{0}' ({1}-major, {2}B swizzle)", var.getName(),
                         major, getSwizzleBytes(var))
        .str();
  };
  int64_t warpgroups = getMmaLayout(dot).getWarpsM() / kWarpgroupWarps;
  return llvm::formatv(
      "wgmma.mma_async.m64n{0}k16 of {1}, {2} warpgroup(s) each computing a "
      "[64, {0}] block: {3} wgmma a warpgroup, from shared {4} and {5}, no "
      "ldmatrix",
      type.getDimSize(1), dot.getLhs().getType().getElementType(), warpgroups,
      dot.getLhs().getType().getDimSize(1) / kMmaK, operand(dot.getLhs(), "K"),
      operand(dot.getRhs(), dot.getRhsTransposed() ? "K" : "N"));
}
