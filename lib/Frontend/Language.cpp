//===- Language.cpp - the names the .tile language predefines -------------===//
//
// Signatures and summaries follow docs/spec.md ("Builtins", "Copies and
// pipelines", "Attributes", "Context"); FrontendTest checks that every
// builtin the emitter implements is here and nothing else is.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Language.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::tile;
using Kind = LanguageName::Kind;

static constexpr LanguageName kNames[] = {
    // Builtin functions.
    {Kind::Function, "rowsum", "rowsum(t)",
     "Sum of each row of a rank-2 tile [R, C]: a [R, 1] tile."},
    {Kind::Function, "rowmax", "rowmax(t)",
     "Maximum of each row of a rank-2 tile [R, C]: a [R, 1] tile."},
    {Kind::Function, "rowmin", "rowmin(t)",
     "Minimum of each row of a rank-2 tile [R, C]: a [R, 1] tile."},
    {Kind::Function, "rowargmax", "rowargmax(t)",
     "The first column of each row's maximum: an i32 [R, 1] tile."},
    {Kind::Function, "colsum", "colsum(t)",
     "Sum of each column of a rank-2 tile [R, C]: a [1, C] tile."},
    {Kind::Function, "colmax", "colmax(t)",
     "Maximum of each column of a rank-2 tile [R, C]: a [1, C] tile."},
    {Kind::Function, "colmin", "colmin(t)",
     "Minimum of each column of a rank-2 tile [R, C]: a [1, C] tile."},
    {Kind::Function, "dot", "dot(a, b, precision = P)",
     "Matrix product of [M, K] and [K, N] tiles, f32 for f16/bf16 operands; "
     "P is ieee (default) or tf32."},
    {Kind::Function, "transpose", "transpose(t)",
     "The [C, R] transpose of a rank-2 tile."},
    {Kind::Function, "exp", "exp(x)", "e^x of a float scalar or tile."},
    {Kind::Function, "exp2", "exp2(x)", "2^x of a float scalar or tile."},
    {Kind::Function, "log", "log(x)", "Natural logarithm."},
    {Kind::Function, "log2", "log2(x)", "Base-2 logarithm."},
    {Kind::Function, "sqrt", "sqrt(x)", "Square root."},
    {Kind::Function, "rsqrt", "rsqrt(x)", "1 / sqrt(x)."},
    {Kind::Function, "tanh", "tanh(x)", "Hyperbolic tangent."},
    {Kind::Function, "sin", "sin(x)", "Sine."},
    {Kind::Function, "cos", "cos(x)", "Cosine."},
    {Kind::Function, "floor", "floor(x)", "Rounds down to an integer value."},
    {Kind::Function, "ceil", "ceil(x)", "Rounds up to an integer value."},
    {Kind::Function, "erf", "erf(x)", "The error function."},
    {Kind::Function, "sigmoid", "sigmoid(x)", "1 / (1 + exp(-x))."},
    {Kind::Function, "pow", "pow(a, b)", "a^b of floats, broadcast."},
    {Kind::Function, "iota", "iota([R, C], axis)",
     "An i32 tile of the given constant shape counting along `axis`."},
    {Kind::Function, "reshape", "reshape(t, [R, C])",
     "The tile in another shape of as many elements."},
    {Kind::Function, "load", "load(X[...], other = v)",
     "A tensor slice; elements outside the tensor read as `other`."},
    {Kind::Function, "store", "store(Y[...], v, mask = m)",
     "Stores `v` to a tensor slice where the i1 mask is true (a statement)."},
    {Kind::Function, "abs", "abs(x)", "Absolute value of a float or i32."},
    {Kind::Function, "max", "max(a, b)", "Larger of two numbers, broadcast."},
    {Kind::Function, "min", "min(a, b)", "Smaller of two numbers, broadcast."},
    {Kind::Function, "where", "where(c, a, b)",
     "`a` where the i1 `c` is true, else `b`; all broadcast."},
    {Kind::Function, "cdiv", "cdiv(a, b)", "Integer division rounding up."},
    {Kind::Function, "atomic_add", "atomic_add(Y[...], v, mask = m)",
     "Atomically adds `v` to a tensor slice (a statement)."},
    {Kind::Function, "atomic_max", "atomic_max(Y[...], v, mask = m)",
     "Atomically takes the maximum into a tensor slice (a statement)."},
    {Kind::Function, "atomic_min", "atomic_min(Y[...], v, mask = m)",
     "Atomically takes the minimum into a tensor slice (a statement)."},
    // Data movement.
    {Kind::Statement, "copy",
     "copy(src, dst, count = N, src_offset = i, dst_offset = j, mask = m, "
     "width = w, async = true)",
     "The CTA's threads move a box of elements between a tensor and a "
     "shared tile (or two shared tiles)."},
    {Kind::Statement, "barrier", "barrier()",
     "Every thread of the CTA waits for the others."},
    {Kind::Statement, "advance", "advance(p)",
     "Turns a pipeline ring: stage(p, k) becomes what stage(p, k + 1) was."},
    {Kind::Statement, "commit_group", "commit_group()",
     "Closes the group of this thread's async copies since the last one."},
    {Kind::Statement, "wait_group", "wait_group(n)",
     "Waits until all but the n most recent groups of async copies landed."},
    {Kind::StageAccessor, "stage", "stage(p, k)",
     "Stage k (a constant below the ring's stages) of a pipeline ring."},
    {Kind::StageAccessor, "front", "front(p)", "stage(p, 0)."},
    {Kind::StageAccessor, "back", "back(p)", "stage(p, stages - 1)."},
    // Conversions.
    {Kind::Cast, "f32", "f32(x)", "Converts to f32."},
    {Kind::Cast, "f16", "f16(x)", "Converts to f16."},
    {Kind::Cast, "bf16", "bf16(x)", "Converts to bf16."},
    {Kind::Cast, "i32", "i32(x)", "Converts to i32."},
    {Kind::Cast, "index", "index(x)", "Converts to index."},
    // Kernel attributes.
    {Kind::Attribute, "launch", "@launch(N, grid = [g0, g1, g2])",
     "N threads per CTA (a multiple of 32 from 32 to 1024) and the grid, "
     "affine in the kernel's symbols."},
    {Kind::Attribute, "registers", "@registers(t, ...)",
     "Keeps each named tile var in per-thread registers, or is an error."},
    {Kind::Attribute, "pipeline", "@pipeline(n, ..., stages = S, shared = B)",
     "Loads the slices of loops over the named indices (or setting the "
     "named vars) S - 1 iterations ahead."},
    // Context fields.
    {Kind::ContextField, "thread", "ctx.thread",
     "This thread's index in the CTA (index)."},
    {Kind::ContextField, "threads", "ctx.threads",
     "The @launch thread count (index)."},
    {Kind::ContextField, "lanes", "ctx.lanes", "Lanes of a warp, 32 (index)."},
    {Kind::ContextField, "block.x", "ctx.block.x",
     "This CTA's index in the grid along x (index)."},
    {Kind::ContextField, "block.y", "ctx.block.y",
     "This CTA's index in the grid along y (index)."},
    {Kind::ContextField, "block.z", "ctx.block.z",
     "This CTA's index in the grid along z (index)."},
    {Kind::ContextField, "blocks.x", "ctx.blocks.x",
     "The grid size along x (index)."},
    {Kind::ContextField, "blocks.y", "ctx.blocks.y",
     "The grid size along y (index)."},
    {Kind::ContextField, "blocks.z", "ctx.blocks.z",
     "The grid size along z (index)."},
};

llvm::ArrayRef<LanguageName> mlir::tile::getLanguageNames() { return kNames; }

const LanguageName *mlir::tile::lookupLanguageName(LanguageName::Kind kind,
                                                   llvm::StringRef name) {
  for (const LanguageName &entry : kNames)
    if (entry.kind == kind && entry.name == name)
      return &entry;
  return nullptr;
}
