//===- AST.h - syntax tree of the .tile language ----------------*- C++ -*-===//
//
// What the parser builds and the emitter reads. Names and spellings point
// into the source buffer, which outlives the tree.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_FRONTEND_AST_H
#define TILE_LIB_FRONTEND_AST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace mlir::tile::frontend {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    Int,
    Float,
    Bool,
    Name,
    Context,
    Unary,
    Binary,
    Call,
    Slice,
    Value,
    List
  };
  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }
  /// The height of the tree under this node: the parser bounds it, so that
  /// the recursive walks of the emitter cannot run out of stack.
  unsigned getHeight() const { return height; }

protected:
  void coverChild(const Expr *child) {
    if (child && child->height + 1 > height)
      height = child->height + 1;
  }

private:
  Kind kind;
  llvm::SMLoc loc;
  unsigned height = 1;
};
using ExprPtr = std::unique_ptr<Expr>;

template <Expr::Kind K> class ExprBase : public Expr {
public:
  explicit ExprBase(llvm::SMLoc loc) : Expr(K, loc) {}
  static bool classof(const Expr *e) { return e->getKind() == K; }
};

struct IntExpr : ExprBase<Expr::Kind::Int> {
  IntExpr(llvm::SMLoc loc, int64_t value) : ExprBase(loc), value(value) {}
  int64_t value;
};

struct FloatExpr : ExprBase<Expr::Kind::Float> {
  FloatExpr(llvm::SMLoc loc, double value) : ExprBase(loc), value(value) {}
  double value;
};

struct BoolExpr : ExprBase<Expr::Kind::Bool> {
  BoolExpr(llvm::SMLoc loc, bool value) : ExprBase(loc), value(value) {}
  bool value;
};

struct NameExpr : ExprBase<Expr::Kind::Name> {
  NameExpr(llvm::SMLoc loc, llvm::StringRef name) : ExprBase(loc), name(name) {}
  llvm::StringRef name;
};

/// `ctx.thread`, `ctx.block.x`, ...
struct ContextExpr : ExprBase<Expr::Kind::Context> {
  enum class Field { Thread, Threads, Lanes, Block, Blocks };
  ContextExpr(llvm::SMLoc loc, Field field, unsigned dim)
      : ExprBase(loc), field(field), dim(dim) {}
  Field field;
  /// 0, 1, 2 for x, y, z of `block` and `blocks`.
  unsigned dim;
};

/// `-x`, `not b` and `~x` (bitwise complement of an integer).
enum class UnaryOp { Neg, Not, BitNot };

struct UnaryExpr : ExprBase<Expr::Kind::Unary> {
  UnaryExpr(llvm::SMLoc loc, UnaryOp op, ExprPtr operand)
      : ExprBase(loc), op(op), operand(std::move(operand)) {
    coverChild(this->operand.get());
  }
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or,
  // Bit operations on integers (`&`, `|`, `^` also on i1).
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr
};

/// The spelling of `op`, for messages.
llvm::StringRef spell(BinaryOp op);

