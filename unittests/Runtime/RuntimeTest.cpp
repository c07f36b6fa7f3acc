//===- RuntimeTest.cpp - manifest, grid, argument checks, driver loading --===//

#include "tile/Runtime/Check.h"
#include "tile/Runtime/Cuda.h"
#include "tile/Runtime/Json.h"
#include "tile/Runtime/Report.h"
#include "tile/Runtime/tile_runtime.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>

using namespace tile::runtime;

namespace {

// The manifest of docs/abi.md.
const char *const kSquares = R"json({
  "version": 1, "kernel": "squares", "entry": "squares", "chip": "sm_90",
  "threads": 256,
  "grid": ["K ceildiv 64", "1", "1"],
  "symbols": ["K"],
  "params": [
    {"name": "X", "dtype": "f32", "shape": [16, "K"], "access": "read"},
    {"name": "O", "dtype": "f32", "shape": [16, 64], "access": "write"},
    {"name": "S", "dtype": "f32", "shape": [16, 1], "access": "write"}
  ],
  "shared_bytes": 4096, "dynamic_shared": false,
  "shared_buffers": [
    {"name": "acc", "bytes": 4096, "offset": 0, "live": "squares.tile:9-10"}
  ],
  "registers": [
    {"name": "acc", "elements_per_thread": 4,
     "uses": [{"loc": "squares.tile:7:5", "kind": "elementwise"}],
     "spills": [{"loc": "squares.tile:9:3", "reason": "store to a tensor"}]}
  ]
})json";

/// `text` with `from` replaced by `to`.
std::string replaced(std::string text, const std::string &from,
                     const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

/// `kSquares` with `from` replaced by `to`.
std::string squaresWith(const std::string &from, const std::string &to) {
  return replaced(kSquares, from, to);
}

/// The message of the error `parseManifest(text)` gives, "" on success.
std::string manifestError(const std::string &text) {
  Expected<KernelManifest> manifest = parseManifest(text);
  return manifest ? "" : manifest.getError().message();
}

TEST(JsonTest, ParsesValues) {
  Expected<JsonValue> json = parseJson(
      R"( {"a": [1, -2.5e1, true, null], "b": "x\"\u00e9\ud83d\ude00"} )");
  ASSERT_TRUE(json) << json.getError().message();
  const JsonValue *a = json->get("a");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->array.size(), 4u);
  EXPECT_TRUE(a->array[0].isInteger);
  EXPECT_EQ(a->array[0].integer, 1);
  EXPECT_FALSE(a->array[1].isInteger);
  EXPECT_EQ(a->array[1].number, -25.0);
  EXPECT_TRUE(a->array[2].boolean);
  EXPECT_EQ(a->array[3].kind, JsonValue::Kind::Null);
  EXPECT_EQ(json->get("b")->string, "x\"\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(JsonTest, MalformedTextGivesTheByteOffset) {
  struct Case {
    const char *text, *message;
  } cases[] = {
      {"{\"a\": 1,}", "malformed JSON at byte 8: expected a string key"},
      {"[1 2]", "malformed JSON at byte 3: expected ',' or ']'"},
      {"{\"a\" 1}", "malformed JSON at byte 5: expected ':'"},
      {"\"abc", "malformed JSON at byte 4: unterminated string"},
      {"[01]", "malformed JSON at byte 1: a number cannot start with 0"},
      {"{\"a\": 1, \"a\": 2}", "malformed JSON at byte 9: duplicate key"},
      {"[1] x", "malformed JSON at byte 4: unexpected text"},
      {"", "malformed JSON at byte 0: expected a value"},
      {"\"\\x\"", "malformed JSON at byte 2: invalid escape"},
      {"tru", "malformed JSON at byte 0: unexpected character 't'"},
  };
  for (const Case &c : cases) {
    Expected<JsonValue> json = parseJson(c.text);
    ASSERT_FALSE(json) << c.text;
    EXPECT_EQ(json.getError().message().rfind(c.message, 0), 0u)
        << c.text << " -> " << json.getError().message();
  }
}

TEST(JsonTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  Expected<JsonValue> json = parseJson(deep);
  ASSERT_FALSE(json);
  EXPECT_NE(json.getError().message().find("nested deeper than"),
            std::string::npos);
}

TEST(ManifestTest, ParsesTheAbiExample) {
  Expected<KernelManifest> manifest = parseManifest(kSquares);
  ASSERT_TRUE(manifest) << manifest.getError().message();
  EXPECT_EQ(manifest->kernel, "squares");
  EXPECT_EQ(manifest->entry, "squares");
  EXPECT_EQ(manifest->chip, "sm_90");
  EXPECT_EQ(manifest->threads, 256);
  EXPECT_EQ(manifest->grid[0], "K ceildiv 64");
  EXPECT_EQ(manifest->symbols, std::vector<std::string>{"K"});
  ASSERT_EQ(manifest->params.size(), 3u);
  const ParamSpec &x = manifest->params[0];
  EXPECT_EQ(x.name, "X");
  EXPECT_EQ(x.dtype, DType::F32);
  ASSERT_EQ(x.shape.size(), 2u);
  EXPECT_EQ(x.shape[0].size, 16);
  EXPECT_EQ(x.shape[1].symbol, "K");
  EXPECT_EQ(x.access, Access::Read);
  EXPECT_EQ(manifest->params[1].access, Access::Write);
  EXPECT_EQ(manifest->sharedBytes, 4096);
  EXPECT_FALSE(manifest->dynamicShared);
}

TEST(ManifestTest, MalformedJsonNamesTheOffset) {
  EXPECT_EQ(manifestError("{\"version\": 1,"),
            "manifest: malformed JSON at byte 14: expected a string key");
  EXPECT_EQ(manifestError("1"), "manifest: must be a JSON object");
  // An array is one manifest per kernel of a file.
  EXPECT_EQ(manifestError("[1]"), "manifest: [0] must be a JSON object");
  EXPECT_EQ(manifestError("[]"),
            "manifest: an array of 0 manifests (); choose a kernel by its "
            "name");
}

TEST(ManifestTest, MissingAndWrongFieldsAreNamed) {
  EXPECT_EQ(manifestError(squaresWith("\"threads\": 256,", "")),
            "manifest: threads: missing");
  EXPECT_EQ(manifestError(squaresWith("\"threads\": 256", "\"threads\": 0")),
            "manifest: threads: must be an integer in [1, 1024]");
  EXPECT_EQ(manifestError(squaresWith("\"version\": 1", "\"version\": 7")),
            "manifest: version: must be an integer in [1, 6]");
  EXPECT_EQ(
      manifestError(squaresWith("\"entry\": \"squares\"", "\"entry\": 3")),
      "manifest: entry: must be a string");
  EXPECT_EQ(
      manifestError(squaresWith("\"dtype\": \"f32\", \"shape\": [16, 64]",
                                "\"dtype\": \"f64\", \"shape\": [16, 64]")),
      "manifest: params[1].dtype: 'f64' is not one of f32, f16, bf16, "
      "i32, i1, index");
  EXPECT_EQ(manifestError(squaresWith("[16, 64]", "[16, 0]")),
            "manifest: params[1].shape: each dimension must be a positive "
            "integer, a symbol name or an expression of symbols");
  EXPECT_EQ(manifestError(squaresWith("[16, 64]", "[16, \"K / 2\"]")),
            "manifest: params[1].shape: each dimension must be a positive "
            "integer, a symbol name or an expression of symbols");
  EXPECT_EQ(manifestError(squaresWith(", \"access\": \"read\"", "")),
            "manifest: params[0].access: missing");
  EXPECT_EQ(manifestError(squaresWith("\"name\": \"O\"", "\"name\": \"X\"")),
            "manifest: params: two parameters named 'X'");
}

