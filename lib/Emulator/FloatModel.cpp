//===- FloatModel.cpp - the GPU's fused and approximate float results -----===//
//
// What the compiled kernel computes where it is not the IEEE op the lowered
// code names: a multiply and an add tile-to-gpu marked `contract` that the
// NVPTX back end fuses into one fma, an f32 division marked `afn`
// (`--fp-div=full`: div.full.f32), and `math.exp` marked `afn`
// (`__nv_fast_expf`). docs/design.md, "The emulate backend", says how close
// each model is.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile::emulator;

static bool contracts(Operation *op) {
  auto flags = op->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
  return flags &&
         bitEnumContainsAll(flags.getValue(), arith::FastMathFlags::contract);
}

/// The mulf that defines `value` when the GPU's code may fuse it into
/// `add`: both marked contract, and the product computed in the add's
/// basic block. Ops of one MLIR block share one; an op nested in an
/// scf.if or scf.execute_region under the multiply's block reads a product
/// that LLVM sinks into its block when every use is there (InstCombine),
/// but nothing sinks into a loop.
static arith::MulFOp fusableProduct(Value value, Operation *add) {
  auto multiply = value.getDefiningOp<arith::MulFOp>();
  if (!multiply || !contracts(multiply))
    return {};
  Block *home = multiply->getBlock();
  if (add->getBlock() == home)
    return multiply;
  for (Operation *user : multiply->getUsers())
    if (user->getBlock() != add->getBlock())
      return {};
  for (Operation *parent = add->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (!isa<scf::IfOp, scf::ExecuteRegionOp>(parent))
      return {};
    if (parent->getBlock() == home)
      return multiply;
  }
  return {};
}

static size_t countUses(Operation *op) {
  return std::distance(op->getUses().begin(), op->getUses().end());
}

void Program::findFusedProducts() {
  func.walk([&](Operation *op) {
    if (!isa<arith::AddFOp, arith::SubFOp>(op) || !contracts(op))
      return;
    arith::MulFOp lhs = fusableProduct(op->getOperand(0), op);
    arith::MulFOp rhs = fusableProduct(op->getOperand(1), op);
    // DAGCombiner's choice of two products (visitFADDForFMACombine and
    // visitFSUBForFMACombine, with NVPTX's aggressive fusion): the one
    // with fewer uses, else the left one.
    if (lhs && rhs && countUses(lhs) > countUses(rhs))
      lhs = {};
    if (lhs)
      fusedProducts[op] = {lhs, 0};
    else if (rhs)
      fusedProducts[op] = {rhs, 1};
  });
}

/// The sign bit of a float slot of `kind`.
static uint64_t signBit(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
  case ElementKind::BF16:
    return uint64_t(1) << 15;
  case ElementKind::F64:
    return uint64_t(1) << 63;
  default:
    return uint64_t(1) << 31;
  }
}

uint64_t mlir::tile::emulator::negateFloat(ElementKind kind, uint64_t bits) {
  return bits ^ signBit(kind);
}

uint64_t mlir::tile::emulator::fusedMultiplyAdd(ElementKind kind, uint64_t a,
                                                uint64_t b, uint64_t c) {
  if (kind == ElementKind::F64)
    return bitCast<uint64_t>(
        std::fma(bitCast<double>(a), bitCast<double>(b), bitCast<double>(c)));
  if (kind == ElementKind::F32)
    return bitCast<uint32_t>(std::fma(
        decodeFloat(kind, a), decodeFloat(kind, b), decodeFloat(kind, c)));
  // f16 and bf16: the product is exact in double; the sum rounded to odd
  // in double (53 bits, more than twice 11 + 1) then to the type rounds
  // once, as fma.rn.f16 and fma.rn.bf16 do.
  double product = static_cast<double>(decodeFloat(kind, a)) *
                   static_cast<double>(decodeFloat(kind, b));
  double addend = decodeFloat(kind, c);
  double sum = product + addend;
  if (std::isfinite(sum)) {
    // TwoSum: sum + error is the exact product + addend.
    double bigger = sum - addend;
    double error = (product - bigger) + (addend - (sum - bigger));
    if (error != 0 && (bitCast<uint64_t>(sum) & 1) == 0)
      sum = std::nextafter(sum, error > 0 ? INFINITY : -INFINITY);
  }
  return encodeFloat(kind, sum);
}

float mlir::tile::emulator::divideFull(float dividend, float divisor) {
  // div.full.f32 is div.approx.f32 (dividend times the approximate
  // reciprocal of the divisor) over the full range: a divisor beyond
  // 2^126, whose reciprocal would be subnormal, is scaled down by 4 with
  // the dividend first. rcp.approx.f32 is within 1 ulp of 1 / divisor;
  // here it is the correctly rounded reciprocal.
  if (std::fabs(divisor) > 0x1p126f) {
    dividend *= 0.25f;
    divisor *= 0.25f;
  }
  float reciprocal = 1.0f / divisor;
  return dividend * reciprocal;
}

float mlir::tile::emulator::fastExp(float x) {
  // libdevice's __nv_fast_expf: ex2.approx.f32 of x * log2(e) rounded to
  // f32 (0x3FF7154760000000); ex2.approx (at most 2 ulp) is taken as the
  // correctly rounded 2^t. The rounded product is what makes the error
  // grow with |x|.
  float t = x * 1.44269502162933349609375f;
  return static_cast<float>(std::exp2(static_cast<double>(t)));
}
