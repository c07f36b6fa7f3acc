//===- KernelBuilder.h - build tile kernels statement by statement -*- C++ -*-//
//
// The .tile front end's semantics as an IR builder, for front ends other
// than the .tile parser (the Python package, python/tile): each call emits
// its IR at once, through the same code as the .tile language (names,
// typing, literals that take their context's type, broadcasting, builtins,
// every check and message), so a kernel written in another syntax produces
// the IR of its .tile twin, and errors point into that syntax's source.
//
// Positions are 1-based lines and byte columns of the source buffer the
// builder was given; every op is located there. Errors are emitted as
// diagnostics (the context's handler prints them) and the call fails.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_KERNELBUILDER_H
#define TILE_FRONTEND_KERNELBUILDER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::tile {

class KernelBuilder {
public:
  /// A place in the source: 1-based line and byte column.
  struct Pos {
    unsigned line = 0, column = 0;
  };
  /// An evaluated expression: a value, or a literal whose type its
  /// context decides.
  using ValueId = unsigned;
  /// An unevaluated expression: the arguments of grids and @pipeline.
  using ExprId = unsigned;

  /// What a value is, as the .tile language writes types.
  struct ValueInfo {
    enum class Kind { IntLiteral, FloatLiteral, BoolLiteral, Scalar, Tile };
    Kind kind = Kind::Scalar;
    /// "f32", "f16", "bf16", "i32", "i1" or "index"; empty for literals.
    std::string dtype;
    std::vector<int64_t> shape; // of a tile
    int64_t intValue = 0;       // of a literal
    double floatValue = 0;
    bool boolValue = false;
  };

  struct Param {
    std::string name;
    Pos pos;
    /// A scalar parameter (`alpha: f32`) has no dims.
    bool isScalar = false;
    std::string dtype;
    Pos dtypePos;
    /// Each dimension: a size or a symbol's name.
    std::vector<std::variant<int64_t, std::string>> dims;
    std::vector<Pos> dimPos;
  };
  struct Kernel {
    std::string name;
    Pos pos;
    std::vector<Param> params;
    int64_t threads = 0;
    Pos threadsPos;
    /// `grid = [...]`, empty for none.
    std::vector<ExprId> grid;
    Pos gridPos;
    /// `@registers(...)`, empty for none.
    std::vector<std::pair<std::string, Pos>> registers;
    Pos registersPos;
    /// `@pipeline(names..., key = value...)`, none when `pipelinePos` is
    /// unset; an option's value is an expression or a list of them.
    std::vector<std::pair<std::string, Pos>> pipelineNames;
    struct Option {
      std::string key;
      Pos pos;
      std::vector<ExprId> values;
      bool isList = false;
    };
    std::vector<Option> pipelineOptions;
    std::optional<Pos> pipelinePos;
  };
  /// One dimension of a slice: `start :+ extent`; with no extent, `start`
  /// is a single index, or an i32 index tile (a gather or scatter).
  struct Range {
    ValueId start;
    std::optional<ValueId> extent;
  };
  /// An argument of a builtin that takes more than values: the slice of
  /// `load` and `store`, the shape of `iota`, a word (`dot`'s precision,
  /// `tf32`); `name` for a named one (`other`, `mask`, `precision`).
  struct CallArg {
    enum class Kind { Value, Int, IntList, Slice, Name } kind = Kind::Value;
    std::string name;
    std::string word; // Name
    Pos pos;
    ValueId value = 0;
    std::vector<int64_t> ints; // Int: one
    std::string tensor;        // Slice
    Pos tensorPos;
    std::vector<Range> ranges;
  };

  /// Builds into a new module; `bufferID` is the source's buffer in
  /// `sourceMgr`, which must outlive the builder.
  KernelBuilder(MLIRContext *context, llvm::SourceMgr &sourceMgr,
                unsigned bufferID);
  ~KernelBuilder();

  //===--- Kernels --------------------------------------------------------===//

  /// The kernel op, its parameters and symbols (names in the kernel), the
  /// builder at the start of its body.
  LogicalResult beginKernel(const Kernel &kernel);
  /// Adds a var to `@registers` (a front end's own register tiles).
  void addRegister(StringRef name, Pos pos);
  /// Ends the body; checks the attributes that name what it declares.
  LogicalResult endKernel();
  /// The module of the kernels built, verified; null after an error.
  OwningOpRef<ModuleOp> takeModule();

  //===--- Expressions ----------------------------------------------------===//

  ValueId intLiteral(int64_t value, Pos pos);
  ValueId floatLiteral(double value, Pos pos);
  ValueId boolLiteral(bool value, Pos pos);
  /// A name of the kernel: a symbol, a loop index, or a var (read).
  FailureOr<ValueId> name(StringRef name, Pos pos);
  /// `ctx.FIELD[.x|y|z]`: thread, threads, lanes, block, blocks.
  FailureOr<ValueId> context(StringRef field, unsigned dim, Pos pos);
  /// "-" or "not".
  FailureOr<ValueId> unary(StringRef op, ValueId operand, Pos pos);
  /// "+ - * / % < <= > >= == != and or".
  FailureOr<ValueId> binary(StringRef op, ValueId lhs, ValueId rhs, Pos pos);
  /// A builtin function or a cast (`f16(x)`).
  FailureOr<ValueId> call(StringRef callee, ArrayRef<ValueId> args, Pos pos);
  /// A call with any kind of arguments; none for a statement (`store`).
  FailureOr<std::optional<ValueId>>
  call(StringRef callee, ArrayRef<CallArg> args, Pos pos, bool statement);
  /// The slice `tensor[start :+ extent, ...]` loaded.
  FailureOr<ValueId> load(StringRef tensor, Pos tensorPos,
                          ArrayRef<Range> ranges, Pos pos);
  /// `base[...]` of a tile value: each entry a range (`start :+ extent`)
  /// or, with no extent, a single index (`.tile`'s `t[i, j]`).
  struct Index {
    ValueId start;
    std::optional<ValueId> extent;
  };
  FailureOr<ValueId> index(ValueId base, ArrayRef<Index> indices, Pos pos);
  /// A tile of `shape` (a scalar for none) of `dtype` whose every element
  /// is `literal`.
  FailureOr<ValueId> full(ArrayRef<int64_t> shape, StringRef dtype,
                          ValueId literal, Pos pos);
  ValueInfo describe(ValueId value) const;
  /// The builtin functions of the language, by name.
  static std::vector<std::string> getBuiltinNames();
  /// What an unknown function `name` suggests, in the Python package's
  /// spelling: "; did you mean 'tile.exp'?", "; the language has no 'relu':
  /// write tile.max(x, 0.0)", or "".
  static std::string suggestBuiltin(StringRef name);