// Every field is checked against what the compiler writes: whole warps, the
// most shared memory a chip has, and each field the version has.
TEST(ManifestTest, FieldsAreWhatTheCompilerWrites) {
  EXPECT_EQ(manifestError(squaresWith("\"threads\": 256", "\"threads\": 33")),
            "manifest: threads: must be a multiple of 32 (tile compiles "
            "whole warps), not 33");
  EXPECT_EQ(manifestError(squaresWith("\"shared_bytes\": 4096",
                                      "\"shared_bytes\": 232449")),
            "manifest: shared_bytes: must be an integer in [0, 232448]");
  // Version 4 added index_bits, version 5 fp_contract and fp_div: a
  // manifest of that version without them was not written by tile.
  EXPECT_EQ(manifestError(squaresWith("\"version\": 1", "\"version\": 4")),
            "manifest: index_bits: missing");
  EXPECT_EQ(manifestError(squaresWith("\"version\": 1, ",
                                      "\"version\": 5, \"index_bits\": 32, "
                                      "\"fp_div\": \"ieee\", ")),
            "manifest: fp_contract: missing (a version 5 manifest has it)");
  EXPECT_EQ(manifestError(squaresWith("\"version\": 1, ",
                                      "\"version\": 5, \"index_bits\": 32, "
                                      "\"fp_contract\": true, "
                                      "\"fp_div\": \"ieee\", ")),
            "");
}

TEST(ManifestTest, ScalarParametersHaveAnEmptyShape) {
  std::string axpy =
      squaresWith("{\"name\": \"X\"",
                  "{\"name\": \"alpha\", \"dtype\": \"f32\", "
                  "\"shape\": [], \"access\": \"read\"}, {\"name\": \"X\"");
  Expected<KernelManifest> manifest = parseManifest(axpy);
  ASSERT_TRUE(manifest) << manifest.getError().message();
  ASSERT_EQ(manifest->params.size(), 4u);
  EXPECT_TRUE(manifest->params[0].isScalar());
  EXPECT_FALSE(manifest->params[1].isScalar());
  EXPECT_EQ(manifestError(squaresWith("\"access\": \"write\"}",
                                      "\"access\": \"write\"}, {\"name\": "
                                      "\"n\", \"dtype\": \"index\", \"shape\": "
                                      "[], \"access\": \"write\"}")),
            "manifest: params[2].access: a scalar parameter (shape []) is "
            "read");
  EXPECT_EQ(manifestError(squaresWith("\"dtype\": \"f32\", \"shape\": [16, 64]",
                                      "\"dtype\": \"index\", \"shape\": [16, "
                                      "64]")),
            "manifest: params[1].dtype: index is the type of a scalar "
            "parameter (shape []), not of a tensor");
}

TEST(ScalarValueTest, ParsesEachType) {
  ParamSpec alpha{"alpha", DType::F32, {}, Access::Read};
  Expected<HostTensor> half = parseScalarValue(alpha, "0.5");
  ASSERT_TRUE(half);
  EXPECT_TRUE(half->isScalar());
  EXPECT_EQ(half->get(0), 0.5);
  EXPECT_EQ(formatScalarValue(*half), "0.5");
  ParamSpec start{"start", DType::Index, {}, Access::Read};
  Expected<HostTensor> big = parseScalarValue(start, "9007199254740993");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->getInt(0), 9007199254740993);
  EXPECT_EQ(formatScalarValue(*big), "9007199254740993");
  ParamSpec k{"k", DType::I32, {}, Access::Read};
  EXPECT_FALSE(parseScalarValue(k, "3000000000"));
  EXPECT_FALSE(parseScalarValue(k, "1.5"));
  EXPECT_FALSE(parseScalarValue(alpha, "fast"));
  EXPECT_EQ(parseScalarValue(alpha, "").getError().message(),
            "value of alpha, '', is not a f32 number");
  // A finite value that the type rounds to an infinity is an error; an
  // infinity asked for is one.
  ParamSpec h{"h", DType::F16, {}, Access::Read};
  EXPECT_EQ(parseScalarValue(h, "1e6").getError().message(),
            "value of h, '1e6', is beyond the range of f16");
  EXPECT_EQ(parseScalarValue(alpha, "1e39").getError().message(),
            "value of alpha, '1e39', is beyond the range of f32");
  Expected<HostTensor> largest = parseScalarValue(h, "65504");
  ASSERT_TRUE(largest);
  EXPECT_EQ(largest->get(0), 65504);
  Expected<HostTensor> infinite = parseScalarValue(h, "-inf");
  ASSERT_TRUE(infinite);
  EXPECT_EQ(infinite->get(0), -INFINITY);
}

TEST(ManifestTest, SymbolsMustMatchTheShapes) {
  EXPECT_EQ(manifestError(squaresWith("\"symbols\": [\"K\"]",
                                      "\"symbols\": [\"K\", \"N\"]")),
            "manifest: symbols: [K, N] differs from the symbols of the "
            "parameter shapes in order of first appearance, [K]");
}

TEST(ManifestTest, GridIsCheckedForSyntaxAndSymbols) {
  EXPECT_EQ(manifestError(squaresWith("K ceildiv 64", "N ceildiv 64")),
            "manifest: grid: in 'N ceildiv 64' at column 1: unknown symbol "
            "'N'");
  EXPECT_EQ(manifestError(squaresWith("K ceildiv 64", "K ceildiv")),
            "manifest: grid: in 'K ceildiv' at column 10: expected a number, "
            "a symbol or '('");
  // Arithmetic waits for the values: K - 1 may be 0 for K = 1.
  EXPECT_EQ(manifestError(squaresWith("K ceildiv 64", "64 floordiv (K - 1)")),
            "");
}

TEST(GridTest, EvaluatesTheGrammar) {
  SymbolBindings symbols = {{"K", 100}, {"N", 7}};
  auto eval = [&](const char *text) {
    Expected<int64_t> value = evaluateExpression(text, symbols);
    EXPECT_TRUE(value) << text << ": " << value.getError().message();
    return value ? *value : -999;
  };
  EXPECT_EQ(eval("K ceildiv 64"), 2);
  EXPECT_EQ(eval("K floordiv 64"), 1);
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 2 - 3"), 5);
  EXPECT_EQ(eval("-N floordiv 2"), -4);
  EXPECT_EQ(eval("-N ceildiv 2"), -3);
  EXPECT_EQ(eval("-N mod 3"), 2);
  EXPECT_EQ(eval("N mod 3"), 1);
  EXPECT_EQ(eval("  K*N  "), 700);
  EXPECT_EQ(eval("- -3"), 3);
}

