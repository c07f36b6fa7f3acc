//===- tile-launch.cpp - launch a compiled tile kernel --------------------===//
//
// tile-launch KERNEL.ptx KERNEL.json --inputs DIR [--expect DIR] ...
//
// Runs a kernel compiled by tile on the GPU with the CUDA driver, checks
// its outputs against expected files, and prints the driver's resource
// figures and the median time. Links no LLVM. Files: docs/abi.md.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/Cuda.h"
#include "tile/Runtime/OutputFile.h"
#include "tile/Runtime/Report.h"
#include "tile/Version.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

using namespace tile::runtime;

namespace {
enum ExitCode { kMatch = 0, kMismatch = 1, kBadInput = 2, kNoDevice = 3 };

const char *const kUsage =
    "usage: tile-launch KERNEL.ptx KERNEL.json --inputs DIR [--expect DIR]\n"
    "         [--output DIR] [--kernel NAME] [--dim NAME=VALUE ...]\n"
    "         [--arg NAME=VALUE ...]\n"
    "         [--warmup N] [--runs N] [--rtol X] [--atol X] [--driver "
    "LIBRARY]\n";

struct Options {
  std::string ptxPath, manifestPath, inputDir, expectDir, outputDir, kernel;
  std::vector<std::string> dims;
  /// Values of scalar parameters, NAME=VALUE.
  std::vector<std::string> scalarArgs;
  LaunchOptions launch;
  std::optional<double> rtol, atol;
};

int report(const Error &error) {
  std::fflush(stdout); // keep the report before the error in a shared pipe
  std::fprintf(stderr, "tile-launch: error: %s\n", error.message().c_str());
  return error.getKind() == ErrorKind::Input ? kBadInput : kNoDevice;
}

bool fileExists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool pathExists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

/// The directory of `flag`, checked before the launch: it exists, and
/// (`writable`) can take files.
Error checkDirectory(const char *flag, const std::string &path, bool writable) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return Error::input("%s %s: no such directory", flag, path.c_str());
  if (!S_ISDIR(info.st_mode))
    return Error::input("%s %s: not a directory", flag, path.c_str());
  if (writable && access(path.c_str(), W_OK) != 0)
    return Error::input("%s %s: the directory is not writable", flag,
                        path.c_str());
  return Error::success();
}

Expected<int> parseCount(const char *flag, const std::string &text) {
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || value < 0 || value > 1000000)
    return Error::input("%s wants a count in [0, 1000000], got '%s'", flag,
                        text.c_str());
  return static_cast<int>(value);
}

Expected<double> parseTolerance(const char *flag, const std::string &text) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  // An infinite tolerance (inf, or 1e999 read as it) would pass every
  // finite value: no check at all.
  if (text.empty() || *end || !(value >= 0) || std::isinf(value))
    return Error::input("%s wants a finite non-negative number, got '%s'", flag,
                        text.c_str());
  return value;
}

Expected<Options> parseCommandLine(int argc, char **argv) {
  Options options;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    static const char *const valueFlags[] = {
        "--inputs", "--expect", "--output", "--kernel", "--dim", "--driver",
        "--warmup", "--runs",   "--rtol",   "--atol",   "--arg"};
    bool takesValue = std::find(std::begin(valueFlags), std::end(valueFlags),
                                arg) != std::end(valueFlags);
    if (takesValue && i + 1 == argc)
      return Error::input("%s needs a value", arg.c_str());
    auto value = [&]() { return std::string(argv[++i]); };
    if (arg == "--inputs") {
      options.inputDir = value();
    } else if (arg == "--expect") {
      options.expectDir = value();
    } else if (arg == "--output") {
      options.outputDir = value();
    } else if (arg == "--kernel") {
      options.kernel = value();
    } else if (arg == "--dim") {
      options.dims.push_back(value());
    } else if (arg == "--arg") {
      options.scalarArgs.push_back(value());
    } else if (arg == "--driver") {
      options.launch.driverLibrary = value();
    } else if (arg == "--warmup" || arg == "--runs") {
      Expected<int> count = parseCount(arg.c_str(), value());
      if (!count)
        return count.takeError();
      (arg == "--warmup" ? options.launch.warmupRuns
                         : options.launch.timedRuns) = *count;
    } else if (arg == "--rtol" || arg == "--atol") {
      Expected<double> tolerance = parseTolerance(arg.c_str(), value());
      if (!tolerance)
        return tolerance.takeError();
      (arg == "--rtol" ? options.rtol : options.atol) = *tolerance;
    } else if (!arg.empty() && arg[0] == '-') {
      return Error::input("unknown option '%s'\n%s", arg.c_str(), kUsage);
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2 || options.inputDir.empty())
    return Error::input("expected KERNEL.ptx, KERNEL.json and --inputs\n%s",
                        kUsage);
  options.ptxPath = positional[0];
  options.manifestPath = positional[1];
  return options;
}

