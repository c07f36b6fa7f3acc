//===- InterpreterTest.cpp - the interp backend against hand results ------===//

#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Check.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using ::tile::runtime::DType;
using ::tile::runtime::HostTensor;
using ::tile::runtime::SymbolBindings;

namespace {

HostTensor makeTensor(DType dtype, std::vector<int64_t> shape,
                      const std::vector<double> &values) {
  HostTensor tensor = HostTensor::zeros(dtype, std::move(shape));
  EXPECT_EQ(values.size(), tensor.numElements());
  for (size_t i = 0; i < values.size() && i < tensor.numElements(); ++i)
    tensor.set(i, values[i]);
  return tensor;
}

std::vector<double> elements(const HostTensor &tensor) {
  std::vector<double> values;
  for (size_t i = 0; i < tensor.numElements(); ++i)
    values.push_back(tensor.get(i));
  return values;
}

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    context.loadDialect<TileDialect, arith::ArithDialect, math::MathDialect,
                        scf::SCFDialect>();
  }

  /// Runs the one kernel of `source` (its report in `report`); "" on
  /// success, else every diagnostic as "line:col: message".
  std::string run(const char *source, std::vector<HostTensor *> args,
                  SymbolBindings symbols = {},
                  reference::InterpOptions options = {}) {
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
        diagnostics += std::to_string(loc.getLine()) + ":" +
                       std::to_string(loc.getColumn()) + ": ";
      diagnostics += diag.str() + "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return "parse error: " + diagnostics;
    auto kernel = cast<KernelOp>(module->getBody()->front());
    report = reference::InterpReport();
    if (failed(reference::interpretKernel(kernel, args, symbols, options,
                                          &report)))
      return diagnostics.empty() ? "failed without a diagnostic" : diagnostics;
    boundSymbols = symbols;
    return diagnostics;
  }

  /// How many problems the check finds in `got` against `want`, the
  /// output of parameter `param` of the last run, by its marks.
  size_t mismatchesOf(const HostTensor &got, const HostTensor &want,
                      size_t param) {
    ::tile::runtime::OutputComparison comparison;
    comparison.got = &got;
    comparison.want = &want;
    comparison.wantMarks = &report.marks[param];
    auto found = ::tile::runtime::findMismatches(comparison);
    EXPECT_TRUE(static_cast<bool>(found));
    return found ? found->size() : 0;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  SymbolBindings boundSymbols;
  reference::InterpReport report;
};

TEST_F(InterpreterTest, ElementwiseArithmeticAndStore) {
  HostTensor x = makeTensor(DType::F32, {2, 4}, {1, 2, 3, 4, -1, -2, 0.25, 9});
  HostTensor o = HostTensor::poisoned(DType::F32, {2, 4});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%X: !tile.tensor<[2, 4], f32>, %O: !tile.tensor<[2, 4], f32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %x = tile.load %X[%c0, %c0] : !tile.tensor<[2, 4], f32> -> tensor<2x4xf32>
      %sq = arith.mulf %x, %x : tensor<2x4xf32>
      %one = arith.constant dense<1.0> : tensor<2x4xf32>
      %a = arith.addf %sq, %one : tensor<2x4xf32>
      %b = arith.subf %a, %x : tensor<2x4xf32>
      %two = arith.constant 2.0 : f32
      %t = tile.splat %two : tensor<2x4xf32>
      %c = arith.divf %b, %t : tensor<2x4xf32>
      %d = arith.negf %c : tensor<2x4xf32>
      tile.store %d, %O[%c0, %c0] : tensor<2x4xf32> -> !tile.tensor<[2, 4], f32>
      tile.return
    })mlir",
                {&x, &o}),
            "");
  // -(x^2 + 1 - x) / 2
  EXPECT_EQ(elements(o), (std::vector<double>{-0.5, -1.5, -3.5, -6.5, -1.5,
                                              -3.5, -0.40625, -36.5}));
}

TEST_F(InterpreterTest, SlicesAtTheTensorEdgeAreMasked) {
  // X is 3x5 with X[i][j] = 10 i + j. A 4x4 load at (1, 3) covers rows 1..4
  // and columns 3..6; rows 3, 4 and columns 5, 6 are outside and read 0.
  std::vector<double> values;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      values.push_back(10 * i + j);
  HostTensor x = makeTensor(DType::F32, {3, 5}, values);
  HostTensor o = makeTensor(DType::F32, {3, 5}, std::vector<double>(15, -1));
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%X: !tile.tensor<[3, 5], f32>, %O: !tile.tensor<[3, 5], f32>)
        attributes {threads = 32 : i64} {
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %cm1 = arith.constant -1 : index
      %c2 = arith.constant 2 : index
      %x = tile.load %X[%c1, %c3] : !tile.tensor<[3, 5], f32> -> tensor<3x4xf32>
      %one = arith.constant dense<100.0> : tensor<3x4xf32>
      %y = arith.addf %x, %one : tensor<3x4xf32>
      // Row -1 and columns 5, 6 fall outside O and are dropped.
      tile.store %y, %O[%cm1, %c2] : tensor<3x4xf32> -> !tile.tensor<[3, 5], f32>
      tile.return
    })mlir",
                {&x, &o}),
            "");
  // Loaded tile rows (r = 0..2): X[1][3], X[1][4], 0, 0 = 13, 14, 0, 0;
  // 23, 24, 0, 0; 0, 0, 0, 0 (row 3 is outside). Plus 100, stored at
  // (r - 1, 2 + c): tile row 0 is dropped, row 1 -> O row 0, row 2 -> O row 1.
  EXPECT_EQ(elements(o), (std::vector<double>{-1, -1, 123, 124, 100, //
                                              -1, -1, 100, 100, 100, //
                                              -1, -1, -1, -1, -1}));
}

TEST_F(InterpreterTest, ReductionsBroadcastAndMath) {
  HostTensor x = makeTensor(DType::F32, {2, 4}, {1, 4, 2, 3, -8, -2, -4, -6});
  HostTensor s = HostTensor::poisoned(DType::F32, {2, 1});
  HostTensor m = HostTensor::poisoned(DType::F32, {2, 1});
  HostTensor e = HostTensor::poisoned(DType::F32, {2, 4});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%X: !tile.tensor<[2, 4], f32>, %S: !tile.tensor<[2, 1], f32>,
                   %M: !tile.tensor<[2, 1], f32>, %E: !tile.tensor<[2, 4], f32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %x = tile.load %X[%c0, %c0] : !tile.tensor<[2, 4], f32> -> tensor<2x4xf32>
      %s = tile.rowsum %x : tensor<2x4xf32> -> tensor<2x1xf32>
      %m = tile.rowmax %x : tensor<2x4xf32> -> tensor<2x1xf32>
      tile.store %s, %S[%c0, %c0] : tensor<2x1xf32> -> !tile.tensor<[2, 1], f32>
      tile.store %m, %M[%c0, %c0] : tensor<2x1xf32> -> !tile.tensor<[2, 1], f32>
      %mb = tile.broadcast %m : tensor<2x1xf32> -> tensor<2x4xf32>
      %d = arith.subf %x, %mb : tensor<2x4xf32>
      %a = math.absf %d : tensor<2x4xf32>
      %q = math.sqrt %a : tensor<2x4xf32>
      %r = math.rsqrt %a : tensor<2x4xf32>
      %p = arith.mulf %q, %r : tensor<2x4xf32>
      %z = math.exp %d : tensor<2x4xf32>
      %l = math.log %z : tensor<2x4xf32>
      %t = math.tanh %l : tensor<2x4xf32>
      %w = arith.maximumf %t, %p : tensor<2x4xf32>
      tile.store %w, %E[%c0, %c0] : tensor<2x4xf32> -> !tile.tensor<[2, 4], f32>
      tile.return
    })mlir",
                {&x, &s, &m, &e}),
            "");
  EXPECT_EQ(elements(s), (std::vector<double>{10, -20}));
  EXPECT_EQ(elements(m), (std::vector<double>{4, -2}));
  // d = x - rowmax: row 0: -3, 0, -2, -1; row 1: -6, 0, -2, -4. sqrt * rsqrt
  // is 1 except at 0 (0 * inf = NaN), tanh(d) < 1, so maximumf gives 1, and
  // NaN where d = 0 (maximumf propagates NaN).
  std::vector<double> got = elements(e);
  for (int i : {0, 2, 3, 4, 6, 7})
    EXPECT_FLOAT_EQ(got[i], 1.0) << i;
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_TRUE(std::isnan(got[5]));
}