  //===--- Statements -----------------------------------------------------===//

  /// `var name[: type] [= init]`. `depth` (at most the current depth, the
  /// blocks open inside the kernel) declares it in an enclosing block,
  /// before the statement there that holds the current position.
  LogicalResult
  declareVar(StringRef name, Pos pos,
             std::optional<std::pair<std::string, std::vector<int64_t>>> type,
             std::optional<ValueId> init, Pos typePos, unsigned depth);
  /// The var `name` (declared): in shared memory on request, or a ring of
  /// `stages` shared tiles (declared without a value).
  LogicalResult setVarPlacement(StringRef name, bool shared,
                                std::optional<int64_t> stages, Pos pos);
  /// A var a statement reads, writes or copies: a declared var by name, or
  /// with `rotation`, stage `(rotation + stage) mod S` of the ring `name`.
  struct VarRef {
    std::string name;
    Pos pos;
    std::optional<ValueId> rotation;
    int64_t stage = 0;
  };
  FailureOr<ValueId> readVar(const VarRef &var, Pos pos);
  LogicalResult writeVar(const VarRef &var, ValueId value, Pos pos);
  /// `var[indices] [op]= value`: a part of a tile var (a sub-tile or one
  /// element, constant indices as `index` takes them) replaced,
  /// `tile.insert_slice` of the var's value written back; `whole` is the
  /// var's value read (`readVar`) when the caller read it already.
  LogicalResult assignPart(const VarRef &var, ArrayRef<Index> indices,
                           StringRef op, Pos opPos, ValueId value, Pos pos,
                           std::optional<ValueId> whole = std::nullopt);
  /// One side of a copy: a tensor parameter (by name) or a var, and the
  /// box's offsets in it (none for a whole var: zeros).
  struct CopySide {
    VarRef ref;
    std::vector<ValueId> offsets;
  };
  /// `tile.copy`: the box of `shape` from `source` to `dest`, `width`
  /// elements a thread at a time, only where `mask` is true.
  LogicalResult copy(const CopySide &source, const CopySide &dest,
                     ArrayRef<int64_t> shape, int64_t width,
                     std::optional<ValueId> mask, bool async, Pos pos);
  /// A barrier the author asked for (`tile.barrier {requested}`).
  void barrier(Pos pos);
  /// `name [op]= value` ("+", "-", "*", "/" for op=).
  LogicalResult assign(StringRef name, Pos namePos, StringRef op, Pos opPos,
                       ValueId value, Pos pos);
  /// A slice `tensor[ranges]` as an assignment target, emitted (its
  /// offsets) before the value stored to it, as the .tile front end does;
  /// then loaded (for `op=`) and stored to.
  using SliceId = unsigned;
  FailureOr<SliceId> prepareSlice(StringRef tensor, Pos tensorPos,
                                  ArrayRef<Range> ranges, Pos pos);
  FailureOr<ValueId> loadSlice(SliceId slice, Pos pos);
  /// `slice = value`.
  LogicalResult storeSlice(SliceId slice, ValueId value, Pos pos);

  //===--- Control flow ---------------------------------------------------===//

  /// `for index in range(lower, upper[, step])`: the builder in the body,
  /// the index a name there until the body ends.
  FailureOr<ValueId> beginFor(StringRef index, Pos indexPos, ValueId lower,
                              ValueId upper, std::optional<ValueId> step,
                              Pos pos);
  /// `if condition`: the builder in the then-block.
  LogicalResult beginIf(ValueId condition, bool hasElse, Pos pos);
  /// The builder in the else-block of the innermost if.
  void beginElse();
  /// `while`: the builder where the condition is evaluated, anew before
  /// each iteration; then `beginWhileBody` with it.
  void beginWhile(Pos pos);
  LogicalResult beginWhileBody(ValueId condition, Pos pos);
  /// Ends the innermost for, if or while body.
  void endBlock();
  /// Blocks open in the kernel body.
  unsigned getDepth() const;

  //===--- Attribute expressions
  //-------------------------------------------===//

  ExprId exprInt(int64_t value, Pos pos);
  ExprId exprFloat(double value, Pos pos);
  ExprId exprBool(bool value, Pos pos);
  ExprId exprName(StringRef name, Pos pos);
  ExprId exprUnary(StringRef op, ExprId operand, Pos pos);
  ExprId exprBinary(StringRef op, ExprId lhs, ExprId rhs, Pos pos);
  ExprId exprCall(StringRef callee, ArrayRef<ExprId> args, Pos pos);

private:
  /// The var a VarRef names: the var itself, or a tile.stage of its ring.
  FailureOr<Value> resolve(const VarRef &ref);

  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::tile

#endif // TILE_FRONTEND_KERNELBUILDER_H
