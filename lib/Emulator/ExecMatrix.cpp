//===- ExecMatrix.cpp - ldmatrix and mma.sync, from the PTX ISA -----------===//
//
// The warp-level matrix instructions, modelled from the PTX ISA's
// description and fragment tables ("Warp-level matrix load instruction:
// ldmatrix", "Matrix fragments for mma.m16n8k16 with floating point type",
// "... for mma.m16n8k8 with .tf32"), as `nvgpu.ldmatrix` and
// `nvgpu.mma.sync` carry them, not from the layouts tile-to-gpu computes:
// the lowering's fragment layout and these tables are two derivations that
// must agree, which the emulate-against-interp check tests.
//
// Both are `.sync.aligned`: a lane waits until every lane of its warp is at
// the same instruction (Emulator.cpp checks that and reports a missing
// lane), then the warp's instruction completes at once here.
//
// * `ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16` loads N (1, 2, 4)
//   8x8 matrices of 16-bit elements. Lane 8 i + r gives the address of row
//   r of matrix i: 16 consecutive bytes, 16-byte aligned, in shared memory
//   (lanes past 8 N give none). Lane l receives, of each matrix, the 32-bit
//   word of row l / 4 and columns 2 (l % 4) and 2 (l % 4) + 1 (the lower
//   column in the lower half); with .trans, of the matrix transposed:
//   elements (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4) of it as stored.
//   nvgpu's result vector<N x 2 x T> is that word per matrix.
// * `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`
//   computes D = A B + C for A 16 x 16, B 16 x 8, C and D 16 x 8, with
//   groupID = lane / 4 and tig = lane % 4 (threadID_in_group):
//     a_i (i < 8): row groupID + 8 ((i / 2) % 2), column 2 tig + i % 2 + 8 (i /
//     4) b_i (i < 4): row 2 tig + i % 2 + 8 (i / 2), column groupID c_i, d_i (i
//     < 4): row groupID + 8 (i / 2), column 2 tig + i % 2
//   nvgpu's operands are vector<4x2>, vector<2x2>, vector<2x2> whose
//   element [j][h] is fragment element 2 j + h.
// * `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`: A 16 x 8 of
//   tf32, B 8 x 8, C and D as above:
//     a_i (i < 4): row groupID + 8 (i % 2), column tig + 4 (i / 2)
//     b_i (i < 2): row tig + 4 i, column groupID
//   The tensor core reads the 19 upper bits of a tf32 operand (sign,
//   exponent, 10 bits of mantissa): the emulator drops the 13 lower ones.
//
// The products of f16, bf16 and tf32 elements are exact in double, and so
// is their sum of 16 terms to well within f32; each element of D is that
// sum plus C's element, rounded once to f32. The hardware's order of
// additions differs by a few f32 ulps at most, which the check's f32
// tolerance for a dot holds.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile::emulator;

namespace {
/// The position of a fragment element in its matrix.
struct Position {
  int64_t row, column;
};

int64_t groupOf(int64_t lane) { return lane / 4; }
int64_t threadInGroup(int64_t lane) { return lane % 4; }

Position fragmentA16(int64_t lane, int64_t i) {
  return {groupOf(lane) + 8 * ((i / 2) % 2),
          2 * threadInGroup(lane) + i % 2 + 8 * (i / 4)};
}
Position fragmentB16(int64_t lane, int64_t i) {
  return {2 * threadInGroup(lane) + i % 2 + 8 * (i / 2), groupOf(lane)};
}
Position fragmentATF32(int64_t lane, int64_t i) {
  return {groupOf(lane) + 8 * (i % 2), threadInGroup(lane) + 4 * (i / 2)};
}
Position fragmentBTF32(int64_t lane, int64_t i) {
  return {threadInGroup(lane) + 4 * i, groupOf(lane)};
}
Position fragmentC(int64_t lane, int64_t i) {
  return {groupOf(lane) + 8 * (i / 2), 2 * threadInGroup(lane) + i % 2};
}

/// The value of a tf32 operand: its 13 lower mantissa bits dropped.
double tf32Value(uint64_t bits) {
  return bitCast<float>(static_cast<uint32_t>(bits) & 0xffffe000u);
}
} // namespace