TEST_F(InterpreterTest, DotAccumulatesInDouble) {
  // f16 operands, f32 result: [[1, 2], [3, 4]] x [[5, 6], [7, 8]].
  HostTensor a = makeTensor(DType::F16, {2, 2}, {1, 2, 3, 4});
  HostTensor b = makeTensor(DType::F16, {2, 2}, {5, 6, 7, 8});
  HostTensor c = HostTensor::poisoned(DType::F32, {2, 2});
  HostTensor i = makeTensor(DType::I32, {1, 2}, {-3, 2147483647});
  HostTensor j = makeTensor(DType::I32, {2, 1}, {1, 2});
  HostTensor k = HostTensor::poisoned(DType::I32, {1, 1});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%A: !tile.tensor<[2, 2], f16>, %B: !tile.tensor<[2, 2], f16>,
                   %C: !tile.tensor<[2, 2], f32>, %I: !tile.tensor<[1, 2], i32>,
                   %J: !tile.tensor<[2, 1], i32>, %K: !tile.tensor<[1, 1], i32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %a = tile.load %A[%c0, %c0] : !tile.tensor<[2, 2], f16> -> tensor<2x2xf16>
      %b = tile.load %B[%c0, %c0] : !tile.tensor<[2, 2], f16> -> tensor<2x2xf16>
      %c = tile.dot %a, %b : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<2x2xf32>
      tile.store %c, %C[%c0, %c0] : tensor<2x2xf32> -> !tile.tensor<[2, 2], f32>
      %i = tile.load %I[%c0, %c0] : !tile.tensor<[1, 2], i32> -> tensor<1x2xi32>
      %j = tile.load %J[%c0, %c0] : !tile.tensor<[2, 1], i32> -> tensor<2x1xi32>
      %k = tile.dot %i, %j : tensor<1x2xi32>, tensor<2x1xi32> -> tensor<1x1xi32>
      tile.store %k, %K[%c0, %c0] : tensor<1x1xi32> -> !tile.tensor<[1, 1], i32>
      tile.return
    })mlir",
                {&a, &b, &c, &i, &j, &k}),
            "");
  EXPECT_EQ(elements(c), (std::vector<double>{19, 22, 43, 50}));
  // -3 + 2 * (2^31 - 1) = 2^32 - 5, which wraps to -5 in 32 bits.
  EXPECT_EQ(elements(k), (std::vector<double>{-5}));
}

TEST_F(InterpreterTest, GridBlocksAndSymbols) {
  // One CTA per 4 columns of a [2, K] tensor; each writes its block id,
  // the grid size and K into its slice. K = 10: 3 CTAs, the last masked.
  HostTensor o = HostTensor::poisoned(DType::I32, {2, 10});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[2, K], i32>)
        attributes {threads = 64 : i64,
                    grid = affine_map<()[s0] -> (s0 ceildiv 4, 1)>} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %bx = tile.block_id x
      %nx = tile.num_blocks x
      %K = tile.dim %O[1] : !tile.tensor<[2, K], i32>
      %nt = tile.num_threads
      %l = tile.lanes
      %col = arith.muli %bx, %c4 : index
      %k100 = arith.constant 100 : index
      %kk = arith.muli %K, %k100 : index
      %v0 = arith.addi %bx, %kk : index
      %v1 = arith.addi %nx, %nt : index
      %v2 = arith.addi %v1, %l : index
      %i0 = arith.index_cast %v0 : index to i32
      %i1 = arith.index_cast %v2 : index to i32
      %t0 = tile.splat %i0 : tensor<1x4xi32>
      %t1 = tile.splat %i1 : tensor<1x4xi32>
      %c1 = arith.constant 1 : index
      tile.store %t0, %O[%c0, %col] : tensor<1x4xi32> -> !tile.tensor<[2, K], i32>
      tile.store %t1, %O[%c1, %col] : tensor<1x4xi32> -> !tile.tensor<[2, K], i32>
      tile.return
    })mlir",
                {&o}),
            "");
  EXPECT_EQ(boundSymbols["K"], 10);
  // Row 0: 1000 + block id; row 1: 3 blocks + 64 threads + 32 lanes = 99.
  EXPECT_EQ(elements(o), (std::vector<double>{1000, 1000, 1000, 1000, 1001,
                                              1001, 1001, 1001, 1002, 1002, //
                                              99,   99,   99,   99,   99,
                                              99,   99,   99,   99,   99}));
}

TEST_F(InterpreterTest, LoopsVarsAndConditions) {
  // The seed's squares over K = 6 with 2-column steps (the last step of a
  // 4-column tile reads past K and gets zeros), plus a while loop and an if.
  HostTensor x = makeTensor(DType::F32, {1, 6}, {1, 2, 3, 4, 5, 6});
  HostTensor o = HostTensor::poisoned(DType::F32, {1, 4});
  HostTensor n = HostTensor::poisoned(DType::I32, {1, 2});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%X: !tile.tensor<[1, K], f32>, %O: !tile.tensor<[1, 4], f32>,
                   %N: !tile.tensor<[1, 2], i32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %K = tile.dim %X[1] : !tile.tensor<[1, K], f32>
      %zero = arith.constant dense<0.0> : tensor<1x4xf32>
      %acc = tile.var "acc" = %zero : !tile.var<1x4xf32>
      scf.for %kt = %c0 to %K step %c4 {
        %x = tile.load %X[%c0, %kt] : !tile.tensor<[1, K], f32> -> tensor<1x4xf32>
        %sq = arith.mulf %x, %x : tensor<1x4xf32>
        %a = tile.read %acc : !tile.var<1x4xf32>
        %s = arith.addf %a, %sq : tensor<1x4xf32>
        tile.write %s, %acc : !tile.var<1x4xf32>
      }
      %final = tile.read %acc : !tile.var<1x4xf32>
      tile.store %final, %O[%c0, %c0] : tensor<1x4xf32> -> !tile.tensor<[1, 4], f32>

      // Sum of 0..9 with iter_args, then a while that doubles to >= 100.
      %c10 = arith.constant 10 : index
      %c1 = arith.constant 1 : index
      %i0 = arith.constant 0 : i32
      %sum = scf.for %i = %c0 to %c10 step %c1 iter_args(%s = %i0) -> (i32) {
        %ii = arith.index_cast %i : index to i32
        %t = arith.addi %s, %ii : i32
        scf.yield %t : i32
      }
      %count = tile.var "count" : !tile.var<i32>
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %hundred = arith.constant 100 : i32
      %w = scf.while (%v = %one) : (i32) -> i32 {
        %lt = arith.cmpi slt, %v, %hundred : i32
        scf.condition(%lt) %v : i32
      } do {
      ^bb0(%v: i32):
        %d = arith.muli %v, %two : i32
        scf.yield %d : i32
      }
      %big = arith.cmpi sgt, %sum, %hundred : i32
      %r = scf.if %big -> (i32) {
        scf.yield %one : i32
      } else {
        %e = arith.addi %w, %sum : i32
        scf.yield %e : i32
      }
      tile.write %r, %count : !tile.var<i32>
      %rv = tile.read %count : !tile.var<i32>
      %t0 = tile.splat %sum : tensor<1x1xi32>
      %t1 = tile.splat %rv : tensor<1x1xi32>
      tile.store %t0, %N[%c0, %c0] : tensor<1x1xi32> -> !tile.tensor<[1, 2], i32>
      tile.store %t1, %N[%c0, %c1] : tensor<1x1xi32> -> !tile.tensor<[1, 2], i32>
      tile.return
    })mlir",
                {&x, &o, &n}),
            "");
  // Steps at 0 (1, 2, 3, 4) and 4 (5, 6, 0, 0): 1+25, 4+36, 9, 16.
  EXPECT_EQ(elements(o), (std::vector<double>{26, 40, 9, 16}));
  // sum = 45 (not > 100), while ends at 128: 128 + 45.
  EXPECT_EQ(elements(n), (std::vector<double>{45, 173}));
}

