//===- RegisterPromotionTest.cpp - RegisterPromotionAnalysis as a library -===//

#include "tile/Dialect/Tile/Transforms/RegisterPromotion.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/InitAllTile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

// The seed's `squares`.
const char *kSquares = R"mlir(
  tile.kernel @squares(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>,
                       %S: !tile.tensor<[16, 1], f32>)
      attributes {threads = 256 : i64, registers = ["acc"]} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant dense<0.0> : tensor<16x64xf32>
    %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
    %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
    scf.for %kt = %c0 to %K step %c64 {
      %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
      %sq = arith.mulf %x, %x : tensor<16x64xf32>
      %a = tile.read %acc : !tile.var<16x64xf32>
      %sum = arith.addf %a, %sq : tensor<16x64xf32>
      tile.write %sum, %acc : !tile.var<16x64xf32>
    }
    %a1 = tile.read %acc : !tile.var<16x64xf32>
    tile.store %a1, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
    %rs = tile.rowsum %a1 : tensor<16x64xf32> -> tensor<16x1xf32>
    tile.store %rs, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
    tile.return
  }
)mlir";

class RegisterPromotionTest : public ::testing::Test {
protected:
  RegisterPromotionTest() {
    DialectRegistry registry;
    registerAllTileDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const char *source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  MLIRContext context;
};

TEST_F(RegisterPromotionTest, DistributionIsElementModuloThreads) {
  // [16, 64] over 256 threads: thread t holds t, t + 256, t + 512, t + 768.
  EXPECT_EQ(getRegisterSlot(0, 256).thread, 0);
  EXPECT_EQ(getRegisterSlot(255, 256).thread, 255);
  EXPECT_EQ(getRegisterSlot(256, 256).thread, 0);
  EXPECT_EQ(getRegisterSlot(256, 256).slot, 1);
  EXPECT_EQ(getRegisterSlot(1023, 256).thread, 255);
  EXPECT_EQ(getRegisterSlot(1023, 256).slot, 3);
}

TEST_F(RegisterPromotionTest, ClassifiesTheUsesOfSquares) {
  OwningOpRef<ModuleOp> module = parse(kSquares);
  ASSERT_TRUE(module);
  auto kernel = cast<KernelOp>(module->getBody()->front());
  std::string before;
  llvm::raw_string_ostream(before) << *module;

  RegisterPromotionAnalysis analysis(kernel);
  ASSERT_FALSE(analysis.hasErrors());
  ASSERT_EQ(analysis.getVars().size(), 1u);
  const RegisterPromotionAnalysis::Var &acc = analysis.getVars().front();
  EXPECT_EQ(acc.elements, 1024);
  EXPECT_EQ(acc.threads, 256);
  EXPECT_EQ(acc.slots, 4);

  // The add and the write in the loop; the store and the rowsum after it.
  ASSERT_EQ(acc.uses.size(), 4u);
  EXPECT_EQ(acc.uses[0].kind, RegisterUseKind::Elementwise);
  EXPECT_TRUE(isa<arith::AddFOp>(acc.uses[0].user));
  EXPECT_EQ(acc.uses[1].kind, RegisterUseKind::Elementwise);
  EXPECT_TRUE(acc.uses[1].isWrite());
  EXPECT_EQ(acc.uses[2].kind, RegisterUseKind::Spill);
  EXPECT_TRUE(isa<StoreOp>(acc.uses[2].user));
  EXPECT_EQ(acc.uses[2].reason, "a store to a tensor");
  EXPECT_EQ(acc.uses[3].kind, RegisterUseKind::Spill);
  EXPECT_TRUE(isa<RowSumOp>(acc.uses[3].user));
  EXPECT_NE(acc.uses[3].reason.find("64 elements"), std::string::npos);

  // An analysis changes nothing.
  std::string after;
  llvm::raw_string_ostream(after) << *module;
  EXPECT_EQ(before, after);
}

TEST_F(RegisterPromotionTest, ReportsEachRejectionAsAnError) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[3, 5], f32>)
        attributes {threads = 256 : i64, registers = ["acc", "ghost"]} {
      %zero = arith.constant dense<0.0> : tensor<3x5xf32>
      %acc = tile.var "acc" = %zero : !tile.var<3x5xf32>
      tile.return
    }
  )mlir");
  ASSERT_TRUE(module);
  RegisterPromotionAnalysis analysis(&module->getBody()->front());
  ASSERT_EQ(analysis.getErrors().size(), 2u);
  EXPECT_TRUE(analysis.getVars().empty());
  EXPECT_NE(analysis.getErrors()[0].message.find(
                "15 elements, which 256 threads cannot share evenly: every "
                "thread must hold the same number of elements"),
            std::string::npos);
  EXPECT_NE(analysis.getErrors()[1].message.find(
                "'ghost' in @registers of kernel 'k'"),
            std::string::npos);
  EXPECT_NE(analysis.getErrors()[1].message.find("the name refers to nothing"),
            std::string::npos);
}

TEST_F(RegisterPromotionTest, ClassifiesUsesInAnyDialect) {
  // Another compiler's IR: the classifier needs only the op traits.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%t: tensor<8x32xf32>, %u: tensor<8x32xf32>) -> tensor<8x32xf32> {
      %s = arith.addf %t, %u : tensor<8x32xf32>
      return %t : tensor<8x32xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto func = cast<func::FuncOp>(module->getBody()->front());
  Value t = func.getArgument(0);
  std::string reason;
  for (OpOperand &use : t.getUses()) {
    RegisterUseKind kind = classifyRegisterUse(use, reason);
    if (isa<arith::AddFOp>(use.getOwner())) {
      EXPECT_EQ(kind, RegisterUseKind::Elementwise);
      EXPECT_TRUE(reason.empty());
    } else {
      EXPECT_EQ(kind, RegisterUseKind::Spill);
      EXPECT_EQ(reason, "read by 'func.return', which is not elementwise");
    }
  }
}

TEST_F(RegisterPromotionTest, PassPromotesThroughAPassManager) {
  OwningOpRef<ModuleOp> module = parse(kSquares);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addNestedPass<KernelOp>(createTilePromoteRegisters());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  auto kernel = cast<KernelOp>(module->getBody()->front());
  EXPECT_FALSE(kernel.getRegisters());
  auto promoted = kernel->getAttrOfType<ArrayAttr>(kPromotedAttr);
  ASSERT_TRUE(promoted);
  auto record = cast<PromotedVarAttr>(promoted[0]);
  EXPECT_EQ(record.getSlots(), 4);
  EXPECT_EQ(record.getSpills(), 1);
  unsigned spills = 0, accVars = 0;
  kernel.walk([&](VarOp var) {
    accVars += var.getName() == "acc";
    spills += var->hasAttr(kSpillOfAttr);
  });
  EXPECT_EQ(accVars, 1u);
  EXPECT_EQ(spills, 1u);
}

} // namespace
