//===- LowerWgmma.cpp - dots on Hopper's warpgroup MMA --------------------===//
//
// A dot tile-tensor-cores put on wgmma (`tile.dot ... on wgmma`, sm_90):
// each warpgroup (4 warps) computes 64 rows of the [M, N] result with one
// `wgmma.mma_async.m64nNk16` per 16 of K, reading A and B from their shared
// vars, which tile-tensor-cores laid out in wgmma's swizzle (`tile.swizzle`:
// each column block of `swizzle` bytes is R rows of `swizzle` bytes, 1024-
// byte aligned, its 16-byte chunks XORed with the row's bits 7 up). So
//
// * A [M, K] is read K-major: the warpgroup's 64 rows start `64 g swizzle`
//   bytes into the column block of its K step, 8-row groups `8 swizzle`
//   apart (SBO), a K step of 16 elements 32 bytes on inside the block;
// * B [K, N] is read N-major (the transpose immediate): a K step is 16
//   rows, `16 swizzle` bytes on, 8-row groups `8 swizzle` apart (SBO), the
//   column blocks of N `K swizzle` bytes apart (LBO); B given transposed
//   ([N, K], `dot(a, transpose(b))`) is read K-major as it is stored, as A.
//
// The descriptor's start address is the shared address (bits 4 to 17);
// the K steps' descriptors add their constant offsets to the first. The
// accumulator's slots (#tile.mma<warps = [W, 1]>: warp w holds rows 16 w
// to 16 w + 15 in m16n8 fragments, slot 4 t + c the c-th element of the
// t-th n8 tile) are, in order, wgmma's accumulator registers d_0 to
// d_{N/2-1}: the struct it takes is built from them and read back into
// them. Before the MMAs: `fence.proxy.async` (the operands were written
// through the generic proxy, before the barrier that precedes the dot) and
// `wgmma.fence`; after them, a commit and a wait for every group, so the
// accumulator may be read and the operands overwritten after the dot.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
constexpr int64_t kWarpgroupThreads = 128, kWgmmaRows = 64, kWgmmaK = 16;

/// A matrix descriptor's fields but the start address: LBO and SBO
/// (encoded >> 4) and the swizzle mode (1: 128B, 2: 64B, 3: 32B).
uint64_t descriptorFields(int64_t leading, int64_t stride, int64_t swizzle) {
  uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  return (uint64_t(leading >> 4) & 0x3fff) << 16 |
         (uint64_t(stride >> 4) & 0x3fff) << 32 | mode << 62;
}

/// An operand of the wgmma: its first descriptor, and the byte offset of
/// each K step's matrix from the first's.
struct Operand {
  Value descriptor;
  SmallVector<int64_t> steps;
};
} // namespace

