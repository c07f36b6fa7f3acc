//===- LowerTensorCores.cpp - dots on tensor cores: ldmatrix, mma.sync ----===//
//
// A dot whose result has the #tile.mma layout (tile-tensor-cores chose it):
// each warp computes its block of the result as m16n8 mma.sync tiles, its
// operands read from shared memory by ldmatrix (f16, bf16) or a word at a
// time (tf32), the accumulator in the fragments #tile.mma places.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The tensor-core lowering of a dot, on the context's builder.
class TensorCoreLowering {
public:
  explicit TensorCoreLowering(LoweringContext &context)
      : context(context), builder(context.builder), loc(context.loc) {}

  /// ldmatrix of the shared operands `lhs` and `rhs` (their views),
  /// mma.sync into the accumulator's fragments.
  LogicalResult lowerDot(DotOp op, MmaLayoutAttr layout, Value lhs, Value rhs);

private:
  Value constantIndex(int64_t value) { return context.constantIndex(value); }
  Value zero(Type type) { return context.zero(type); }

  /// What a warp of a tensor-core dot works on: its lane, its block's
  /// first row and column, the mma tiles of its block, the operands' shared
  /// views and their row pitches (in elements).
  struct MmaWarpBlock {
    Value lane, blockRow, blockColumn;
    int64_t tilesM, tilesN;
    Value lhs, rhs;
    int64_t pitchA, pitchB;
  };
  /// The mma.syncs of a tensor-core dot over its K, on `fragments` (C, D
  /// of each mma tile of the warp's block, updated): m16n8k16 of f16 or
  /// bf16 operands, or m16n8k8 of tf32 ones, each K step's from its loader.
  void lowerMmaSteps(DotOp op, const MmaWarpBlock &block,
                     MutableArrayRef<Value> fragments);
  /// One K step's operands: A's fragment for each mma row of the block,
  /// B's for each mma column.
  struct MmaStepOperands {
    SmallVector<Value> a, b;
  };
  /// Emits a K step's operand loads (the argument: its first K).
  using MmaStepLoader = std::function<MmaStepOperands(int64_t)>;
  /// The loader of f16 and bf16 operands (ldmatrix), and of tf32 ones
  /// (loaded a word at a time, rounded); each emits its lanes' addressing
  /// first, once for every step.
  MmaStepLoader halfMmaOperands(DotOp op, const MmaWarpBlock &block);
  MmaStepLoader tf32MmaOperands(DotOp op, const MmaWarpBlock &block);

  LoweringContext &context;
  OpBuilder &builder;
  Location loc;
};
} // namespace

LogicalResult mlir::tile::lowerDotOnTensorCores(LoweringContext &context,
                                                DotOp op, MmaLayoutAttr layout,
                                                Value lhs, Value rhs) {
  return TensorCoreLowering(context).lowerDot(op, layout, lhs, rhs);
}