/// The scalar parameter `name` of `manifest`, or null.
const ParamSpec *findScalar(const KernelManifest &manifest,
                            const std::string &name) {
  for (const ParamSpec &param : manifest.params)
    if (param.name == name && param.isScalar())
      return &param;
  return nullptr;
}

/// The values of scalar parameters by name, as text.
using ScalarValues = std::map<std::string, std::string>;

/// Takes `NAME=VALUE` for a scalar parameter into `scalars`: false when
/// NAME is not one (the line is a symbol's). As a symbol given twice, a
/// parameter given twice with two values (as the kernel reads them) is an
/// error, not the last one silently.
Expected<bool> takeScalar(const KernelManifest &manifest,
                          const std::string &line, ScalarValues &scalars) {
  size_t equals = line.find('=');
  if (equals == std::string::npos)
    return false;
  std::string name = line.substr(0, equals), value = line.substr(equals + 1);
  const ParamSpec *param = findScalar(manifest, name);
  if (!param)
    return false;
  auto [previous, inserted] = scalars.emplace(name, value);
  if (inserted || previous->second == value)
    return true;
  Expected<HostTensor> before = parseScalarValue(*param, previous->second);
  Expected<HostTensor> after = parseScalarValue(*param, value);
  if (before && after && before->bytes == after->bytes)
    return true;
  return Error::input("%s is given twice, as %s and %s", name.c_str(),
                      previous->second.c_str(), value.c_str());
}

/// The symbol values: --dim first, then the lines of DIR/dims.txt for the
/// symbols --dim did not give. Each must name a symbol of the kernel. A
/// line that names a scalar parameter gives its value (--arg wins).
Expected<SymbolBindings> readSymbols(const Options &options,
                                     const KernelManifest &manifest,
                                     ScalarValues &scalars) {
  SymbolBindings fromFlags, fromFile;
  ScalarValues fileScalars;
  for (const std::string &dim : options.dims)
    if (Error error = parseSymbolAssignment(dim, fromFlags))
      return error.prefix("--dim: ");
  std::string dimsPath = options.inputDir + "/dims.txt";
  // A directory or a FIFO of that name is a mistake, not a missing file.
  if (pathExists(dimsPath) && !fileExists(dimsPath))
    return Error::input("%s is not a file", dimsPath.c_str());
  if (fileExists(dimsPath)) {
    Expected<std::string> text = readFile(dimsPath);
    if (!text)
      return text.takeError();
    size_t lineNumber = 0, start = 0;
    while (start <= text->size()) {
      size_t end = text->find('\n', start);
      if (end == std::string::npos)
        end = text->size();
      std::string line = text->substr(start, end - start);
      start = end + 1;
      ++lineNumber;
      line.erase(0, line.find_first_not_of(" \t\r"));
      line.erase(line.find_last_not_of(" \t\r") + 1);
      if (line.empty() || line[0] == '#')
        continue;
      Expected<bool> scalar = takeScalar(manifest, line, fileScalars);
      if (!scalar)
        return scalar.takeError().prefix(dimsPath + ":" +
                                         std::to_string(lineNumber) + ": ");
      if (*scalar)
        continue;
      if (Error error = parseSymbolAssignment(line, fromFile))
        return error.prefix(dimsPath + ":" + std::to_string(lineNumber) + ": ");
    }
  }
  for (const std::string &arg : options.scalarArgs) {
    Expected<bool> scalar = takeScalar(manifest, arg, scalars);
    if (!scalar)
      return scalar.takeError().prefix("--arg: ");
    if (!*scalar)
      return Error::input("--arg %s: kernel '%s' has no scalar parameter of "
                          "that name (write --arg NAME=VALUE)",
                          arg.c_str(), manifest.kernel.c_str());
  }
  // --arg wins over dims.txt.
  scalars.insert(fileScalars.begin(), fileScalars.end());
  SymbolBindings symbols = fromFile;
  for (const auto &[name, value] : fromFlags)
    symbols[name] = value;
  for (const auto &[name, value] : symbols)
    if (std::find(manifest.symbols.begin(), manifest.symbols.end(), name) ==
        manifest.symbols.end())
      return Error::input("kernel '%s' has no symbol '%s'",
                          manifest.kernel.c_str(), name.c_str());
  return symbols;
}

