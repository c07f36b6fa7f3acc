//===- Emitter.h - syntax tree to tile dialect ------------------*- C++ -*-===//
//
// The semantic checks and the IR emission of the .tile front end, in one
// walk: EmitKernel.cpp handles names, kernels and their attributes and
// consts, EmitStmt.cpp statements, EmitTypes.cpp the types source names,
// EmitExpr.cpp literals, conversions and operators, EmitBitwise.cpp the
// bit operators, EmitCall.cpp the builtin functions, EmitSlice.cpp slices
// of tensors and tiles, EmitCopy.cpp copies, barriers and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_FRONTEND_EMITTER_H
#define TILE_LIB_FRONTEND_EMITTER_H

#include "AST.h"
#include "Diagnoser.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::scf {
class ForOp;
class IfOp;
class WhileOp;
} // namespace mlir::scf

namespace mlir::tile {
class KernelBuilder;
} // namespace mlir::tile

namespace mlir::tile::frontend {

/// A constant the source wrote without a type. It takes its type from the
/// other operand (or the declared type) when it meets one, so `acc + 1.0`
/// adds an f32 or f16 one as `acc` needs, and folds with other literals.
struct Literal {
  enum class Kind { Int, Float, Bool };
  Kind kind = Kind::Int;
  int64_t intValue = 0;
  double floatValue = 0;
  bool boolValue = false;

  double asDouble() const {
    return kind == Kind::Float ? floatValue : static_cast<double>(intValue);
  }
};

/// The result of an expression: an SSA value, or a literal yet untyped.
struct Operand {
  Value value;
  std::optional<Literal> literal;
  llvm::SMLoc loc;

  bool isLiteral() const { return literal.has_value(); }
};

/// What a name in scope denotes.
struct Symbol {
  enum class Kind { Param, Scalar, Dim, Var, LoopIndex, Const };
  Kind kind;
  llvm::SMLoc loc;
  /// The tensor argument, the scalar argument, the dimension, the
  /// `!tile.var` or the index; null for a const.
  Value value;
  /// The value of a const.
  Literal constant;
};

/// `&`, `|`, `^`, `<<` and `>>`.
bool isBitOperator(BinaryOp op);

class Emitter {
public:
  Emitter(Diagnoser &diag, ModuleOp module);

  /// Evaluates the file-level `const` and makes it visible to the kernels
  /// after it.
  LogicalResult emitFileConst(const ConstStmt &constant);
  LogicalResult emitKernel(const Kernel &kernel);

private:
  // Statement by statement, with the values it evaluates itself.
  friend class ::mlir::tile::KernelBuilder;

  //===--------------------------------------------------------------------===//
  // Kernels (EmitKernel.cpp), types (EmitTypes.cpp), statements
  // (EmitStmt.cpp)
  //===--------------------------------------------------------------------===//

  struct LaunchConfig {
    int64_t threads = 0;
    std::optional<AffineMap> grid;
  };
  LogicalResult checkAttributeNames(const Kernel &kernel);
  /// A tensor parameter's type, or a scalar parameter's element type.
  FailureOr<Type> emitParamType(const Param &param);
  /// Defines the const in the innermost scope.
  LogicalResult emitConst(const ConstStmt &constant);
  /// The value of a compile-time expression: literals, consts, unary '-'
  /// and '~', '+ - * / %', '& | ^ << >>' and cdiv/min/max of them; `what`
  /// names it in the error.
  FailureOr<Literal> evaluateConstant(const Expr &expr,
                                      llvm::StringRef what = "a const");
  /// The const `name` denotes, if it is one in scope.
  const Literal *lookupConst(llvm::StringRef name) const;
  /// The size a dimension of a type names: an integer, or a const.
  FailureOr<int64_t> emitDimSize(const Dim &dim);
  /// A tensor dimension written as an expression (`2 * H`, or a front
  /// end's text "2 * H"): its canonical text over the symbols, or none
  /// when it names no symbol (a static size, which `size` receives).
  FailureOr<std::optional<StringAttr>> emitSizeExprDim(const Dim &dim,
                                                       int64_t &size);
  /// The text of a dimension expression, consts replaced by their values.
  FailureOr<std::string> emitSizeText(const Expr &expr);
  /// `@launch`: its threads, and its grid over the kernel's `symbols` and
  /// (when it names them) its integer `scalars`, in that order.
  FailureOr<LaunchConfig> emitLaunch(const Attribute &attr,
                                     ArrayRef<StringAttr> symbols,
                                     ArrayRef<StringAttr> scalars);
  /// A grid expression, checked to stay within 32 bits once folded.
  FailureOr<AffineExpr> emitGridExpr(const Expr &expr,
                                     ArrayRef<StringAttr> symbols);
  FailureOr<AffineExpr> emitGridTerm(const Expr &expr,
                                     ArrayRef<StringAttr> symbols);
  LogicalResult emitRegisters(const Attribute &attr, KernelOp kernel);
  LogicalResult emitPipeline(const Attribute &attr, KernelOp kernel);
  /// The kernel op with its parameters and symbols defined, the builder at
  /// the start of its body; then, after the body, its return and the
  /// attributes that name what the body declares.
  FailureOr<KernelOp> beginKernel(const Kernel &kernel);
  LogicalResult endKernel(const Kernel &kernel, KernelOp op);