TEST(GridTest, ErrorsAreClear) {
  SymbolBindings symbols = {{"K", 0}};
  auto error = [&](const char *text) {
    Expected<int64_t> value = evaluateExpression(text, symbols);
    EXPECT_FALSE(value) << text;
    return value ? "" : value.getError().message();
  };
  EXPECT_EQ(error("64 floordiv K"),
            "in '64 floordiv K' at column 4: division by zero");
  EXPECT_EQ(error("M + 1"), "in 'M + 1' at column 1: unknown symbol 'M'");
  EXPECT_EQ(error("(1 + 2"), "in '(1 + 2' at column 7: expected ')'");
  EXPECT_EQ(error("1 2"), "in '1 2' at column 3: unexpected '2'");
  EXPECT_EQ(error("9223372036854775807 + 1"),
            "in '9223372036854775807 + 1' at column 21: integer overflow");
  EXPECT_EQ(error("99999999999999999999"),
            "in '99999999999999999999' at column 1: number "
            "'99999999999999999999' is too large");
}

TEST(GridTest, GridSizesMustBePositive) {
  Expected<KernelManifest> manifest = parseManifest(kSquares);
  ASSERT_TRUE(manifest);
  Expected<std::array<int64_t, 3>> grid = evaluateGrid(*manifest, {{"K", 130}});
  ASSERT_TRUE(grid);
  EXPECT_EQ(*grid, (std::array<int64_t, 3>{3, 1, 1}));
  manifest->grid[1] = "K - 130";
  grid = evaluateGrid(*manifest, {{"K", 130}});
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.getError().message(),
            "grid size in y is 0; it must be in [1, 2^31 - 1]");
}

TEST(GridTest, IntegerScalarsMayBeNamed) {
  // A split count: the grid's y is the i32 scalar `splits`.
  std::string text =
      squaresWith("\"grid\": [\"K ceildiv 64\", \"1\", \"1\"]",
                  "\"grid\": [\"K ceildiv 64\", \"splits\", \"1\"]");
  text = replaced(text, "{\"name\": \"O\"",
                  "{\"name\": \"splits\", \"dtype\": \"i32\", \"shape\": [], "
                  "\"access\": \"read\"},\n    {\"name\": \"O\"");
  Expected<KernelManifest> manifest = parseManifest(text);
  ASSERT_TRUE(manifest) << manifest.getError().message();
  Expected<HostTensor> splits = parseScalarValue(manifest->params[1], "3");
  ASSERT_TRUE(splits);
  std::vector<const HostTensor *> arguments = {nullptr, &*splits, nullptr,
                                               nullptr};
  Expected<std::array<int64_t, 3>> grid =
      evaluateGrid(*manifest, {{"K", 130}}, arguments);
  ASSERT_TRUE(grid) << grid.getError().message();
  EXPECT_EQ(*grid, (std::array<int64_t, 3>{3, 3, 1}));
  Expected<HostTensor> none = parseScalarValue(manifest->params[1], "-1");
  ASSERT_TRUE(none);
  arguments[1] = &*none;
  grid = evaluateGrid(*manifest, {{"K", 130}}, arguments);
  ASSERT_FALSE(grid);
  EXPECT_EQ(grid.getError().message(),
            "grid size in y is -1; it must be in [1, 2^31 - 1]");
  // A name that is no symbol and no integer scalar is refused on reading.
  EXPECT_EQ(manifestError(squaresWith("\"1\", \"1\"]", "\"n\", \"1\"]")),
            "manifest: grid: in 'n' at column 1: unknown symbol 'n'");
}

TEST(ArgumentTest, ExpressionDimensionsAreChecked) {
  // S is [2 * K + 1, 1]: K is bound by X, the expression checked.
  Expected<KernelManifest> manifest = parseManifest(
      squaresWith("\"shape\": [16, 1]", "\"shape\": [\"2 * K + 1\", 1]"));
  ASSERT_TRUE(manifest) << manifest.getError().message();
  HostTensor x = HostTensor::zeros(DType::F32, {16, 128});
  HostTensor o = HostTensor::zeros(DType::F32, {16, 64});
  HostTensor good = HostTensor::zeros(DType::F32, {257, 1});
  HostTensor bad = HostTensor::zeros(DType::F32, {256, 1});
  SymbolBindings symbols;
  EXPECT_FALSE(bindArguments(manifest->params, {&x, &o, &good}, symbols));
  EXPECT_EQ(symbols, (SymbolBindings{{"K", 128}}));
  symbols.clear();
  EXPECT_EQ(
      bindArguments(manifest->params, {&x, &o, &bad}, symbols).message(),
      "parameter 'S': dimension 0 is 256, but 2 * K + 1 = 257 with K = 128 "
      "(parameter 'X' dimension 1)");
  // Shapes from the symbols (tile-run, tile-launch): the expression's
  // value, and an error where it is not positive.
  Expected<std::vector<int64_t>> shape =
      resolveShape(manifest->params[2], {{"K", 3}});
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, (std::vector<int64_t>{7, 1}));
  manifest->params[2].shape[0].symbol = "K - 4";
  shape = resolveShape(manifest->params[2], {{"K", 3}});
  ASSERT_FALSE(shape);
  EXPECT_EQ(shape.getError().message(),
            "parameter 'S': dimension K - 4 is -1; sizes must be positive");
}

TEST(IndexRangeTest, ThirtyTwoBitKernelsTakeSizesBelow2To31) {
  // A manifest without index_bits is a 64-bit kernel: any size.
  Expected<KernelManifest> wide = parseManifest(kSquares);
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->indexBits, 64);
  EXPECT_FALSE(checkIndexRange(*wide, {{"K", int64_t(1) << 40}}));
  EXPECT_EQ(manifestError(squaresWith("\"threads\": 256",
                                      "\"threads\": 256, \"index_bits\": 48")),
            "manifest: index_bits: must be 32 or 64");

  Expected<KernelManifest> narrow = parseManifest(
      squaresWith("\"threads\": 256", "\"threads\": 256, \"index_bits\": 32"));
  ASSERT_TRUE(narrow) << narrow.getError().message();
  EXPECT_EQ(narrow->indexBits, 32);
  // X is [16, K]: 16 K elements must stay below 2^31, and K itself.
  EXPECT_FALSE(checkIndexRange(*narrow, {{"K", 134217727}}));
  Error elements = checkIndexRange(*narrow, {{"K", 134217728}});
  ASSERT_TRUE(elements);
  EXPECT_EQ(elements.message(),
            "parameter 'X': [16, 134217728] of f32 is 2147483648 elements, "
            "over the 2^31 - 1 that kernel 'squares' reaches with 32-bit "
            "index arithmetic; compile it with --index-bits=64");
  Error symbol = checkIndexRange(*narrow, {{"K", int64_t(1) << 31}});
  ASSERT_TRUE(symbol);
  EXPECT_EQ(symbol.message().rfind("symbol K = 2147483648 is over the 2^31 "
                                   "- 1",
                                   0),
            0u);

  // An index scalar is checked where its value is given.
  narrow->params.insert(narrow->params.begin(),
                        ParamSpec{"start", DType::Index, {}, Access::Read});
  Expected<HostTensor> start =
      parseScalarValue(narrow->params[0], "-2147483649");
  ASSERT_TRUE(start);
  std::vector<const HostTensor *> buffers = {&*start, nullptr, nullptr,
                                             nullptr};
  Error scalar = checkIndexRange(*narrow, {{"K", 64}}, buffers);
  ASSERT_TRUE(scalar);
  EXPECT_EQ(scalar.message().rfind(
                "parameter 'start': the index -2147483649 is over the", 0),
            0u);
  Expected<HostTensor> inside =
      parseScalarValue(narrow->params[0], "-2147483648");
  buffers[0] = &*inside;
  EXPECT_FALSE(checkIndexRange(*narrow, {{"K", 64}}, buffers));
}