TEST_F(InterpreterTest, IntegerOpsWrapAndCastsRound) {
  HostTensor o = HostTensor::poisoned(DType::I32, {1, 8});
  HostTensor f = HostTensor::poisoned(DType::F32, {1, 4});
  HostTensor h = HostTensor::poisoned(DType::F16, {1, 2});
  HostTensor b = HostTensor::poisoned(DType::I1, {1, 2});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1, 8], i32>, %F: !tile.tensor<[1, 4], f32>,
                   %H: !tile.tensor<[1, 2], f16>, %B: !tile.tensor<[1, 2], i1>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %max = arith.constant 2147483647 : i32
      %one = arith.constant 1 : i32
      %m7 = arith.constant -7 : i32
      %two = arith.constant 2 : i32
      %ten = arith.constant 10 : i32
      %wrapped = arith.addi %max, %one : i32
      %q = arith.divsi %m7, %two : i32
      %r = arith.remsi %m7, %two : i32
      %fl = arith.floordivsi %m7, %two : i32
      %ce = arith.ceildivsi %m7, %two : i32
      %mx = arith.maxsi %m7, %two : i32
      %lt = arith.cmpi slt, %m7, %two : i32
      %sel = arith.select %lt, %m7, %two : i32
      // 1 < 2^31 unsigned, but not 1 < -2^31 signed: 10 * 1 + 0.
      %ult = arith.cmpi ult, %one, %wrapped : i32
      %slt = arith.cmpi slt, %one, %wrapped : i32
      %ult32 = arith.extui %ult : i1 to i32
      %slt32 = arith.extui %slt : i1 to i32
      %u10 = arith.muli %ult32, %ten : i32
      %flags = arith.addi %u10, %slt32 : i32
      %t0 = tile.splat %wrapped : tensor<1x1xi32>
      %t1 = tile.splat %q : tensor<1x1xi32>
      %t2 = tile.splat %r : tensor<1x1xi32>
      %t3 = tile.splat %fl : tensor<1x1xi32>
      %t4 = tile.splat %ce : tensor<1x1xi32>
      %t5 = tile.splat %mx : tensor<1x1xi32>
      %t6 = tile.splat %sel : tensor<1x1xi32>
      %t7 = tile.splat %flags : tensor<1x1xi32>
      tile.store %t0, %O[%c0, %c0] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>
      tile.store %t1, %O[%c0, %c1] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>
      tile.store %t2, %O[%c0, %c2] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>
      tile.store %t3, %O[%c0, %c3] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>
      tile.store %t4, %O[%c0, %c4] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>
      tile.store %t5, %O[%c0, %c5] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>
      tile.store %t6, %O[%c0, %c6] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>
      tile.store %t7, %O[%c0, %c7] : tensor<1x1xi32> -> !tile.tensor<[1, 8], i32>

      %vals = arith.constant dense<[[2.5, -2.5, 16777217.0, 3.75]]> : tensor<1x4xf32>
      %ints = arith.fptosi %vals : tensor<1x4xf32> to tensor<1x4xi32>
      %back = arith.sitofp %ints : tensor<1x4xi32> to tensor<1x4xf32>
      tile.store %back, %F[%c0, %c0] : tensor<1x4xf32> -> !tile.tensor<[1, 4], f32>

      %tie = arith.constant dense<[[1.00048828125, 3.0]]> : tensor<1x2xf32>
      %half = arith.truncf %tie : tensor<1x2xf32> to tensor<1x2xf16>
      tile.store %half, %H[%c0, %c0] : tensor<1x2xf16> -> !tile.tensor<[1, 2], f16>

      %x = arith.constant dense<[[1, -5]]> : tensor<1x2xi32>
      %w = tile.splat %wrapped : tensor<1x2xi32>
      %mask = arith.cmpi ugt, %x, %w : tensor<1x2xi32>
      tile.store %mask, %B[%c0, %c0] : tensor<1x2xi1> -> !tile.tensor<[1, 2], i1>
      tile.return
    })mlir",
                {&o, &f, &h, &b}),
            "");
  // 2^31 - 1 + 1 wraps to -2^31; divsi truncates (-3), remsi keeps the
  // dividend's sign (-1), floordivsi -4, ceildivsi -3, maxsi 2, select -7.
  EXPECT_EQ(elements(o),
            (std::vector<double>{-2147483648.0, -3, -1, -4, -3, 2, -7, 10}));
  // fptosi truncates; 16777217 is not an f32 (it rounds to 16777216).
  EXPECT_EQ(elements(f), (std::vector<double>{2, -2, 16777216, 3}));
  // 1 + 2^-11 is a tie between two f16 values; it rounds to even, 1.
  EXPECT_EQ(elements(h), (std::vector<double>{1, 3}));
  // Unsigned: 1 is not above 2^31, -5 (2^32 - 5) is.
  EXPECT_EQ(elements(b), (std::vector<double>{0, 1}));
}

TEST_F(InterpreterTest, StoresRoundToTheTensorType) {
  HostTensor h = HostTensor::poisoned(DType::BF16, {1, 2});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%H: !tile.tensor<[1, 2], bf16>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %a = arith.constant dense<[[1.0, 3.0]]> : tensor<1x2xbf16>
      %b = arith.extf %a : tensor<1x2xbf16> to tensor<1x2xf32>
      %eps = arith.constant dense<0.00390625> : tensor<1x2xf32>
      %c = arith.addf %b, %eps : tensor<1x2xf32>
      %d = arith.truncf %c : tensor<1x2xf32> to tensor<1x2xbf16>
      tile.store %d, %H[%c0, %c0] : tensor<1x2xbf16> -> !tile.tensor<[1, 2], bf16>
      tile.return
    })mlir",
                {&h}),
            "");
  // 1 + 2^-8 ties to 1; 3 + 2^-8 is below the midpoint of 3 and 3 + 2^-6.
  EXPECT_EQ(elements(h), (std::vector<double>{1, 3}));
}

TEST_F(InterpreterTest, ThreadIdHasAValuePerThread) {
  // 4 threads: each element of an [8] tile gets its thread's id (e % 4);
  // a loop, a while and an if on the id run each thread's own way.
  HostTensor o = HostTensor::poisoned(DType::I32, {8});
  HostTensor c = HostTensor::poisoned(DType::I32, {4});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[8], i32>, %C: !tile.tensor<[4], i32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %t = tile.thread_id
      %m = arith.remui %t, %c4 : index
      %i = arith.index_cast %m : index to i32
      %tile = tile.splat %i : tensor<8xi32>
      tile.store %tile, %O[%c0] : tensor<8xi32> -> !tile.tensor<[8], i32>
      // count = sum over j < t % 4 of 10, then + 1 where t is odd.
      %zero = arith.constant 0 : i32
      %ten = arith.constant 10 : i32
      %one = arith.constant 1 : i32
      %sum = scf.for %j = %c0 to %m step %c1 iter_args(%s = %zero) -> (i32) {
        %n = arith.addi %s, %ten : i32
        scf.yield %n : i32
      }
      %count = tile.var "count" = %sum : !tile.var<i32>
      %odd = arith.andi %m, %c1 : index
      %isOdd = arith.cmpi ne, %odd, %c0 : index
      scf.if %isOdd {
        %v = tile.read %count : !tile.var<i32>
        %w = arith.addi %v, %one : i32
        tile.write %w, %count : !tile.var<i32>
      }
      %r = tile.read %count : !tile.var<i32>
      %rt = tile.splat %r : tensor<4xi32>
      tile.store %rt, %C[%c0] : tensor<4xi32> -> !tile.tensor<[4], i32>
      tile.return
    })mlir",
                {&o, &c}),
            "");
  EXPECT_EQ(elements(o), (std::vector<double>{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(elements(c), (std::vector<double>{0, 11, 20, 31}));
}

TEST_F(InterpreterTest, PerThreadControlMasksEffectsAndErrors) {
  // Only threads 0 and 1 store; a division by zero in the threads that
  // skip it is no error; a while runs each thread to its own exit.
  HostTensor o = HostTensor::poisoned(DType::I32, {4});
  HostTensor w = HostTensor::poisoned(DType::I32, {4});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[4], i32>, %W: !tile.tensor<[4], i32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %t = tile.thread_id
      %low = arith.cmpi ult, %t, %c2 : index
      %d = arith.subi %c2, %t : index
      scf.if %low {
        %q = arith.divui %c2, %d : index
        %i = arith.index_cast %q : index to i32
        %v = tile.splat %i : tensor<4xi32>
        tile.store %v, %O[%c0] : tensor<4xi32> -> !tile.tensor<[4], i32>
      }
      %n = scf.while (%x = %t) : (index) -> index {
        %more = arith.cmpi ult, %x, %c2 : index
        scf.condition(%more) %x : index
      } do {
      ^bb0(%x: index):
        %y = arith.addi %x, %c2 : index
        scf.yield %y : index
      }
      %ni = arith.index_cast %n : index to i32
      %nv = tile.splat %ni : tensor<4xi32>
      tile.store %nv, %W[%c0] : tensor<4xi32> -> !tile.tensor<[4], i32>
      tile.return
    })mlir",
                {&o, &w}),
            "");
  // 2 / (2 - 0) = 1, 2 / (2 - 1) = 2; threads 2 and 3 store nothing.
  EXPECT_EQ(elements(o)[0], 1);
  EXPECT_EQ(elements(o)[1], 2);
  EXPECT_TRUE(o.isPoison(2) && o.isPoison(3));
  EXPECT_TRUE(report.marks[0][1].isWritten());
  EXPECT_FALSE(report.marks[0][2].isWritten());
  // 0 -> 2, 1 -> 3, 2 and 3 stay.
  EXPECT_EQ(elements(w), (std::vector<double>{2, 3, 2, 3}));
}