  LogicalResult emitBlock(const Body &block);
  LogicalResult emitStmt(const Stmt &stmt);
  LogicalResult emitVar(const VarStmt &var);
  LogicalResult emitAssign(const AssignStmt &assign);
  LogicalResult emitCallStmt(const CallStmt &stmt);
  LogicalResult emitFor(const ForStmt &loop);
  LogicalResult emitIf(const IfStmt &stmt);
  LogicalResult emitWhile(const WhileStmt &loop);
  /// The control-flow ops of the statements, their bodies still empty (the
  /// builder stays where it was): a loop's bounds and step, a condition.
  FailureOr<scf::ForOp> createFor(const ForStmt &loop);
  FailureOr<scf::IfOp> createIf(const IfStmt &stmt);
  scf::WhileOp createWhile(const WhileStmt &loop);
  /// The `scf.condition` of a while's `before` block, at the builder.
  LogicalResult emitWhileCondition(const Expr &condition);
  /// Puts the builder before the terminator of `block`, creating an
  /// `scf.yield` first if the block has none.
  void setInsertionBeforeYield(mlir::Block &block, Location loc);

  //===--------------------------------------------------------------------===//
  // Names
  //===--------------------------------------------------------------------===//

  /// The consts of the file seen so far, the outermost scope of a kernel.
  llvm::StringMap<Symbol> fileConsts;
  /// How many statements at the top of the kernel's body are consts, which
  /// beginKernel defines.
  size_t leadingConsts = 0;

  /// Binds `name` in the innermost scope; an error if it is already visible
  /// or reserved.
  LogicalResult define(llvm::StringRef name, Symbol symbol);
  const Symbol *lookup(llvm::StringRef name) const;
  /// The symbol `name` refers to, or an error.
  FailureOr<Symbol> resolve(llvm::StringRef name, llvm::SMLoc loc);

  struct ScopeGuard {
    ScopeGuard(Emitter &emitter) : emitter(emitter) {
      emitter.scopes.emplace_back();
    }
    ~ScopeGuard() { emitter.scopes.pop_back(); }
    Emitter &emitter;
  };

  //===--------------------------------------------------------------------===//
  // Expressions (EmitExpr.cpp), calls (EmitCall.cpp), slices
  // (EmitSlice.cpp)
  //===--------------------------------------------------------------------===//

  /// Where an element type appears: each allows more than the one before.
  enum class DtypeUse { Tensor, Tile, Scalar };
  /// The element type a dtype name denotes, or an error: f32, f16, bf16 and
  /// i32 everywhere, i1 in tiles and scalars, index in scalars.
  FailureOr<Type> emitDtype(llvm::StringRef name, llvm::SMLoc loc,
                            DtypeUse use);
  /// Fails on a tile too large to be a tile (it would never fit on chip).
  LogicalResult checkTileShape(ArrayRef<int64_t> shape, llvm::SMLoc loc);
  FailureOr<Type> emitVarType(const TypeRef &type);
  FailureOr<Operand> emitExpr(const Expr &expr);
  /// An expression that must have a value: a literal takes its default type.
  FailureOr<Value> emitValue(const Expr &expr);
  /// An `index` expression (slice offsets, range bounds).
  FailureOr<Value> emitIndex(const Expr &expr, llvm::StringRef what);
  /// A compile-time integer (slice extents).
  FailureOr<int64_t> emitConstantInt(const Expr &expr, llvm::StringRef what);

  /// `operand` as a value of type `target`: a literal is materialised, a
  /// scalar splat over a tile, a tile broadcast along its size-1 dims.
  FailureOr<Value> convert(const Operand &operand, Type target,
                           const llvm::Twine &what);
  FailureOr<Value> materialize(const Literal &literal, Type target,
                               llvm::SMLoc loc, const llvm::Twine &what);