/// DIR/NAME.bin as a tensor of the parameter's dtype and shape.
/// The file's size is checked before anything is allocated or read.
Expected<HostTensor> readTensorFile(const std::string &path,
                                    const ParamSpec &param,
                                    const std::vector<int64_t> &shape) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0)
    return Error::input("parameter '%s': %s does not exist", param.name.c_str(),
                        path.c_str());
  if (!S_ISREG(info.st_mode))
    return Error::input("parameter '%s': %s is not a file", param.name.c_str(),
                        path.c_str());
  // resolveShape checked that the bytes fit in 64 bits.
  auto want =
      static_cast<uint64_t>(*countElements(shape)) * dtypeSize(param.dtype);
  if (static_cast<uint64_t>(info.st_size) != want)
    return Error::input("parameter '%s': %s has %lld bytes; a %s %s tensor "
                        "has %llu",
                        param.name.c_str(), path.c_str(),
                        static_cast<long long>(info.st_size),
                        formatShape(shape).c_str(), dtypeName(param.dtype),
                        static_cast<unsigned long long>(want));
  Expected<std::string> bytes = readFile(path);
  if (!bytes)
    return bytes.takeError();
  if (bytes->size() != want)
    return Error::input("parameter '%s': %s changed while it was read",
                        param.name.c_str(), path.c_str());
  HostTensor tensor = HostTensor::zeros(param.dtype, shape);
  std::memcpy(tensor.bytes.data(), bytes->data(), bytes->size());
  return tensor;
}

/// The limit of the host buffers: the machine's memory.
std::string memoryLimitName() {
  return "this machine's memory of " + std::to_string(hostMemoryBytes()) +
         " bytes";
}

/// One tensor per parameter: its input file, or poison for an output the
/// kernel only writes, so an element it never writes cannot pass.
Expected<std::vector<HostTensor>>
readInputs(const Options &options, const KernelManifest &manifest,
           const SymbolBindings &symbols, const ScalarValues &scalars,
           std::vector<bool> &poisoned, int64_t &totalBytes) {
  // Sizes the kernel's index arithmetic cannot reach, before any buffer is
  // read (launchKernel checks the index scalars as well).
  if (Error error = checkIndexRange(manifest, symbols))
    return error;
  std::vector<HostTensor> tensors;
  for (const ParamSpec &param : manifest.params) {
    if (param.isScalar()) {
      auto text = scalars.find(param.name);
      if (text == scalars.end())
        return Error::input("scalar parameter '%s' has no value: give --arg "
                            "%s=VALUE or a line %s=VALUE in %s/dims.txt",
                            param.name.c_str(), param.name.c_str(),
                            param.name.c_str(), options.inputDir.c_str());
      Expected<HostTensor> value = parseScalarValue(param, text->second);
      if (!value)
        return value.takeError();
      tensors.push_back(std::move(*value));
      poisoned.push_back(false);
      continue;
    }
    Expected<std::vector<int64_t>> shape = resolveShape(param, symbols);
    if (!shape)
      return shape.takeError();
    if (Error error = reserveTensorBytes(param, *shape, hostMemoryBytes(),
                                         memoryLimitName(), totalBytes))
      return error;
    std::string path = options.inputDir + "/" + param.name + ".bin";
    if (pathExists(path)) {
      Expected<HostTensor> tensor = readTensorFile(path, param, *shape);
      if (!tensor)
        return tensor.takeError();
      tensors.push_back(std::move(*tensor));
      poisoned.push_back(false);
    } else if (!param.isRead()) {
      tensors.push_back(HostTensor::poisoned(param.dtype, *shape));
      poisoned.push_back(true);
    } else {
      return Error::input("parameter '%s' is read by the kernel, but %s "
                          "does not exist",
                          param.name.c_str(), path.c_str());
    }
  }
  return tensors;
}

Error writeOutputs(const std::string &dir, const KernelManifest &manifest,
                   const std::vector<HostTensor> &tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!manifest.params[i].isWritten())
      continue;
    // Whole or not at all (a full disk leaves the file as it was).
    std::string path = dir + "/" + manifest.params[i].name + ".bin";
    if (Error error = writeFileAtomically(
            path, std::string_view(
                      reinterpret_cast<const char *>(tensors[i].bytes.data()),
                      tensors[i].bytes.size())))
      return error;
  }
  return Error::success();
}