TEST_F(InterpreterTest, ReadingWhatAThreadNeverWroteIsAFault) {
  HostTensor o = HostTensor::zeros(DType::F32, {4});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[4], f32>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %t = tile.thread_id
      %low = arith.cmpi ult, %t, %c2 : index
      %v = tile.var "v" : !tile.var<4xf32>
      scf.if %low {
        %one = arith.constant dense<1.0> : tensor<4xf32>
        tile.write %one, %v : !tile.var<4xf32>
      }
      %r = tile.read %v : !tile.var<4xf32>
      tile.store %r, %O[%c0] : tensor<4xf32> -> !tile.tensor<[4], f32>
      tile.return
    })mlir",
                {&o}),
            "12:12: reads var 'v' in thread 2, which never wrote it\n");
  EXPECT_TRUE(report.fault);
}
// What a copy did not reach holds whatever the memory held: computing with
// it is allowed, storing it or deciding on it is the kernel's fault.
TEST_F(InterpreterTest, UsingWhatNothingWroteIsAFault) {
  HostTensor x = makeTensor(DType::F32, {4}, {1, 2, 3, 4});
  HostTensor o = HostTensor::zeros(DType::F32, {4});
  // Elements 0 and 1 are copied: a select of those, a dot and a sum of
  // written elements are stored; the branch on element 3 faults.
  const char *kernel = R"mlir(
    tile.kernel @k(%X: !tile.tensor<[4], f32>, %O: !tile.tensor<[4], f32>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %v = tile.var "v" : !tile.var<4xf32>
      tile.copy %X[%c0] to %v[%c0] [2] : !tile.tensor<[4], f32> to !tile.var<4xf32>
      %r = tile.read %v : !tile.var<4xf32>
      %low = arith.constant dense<[true, true, false, false]> : tensor<4xi1>
      %zero = arith.constant dense<0.0> : tensor<4xf32>
      %picked = arith.select %low, %r, %zero : tensor<4xi1>, tensor<4xf32>
      %double = arith.addf %picked, %picked : tensor<4xf32>
      tile.store %double, %O[%c0] : tensor<4xf32> -> !tile.tensor<[4], f32>
      %e = tile.extract %r[INDEX] : tensor<4xf32>
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      scf.if %p {
        tile.store %zero, %O[%c0] : tensor<4xf32> -> !tile.tensor<[4], f32>
      }
      tile.return
    })mlir";
  std::string written = kernel;
  written.replace(written.find("INDEX"), 5, "1");
  EXPECT_EQ(run(written.c_str(), {&x, &o}), "");
  EXPECT_EQ(elements(o), (std::vector<double>{0, 0, 0, 0}));
  std::string unwritten = kernel;
  unwritten.replace(unwritten.find("INDEX"), 5, "3");
  EXPECT_EQ(run(unwritten.c_str(), {&x, &o}),
            "15:7: the condition of 'scf.if' is computed from memory that "
            "nothing wrote: var 'v' was read before anything wrote its "
            "element [2]\n");
  EXPECT_TRUE(report.fault);

  // A dot product and a row sum over an unwritten column; a select that
  // picks the unwritten element.
  HostTensor y = makeTensor(DType::F32, {2, 2}, {1, 2, 3, 4});
  HostTensor out = HostTensor::zeros(DType::F32, {2, 2});
  const char *uses = R"mlir(
    tile.kernel @k(%Y: !tile.tensor<[2, 2], f32>, %O: !tile.tensor<[2, 2], f32>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %v = tile.var "v" : !tile.var<2x2xf32>
      tile.copy %Y[%c0, %c0] to %v[%c0, %c0] [2, 1] : !tile.tensor<[2, 2], f32> to !tile.var<2x2xf32>
      %r = tile.read %v : !tile.var<2x2xf32>
      USE
      tile.return
    })mlir";
  auto runUse = [&](const char *use) {
    std::string source = uses;
    source.replace(source.find("USE"), 3, use);
    return run(source.c_str(), {&y, &out});
  };
  EXPECT_EQ(runUse("%d = tile.dot %r, %r : tensor<2x2xf32>, tensor<2x2xf32> -> "
                   "tensor<2x2xf32>\n"
                   "tile.store %d, %O[%c0, %c0] : tensor<2x2xf32> -> "
                   "!tile.tensor<[2, 2], f32>"),
            "8:1: the value written to element [0, 0] of 'arg1' is computed "
            "from memory that nothing wrote: var 'v' was read before "
            "anything wrote its element [0, 1]\n");
  EXPECT_EQ(
      runUse("%s = tile.rowsum %r : tensor<2x2xf32> -> tensor<2x1xf32>\n"
             "%b = tile.broadcast %s : tensor<2x1xf32> -> tensor<2x2xf32>\n"
             "tile.store %b, %O[%c0, %c0] : tensor<2x2xf32> -> "
             "!tile.tensor<[2, 2], f32>"),
      "9:1: the value written to element [0, 0] of 'arg1' is computed from "
      "memory that nothing wrote: var 'v' was read before anything wrote "
      "its element [0, 1]\n");
  EXPECT_TRUE(report.fault);
  // Column 0 alone, transposed to a row: written.
  EXPECT_EQ(
      runUse("%t = tile.transpose %r : tensor<2x2xf32> -> tensor<2x2xf32>\n"
             "%row = tile.extract_slice %t[0, 0] : tensor<2x2xf32> -> "
             "tensor<1x2xf32>\n"
             "tile.store %row, %O[%c0, %c0] : tensor<1x2xf32> -> "
             "!tile.tensor<[2, 2], f32>"),
      "");
  EXPECT_EQ(elements(out)[0], 1);
  EXPECT_EQ(elements(out)[1], 3);
}