LogicalResult Interpreter::executeNVGPU(Operation *op) {
  if (!isa<nvgpu::LdMatrixOp, nvgpu::MmaSyncOp>(op))
    return unsupported(op);
  thread->status = ThreadStatus::AtWarpOp;
  thread->waitingAt = op;
  return success();
}

LogicalResult Interpreter::completeMatrixOp(Operation *op,
                                            ArrayRef<Thread *> lanes) {
  if (isa<nvgpu::LdMatrixOp>(op))
    return completeLdMatrix(op, lanes);
  return completeMmaSync(op, lanes);
}

LogicalResult Interpreter::completeLdMatrix(Operation *op,
                                            ArrayRef<Thread *> lanes) {
  auto load = cast<nvgpu::LdMatrixOp>(op);
  auto result = cast<VectorType>(load.getRes().getType());
  int64_t matrices = load.getNumTiles();
  thread = lanes.front();
  if (classify(result).bits != 16 || result.getRank() != 2 ||
      result.getDimSize(0) != matrices || result.getDimSize(1) != 2 ||
      (matrices != 1 && matrices != 2 && matrices != 4))
    return unsupported(op, "ldmatrix other than .m8n8.x{1,2,4}.b16 into "
                           "vector<N x 2 x 16-bit> is not supported");
  // The row addresses: lane 8 i + r gives row r of matrix i.
  SmallVector<Address> rows;
  for (int64_t lane = 0; lane < 8 * matrices; ++lane) {
    thread = lanes[lane];
    std::optional<Address> address =
        memrefElement(op, load.getSrcMemref(), load.getIndices());
    if (!address)
      return failure();
    if (address->space != MemorySpace::Shared)
      return fail(op, "ldmatrix reads shared memory only, but lane " +
                          Twine(lane) + " gives an address outside it,");
    if (address->offset % 16 != 0)
      return fail(op, "ldmatrix row address of lane " + Twine(lane) +
                          " is byte " + Twine(address->offset) +
                          " of shared memory, which is not 16-byte aligned,");
    // The row's 8 elements lie in the memref, not only in the buffer.
    auto memref = cast<MemRefType>(load.getSrcMemref().getType());
    int64_t index = static_cast<int64_t>(get(load.getIndices().back())[0]);
    if (index + 8 > memref.getShape().back())
      return fail(op, "ldmatrix row of lane " + Twine(lane) +
                          " runs past the end of its memref: elements " +
                          Twine(index) + " to " + Twine(index + 7) + " of " +
                          Twine(memref.getShape().back()) + ",");
    rows.push_back(*address);
  }
  if (cta.bankConflicts) {
    Thread &first = *lanes.front();
    cta.bankConflicts->recordLdMatrix(
        op, first.linearId / kWarpSize, first.sharedInstances[op]++,
        llvm::map_to_vector(rows, [](Address row) { return row.offset; }));
  }
  // Each lane reads the two elements it receives: the race check sees the
  // lane that gets a value, whichever lane gave its row's address.
  bool transpose = load.getTranspose();
  std::vector<Slots> results(lanes.size());
  for (auto [lane, peer] : llvm::enumerate(lanes)) {
    thread = peer;
    Slots &slots = results[lane];
    for (int64_t matrix = 0; matrix < matrices; ++matrix) {
      for (int64_t half = 0; half < 2; ++half) {
        int64_t row = groupOf(lane), column = 2 * threadInGroup(lane) + half;
        if (transpose)
          std::swap(row, column);
        Address element = rows[8 * matrix + row];
        element.offset += 2 * column;
        const uint8_t *bytes = access(op, element, 2, AccessKind::Read);
        if (!bytes)
          return failure();
        slots.push_back(uint64_t(bytes[0]) | uint64_t(bytes[1]) << 8);
      }
    }
  }
  for (auto [lane, peer] : llvm::enumerate(lanes))
    peer->values[launch.program.valueIds.lookup(load.getRes())] =
        std::move(results[lane]);
  return success();
}

