//===- Driver.h - what the tile tools share ---------------------*- C++ -*-===//
//
// Reading a kernel source (.tile or .mlir) and the translations of
// tile-translate, for every tool that compiles tile kernels.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_DRIVER_H
#define TILE_TOOLS_DRIVER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class MemoryBuffer;
class SourceMgr;
namespace cl {
class Option;
class OptionCategory;
} // namespace cl
} // namespace llvm

namespace mlir::tile {

struct TileToPTXOptions;

/// Whether `buffer` holds the .tile language: its name ends in `.tile`,
/// or (another name, or stdin) its first token is `@` or `kernel`; a name
/// that ends in `.mlir` is MLIR.
bool isTileSource(const llvm::MemoryBuffer &buffer);
/// Parses the main buffer of `sourceMgr`: the .tile language where
/// isTileSource says so, else tile IR in MLIR's syntax. Errors go to the
/// context's diagnostic handler; null on failure.
OwningOpRef<ModuleOp> parseKernelSource(llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context);

/// The kernel named `name` of the module parsed from `file`, or (`name`
/// empty) its only one; else an error at the file's first line, saying
/// which kernels there are and, for several, `chooseWith` ("--kernel"),
/// how to pick one.
FailureOr<Operation *> selectKernel(ModuleOp module, StringRef name,
                                    StringRef file, StringRef chooseWith);

/// Rejects, with a located error, MLIR text that would crash MLIR's own
/// parser rather than be diagnosed by it: `array<index: ...>` (MLIR 22's
/// parseDenseArrayAttr asks `index` for a float width and dereferences
/// null). Every tool calls it before parsing MLIR.
LogicalResult rejectParserCrashes(llvm::SourceMgr &sourceMgr,
                                  MLIRContext *context);

/// Declares the options of every tool that compiles kernels (tile-translate,
/// tile-run), their one definition: `--chip`, `--opt-level`, `--cuda-path`,
/// `--tile-remarks`, `--fp-contract`, `--fp-div`, `--variants` and
/// `--index-bits`, listed under `category` when one is given. Call it
/// before parsing the command line.
void registerCompileOptions(llvm::cl::OptionCategory *category = nullptr);
/// The options the command line gave (registerCompileOptions first).
TileToPTXOptions getCompileOptions();

/// tile's version: the project's, and `git describe` of the tree it was
/// built from ("0.1.0 (git bc1097d)").
StringRef getTileVersion();

/// Sets up the command line of the tool `tool` before it is parsed:
/// `--version` names tile and its version (then LLVM's), and `--help`
/// lists only the options of `categories` and LLVM's generic ones
/// (`--help`, `--version`), and those `alsoShown` picks; the hundreds of
/// LLVM's and MLIR's stay usable and are listed by `--help-hidden`.
/// Options registered after the call are not hidden.
void setUpToolCommandLine(
    StringRef tool, ArrayRef<llvm::cl::OptionCategory *> categories,
    function_ref<bool(const llvm::cl::Option &)> alsoShown = {});

/// Registers tile-translate's `--tile-to-ptx` and `--tile-to-manifest`,
/// whose input is a .tile or .mlir file, with `--chip` and `--opt-level`.
void registerCompileTranslations();

} // namespace mlir::tile

#endif // TILE_TOOLS_DRIVER_H