// A float sum whose terms cancel marks what is computed from it with the
// bits by which its terms outweigh it; one whose terms do not, with none.
TEST_F(InterpreterTest, SumsWhoseTermsCancelMarkTheirAmplification) {
  // Row 0: 1 - (1 - 2^-10) = 2^-10 of terms of 2: 11 bits; row 1: 1 + 2.
  HostTensor x =
      makeTensor(DType::F32, {2, 2}, {1, -(1 - std::ldexp(1.0, -10)), 1, 2});
  HostTensor o = HostTensor::zeros(DType::F32, {2, 2});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%X: !tile.tensor<[2, 2], f32>, %O: !tile.tensor<[2, 2], f32>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %x = tile.load %X[%c0, %c0] : !tile.tensor<[2, 2], f32> -> tensor<2x2xf32>
      %s = tile.rowsum %x : tensor<2x2xf32> -> tensor<2x1xf32>
      %b = tile.broadcast %s : tensor<2x1xf32> -> tensor<2x2xf32>
      %d = arith.divf %x, %b : tensor<2x2xf32>
      tile.store %d, %O[%c0, %c0] : tensor<2x2xf32> -> !tile.tensor<[2, 2], f32>
      tile.return
    })mlir",
                {&x, &o}),
            "");
  EXPECT_EQ(report.marks[1][0].getAmplification(), 11u);
  EXPECT_EQ(report.marks[1][1].getAmplification(), 11u);
  EXPECT_EQ(report.marks[1][2].getAmplification(), 0u);
  EXPECT_EQ(report.marks[1][3].getAmplification(), 0u);
  // A dot's products cancel as a sum's terms do: [1, 1] . [1, -1] = 0.
  HostTensor a = makeTensor(DType::F32, {1, 2}, {1, 1});
  HostTensor b = makeTensor(DType::F32, {2, 1}, {1, -1});
  HostTensor d = HostTensor::zeros(DType::F32, {1, 1});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%A: !tile.tensor<[1, 2], f32>, %B: !tile.tensor<[2, 1], f32>, %D: !tile.tensor<[1, 1], f32>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %a = tile.load %A[%c0, %c0] : !tile.tensor<[1, 2], f32> -> tensor<1x2xf32>
      %b = tile.load %B[%c0, %c0] : !tile.tensor<[2, 1], f32> -> tensor<2x1xf32>
      %d = tile.dot %a, %b : tensor<1x2xf32>, tensor<2x1xf32> -> tensor<1x1xf32>
      tile.store %d, %D[%c0, %c0] : tensor<1x1xf32> -> !tile.tensor<[1, 1], f32>
      tile.return
    })mlir",
                {&a, &b, &d}),
            "");
  EXPECT_EQ(report.marks[2][0].getAmplification(),
            ::tile::runtime::ElementMark::kUnboundedAmplification);
}

TEST_F(InterpreterTest, UnsupportedOpsAreNamed) {
  HostTensor o = HostTensor::zeros(DType::F32, {1, 1});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1, 1], f32>) attributes {threads = 32 : i64} {
      %a = arith.constant 1.0 : f32
      %b = arith.bitcast %a : f32 to i32
      tile.return
    })mlir",
                {&o}),
            "4:12: the interp backend does not support 'arith.bitcast'\n");
}

TEST_F(InterpreterTest, RuntimeErrorsPointAtTheOp) {
  HostTensor o = HostTensor::zeros(DType::F32, {1, 1});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1, 1], f32>) attributes {threads = 32 : i64} {
      %a = arith.constant 1 : i32
      %z = arith.constant 0 : i32
      %b = arith.divsi %a, %z : i32
      tile.return
    })mlir",
                {&o}),
            "5:12: 'arith.divsi' is undefined for 1 and 0 (element 0): "
            "division by zero, overflow or a shift too far\n");
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1, 1], f32>) attributes {threads = 32 : i64} {
      %n = tile.var "n" : !tile.var<i32>
      %v = tile.read %n : !tile.var<i32>
      tile.return
    })mlir",
                {&o}),
            "4:12: reads var 'n' before anything was written to it\n");
}

// Found by utils/fuzz.py: an endless loop over a tile took hours to reach
// maxSteps, as each of its ops computes a whole tile.
TEST_F(InterpreterTest, EndlessLoopsOverTilesHitTheElementLimit) {
  HostTensor o = HostTensor::zeros(DType::F32, {16, 64});
  reference::InterpOptions options;
  options.maxElements = 100'000;
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
      %true = arith.constant true
      %one = arith.constant dense<1.0> : tensor<16x64xf32>
      %acc = tile.var "acc" = %one : !tile.var<16x64xf32>
      scf.while : () -> () {
        scf.condition(%true)
      } do {
        %a = tile.read %acc : !tile.var<16x64xf32>
        %b = arith.addf %a, %one : tensor<16x64xf32>
        tile.write %b, %acc : !tile.var<16x64xf32>
        scf.yield
      }
      tile.return
    })mlir",
                {&o}, {}, options),
            "11:9: the interp backend stopped after computing 100000 tile "
            "elements (InterpOptions::maxElements): does a loop never end?\n");
  // A budget says how long the reference may run: not a kernel fault.
  EXPECT_TRUE(report.budgetExhausted);
  EXPECT_FALSE(report.fault);
}

// Issue 33: a fixed element budget failed flash attention at N = 4096, a
// correct kernel, as a fault. With elementsPerCTA the budget follows the
// grid: 4 CTAs of 8192 elements each (a constant and a store of 4096) fit
// 4 x 10000, not 5000.
TEST_F(InterpreterTest, TheElementBudgetFollowsTheGrid) {
  HostTensor o = HostTensor::zeros(DType::F32, {256, 64});
  const char *source = R"mlir(
    tile.kernel @k(%O: !tile.tensor<[256, 64], f32>) attributes {threads = 32 : i64, grid = affine_map<() -> (4)>} {
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %b = tile.block_id x
      %row = arith.muli %b, %c64 : index
      %one = arith.constant dense<1.0> : tensor<64x64xf32>
      tile.store %one, %O[%row, %c0] : tensor<64x64xf32> -> !tile.tensor<[256, 64], f32>
      tile.return
    })mlir";
  reference::InterpOptions options;
  options.maxElements = 5000;
  EXPECT_NE(run(source, {&o}, {}, options), "");
  EXPECT_TRUE(report.budgetExhausted);
  EXPECT_FALSE(report.fault);
  options.elementsPerCTA = 10000;
  EXPECT_EQ(run(source, {&o}, {}, options), "");
  EXPECT_FALSE(report.budgetExhausted);
}

TEST_F(InterpreterTest, EndlessLoopsHitTheStepLimit) {
  HostTensor o = HostTensor::zeros(DType::F32, {1, 1});
  reference::InterpOptions options;
  options.maxSteps = 1000;
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1, 1], f32>) attributes {threads = 32 : i64} {
      %true = arith.constant true
      scf.while : () -> () {
        scf.condition(%true)
      } do {
        scf.yield
      }
      tile.return
    })mlir",
                {&o}, {}, options),
            "4:7: the interp backend stopped after 1000 operations "
            "(InterpOptions::maxSteps): does a loop never end?\n");
}

TEST_F(InterpreterTest, ArgumentsAreCheckedByName) {
  HostTensor wrong = HostTensor::zeros(DType::I32, {4, 8});
  HostTensor x = HostTensor::zeros(DType::F32, {4, 8});
  HostTensor y = HostTensor::zeros(DType::F32, {8, 4});
  const char *source = R"mlir(
    tile.kernel @k(%X: !tile.tensor<[4, K], f32> {tile.name = "X"},
                   %Y: !tile.tensor<[K, 4], f32> {tile.name = "Y"})
        attributes {threads = 32 : i64} {
      tile.return
    })mlir";
  EXPECT_EQ(run(source, {&wrong, &y}),
            "2:5: parameter 'X': expected f32 elements, got i32\n");
  EXPECT_EQ(run(source, {&x, &x}),
            "2:5: parameter 'Y': dimension 0 is K = 4, but K = 8 (parameter "
            "'X' dimension 1)\n");
  EXPECT_EQ(run(source, {&x, &y}, {{"K", 16}}),
            "2:5: parameter 'X': dimension 1 is K = 8, but K = 16 (given)\n");
  EXPECT_EQ(run(source, {&x, nullptr}),
            "2:5: parameter 'Y': no buffer given\n");
}

TEST_F(InterpreterTest, GridMustBePositive) {
  HostTensor o = HostTensor::zeros(DType::F32, {1, 4});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1, K], f32>)
        attributes {threads = 32 : i64, grid = affine_map<()[s0] -> (s0 - 4)>} {
      tile.return
    })mlir",
                {&o}),
            "2:5: grid size in x is 0; it must be in [1, 2^31 - 1]\n");
}

} // namespace

