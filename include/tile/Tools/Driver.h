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

#include "tile/Runtime/FloatOptions.h"

namespace llvm {
class MemoryBuffer;
class SourceMgr;
namespace cl {
class OptionCategory;
} // namespace cl
} // namespace llvm

namespace mlir::tile {

/// Whether `buffer` holds the .tile language: its name ends in `.tile`,
/// or (another name, or stdin) its first token is `@` or `kernel`; a name
/// that ends in `.mlir` is MLIR.
bool isTileSource(const llvm::MemoryBuffer &buffer);
/// Parses the main buffer of `sourceMgr`: the .tile language where
/// isTileSource says so, else tile IR in MLIR's syntax. Errors go to the
/// context's diagnostic handler; null on failure.
OwningOpRef<ModuleOp> parseKernelSource(llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context);

/// Rejects, with a located error, MLIR text that would crash MLIR's own
/// parser rather than be diagnosed by it: `array<index: ...>` (MLIR 22's
/// parseDenseArrayAttr asks `index` for a float width and dereferences
/// null). Every tool calls it before parsing MLIR.
LogicalResult rejectParserCrashes(llvm::SourceMgr &sourceMgr,
                                  MLIRContext *context);

/// Declares `--fp-contract` and `--fp-div`, the one definition of the
/// floating-point flags of every tool that compiles kernels, listed under
/// `category` when one is given; call it before parsing the command line
/// (again: no effect).
void registerFloatOptions(llvm::cl::OptionCategory *category = nullptr);
/// The floating-point options the command line gave (registerFloatOptions
/// first).
::tile::runtime::FloatOptions getFloatOptions();

/// Registers tile-translate's `--tile-to-ptx` and `--tile-to-manifest`,
/// whose input is a .tile or .mlir file, with `--chip` and `--opt-level`.
void registerCompileTranslations();

} // namespace mlir::tile

#endif // TILE_TOOLS_DRIVER_H
