//===- Diagnoser.h - report .tile errors as MLIR diagnostics ----*- C++ -*-===//
//
// Every front-end message is an MLIR diagnostic at a FileLineColLoc of the
// .tile buffer, so the driver's SourceMgrDiagnosticHandler prints it with the
// source line and a caret, and later passes point at the same places.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_FRONTEND_DIAGNOSER_H
#define TILE_LIB_FRONTEND_DIAGNOSER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::tile::frontend {

class Diagnoser {
public:
  Diagnoser(llvm::SourceMgr &sourceMgr, unsigned bufferID, MLIRContext *context)
      : sourceMgr(sourceMgr), bufferID(bufferID), context(context),
        filename(StringAttr::get(
            context,
            sourceMgr.getMemoryBuffer(bufferID)->getBufferIdentifier())) {}

  FileLineColLoc getLoc(llvm::SMLoc loc) const {
    auto [line, col] = sourceMgr.getLineAndColumn(loc, bufferID);
    return FileLineColLoc::get(filename, line, col);
  }
  InFlightDiagnostic error(llvm::SMLoc loc) const {
    return mlir::emitError(getLoc(loc));
  }
  MLIRContext *getContext() const { return context; }

private:
  llvm::SourceMgr &sourceMgr;
  unsigned bufferID;
  MLIRContext *context;
  StringAttr filename;
};

} // namespace mlir::tile::frontend

#endif // TILE_LIB_FRONTEND_DIAGNOSER_H