TEST_F(InterpreterTest, EachFloatOpRoundsToItsType) {
  // An f16 product overflows to inf, an f32 one too, as on the GPU; the
  // same in double would not.
  HostTensor h = HostTensor::poisoned(DType::F16, {1, 2});
  HostTensor f = HostTensor::poisoned(DType::F32, {1, 2});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%H: !tile.tensor<[1, 2], f16>, %F: !tile.tensor<[1, 2], f32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %a = arith.constant dense<[[300.0, 0.5]]> : tensor<1x2xf16>
      %p = arith.mulf %a, %a : tensor<1x2xf16>
      %q = arith.divf %p, %a : tensor<1x2xf16>
      tile.store %q, %H[%c0, %c0] : tensor<1x2xf16> -> !tile.tensor<[1, 2], f16>
      %b = arith.constant dense<[[1.0e31, 3.0]]> : tensor<1x2xf32>
      %s = arith.mulf %b, %b : tensor<1x2xf32>
      %third = arith.divf %b, %b : tensor<1x2xf32>
      %r = arith.mulf %s, %third : tensor<1x2xf32>
      tile.store %r, %F[%c0, %c0] : tensor<1x2xf32> -> !tile.tensor<[1, 2], f32>
      tile.return
    })mlir",
                {&h, &f}),
            "");
  EXPECT_TRUE(std::isinf(h.get(0)));
  EXPECT_EQ(h.get(1), 0.5);
  EXPECT_TRUE(std::isinf(f.get(0)));
  EXPECT_EQ(f.get(1), 9.0);
}

TEST_F(InterpreterTest, MarksSayHowExactlyEachElementIsKnown) {
  // Correctly rounded ops: exact. A sum: f32. The sum narrowed to f16 and
  // widened again: f16. A comparison of the sum: thresholded.
  HostTensor x = makeTensor(DType::F32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  HostTensor e = HostTensor::poisoned(DType::F32, {2, 4});
  HostTensor s = HostTensor::poisoned(DType::F32, {2, 1});
  HostTensor n = HostTensor::poisoned(DType::F32, {2, 1});
  HostTensor c = HostTensor::poisoned(DType::I32, {2, 1});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%X: !tile.tensor<[2, 4], f32>, %E: !tile.tensor<[2, 4], f32>,
                   %S: !tile.tensor<[2, 1], f32>, %N: !tile.tensor<[2, 1], f32>,
                   %C: !tile.tensor<[2, 1], i32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %x = tile.load %X[%c0, %c0] : !tile.tensor<[2, 4], f32> -> tensor<2x4xf32>
      %sq = arith.mulf %x, %x : tensor<2x4xf32>
      %d = arith.divf %sq, %x : tensor<2x4xf32>
      tile.store %d, %E[%c0, %c0] : tensor<2x4xf32> -> !tile.tensor<[2, 4], f32>
      %s = tile.rowsum %x : tensor<2x4xf32> -> tensor<2x1xf32>
      tile.store %s, %S[%c0, %c0] : tensor<2x1xf32> -> !tile.tensor<[2, 1], f32>
      %h = arith.truncf %s : tensor<2x1xf32> to tensor<2x1xf16>
      %w = arith.extf %h : tensor<2x1xf16> to tensor<2x1xf32>
      // Only row 1 of N.
      %w1 = tile.broadcast %w : tensor<2x1xf32> -> tensor<2x1xf32>
      tile.store %w1, %N[%c1, %c0] : tensor<2x1xf32> -> !tile.tensor<[2, 1], f32>
      %ten = arith.constant dense<10.0> : tensor<2x1xf32>
      %big = arith.cmpf ogt, %s, %ten : tensor<2x1xf32>
      %one = arith.constant dense<1> : tensor<2x1xi32>
      %zero = arith.constant dense<0> : tensor<2x1xi32>
      %sel = arith.select %big, %one, %zero : tensor<2x1xi1>, tensor<2x1xi32>
      tile.store %sel, %C[%c0, %c0] : tensor<2x1xi32> -> !tile.tensor<[2, 1], i32>
      tile.return
    })mlir",
                {&x, &e, &s, &n, &c}),
            "");
  using ::tile::runtime::Accuracy;
  ASSERT_EQ(report.marks.size(), 5u);
  EXPECT_FALSE(report.marks[0][0].isWritten()); // X is only read
  EXPECT_EQ(report.marks[1][3].getAccuracy(), Accuracy::Exact);
  EXPECT_FALSE(report.marks[1][3].isThresholded());
  EXPECT_EQ(report.marks[2][0].getAccuracy(), Accuracy::F32);
  EXPECT_FALSE(report.marks[3][0].isWritten());
  EXPECT_TRUE(report.marks[3][1].isWritten());
  EXPECT_EQ(report.marks[3][1].getAccuracy(), Accuracy::F16);
  EXPECT_TRUE(report.marks[4][0].isThresholded());
  EXPECT_EQ(elements(c), (std::vector<double>{0, 1}));
  EXPECT_FALSE(report.fault);
}

// A quotient is exact by default (div.rn.f32): one ulp off is a mismatch.
// Compiled with --fp-div=full (div.full.f32, up to 2 ulp), an f32 quotient
// is known to f32's tolerance and the same ulp passes; an f16 one stays
// exact. A division marked `afn` is approximate either way.
TEST_F(InterpreterTest, DivisionIsExactUnlessCompiledApproximate) {
  const char *source = R"mlir(
    tile.kernel @k(%X: !tile.tensor<[4], f32>, %Q: !tile.tensor<[4], f32>,
                   %H: !tile.tensor<[4], f16>, %A: !tile.tensor<[4], f32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %x = tile.load %X[%c0] : !tile.tensor<[4], f32> -> tensor<4xf32>
      %three = arith.constant dense<3.0> : tensor<4xf32>
      %q = arith.divf %x, %three : tensor<4xf32>
      tile.store %q, %Q[%c0] : tensor<4xf32> -> !tile.tensor<[4], f32>
      %h = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
      %h3 = arith.truncf %three : tensor<4xf32> to tensor<4xf16>
      %hq = arith.divf %h, %h3 : tensor<4xf16>
      tile.store %hq, %H[%c0] : tensor<4xf16> -> !tile.tensor<[4], f16>
      %a = arith.divf %x, %three fastmath<afn> : tensor<4xf32>
      tile.store %a, %A[%c0] : tensor<4xf32> -> !tile.tensor<[4], f32>
      tile.return
    })mlir";
  using ::tile::runtime::Accuracy;
  HostTensor x = makeTensor(DType::F32, {4}, {1, 2, 5, 7});
  HostTensor q = HostTensor::poisoned(DType::F32, {4});
  HostTensor h = HostTensor::poisoned(DType::F16, {4});
  HostTensor a = HostTensor::poisoned(DType::F32, {4});
  // What a GPU one ulp off in element 2 returns.
  auto oneUlpOff = [](const HostTensor &want) {
    HostTensor got = want;
    got.set(2, std::nextafter(static_cast<float>(want.get(2)), 1.0f));
    return got;
  };
  auto mismatches = [&](const HostTensor &want, size_t param) {
    return mismatchesOf(oneUlpOff(want), want, param);
  };

  ASSERT_EQ(run(source, {&x, &q, &h, &a}), "");
  EXPECT_EQ(report.marks[1][2].getAccuracy(), Accuracy::Exact);
  EXPECT_EQ(report.marks[3][2].getAccuracy(), Accuracy::F32);
  EXPECT_EQ(mismatches(q, 1), 1u);
  EXPECT_EQ(mismatches(a, 3), 0u);

  reference::InterpOptions full;
  full.compiled.division = ::tile::runtime::FloatDivision::Full;
  ASSERT_EQ(run(source, {&x, &q, &h, &a}, {}, full), "");
  EXPECT_EQ(report.marks[1][2].getAccuracy(), Accuracy::F32);
  EXPECT_EQ(report.marks[2][2].getAccuracy(), Accuracy::Exact);
  EXPECT_EQ(mismatches(q, 1), 0u);
  EXPECT_EQ(q.get(2), static_cast<double>(5.0f / 3.0f));
}

