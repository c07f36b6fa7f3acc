//===- KernelLowering.h - one tile.kernel to per-thread gpu code ----------===//
//
// The lowering walks a kernel's ops in order and emits, for each, the code
// one thread runs for its elements. Its files split it by op family:
// KernelLowering.cpp (driver, elementwise, context, control flow),
// LowerMemory.cpp (slices, vars), LowerCrossThread.cpp (reductions, the
// SIMT dot, broadcast), LowerTensorCores.cpp (dots on tensor cores),
// LowerLayouts.cpp (layout conversions), LowerLanguage.cpp (iota,
// indexing, gathers, atomics), LowerCopy.cpp (copies, ring stages, async
// copies). What every family needs, the builder at the op being lowered,
// this thread's id and the tiles lowered so far, is a LoweringContext.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_KERNELLOWERING_H
#define TILE_LIB_CONVERSION_TILETOGPU_KERNELLOWERING_H

#include "tile/Analysis/Divisibility.h"
#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::scf {
class ForOp;
class IfOp;
class WhileOp;
} // namespace mlir::scf

namespace mlir::tile {

/// Where the elements of a tile value are, in the vector of one thread.
enum class Layout {
  /// Slot k of thread t holds what the value's layout (getLayout, a
  /// #tile.blocked) says: seed 000's element t + k * threads, or a run.
  Owner,
  /// The result of a row reduction where its input lives, or a conversion
  /// to a #tile.rows layout: slot g of every thread holds the result of the
  /// row of the g-th row group of the parent layout (`rows`), so every
  /// thread that holds an element of a row has the row's result.
  RowReplicated,
};

/// A reduction's running result: the value, and for an argmax its index
/// (i32).
using Partial = SmallVector<Value, 2>;

struct DistributedTile {
  Value slots; // vector<K x T>
  Layout layout = Layout::Owner;
  RowsLayoutAttr rows; // for RowReplicated
};

/// A global tensor parameter inside the gpu.func.
struct GlobalTensor {
  Value pointer;           // !llvm.ptr<1>
  SmallVector<Value> dims; // index values
  GlobalTensorType type;
};

/// What the lowering of every op family shares: the kernel, the builder at
/// the op being lowered, this thread's id, the tiles and scalars lowered so
/// far, and the helpers that need nothing more.
class LoweringContext {
public:
  LoweringContext(KernelOp kernel, gpu::GPUFuncOp func);

  /// The slots of one thread of a tile of `tileType`, and their vector.
  int64_t getSlots(Type tileType) const;
  VectorType getSlotsType(RankedTensorType type) const;
  /// The vector of slots of `tile` in its own layout (getLayout): a
  /// #tile.rows layout holds a slot per row group of its parent.
  VectorType getSlotsType(Value tile) const;
  Value constantIndex(int64_t value);
  Value zero(Type type);
  /// `slots` with the elements of the vector `run` in slots `first` on.
  Value insertRun(Value slots, Value run, int64_t first);

  /// The lowered form of the tile `value` that `user` uses; an error when
  /// it has none, or with `requireOwner` when it is not in its owners.
  FailureOr<DistributedTile> lookupTile(Operation *user, Value value,
                                        bool requireOwner = true);
  Value lookupScalar(Value value) { return scalars.lookupOrDefault(value); }
  void mapTile(Value from, Value slots, Layout layout = Layout::Owner,
               RowsLayoutAttr rows = {});

  KernelOp kernel;
  gpu::GPUFuncOp func;
  OpBuilder builder;
  Location loc;
  int64_t threads;
  Value threadId;
  IRMapping scalars;
  DenseMap<Value, DistributedTile> tiles;
};

/// A dot on tensor cores (#tile.mma; LowerTensorCores.cpp): mma.sync into
/// its accumulator's fragments, of its operands read from `lhs` and `rhs`,
/// their shared views.
LogicalResult lowerDotOnTensorCores(LoweringContext &context, DotOp op,
                                    MmaLayoutAttr layout, Value lhs, Value rhs);
/// A dot on wgmma (`on wgmma`, sm_90; LowerWgmma.cpp): a warpgroup's
/// wgmma.mma_async per 16 of K from the swizzled shared vars `lhs` and
/// `rhs` views, into the accumulator's fragments.
LogicalResult lowerDotOnWgmma(LoweringContext &context, DotOp op,
                              MmaLayoutAttr layout, Value lhs, Value rhs);

/// The f32 `value` rounded to tf32 as a dot of precision tf32 takes it
/// (LowerCrossThread.cpp).
Value roundToTF32(OpBuilder &builder, Location loc, Value value);

/// The lowering of one kernel: the walk, and the op families that are not
/// classes of their own.
class KernelLowering : LoweringContext {
public:
  KernelLowering(KernelOp kernel, gpu::GPUFuncOp func);