  FailureOr<Operand> emitBinary(BinaryOp op, Operand lhs, Operand rhs,
                                llvm::SMLoc loc);
  FailureOr<Operand> foldBinary(BinaryOp op, const Literal &lhs,
                                const Literal &rhs, llvm::SMLoc loc);
  FailureOr<Operand> emitUnary(const UnaryExpr &expr);
  /// `&`, `|`, `^`, `<<`, `>>` (EmitBitwise.cpp): of two literals, folded;
  /// else emitted with the shifts clamped as the language defines them.
  FailureOr<Operand> foldBitOperator(BinaryOp op, const Literal &lhs,
                                     const Literal &rhs, llvm::SMLoc loc);
  FailureOr<Operand> emitBitOperator(BinaryOp op, Operand lhs, Operand rhs,
                                     llvm::SMLoc loc);
  /// `~x` of an integer or a boolean (EmitBitwise.cpp).
  FailureOr<Operand> emitComplement(const Operand &operand, llvm::SMLoc loc);
  FailureOr<Operand> emitCall(const CallExpr &call);
  FailureOr<Operand> emitCast(const CallExpr &call, Type target);
  FailureOr<Operand> emitContext(const ContextExpr &expr);
  FailureOr<Operand> emitName(const NameExpr &expr);
  /// The numpy broadcast of the shapes of the tiles among `operands`, or
  /// none when all are scalars.
  FailureOr<std::optional<SmallVector<int64_t>>>
  broadcastShape(ArrayRef<Operand> operands, const llvm::Twine &what,
                 llvm::SMLoc loc);
  /// Gives `operands` one element type and one shape (numpy broadcasting).
  /// A note, on a type mismatch of `value` with `other`, where `value` is
  /// a var that took i32 from a literal and `other` an index.
  void noteLiteralTypedVar(InFlightDiagnostic &diag, Value value, Value other);
  FailureOr<SmallVector<Value>> unify(MutableArrayRef<Operand> operands,
                                      const llvm::Twine &what, llvm::SMLoc loc);

  /// A slice of a tensor parameter; with index tiles, a gather or scatter
  /// (`indices[k]` gives the coordinates of dimension `indexDims[k]`).
  struct Slice {
    Value tensor;
    GlobalTensorType type;
    SmallVector<Value> offsets;
    RankedTensorType tileType;
    SmallVector<Value> indices;
    SmallVector<int64_t> indexDims;
    bool isGather() const { return !indices.empty(); }
  };
  FailureOr<Slice> emitSlice(const SliceExpr &expr);
  /// A store (or scatter) of `value`, of the slice's tile type, under
  /// `mask` if given.
  void emitStore(const Slice &slice, Value value, Value mask, Location loc);
  /// The constant offsets and shape of `t[...]` on a tile of `type`, and
  /// whether every entry is a single index (an element, not a sub-tile).
  struct SubTile {
    SmallVector<int64_t> offsets, shape;
    bool isElement = true;
  };
  FailureOr<SubTile> emitSubTile(const SliceExpr &expr, RankedTensorType type);
  /// `t[...] op= e` for a tile var `t`; `whole`, when given, is the read
  /// of `t` the assignment updates (a front end that read it already).
  LogicalResult emitSubTileAssign(const AssignStmt &assign,
                                  const SliceExpr &target, Value var,
                                  Value whole = {});
  /// An assignment to a slice the caller has emitted (`presliced`, the
  /// target's own), or as emitAssign(assign).
  LogicalResult emitAssign(const AssignStmt &assign,
                           std::optional<Slice> presliced);
  /// A scalar i1 for `if` and `while`.
  FailureOr<Value> emitCondition(const Expr &expr, llvm::StringRef what);
  /// `value` converted elementwise to `elementType` (the casts `f32(x)`...).
  FailureOr<Value> emitConversion(Value value, Type elementType,
                                  llvm::SMLoc loc);
  Value emitLoad(const Slice &slice, llvm::SMLoc loc, Value other = {});
  /// `X[...]` of a tensor, or an index into a tile.
  FailureOr<Operand> emitIndexed(const SliceExpr &expr);
  FailureOr<Operand> emitLoadCall(const CallExpr &call);
  FailureOr<Operand> emitIota(const CallExpr &call);
  FailureOr<Operand> emitReshape(const CallExpr &call);
  /// A list of positive constant dimensions, the shape argument of the
  /// builtin `what`; `usage` is the error for anything else.
  FailureOr<SmallVector<int64_t>>
  emitShapeList(const Expr &expr, llvm::StringRef what, llvm::StringRef usage);
  /// `exp(x)` on its fast path.
  Value emitExp(Value x, Location loc);