// The marks bound each inexact element by what the reference knows of it,
// not by the output's largest value: a 1% error of a small element beside
// large ones is caught after an approximate division, a sum and an exp,
// while the errors a correct kernel makes there (a few ulp) pass.
TEST_F(InterpreterTest, PlantedErrorsOfSmallElementsAreCaught) {
  const char *source = R"mlir(
    tile.kernel @k(%X: !tile.tensor<[1, 4], f32>, %Y: !tile.tensor<[1, 4], f32>, %Q: !tile.tensor<[1, 4], f32>, %S: !tile.tensor<[1, 4], f32>, %E: !tile.tensor<[1, 4], f32>, %D: !tile.tensor<[1, 4], f32>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %x = tile.load %X[%c0, %c0] : !tile.tensor<[1, 4], f32> -> tensor<1x4xf32>
      %y = tile.load %Y[%c0, %c0] : !tile.tensor<[1, 4], f32> -> tensor<1x4xf32>
      %q = arith.divf %x, %y : tensor<1x4xf32>
      tile.store %q, %Q[%c0, %c0] : tensor<1x4xf32> -> !tile.tensor<[1, 4], f32>
      %s = tile.rowsum %x : tensor<1x4xf32> -> tensor<1x1xf32>
      %b = tile.broadcast %s : tensor<1x1xf32> -> tensor<1x4xf32>
      %sx = arith.mulf %b, %y : tensor<1x4xf32>
      tile.store %sx, %S[%c0, %c0] : tensor<1x4xf32> -> !tile.tensor<[1, 4], f32>
      %e = math.exp %y : tensor<1x4xf32>
      tile.store %e, %E[%c0, %c0] : tensor<1x4xf32> -> !tile.tensor<[1, 4], f32>
      %d = arith.subf %e, %b : tensor<1x4xf32>
      tile.store %d, %D[%c0, %c0] : tensor<1x4xf32> -> !tile.tensor<[1, 4], f32>
      tile.return
    })mlir";
  HostTensor x = makeTensor(DType::F32, {1, 4}, {0.99993f, 2275, 3, 4});
  HostTensor y = makeTensor(DType::F32, {1, 4}, {1, 1, 1e-3f, 7.7f});
  HostTensor q = HostTensor::zeros(DType::F32, {1, 4}), s = q, e = q, d = q;
  reference::InterpOptions full;
  full.compiled.division = ::tile::runtime::FloatDivision::Full;
  ASSERT_EQ(run(source, {&x, &y, &q, &s, &e, &d}, {}, full), "");
  // Off by `relative` at element `i` of parameter `param`: how many differ.
  auto mismatches = [&](const HostTensor &want, size_t param, size_t i,
                        double relative) {
    HostTensor got = want;
    got.set(i, want.get(i) * (1 + relative));
    return mismatchesOf(got, want, param);
  };
  // A quotient of exact operands is one division off at most.
  EXPECT_EQ(report.marks[2][0].getAmplification(), 0u);
  EXPECT_EQ(mismatches(q, 2, 0, 0.01), 1u);
  EXPECT_EQ(mismatches(q, 2, 0, 2.4e-7), 0u); // 2 ulp, as div.full
  // rowsum(x) * y: the sum's terms do not cancel.
  EXPECT_EQ(mismatches(s, 3, 2, 0.01), 1u);
  EXPECT_EQ(mismatches(s, 3, 2, 1e-6), 0u);
  // exp of an exact value, beside exp(7.7) = 2208.
  EXPECT_EQ(report.marks[4][0].getAmplification(), 0u);
  EXPECT_EQ(mismatches(e, 4, 0, 0.01), 1u);
  EXPECT_EQ(mismatches(e, 4, 0, 5e-6), 0u);
  // exp(7.7) - rowsum(x) cancels to 2208 - 2282.99993: the terms'
  // errors, weighed against the difference.
  EXPECT_GE(report.marks[5][3].getAmplification(), 1u);
  EXPECT_EQ(mismatches(d, 5, 3, 1e-5), 0u);
  EXPECT_EQ(mismatches(d, 5, 0, 0.01), 1u);
}

// Found in issue 17: a vector constant overran the interpreter's buffers.
TEST_F(InterpreterTest, VectorValuesAreAnErrorNotACorruption) {
  HostTensor o = HostTensor::zeros(DType::F32, {1});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1], f32>) attributes {threads = 32 : i64} {
      %v = arith.constant dense<1.0> : vector<4xf32>
      tile.return
    })mlir",
                {&o}),
            "3:12: the interp backend does not support values of type "
            "'vector<4xf32>'\n");
  EXPECT_FALSE(report.fault);
}

// Found in issue 17: the budget's message asked about loops in kernels
// without any.
TEST_F(InterpreterTest, TheElementBudgetOutsideLoopsBlamesTheTiles) {
  HostTensor o = HostTensor::zeros(DType::F32, {64, 64});
  reference::InterpOptions options;
  options.maxElements = 5000;
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[64, 64], f32>) attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %one = arith.constant dense<1.0> : tensor<64x64xf32>
      %two = arith.addf %one, %one : tensor<64x64xf32>
      tile.store %two, %O[%c0, %c0] : tensor<64x64xf32> -> !tile.tensor<[64, 64], f32>
      tile.return
    })mlir",
                {&o}, {}, options),
            "5:14: the interp backend stopped after computing 5000 tile "
            "elements (InterpOptions::maxElements): the kernel's tiles are "
            "too large for it\n");
}

// Found by utils/fuzz.py: a kernel without loops over 2^31 - 1 CTAs stopped
// at the step budget blaming tiles it did not have; one with no ops at all
// never reached the budget (each CTA is a step now).
TEST_F(InterpreterTest, TheStepBudgetOutsideLoopsNamesTheGrid) {
  HostTensor o = HostTensor::zeros(DType::F32, {1});
  reference::InterpOptions options;
  options.maxSteps = 1000;
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1], f32>) attributes {threads = 32 : i64, grid = affine_map<() -> (2147483647, 2)>} {
      tile.return
    })mlir",
                {&o}, {}, options),
            "2:5: the interp backend stopped after 1000 operations "
            "(InterpOptions::maxSteps): the launch of 2147483647 x 2 x 1 "
            "CTAs is too large for the reference's budget (1000 CTAs ran); "
            "choose smaller sizes\n");
  // A short loop in each of them is not a loop that never ends: the
  // budget ran out over many CTAs, none of which took much of it.
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%O: !tile.tensor<[1], f32>) attributes {threads = 32 : i64, grid = affine_map<() -> (2147483647)>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c1 {
      }
      tile.return
    })mlir",
                {&o}, {}, options),
            "3:13: the interp backend stopped after 1000 operations "
            "(InterpOptions::maxSteps): the launch of 2147483647 x 1 x 1 "
            "CTAs is too large for the reference's budget (112 CTAs ran); "
            "choose smaller sizes\n");
}

namespace {

TEST_F(InterpreterTest, ScalarParametersIotaOtherAndMask) {
  // O[i, j] = alpha * (j < n ? X[s + i, j] : -1) where j > i, else untouched;
  // row s + 1 = 3 is outside X, so it reads `other`.
  HostTensor alpha = makeTensor(DType::F32, {}, {2.0});
  HostTensor start = HostTensor::zeros(DType::Index, {});
  start.setInt(0, 2);
  HostTensor n = makeTensor(DType::I32, {}, {3});
  HostTensor x =
      makeTensor(DType::F32, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  HostTensor o = makeTensor(DType::F32, {2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%alpha: f32, %X: !tile.tensor<[3, 4], f32>, %s: index,
                   %n: i32, %O: !tile.tensor<[2, 4], f32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %minus = arith.constant -1.0 : f32
      %x = tile.load %X[%s, %c0] other %minus : !tile.tensor<[3, 4], f32> -> tensor<2x4xf32>
      %cols = tile.iota 1 : tensor<2x4xi32>
      %rows = tile.iota 0 : tensor<2x4xi32>
      %ns = tile.splat %n : tensor<2x4xi32>
      %inside = arith.cmpi slt, %cols, %ns : tensor<2x4xi32>
      %fill = tile.splat %minus : tensor<2x4xf32>
      %v = arith.select %inside, %x, %fill : tensor<2x4xi1>, tensor<2x4xf32>
      %a = tile.splat %alpha : tensor<2x4xf32>
      %y = arith.mulf %a, %v : tensor<2x4xf32>
      %upper = arith.cmpi sgt, %cols, %rows : tensor<2x4xi32>
      %t = tile.load %O[%c0, %c0] : !tile.tensor<[2, 4], f32> -> tensor<2x4xf32>
      tile.store %y, %O[%c0, %c0] mask %upper : tensor<2x4xf32> -> !tile.tensor<[2, 4], f32>
      tile.return
    }
  )mlir",
                {&alpha, &x, &start, &n, &o}),
            "");
  EXPECT_EQ(elements(o), (std::vector<double>{0, 20, 22, -2, 0, 0, -2, -2}));
}