/// The reference's marks of an output, EXPECT/NAME.marks (docs/abi.md), or
/// none when there is no such file.
Expected<std::optional<std::vector<ElementMark>>>
readMarks(const std::string &path, size_t elements) {
  if (pathExists(path) && !fileExists(path))
    return Error::input("%s is not a file", path.c_str());
  if (!pathExists(path))
    return std::optional<std::vector<ElementMark>>();
  Expected<std::string> bytes = readFile(path);
  if (!bytes)
    return bytes.takeError();
  if (bytes->size() != elements)
    return Error::input("%s has %zu bytes, one per element of a tensor of "
                        "%zu",
                        path.c_str(), bytes->size(), elements);
  std::vector<ElementMark> marks;
  for (char byte : *bytes) {
    std::optional<ElementMark> mark =
        ElementMark::fromByte(static_cast<uint8_t>(byte));
    if (!mark)
      return Error::input("%s: byte %zu, 0x%02x, is not an element mark",
                          path.c_str(), marks.size(),
                          static_cast<unsigned>(static_cast<uint8_t>(byte)));
    marks.push_back(*mark);
  }
  return std::optional<std::vector<ElementMark>>(std::move(marks));
}

/// The floating-point options the reference's marks in `dir` assume, and
/// their version: DIR/fp-options.json (tile-run --write-io writes it), else
/// the defaults and version 1.
Expected<FloatOptions> readAssumedOptions(const std::string &dir,
                                          int64_t &marksVersion) {
  std::string path = dir + "/fp-options.json";
  marksVersion = 1;
  if (!pathExists(path))
    return FloatOptions();
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  Expected<FloatOptions> options = parseFloatOptions(*text, &marksVersion);
  if (!options)
    return options.takeError().prefix(path + ": ");
  return options;
}

/// What an output is checked against: EXPECT/NAME.bin and, where it
/// exists, EXPECT/NAME.marks.
struct Expectation {
  std::string path;
  HostTensor want;
  std::optional<std::vector<ElementMark>> marks;
  /// The marks are of version 1 (OutputComparison::legacyMarks).
  bool legacyMarks = false;
};

/// The expectation of every parameter the kernel writes (none for the
/// others), read before the launch so that a bad --expect is found first.
Expected<std::vector<std::optional<Expectation>>>
readExpectations(const Options &options, const KernelManifest &manifest,
                 const std::vector<HostTensor> &tensors, int64_t &totalBytes) {
  std::vector<std::optional<Expectation>> expectations(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ParamSpec &param = manifest.params[i];
    if (!param.isWritten())
      continue;
    std::string path = options.expectDir + "/" + param.name + ".bin";
    if (!pathExists(path))
      return Error::input("parameter '%s' is written by the kernel, but %s "
                          "does not exist",
                          param.name.c_str(), path.c_str());
    if (Error error =
            reserveTensorBytes(param, tensors[i].shape, hostMemoryBytes(),
                               memoryLimitName(), totalBytes))
      return error;
    Expected<HostTensor> want = readTensorFile(path, param, tensors[i].shape);
    if (!want)
      return want.takeError();
    Expected<std::optional<std::vector<ElementMark>>> marks = readMarks(
        options.expectDir + "/" + param.name + ".marks", want->numElements());
    if (!marks)
      return marks.takeError();
    expectations[i] = Expectation{path, std::move(*want), std::move(*marks)};
  }
  // Marks hold only for a kernel compiled as the reference assumed, unless
  // --rtol and --atol replace every tolerance they give.
  bool marked = std::any_of(
      expectations.begin(), expectations.end(),
      [](const auto &expected) { return expected && expected->marks; });
  if (marked && !(options.rtol && options.atol)) {
    int64_t marksVersion;
    Expected<FloatOptions> assumed =
        readAssumedOptions(options.expectDir, marksVersion);
    if (!assumed)
      return assumed.takeError();
    if (Error error = checkMarksApply(manifest.floatOptions, *assumed))
      return error.prefix("--expect " + options.expectDir + ": ");
    for (std::optional<Expectation> &expected : expectations)
      if (expected)
        expected->legacyMarks = marksVersion < 2;
  }
  return expectations;
}

/// Checks every written parameter against its expectation; prints the
/// first problem of each kind. Returns whether all matched.
Expected<bool>
checkOutputs(const Options &options, const KernelManifest &manifest,
             const std::vector<HostTensor> &tensors,
             const std::vector<bool> &poisoned,
             const std::vector<std::optional<Expectation>> &expectations) {
  bool allMatch = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!expectations[i])
      continue;
    const Expectation &expected = *expectations[i];
    OutputComparison comparison;
    comparison.got = &tensors[i];
    comparison.want = &expected.want;
    comparison.wantMarks = expected.marks ? &*expected.marks : nullptr;
    comparison.poisoned = poisoned[i];
    comparison.legacyMarks = expected.legacyMarks;
    comparison.relative = options.rtol;
    comparison.absolute = options.atol;
    Expected<bool> matched = checkOutput(manifest.params[i].name, comparison,
                                         "the kernel", expected.path);
    if (!matched)
      return matched.takeError();
    allMatch &= *matched;
  }
  return allMatch;
}
} // namespace

