//===- Interpreter.h - one thread's walk over a lowered kernel --*- C++ -*-===//
//
// A thread is a resumable walk over the kernel's ops: its SSA values live in
// a table indexed by value number, and its position is a stack of frames
// (one per region it is in, with a loop's induction state), not the C++
// stack. So a thread stops at a barrier or a shuffle by simply returning,
// and the CTA scheduler (Emulator.cpp) resumes it later where it was.
//
// The interpreter is split by op family: Interpreter.cpp (the walk, scf,
// gpu ids, the kernel's preparation), ExecArith.cpp (arith, math),
// ExecMemory.cpp (memref, llvm pointers, vector, the bounds and race
// checks).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EMULATOR_INTERPRETER_H
#define TILE_LIB_EMULATOR_INTERPRETER_H

#include "BankConflicts.h"
#include "Shadow.h"
#include "Values.h"
#include "tile/Emulator/Emulator.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>

namespace mlir::tile::emulator {

/// The lanes a shuffle exchanges among.
constexpr int64_t kWarpSize = 32;

/// The ops a thread runs from their decoded form (Decode.cpp), by a
/// switch over slots resolved once per kernel; every other op (Generic)
/// runs from its Operation.
enum class Opcode : uint8_t {
  Generic,
  Copy, // a constant's slots
  AddI,
  SubI,
  MulI,
  AndI,
  OrI,
  XOrI,
  ShLI,
  ShRUI,
  ShRSI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  AddF,
  SubF,
  MulF,
  MaxNumF,
  MinNumF,
  MaximumF,
  MinimumF,
  FusedMultiplyAdd, // an addf or subf and the mulf fused into it
  CmpI,
  CmpF,
  Select,
  SignExtend,   // extsi, index_cast
  ZeroExtend,   // extui, trunci, index_castui, bitcast
  FloatConvert, // extf, truncf
  SignedToFloat,
  Extract, // vector.extract at a static position
  Insert,  // vector.insert at a static position
  Splat,   // vector.broadcast of a scalar
  DivUI,
  RemUI,
  CeilDivUI,
  DivSI,
  RemSI,
  FloorDivSI,
  CeilDivSI,
  GetElementPtr, // one index
  Load,          // llvm.load
};

/// One op, decoded: what it does, on which value numbers.
struct DecodedOp {
  Operation *op = nullptr;
  Opcode opcode = Opcode::Generic;
  /// Of the operands and of the result.
  ElementKind kind = ElementKind::Other, resultKind = ElementKind::Other;
  uint8_t bits = 0, resultBits = 0;
  /// CmpI and CmpF: the predicate.
  uint8_t predicate = 0;
  /// An arith op with an index result in a kernel of 32-bit indices.
  bool checkIndex = false;
  /// Insert: the destination has no use after this one, so its slots move
  /// into the result instead of being copied.
  bool reuseDestination = false;
  /// FusedMultiplyAdd (operands: the factors, then the addend).
  bool negateProduct = false, negateAddend = false;
  /// Slots of the result.
  uint32_t count = 1;
  uint32_t result = 0;
  uint32_t operands[3] = {0, 0, 0};
  /// Extract and Insert: the slots of the part. GetElementPtr: a constant
  /// index (with constantIndex) and the element's bytes.
  int64_t first = 0, span = 0;
  bool constantIndex = false;
  /// Load: the access's alignment attribute.
  std::optional<uint64_t> alignment;
  /// Copy: the constant's slots.
  const Slots *constant = nullptr;
};

/// What the emulator knows about a kernel before it runs any thread; shared
/// by every thread.
struct Program {
  gpu::GPUFuncOp func;
  std::array<int64_t, 3> blockSize = {1, 1, 1};
  /// Every SSA value of the kernel, numbered, so a thread's values are a
  /// flat table.
  DenseMap<Value, unsigned> valueIds;
  /// Constants decoded once, not once per thread.
  DenseMap<Operation *, Slots> constants;
  /// Per-thread memory: each memref.alloca, numbered, with its bytes.
  DenseMap<Operation *, unsigned> allocaIds;
  SmallVector<int64_t> allocaBytes;
  /// Bytes of each shared memory: the workgroup attributions, then the
  /// dynamic shared memory when the kernel uses it.
  SmallVector<int64_t> sharedBytes;
  /// The kernel's parameters (pointers and scalars) and symbols (i64),
  /// which follow them: how many of each the buffers of a launch say.
  unsigned numArguments = 0;
  /// The width of `index` in the code the GPU runs (the gpu.module's data
  /// layout: 32 where tile-to-gpu narrowed it, else 64). Values are kept in
  /// 64 bits, and an index result outside 32 bits is an error where the GPU
  /// would wrap.
  unsigned indexBits = 64;
  /// The ops that access global memory, numbered for the race records
  /// (Shadow.h: at most 65535).
  DenseMap<Operation *, uint32_t> globalAccessIds;
  SmallVector<Operation *> globalAccessOps;