LogicalResult Interpreter::completeMmaSync(Operation *op,
                                           ArrayRef<Thread *> lanes) {
  auto mma = cast<nvgpu::MmaSyncOp>(op);
  thread = lanes.front();
  std::array<int64_t, 3> shape = mma.getMmaShapeAsArray();
  ElementType input = classify(mma.getMatrixA().getType());
  ElementType accumulator = classify(mma.getMatrixC().getType());
  bool tf32 = mma.getTf32EnabledAttr() != nullptr;
  bool half = input.kind == ElementKind::F16 || input.kind == ElementKind::BF16;
  if (accumulator.kind != ElementKind::F32 ||
      !(half && shape == std::array<int64_t, 3>{16, 8, 16}) &&
          !(tf32 && input.kind == ElementKind::F32 &&
            shape == std::array<int64_t, 3>{16, 8, 8}))
    return unsupported(op, "mma.sync other than m16n8k16 of f16/bf16 or "
                           "m16n8k8 of tf32, accumulated in f32, is not "
                           "supported");
  int64_t k = shape[2];
  auto fragmentA = tf32 ? fragmentATF32 : fragmentA16;
  auto fragmentB = tf32 ? fragmentBTF32 : fragmentB16;
  auto value = [&](uint64_t bits) {
    return tf32 ? tf32Value(bits) : decodeDouble(input.kind, bits);
  };
  // The warp's matrices from its lanes' fragments.
  std::vector<double> a(16 * k), b(k * 8), c(16 * 8);
  for (auto [lane, peer] : llvm::enumerate(lanes)) {
    auto slotsOf = [&](Value operand) -> const Slots & {
      return peer->values[launch.program.valueIds.lookup(operand)];
    };
    const Slots &fragA = slotsOf(mma.getMatrixA());
    const Slots &fragB = slotsOf(mma.getMatrixB());
    const Slots &fragC = slotsOf(mma.getMatrixC());
    if (fragA.size() != static_cast<size_t>(k / 2) ||
        fragB.size() != static_cast<size_t>(k / 4) || fragC.size() != 4)
      return unsupported(op, "mma.sync operands of " + Twine(fragA.size()) +
                                 ", " + Twine(fragB.size()) + " and " +
                                 Twine(fragC.size()) +
                                 " elements a lane do not match its shape");
    for (auto [i, bits] : llvm::enumerate(fragA)) {
      Position p = fragmentA(lane, i);
      a[p.row * k + p.column] = value(bits);
    }
    for (auto [i, bits] : llvm::enumerate(fragB)) {
      Position p = fragmentB(lane, i);
      b[p.row * 8 + p.column] = value(bits);
    }
    for (auto [i, bits] : llvm::enumerate(fragC)) {
      Position p = fragmentC(lane, i);
      c[p.row * 8 + p.column] = decodeDouble(accumulator.kind, bits);
    }
  }
  for (auto [lane, peer] : llvm::enumerate(lanes)) {
    Slots &result = peer->values[launch.program.valueIds.lookup(mma.getRes())];
    result.resize(4);
    for (int64_t i = 0; i < 4; ++i) {
      Position p = fragmentC(lane, i);
      double sum = 0;
      for (int64_t inner = 0; inner < k; ++inner)
        sum += a[p.row * k + inner] * b[inner * 8 + p.column];
      result[i] = encodeFloat(ElementKind::F32, c[p.row * 8 + p.column] + sum);
    }
  }
  return success();
}