TEST_F(InterpreterTest, TransposesReductionsAndIndexingByHand) {
  // X = [[1, 3, 3], [2, NaN, NaN]]: its transpose, column sums, maxima
  // and minima, row minima, the first column of each row's maximum (a NaN
  // above every number), and row 1 replaced by row 0 plus X[0, 1].
  double nan = std::nan("");
  HostTensor x = makeTensor(DType::F32, {2, 3}, {1, 3, 3, 2, nan, nan});
  HostTensor t = makeTensor(DType::F32, {3, 2}, {0, 0, 0, 0, 0, 0});
  HostTensor cols = makeTensor(DType::F32, {3, 3}, std::vector<double>(9, 0));
  HostTensor rows = makeTensor(DType::F32, {2, 1}, {0, 0});
  HostTensor arg = makeTensor(DType::I32, {2, 1}, {0, 0});
  HostTensor y = makeTensor(DType::F32, {2, 3}, {0, 0, 0, 0, 0, 0});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%X: !tile.tensor<[2, 3], f32>, %T: !tile.tensor<[3, 2], f32>,
                   %C: !tile.tensor<[3, 3], f32>, %R: !tile.tensor<[2, 1], f32>,
                   %A: !tile.tensor<[2, 1], i32>, %Y: !tile.tensor<[2, 3], f32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %x = tile.load %X[%c0, %c0] : !tile.tensor<[2, 3], f32> -> tensor<2x3xf32>
      %t = tile.transpose %x : tensor<2x3xf32> -> tensor<3x2xf32>
      tile.store %t, %T[%c0, %c0] : tensor<3x2xf32> -> !tile.tensor<[3, 2], f32>
      %first = tile.extract_slice %x[0, 0] : tensor<2x3xf32> -> tensor<1x3xf32>
      %sum = tile.colsum %first : tensor<1x3xf32> -> tensor<1x3xf32>
      %all = tile.colsum %x : tensor<2x3xf32> -> tensor<1x3xf32>
      tile.store %all, %C[%c0, %c0] : tensor<1x3xf32> -> !tile.tensor<[3, 3], f32>
      %max = tile.colmax %x : tensor<2x3xf32> -> tensor<1x3xf32>
      tile.store %max, %C[%c1, %c0] : tensor<1x3xf32> -> !tile.tensor<[3, 3], f32>
      %min = tile.colmin %x : tensor<2x3xf32> -> tensor<1x3xf32>
      tile.store %min, %C[%c2, %c0] : tensor<1x3xf32> -> !tile.tensor<[3, 3], f32>
      %rmin = tile.rowmin %x : tensor<2x3xf32> -> tensor<2x1xf32>
      tile.store %rmin, %R[%c0, %c0] : tensor<2x1xf32> -> !tile.tensor<[2, 1], f32>
      %arg = tile.rowargmax %x : tensor<2x3xf32> -> tensor<2x1xi32>
      tile.store %arg, %A[%c0, %c0] : tensor<2x1xi32> -> !tile.tensor<[2, 1], i32>
      %e = tile.extract %x[0, 1] : tensor<2x3xf32>
      %es = tile.splat %e : tensor<1x3xf32>
      %twice = arith.addf %sum, %es : tensor<1x3xf32>
      %y = tile.insert_slice %twice into %x[1, 0] : tensor<1x3xf32> into tensor<2x3xf32>
      tile.store %y, %Y[%c0, %c0] : tensor<2x3xf32> -> !tile.tensor<[2, 3], f32>
      tile.return
    }
  )mlir",
                {&x, &t, &cols, &rows, &arg, &y}),
            "");
  auto same = [](const std::vector<double> &got,
                 const std::vector<double> &want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i])
          << "element " << i << ": got " << got[i] << ", want " << want[i];
  };
  same(elements(t), {1, 2, 3, nan, 3, nan});
  same(elements(cols), {3, nan, nan, 2, nan, nan, 1, nan, nan});
  same(elements(rows), {1, nan});
  same(elements(arg), {1, 1});
  same(elements(y), {1, 3, 3, 4, 6, 6});
}

TEST_F(InterpreterTest, GathersScattersAndAtomicsByHand) {
  // E = [[1, 2], [3, 4], [5, 6]]; ids = [2, -1, 0, 3]: rows 2 and 0 of E,
  // `other` (9) for the two outside; the scatter writes the gathered row i
  // to row 3 - i of Y; an atomic add, then max, of gathered row i into row
  // ids[i] of H drops the ids outside H.
  HostTensor e = makeTensor(DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor ids = makeTensor(DType::I32, {4, 1}, {2, -1, 0, 3});
  HostTensor g = makeTensor(DType::F32, {4, 2}, std::vector<double>(8, 0));
  HostTensor y = makeTensor(DType::F32, {4, 2}, std::vector<double>(8, 0));
  HostTensor h = makeTensor(DType::F32, {3, 2}, {10, 10, 10, 10, 10, 10});
  EXPECT_EQ(run(R"mlir(
    tile.kernel @k(%E: !tile.tensor<[3, 2], f32>, %I: !tile.tensor<[4, 1], i32>,
                   %G: !tile.tensor<[4, 2], f32>, %Y: !tile.tensor<[4, 2], f32>,
                   %H: !tile.tensor<[3, 2], f32>)
        attributes {threads = 32 : i64} {
      %c0 = arith.constant 0 : index
      %other = arith.constant 9.0 : f32
      %ids = tile.load %I[%c0, %c0] : !tile.tensor<[4, 1], i32> -> tensor<4x1xi32>
      %g = tile.gather %E[%c0, %c0] indices(%ids) dims [0] other %other : !tile.tensor<[3, 2], f32>, tensor<4x1xi32> -> tensor<4x2xf32>
      tile.store %g, %G[%c0, %c0] : tensor<4x2xf32> -> !tile.tensor<[4, 2], f32>
      %rows = tile.iota 0 : tensor<4x1xi32>
      %three = arith.constant dense<3> : tensor<4x1xi32>
      %reversed = arith.subi %three, %rows : tensor<4x1xi32>
      tile.scatter %g, %Y[%c0, %c0] indices(%reversed) dims [0] : tensor<4x2xf32>, !tile.tensor<[4, 2], f32>, tensor<4x1xi32>
      tile.atomic add %g, %H[%c0, %c0] indices(%ids) dims [0] : tensor<4x2xf32>, !tile.tensor<[3, 2], f32>, tensor<4x1xi32>
      tile.atomic max %g, %H[%c0, %c0] indices(%ids) dims [0] : tensor<4x2xf32>, !tile.tensor<[3, 2], f32>, tensor<4x1xi32>
      tile.return
    }
  )mlir",
                {&e, &ids, &g, &y, &h}),
            "");
  EXPECT_EQ(elements(g), (std::vector<double>{5, 6, 9, 9, 1, 2, 9, 9}));
  EXPECT_EQ(elements(y), (std::vector<double>{9, 9, 1, 2, 9, 9, 5, 6}));
  // Row 0 += [1, 2] then max with it; row 2 += [5, 6]; row 1 untouched.
  EXPECT_EQ(elements(h), (std::vector<double>{11, 12, 10, 10, 15, 16}));
}

} // namespace
