//===- TileTypesTest.cpp - C++ API of the tile types and kernel op --------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/InitAllTile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class TileTypesTest : public ::testing::Test {
protected:
  TileTypesTest() {
    DialectRegistry registry;
    registerAllTileDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

TEST_F(TileTypesTest, TensorTypeNamesItsSymbols) {
  Builder b(&context);
  auto type = GlobalTensorType::get(&context, {16, ShapedType::kDynamic},
                                    {b.getStringAttr("K")}, b.getF32Type());
  EXPECT_EQ(type.getRank(), 2u);
  EXPECT_FALSE(type.isDynamicDim(0));
  EXPECT_TRUE(type.isDynamicDim(1));
  EXPECT_EQ(type.getSymbolOfDim(1).getValue(), "K");
  EXPECT_FALSE(type.getSymbolOfDim(0));
}

TEST_F(TileTypesTest, VarValueTypeIsTensorOrScalar) {
  Builder b(&context);
  auto tile = VarType::get(&context, {16, 64}, b.getF32Type());
  EXPECT_EQ(tile.getValueType(),
            RankedTensorType::get({16, 64}, b.getF32Type()));
  auto scalar = VarType::get(&context, {}, b.getI32Type());
  EXPECT_TRUE(scalar.isScalar());
  EXPECT_EQ(scalar.getValueType(), b.getI32Type());
}

TEST_F(TileTypesTest, KernelSymbolsFollowFirstAppearance) {
  const char *source = R"mlir(
    tile.kernel @k(%A: !tile.tensor<[M, K], f32>, %B: !tile.tensor<[K, N], f32>,
                   %C: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
      tile.return
    }
  )mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  auto kernel = cast<KernelOp>(module->getBody()->front());
  SmallVector<StringAttr> symbols = kernel.getSymbols();
  ASSERT_EQ(symbols.size(), 3u);
  EXPECT_EQ(symbols[0].getValue(), "M");
  EXPECT_EQ(symbols[1].getValue(), "K");
  EXPECT_EQ(symbols[2].getValue(), "N");
  EXPECT_EQ(kernel.getThreads(), 128);
  EXPECT_TRUE(kernel.getRegisterNames().empty());
}

TEST_F(TileTypesTest, KernelBuilderMakesAVerifiableKernel) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto param = GlobalTensorType::get(&context, {16, 64}, {}, b.getF32Type());
  auto kernel =
      KernelOp::create(b, loc, "k", b.getFunctionType({param}, {}), 256);
  b.setInsertionPointToEnd(&kernel.getBodyBlock());
  ReturnOp::create(b, loc);
  EXPECT_TRUE(succeeded(verify(*module)));

  kernel.setThreads(100);
  EXPECT_TRUE(failed(verify(*module)));
}

} // namespace