  /// Emits the body of `func`. Fails with an error at the offending op.
  LogicalResult run();

  /// Threads a shuffle exchanges among: a warp.
  static constexpr int64_t kWarpSize = kLanes;

private:
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerContext(Operation *op);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerIf(scf::IfOp op);
  LogicalResult lowerWhile(scf::WhileOp op);
  /// A tile type as one thread's vector of slots; other types unchanged.
  Type lowerType(Type type) const;
  /// The same for a value, whose layout (getLayout) sets its slot count.
  Type lowerType(Value value) const;
  /// The lowered `values`: tiles (in their owners' layout) become their
  /// thread's vector, scalars their lowered value.
  FailureOr<SmallVector<Value>> lowerValues(Operation *user, ValueRange values);
  /// Records that `to` stands for `from` in the lowered code.
  void mapValues(ValueRange from, ValueRange to);
  /// Lowers `from` into `to`, whose block arguments stand for `from`'s;
  /// the terminator is rebuilt by `terminate` with its mapped operands.
  LogicalResult
  lowerRegion(Region &from, Block &to,
              function_ref<void(Operation *, ValueRange)> terminate);

  // LowerMemory.cpp
  LogicalResult createStorage();
  /// Fails at the first op whose tile is too large for one thread's code.
  LogicalResult checkSlots();
  LogicalResult lowerLoad(LoadOp op);
  LogicalResult lowerStore(StoreOp op);
  LogicalResult lowerVar(VarOp op);
  LogicalResult lowerRead(ReadOp op);
  LogicalResult lowerWrite(WriteOp op);
  LogicalResult storeToVar(Operation *op, Value var, Value value);
  Value globalAddress(const GlobalTensor &tensor, ArrayRef<Value> coords);
  /// The condition for `index` to fall inside a dimension of `size`.
  Value insideDimension(Value index, Value size);
  /// The global coordinates of the element at `local` of a slice of `type`
  /// at `offsets`, and the condition (`inside`, and within the tensor when
  /// `checkBounds`) for a thread to touch it; null when that always holds.
  std::pair<SmallVector<Value>, Value>
  sliceElement(ValueRange offsets, RankedTensorType type,
               const GlobalTensor &tensor, ArrayRef<Value> local, Value inside,
               bool checkBounds);
  /// The condition for a whole slice of `type` at `offsets` to be inside
  /// the tensor; null when it is known to be.
  Value sliceInside(ValueRange offsets, RankedTensorType type,
                    const GlobalTensor &tensor);
  /// `body` with every element's bounds checked and, where `whole` (a
  /// slice's sliceInside) is not null, `body` without the checks, chosen
  /// by an scf.if on `whole`: an interior slice, every slice but the last
  /// of a loop over a large tensor, skips the per-element checks. `type`
  /// is the result's, or null for none.
  Value versioned(Value whole, Type type,
                  function_ref<Value(bool checkBounds)> body);

  // LowerCopy.cpp
  LogicalResult lowerStage(StageOp op);
  LogicalResult lowerCopy(CopyOp op);
  LogicalResult lowerAsyncCopy(CopyOp op);
  LogicalResult lowerAsyncGroupOp(Operation *op);
  /// The condition for every `width`-element chunk of a box at `offsets`
  /// of a global tensor to start on a multiple of `width * bytes`; null
  /// for chunks of one element.
  Value chunkAligned(Value tensor, ValueRange offsets, int64_t width,
                     int64_t bytes);
  /// The chunk a thread moves in one round of a copy: its box coordinates
  /// and the index of its first element in the box.
  struct Chunk {
    int64_t round;
    Value first;
    SmallVector<Value> coords;
  };
  /// Runs `body` for each chunk of `width` elements of `box` this thread
  /// moves (chunk c in thread c % threads).
  void forEachChunk(RankedTensorType box, int64_t width,
                    function_ref<void(const Chunk &)> body);
  /// `fast` where `condition` (a uniform test) holds, else `checked`.
  void fastOrChecked(Value condition, function_ref<void()> fast,
                     function_ref<void()> checked);
  /// The index into the view of the var `handle` of box element `coords`
  /// of a box at `offsets` of it.
  Value boxVarIndex(Value handle, ValueRange offsets, ArrayRef<Value> coords);

