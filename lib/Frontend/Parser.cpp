//===- Parser.cpp - .tile source to syntax tree ---------------------------===//
//
// Recursive descent over the grammar of docs/spec.md. The parser stops at
// the first syntax error: it reports it and builds nothing.
//
//===----------------------------------------------------------------------===//

#include "Parser.h"
#include "Lexer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir::tile::frontend;
using llvm::failed;
using llvm::failure;
using llvm::LogicalResult;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::success;
using llvm::Twine;

StringRef mlir::tile::frontend::spell(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::And:
    return "and";
  case BinaryOp::Or:
    return "or";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  }
  llvm_unreachable("unknown binary operator");
}

namespace {

class Parser {
public:
  Parser(Diagnoser &diag, StringRef buffer)
      : diag(diag), buffer(buffer), lexer(diag, buffer) {
    consume();
  }

  std::optional<Module> parseModule();

private:
  //===--------------------------------------------------------------------===//
  // Tokens and errors
  //===--------------------------------------------------------------------===//

  void consume() { tok = lexer.next(); }

  bool consumeIf(TokenKind kind) {
    if (!tok.is(kind))
      return false;
    consume();
    return true;
  }

  /// Reports `message` at `loc`, unless the lexer has already reported the
  /// token the parser is looking at: one error, not a cascade.
  LogicalResult error(SMLoc loc, const Twine &message) {
    if (!tok.is(TokenKind::error))
      diag.error(loc) << message;
    return failure();
  }

  /// What the current token is, for "expected X, found Y".
  std::string found() const {
    if (tok.is(TokenKind::eof))
      return "end of file";
    return ("'" + tok.spelling + "'").str();
  }

  LogicalResult expect(TokenKind kind, const Twine &context = "") {
    if (consumeIf(kind))
      return success();
    return error(tok.getLoc(),
                 "expected " + describe(kind) + context + ", found " + found());
  }

  LogicalResult parseIdentifier(StringRef &name, SMLoc &loc,
                                const Twine &what) {
    loc = tok.getLoc();
    if (!tok.is(TokenKind::identifier))
      return error(loc, "expected " + what + ", found " + found());
    name = tok.spelling;
    consume();
    return success();
  }

  /// Bounds the recursion of blocks, parentheses, unary operators and else-if
  /// chains: deep input is an error, not a stack overflow.
  struct NestingScope {
    NestingScope(Parser &parser) : parser(parser) { ++parser.nesting; }
    ~NestingScope() { --parser.nesting; }
    LogicalResult check(SMLoc loc) {
      if (parser.nesting <= kMaxNesting)
        return success();
      return parser.error(loc, "nesting is deeper than " + Twine(kMaxNesting) +
                                   " levels");
    }
    Parser &parser;
  };

  /// Inside parentheses and brackets a line break is only a blank.
  struct GroupScope {
    GroupScope(Parser &parser) : parser(parser) { ++parser.groups; }
    ~GroupScope() { --parser.groups; }
    Parser &parser;
  };

  /// Whether the current token may continue an expression: outside any
  /// group, a token at the start of a line begins the next statement.
  bool continuesExpression() const { return groups > 0 || !tok.atLineStart; }

  ExprPtr checkHeight(ExprPtr expr) {
    if (expr && expr->getHeight() > kMaxNesting) {
      (void)error(expr->getLoc(), "expression is nested deeper than " +
                                      Twine(kMaxNesting) + " levels");
      return nullptr;
    }
    return expr;
  }

  //===--------------------------------------------------------------------===//
  // Grammar
  //===--------------------------------------------------------------------===//

  LogicalResult parseKernel(Kernel &kernel);
  LogicalResult parseAttribute(Attribute &attr);
  LogicalResult parseType(TypeRef &type);
  LogicalResult parseDim(Dim &dim);
  LogicalResult parseTensorDim(Dim &dim);
  LogicalResult parseBlock(Body &block);
  StmtPtr parseStatement();
  StmtPtr parseVar();
  std::unique_ptr<ConstStmt> parseConst();
  StmtPtr parseFor();
  StmtPtr parseIf();
  StmtPtr parseWhile();
  StmtPtr parseAssignment();

