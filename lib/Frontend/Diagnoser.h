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
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <vector>

namespace mlir::tile::frontend {

class Diagnoser {
public:
  Diagnoser(llvm::SourceMgr &sourceMgr, unsigned bufferID, MLIRContext *context)
      : sourceMgr(sourceMgr), bufferID(bufferID), context(context),
        filename(StringAttr::get(
            context,
            sourceMgr.getMemoryBuffer(bufferID)->getBufferIdentifier())) {
    llvm::StringRef text = sourceMgr.getMemoryBuffer(bufferID)->getBuffer();
    lineStarts.push_back(text.data());
    for (const char &c : text)
      if (c == '\n')
        lineStarts.push_back(&c + 1);
  }

  /// Line and column from a table of line starts: SourceMgr's
  /// getLineAndColumn scans back to the line start for the column, which is
  /// quadratic over a long line of statements.
  FileLineColLoc getLoc(llvm::SMLoc loc) const {
    const char *pointer = loc.getPointer();
    auto next = llvm::upper_bound(lineStarts, pointer);
    unsigned line = next - lineStarts.begin();
    return FileLineColLoc::get(filename, line, pointer - *(next - 1) + 1);
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
  std::vector<const char *> lineStarts;
};

} // namespace mlir::tile::frontend

#endif // TILE_LIB_FRONTEND_DIAGNOSER_H