  //===--------------------------------------------------------------------===//
  // Copies, barriers and pipelines (EmitCopy.cpp)
  //===--------------------------------------------------------------------===//

  /// copy, barrier, advance, commit_group, wait_group: calls that are
  /// statements of their own.
  static bool isMovementStatement(llvm::StringRef callee);
  /// stage, front, back: a stage of a pipeline.
  static bool isStageAccessor(llvm::StringRef callee);
  LogicalResult emitMovementStmt(const CallExpr &call);
  LogicalResult emitCopy(const CallExpr &call);
  /// One side of a copy (defined in EmitCopy.cpp).
  struct CopySide;
  FailureOr<CopySide> emitCopySide(const Expr &expr, llvm::StringRef role);
  /// `var p: pipeline<T, stages = S>[...]` of the tile type `tile`.
  LogicalResult emitPipelineVar(const VarStmt &var, RankedTensorType tile);
  /// The pipeline a call (stage, front, back, advance) names first.
  FailureOr<Value> emitPipelineName(const CallExpr &call);
  /// `stage(p, k)`, `front(p)`, `back(p)`: the tile.stage var.
  FailureOr<Value> emitStage(const CallExpr &call);
  /// The same, read.
  FailureOr<Operand> emitStageRead(const CallExpr &call);
  /// An error at `loc` when the var `name` is a pipeline, which is only
  /// accessed through its stages.
  LogicalResult checkNotPipeline(Value var, llvm::StringRef name,
                                 llvm::SMLoc loc);

  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  Location getLoc(llvm::SMLoc loc) const { return diag.getLoc(loc); }
  InFlightDiagnostic error(llvm::SMLoc loc) const { return diag.error(loc); }
  /// `tile<f32>[16, 64]`, `f32`: types as the language writes them.
  static std::string describe(Type type);
  /// Whether `name` is a builtin function, a cast or a type name: those
  /// cannot be redefined.
  static bool isReservedName(llvm::StringRef name);
  /// The builtin functions (not the casts), by name.
  static std::vector<llvm::StringRef> getBuiltinNames();

  // What an error suggests (Suggestions.cpp): "; did you mean 'acc'?", or
  // the spelling the language wants, else "".
  /// A name in scope close to `name`.
  std::string suggestVisibleName(llvm::StringRef name) const;
  /// A builtin or cast close to `name`, or the language's spelling of
  /// another library's function (`relu`: `max(x, 0.0)`), the builtins
  /// spelled with `prefix` (builtinPrefix).
  static std::string suggestFunction(llvm::StringRef name,
                                     llvm::StringRef prefix);
  /// A kernel attribute close to `name` (without its `@`).
  static std::string suggestAttribute(llvm::StringRef name);
  /// A var (or, with `loopIndices`, a loop index) of the kernel close to
  /// `name`, for the names attributes refer to.
  std::string suggestDeclared(llvm::StringRef name, bool loopIndices) const;
  /// The explicit conversion a value of type `from` needs to be a `to`
  /// (`f16(...)`).
  std::string suggestConversion(Type from, Type to) const;
  /// How the front end spells the language's builtins: `f16(x)` in .tile,
  /// `tile.f16(x)` in Python (KernelBuilder).
  llvm::StringRef builtinPrefix = "";

  Diagnoser &diag;
  ModuleOp module;
  OpBuilder builder;
  /// The operands of ValueExprs.
  std::vector<Operand> evaluated;
  std::vector<llvm::StringMap<Symbol>> scopes;
  /// The vars and loop indices declared in the current kernel, whatever
  /// their scope, for checking the names attributes refer to.
  llvm::StringMap<Type> declaredVars;
  /// Vars declared `var x = 3`: a lone integer literal's type, i32.
  llvm::DenseSet<Value> literalTypedVars;
  llvm::StringSet<> declaredLoopIndices;
  /// Each pipeline's ring (a tile.var with stages) and the index var that
  /// counts its advances.
  llvm::DenseMap<Value, Value> rotations;
  /// The read of each ring's rotation that its stages use, until the next
  /// advance (in the block it is in).
  llvm::DenseMap<Value, Value> rotationReads;
  llvm::StringMap<llvm::SMLoc> kernelNames;
};

} // namespace mlir::tile::frontend

#endif // TILE_LIB_FRONTEND_EMITTER_H
