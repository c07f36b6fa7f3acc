// Parses a tile kernel with the dialect from an installed tile, verifies it
// and prints its symbols: what another MLIR compiler does to embed tile.

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/InitAllTile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  mlir::MLIRContext context(registry);
  const char *source = R"mlir(
    tile.kernel @k(%X: !tile.tensor<[16, K], f32>) attributes {threads = 256 : i64} {
      tile.return
    }
  )mlir";
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return 1;
  for (auto kernel : module->getOps<mlir::tile::KernelOp>()) {
    llvm::outs() << "kernel " << kernel.getSymName() << " threads "
                 << kernel.getThreads() << " symbols";
    for (mlir::StringAttr symbol : kernel.getSymbols())
      llvm::outs() << " " << symbol.getValue();
    llvm::outs() << "\n";
  }
  return 0;
}
