//===- LayoutsTest.cpp - layouts answer LayoutAttrInterface consistently --===//

#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/InitAllTile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/TypeSwitch.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

class LayoutsTest : public ::testing::Test {
protected:
  LayoutsTest() {
    DialectRegistry registry;
    registerAllTileDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The value of the index arithmetic the layouts emit, with `thread` for
  /// the block argument standing for the thread id.
  static int64_t evaluate(Value value, int64_t thread) {
    Operation *op = value.getDefiningOp();
    if (!op)
      return thread;
    auto operand = [&](unsigned i) {
      return evaluate(op->getOperand(i), thread);
    };
    return llvm::TypeSwitch<Operation *, int64_t>(op)
        .Case([](arith::ConstantIndexOp c) { return c.value(); })
        .Case([&](arith::AddIOp) { return operand(0) + operand(1); })
        .Case([&](arith::MulIOp) { return operand(0) * operand(1); })
        .Case([&](arith::DivUIOp) { return operand(0) / operand(1); })
        .Case([&](arith::RemUIOp) { return operand(0) % operand(1); })
        .Case([&](arith::SubIOp) { return operand(0) - operand(1); })
        .Case([&](arith::CmpIOp compare) -> int64_t {
          switch (compare.getPredicate()) {
          case arith::CmpIPredicate::uge:
            return operand(0) >= operand(1);
          case arith::CmpIPredicate::ult:
            return operand(0) < operand(1);
          default:
            ADD_FAILURE() << "unexpected predicate";
            return -1;
          }
        })
        .Case([&](arith::SelectOp) {
          return operand(0) ? operand(1) : operand(2);
        })
        .Default([](Operation *) -> int64_t {
          ADD_FAILURE() << "unexpected op";
          return -1;
        });
  }

  MLIRContext context;
};

// #tile.mma<warps = [2, 2]> on [64, 32] over 128 threads: every element in
// exactly one (thread, slot); the holder, the IR and the formula of
// TileAttrs.td agree.
TEST_F(LayoutsTest, MmaFragmentsCoverTheTileOnceAsTheISASays) {
  auto layout = cast<LayoutAttrInterface>(MmaLayoutAttr::get(&context, 2, 2));
  SmallVector<int64_t> shape = {64, 32};
  int64_t threads = 128;
  ASSERT_EQ(layout.getSlotCount(shape, threads), 16);
  EXPECT_FALSE(layout.isReplicated());

  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  Block *block = new Block();
  module->getBodyRegion().push_back(block);
  Value threadId = block->addArgument(builder.getIndexType(), loc);
  builder.setInsertionPointToStart(block);

  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t thread = 0; thread < threads; ++thread)
    for (int64_t slot = 0; slot < 16; ++slot) {
      std::optional<SmallVector<int64_t>> coords =
          layout.getSlotElement(shape, threads, thread, slot);
      ASSERT_TRUE(coords.has_value());
      // The formula: block of warp w at [32 (w / 2), 16 (w % 2)], 2 mma
      // tiles a block row.
      int64_t warp = thread / 32, lane = thread % 32, t = slot / 4,
              c = slot % 4;
      EXPECT_EQ((*coords)[0],
                32 * (warp / 2) + 16 * (t / 2) + lane / 4 + 8 * (c / 2));
      EXPECT_EQ((*coords)[1],
                16 * (warp % 2) + 8 * (t % 2) + 2 * (lane % 4) + c % 2);
      EXPECT_TRUE(seen.insert({(*coords)[0], (*coords)[1]}).second);
      EXPECT_EQ(layout.getElementHolder(shape, threads, *coords),
                std::make_pair(thread, slot));

      SmallVector<Value> emitted =
          layout.emitSlotElement(builder, loc, shape, threads, threadId, slot);
      ASSERT_EQ(emitted.size(), 2u);
      EXPECT_EQ(evaluate(emitted[0], thread), (*coords)[0]);
      EXPECT_EQ(evaluate(emitted[1], thread), (*coords)[1]);
      EXPECT_FALSE(
          layout.emitSlotValid(builder, loc, shape, threads, threadId, slot));
      SmallVector<Value> at = {
          arith::ConstantIndexOp::create(builder, loc, (*coords)[0]),
          arith::ConstantIndexOp::create(builder, loc, (*coords)[1])};
      EXPECT_EQ(evaluate(layout.emitElementHolderThread(builder, loc, shape,
                                                        threads, at),
                         /*thread=*/-1),
                thread);
    }
  EXPECT_EQ(seen.size(), 64u * 32u);
}

