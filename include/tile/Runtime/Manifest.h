//===- Manifest.h - the kernel manifest of docs/abi.md ----------*- C++ -*-===//
//
// The manifest that travels with a kernel's PTX, the symbol values of a
// launch, the grid expressions, and the check of host buffers against the
// parameters. Plain C++: the interpreter uses the same checks.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_MANIFEST_H
#define TILE_RUNTIME_MANIFEST_H

#include "tile/Runtime/FloatOptions.h"
#include "tile/Runtime/Tensor.h"

#include <array>
#include <map>

namespace tile::runtime {

/// One dimension of a parameter: a static size, a symbol such as `K`, or
/// an affine expression of symbols such as `2 * H` (in `symbol`; the grid
/// grammar of docs/abi.md), which a launch checks rather than binds.
struct Dim {
  int64_t size = 0;
  std::string symbol;
  bool isSymbolic() const { return !symbol.empty(); }
  bool isExpression() const {
    return symbol.find_first_of(" +-*()") != std::string::npos;
  }
};

enum class Access { Read, Write, ReadWrite };

/// A tensor parameter, or with an empty shape a scalar one (passed by
/// value, bound to a HostTensor of shape []).
struct ParamSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<Dim> shape;
  Access access = Access::ReadWrite;
  bool isWritten() const { return access != Access::Read; }
  bool isRead() const { return access != Access::Write; }
  bool isScalar() const { return shape.empty(); }
};

/// The manifest format this runtime writes and the newest it reads:
/// version 2 added scalar parameters (shape []), version 3 variants,
/// version 4 `index_bits` (a reader that ignored it would launch a 32-bit
/// kernel on sizes it cannot reach), version 5 `fp_contract` and `fp_div`
/// (one that ignored them would check a kernel's quotients and fused
/// multiply-adds as if exact), version 6 dimensions that are expressions
/// of symbols and grids over integer scalar parameters (which an older
/// reader refuses rather than misreads).
constexpr int64_t kManifestVersion = 6;

/// The threads of a warp: a kernel's `threads` is a multiple of it.
constexpr int64_t kThreadsPerWarp = 32;
/// The most shared memory a CTA has on any chip tile compiles for (sm_90's
/// and sm_100's 227 KiB): no manifest the compiler writes asks for more.
constexpr int64_t kMostSharedBytes = 227 * 1024;

/// The most static shared memory a CTA may declare: above it the compiler
/// makes a kernel's shared memory dynamic (`dynamic_shared`).
constexpr int64_t kMostStaticSharedBytes = 48 * 1024;

/// The alignment in bytes of every tensor's base address that the ABI
/// requires and every runtime's allocations have (docs/abi.md).
constexpr int64_t kTensorAlignment = 16;

/// One compiled variant of a kernel (docs/abi.md, `variants`): its PTX
/// entry and the conditions a launch must meet to run it.
struct Variant {
  std::string entry;
  /// Each symbol's value must be a multiple of its divisor.
  std::map<std::string, int64_t> divisible;
  /// Every tensor's base address must be a multiple of this many bytes.
  int64_t aligned = kTensorAlignment;
};

struct KernelManifest {
  int64_t version = kManifestVersion;
  std::string kernel, entry, chip;
  int64_t threads = 0;
  /// Expressions over the symbols, x, y, z (grammar in docs/abi.md).
  std::array<std::string, 3> grid = {"1", "1", "1"};
  /// The symbolic dimensions, in ABI order.
  std::vector<std::string> symbols;
  std::vector<ParamSpec> params;
  int64_t sharedBytes = 0;
  bool dynamicShared = false;
  /// Most specialized first; the last is the general kernel (`entry`).
  /// Before version 3, that one alone.
  std::vector<Variant> variants;
  /// The width of the kernel's index arithmetic: 32 or 64 (absent: 64).
  int64_t indexBits = 64;
  /// `fp_contract` and `fp_div` (absent: the defaults).
  FloatOptions floatOptions;
};

/// Parses and checks a manifest; every problem is an Input error naming
/// the field ("manifest: params[1].dtype: ..."). The JSON is one manifest
/// or an array of them (one per kernel of a file): then the manifest of
/// `kernel`, which may be empty when there is only one.
Expected<KernelManifest> parseManifest(std::string_view json,
                                       const std::string &kernel = "");
Expected<KernelManifest> readManifestFile(const std::string &path,
                                          const std::string &kernel = "");

/// The floating-point options that expected outputs' marks assume, as
/// `tile-run --write-io` records them in EXPECT/fp-options.json: a JSON
/// object with the manifest's `fp_contract` and `fp_div` (each optional,
/// the default when absent). Errors name the field.
/// `marksVersion`, where given, receives its `marks_version` (1 when
/// absent, as tile-run wrote before version 2; a version this build does
/// not know is an error).
Expected<FloatOptions> parseFloatOptions(std::string_view json,
                                         int64_t *marksVersion = nullptr);
/// `options` as parseFloatOptions reads them, one line, with a
/// `marks_version` where given.
std::string formatFloatOptions(const FloatOptions &options,
                               std::optional<int64_t> marksVersion = {});

/// The value of each symbolic dimension of a launch.
using SymbolBindings = std::map<std::string, int64_t>;

/// Parses "K=4096" (what `--dim` and dims.txt lines hold) into `symbols`;
/// an error when the symbol is already bound to another value.
Error parseSymbolAssignment(std::string_view text, SymbolBindings &symbols);

/// The value of scalar parameter `param` written as `text` ("0.5", "-3"):
/// a decimal number for a float, rounded to its type; a decimal integer in
/// range for i32 and index. The result has shape [].
Expected<HostTensor> parseScalarValue(const ParamSpec &param,
                                      std::string_view text);