  // LowerCrossThread.cpp
  LogicalResult lowerReduction(ReductionOpInterface op);
  /// colsum, colmax, colmin: in each thread (ReductionStrategy::InThread)
  /// or from shared memory, a thread per column.
  LogicalResult lowerColumnReduction(ReductionOpInterface op);
  LogicalResult lowerDot(DotOp op);
  LogicalResult lowerBroadcast(BroadcastOp op);
  LogicalResult lowerSplat(SplatOp op);
  LogicalResult lowerReshape(ReshapeOp op);
  /// A reduction where the input lives (`plan`): each thread combines the
  /// slots of each row group, a butterfly over the plan's lanes, and with
  /// several parts a row's partials through `scratch` (an [R, parts] shared
  /// view) and a barrier. The result is in `rows`'s slots.
  Value reduceInPlace(ReductionKind kind, Value slots, RankedTensorType type,
                      const RowReductionPlan &plan, RowsLayoutAttr rows,
                      Value scratch);
  /// The slots of `rows` from the results of each group of `plan`.
  Value toRowSlots(ArrayRef<Value> results, const RowReductionPlan &plan,
                   RowsLayoutAttr rows, RankedTensorType type);
  /// The slots of `rows` (one per row group) expanded to its parent's: each
  /// parent slot gets its row's result.
  Value expandRows(Value slots, RowsLayoutAttr rows, RankedTensorType type);
  /// Slot i of the result is slot `sources[i]` of `slots`.
  Value permuteSlots(Value slots, ArrayRef<int64_t> sources);

  LogicalResult lowerTranspose(TransposeOp op);

  // LowerLayouts.cpp
  LogicalResult lowerConvertLayout(ConvertLayoutOp op);
  /// `value` combined over the lanes that differ from this one in the bits
  /// of `laneMask` with xor shuffles: every one of them ends with the result.
  Partial butterfly(ReductionKind kind, Partial value, int64_t laneMask);
  Value butterfly(ReductionKind kind, Value value, int64_t laneMask) {
    return butterfly(kind, Partial{value}, laneMask)[0];
  }
  /// The shared view a cross-thread reader reads `operand` from.
  FailureOr<Value> sharedViewOf(Operation *user, Value operand);

  // LowerLanguage.cpp
  LogicalResult lowerIota(IotaOp op);
  LogicalResult lowerExtract(ExtractOp op);
  LogicalResult lowerExtractSlice(ExtractSliceOp op);
  LogicalResult lowerInsertSlice(InsertSliceOp op);
  /// A gather (`stored` null; returns the tile's slots), a scatter of
  /// `stored` under `mask`, or with `atomic` an atomic update by it: per
  /// slot, the element's coordinates from the offsets, its position and
  /// the index tiles, each checked against the tensor.
  FailureOr<Value> lowerIndexedAccess(Operation *op, Value tensor,
                                      ValueRange offsets, ValueRange indices,
                                      ArrayRef<int64_t> indexDims,
                                      RankedTensorType type, Value other,
                                      Value stored, Value mask,
                                      std::optional<AtomicKind> atomic = {});
  /// The coordinates in its tensor of the element of slot `slot` (at
  /// `local` in the tile) of the indexed access `op`, with the offsets
  /// added and the index tiles read (broadcastElement), and `inside` and
  /// each coordinate being inside the tensor.
  FailureOr<std::pair<SmallVector<Value>, Value>>
  indexedElement(Operation *op, const GlobalTensor &tensor, ValueRange offsets,
                 ValueRange indices, ArrayRef<int64_t> indexDims,
                 RankedTensorType type, int64_t slot, ArrayRef<Value> local,
                 Value valid, Value inside);
  /// A gather: element by element (lowerIndexedAccess), or, where its
  /// layout has runs, a vector load a run where the runs are aligned.
  LogicalResult lowerGather(GatherOp op);
  /// Element `coords` of the tile `tile` broadcast to `shape`, in this
  /// thread: its own slot `slot` when the shapes agree, else from the
  /// shared var `user` reads it in.
  FailureOr<Value> broadcastElement(Operation *user, Value tile,
                                    ArrayRef<int64_t> shape, int64_t slot,
                                    ArrayRef<Value> coords, Value valid);
  /// Numbers the lowered stores of each tile.scatter for the emulator.
  int64_t nextScatterId = 0;