  ExprPtr parseExpr() { return parseOr(); }
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseLeftAssociative(
      ExprPtr (Parser::*operand)(),
      std::initializer_list<std::pair<TokenKind, BinaryOp>> operators);
  ExprPtr parseBitOr();
  ExprPtr parseBitXor();
  ExprPtr parseBitAnd();
  ExprPtr parseShift();
  ExprPtr parseAdditive();
  ExprPtr parseMultiplicative();
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  ExprPtr parseContext();
  ExprPtr parseIndexing(ExprPtr base);
  ExprPtr rejectColonSlice(SMLoc startLoc);
  LogicalResult parseExprList(std::vector<ExprPtr> &list, TokenKind close);
  LogicalResult parseCallArgs(std::vector<ExprPtr> &args,
                              std::vector<NamedArg> &named);

  Diagnoser &diag;
  StringRef buffer;
  Lexer lexer;
  Token tok;
  unsigned nesting = 0;
  unsigned groups = 0;
};

} // namespace

std::optional<Module> Parser::parseModule() {
  Module module;
  while (!tok.is(TokenKind::eof)) {
    if (tok.is(TokenKind::kw_const)) {
      std::unique_ptr<ConstStmt> constant = parseConst();
      if (!constant)
        return std::nullopt;
      module.consts.push_back(std::move(constant));
      if (!consumeIf(TokenKind::semicolon) && !tok.is(TokenKind::eof) &&
          !tok.atLineStart) {
        (void)error(tok.getLoc(), "expected a new line or ';' after the "
                                  "const, found " +
                                      found());
        return std::nullopt;
      }
      continue;
    }
    Kernel kernel;
    kernel.fileConstsBefore = module.consts.size();
    if (failed(parseKernel(kernel)))
      return std::nullopt;
    module.kernels.push_back(std::move(kernel));
  }
  if (module.kernels.empty()) {
    (void)error(tok.getLoc(), "expected a kernel; the file defines none");
    return std::nullopt;
  }
  return module;
}

// kernel := attribute* 'kernel' IDENT '(' (param (',' param)*)? ')' block
LogicalResult Parser::parseKernel(Kernel &kernel) {
  while (tok.is(TokenKind::at)) {
    Attribute attr;
    if (failed(parseAttribute(attr)))
      return failure();
    kernel.attributes.push_back(std::move(attr));
  }
  kernel.loc = tok.getLoc();
  if (!consumeIf(TokenKind::kw_kernel))
    return error(tok.getLoc(), "expected 'kernel', 'const' or an '@' "
                               "attribute, found " +
                                   found());
  if (failed(parseIdentifier(kernel.name, kernel.loc, "a kernel name")) ||
      failed(expect(TokenKind::l_paren, " after the kernel name")))
    return failure();
  {
    GroupScope group(*this);
    if (!tok.is(TokenKind::r_paren)) {
      do {
        Param param;
        if (failed(
                parseIdentifier(param.name, param.loc, "a parameter name")) ||
            failed(expect(TokenKind::colon, " after the parameter name")) ||
            failed(parseType(param.type)))
          return failure();
        if (param.type.kind == TypeRef::Kind::Tile ||
            param.type.kind == TypeRef::Kind::Pipeline)
          return error(param.type.loc,
                       "a kernel parameter is a tensor (tensor<dtype>[d0, "
                       "...]) or a scalar (f32, f16, bf16, i32, index), not "
                       "a " +
                           Twine(param.type.kind == TypeRef::Kind::Tile
                                     ? "tile"
                                     : "pipeline"));
        kernel.params.push_back(std::move(param));
      } while (consumeIf(TokenKind::comma));
    }
    if (failed(expect(TokenKind::r_paren, " after the parameters")))
      return failure();
  }
  return parseBlock(kernel.body);
}

// attribute := '@' IDENT '(' (arg (',' arg)*)? ')'
// arg := expr | IDENT '=' (expr | '[' expr (',' expr)* ']')
LogicalResult Parser::parseAttribute(Attribute &attr) {
  attr.loc = tok.getLoc();
  consume(); // '@'
  SMLoc nameLoc;
  if (failed(
          parseIdentifier(attr.name, nameLoc, "an attribute name after '@'")))
    return failure();
  if (failed(expect(TokenKind::l_paren, " after '@" + attr.name + "'")))
    return failure();
  GroupScope group(*this);
  if (consumeIf(TokenKind::r_paren))
    return success();
  do {
    AttrArg arg;
    arg.loc = tok.getLoc();
    ExprPtr value = parseExpr();
    if (!value)
      return failure();
    auto *name = llvm::dyn_cast<NameExpr>(value.get());
    if (name && consumeIf(TokenKind::equal)) {
      arg.key = name->name;
      if (consumeIf(TokenKind::l_square)) {
        arg.isList = true;
        if (failed(parseExprList(arg.list, TokenKind::r_square)))
          return failure();
      } else if (!(arg.value = parseExpr())) {
        return failure();
      }
    } else {
      arg.value = std::move(value);
    }
    attr.args.push_back(std::move(arg));
  } while (consumeIf(TokenKind::comma));
  return expect(TokenKind::r_paren,
                " after the arguments of '@" + attr.name + "'");
}

