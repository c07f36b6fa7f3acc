//===- tile-emulate.cpp - run a lowered kernel on the emulator ------------===//
//
// tile-emulate LOWERED.mlir --kernel NAME --arg X=f32[16,K] ... --dim K=64
//     [--grid X,Y,Z] [--output O,S] [--fill random|index|ones] [--seed N]
//
// Runs a kernel after tile-to-gpu on the emulate backend with inputs it
// fills itself (deterministically), and prints a summary of each output,
// the emulated thread count and the wall time. The lowered IR carries no
// tensor shapes, so each `!llvm.ptr<1>` parameter is described by an --arg,
// in order, and each scalar parameter by NAME=DTYPE:VALUE; the symbols are
// the shapes' names in order of first appearance (docs/abi.md). Exit codes,
// as tile-run's: 0 ran cleanly (and, with --source, matched the reference),
// 1 an output differs from the reference's, 2 bad input (or an op the emulator
// does not support), 4 a check of the kernel failed (a race, an out-of-bounds
// access, a barrier or shuffle error, ...).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/Signature.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Emulator/Emulator.h"
#include "tile/InitAllTile.h"
#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Manifest.h"
#include "tile/Runtime/Report.h"
#include "tile/Tools/BoundedOption.h"
#include "tile/Tools/Driver.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <random>

using namespace mlir;
using namespace mlir::tile;
namespace cl = llvm::cl;
namespace rt = ::tile::runtime;

namespace {
enum ExitCode { kSuccess = 0, kMismatch = 1, kBadInput = 2, kKernelFault = 4 };

cl::OptionCategory tileEmulateCategory("tile-emulate options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<lowered .mlir>"),
                               cl::init("-"), cl::cat(tileEmulateCategory));
cl::opt<std::string> kernelName("kernel", cl::desc("the gpu.func to run"),
                                cl::value_desc("NAME"),
                                cl::cat(tileEmulateCategory));
cl::list<std::string> argSpecs(
    "arg",
    cl::desc("a parameter, in the kernel's order: a tensor NAME=DTYPE[DIMS] "
             "(X=f32[16,K]; the symbols of DIMS take --dim), or a scalar "
             "NAME=DTYPE:VALUE (alpha=f32:0.5, n=i32:7)"),
    cl::value_desc("X=f32[16,K]|NAME=f32:VALUE"), cl::cat(tileEmulateCategory));
cl::list<std::string> dimValues("dim", cl::desc("a symbol's value"),
                                cl::value_desc("K=64"),
                                cl::cat(tileEmulateCategory));
cl::opt<std::string> gridText("grid",
                              cl::desc("CTAs in x, y, z (default 1,1,1)"),
                              cl::value_desc("X,Y,Z"), cl::init("1,1,1"),
                              cl::cat(tileEmulateCategory));
cl::list<std::string> outputs(
    "output", cl::desc("parameters the kernel writes: poisoned, then shown"),
    cl::value_desc("NAME"), cl::CommaSeparated, cl::cat(tileEmulateCategory));
enum class Fill { Random, Index, Ones };
cl::opt<Fill>
    fill("fill", cl::desc("how the inputs are filled (default random)"),
         cl::values(clEnumValN(Fill::Random, "random",
                               "random in [-1, 1) (integers in [-8, 8])"),
                    clEnumValN(Fill::Index, "index", "element i is i"),
                    clEnumValN(Fill::Ones, "ones", "every element is 1")),
         cl::init(Fill::Random), cl::cat(tileEmulateCategory));
cl::opt<unsigned> seed("seed", cl::desc("seed of --fill=random (default 1)"),
                       cl::init(1), cl::cat(tileEmulateCategory));
cl::opt<unsigned> printCount("print",
                             cl::desc("elements shown per output (default 8)"),
                             cl::init(8), cl::cat(tileEmulateCategory));
// At most what a CTA of any chip tile compiles for has, as a manifest's.
cl::opt<long long, false, BoundedParser<long long, 0, rt::kMostSharedBytes>>
    sharedBytes("shared-bytes", cl::desc("bytes of dynamic shared memory"),
                cl::init(0), cl::cat(tileEmulateCategory));