TEST(SymbolTest, ParsesAssignments) {
  SymbolBindings symbols;
  EXPECT_FALSE(parseSymbolAssignment("K=4096", symbols));
  EXPECT_EQ(symbols["K"], 4096);
  EXPECT_FALSE(parseSymbolAssignment("K=4096", symbols));
  EXPECT_EQ(parseSymbolAssignment("K=64", symbols).message(),
            "K is given twice, as 4096 and 64");
  EXPECT_EQ(parseSymbolAssignment("K", symbols).message(),
            "'K' is not a symbol assignment such as K=4096");
  EXPECT_EQ(parseSymbolAssignment("N=-1", symbols).message(),
            "value of N, '-1', is not a positive integer");
  EXPECT_EQ(parseSymbolAssignment("N=0", symbols).message(),
            "value of N, '0', is not a positive integer");
}

/// Buffers for the squares kernel with K columns.
struct SquaresBuffers {
  explicit SquaresBuffers(int64_t k)
      : x(HostTensor::zeros(DType::F32, {16, k})),
        o(HostTensor::zeros(DType::F32, {16, 64})),
        s(HostTensor::zeros(DType::F32, {16, 1})) {}
  std::vector<const HostTensor *> list() const { return {&x, &o, &s}; }
  HostTensor x, o, s;
};

std::string bindError(const std::vector<const HostTensor *> &buffers,
                      SymbolBindings symbols = {}) {
  Expected<KernelManifest> manifest = parseManifest(kSquares);
  EXPECT_TRUE(manifest);
  return bindArguments(manifest->params, buffers, symbols).message();
}

TEST(ArgumentTest, BindsSymbolsFromShapes) {
  Expected<KernelManifest> manifest = parseManifest(kSquares);
  ASSERT_TRUE(manifest);
  SquaresBuffers buffers(4096);
  SymbolBindings symbols;
  EXPECT_FALSE(bindArguments(manifest->params, buffers.list(), symbols));
  EXPECT_EQ(symbols["K"], 4096);
}

TEST(ArgumentTest, EachFailureNamesTheParameter) {
  SquaresBuffers buffers(128);
  buffers.o.dtype = DType::I32;
  EXPECT_EQ(bindError(buffers.list()),
            "parameter 'O': expected f32 elements, got i32");

  SquaresBuffers wrongShape(128);
  wrongShape.s = HostTensor::zeros(DType::F32, {16, 2});
  EXPECT_EQ(bindError(wrongShape.list()),
            "parameter 'S': dimension 1 is 2, expected 1");

  SquaresBuffers wrongRank(128);
  wrongRank.o = HostTensor::zeros(DType::F32, {1024});
  EXPECT_EQ(bindError(wrongRank.list()),
            "parameter 'O': expected rank 2, got shape [1024]");

  SquaresBuffers good(128);
  EXPECT_EQ(bindError({&good.x, nullptr, &good.s}),
            "parameter 'O': no buffer given");
  EXPECT_EQ(bindError({&good.x}),
            "the kernel has 3 parameters, 1 buffers given");

  SquaresBuffers shortBytes(128);
  shortBytes.x.bytes.resize(12);
  EXPECT_EQ(bindError(shortBytes.list()),
            "parameter 'X': 12 bytes do not hold a [16, 128] f32 tensor");
}

TEST(ArgumentTest, SymbolsMustAgree) {
  SquaresBuffers buffers(128);
  EXPECT_EQ(bindError(buffers.list(), {{"K", 64}}),
            "parameter 'X': dimension 1 is K = 128, but K = 64 (given)");

  // Two parameters that disagree on K.
  std::string text = squaresWith("\"shape\": [16, 1]", "\"shape\": [\"K\", 1]");
  Expected<KernelManifest> manifest = parseManifest(text);
  ASSERT_TRUE(manifest) << manifest.getError().message();
  HostTensor s = HostTensor::zeros(DType::F32, {100, 1});
  SymbolBindings symbols;
  EXPECT_EQ(
      bindArguments(manifest->params, {&buffers.x, &buffers.o, &s}, symbols)
          .message(),
      "parameter 'S': dimension 0 is K = 100, but K = 128 (parameter "
      "'X' dimension 1)");
}

TEST(TensorTest, ElementsRoundTripThroughDouble) {
  HostTensor f16 = HostTensor::zeros(DType::F16, {3});
  f16.set(0, 1.0 + std::ldexp(1.0, -11)); // a tie: rounds to 1
  f16.set(1, -65504.0);
  EXPECT_EQ(f16.get(0), 1.0);
  EXPECT_EQ(f16.get(1), -65504.0);
  HostTensor i32 = HostTensor::zeros(DType::I32, {2});
  i32.set(0, 4294967297.0); // 2^32 + 1 wraps to 1
  i32.set(1, -7);
  EXPECT_EQ(i32.get(0), 1.0);
  EXPECT_EQ(i32.get(1), -7.0);
  HostTensor i1 = HostTensor::poisoned(DType::I1, {1});
  EXPECT_EQ(i1.get(0), 255.0); // neither 0 nor 1
  i1.set(0, -1);
  EXPECT_EQ(i1.get(0), 1.0);
  EXPECT_TRUE(std::isnan(HostTensor::poisoned(DType::BF16, {1}).get(0)));
  EXPECT_EQ(HostTensor::poisoned(DType::I32, {1}).get(0), 2147483647.0);
}

TEST(TensorTest, FirstMismatchReportsTheIndex) {
  HostTensor want = HostTensor::zeros(DType::F32, {4, 8});
  for (size_t i = 0; i < want.numElements(); ++i)
    want.set(i, 1.0 + i);
  HostTensor got = want;
  Expected<std::optional<Mismatch>> none =
      firstMismatch(got, want, defaultTolerance(DType::F32));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);

  got.set(13, 14.0 * (1 + 1e-6)); // within 1e-5 relative
  got.set(21, 99.0);
  got.set(30, NAN);
  Expected<std::optional<Mismatch>> bad =
      firstMismatch(got, want, defaultTolerance(DType::F32));
  ASSERT_TRUE(bad && *bad);
  EXPECT_EQ((*bad)->index, 21u);
  EXPECT_EQ((*bad)->got, 99.0);
  EXPECT_EQ((*bad)->want, 22.0);
  EXPECT_EQ((*bad)->count, 2u);
  EXPECT_EQ(formatIndex(got.shape, 21), "[2, 5]");

  HostTensor other = HostTensor::zeros(DType::F16, {4, 8});
  EXPECT_FALSE(firstMismatch(got, other, {}));
}