// type := IDENT | ('tile' | 'tensor') '<' IDENT '>' '[' dim (',' dim)* ']'
//       | 'pipeline' '<' IDENT ',' 'stages' '=' dim '>' '[' dim (',' dim)* ']'
LogicalResult Parser::parseType(TypeRef &type) {
  type.loc = tok.getLoc();
  StringRef name;
  SMLoc loc;
  if (failed(parseIdentifier(name, loc, "a type")))
    return failure();
  if (name != "tile" && name != "tensor" && name != "pipeline") {
    type.kind = TypeRef::Kind::Scalar;
    type.dtype = name;
    type.dtypeLoc = loc;
    return success();
  }
  type.kind = name == "tensor"     ? TypeRef::Kind::Tensor
              : name == "pipeline" ? TypeRef::Kind::Pipeline
                                   : TypeRef::Kind::Tile;
  if (failed(expect(TokenKind::less, " after '" + name + "'")) ||
      failed(parseIdentifier(type.dtype, type.dtypeLoc,
                             "an element type (f32, f16, bf16, i32)")))
    return failure();
  if (type.kind == TypeRef::Kind::Pipeline) {
    StringRef key;
    SMLoc keyLoc;
    if (failed(expect(TokenKind::comma,
                      " and 'stages = S' after the element type")) ||
        failed(parseIdentifier(key, keyLoc, "'stages'")))
      return failure();
    if (key != "stages")
      return error(keyLoc, "expected 'stages', found '" + key + "'");
    if (failed(expect(TokenKind::equal, " after 'stages'")) ||
        failed(parseDim(type.stages)))
      return failure();
  }
  if (failed(expect(TokenKind::greater, " after the element type")) ||
      failed(
          expect(TokenKind::l_square, " (the dimensions of the " + name + ")")))
    return failure();
  GroupScope group(*this);
  do {
    Dim dim;
    if (failed(type.kind == TypeRef::Kind::Tensor ? parseTensorDim(dim)
                                                  : parseDim(dim)))
      return failure();
    type.dims.push_back(dim);
  } while (consumeIf(TokenKind::comma));
  return expect(TokenKind::r_square, " after the dimensions");
}

// tensor_dim := additive (an integer, a symbol or a const, or an expression
// of them: `2 * H`, `H + 1`; the emitter checks which).
LogicalResult Parser::parseTensorDim(Dim &dim) {
  dim.loc = tok.getLoc();
  ExprPtr expr = parseAdditive();
  if (!expr)
    return failure();
  if (auto *integer = llvm::dyn_cast<IntExpr>(expr.get())) {
    dim.size = integer->value;
    if (dim.size <= 0)
      return error(dim.loc,
                   "a dimension must be positive, found " + Twine(dim.size));
  } else if (auto *name = llvm::dyn_cast<NameExpr>(expr.get())) {
    dim.symbol = name->name;
  } else {
    dim.expr = std::move(expr);
  }
  return success();
}

// dim := INTEGER | IDENT
LogicalResult Parser::parseDim(Dim &dim) {
  dim.loc = tok.getLoc();
  if (tok.is(TokenKind::integer)) {
    dim.size = tok.intValue;
    consume();
  } else if (tok.is(TokenKind::identifier)) {
    // A symbol of a tensor, or a const (checked by the emitter).
    dim.symbol = tok.spelling;
    consume();
  } else {
    return error(dim.loc, "expected a dimension, found " + found());
  }
  if (dim.symbol.empty() && dim.size <= 0)
    return error(dim.loc,
                 "a dimension must be positive, found " + Twine(dim.size));
  return success();
}