/// What --help prints: the usage and every option, with its default.
const char *const kHelp =
    "tile-launch: run a kernel compiled by tile with the CUDA driver alone, "
    "check\nits outputs and report the driver's figures (docs/abi.md)\n\n"
    "  KERNEL.ptx KERNEL.json   the PTX and manifest (tile-translate "
    "--tile-to-ptx,\n                           --tile-to-manifest)\n"
    "  --inputs DIR             NAME.bin of each parameter read, and "
    "dims.txt\n"
    "  --expect DIR             NAME.bin and NAME.marks of each output "
    "(tile-run\n                           --write-io); without it nothing "
    "is checked\n"
    "  --output DIR             write each output as NAME.bin\n"
    "  --kernel NAME            the kernel of a manifest of several\n"
    "  --dim NAME=VALUE         a symbol's value (default: dims.txt)\n"
    "  --arg NAME=VALUE         a scalar parameter's value (default: "
    "dims.txt)\n"
    "  --warmup N               untimed runs first (default 3)\n"
    "  --runs N                 timed runs, the report gives their median "
    "(default 10)\n"
    "  --rtol X, --atol X       tolerances that replace each element's "
    "(default:\n                           the marks of --expect)\n"
    "  --driver LIBRARY         the CUDA driver (default: "
    "$TILE_CUDA_DRIVER_LIBRARY,\n                           else "
    "libcuda.so.1)\n"
    "  --help, --version\n\n"
    "Exit codes: 0 match, 1 mismatch, 2 bad input, 3 no device or a driver "
    "error.\n";

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::fputs("\n", stdout);
      std::fputs(kHelp, stdout);
      return kMatch;
    }
    if (arg == "--version") {
      std::printf("tile-launch (tile %s)\n", TILE_VERSION);
      return kMatch;
    }
  }
  Expected<Options> options = parseCommandLine(argc, argv);
  if (!options)
    return report(options.getError());
  Expected<KernelManifest> manifest =
      readManifestFile(options->manifestPath, options->kernel);
  if (!manifest)
    return report(manifest.getError());
  Expected<std::string> ptx = readFile(options->ptxPath);
  if (!ptx)
    return report(ptx.getError());
  // Everything the input can get wrong is found before the launch.
  if (Error error = checkDirectory("--inputs", options->inputDir, false))
    return report(error);
  if (!options->outputDir.empty())
    if (Error error = checkDirectory("--output", options->outputDir, true))
      return report(error);
  if (!options->expectDir.empty())
    if (Error error = checkDirectory("--expect", options->expectDir, false))
      return report(error);
  ScalarValues scalars;
  Expected<SymbolBindings> symbols = readSymbols(*options, *manifest, scalars);
  if (!symbols)
    return report(symbols.getError());
  std::vector<bool> poisoned;
  int64_t totalBytes = 0;
  Expected<std::vector<HostTensor>> tensors =
      readInputs(*options, *manifest, *symbols, scalars, poisoned, totalBytes);
  if (!tensors)
    return report(tensors.getError());
  std::vector<std::optional<Expectation>> expectations(tensors->size());
  if (!options->expectDir.empty()) {
    Expected<std::vector<std::optional<Expectation>>> read =
        readExpectations(*options, *manifest, *tensors, totalBytes);
    if (!read)
      return report(read.getError());
    expectations = std::move(*read);
  }

  std::vector<HostTensor *> buffers;
  for (HostTensor &tensor : *tensors)
    buffers.push_back(&tensor);
  Expected<LaunchReport> launch =
      launchKernel(*manifest, *ptx, buffers, *symbols, options->launch);
  if (!launch)
    return report(launch.getError());
  printLaunchReport(stdout, *manifest, *launch, options->launch.timedRuns);

  if (!options->outputDir.empty())
    if (Error error = writeOutputs(options->outputDir, *manifest, *tensors))
      return report(error);
  if (options->expectDir.empty())
    return kMatch;
  Expected<bool> matched =
      checkOutputs(*options, *manifest, *tensors, poisoned, expectations);
  if (!matched)
    return report(matched.getError());
  return *matched ? kMatch : kMismatch;
}
