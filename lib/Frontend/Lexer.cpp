//===- Lexer.cpp - tokens of the .tile language ---------------------------===//

#include "Lexer.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir::tile::frontend;
using llvm::StringRef;

StringRef mlir::tile::frontend::describe(TokenKind kind) {
  switch (kind) {
  case TokenKind::eof:
    return "end of file";
  case TokenKind::error:
    return "an invalid token";
  case TokenKind::identifier:
    return "an identifier";
  case TokenKind::integer:
    return "an integer";
  case TokenKind::floating:
    return "a number";
  case TokenKind::kw_kernel:
    return "'kernel'";
  case TokenKind::kw_var:
    return "'var'";
  case TokenKind::kw_const:
    return "'const'";
  case TokenKind::kw_inf:
    return "'inf'";
  case TokenKind::kw_for:
    return "'for'";
  case TokenKind::kw_in:
    return "'in'";
  case TokenKind::kw_if:
    return "'if'";
  case TokenKind::kw_else:
    return "'else'";
  case TokenKind::kw_while:
    return "'while'";
  case TokenKind::kw_and:
    return "'and'";
  case TokenKind::kw_or:
    return "'or'";
  case TokenKind::kw_not:
    return "'not'";
  case TokenKind::kw_true:
    return "'true'";
  case TokenKind::kw_false:
    return "'false'";
  case TokenKind::kw_ctx:
    return "'ctx'";
  case TokenKind::l_paren:
    return "'('";
  case TokenKind::r_paren:
    return "')'";
  case TokenKind::l_brace:
    return "'{'";
  case TokenKind::r_brace:
    return "'}'";
  case TokenKind::l_square:
    return "'['";
  case TokenKind::r_square:
    return "']'";
  case TokenKind::comma:
    return "','";
  case TokenKind::colon:
    return "':'";
  case TokenKind::colon_plus:
    return "':+'";
  case TokenKind::dot:
    return "'.'";
  case TokenKind::at:
    return "'@'";
  case TokenKind::semicolon:
    return "';'";
  case TokenKind::plus:
    return "'+'";
  case TokenKind::minus:
    return "'-'";
  case TokenKind::star:
    return "'*'";
  case TokenKind::slash:
    return "'/'";
  case TokenKind::percent:
    return "'%'";
  case TokenKind::amp:
    return "'&'";
  case TokenKind::pipe:
    return "'|'";
  case TokenKind::caret:
    return "'^'";
  case TokenKind::tilde:
    return "'~'";
  case TokenKind::less_less:
    return "'<<'";
  case TokenKind::greater_greater:
    return "'>>'";
  case TokenKind::less:
    return "'<'";
  case TokenKind::less_equal:
    return "'<='";
  case TokenKind::greater:
    return "'>'";
  case TokenKind::greater_equal:
    return "'>='";
  case TokenKind::equal_equal:
    return "'=='";
  case TokenKind::bang_equal:
    return "'!='";
  case TokenKind::equal:
    return "'='";
  case TokenKind::plus_equal:
    return "'+='";
  case TokenKind::minus_equal:
    return "'-='";
  case TokenKind::star_equal:
    return "'*='";
  case TokenKind::slash_equal:
    return "'/='";
  case TokenKind::amp_equal:
    return "'&='";
  case TokenKind::pipe_equal:
    return "'|='";
  case TokenKind::caret_equal:
    return "'^='";
  case TokenKind::less_less_equal:
    return "'<<='";
  case TokenKind::greater_greater_equal:
    return "'>>='";
  }
  llvm_unreachable("unknown token kind");
}

Lexer::Lexer(Diagnoser &diag, StringRef buffer)
    : diag(diag), cur(buffer.begin()), end(buffer.end()) {
  // Editors on some systems start UTF-8 files with a byte order mark.
  if (buffer.starts_with("\xEF\xBB\xBF"))
    cur += 3;
}

Token Lexer::make(TokenKind kind, const char *start) {
  Token token;
  token.kind = kind;
  token.spelling = StringRef(start, cur - start);
  token.atLineStart = atLineStart;
  atLineStart = false;
  return token;
}

Token Lexer::fail(const char *at, const llvm::Twine &message) {
  diag.error(llvm::SMLoc::getFromPointer(at)) << message;
  cur = at;
  Token token = make(TokenKind::error, at);
  done = true;
  last = token;
  return token;
}

/// `0x0A`: a byte as messages show it.
static std::string hexByte(char c) {
  char text[8];
  std::snprintf(text, sizeof(text), "0x%02X", static_cast<unsigned char>(c));
  return text;
}