LogicalResult TensorCoreLowering::lowerDot(DotOp op, MmaLayoutAttr layout,
                                           Value lhs, Value rhs) {
  RankedTensorType type = op.getType();
  int64_t m = type.getDimSize(0), n = type.getDimSize(1),
          k = op.getLhs().getType().getDimSize(1);
  int64_t blockM = m / layout.getWarpsM(), blockN = n / layout.getWarpsN();
  int64_t tilesM = blockM / kMmaM, tilesN = blockN / kMmaN;
  // Operand rows are `columns + padding` apart (tile-plan-shared pads them
  // so that ldmatrix's eight rows fall in distinct banks).
  auto pitchOf = [&](Value operand, int64_t columns) {
    VarOp var = getVarOp(operand.getDefiningOp<ReadOp>().getVar());
    return columns + getRowPadding(var);
  };
  // A right operand given transposed is [N, K]: its rows are columns of B.
  bool transposed = op.getRhsTransposed();
  int64_t pitchA = pitchOf(op.getLhs(), k),
          pitchB = pitchOf(op.getRhs(), transposed ? k : n);
  // The accumulator: slots 4 t to 4 t + 3 of a thread are its fragment of
  // the t-th mma tile of its warp's block (#tile.mma), C and D of mma.sync
  // as vector<2x2xf32>.
  Type f32 = builder.getF32Type();
  auto fragmentType = VectorType::get({2, 2}, f32);
  Value accumulator;
  if (Value acc = op.getAcc()) {
    if (getLayout(acc) != layout)
      return op.emitError("internal error: the accumulator of a dot on "
                          "tensor cores is not in its layout ")
             << layout;
    FailureOr<DistributedTile> tile = context.lookupTile(op, acc);
    if (failed(tile))
      return failure();
    accumulator = tile->slots;
  }
  SmallVector<Value> fragments;
  for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
    if (!accumulator) {
      fragments.push_back(zero(fragmentType));
      continue;
    }
    SmallVector<Value> elements;
    for (int64_t c = 0; c < 4; ++c)
      elements.push_back(
          vector::ExtractOp::create(builder, loc, accumulator, 4 * tile + c));
    fragments.push_back(
        vector::FromElementsOp::create(builder, loc, fragmentType, elements));
  }
  Value lane = arith::RemUIOp::create(builder, loc, context.threadId,
                                      constantIndex(kLanes));
  Value warp = arith::DivUIOp::create(builder, loc, context.threadId,
                                      constantIndex(kLanes));
  // One statement per op-creating argument: the order of the ops must not
  // be the C++ compiler's order of evaluating arguments.
  Value rowsOfBlock = constantIndex(blockM);
  Value warpRow = arith::DivUIOp::create(builder, loc, warp,
                                         constantIndex(layout.getWarpsN()));
  Value blockRow = arith::MulIOp::create(builder, loc, warpRow, rowsOfBlock);
  Value columnsOfBlock = constantIndex(blockN);
  Value warpColumn = arith::RemUIOp::create(builder, loc, warp,
                                            constantIndex(layout.getWarpsN()));
  Value blockColumn =
      arith::MulIOp::create(builder, loc, warpColumn, columnsOfBlock);
  MmaWarpBlock block{lane, blockRow, blockColumn, tilesM, tilesN,
                     lhs,  rhs,      pitchA,      pitchB};
  lowerMmaSteps(op, block, fragments);
  Value slots = zero(context.getSlotsType(type));
  for (auto [tile, fragment] : llvm::enumerate(fragments))
    for (int64_t c = 0; c < 4; ++c)
      slots = vector::InsertOp::create(
          builder, loc,
          vector::ExtractOp::create(builder, loc, fragment,
                                    ArrayRef<int64_t>{c / 2, c % 2}),
          slots, 4 * tile + c);
  context.mapTile(op.getResult(), slots);
  return success();
}

void TensorCoreLowering::lowerMmaSteps(DotOp op, const MmaWarpBlock &block,
                                       MutableArrayRef<Value> fragments) {
  bool tf32 = op.getPrecision() == DotPrecision::tf32;
  MmaStepLoader load =
      tf32 ? tf32MmaOperands(op, block) : halfMmaOperands(op, block);
  int64_t stepK = getMmaK(op), k = op.getLhs().getType().getDimSize(1);
  auto fragmentType = VectorType::get({2, 2}, builder.getF32Type());
  auto mmaType = builder.getI64ArrayAttr({kMmaM, kMmaN, stepK});
  UnitAttr tf32Enabled = tf32 ? builder.getUnitAttr() : nullptr;
  for (int64_t k0 = 0; k0 < k; k0 += stepK) {
    MmaStepOperands operands = load(k0);
    for (int64_t i = 0; i < block.tilesM; ++i)
      for (int64_t j = 0; j < block.tilesN; ++j) {
        Value &fragment = fragments[i * block.tilesN + j];
        fragment = nvgpu::MmaSyncOp::create(builder, loc, fragmentType,
                                            operands.a[i], operands.b[j],
                                            fragment, mmaType, tf32Enabled);
      }
  }
}