struct BinaryExpr : ExprBase<Expr::Kind::Binary> {
  /// `loc` is the operator's.
  BinaryExpr(llvm::SMLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : ExprBase(loc), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {
    coverChild(this->lhs.get());
    coverChild(this->rhs.get());
  }
  BinaryOp op;
  ExprPtr lhs, rhs;
};

/// `name = value` among the arguments of a call (`other = -inf`).
struct NamedArg {
  llvm::SMLoc loc;
  llvm::StringRef name;
  ExprPtr value;
};

struct CallExpr : ExprBase<Expr::Kind::Call> {
  CallExpr(llvm::SMLoc loc, llvm::StringRef callee, std::vector<ExprPtr> args,
           std::vector<NamedArg> named = {})
      : ExprBase(loc), callee(callee), args(std::move(args)),
        named(std::move(named)) {
    for (const ExprPtr &arg : this->args)
      coverChild(arg.get());
    for (const NamedArg &arg : this->named)
      coverChild(arg.value.get());
  }
  llvm::StringRef callee;
  std::vector<ExprPtr> args;
  /// After the positional arguments, in source order.
  std::vector<NamedArg> named;
};

/// `base[a :+ N, i, ...]`: each entry is a range `start :+ extent` or a
/// single index (`extent` null). `base` is a name (a tensor parameter or a
/// var) or any other expression (a tile value).
struct SliceExpr : ExprBase<Expr::Kind::Slice> {
  struct Range {
    ExprPtr start, extent;
    bool isRange() const { return extent != nullptr; }
  };
  SliceExpr(llvm::SMLoc loc, ExprPtr base, std::vector<Range> ranges)
      : ExprBase(loc), base(std::move(base)), ranges(std::move(ranges)) {
    coverChild(this->base.get());
    for (const Range &range : this->ranges) {
      coverChild(range.start.get());
      coverChild(range.extent.get());
    }
  }
  /// `tensor[...]`, the name at `tensorLoc`.
  SliceExpr(llvm::SMLoc loc, llvm::StringRef tensor, llvm::SMLoc tensorLoc,
            std::vector<Range> ranges)
      : SliceExpr(loc, std::make_unique<NameExpr>(tensorLoc, tensor),
                  std::move(ranges)) {}
  /// The name the slice is of, or empty when the base is not a name.
  llvm::StringRef baseName() const {
    if (auto *name = llvm::dyn_cast<NameExpr>(base.get()))
      return name->name;
    return {};
  }
  ExprPtr base;
  std::vector<Range> ranges;
};

/// An expression another front end has already evaluated: the operand the
/// Emitter holds at `index` (KernelBuilder's values). The .tile parser never
/// makes one.
struct ValueExpr : ExprBase<Expr::Kind::Value> {
  ValueExpr(llvm::SMLoc loc, unsigned index) : ExprBase(loc), index(index) {}
  unsigned index;
};

/// `[e0, e1, ...]`: only the shape argument of `iota`.
struct ListExpr : ExprBase<Expr::Kind::List> {
  ListExpr(llvm::SMLoc loc, std::vector<ExprPtr> elements)
      : ExprBase(loc), elements(std::move(elements)) {
    for (const ExprPtr &element : this->elements)
      coverChild(element.get());
  }
  std::vector<ExprPtr> elements;
};

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// One dimension of a type: a size or a name (a `const`, or in a tensor
/// parameter a symbol).
struct Dim {
  llvm::SMLoc loc;
  int64_t size = 0;
  llvm::StringRef symbol; // empty for a size
  /// A tensor dimension written as an expression (`2 * H`, `H + 1`); size
  /// and symbol are then unset.
  std::shared_ptr<const Expr> expr;
};

/// `f32`, `tile<f32>[16, 64]`, `tensor<f32>[16, K]`, or for a var
/// `shared tile<f32>[256]` and the ring `pipeline<f16, stages = 3>[16, 64]`.
struct TypeRef {
  enum class Kind { Scalar, Tile, Tensor, Pipeline };
  Kind kind = Kind::Scalar;
  llvm::SMLoc loc;
  llvm::StringRef dtype;
  llvm::SMLoc dtypeLoc;
  std::vector<Dim> dims;
  /// A pipeline's stages.
  Dim stages;
  /// `shared tile<...>`: where `shared` is, if written.
  std::optional<llvm::SMLoc> shared;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind { Var, Const, Assign, Call, For, If, While };
  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  Kind kind;
  llvm::SMLoc loc;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

template <Stmt::Kind K> class StmtBase : public Stmt {
public:
  explicit StmtBase(llvm::SMLoc loc) : Stmt(K, loc) {}
  static bool classof(const Stmt *s) { return s->getKind() == K; }
};

/// `var name (: type)? (= init)?`; at least one of the two is present.
struct VarStmt : StmtBase<Stmt::Kind::Var> {
  VarStmt(llvm::SMLoc loc, llvm::StringRef name, llvm::SMLoc nameLoc)
      : StmtBase(loc), name(name), nameLoc(nameLoc) {}
  llvm::StringRef name;
  llvm::SMLoc nameLoc;
  std::unique_ptr<TypeRef> type;
  ExprPtr init;
};

/// `const name = value`: a compile-time integer or number.
struct ConstStmt : StmtBase<Stmt::Kind::Const> {
  ConstStmt(llvm::SMLoc loc, llvm::StringRef name, llvm::SMLoc nameLoc,
            ExprPtr value)
      : StmtBase(loc), name(name), nameLoc(nameLoc), value(std::move(value)) {}
  llvm::StringRef name;
  llvm::SMLoc nameLoc;
  ExprPtr value;
};

/// A call standing alone: `store(...)`, `atomic_add(...)`.
struct CallStmt : StmtBase<Stmt::Kind::Call> {
  CallStmt(llvm::SMLoc loc, ExprPtr call)
      : StmtBase(loc), call(std::move(call)) {}
  ExprPtr call; // a CallExpr
};

/// `target op= value`; `op` is absent for a plain `=`. The target is a
/// NameExpr or a SliceExpr.
struct AssignStmt : StmtBase<Stmt::Kind::Assign> {
  AssignStmt(llvm::SMLoc loc, ExprPtr target, std::optional<BinaryOp> op,
             llvm::SMLoc opLoc, ExprPtr value)
      : StmtBase(loc), target(std::move(target)), op(op), opLoc(opLoc),
        value(std::move(value)) {}
  ExprPtr target;
  std::optional<BinaryOp> op;
  llvm::SMLoc opLoc;
  ExprPtr value;
};

/// `for name in range(lo, hi[, step]) { body }`.
struct ForStmt : StmtBase<Stmt::Kind::For> {
  ForStmt(llvm::SMLoc loc) : StmtBase(loc) {}
  llvm::StringRef name;
  llvm::SMLoc nameLoc;
  ExprPtr lower, upper, step; // step may be null
  Body body;
};

/// `if cond { then } else { otherwise }`; `else if` nests an IfStmt.
struct IfStmt : StmtBase<Stmt::Kind::If> {
  IfStmt(llvm::SMLoc loc) : StmtBase(loc) {}
  ExprPtr condition;
  Body thenBody;
  Body elseBody;
  bool hasElse = false;
};

struct WhileStmt : StmtBase<Stmt::Kind::While> {
  WhileStmt(llvm::SMLoc loc) : StmtBase(loc) {}
  ExprPtr condition;
  Body body;
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// One argument of an attribute: `value`, `key = value` or
/// `key = [v0, v1, ...]`.
struct AttrArg {
  llvm::SMLoc loc;
  llvm::StringRef key; // empty for a positional argument
  ExprPtr value;       // null for a list
  std::vector<ExprPtr> list;
  bool isList = false;
};

/// `@name(args)` before a kernel.
struct Attribute {
  llvm::SMLoc loc;
  llvm::StringRef name;
  std::vector<AttrArg> args;
};

struct Param {
  llvm::SMLoc loc;
  llvm::StringRef name;
  TypeRef type;
};

struct Kernel {
  llvm::SMLoc loc;
  llvm::StringRef name;
  std::vector<Attribute> attributes;
  std::vector<Param> params;
  /// Its leading `const` statements are visible to the attributes and the
  /// parameter types too.
  Body body;
  /// How many of the file-level consts come before the kernel.
  size_t fileConstsBefore = 0;
};

struct Module {
  /// The file-level consts, in order; a kernel sees those before it.
  std::vector<std::unique_ptr<ConstStmt>> consts;
  std::vector<Kernel> kernels;
};

} // namespace mlir::tile::frontend

#endif // TILE_LIB_FRONTEND_AST_H