/// The length of the valid UTF-8 sequence at `p`, or 0.
static unsigned utf8Length(const char *p, const char *end) {
  auto byte = [&](int i) { return static_cast<unsigned char>(p[i]); };
  auto isCont = [&](int i) { return p + i < end && (byte(i) & 0xC0) == 0x80; };
  unsigned char lead = byte(0);
  if (lead < 0x80)
    return 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    return isCont(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (!isCont(1) || !isCont(2))
      return 0;
    // Overlong forms and UTF-16 surrogates are not UTF-8.
    if ((lead == 0xE0 && byte(1) < 0xA0) || (lead == 0xED && byte(1) > 0x9F))
      return 0;
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (!isCont(1) || !isCont(2) || !isCont(3))
      return 0;
    if ((lead == 0xF0 && byte(1) < 0x90) || (lead == 0xF4 && byte(1) > 0x8F))
      return 0;
    return 4;
  }
  return 0;
}

bool Lexer::skipTrivia(bool &sawNewline) {
  while (cur != end) {
    char c = *cur;
    if (c == '\n') {
      sawNewline = true;
      ++cur;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++cur;
    } else if (c == '/' && cur + 1 != end && cur[1] == '/') {
      // Comments may hold any text, but only text: a stray byte in a comment
      // is as likely a corrupted file as one in code.
      while (cur != end && *cur != '\n') {
        unsigned length = utf8Length(cur, end);
        if (length == 0 || *cur == '\0') {
          fail(cur, "invalid byte " + hexByte(*cur) +
                        " in a comment (the file must be UTF-8 text)");
          return false;
        }
        cur += length;
      }
    } else {
      return true;
    }
  }
  return true;
}

Token Lexer::next() {
  if (done)
    return last;
  bool sawNewline = false;
  if (!skipTrivia(sawNewline))
    return last;
  if (sawNewline)
    atLineStart = true;
  const char *start = cur;
  if (cur == end) {
    done = true;
    last = make(TokenKind::eof, start);
    return last;
  }
  char c = *cur++;
  auto follow = [&](char expected, TokenKind ifMatched, TokenKind otherwise) {
    if (cur != end && *cur == expected) {
      ++cur;
      return make(ifMatched, start);
    }
    return make(otherwise, start);
  };
  // `<` and `>`: the shifts `<<`, `<<=` or the comparisons `<`, `<=`.
  auto doubled = [&](char self, TokenKind shiftAssign, TokenKind shift,
                     TokenKind orEqual, TokenKind alone) {
    if (cur != end && *cur == self) {
      ++cur;
      return follow('=', shiftAssign, shift);
    }
    return follow('=', orEqual, alone);
  };
  switch (c) {
  case '(':
    return make(TokenKind::l_paren, start);
  case ')':
    return make(TokenKind::r_paren, start);
  case '{':
    return make(TokenKind::l_brace, start);
  case '}':
    return make(TokenKind::r_brace, start);
  case '[':
    return make(TokenKind::l_square, start);
  case ']':
    return make(TokenKind::r_square, start);
  case ',':
    return make(TokenKind::comma, start);
  case '.':
    return make(TokenKind::dot, start);
  case '@':
    return make(TokenKind::at, start);
  case ';':
    return make(TokenKind::semicolon, start);
  case '%':
    return make(TokenKind::percent, start);
  case ':':
    return follow('+', TokenKind::colon_plus, TokenKind::colon);
  case '+':
    return follow('=', TokenKind::plus_equal, TokenKind::plus);
  case '-':
    return follow('=', TokenKind::minus_equal, TokenKind::minus);
  case '*':
    return follow('=', TokenKind::star_equal, TokenKind::star);
  case '/':
    return follow('=', TokenKind::slash_equal, TokenKind::slash);
  case '&':
    return follow('=', TokenKind::amp_equal, TokenKind::amp);
  case '|':
    return follow('=', TokenKind::pipe_equal, TokenKind::pipe);
  case '^':
    return follow('=', TokenKind::caret_equal, TokenKind::caret);
  case '~':
    return make(TokenKind::tilde, start);
  case '<':
    return doubled('<', TokenKind::less_less_equal, TokenKind::less_less,
                   TokenKind::less_equal, TokenKind::less);
  case '>':
    return doubled('>', TokenKind::greater_greater_equal,
                   TokenKind::greater_greater, TokenKind::greater_equal,
                   TokenKind::greater);
  case '=':
    return follow('=', TokenKind::equal_equal, TokenKind::equal);
  case '!':
    if (cur != end && *cur == '=') {
      ++cur;
      return make(TokenKind::bang_equal, start);
    }
    return fail(start, "unexpected '!'; logical negation is 'not'");
  default:
    break;
  }
  if (llvm::isAlpha(c) || c == '_')
    return lexIdentifier(start);
  if (llvm::isDigit(c))
    return lexNumber(start);
  unsigned char byte = static_cast<unsigned char>(c);
  if (byte >= 0x80 && utf8Length(start, end) != 0)
    return fail(start, "unexpected character '" +
                           StringRef(start, utf8Length(start, end)) +
                           "'; identifiers are ASCII");
  if (byte >= 0x21 && byte < 0x7F)
    return fail(start, "unexpected character '" + StringRef(start, 1) + "'");
  return fail(start,
              "unexpected byte " + hexByte(c) +
                  (byte >= 0x80 ? " (the file must be UTF-8 text)" : ""));
}