/// `value` as parseScalarValue reads it back exactly ("%.17g" for floats).
std::string formatScalarValue(const HostTensor &value);

/// The shape of `param` with its symbols replaced by their values; an
/// error when its bytes are negative or do not fit in an int64_t.
Expected<std::vector<int64_t>> resolveShape(const ParamSpec &param,
                                            const SymbolBindings &symbols);
/// Adds the bytes of `param` at `shape` (resolveShape's) to `total`, or
/// fails, naming the parameter, when the kernel's tensors would take more
/// than `limit` bytes; `limitName` says which limit ("this machine's memory
/// of N bytes"). Buffers are checked this way before they are allocated.
Error reserveTensorBytes(const ParamSpec &param,
                         const std::vector<int64_t> &shape, int64_t limit,
                         const std::string &limitName, int64_t &total);
/// The host's physical memory in bytes, or INT64_MAX when unknown.
int64_t hostMemoryBytes();

/// Where each symbol got its value ("--dim K=64", "parameter 'A'
/// dimension 1"), for an error that names both sides of a disagreement; a
/// symbol without one was "given".
using SymbolOrigins = std::map<std::string, std::string>;
/// Checks `buffer` against `param`'s dtype and shape, binding each of its
/// symbols the first time a size gives it a value (recorded in `origins`);
/// every other use must agree. A dimension that is an expression of
/// symbols binds nothing: checkExpressionDims checks it once every symbol
/// is bound. The failure names the parameter.
Error bindArgument(const ParamSpec &param, const HostTensor &buffer,
                   SymbolBindings &symbols, SymbolOrigins &origins);
/// Checks that each dimension of `param` that is an expression of symbols
/// (`2 * H`) is, in `shape`, the expression's value with `symbols`; the
/// failure names the parameter, the expression and (from `origins`) where
/// its symbols got their values.
Error checkExpressionDims(const ParamSpec &param,
                          const std::vector<int64_t> &shape,
                          const SymbolBindings &symbols,
                          const SymbolOrigins &origins = {});
/// Checks one buffer per parameter (in order) against its dtype and shape,
/// and binds each symbol the first time a buffer gives it a size; every
/// other use must agree with it, as must the values already in `symbols`;
/// then each dimension that is an expression of symbols must be its value.
/// Each failure names the parameter.
Error bindArguments(const std::vector<ParamSpec> &params,
                    const std::vector<const HostTensor *> &buffers,
                    SymbolBindings &symbols);

/// The variant a launch with `symbols` runs: the first of the manifest's
/// whose divisors the values meet. An Input error naming the symbol and
/// its divisor when none does (a kernel that declares a divisibility,
/// tile.divisibility, has no general variant).
Expected<const Variant *> chooseVariant(const KernelManifest &manifest,
                                        const SymbolBindings &symbols);
/// "NAME_div16 (K % 16 == 0)", or "NAME (general)" for a variant without
/// divisors: what a report says ran.
std::string describeVariant(const Variant &variant);
/// For a kernel whose index arithmetic is 32 bits wide (`index_bits`):
/// fails, naming it, unless every symbol, every tensor's element count and
/// every index scalar among `buffers` (in parameter order; may be empty)
/// is at most 2^31 - 1 in magnitude, since the kernel would wrap it.
/// Needs no buffer, so launchers check sizes before they allocate. Where
/// a parameter is at fault (a tensor's count, an index scalar), its index
/// goes to `badParam` if given, so that a caller can point at it.
Error checkIndexRange(const KernelManifest &manifest,
                      const SymbolBindings &symbols,
                      const std::vector<const HostTensor *> &buffers = {},
                      size_t *badParam = nullptr);

/// The comment tile's PTX ends with, once per entry: "// tile.threads
/// ENTRY N", the CTA size the entry was compiled for (its code assumes it;
/// the PTX's own .maxntid is there only above 256 threads).
constexpr const char kThreadsComment[] = "// tile.threads";
/// Checks `manifest.threads` against what the PTX says of `entry`: the
/// tile.threads comment and .reqntid must equal it, .maxntid bound it. A
/// PTX that says nothing (hand-written) is taken as the manifest says; one
/// without the entry is left to the driver. The error names both numbers.
Error checkThreads(const KernelManifest &manifest, std::string_view ptx,
                   const std::string &entry);

/// The integer operators of the grid grammar, with affine semantics:
/// floordiv and ceildiv round toward -inf and +inf, mod is
/// a - b * (a floordiv b). Division by zero and overflow are errors.
enum class IntOp { Add, Sub, Mul, FloorDiv, CeilDiv, Mod };
Expected<int64_t> applyIntOp(IntOp op, int64_t lhs, int64_t rhs);

/// Evaluates one expression of the grid grammar of docs/abi.md.
Expected<int64_t> evaluateExpression(std::string_view expression,
                                     const SymbolBindings &symbols);
/// The grid of `manifest`: each size positive and at most 2^31 - 1. A grid
/// may name the kernel's integer scalar parameters (i32, index) too: their
/// values are those of `arguments` (one per parameter, as bindArguments
/// takes them).
Expected<std::array<int64_t, 3>>
evaluateGrid(const KernelManifest &manifest, const SymbolBindings &symbols,
             const std::vector<const HostTensor *> &arguments = {});
/// Checks a grid computed elsewhere (the interpreter's) the same way.
Error checkGrid(const std::array<int64_t, 3> &grid);

} // namespace tile::runtime

#endif // TILE_RUNTIME_MANIFEST_H