  /// With --fp-contract, an addf or subf the GPU computes as one fused
  /// multiply-add: the mulf whose product it takes, and which operand that
  /// is (FloatModel.cpp).
  struct FusedProduct {
    Operation *multiply = nullptr;
    unsigned operand = 0;
  };
  DenseMap<Operation *, FusedProduct> fusedProducts;
  void findFusedProducts();
  /// Every block's ops, decoded (after the values, constants and fused
  /// products are known), in order.
  DenseMap<Block *, std::vector<DecodedOp>> decodedBlocks;
  void decode();
  const DecodedOp *decoded(Block &block) const {
    return decodedBlocks.find(&block)->second.data();
  }

  /// The kernel has wgmma ops: shared writes are tracked for them.
  bool usesWgmma = false;

  /// Checks the kernel's signature and decodes what it can up front; errors
  /// at the kernel or at an op it cannot run.
  static FailureOr<Program> prepare(gpu::GPUFuncOp func,
                                    const EmulatorOptions &options);
  int64_t threadsPerBlock() const {
    return blockSize[0] * blockSize[1] * blockSize[2];
  }
};

/// A thread runs until it waits: at a barrier, or at a warp-synchronous op
/// (a shuffle, ldmatrix, mma.sync) that completes when its warp's lanes
/// are all there.
enum class ThreadStatus {
  Running,
  AtBarrier,
  AtWarpOp,
  /// At a `.sync.aligned` op of a warpgroup (wgmma), which completes when
  /// the 128 threads of the warpgroup are all there.
  AtWarpgroupOp,
  Exited
};

/// Where a thread is: in `block` of the region of `owner` (decoded from
/// `first`), about to run `next`. An scf.for frame also holds its induction
/// variable and bounds.
struct Frame {
  Operation *owner;
  Block *block;
  const DecodedOp *first, *next;
  int64_t inductionVar = 0, upperBound = 0, step = 0;
};

struct Thread {
  std::array<int64_t, 3> id = {0, 0, 0};
  /// This thread's cp.async copies not yet complete (indices into
  /// CTA::asyncCopies): those of the group being formed, and the committed
  /// groups, oldest first.
  SmallVector<uint32_t> openCopies;
  std::deque<SmallVector<uint32_t>> committedCopies;
  unsigned linearId = 0;
  std::vector<Slots> values;
  SmallVector<Frame, 8> frames;
  ThreadStatus status = ThreadStatus::Running;
  /// The barrier or warp-synchronous op the thread waits at.
  Operation *waitingAt = nullptr;
  uint64_t steps = 0;
  std::vector<std::vector<uint8_t>> privateMemory;
  /// The tile.scatter whose stores the thread is in (its number, and the
  /// slot of the last one: a slot not above it starts the next scatter)
  /// and the tensor elements they wrote, with the store of each.
  int64_t scatterNumber = -1, scatterSlot = -1;
  SmallVector<std::pair<Address, Operation *>> scatterWrites;
  /// How many times the thread has run each op that accesses shared
  /// memory: the k-th of every lane of a warp is one warp-wide request.
  DenseMap<Operation *, uint32_t> sharedInstances;
  /// The accumulators of wgmma.mma_asyncs no wgmma.wait_group covers yet:
  /// value number -> the wgmma (index into CTA::wgmmas). Only the next
  /// mma_async may take one (ExecWgmma.cpp).
  DenseMap<unsigned, uint32_t> pendingAccumulators;
};

/// How a thread touches memory. Two accesses from different threads (with
/// no barrier between) or from different CTAs race unless both only read
/// or both are atomic.
enum class AccessKind : uint8_t { Read, Write, Atomic };
inline bool racesWith(AccessKind a, AccessKind b) {
  return !(a == AccessKind::Read && b == AccessKind::Read) &&
         !(a == AccessKind::Atomic && b == AccessKind::Atomic);
}
const char *accessName(AccessKind kind);

/// The sides of an access history: the last write, the last atomic
/// access, and two distinct readers, so a writer always finds a reader
/// other than itself.
enum class AccessSlot : uint8_t { Write, Atomic, FirstReader, SecondReader };

/// Who last wrote a shared byte, and who read it, since the last barrier
/// (an epoch): enough to name both sides of a race.
struct ByteAccesses {
  static constexpr uint32_t kNone = ~0u;
  uint32_t writeEpoch = 0, writer = kNone;
  uint32_t readEpoch = 0, readers[2] = {kNone, kNone};
  uint32_t atomicEpoch = 0, atomicThread = kNone;
  Operation *writeOp = nullptr, *readOps[2] = {nullptr, nullptr},
            *atomicOp = nullptr;
};

/// A cp.async in flight: it may land at any time until a wait of its
/// thread covers its group, so until then no thread may touch its
/// destination bytes, nor write its source bytes.
struct AsyncCopy {
  Operation *op = nullptr;
  uint32_t thread = 0;
  Address dest, source;
  /// Bytes written, and bytes read from the source (the rest zero-filled).
  int64_t size = 0, sourceSize = 0;
  /// A store that stands for part of an async copy (tile.async_copy): its
  /// bytes are in place already, and it has no source.
  bool stored = false;
};

/// A wgmma.mma_async of a warpgroup: in flight until a wait_group of its
/// warpgroup covers its group; it may read its shared operands until then.
struct Wgmma {
  Operation *op = nullptr;
  uint32_t warpgroup = 0;
  /// The shared bytes it reads (each element's first byte and size).
  SmallVector<std::pair<int64_t, int64_t>> reads;
  bool inFlight = true;
};

/// The wgmma state of a warpgroup (ExecWgmma.cpp).
struct Warpgroup {
  /// A wgmma.fence since the last wait_group: the mma_asyncs may start.
  bool fenced = false;
  /// Its mma_asyncs since the last commit_group, and the committed groups
  /// not yet waited for, oldest first (indices into CTA::wgmmas).
  SmallVector<uint32_t> open;
  std::deque<SmallVector<uint32_t>> committed;
};

/// The state of the CTA being run, and what outlives it: the accesses of
/// CTAs to global memory, the races found, whether the kernel faulted.
struct CTA {
  std::array<int64_t, 3> blockId = {0, 0, 0};
  /// The CTA's linear number in the grid (x fastest).
  uint32_t linearId = 0;
  std::vector<std::vector<uint8_t>> shared;
  std::vector<std::vector<ByteAccesses>> sharedAccesses;
  /// The accesses of this CTA's threads to elements of global tensors
  /// since its last barrier (a barrier orders global memory within a CTA
  /// too); released at each barrier.
  PagedShadow<ElementAccesses> globalAccesses;
  /// The accesses of all CTAs so far to elements of global tensors (none
  /// for a grid of one CTA). CTAs run one after another, so when CTA c
  /// finds another CTA's access of a kind, it is the first one, and when
  /// the first is c itself, no other CTA made one.
  PagedShadow<CrossCTAAccesses> crossCTAAccesses;
  /// Advanced at every barrier and every new CTA.
  uint32_t epoch = 0;
  /// Every cp.async of the CTA so far, and per shared byte (per global
  /// byte of a source) the one in flight that writes (reads) it, plus 1.
  std::vector<AsyncCopy> asyncCopies;
  std::vector<std::vector<uint32_t>> sharedInFlight;
  llvm::DenseMap<std::pair<uint32_t, int64_t>, uint32_t> sourcesInFlight;
  /// Races reported, by the pair of ops, so each is reported once.
  llvm::DenseSet<std::pair<Operation *, Operation *>> racesReported;
  unsigned racesFound = 0;
  /// A check of the kernel failed (as opposed to an op the emulator does
  /// not support).
  bool faulted = false;
  /// With EmulatorOptions::countBankConflicts.
  std::optional<BankConflictCounter> bankConflicts;
  /// wgmma (ExecWgmma.cpp): every mma_async of the CTA so far, each
  /// warpgroup's groups, and per byte of shared memory 0 how many in-flight
  /// mma_asyncs read it.
  std::vector<Wgmma> wgmmas;
  std::vector<Warpgroup> warpgroups;
  std::vector<uint16_t> wgmmaReaders;
  /// The async proxy sees a generic-proxy write to shared memory (a store,
  /// a cp.async) only after a fence.proxy.async that follows it: each
  /// shared byte of memory 0 holds the proxy epoch of its last generic
  /// write, and the epochs below `proxyFencedBelow` are fenced.
  std::vector<uint32_t> genericWriteEpoch;
  std::vector<Operation *> genericWriter;
  uint32_t proxyEpoch = 1, proxyFencedBelow = 1;
};

/// Everything a launch runs on.
struct Launch {
  const Program &program;
  ArrayRef<EmulatedBuffer> buffers;
  ArrayRef<int64_t> symbols;
  std::array<int64_t, 3> grid;
  const EmulatorOptions &options;
};

class Interpreter {
public:
  Interpreter(const Launch &launch, CTA &cta) : launch(launch), cta(cta) {}