LogicalResult mlir::tile::lowerDotOnWgmma(LoweringContext &context, DotOp op,
                                          MmaLayoutAttr layout, Value lhs,
                                          Value rhs) {
  OpBuilder &builder = context.builder;
  Location loc = context.loc;
  RankedTensorType type = op.getType();
  int64_t n = type.getDimSize(1), k = op.getLhs().getType().getDimSize(1);
  auto varOf = [](Value operand) {
    auto read = operand.getDefiningOp<ReadOp>();
    return read ? getVarOp(read.getVar()) : VarOp();
  };
  VarOp varA = varOf(op.getLhs()), varB = varOf(op.getRhs());
  if (!varA || !varB || !getSwizzleBytes(varA) || !getSwizzleBytes(varB))
    return op.emitError("internal error: a dot on wgmma whose operands are "
                        "not in swizzled shared vars (tile-tensor-cores "
                        "lays them out)");
  Type i64 = builder.getI64Type();
  auto constant64 = [&](uint64_t value) {
    return arith::ConstantIntOp::create(builder, loc, i64,
                                        static_cast<int64_t>(value))
        .getResult();
  };
  // (address & 0x3ffff) >> 4 | fields, from a view's shared address plus
  // `offset` (index) bytes.
  auto descriptor = [&](Value view, Value offset, uint64_t fields) {
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, view);
    Value address = arith::AddIOp::create(builder, loc, pointer, offset);
    Value address64 = arith::IndexCastUIOp::create(builder, loc, i64, address);
    Value masked =
        arith::AndIOp::create(builder, loc, address64, constant64(0x3ffff));
    Value encoded = arith::ShRUIOp::create(builder, loc, masked, constant64(4));
    return arith::OrIOp::create(builder, loc, encoded, constant64(fields))
        .getResult();
  };
  // A K-major [rows, K] operand: the K step's column block and its 32
  // bytes in it; rows `firstRow` on.
  auto kMajor = [&](Value view, VarOp var, Value firstRow) {
    int64_t swizzle = getSwizzleBytes(var);
    int64_t rows = var.getVarType().getShape()[0];
    Operand operand;
    Value rowBytes = arith::MulIOp::create(builder, loc, firstRow,
                                           context.constantIndex(swizzle));
    operand.descriptor =
        descriptor(view, rowBytes, descriptorFields(16, 8 * swizzle, swizzle));
    for (int64_t k0 = 0; k0 < k; k0 += kWgmmaK) {
      int64_t byte = 2 * k0;
      operand.steps.push_back((byte / swizzle) * rows * swizzle +
                              byte % swizzle);
    }
    return operand;
  };
  Value warpgroup = arith::DivUIOp::create(
      builder, loc, context.threadId, context.constantIndex(kWarpgroupThreads));
  Value firstRow = arith::MulIOp::create(builder, loc, warpgroup,
                                         context.constantIndex(kWgmmaRows));
  Operand a = kMajor(lhs, varA, firstRow);
  Operand b;
  bool transposed = op.getRhsTransposed();
  if (transposed) {
    b = kMajor(rhs, varB, context.constantIndex(0));
  } else {
    // (The var's rows are the dot's K: its tile is the operand.)
    int64_t swizzle = getSwizzleBytes(varB);
    int64_t rows = varB.getVarType().getShape()[0];
    b.descriptor =
        descriptor(rhs, context.constantIndex(0),
                   descriptorFields(rows * swizzle, 8 * swizzle, swizzle));
    for (int64_t k0 = 0; k0 < k; k0 += kWgmmaK)
      b.steps.push_back(k0 * swizzle);
  }

  // The accumulator: the thread's slots, in order, as wgmma's registers.
  Type f32 = builder.getF32Type();
  MLIRContext *ctx = builder.getContext();
  auto structType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(n / 2, f32));
  Value accumulator = LLVM::UndefOp::create(builder, loc, structType);
  if (Value acc = op.getAcc()) {
    if (getLayout(acc) != layout)
      return op.emitError("internal error: the accumulator of a dot on "
                          "wgmma is not in its layout ")
             << layout;
    FailureOr<DistributedTile> tile = context.lookupTile(op, acc);
    if (failed(tile))
      return failure();
    for (int64_t slot = 0; slot < n / 2; ++slot)
      accumulator = LLVM::InsertValueOp::create(
          builder, loc, accumulator,
          vector::ExtractOp::create(builder, loc, tile->slots, slot), slot);
  }

  NVVM::FenceProxyOp::create(
      builder, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  NVVM::WgmmaFenceAlignedOp::create(builder, loc);
  auto element = op.getLhs().getType().getElementType().isBF16()
                     ? NVVM::WGMMATypes::bf16
                     : NVVM::WGMMATypes::f16;
  auto typeAttr = [&](NVVM::WGMMATypes kind) {
    return NVVM::WGMMATypesAttr::get(ctx, kind);
  };
  auto shape = NVVM::MMAShapeAttr::get(ctx, kWgmmaRows, n, kWgmmaK);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  // NVVM's layouts: A row-major is K-major; B column-major is K-major,
  // row-major N-major (imm-trans-b).
  auto layoutA = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
  auto layoutB = NVVM::MMALayoutAttr::get(
      ctx, transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row);
  for (auto [step, offsets] : llvm::enumerate(llvm::zip(a.steps, b.steps))) {
    auto [offsetA, offsetB] = offsets;
    auto at = [&](Value first, int64_t offset) {
      if (!offset)
        return first;
      return arith::AddIOp::create(builder, loc, first,
                                   constant64(uint64_t(offset) >> 4))
          .getResult();
    };
    Value descA = at(a.descriptor, offsetA);
    Value descB = at(b.descriptor, offsetB);
    auto scaleD = NVVM::WGMMAScaleOutAttr::get(
        ctx, step == 0 && !op.getAcc() ? NVVM::WGMMAScaleOut::zero
                                       : NVVM::WGMMAScaleOut::one);
    accumulator = NVVM::WgmmaMmaAsyncOp::create(
        builder, loc, structType, accumulator, descA, descB, shape,
        typeAttr(element), typeAttr(element), typeAttr(NVVM::WGMMATypes::f32),
        scaleD, one, one, layoutA, layoutB, /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(builder, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(builder, loc, uint64_t(0));

  Value slots = context.zero(context.getSlotsType(type));
  for (int64_t slot = 0; slot < n / 2; ++slot)
    slots = vector::InsertOp::create(
        builder, loc,
        LLVM::ExtractValueOp::create(builder, loc, accumulator, slot), slots,
        slot);
  context.mapTile(op.getResult(), slots);
  return success();
}