// None would stop every kernel at its first op, "a loop that never ends?".
cl::opt<long long, false, BoundedParser<long long, 1, INT64_MAX>>
    maxSteps("max-steps", cl::desc("ops per thread at most"),
             cl::init(emulator::EmulatorOptions().maxStepsPerThread),
             cl::cat(tileEmulateCategory));
cl::opt<bool> noRaceCheck("no-race-check",
                          cl::desc("do not track shared-memory races"),
                          cl::cat(tileEmulateCategory));
cl::opt<bool> bankConflicts(
    "bank-conflicts",
    cl::desc("count and report the shared-memory wavefronts and bank "
             "conflicts of every warp (ld/st.shared, ldmatrix, cp.async)"),
    cl::cat(tileEmulateCategory));

cl::opt<std::string> sourceFile(
    "source",
    cl::desc("the .tile (or tile .mlir) source the lowered kernel was "
             "compiled from: run its kernel of the same name on the "
             "reference interpreter with the same inputs and check every "
             "--output against it (without it nothing is checked, and the "
             "run says so)"),
    cl::value_desc("KERNEL.tile"), cl::cat(tileEmulateCategory));

int badInput(const Twine &message) {
  llvm::errs() << "tile-emulate: error: " << message << "\n";
  return kBadInput;
}

/// "X=f32[16, K]" -> the parameter; "alpha=f32:0.5" -> a scalar one and
/// its value (in `scalarValue`).
FailureOr<rt::ParamSpec> parseArg(StringRef text, std::string &scalarValue) {
  auto [name, type] = text.split('=');
  if (auto [dtype, value] = type.split(':'); type.contains(':')) {
    std::optional<rt::DType> scalar = rt::parseDType(dtype.str());
    if (name.empty() || !scalar || *scalar == rt::DType::I1)
      return failure();
    rt::ParamSpec param;
    param.name = name.str();
    param.dtype = *scalar;
    param.access = rt::Access::Read;
    scalarValue = value.str();
    return param;
  }
  size_t open = type.find('[');
  if (name.empty() || open == StringRef::npos || !type.ends_with("]"))
    return failure();
  std::optional<rt::DType> dtype = rt::parseDType(type.take_front(open).str());
  if (!dtype)
    return failure();
  rt::ParamSpec param;
  param.name = name.str();
  param.dtype = *dtype;
  SmallVector<StringRef> dims;
  type.drop_front(open + 1).drop_back().split(dims, ',');
  for (StringRef dim : dims) {
    dim = dim.trim();
    rt::Dim parsed;
    if (dim.getAsInteger(10, parsed.size)) {
      if (dim.empty() || !isalpha(dim.front()))
        return failure();
      parsed.symbol = dim.str();
    }
    param.shape.push_back(parsed);
  }
  return param;
}

/// The dtype of a tile element or scalar type (f32, f16, bf16, i32, i1,
/// index), none for another.
std::optional<rt::DType> dtypeOf(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return rt::parseDType(text);
}