  /// Places `thread` at the kernel's entry with its arguments bound.
  void start(Thread &thread);
  /// Runs `thread` until it waits at a barrier or a warp-synchronous op,
  /// exits, or fails (an error emitted).
  LogicalResult run(Thread &thread);
  /// Completes the warp-level matrix op `op` (nvgpu.ldmatrix,
  /// nvgpu.mma.sync) that the 32 `lanes` of a warp, in lane order, wait
  /// at (ExecMatrix.cpp).
  LogicalResult completeMatrixOp(Operation *op, ArrayRef<Thread *> lanes);
  /// Completes the wgmma op `op` that the 128 `threads` of warpgroup
  /// `warpgroup`, in order, wait at (ExecWgmma.cpp).
  LogicalResult completeWarpgroupOp(Operation *op, unsigned warpgroup,
                                    ArrayRef<Thread *> threads);
  /// Resets the CTA's wgmma state for a new CTA.
  void resetWgmma();

  /// An error at `op` that names the thread: "emulate: <message> (block
  /// (x, y, z), thread (x, y, z))"; notes may be attached. It is a fault of
  /// the kernel: a check failed.
  InFlightDiagnostic report(Operation *op, const Thread &thread,
                            const Twine &message) const;
  /// "block (x, y, z)" of the CTA numbered `linearId` in the grid.
  std::string describeBlock(uint32_t linearId) const;
  /// "thread (x, y, z)" of the thread numbered `linearId` in its CTA.
  std::string describeThread(unsigned linearId) const;

private:
  LogicalResult execute(Operation *op);
  /// Runs an op decoded as other than Generic (ExecArith.cpp).
  LogicalResult executeDecoded(const DecodedOp &op);
  // Interpreter.cpp
  LogicalResult executeSCF(Operation *op);
  LogicalResult executeGPU(Operation *op);
  /// Leaves the region of the innermost frame with `yielded`.
  LogicalResult yield(Operation *op, ValueRange yielded);
  void enter(Operation *owner, Block &block, ArrayRef<Slots> arguments);
  // ExecArith.cpp
  LogicalResult executeArith(Operation *op);
  LogicalResult executeMath(Operation *op);
  // ExecAsync.cpp
  LogicalResult executeNVVM(Operation *op);
  // ExecWgmma.cpp
  LogicalResult executeWgmma(Operation *op);
  LogicalResult issueMmaAsync(Operation *op, unsigned warpgroup,
                              ArrayRef<Thread *> threads);
  LogicalResult waitWgmmaGroups(Operation *op, unsigned warpgroup,
                                ArrayRef<Thread *> threads, int64_t pending);
  /// Fails when `op` reads the accumulator of an mma_async no wait covers.
  LogicalResult checkPendingAccumulators(Operation *op);
  /// For a `kind` access of `op` to shared `address`: a write must not
  /// touch the operands of an in-flight mma_async, and is recorded as the
  /// generic proxy's (unless `asyncProxy`).
  LogicalResult checkWgmmaOperands(Operation *op, Address address, int64_t size,
                                   AccessKind kind);
  LogicalResult executeStruct(Operation *op);
  // ExecMatrix.cpp
  LogicalResult executeNVGPU(Operation *op);
  LogicalResult completeLdMatrix(Operation *op, ArrayRef<Thread *> lanes);
  LogicalResult completeMmaSync(Operation *op, ArrayRef<Thread *> lanes);
  /// Lands this thread's async copies but those of its `pending` most
  /// recent committed groups (all of them, the open group too, when
  /// `pending` is negative: at its exit).
  LogicalResult completeAsyncCopies(Operation *op, int64_t pending);
  LogicalResult landAsyncCopy(uint32_t index);
  /// Holds the `size` bytes at `dest` that the store `op` of an async
  /// copy's element-wise part wrote in flight in the thread's open group.
  void holdAsyncStore(Operation *op, Address dest, int64_t size);
  /// Fails, with an error naming both ops, when a `kind` access of `op` to
  /// the `size` bytes at `address` touches a cp.async in flight: its
  /// destination, or for a write its source.
  LogicalResult checkInFlight(Operation *op, Address address, int64_t size,
                              AccessKind kind);
  // ExecMemory.cpp
  LogicalResult executeMemRef(Operation *op);
  LogicalResult executeLLVM(Operation *op);
  LogicalResult executeVector(Operation *op);
  /// The `size` bytes at `address`, or null after an error at `op` when
  /// they are not all inside their memory; records the access for the race
  /// checks, and a global write in its buffer's `written`.
  uint8_t *access(Operation *op, Address address, int64_t size,
                  AccessKind kind);
  /// Fails, with an error at `op`, when `address` is not a multiple of
  /// `alignment` (an access's `alignment` attribute).
  LogicalResult checkAlignment(Operation *op, Address address,
                               std::optional<uint64_t> alignment);
  /// Loads `result` from, or stores `value` to, `address` (none: an error
  /// was reported), checking its alignment and the access.
  LogicalResult loadSlots(Operation *op, Address address, ElementType element,
                          int64_t count, Slots &result,
                          std::optional<uint64_t> alignment);
  LogicalResult loadValue(Operation *op, std::optional<Address> address,
                          Value result,
                          std::optional<uint64_t> alignment = std::nullopt);
  LogicalResult storeValue(Operation *op, std::optional<Address> address,
                           Value value,
                           std::optional<uint64_t> alignment = std::nullopt);
  /// Records for the bank-conflict count this thread's `size`-byte access
  /// of `kind` at `address`, when it is in shared memory.
  void countSharedAccess(Operation *op, SharedAccessKind kind, Address address,
                         int64_t size);
  /// The same without recording an access; `what` names it in the error.
  uint8_t *checkBounds(Operation *op, Address address, int64_t size,
                       StringRef what);
  /// Records an access to the memory `history` tracks and reports a race
  /// with another thread's access since the last barrier; `where` names
  /// the memory. Fails when the run must stop: too many races.
  /// `History` is ByteAccesses (shared memory) or ElementAccesses (global;
  /// `opId` is op's number in Program::globalAccessOps).
  template <typename History>
  LogicalResult recordAccess(Operation *op, uint16_t opId, History &history,
                             AccessKind kind,
                             function_ref<std::string()> where);
  /// Records an access of this CTA to element `element` of global buffer
  /// `buffer` and reports a race with another CTA's.
  LogicalResult recordCrossCTAAccess(Operation *op, uint16_t opId,
                                     uint32_t buffer, int64_t element,
                                     AccessKind kind);
  /// For a store of a tile.scatter (marked kScatterAttr): reports, as a
  /// race, a second element of the same scatter of this thread written to
  /// `address`, which the first already wrote.
  LogicalResult checkScatterRepeat(Operation *op, Address address);
  /// Reports a race of `op` with `otherOp` of `other` (a thread of this
  /// CTA, or a CTA); fails when the run must stop: too many races.
  LogicalResult reportRace(Operation *op, Operation *otherOp,
                           const Twine &message, const Twine &note);
  /// The address of element `indices` of a memref, or none after an error
  /// when an index is outside its dimension.
  std::optional<Address> memrefElement(Operation *op, Value memref,
                                       ValueRange indices);

