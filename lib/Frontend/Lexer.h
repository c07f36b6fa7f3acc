//===- Lexer.h - tokens of the .tile language -------------------*- C++ -*-===//
//
// A hand-written lexer over one SourceMgr buffer. Bytes that cannot start a
// token (including invalid UTF-8) are reported where they are and end the
// token stream with an `error` token, so the parser never loops on them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_FRONTEND_LEXER_H
#define TILE_LIB_FRONTEND_LEXER_H

#include "Diagnoser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>

namespace mlir::tile::frontend {

enum class TokenKind {
  eof,
  error,
  identifier,
  integer,
  floating,
  // Keywords.
  kw_kernel,
  kw_var,
  kw_const,
  kw_inf,
  kw_for,
  kw_in,
  kw_if,
  kw_else,
  kw_while,
  kw_and,
  kw_or,
  kw_not,
  kw_true,
  kw_false,
  kw_ctx,
  // Punctuation.
  l_paren,
  r_paren,
  l_brace,
  r_brace,
  l_square,
  r_square,
  comma,
  colon,
  colon_plus, // `:+` of a slice
  dot,
  at,
  semicolon,
  // Operators.
  plus,
  minus,
  star,
  slash,
  percent,
  amp,
  pipe,
  caret,
  tilde,
  less_less,
  greater_greater,
  less,
  less_equal,
  greater,
  greater_equal,
  equal_equal,
  bang_equal,
  equal,
  plus_equal,
  minus_equal,
  star_equal,
  slash_equal,
  amp_equal,
  pipe_equal,
  caret_equal,
  less_less_equal,
  greater_greater_equal,
};

/// How a token kind is spelled in messages ("'+'", "an identifier").
llvm::StringRef describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::eof;
  llvm::StringRef spelling;
  /// True when a line break separates this token from the previous one:
  /// statements end at the end of their line.
  bool atLineStart = false;
  /// The value of an `integer` token.
  int64_t intValue = 0;
  /// The value of a `floating` token.
  double floatValue = 0;

  bool is(TokenKind k) const { return kind == k; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
};

class Lexer {
public:
  Lexer(Diagnoser &diag, llvm::StringRef buffer);

  /// The next token; after `eof` or `error`, the same token again.
  Token next();

private:
  Token make(TokenKind kind, const char *start);
  Token fail(const char *at, const llvm::Twine &message);
  /// Skips blanks and `//` comments; fails on bytes that are not text.
  bool skipTrivia(bool &sawNewline);
  Token lexIdentifier(const char *start);
  Token lexNumber(const char *start);
  Token lexHexInteger(const char *start);

  Diagnoser &diag;
  const char *cur;
  const char *end;
  bool atLineStart = true;
  bool done = false;
  Token last;
};

} // namespace mlir::tile::frontend

#endif // TILE_LIB_FRONTEND_LEXER_H