TEST(TensorTest, ToleranceHasAnAbsoluteFloor) {
  HostTensor want = HostTensor::zeros(DType::F32, {2});
  HostTensor got = want;
  got.set(0, 1e-7); // want 0: inside the absolute floor
  Expected<std::optional<Mismatch>> result =
      firstMismatch(got, want, defaultTolerance(DType::F32));
  ASSERT_TRUE(result);
  EXPECT_FALSE(*result);
  got.set(1, 1e-3);
  result = firstMismatch(got, want, defaultTolerance(DType::F32));
  ASSERT_TRUE(result && *result);
  EXPECT_EQ((*result)->index, 1u);
}

/// The kinds and first indices of what findMismatches reports.
std::vector<std::pair<MismatchKind, size_t>>
problems(const OutputComparison &comparison) {
  Expected<std::vector<Mismatch>> found = findMismatches(comparison);
  EXPECT_TRUE(found);
  std::vector<std::pair<MismatchKind, size_t>> kinds;
  if (found)
    for (const Mismatch &mismatch : *found)
      kinds.push_back({mismatch.kind, mismatch.index});
  return kinds;
}

TEST(CheckTest, ToleranceFollowsTheAccuracy) {
  // 4 elements of 1.0 (and one of 64, for the absolute part).
  HostTensor want = HostTensor::zeros(DType::F32, {5});
  for (size_t i = 0; i < 4; ++i)
    want.set(i, 1.0);
  want.set(4, 64.0);
  HostTensor got = want;
  got.set(0, std::nextafter(1.0f, 2.0f));     // one ulp of f32
  got.set(1, 1.0 + std::ldexp(1.0, -10));     // one ulp of f16
  got.set(2, 1.0 + 3 * std::ldexp(1.0, -10)); // three
  std::vector<ElementMark> marks(5,
                                 ElementMark::written(Accuracy::Exact, false));
  OutputComparison comparison;
  comparison.got = &got;
  comparison.want = &want;
  comparison.wantMarks = &marks;
  // Exact: every difference counts, one ulp of f32 too.
  Expected<std::vector<Mismatch>> exact = findMismatches(comparison);
  ASSERT_TRUE(exact);
  ASSERT_EQ(exact->size(), 1u);
  EXPECT_EQ((*exact)[0].index, 0u);
  EXPECT_EQ((*exact)[0].count, 3u);
  // Passed through an inexact op in f32: one ulp of f32 is fine, one of
  // f16 (a narrowing that did not happen) is not.
  marks.assign(5, ElementMark::written(Accuracy::F32, false));
  Expected<std::vector<Mismatch>> f32 = findMismatches(comparison);
  ASSERT_TRUE(f32);
  ASSERT_EQ(f32->size(), 1u);
  EXPECT_EQ((*f32)[0].index, 1u);
  EXPECT_EQ((*f32)[0].count, 2u);
  // Narrowed to f16 after it: an ulp or three of f16 pass (4e-3 of 64
  // absolute).
  marks.assign(5, ElementMark::written(Accuracy::F16, false));
  EXPECT_TRUE(problems(comparison).empty());
}

// The floating-point options a kernel was compiled with: the manifest's
// fp_contract and fp_div, the defaults where a manifest (before version 5)
// has neither.
TEST(FloatOptionsTest, TheManifestRecordsThem) {
  Expected<KernelManifest> old = parseManifest(kSquares);
  ASSERT_TRUE(old);
  EXPECT_TRUE(old->floatOptions == FloatOptions());
  EXPECT_TRUE(old->floatOptions.contract);
  EXPECT_EQ(old->floatOptions.division, FloatDivision::IEEE);

  Expected<KernelManifest> full = parseManifest(
      squaresWith("\"threads\": 256", "\"threads\": 256, \"fp_contract\": "
                                      "false, \"fp_div\": \"full\""));
  ASSERT_TRUE(full) << full.getError().message();
  EXPECT_FALSE(full->floatOptions.contract);
  EXPECT_EQ(full->floatOptions.division, FloatDivision::Full);

  EXPECT_EQ(manifestError(squaresWith(
                "\"threads\": 256", "\"threads\": 256, \"fp_div\": \"fast\"")),
            "manifest: fp_div: must be \"ieee\" or \"full\", not \"fast\"");
  EXPECT_EQ(manifestError(squaresWith("\"threads\": 256",
                                      "\"threads\": 256, \"fp_contract\": 1")),
            "manifest: fp_contract: must be true or false");
  // The C API reads the same fields: a bad one is bad input before the
  // driver is looked for.
  std::string bad =
      squaresWith("\"threads\": 256", "\"threads\": 256, \"fp_div\": \"fast\"");
  EXPECT_EQ(tile_launch("", 0, bad.data(), bad.size(), nullptr, 0, nullptr,
                        nullptr, 0, 0, 0, "libtile-no-such-driver.so", nullptr),
            TILE_BAD_INPUT);
  EXPECT_STREQ(tile_last_error(),
               "manifest: fp_div: must be \"ieee\" or \"full\", not \"fast\"");
}

// What tile-run --write-io records next to the marks, and reads back.
TEST(FloatOptionsTest, ExpectationsRecordThemAsTheManifestDoes) {
  for (FloatOptions options :
       {FloatOptions{}, FloatOptions{false, FloatDivision::Full}}) {
    Expected<FloatOptions> read =
        parseFloatOptions(formatFloatOptions(options));
    ASSERT_TRUE(read) << read.getError().message();
    EXPECT_TRUE(*read == options) << formatFloatOptions(options);
  }
  EXPECT_EQ(formatFloatOptions({true, FloatDivision::Full}),
            "{\"fp_contract\": true, \"fp_div\": \"full\"}");
  Expected<FloatOptions> empty = parseFloatOptions("{}");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(*empty == FloatOptions());
  Expected<FloatOptions> bad = parseFloatOptions("{\"fp_div\": 2}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.getError().message(),
            "floating-point options: fp_div: must be a string");
  EXPECT_FALSE(parseFloatOptions("[]"));
  // The marks' version: 1 where absent (written before version 2), a later
  // one than this build knows refused.
  int64_t version = 0;
  ASSERT_TRUE(parseFloatOptions("{}", &version));
  EXPECT_EQ(version, 1);
  std::string current = formatFloatOptions({}, kMarksVersion);
  EXPECT_EQ(current, "{\"fp_contract\": true, \"fp_div\": \"ieee\", "
                     "\"marks_version\": 3}");
  ASSERT_TRUE(parseFloatOptions(current, &version));
  EXPECT_EQ(version, kMarksVersion);
  Expected<FloatOptions> newer =
      parseFloatOptions("{\"marks_version\": 4}", &version);
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.getError().message(),
            "floating-point options: marks_version: must be an integer in "
            "[1, 3]");
}