  // Per-thread element arithmetic.
  // What a layout answers (LayoutAttrInterface), in this thread: these
  // ask the layout and compute nothing themselves.
  /// The index of the element slot `slot` of this thread holds, in a tile
  /// whose layout has runs of `vector` elements a thread (#tile.blocked's
  /// emitSlotLinearIndex).
  Value elementIndex(int64_t slot, int64_t run = 1);
  /// Whether slot `slot` holds an element of a tile of `numElements` in
  /// seed 000's distribution (its emitSlotValid; null when every thread's
  /// slot does).
  Value slotIsValid(int64_t numElements, int64_t slot);
  /// The element index to address memory with: `element` where `valid`,
  /// else 0, so that no thread touches bytes outside a buffer.
  Value safeIndex(Value element, Value valid);
  SmallVector<Value> delinearize(Value element, ArrayRef<int64_t> shape);
  /// The coordinates, in a tile of `shape` laid out in runs of `run`
  /// (#tile.blocked), of the element this thread holds in slot `slot`
  /// (which may be past the end of the tile).
  SmallVector<Value> slotCoordinates(int64_t slot, ArrayRef<int64_t> shape,
                                     int64_t run = 1);
  /// The same for a tile of `layout` (getLayout): its emitSlotElement.
  SmallVector<Value> slotCoordinates(int64_t slot, ArrayRef<int64_t> shape,
                                     LayoutAttrInterface layout);
  /// The index, in the shared view of `var`, of the element of this
  /// thread's slot `slot` of a tile of `layout`: rows `columns + padding`
  /// apart (tile.padding).
  Value sharedIndex(VarOp var, int64_t slot, LayoutAttrInterface layout);
  /// The index, in the shared view of a var in wgmma's swizzle
  /// (`tile.swizzle`), of its element `coords` (getSwizzledIndex).
  Value swizzledIndex(VarOp var, ArrayRef<Value> coords);
  /// The run length of `tile`'s layout (the encoding of its type), 1 in
  /// the cyclic distribution.
  static int64_t getVector(Value tile);
  /// The condition for every run of `vector` elements of a slice of `type`
  /// at `offsets` to start `vector` elements aligned in its tensor (tensor
  /// base pointers are 16-byte aligned, docs/abi.md); null when it always
  /// holds. `alignment` says whether it is decided at compile time
  /// (DivisibilityInfo::getRunAlignment).
  Value runsAligned(ValueRange offsets, RankedTensorType type,
                    const GlobalTensor &tensor, int64_t run,
                    RunAlignment &alignment);
  /// A slice access of a tile whose layout has runs of `run` elements: by
  /// `runs(false)` (vectorAccess) where the slice is inside its tensor
  /// (`whole`) and its runs aligned, by `perElement(false)` where it is
  /// inside and they are not, else by `perElement(true)`; where the runs
  /// are known aligned, by `runs(true)` outside instead, each run checked
  /// once, and with `checkedOnly` by `runs(true)` everywhere: no test of
  /// the whole slice, no branch.
  Value withRuns(ValueRange offsets, RankedTensorType type,
                 const GlobalTensor &tensor, int64_t run, Value whole,
                 Type result, function_ref<Value(bool checkBounds)> perElement,
                 function_ref<Value(bool checkBounds)> runs,
                 bool checkedOnly = false);
  /// Loads (or, with `store`, stores) the slots of a slice of `type` at
  /// `offsets` a run of `vector` elements at a time; with `checkBounds`,
  /// only the runs inside the tensor (a load gives the others `outside`, or
  /// 0), which needs runs known aligned.
  Value vectorAccess(ValueRange offsets, RankedTensorType type,
                     const GlobalTensor &tensor, int64_t run, Value store = {},
                     bool checkBounds = false, Value outside = {});
  Value linearize(ArrayRef<Value> coords, ArrayRef<Value> dims);
  /// Conjunction of `a` and `b`, either of which may be null (true).
  Value both(Value a, Value b);
  /// Runs `body` where `condition` holds (always when null); `body` yields
  /// the value to use, or `otherwise` where the condition fails.
  Value guarded(Value condition, Type type, Value otherwise,
                function_ref<Value()> body);
  void guarded(Value condition, function_ref<void()> body);

  /// What divides the kernel's offsets and sizes (tile.divisibility).
  DivisibilityInfo divisibility;
  /// Whether the target has cp.async (sm_80 and newer); without it, an
  /// async copy is lowered as a plain one.
  bool asyncCopies;
  Value sharedBase; // memref<B x i8, workgroup>, or null without shared vars
  DenseMap<Value, GlobalTensor> globals;
  DenseMap<Value, Value> varStorage; // tile.var, tile.stage -> memref
  /// The byte offset in shared memory of each shared var and stage.
  DenseMap<Value, Value> sharedOffsets;
  /// The shared buffer as an !llvm.ptr<3>, for cp.async; null without one.
  Value sharedPointer;
};

} // namespace mlir::tile

#endif // TILE_LIB_CONVERSION_TILETOGPU_KERNELLOWERING_H