// #tile.blocked: the IR the lowering addresses every element with (it asks
// the layout, KernelLowering::slotCoordinates) says what getSlotElement
// says, in every shape's special case: rows that tile the threads, rows of
// a multiple of the threads, rows that do neither (no division a slot, the
// column wrapping by a select), runs of 4, and one dimension.
TEST_F(LayoutsTest, BlockedEmitsWhatItAnswers) {
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  Block *block = new Block();
  module->getBodyRegion().push_back(block);
  Value threadId = block->addArgument(builder.getIndexType(), loc);
  builder.setInsertionPointToStart(block);
  struct Case {
    SmallVector<int64_t> shape;
    int64_t vector, threads;
  };
  for (const Case &c :
       {Case{{8, 16}, 1, 128}, Case{{4, 256}, 1, 128}, Case{{40, 7}, 1, 128},
        Case{{16, 64}, 4, 256}, Case{{16, 24}, 4, 32}, Case{{300}, 1, 128}}) {
    auto layout =
        cast<LayoutAttrInterface>(BlockedLayoutAttr::get(&context, c.vector));
    int64_t slots = layout.getSlotCount(c.shape, c.threads);
    for (int64_t thread = 0; thread < c.threads; ++thread)
      for (int64_t slot = 0; slot < slots; ++slot) {
        std::optional<SmallVector<int64_t>> coords =
            layout.getSlotElement(c.shape, c.threads, thread, slot);
        Value valid = layout.emitSlotValid(builder, loc, c.shape, c.threads,
                                           threadId, slot);
        EXPECT_EQ(coords.has_value(), !valid || evaluate(valid, thread))
            << "slot " << slot << " of thread " << thread;
        if (!coords)
          continue;
        SmallVector<Value> emitted = layout.emitSlotElement(
            builder, loc, c.shape, c.threads, threadId, slot);
        ASSERT_EQ(emitted.size(), c.shape.size());
        for (size_t dim = 0; dim < c.shape.size(); ++dim)
          EXPECT_EQ(evaluate(emitted[dim], thread), (*coords)[dim])
              << "dimension " << dim << " of slot " << slot << " of thread "
              << thread << " in a tile of " << c.shape[0] << " rows";
      }
  }
}

// The verifier's rules: the warps are the CTA's, the tile whole mma tiles.
TEST_F(LayoutsTest, MmaVerifiesWarpsAndShape) {
  auto layout = cast<LayoutAttrInterface>(MmaLayoutAttr::get(&context, 2, 2));
  auto f32 = Float32Type::get(&context);
  auto report = [&] { return emitError(UnknownLoc::get(&context)); };
  context.getDiagEngine().registerHandler(
      [](Diagnostic &) { return success(); });
  EXPECT_TRUE(succeeded(
      layout.verifyLayout(RankedTensorType::get({64, 32}, f32), 128, report)));
  EXPECT_TRUE(failed(
      layout.verifyLayout(RankedTensorType::get({64, 32}, f32), 64, report)));
  EXPECT_TRUE(failed(
      layout.verifyLayout(RankedTensorType::get({48, 32}, f32), 128, report)));
}

// writeLayoutTypes gives every tile the layout it is made in, in its type:
// a constant's value takes its result's new type, a loop's iteration
// argument and result their init's, a row reduction's result the #tile.rows
// slice of its input's layout. The IR still verifies and getLayout reads
// the types.
TEST_F(LayoutsTest, WriteLayoutTypesWritesEveryTile) {
  const char *source = R"mlir(
tile.kernel @k(%X: !tile.tensor<[16, 64], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %zero) -> (tensor<16x64xf32>) {
    scf.yield %a : tensor<16x64xf32>
  }
  %s = tile.rowsum %x : tensor<16x64xf32, #tile.blocked<vector = 4>> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  writeLayoutTypes(*module);
  ASSERT_TRUE(succeeded(verify(*module)));
  auto cyclic = getCyclicLayout(&context);
  auto blocked = BlockedLayoutAttr::get(&context, 4);
  int64_t tiles = 0;
  module->walk([&](Operation *op) {
    for (Value value : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type)
        continue;
      ++tiles;
      EXPECT_EQ(type.getEncoding(), getLayout(value));
      if (auto constant = dyn_cast<arith::ConstantOp>(op))
        EXPECT_EQ(constant.getValue().getType(), type);
      if (isa<arith::ConstantOp, scf::ForOp>(op))
        EXPECT_EQ(type.getEncoding(), cyclic);
      if (isa<ReductionOpInterface>(op))
        EXPECT_EQ(type.getEncoding(),
                  RowsLayoutAttr::get(&context, 64, blocked));
    }
  });
  EXPECT_EQ(tiles, 4); // the load, the constant, the loop and the row sum
}

} // namespace