// Marks hold for a kernel compiled with the options they assume, and only
// for it: a quotient 2 ulp off (div.full.f32) passes the marks of
// --fp-div=full, fails the default's, and a larger error fails both.
TEST(FloatOptionsTest, MarksHoldOnlyForTheOptionsTheyAssume) {
  FloatOptions ieee, full{true, FloatDivision::Full};
  EXPECT_FALSE(checkMarksApply(ieee, ieee));
  EXPECT_FALSE(checkMarksApply(full, full));
  Error stricter = checkMarksApply(full, ieee);
  ASSERT_TRUE(stricter);
  EXPECT_EQ(stricter.getKind(), ErrorKind::Input);
  EXPECT_EQ(stricter.message(),
            "the marks of the expected outputs are for a kernel compiled "
            "with fp_contract=true, fp_div=ieee, but this one was compiled "
            "with fp_contract=true, fp_div=full: they would hold some of its "
            "elements to the wrong tolerance; write them with tile-run "
            "--fp-div=full --write-io, or replace the tolerance with --rtol "
            "and --atol");
  Error looser =
      checkMarksApply(FloatOptions{false, FloatDivision::IEEE}, full);
  ASSERT_TRUE(looser);
  EXPECT_NE(looser.message().find("tile-run --fp-contract=false "
                                  "--fp-div=ieee --write-io"),
            std::string::npos)
      << looser.message();

  // 5 / 3 and 1 / 3, the second 2 ulp up.
  HostTensor want = HostTensor::zeros(DType::F32, {2});
  want.set(0, 5.0f / 3.0f);
  want.set(1, 1.0f / 3.0f);
  HostTensor got = want;
  got.set(1, std::nextafter(std::nextafter(1.0f / 3.0f, 1.0f), 1.0f));
  OutputComparison comparison;
  comparison.got = &got;
  comparison.want = &want;
  std::vector<ElementMark> exact(2,
                                 ElementMark::written(Accuracy::Exact, false));
  std::vector<ElementMark> inexact(2,
                                   ElementMark::written(Accuracy::F32, false));
  comparison.wantMarks = &exact; // the default's marks of a quotient
  EXPECT_EQ(problems(comparison).size(), 1u);
  comparison.wantMarks = &inexact; // --fp-div=full's
  EXPECT_TRUE(problems(comparison).empty());
  got.set(1, 1.0f / 3.0f * 1.001f);
  EXPECT_EQ(problems(comparison).size(), 1u);
}

// An element's amplification a widens its relative tolerance 2^a times,
// and not more (a sum whose terms cancel is known only to their rounding).
TEST(CheckTest, AmplificationWidensTheRelativeTolerance) {
  HostTensor want = HostTensor::zeros(DType::F32, {3});
  for (size_t i = 0; i < 3; ++i)
    want.set(i, 1.0);
  HostTensor got = want;
  got.set(0, 1.0 + 4e-5);
  got.set(1, 1.0 + 4e-5);
  got.set(2, 1.0 + 2e-4);
  std::vector<ElementMark> marks = {
      ElementMark::written(Accuracy::F32, false),
      ElementMark::written(Accuracy::F32, false, 3),
      ElementMark::written(Accuracy::F32, false, 3)};
  EXPECT_EQ(marks[1].getAmplification(), 3u);
  EXPECT_EQ(ElementMark::fromByte(marks[1].toByte())->getAmplification(), 3u);
  OutputComparison comparison;
  comparison.got = &got;
  comparison.want = &want;
  comparison.wantMarks = &marks;
  // 4e-5 is over f32's 1e-5, within 8 times it; 2e-4 is over 8 times it.
  Expected<std::vector<Mismatch>> found = findMismatches(comparison);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].index, 0u);
  EXPECT_EQ((*found)[0].count, 2u);
  // A byte with an accuracy but not written is no mark.
  EXPECT_FALSE(ElementMark::fromByte(0x40));
}

// The tolerance of an element follows its own mark, not the output's
// largest value: a 1% error of a quotient of 0.99993 beside one of 2275
// fails (the planted error of --fp-div=full marks). Only an element the
// reference could not bound, or marks of version 1, get the old absolute
// part of relative * largest.
TEST(CheckTest, AnElementsToleranceIsItsOwn) {
  HostTensor want = HostTensor::zeros(DType::F32, {2});
  want.set(0, 0.99993f);
  want.set(1, 2275.0f);
  HostTensor got = want;
  got.set(0, 0.99993f * 1.01f);
  std::vector<ElementMark> marks(2, ElementMark::written(Accuracy::F32, false));
  OutputComparison comparison;
  comparison.got = &got;
  comparison.want = &want;
  comparison.wantMarks = &marks;
  auto problems = [&] {
    Expected<std::vector<Mismatch>> found = findMismatches(comparison);
    EXPECT_TRUE(static_cast<bool>(found));
    return found ? *found : std::vector<Mismatch>();
  };
  ASSERT_EQ(problems().size(), 1u);
  EXPECT_EQ(problems()[0].index, 0u);
  // 2 ulp, as div.full.f32 may be off, pass.
  got.set(0, std::nextafter(std::nextafter(0.99993f, 2.0f), 2.0f));
  EXPECT_TRUE(problems().empty());
  got.set(0, 0.99993f * 1.01f);
  // Version 1 marks: as before, 1e-5 of 2275 absolute.
  comparison.legacyMarks = true;
  EXPECT_TRUE(problems().empty());
  comparison.legacyMarks = false;
  // Unbounded: the reference knows no bound of its own for it.
  marks[0] = ElementMark::written(Accuracy::F32, false,
                                  ElementMark::kUnboundedAmplification);
  EXPECT_TRUE(marks[0].isUnbounded());
  EXPECT_TRUE(problems().empty());
  // Near 0 the type's absolute part remains.
  marks[0] = ElementMark::written(Accuracy::F32, false);
  want.set(0, 0);
  got.set(0, 9e-7);
  EXPECT_TRUE(problems().empty());
  got.set(0, 2e-6);
  EXPECT_EQ(problems().size(), 1u);
  // Without marks nothing bounds an element: the output's largest does.
  comparison.wantMarks = nullptr;
  got.set(0, 2e-2);
  EXPECT_TRUE(problems().empty());
}

TEST(CheckTest, TheWrittenElementsMustAgree) {
  HostTensor want = HostTensor::poisoned(DType::F32, {4});
  want.set(0, 1.0);
  want.set(1, 2.0);
  HostTensor got = HostTensor::poisoned(DType::F32, {4});
  got.set(0, 1.0);
  got.set(2, 5.0);
  std::vector<ElementMark> marks(4);
  marks[0] = marks[1] = ElementMark::written(Accuracy::Exact, false);
  OutputComparison comparison;
  comparison.got = &got;
  comparison.want = &want;
  comparison.wantMarks = &marks;
  comparison.poisoned = true;
  // From the poison's bits: 1 not written, 2 written outside; 2 and 3 are
  // never written by the kernel as the reference runs it.
  EXPECT_EQ(problems(comparison), (std::vector<std::pair<MismatchKind, size_t>>{
                                      {MismatchKind::NeverWritten, 2},
                                      {MismatchKind::NotWritten, 1},
                                      {MismatchKind::WrittenOutside, 2}}));
  // What the backend says it wrote wins over the bits.
  std::vector<bool> written = {true, true, false, false};
  comparison.gotWritten = &written;
  EXPECT_EQ(problems(comparison),
            (std::vector<std::pair<MismatchKind, size_t>>{
                {MismatchKind::NeverWritten, 2}, {MismatchKind::Value, 1}}));
  // An output that starts as input data: unwritten elements must keep it.
  comparison.poisoned = false;
  comparison.gotWritten = nullptr;
  want.set(2, 5.0);
  want.set(3, 7.0);
  got.set(1, 2.0);
  got.set(3, 7.0);
  EXPECT_TRUE(problems(comparison).empty());
  got.set(3, 8.0);
  EXPECT_EQ(problems(comparison), (std::vector<std::pair<MismatchKind, size_t>>{
                                      {MismatchKind::Value, 3}}));
}