Token Lexer::lexIdentifier(const char *start) {
  while (cur != end && (llvm::isAlnum(*cur) || *cur == '_'))
    ++cur;
  StringRef spelling(start, cur - start);
  TokenKind kind = llvm::StringSwitch<TokenKind>(spelling)
                       .Case("kernel", TokenKind::kw_kernel)
                       .Case("var", TokenKind::kw_var)
                       .Case("const", TokenKind::kw_const)
                       .Case("inf", TokenKind::kw_inf)
                       .Case("for", TokenKind::kw_for)
                       .Case("in", TokenKind::kw_in)
                       .Case("if", TokenKind::kw_if)
                       .Case("else", TokenKind::kw_else)
                       .Case("while", TokenKind::kw_while)
                       .Case("and", TokenKind::kw_and)
                       .Case("or", TokenKind::kw_or)
                       .Case("not", TokenKind::kw_not)
                       .Case("true", TokenKind::kw_true)
                       .Case("false", TokenKind::kw_false)
                       .Case("ctx", TokenKind::kw_ctx)
                       .Default(TokenKind::identifier);
  return make(kind, start);
}

Token Lexer::lexHexInteger(const char *start) {
  ++cur; // the 'x'
  const char *firstDigit = cur;
  int64_t value = 0;
  bool overflow = false;
  while (cur != end && llvm::isHexDigit(*cur)) {
    overflow |=
        llvm::MulOverflow<int64_t>(value, 16, value) ||
        llvm::AddOverflow<int64_t>(value, llvm::hexDigitValue(*cur), value);
    ++cur;
  }
  if (cur == firstDigit)
    return fail(cur, "expected hexadecimal digits after '0x'");
  if (cur != end && (llvm::isAlnum(*cur) || *cur == '_' || *cur == '.'))
    return fail(cur, "unexpected '" + StringRef(cur, 1) + "' in a number");
  if (overflow)
    return fail(start, "integer " + StringRef(start, cur - start) +
                           " is too large (the limit is 2^63 - 1)");
  Token token = make(TokenKind::integer, start);
  token.intValue = value;
  return token;
}

Token Lexer::lexNumber(const char *start) {
  auto digits = [&] {
    while (cur != end && llvm::isDigit(*cur))
      ++cur;
  };
  // `0x` hexadecimal integers, the usual spelling of bit masks.
  if (*start == '0' && cur != end && (*cur == 'x' || *cur == 'X'))
    return lexHexInteger(start);
  digits();
  bool isFloat = false;
  if (cur + 1 < end && *cur == '.' && llvm::isDigit(cur[1])) {
    isFloat = true;
    ++cur;
    digits();
  }
  if (cur != end && (*cur == 'e' || *cur == 'E')) {
    const char *exponent = cur++;
    if (cur != end && (*cur == '+' || *cur == '-'))
      ++cur;
    if (cur == end || !llvm::isDigit(*cur))
      return fail(exponent, "expected digits in the exponent of a number");
    digits();
    isFloat = true;
  }
  if (cur != end && (llvm::isAlpha(*cur) || *cur == '_' || *cur == '.'))
    return fail(cur, "unexpected '" + StringRef(cur, 1) + "' in a number");

  StringRef spelling(start, cur - start);
  if (isFloat) {
    llvm::APFloat value(llvm::APFloat::IEEEdouble());
    auto status =
        value.convertFromString(spelling, llvm::APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      return fail(start, "invalid number " + spelling);
    }
    if (*status & llvm::APFloat::opOverflow)
      return fail(start, "number " + spelling + " is out of range");
    Token token = make(TokenKind::floating, start);
    token.floatValue = value.convertToDouble();
    return token;
  }
  int64_t value = 0;
  for (char digit : spelling) {
    if (llvm::MulOverflow<int64_t>(value, 10, value) ||
        llvm::AddOverflow<int64_t>(value, digit - '0', value))
      return fail(start, "integer " + spelling +
                             " is too large (the limit is 2^63 - 1)");
  }
  Token token = make(TokenKind::integer, start);
  token.intValue = value;
  return token;
}