/// Checks the --arg descriptions against the kernel's parameters (where
/// their count is right; the emulator checks it): a tensor for each
/// `!llvm.ptr` and a scalar of the type of each other; where tile-to-gpu
/// recorded the kernel's signature (tile_signature), each tensor's dtype,
/// rank, sizes and symbols as well. A mismatch is an error at the kernel: the emulator
/// would read the buffers as the kernel's types, and report its own faults.
LogicalResult checkSignature(gpu::GPUFuncOp func,
                             ArrayRef<rt::ParamSpec> params,
                             size_t symbolCount) {
  auto fail = [&](const Twine &message) {
    return emitError(func.getLoc())
           << "kernel '" << func.getName() << "': " << message;
  };
  ArrayRef<Type> types = func.getArgumentTypes();
  if (types.size() != params.size() + symbolCount)
    return success(); // the emulator says how many it takes
  auto signature = func->getAttrOfType<ArrayAttr>(kSignatureAttrName);
  if (signature && signature.size() != params.size())
    signature = nullptr; // hand-edited: the parameter types alone
  // The kernel's symbol of each --arg symbol, to check they correspond.
  std::map<std::string, std::string> symbolOf;
  for (auto [index, param] : llvm::enumerate(params)) {
    std::string which =
        "--arg " + param.name + " (parameter " + std::to_string(index) + ")";
    bool pointer = isa<LLVM::LLVMPointerType>(types[index]);
    if (param.isScalar()) {
      std::optional<rt::DType> want = dtypeOf(types[index]);
      bool isIndex =
          signature && cast<TypeAttr>(signature[index]).getValue().isIndex();
      if (isIndex)
        want = rt::DType::Index;
      else if (want == rt::DType::Index || types[index].isInteger(64))
        want = rt::DType::Index; // index passes as i64
      if (pointer || want != param.dtype) {
        std::string kernelType;
        llvm::raw_string_ostream(kernelType) << types[index];
        return fail(
            which + " is a " + rt::dtypeName(param.dtype) +
            " scalar; the parameter is " +
            (pointer ? std::string("a tensor") : "of type " + kernelType));
      }
      continue;
    }
    if (!pointer)
      return fail(which + " is a tensor; the parameter is a scalar");
    if (!signature)
      continue;
    auto tensor =
        dyn_cast<GlobalTensorType>(cast<TypeAttr>(signature[index]).getValue());
    if (!tensor)
      return fail(which + " is a tensor; the kernel's parameter is a scalar");
    std::optional<rt::DType> dtype = dtypeOf(tensor.getElementType());
    std::string kernelType;
    llvm::raw_string_ostream(kernelType) << tensor;
    std::string described = rt::dtypeName(param.dtype);
    for (auto [dim, size] : llvm::enumerate(param.shape))
      described +=
          (dim ? ", " : "[") +
          (size.isSymbolic() ? size.symbol : std::to_string(size.size));
    described += "]";
    auto mismatch = [&](const Twine &what) {
      return fail(which + " is " + described + "; the kernel's is " +
                  kernelType + ": " + what);
    };
    if (dtype != param.dtype)
      return mismatch("another element type");
    if (tensor.getRank() != param.shape.size())
      return mismatch("another rank");
    for (auto [dim, given] : llvm::enumerate(param.shape)) {
      if (!tensor.isDynamicDim(dim)) {
        if (given.isSymbolic() || given.size != tensor.getShape()[dim])
          return mismatch("dimension " + Twine(dim) + " differs");
        continue;
      }
      std::string symbol = tensor.getSymbolOfDim(dim).str();
      if (!given.isSymbolic())
        return mismatch("dimension " + Twine(dim) + " is the symbol " + symbol +
                        ", which needs a name and a --dim");
      auto [known, isNew] = symbolOf.try_emplace(given.symbol, symbol);
      if (!isNew && known->second != symbol)
        return mismatch("symbol " + given.symbol + " stands for both " +
                        known->second + " and " + symbol);
    }
  }
  return success();
}

void fillTensor(rt::HostTensor &tensor, std::mt19937_64 &random) {
  for (size_t i = 0, e = tensor.numElements(); i < e; ++i) {
    double value = 1;
    if (fill == Fill::Index) {
      value = tensor.dtype == rt::DType::I1 ? i % 2 : i;
    } else if (fill == Fill::Random) {
      uint64_t bits = random();
      if (tensor.dtype == rt::DType::I1)
        value = bits & 1;
      else if (tensor.dtype == rt::DType::I32)
        value = static_cast<double>(bits % 17) - 8;
      else
        value = static_cast<double>(bits >> 11) * 0x1p-52 - 1;
    }
    tensor.set(i, value);
  }
}