TensorCoreLowering::MmaStepLoader
TensorCoreLowering::tf32MmaOperands(DotOp op, const MmaWarpBlock &block) {
  // mma.sync.m16n8k8.tf32 has no ldmatrix form for B: each thread loads its
  // fragments' words itself, as the PTX ISA's tf32 tables place them, with
  // groupID g = lane / 4 and threadID_in_group t = lane % 4: a_e at row
  // g + 8 (e % 2), column t + 4 (e / 2) of the 16 x 8 tile of A; b_e at row
  // (K) t + 4 e, column (N) g of the 8 x 8 tile of B. Each is rounded to
  // tf32 (the tensor core reads only a tf32's bits). A thread's addresses
  // are a base plus constants: (blockRow + g) pitchA + t for A, and for B
  // t pitchB + blockColumn + g, or (blockColumn + g) pitchB + t when B is
  // given transposed ([N, K]).
  bool transposed = op.getRhsTransposed();
  int64_t pitchA = block.pitchA, pitchB = block.pitchB;
  Value group =
      arith::DivUIOp::create(builder, loc, block.lane, constantIndex(4));
  Value inGroup =
      arith::RemUIOp::create(builder, loc, block.lane, constantIndex(4));
  auto plus = [this](Value a, Value b) {
    return arith::AddIOp::create(builder, loc, a, b).getResult();
  };
  auto times = [this](Value a, int64_t b) {
    return arith::MulIOp::create(builder, loc, a, constantIndex(b)).getResult();
  };
  Value baseA = plus(times(plus(block.blockRow, group), pitchA), inGroup);
  Value baseB =
      transposed ? plus(times(plus(block.blockColumn, group), pitchB), inGroup)
                 : plus(plus(times(inGroup, pitchB), block.blockColumn), group);
  auto fragment = [this, plus](Value view, Value base,
                               ArrayRef<int64_t> offsets) {
    SmallVector<Value> words;
    for (int64_t offset : offsets)
      words.push_back(
          roundToTF32(builder, loc,
                      memref::LoadOp::create(
                          builder, loc, view,
                          ValueRange{plus(base, constantIndex(offset))})));
    return vector::FromElementsOp::create(
               builder, loc,
               VectorType::get({static_cast<int64_t>(offsets.size()), 1},
                               builder.getF32Type()),
               words)
        .getResult();
  };
  return [=](int64_t k0) {
    MmaStepOperands operands;
    for (int64_t i = 0; i < block.tilesM; ++i) {
      int64_t row = kMmaM * i * pitchA + k0;
      operands.a.push_back(
          fragment(block.lhs, baseA,
                   {row, row + 8 * pitchA, row + 4, row + 8 * pitchA + 4}));
    }
    for (int64_t j = 0; j < block.tilesN; ++j) {
      int64_t start =
          transposed ? kMmaN * j * pitchB + k0 : k0 * pitchB + kMmaN * j;
      int64_t step = transposed ? 4 : 4 * pitchB;
      operands.b.push_back(fragment(block.rhs, baseB, {start, start + step}));
    }
    return operands;
  };
}