// block := '{' (stmt (NEWLINE | ';'))* '}'
LogicalResult Parser::parseBlock(Body &block) {
  NestingScope scope(*this);
  if (failed(scope.check(tok.getLoc())) || failed(expect(TokenKind::l_brace)))
    return failure();
  // Statements inside braces are line-based again, even within a group.
  unsigned savedGroups = groups;
  groups = 0;
  llvm::scope_exit restore([&] { groups = savedGroups; });
  while (!consumeIf(TokenKind::r_brace)) {
    if (tok.is(TokenKind::eof))
      return error(tok.getLoc(), "expected '}' before end of file");
    StmtPtr stmt = parseStatement();
    if (!stmt)
      return failure();
    block.push_back(std::move(stmt));
    if (consumeIf(TokenKind::semicolon) || tok.is(TokenKind::r_brace) ||
        tok.atLineStart)
      continue;
    return error(tok.getLoc(), "expected a new line or ';' after the "
                               "statement, found " +
                                   found());
  }
  return success();
}

StmtPtr Parser::parseStatement() {
  switch (tok.kind) {
  case TokenKind::kw_var:
    return parseVar();
  case TokenKind::kw_const:
    return parseConst();
  case TokenKind::kw_for:
    return parseFor();
  case TokenKind::kw_if:
    return parseIf();
  case TokenKind::kw_while:
    return parseWhile();
  case TokenKind::identifier:
    return parseAssignment();
  default:
    (void)error(tok.getLoc(), "expected a statement, found " + found());
    return nullptr;
  }
}

// var := 'var' IDENT (':' 'shared'? type)? ('=' expr)?
StmtPtr Parser::parseVar() {
  SMLoc loc = tok.getLoc();
  consume();
  StringRef name;
  SMLoc nameLoc;
  if (failed(parseIdentifier(name, nameLoc, "a name after 'var'")))
    return nullptr;
  auto var = std::make_unique<VarStmt>(loc, name, nameLoc);
  if (consumeIf(TokenKind::colon)) {
    var->type = std::make_unique<TypeRef>();
    std::optional<SMLoc> shared;
    if (tok.is(TokenKind::identifier) && tok.spelling == "shared") {
      shared = tok.getLoc();
      consume();
    }
    if (failed(parseType(*var->type)))
      return nullptr;
    var->type->shared = shared;
    if (shared && var->type->kind != TypeRef::Kind::Tile) {
      (void)error(*shared, "'shared' qualifies a tile type: var " + name +
                               ": shared tile<dtype>[d0, ...]");
      return nullptr;
    }
    if (var->type->kind == TypeRef::Kind::Tensor) {
      (void)error(var->type->loc, "a var cannot be a tensor; tensors are "
                                  "kernel parameters (use tile<dtype>[...])");
      return nullptr;
    }
  }
  if (consumeIf(TokenKind::equal)) {
    if (!(var->init = parseExpr()))
      return nullptr;
  } else if (!var->type) {
    (void)error(tok.getLoc(), "expected ':' or '=' after 'var " + name +
                                  "', found " + found());
    return nullptr;
  }
  return var;
}

// const := 'const' IDENT '=' expr
std::unique_ptr<ConstStmt> Parser::parseConst() {
  SMLoc loc = tok.getLoc();
  consume();
  StringRef name;
  SMLoc nameLoc;
  if (failed(parseIdentifier(name, nameLoc, "a name after 'const'")) ||
      failed(expect(TokenKind::equal, " after 'const " + name + "'")))
    return nullptr;
  ExprPtr value = parseExpr();
  if (!value)
    return nullptr;
  return std::make_unique<ConstStmt>(loc, name, nameLoc, std::move(value));
}

// for := 'for' IDENT 'in' 'range' '(' expr ',' expr (',' expr)? ')' block
StmtPtr Parser::parseFor() {
  auto loop = std::make_unique<ForStmt>(tok.getLoc());
  consume();
  if (failed(parseIdentifier(loop->name, loop->nameLoc,
                             "a loop variable after 'for'")) ||
      failed(expect(TokenKind::kw_in, " after the loop variable")))
    return nullptr;
  if (!tok.is(TokenKind::identifier) || tok.spelling != "range") {
    (void)error(tok.getLoc(), "expected 'range(lo, hi[, step])' after 'in', "
                              "found " +
                                  found());
    return nullptr;
  }
  consume();
  if (failed(expect(TokenKind::l_paren, " after 'range'")))
    return nullptr;
  std::vector<ExprPtr> bounds;
  SMLoc boundsLoc = tok.getLoc();
  if (failed(parseExprList(bounds, TokenKind::r_paren)))
    return nullptr;
  if (bounds.size() < 2 || bounds.size() > 3) {
    (void)error(boundsLoc, "range takes 2 or 3 arguments (lo, hi[, step]), "
                           "got " +
                               Twine(bounds.size()));
    return nullptr;
  }
  loop->lower = std::move(bounds[0]);
  loop->upper = std::move(bounds[1]);
  if (bounds.size() == 3)
    loop->step = std::move(bounds[2]);
  if (failed(parseBlock(loop->body)))
    return nullptr;
  return loop;
}