void printTensor(const rt::ParamSpec &param, const rt::HostTensor &tensor) {
  double sum = 0;
  for (size_t i = 0, e = tensor.numElements(); i < e; ++i)
    sum += tensor.get(i);
  llvm::outs() << param.name << " " << rt::dtypeName(tensor.dtype)
               << rt::formatShape(tensor.shape) << ": sum "
               << llvm::format("%g", sum) << ", first";
  for (size_t i = 0, e = std::min<size_t>(printCount, tensor.numElements());
       i < e; ++i)
    llvm::outs() << " " << llvm::format("%g", tensor.get(i));
  llvm::outs() << "\n";
}
/// Runs the kernel `name` of --source (a variant's `_div16` dropped: the
/// kernel it is a variant of) on the reference interpreter with `expected`,
/// the emulated run's inputs, and checks the emulator's outputs `got`
/// against it, as tile-run does: 0 when all match, 1 on a mismatch.
int checkAgainstSource(MLIRContext &context, StringRef name,
                       ArrayRef<rt::ParamSpec> params,
                       std::vector<rt::HostTensor> expected,
                       ArrayRef<rt::HostTensor> got,
                       ArrayRef<std::vector<bool>> written,
                       rt::SymbolBindings symbols) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(sourceFile, &error);
  if (!file)
    return badInput("--source: " + error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> source = parseKernelSource(sourceMgr, &context);
  if (!source)
    return kBadInput;
  StringRef base = name;
  base.consume_back("_div16");
  auto kernel = source->lookupSymbol<KernelOp>(base);
  if (!kernel)
    return badInput("--source " + sourceFile + " has no kernel '" + base + "'");
  if (kernel->getRegion(0).getNumArguments() != params.size())
    return badInput("--source: kernel '" + base + "' has " +
                    Twine(kernel->getRegion(0).getNumArguments()) +
                    " parameters, but " + Twine(params.size()) +
                    " were given with --arg");
  std::vector<rt::HostTensor *> args;
  for (rt::HostTensor &tensor : expected)
    args.push_back(&tensor);
  reference::InterpReport reference;
  if (failed(reference::interpretKernel(kernel, args, symbols, {}, &reference)))
    return reference.fault ? kKernelFault : kBadInput;
  bool allMatch = true;
  for (auto [index, param] : llvm::enumerate(params)) {
    bool output = llvm::is_contained(outputs, param.name);
    if (param.isScalar() || (!outputs.empty() && !output))
      continue;
    rt::OutputComparison comparison;
    comparison.got = &got[index];
    comparison.gotWritten = &written[index];
    comparison.want = &expected[index];
    comparison.wantMarks = &reference.marks[index];
    comparison.poisoned = output;
    rt::Expected<bool> matched =
        rt::checkOutput(param.name, comparison, "emulate", "interp");
    if (!matched)
      return badInput(matched.getError().message());
    allMatch &= *matched;
  }
  return allMatch ? kSuccess : kMismatch;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  setUpToolCommandLine("tile-emulate", {&tileEmulateCategory});
  if (!cl::ParseCommandLineOptions(
          argc, argv, "run a lowered tile kernel on the emulator\n",
          &llvm::errs()))
    return kBadInput;

  // The parameters and the symbols their shapes bind.
  std::vector<rt::ParamSpec> params;
  std::map<std::string, std::string> scalarValues;
  for (const std::string &text : argSpecs) {
    std::string value;
    FailureOr<rt::ParamSpec> param = parseArg(text, value);
    if (failed(param))
      return badInput("--arg wants NAME=DTYPE[DIMS] or NAME=DTYPE:VALUE, got "
                      "'" +
                      text + "'");
    if (llvm::any_of(params, [&](const rt::ParamSpec &other) {
          return other.name == param->name;
        }))
      return badInput("--arg " + text + ": '" + param->name +
                      "' is given twice");
    if (param->isScalar())
      scalarValues[param->name] = value;
    params.push_back(std::move(*param));
  }
  rt::SymbolBindings bindings;
  for (const std::string &text : dimValues)
    if (rt::Error error = rt::parseSymbolAssignment(text, bindings))
      return badInput(error.message());
  std::vector<int64_t> symbols;
  std::vector<std::string> symbolOrder;
  for (const rt::ParamSpec &param : params)
    for (const rt::Dim &dim : param.shape)
      if (dim.isSymbolic() && !llvm::is_contained(symbolOrder, dim.symbol))
        symbolOrder.push_back(dim.symbol);
  for (const std::string &symbol : symbolOrder) {
    auto value = bindings.find(symbol);
    if (value == bindings.end())
      return badInput("no --dim for symbol " + symbol);
    symbols.push_back(value->second);
  }

  std::mt19937_64 random(seed);
  std::vector<rt::HostTensor> tensors;
  tensors.reserve(params.size());
  int64_t totalBytes = 0;
  for (const rt::ParamSpec &param : params) {
    if (param.isScalar()) {
      rt::Expected<rt::HostTensor> value =
          rt::parseScalarValue(param, scalarValues[param.name]);
      if (!value)
        return badInput(value.getError().message());
      tensors.push_back(std::move(*value));
      continue;
    }
    rt::Expected<std::vector<int64_t>> shape =
        rt::resolveShape(param, bindings);
    if (!shape)
      return badInput(shape.getError().message());
    // Checked before anything is allocated: more than the machine has is
    // an error, not LLVM's "out of memory" abort.
    if (rt::Error error = rt::reserveTensorBytes(
            param, *shape, rt::hostMemoryBytes(),
            "this machine's memory of " +
                std::to_string(rt::hostMemoryBytes()) + " bytes",
            totalBytes))
      return badInput(error.message());
    if (llvm::is_contained(outputs, param.name)) {
      tensors.push_back(rt::HostTensor::poisoned(param.dtype, *shape));
    } else {
      tensors.push_back(rt::HostTensor::zeros(param.dtype, *shape));
      fillTensor(tensors.back(), random);
    }
  }
  for (const std::string &name : outputs)
    if (llvm::none_of(params, [&](const rt::ParamSpec &param) {
          return param.name == name;
        }))
      return badInput("--output names no --arg: " + name);
  // The inputs as they were, for the reference (--source).
  std::vector<rt::HostTensor> inputs;
  if (!sourceFile.empty())
    inputs = tensors;
  std::vector<std::vector<bool>> written(params.size());
  std::vector<emulator::EmulatedBuffer> buffers;
  for (auto [param, tensor, wrote] : llvm::zip_equal(params, tensors, written))
    buffers.push_back({param.name, &tensor, &wrote});

  std::array<int64_t, 3> grid;
  SmallVector<StringRef> gridParts;
  StringRef(gridText).split(gridParts, ',');
  if (gridParts.size() != 3)
    return badInput("--grid wants X,Y,Z");
  for (auto [size, part] : llvm::zip_equal(grid, gridParts))
    if (part.trim().getAsInteger(10, size) || size < 1)
      return badInput("--grid wants three positive sizes, got " + gridText);
  // The sizes a launcher takes (the runtime's rule).
  if (rt::Error error = rt::checkGrid(grid))
    return badInput("--grid " + gridText + ": " + error.message());

  DialectRegistry registry;
  registerAllTileDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &error);
  if (!file)
    return badInput(error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  if (failed(rejectParserCrashes(sourceMgr, &context)))
    return kBadInput;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return kBadInput;
  // What the compiler would reject (a vector too large to lower) is not
  // emulated either.
  PassManager verify(&context);
  verify.addPass(createTileVerifyLowered());
  if (failed(verify.run(*module)))
    return kBadInput;

  std::string kernel = kernelName;
  if (kernel.empty()) {
    SmallVector<gpu::GPUFuncOp> kernels;
    module->walk([&](gpu::GPUFuncOp func) {
      if (func.isKernel())
        kernels.push_back(func);
    });
    if (kernels.size() != 1)
      return badInput("the module has " + Twine(kernels.size()) +
                      " kernels: name one with --kernel");
    kernel = kernels.front().getName().str();
  }

  gpu::GPUFuncOp func;
  module->walk([&](gpu::GPUFuncOp candidate) {
    if (candidate.getName() == kernel && candidate.isKernel())
      func = candidate;
  });
  if (func && failed(checkSignature(func, params, symbols.size())))
    return kBadInput;

  emulator::EmulatorOptions options;
  options.dynamicSharedBytes = sharedBytes;
  options.maxStepsPerThread = maxSteps;
  options.checkRaces = !noRaceCheck;
  options.countBankConflicts = bankConflicts;
  emulator::EmulatorReport report;
  LogicalResult status = emulator::emulateKernel(
      *module, kernel, buffers, symbols, grid, options, report);
  llvm::outs() << "emulated " << report.threads << " threads in " << report.ctas
               << " CTAs: " << report.steps << " ops, "
               << llvm::format("%.3f", report.seconds) << " s\n";
  if (failed(status))
    return report.fault ? kKernelFault : kBadInput;
  if (bankConflicts)
    llvm::outs() << emulator::describeBankConflicts(report);
  for (auto [param, tensor] : llvm::zip_equal(params, tensors))
    if (outputs.empty() || llvm::is_contained(outputs, param.name))
      printTensor(param, tensor);
  if (sourceFile.empty()) {
    llvm::outs() << "not checked against the reference: give --source="
                    "KERNEL.tile to run its kernel on interp with these "
                    "inputs and check the outputs\n";
    return kSuccess;
  }
  llvm::outs().flush();
  return checkAgainstSource(context, kernel, params, std::move(inputs), tensors,
                            written, bindings);
}
