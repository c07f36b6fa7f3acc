//===- Parser.h - .tile source to syntax tree -------------------*- C++ -*-===//

#ifndef TILE_LIB_FRONTEND_PARSER_H
#define TILE_LIB_FRONTEND_PARSER_H

#include "AST.h"
#include "Diagnoser.h"

#include <optional>

namespace mlir::tile::frontend {

/// The deepest nesting of blocks and expressions the front end accepts.
constexpr unsigned kMaxNesting = 256;

/// Parses a whole .tile buffer; on a syntax error reports it through `diag`
/// and returns nothing.
std::optional<Module> parseModule(Diagnoser &diag, llvm::StringRef buffer);

} // namespace mlir::tile::frontend

#endif // TILE_LIB_FRONTEND_PARSER_H