TEST(CheckTest, MarksRoundTripThroughAByte) {
  for (Accuracy accuracy :
       {Accuracy::Exact, Accuracy::F32, Accuracy::F16, Accuracy::BF16})
    for (bool thresholded : {false, true}) {
      ElementMark mark = ElementMark::written(accuracy, thresholded);
      std::optional<ElementMark> back = ElementMark::fromByte(mark.toByte());
      ASSERT_TRUE(back);
      EXPECT_TRUE(back->isWritten());
      EXPECT_EQ(back->getAccuracy(), accuracy);
      EXPECT_EQ(back->isThresholded(), thresholded);
    }
  EXPECT_FALSE(ElementMark::fromByte(0).value().isWritten());
  EXPECT_FALSE(ElementMark::fromByte(0x10));
}

TEST(ManifestTest, AnArrayHoldsOnePerKernel) {
  // What tile-translate --tile-to-manifest writes for a file of kernels.
  std::string one = std::string("[") + kSquares + "]";
  Expected<KernelManifest> only = parseManifest(one);
  ASSERT_TRUE(only) << only.getError().message();
  EXPECT_EQ(only->kernel, "squares");
  std::string two =
      std::string("[") + kSquares + ", " +
      squaresWith("\"kernel\": \"squares\"", "\"kernel\": \"other\"") + "]";
  EXPECT_EQ(parseManifest(two).getError().message(),
            "manifest: an array of 2 manifests (squares, other); choose a "
            "kernel by its name");
  Expected<KernelManifest> other = parseManifest(two, "other");
  ASSERT_TRUE(other) << other.getError().message();
  EXPECT_EQ(other->kernel, "other");
  EXPECT_EQ(parseManifest(two, "third").getError().message(),
            "manifest: no manifest of kernel 'third' among squares, other");
  EXPECT_EQ(parseManifest(kSquares, "other").getError().message(),
            "manifest: this is the manifest of kernel 'squares', not 'other'");
}

TEST(DriverTest, MissingDriverIsAClearError) {
  Expected<DeviceInfo> device = probeCudaDevice("libtile-no-such-driver.so");
  ASSERT_FALSE(device);
  EXPECT_EQ(device.getError().getKind(), ErrorKind::NoDevice);
  EXPECT_EQ(device.getError().message().rfind(
                "no CUDA driver: libtile-no-such-driver.so could not be "
                "loaded (",
                0),
            0u)
      << device.getError().message();
}

TEST(DriverTest, LibraryNameComesFromTheEnvironment) {
  EXPECT_EQ(driverLibraryName("given.so"), "given.so");
  setenv("TILE_CUDA_DRIVER_LIBRARY", "from-env.so", 1);
  EXPECT_EQ(driverLibraryName(), "from-env.so");
  unsetenv("TILE_CUDA_DRIVER_LIBRARY");
  EXPECT_EQ(driverLibraryName(), "libcuda.so.1");
}

TEST(DriverTest, BadInputIsFoundBeforeTheDriver) {
  Expected<KernelManifest> manifest = parseManifest(kSquares);
  ASSERT_TRUE(manifest);
  SquaresBuffers buffers(128);
  buffers.s.dtype = DType::BF16;
  LaunchOptions options;
  options.driverLibrary = "libtile-no-such-driver.so";
  Expected<LaunchReport> report = launchKernel(
      *manifest, "", {&buffers.x, &buffers.o, &buffers.s}, {}, options);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.getError().getKind(), ErrorKind::Input);

  buffers.s.dtype = DType::F32;
  report = launchKernel(*manifest, "", {&buffers.x, &buffers.o, &buffers.s}, {},
                        options);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.getError().getKind(), ErrorKind::NoDevice);
}

const char *const kCopyManifest = R"json({
  "version": 1, "kernel": "copy", "entry": "copy", "threads": 128,
  "grid": ["(4 * K) ceildiv 128"], "symbols": ["K"],
  "params": [
    {"name": "X", "dtype": "f32", "shape": [4, "K"], "access": "read"},
    {"name": "O", "dtype": "f32", "shape": [4, "K"], "access": "write"}
  ]
})json";
const char *const kCopyPtx = ".visible .entry copy(.param .u64 X, ...)";

TEST(DriverTest, LaunchesThroughTheFakeDriver) {
  Expected<KernelManifest> manifest = parseManifest(kCopyManifest);
  ASSERT_TRUE(manifest) << manifest.getError().message();
  HostTensor x = HostTensor::zeros(DType::F32, {4, 50});
  for (size_t i = 0; i < x.numElements(); ++i)
    x.set(i, 0.5 * i);
  HostTensor o = HostTensor::poisoned(DType::F32, {4, 50});
  LaunchOptions options;
  options.driverLibrary = TILE_FAKE_CUDA_DRIVER;
  Expected<LaunchReport> report =
      launchKernel(*manifest, kCopyPtx, {&x, &o}, {}, options);
  ASSERT_TRUE(report) << report.getError().message();
  EXPECT_EQ(o.bytes, x.bytes);
  EXPECT_EQ(report->grid, (std::array<int64_t, 3>{2, 1, 1}));
  EXPECT_EQ(report->device.name, "tile fake CUDA device");
  EXPECT_EQ(report->resources.registers, 8);
  EXPECT_EQ(report->resources.blocksPerMultiprocessor, 16);
  EXPECT_EQ(report->resources.occupancyPercent, 100.0);
  EXPECT_EQ(report->medianMs, 0.125);
}

TEST(DriverTest, JitErrorsCarryTheLog) {
  Expected<KernelManifest> manifest = parseManifest(kCopyManifest);
  ASSERT_TRUE(manifest);
  HostTensor x = HostTensor::zeros(DType::F32, {4, 50}), o = x;
  LaunchOptions options;
  options.driverLibrary = TILE_FAKE_CUDA_DRIVER;
  Expected<LaunchReport> report =
      launchKernel(*manifest, "not ptx", {&x, &o}, {}, options);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.getError().getKind(), ErrorKind::Driver);
  EXPECT_EQ(report.getError().message(),
            "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (fake driver "
            "error)\nJIT error log:\nfake JIT: the image has no .entry\n");
}

// A version 3 manifest: a div16 variant, then the general kernel.
const char *const kCopyVariants = R"json({
  "version": 3, "kernel": "copy", "entry": "copy", "threads": 128,
  "grid": ["(4 * K) ceildiv 128"], "symbols": ["K"],
  "params": [
    {"name": "X", "dtype": "f32", "shape": [4, "K"], "access": "read"},
    {"name": "O", "dtype": "f32", "shape": [4, "K"], "access": "write"}
  ],
  "variants": [
    {"entry": "copy_div16", "divisible": {"K": 16}, "aligned": 16},
    {"entry": "copy", "divisible": {}, "aligned": 16}
  ]
})json";
const char *const kCopyVariantsPtx =
    ".visible .entry copy(.param .u64 X, ...)\n"
    ".visible .entry copy_div16(.param .u64 X, ...)";