// if := 'if' expr block ('else' (if | block))?
StmtPtr Parser::parseIf() {
  auto stmt = std::make_unique<IfStmt>(tok.getLoc());
  consume();
  if (!(stmt->condition = parseExpr()) || failed(parseBlock(stmt->thenBody)))
    return nullptr;
  if (!consumeIf(TokenKind::kw_else))
    return stmt;
  stmt->hasElse = true;
  if (tok.is(TokenKind::kw_if)) {
    // An else-if chain nests as deep as it is long.
    NestingScope scope(*this);
    if (failed(scope.check(tok.getLoc())))
      return nullptr;
    StmtPtr nested = parseIf();
    if (!nested)
      return nullptr;
    stmt->elseBody.push_back(std::move(nested));
    return stmt;
  }
  if (failed(parseBlock(stmt->elseBody)))
    return nullptr;
  return stmt;
}

// while := 'while' expr block
StmtPtr Parser::parseWhile() {
  auto loop = std::make_unique<WhileStmt>(tok.getLoc());
  consume();
  if (!(loop->condition = parseExpr()) || failed(parseBlock(loop->body)))
    return nullptr;
  return loop;
}

// assign := (IDENT | slice) ('=' | '+=' | '-=' | '*=' | '/=' | '&=' | '|='
//           | '^=' | '<<=' | '>>=') expr
//           | call
StmtPtr Parser::parseAssignment() {
  SMLoc loc = tok.getLoc();
  ExprPtr target = parsePostfix();
  if (!target)
    return nullptr;
  if (llvm::isa<CallExpr>(target.get()) &&
      (tok.atLineStart || tok.is(TokenKind::semicolon) ||
       tok.is(TokenKind::r_brace)))
    return std::make_unique<CallStmt>(loc, std::move(target));
  if (!llvm::isa<NameExpr, SliceExpr>(target.get())) {
    (void)error(loc, "only a var or a tensor slice can be assigned to");
    return nullptr;
  }
  std::optional<BinaryOp> op;
  SMLoc opLoc = tok.getLoc();
  switch (tok.kind) {
  case TokenKind::equal:
    break;
  case TokenKind::plus_equal:
    op = BinaryOp::Add;
    break;
  case TokenKind::minus_equal:
    op = BinaryOp::Sub;
    break;
  case TokenKind::star_equal:
    op = BinaryOp::Mul;
    break;
  case TokenKind::slash_equal:
    op = BinaryOp::Div;
    break;
  case TokenKind::amp_equal:
    op = BinaryOp::BitAnd;
    break;
  case TokenKind::pipe_equal:
    op = BinaryOp::BitOr;
    break;
  case TokenKind::caret_equal:
    op = BinaryOp::BitXor;
    break;
  case TokenKind::less_less_equal:
    op = BinaryOp::Shl;
    break;
  case TokenKind::greater_greater_equal:
    op = BinaryOp::Shr;
    break;
  default:
    (void)error(opLoc, "expected '=' or an operator-assignment ('+=', '-=', "
                       "'*=', '/=', '&=', '|=', '^=', '<<=', '>>=') after the "
                       "assignment target, found " +
                           found());
    return nullptr;
  }
  consume();
  ExprPtr value = parseExpr();
  if (!value)
    return nullptr;
  return std::make_unique<AssignStmt>(loc, std::move(target), op, opLoc,
                                      std::move(value));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Parser::parseOr() {
  return parseLeftAssociative(&Parser::parseAnd,
                              {{TokenKind::kw_or, BinaryOp::Or}});
}

ExprPtr Parser::parseAnd() {
  return parseLeftAssociative(&Parser::parseNot,
                              {{TokenKind::kw_and, BinaryOp::And}});
}

ExprPtr Parser::parseNot() {
  if (!tok.is(TokenKind::kw_not))
    return parseComparison();
  NestingScope scope(*this);
  SMLoc loc = tok.getLoc();
  if (failed(scope.check(loc)))
    return nullptr;
  consume();
  ExprPtr operand = parseNot();
  if (!operand)
    return nullptr;
  return checkHeight(
      std::make_unique<UnaryExpr>(loc, UnaryOp::Not, std::move(operand)));
}

static std::optional<BinaryOp> comparisonOf(TokenKind kind) {
  switch (kind) {
  case TokenKind::less:
    return BinaryOp::Lt;
  case TokenKind::less_equal:
    return BinaryOp::Le;
  case TokenKind::greater:
    return BinaryOp::Gt;
  case TokenKind::greater_equal:
    return BinaryOp::Ge;
  case TokenKind::equal_equal:
    return BinaryOp::Eq;
  case TokenKind::bang_equal:
    return BinaryOp::Ne;
  default:
    return std::nullopt;
  }
}

ExprPtr Parser::parseComparison() {
  ExprPtr lhs = parseBitOr();
  std::optional<BinaryOp> op = comparisonOf(tok.kind);
  if (!lhs || !op || !continuesExpression())
    return lhs;
  SMLoc loc = tok.getLoc();
  consume();
  ExprPtr rhs = parseBitOr();
  if (!rhs)
    return nullptr;
  if (comparisonOf(tok.kind) && continuesExpression()) {
    (void)error(tok.getLoc(), "comparisons cannot be chained; combine them "
                              "with 'and'");
    return nullptr;
  }
  return checkHeight(
      std::make_unique<BinaryExpr>(loc, *op, std::move(lhs), std::move(rhs)));
}

// The bit operators bind as in Python: `|` loosest, then
// `^`, `&`, the shifts, and all of them tighter than comparisons (`x & 1 ==
// 0` is `(x & 1) == 0`) and looser than `+` (`1 << k - 1` is `1 << (k - 1)`).
ExprPtr Parser::parseLeftAssociative(
    ExprPtr (Parser::*operand)(),
    std::initializer_list<std::pair<TokenKind, BinaryOp>> operators) {
  ExprPtr lhs = (this->*operand)();
  while (lhs && continuesExpression()) {
    const auto *match = llvm::find_if(
        operators, [&](const auto &entry) { return tok.is(entry.first); });
    if (match == operators.end())
      break;
    SMLoc loc = tok.getLoc();
    consume();
    ExprPtr rhs = (this->*operand)();
    if (!rhs)
      return nullptr;
    lhs = checkHeight(std::make_unique<BinaryExpr>(
        loc, match->second, std::move(lhs), std::move(rhs)));
  }
  return lhs;
}

ExprPtr Parser::parseBitOr() {
  return parseLeftAssociative(&Parser::parseBitXor,
                              {{TokenKind::pipe, BinaryOp::BitOr}});
}

ExprPtr Parser::parseBitXor() {
  return parseLeftAssociative(&Parser::parseBitAnd,
                              {{TokenKind::caret, BinaryOp::BitXor}});
}

ExprPtr Parser::parseBitAnd() {
  return parseLeftAssociative(&Parser::parseShift,
                              {{TokenKind::amp, BinaryOp::BitAnd}});
}

ExprPtr Parser::parseShift() {
  return parseLeftAssociative(&Parser::parseAdditive,
                              {{TokenKind::less_less, BinaryOp::Shl},
                               {TokenKind::greater_greater, BinaryOp::Shr}});
}

ExprPtr Parser::parseAdditive() {
  return parseLeftAssociative(
      &Parser::parseMultiplicative,
      {{TokenKind::plus, BinaryOp::Add}, {TokenKind::minus, BinaryOp::Sub}});
}

ExprPtr Parser::parseMultiplicative() {
  return parseLeftAssociative(&Parser::parseUnary,
                              {{TokenKind::star, BinaryOp::Mul},
                               {TokenKind::slash, BinaryOp::Div},
                               {TokenKind::percent, BinaryOp::Rem}});
}

ExprPtr Parser::parseUnary() {
  if (!tok.is(TokenKind::minus) && !tok.is(TokenKind::tilde))
    return parsePostfix();
  UnaryOp op = tok.is(TokenKind::minus) ? UnaryOp::Neg : UnaryOp::BitNot;
  NestingScope scope(*this);
  SMLoc loc = tok.getLoc();
  if (failed(scope.check(loc)))
    return nullptr;
  consume();
  ExprPtr operand = parseUnary();
  if (!operand)
    return nullptr;
  return checkHeight(std::make_unique<UnaryExpr>(loc, op, std::move(operand)));
}

// postfix := (IDENT '(' args ')' | IDENT | primary) ('[' entry (',' entry)*
// ']')* entry := expr (':+' expr)?
ExprPtr Parser::parsePostfix() {
  ExprPtr base;
  if (!tok.is(TokenKind::identifier)) {
    base = parsePrimary();
  } else {
    StringRef name = tok.spelling;
    SMLoc loc = tok.getLoc();
    consume();
    if (tok.is(TokenKind::l_paren) && !tok.atLineStart) {
      NestingScope scope(*this);
      if (failed(scope.check(tok.getLoc())))
        return nullptr;
      consume();
      std::vector<ExprPtr> args;
      std::vector<NamedArg> named;
      if (failed(parseCallArgs(args, named)))
        return nullptr;
      base = checkHeight(std::make_unique<CallExpr>(loc, name, std::move(args),
                                                    std::move(named)));
    } else {
      base = std::make_unique<NameExpr>(loc, name);
    }
  }
  while (base && tok.is(TokenKind::l_square) && !tok.atLineStart)
    base = parseIndexing(std::move(base));
  return base;
}

/// `X[a:b]`, Python's slice, at the ':': the language's slice takes an
/// extent, so the error spells `a :+ (b - a)` from the source's own text
/// (`b` up to the entry's end, read without parsing it).
ExprPtr Parser::rejectColonSlice(SMLoc startLoc) {
  const char *colon = tok.getLoc().getPointer();
  StringRef start =
      StringRef(startLoc.getPointer(), colon - startLoc.getPointer()).trim();
  const char *end = colon + 1, *bufferEnd = buffer.end();
  for (int depth = 0; end != bufferEnd && *end != '\n'; ++end) {
    if (depth == 0 && (*end == ',' || *end == ']'))
      break;
    depth += (*end == '(' || *end == '[') - (*end == ')' || *end == ']');
  }
  StringRef stop = StringRef(colon + 1, end - colon - 1).trim();
  std::string fix =
      stop.empty()
          ? "'start :+ extent'"
          : ("'" + start + " :+ (" + stop + " - " + start + ")'").str();
  (void)error(tok.getLoc(), "a slice is 'start :+ extent', not 'start:end': "
                            "write " +
                                fix);
  return nullptr;
}

ExprPtr Parser::parseIndexing(ExprPtr base) {
  NestingScope scope(*this);
  SMLoc sliceLoc = tok.getLoc();
  if (failed(scope.check(sliceLoc)))
    return nullptr;
  consume();
  GroupScope group(*this);
  std::vector<SliceExpr::Range> ranges;
  do {
    SliceExpr::Range range;
    SMLoc startLoc = tok.getLoc();
    if (!(range.start = parseExpr()))
      return nullptr;
    if (tok.is(TokenKind::colon))
      return rejectColonSlice(startLoc);
    if (consumeIf(TokenKind::colon_plus) && !(range.extent = parseExpr()))
      return nullptr;
    ranges.push_back(std::move(range));
  } while (consumeIf(TokenKind::comma));
  if (failed(expect(TokenKind::r_square,
                    " after the slice (each entry is 'start :+ extent' or "
                    "an index)")))
    return nullptr;
  SMLoc loc = base->getLoc();
  return checkHeight(
      std::make_unique<SliceExpr>(loc, std::move(base), std::move(ranges)));
}

ExprPtr Parser::parsePrimary() {
  SMLoc loc = tok.getLoc();
  switch (tok.kind) {
  case TokenKind::integer: {
    auto expr = std::make_unique<IntExpr>(loc, tok.intValue);
    consume();
    return expr;
  }
  case TokenKind::floating: {
    auto expr = std::make_unique<FloatExpr>(loc, tok.floatValue);
    consume();
    return expr;
  }
  case TokenKind::kw_inf: {
    auto expr = std::make_unique<FloatExpr>(loc, INFINITY);
    consume();
    return expr;
  }
  case TokenKind::l_square: {
    NestingScope scope(*this);
    if (failed(scope.check(loc)))
      return nullptr;
    consume();
    std::vector<ExprPtr> elements;
    if (failed(parseExprList(elements, TokenKind::r_square)))
      return nullptr;
    return checkHeight(std::make_unique<ListExpr>(loc, std::move(elements)));
  }
  case TokenKind::kw_true:
  case TokenKind::kw_false: {
    auto expr = std::make_unique<BoolExpr>(loc, tok.is(TokenKind::kw_true));
    consume();
    return expr;
  }
  case TokenKind::kw_ctx:
    return parseContext();
  case TokenKind::l_paren: {
    NestingScope scope(*this);
    if (failed(scope.check(loc)))
      return nullptr;
    consume();
    GroupScope group(*this);
    ExprPtr inner = parseExpr();
    if (!inner || failed(expect(TokenKind::r_paren, " to close '('")))
      return nullptr;
    return inner;
  }
  default:
    (void)error(loc, "expected an expression, found " + found());
    return nullptr;
  }
}

// context := 'ctx' '.' ('thread' | 'threads' | 'lanes'
//                       | ('block' | 'blocks') '.' ('x' | 'y' | 'z'))
ExprPtr Parser::parseContext() {
  SMLoc loc = tok.getLoc();
  consume();
  if (failed(expect(TokenKind::dot, " after 'ctx'")))
    return nullptr;
  SMLoc fieldLoc = tok.getLoc();
  StringRef fieldName = tok.is(TokenKind::identifier) ? tok.spelling : "";
  using Field = ContextExpr::Field;
  std::optional<Field> field =
      llvm::StringSwitch<std::optional<Field>>(fieldName)
          .Case("thread", Field::Thread)
          .Case("threads", Field::Threads)
          .Case("lanes", Field::Lanes)
          .Case("block", Field::Block)
          .Case("blocks", Field::Blocks)
          .Default(std::nullopt);
  if (!field) {
    (void)error(fieldLoc, "expected thread, threads, lanes, block or blocks "
                          "after 'ctx.', found " +
                              found());
    return nullptr;
  }
  consume();
  unsigned dim = 0;
  if (*field == Field::Block || *field == Field::Blocks) {
    if (failed(expect(TokenKind::dot, " after 'ctx." + fieldName + "'")))
      return nullptr;
    StringRef axis = tok.is(TokenKind::identifier) ? tok.spelling : "";
    if (axis != "x" && axis != "y" && axis != "z") {
      (void)error(tok.getLoc(), "expected x, y or z after 'ctx." + fieldName +
                                    ".', found " + found());
      return nullptr;
    }
    dim = axis[0] - 'x';
    consume();
  }
  return std::make_unique<ContextExpr>(loc, *field, dim);
}

// Parses `expr (',' expr)* close`, or just `close`; the opener is consumed.
LogicalResult Parser::parseExprList(std::vector<ExprPtr> &list,
                                    TokenKind close) {
  GroupScope group(*this);
  if (consumeIf(close))
    return success();
  do {
    ExprPtr expr = parseExpr();
    if (!expr)
      return failure();
    list.push_back(std::move(expr));
  } while (consumeIf(TokenKind::comma));
  return expect(close, " after the arguments");
}

// Parses `arg (',' arg)* ')'` where arg := expr | IDENT '=' expr, named
// arguments after positional ones; the '(' is consumed.
LogicalResult Parser::parseCallArgs(std::vector<ExprPtr> &args,
                                    std::vector<NamedArg> &named) {
  GroupScope group(*this);
  if (consumeIf(TokenKind::r_paren))
    return success();
  do {
    SMLoc loc = tok.getLoc();
    ExprPtr expr = parseExpr();
    if (!expr)
      return failure();
    auto *name = llvm::dyn_cast<NameExpr>(expr.get());
    if (name && consumeIf(TokenKind::equal)) {
      NamedArg arg{loc, name->name, parseExpr()};
      if (!arg.value)
        return failure();
      named.push_back(std::move(arg));
      continue;
    }
    if (!named.empty())
      return error(loc, "a positional argument cannot follow the named "
                        "argument '" +
                            named.back().name + "'");
    args.push_back(std::move(expr));
  } while (consumeIf(TokenKind::comma));
  return expect(TokenKind::r_paren, " after the arguments");
}

std::optional<Module> mlir::tile::frontend::parseModule(Diagnoser &diag,
                                                        StringRef buffer) {
  return Parser(diag, buffer).parseModule();
}