  /// An error at `op` for something the emulator does not support: not a
  /// fault of the kernel.
  LogicalResult unsupported(Operation *op, const Twine &what = {});
  /// Fails where an index value of `op` (a result, or a loop's next
  /// induction value `next`) leaves the kernel's 32-bit index.
  LogicalResult checkIndexWidth(Operation *op);
  LogicalResult checkIndexWidth(Operation *op, int64_t next);
  LogicalResult fail(Operation *op, const Twine &message) {
    (void)report(op, *thread, message);
    return failure();
  }
  const Slots &get(Value value) const {
    return thread->values[launch.program.valueIds.lookup(value)];
  }
  Slots &set(Value value) {
    return thread->values[launch.program.valueIds.lookup(value)];
  }

  const Launch &launch;
  CTA &cta;
  Thread *thread = nullptr;

public:
  /// Set while an async-proxy op (a bulk tensor copy) writes shared memory:
  /// such writes need no fence.proxy.async before a wgmma reads them.
  bool asyncProxy = false;
};

/// The GPU's float results where they are not the IEEE op's
/// (FloatModel.cpp): fma rounded once; div.full.f32; __nv_fast_expf.
uint64_t fusedMultiplyAdd(ElementKind kind, uint64_t a, uint64_t b, uint64_t c);
uint64_t negateFloat(ElementKind kind, uint64_t bits);
float divideFull(float dividend, float divisor);
float fastExp(float x);

/// Decodes an integer, float or dense vector attribute of `type` to slots.
FailureOr<Slots> decodeConstant(Attribute value, Type type);

} // namespace mlir::tile::emulator

#endif // TILE_LIB_EMULATOR_INTERPRETER_H