std::string copyVariantsWith(const std::string &from, const std::string &to) {
  return replaced(kCopyVariants, from, to);
}

TEST(VariantTest, ParsesTheVariantsInOrder) {
  Expected<KernelManifest> manifest = parseManifest(kCopyVariants);
  ASSERT_TRUE(manifest) << manifest.getError().message();
  ASSERT_EQ(manifest->variants.size(), 2u);
  EXPECT_EQ(manifest->variants[0].entry, "copy_div16");
  EXPECT_EQ(manifest->variants[0].divisible,
            (std::map<std::string, int64_t>{{"K", 16}}));
  EXPECT_EQ(manifest->variants[0].aligned, 16);
  EXPECT_EQ(manifest->variants[1].entry, "copy");
  EXPECT_TRUE(manifest->variants[1].divisible.empty());
  // Before version 3, the general kernel alone.
  Expected<KernelManifest> old = parseManifest(kCopyManifest);
  ASSERT_TRUE(old);
  ASSERT_EQ(old->variants.size(), 1u);
  EXPECT_EQ(old->variants[0].entry, "copy");
}

TEST(VariantTest, BadVariantsAreNamed) {
  EXPECT_EQ(manifestError(copyVariantsWith("{\"K\": 16}", "{\"N\": 16}")),
            "manifest: variants[0].divisible: 'N' is not a symbol of the "
            "kernel");
  EXPECT_EQ(manifestError(copyVariantsWith("{\"K\": 16}", "{\"K\": 0}")),
            "manifest: variants[0].divisible: the divisor of 'K' must be a "
            "positive integer");
  EXPECT_EQ(manifestError(copyVariantsWith(
                "{\"entry\": \"copy\", \"divisible\": {}, \"aligned\": "
                "16}",
                "{\"entry\": \"other\", \"divisible\": {}, \"aligned\": "
                "16}")),
            "manifest: variants: the last variant must be the kernel's entry "
            "'copy'");
  EXPECT_EQ(manifestError(copyVariantsWith("\"aligned\": 16}\n  ]",
                                           "\"aligned\": 0}\n  ]")),
            "manifest: variants[1].aligned: must be an integer in [1, "
            "1073741824]");
}

TEST(VariantTest, TheMostSpecializedVariantWhoseConditionsHoldRuns) {
  Expected<KernelManifest> manifest = parseManifest(kCopyVariants);
  ASSERT_TRUE(manifest);
  Expected<const Variant *> div16 = chooseVariant(*manifest, {{"K", 48}});
  ASSERT_TRUE(div16);
  EXPECT_EQ((*div16)->entry, "copy_div16");
  EXPECT_EQ(describeVariant(**div16), "copy_div16 (K % 16 == 0)");
  Expected<const Variant *> general = chooseVariant(*manifest, {{"K", 50}});
  ASSERT_TRUE(general);
  EXPECT_EQ((*general)->entry, "copy");
  EXPECT_EQ(describeVariant(**general), "copy (general)");
  // A kernel that declares a divisibility itself has no general variant.
  Expected<KernelManifest> declared = parseManifest(
      copyVariantsWith("{\"entry\": \"copy\", \"divisible\": {}",
                       "{\"entry\": \"copy\", \"divisible\": {\"K\": 2}"));
  ASSERT_TRUE(declared) << declared.getError().message();
  Expected<const Variant *> none = chooseVariant(*declared, {{"K", 5}});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.getError().getKind(), ErrorKind::Input);
  EXPECT_EQ(none.getError().message(),
            "kernel 'copy' has no variant for this launch: K = 5 is not a "
            "multiple of 2, which every variant needs");
}

TEST(VariantTest, TheDriverLaunchesTheChosenEntry) {
  Expected<KernelManifest> manifest = parseManifest(kCopyVariants);
  ASSERT_TRUE(manifest);
  LaunchOptions options;
  options.driverLibrary = TILE_FAKE_CUDA_DRIVER;
  options.timedRuns = 0;
  for (auto [k, entry] : {std::pair{48, "copy_div16"}, std::pair{50, "copy"}}) {
    HostTensor x = HostTensor::zeros(DType::F32, {4, k});
    HostTensor o = HostTensor::poisoned(DType::F32, {4, k});
    Expected<LaunchReport> report =
        launchKernel(*manifest, kCopyVariantsPtx, {&x, &o}, {}, options);
    ASSERT_TRUE(report) << report.getError().message();
    EXPECT_EQ(report->variant.entry, entry);
    EXPECT_NE(formatLaunchReport(*manifest, *report, 0)
                  .find(std::string("variant: ") + entry),
              std::string::npos);
  }
  // The driver is asked for the variant's entry: a PTX without it fails.
  HostTensor x = HostTensor::zeros(DType::F32, {4, 48}), o = x;
  Expected<LaunchReport> missing =
      launchKernel(*manifest, kCopyPtx, {&x, &o}, {}, options);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.getError().message().find("entry 'copy_div16'"),
            std::string::npos)
      << missing.getError().message();
}

TEST(VariantTest, TheCApiSaysWhichEntryRan) {
  float x[4 * 48] = {}, o[4 * 48] = {};
  tile_buffer buffers[] = {{"X", x, sizeof(x)}, {"O", o, sizeof(o)}};
  const char *names[] = {"K"};
  std::string manifest = kCopyVariants;
  std::string ptx = kCopyVariantsPtx;
  for (auto [k, entry] : {std::pair{48, "copy_div16"}, std::pair{47, "copy"}}) {
    int64_t values[] = {k};
    buffers[0].bytes = buffers[1].bytes = 4 * k * sizeof(float);
    ASSERT_EQ(tile_launch(ptx.data(), ptx.size(), manifest.data(),
                          manifest.size(), buffers, 2, names, values, 1, 0, 0,
                          TILE_FAKE_CUDA_DRIVER, nullptr),
              TILE_OK)
        << tile_last_error();
    EXPECT_STREQ(tile_last_entry(), entry);
  }
}

TEST(CApiTest, StatusesAndMessages) {
  EXPECT_EQ(tile_cuda_probe("libtile-no-such-driver.so"), TILE_NO_DEVICE);
  EXPECT_NE(std::string(tile_last_error()).find("no CUDA driver"),
            std::string::npos);

  float x[16 * 64] = {};
  tile_buffer buffers[] = {{"X", x, sizeof(x)}};
  const char *names[] = {"K"};
  int64_t values[] = {64};
  std::string manifest = kSquares;
  EXPECT_EQ(tile_launch("", 0, manifest.data(), manifest.size(), buffers, 1,
                        names, values, 1, 0, 0, "libtile-no-such-driver.so",
                        nullptr),
            TILE_BAD_INPUT);
  EXPECT_STREQ(tile_last_error(), "parameter 'O': no buffer given");
  tile_buffer unknown[] = {{"Q", x, sizeof(x)}};
  EXPECT_EQ(tile_launch("", 0, manifest.data(), manifest.size(), unknown, 1,
                        names, values, 1, 0, 0, nullptr, nullptr),
            TILE_BAD_INPUT);
  EXPECT_STREQ(tile_last_error(), "the kernel has no parameter 'Q'");
}

} // namespace