TensorCoreLowering::MmaStepLoader
TensorCoreLowering::halfMmaOperands(DotOp op, const MmaWarpBlock &block) {
  bool transposed = op.getRhsTransposed();
  Type element = op.getLhs().getType().getElementType();
  Value lane = block.lane;
  // ldmatrix's row addresses: lane 8 i + r gives row r of matrix i. For A
  // (x4, per 16 rows of the block) the matrices are rows 0-7 and 8-15 of K
  // 0-7, then of K 8-15: the lane's row is lane % 16 and its column
  // 8 (lane / 16). For B (x4.trans, per 16 columns) they are K 0-7 and
  // 8-15 of columns 0-7, then of columns 8-15: the same row and column, in
  // K and N. An odd last mma tile of B takes an x2.trans of its 16 rows.
  // A transposed B ([N, K]) is read without .trans, its matrices in the
  // same order: lane 8 i + r addresses row (N) 8 (i / 2) + r at K 8 (i % 2),
  // and an x2's lanes 0-15 row r at K 8 i.
  Value laneRow = arith::RemUIOp::create(builder, loc, lane, constantIndex(16));
  Value eight = constantIndex(8);
  Value laneHalf =
      arith::DivUIOp::create(builder, loc, lane, constantIndex(16));
  Value laneColumn = arith::MulIOp::create(builder, loc, laneHalf, eight);
  // (row + rowOffset) * pitch + column + columnOffset, in elements.
  auto address = [this](Value row, int64_t rowOffset, int64_t pitch,
                        Value column, int64_t columnOffset) {
    Value r =
        arith::AddIOp::create(builder, loc, row, constantIndex(rowOffset));
    Value start = arith::MulIOp::create(builder, loc, r, constantIndex(pitch));
    Value offset = constantIndex(columnOffset);
    Value at = arith::AddIOp::create(builder, loc, start, column);
    return arith::AddIOp::create(builder, loc, at, offset).getResult();
  };
  Value rowA = arith::AddIOp::create(builder, loc, block.blockRow, laneRow);
  Value columnB =
      arith::AddIOp::create(builder, loc, block.blockColumn, laneColumn);
  // A transposed B's row (N) and column (K) of the lane's address.
  Value rowBt, rowBtPair, columnBt;
  if (transposed) {
    Value laneInMatrix =
        arith::RemUIOp::create(builder, loc, lane, constantIndex(8));
    rowBtPair =
        arith::AddIOp::create(builder, loc, block.blockColumn, laneInMatrix);
    Value eightRows = constantIndex(8);
    Value laneHalf =
        arith::DivUIOp::create(builder, loc, lane, constantIndex(16));
    Value upper = arith::MulIOp::create(builder, loc, laneHalf, eightRows);
    rowBt = arith::AddIOp::create(builder, loc, rowBtPair, upper);
    Value second =
        arith::DivUIOp::create(builder, loc, laneRow, constantIndex(8));
    columnBt = arith::MulIOp::create(builder, loc, second, constantIndex(8));
  }
  auto operandType = [element](int64_t rows) {
    return VectorType::get({rows, 2}, element);
  };
  // Rows `first` and `first + 1` of a vector<4x2> as a vector<2x2>.
  auto rowsOf = [this, operandType](Value matrices, int64_t first) {
    SmallVector<Value> elements;
    for (int64_t row = first; row < first + 2; ++row)
      for (int64_t half = 0; half < 2; ++half)
        elements.push_back(vector::ExtractOp::create(
            builder, loc, matrices, ArrayRef<int64_t>{row, half}));
    return vector::FromElementsOp::create(builder, loc, operandType(2),
                                          elements)
        .getResult();
  };
  return [=](int64_t k0) {
    MmaStepOperands operands;
    int64_t tilesN = block.tilesN, pitchB = block.pitchB;
    for (int64_t i = 0; i < block.tilesM; ++i)
      operands.a.push_back(nvgpu::LdMatrixOp::create(
          builder, loc, operandType(4), block.lhs,
          ValueRange{address(rowA, kMmaM * i, block.pitchA, laneColumn, k0)},
          /*transpose=*/false, /*numTiles=*/4));
    for (int64_t j = 0; j + 1 < tilesN; j += 2) {
      Value start = transposed
                        ? address(rowBt, kMmaN * j, pitchB, columnBt, k0)
                        : address(laneRow, k0, pitchB, columnB, kMmaN * j);
      Value pair = nvgpu::LdMatrixOp::create(
          builder, loc, operandType(4), block.rhs, ValueRange{start},
          /*transpose=*/!transposed, /*numTiles=*/4);
      operands.b.push_back(rowsOf(pair, 0));
      operands.b.push_back(rowsOf(pair, 2));
    }
    if (tilesN % 2) {
      int64_t last = kMmaN * (tilesN - 1);
      Value start = transposed
                        ? address(rowBtPair, last, pitchB, columnBt, k0)
                        : address(laneRow, k0, pitchB, block.blockColumn, last);
      operands.b.push_back(nvgpu::LdMatrixOp::create(
          builder, loc, operandType(2), block.rhs, ValueRange{start},
          /*transpose=*/!transposed, /*numTiles=*/2));
    }
    return operands;
  };
}
