//===- ExecWgmma.cpp - warpgroup MMA (wgmma), from the PTX ISA ------------===//
//
// Hopper's asynchronous warpgroup-level matrix multiply, modelled from the
// PTX ISA's chapter "Asynchronous Warpgroup Level Matrix Multiply-
// Accumulate Instructions" (the matrix descriptor, the canonical shared
// memory layouts, the register fragments of .m64nNk16 and .m64nNk8), as
// `nvvm.wgmma.*` carries them, not from the layouts tile-to-gpu computes:
// two derivations that must agree, which the emulate-against-interp check
// tests.
//
// * A warpgroup is 4 consecutive warps (threads 128 g to 128 g + 127). Its
//   ops are `.sync.aligned`: each completes when all 128 threads are at it
//   (Emulator.cpp reports one that is elsewhere).
// * `wgmma.fence` must come before the first mma_async and whenever the
//   registers it uses were touched since: the emulator asks for one since
//   the warpgroup's last wait_group.
// * `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}`
//   (and `.m64nNk8.f32.tf32.tf32`) computes D = A B + (scale-d ? D : 0),
//   A 64 x K and B K x N read from shared memory through two 64-bit
//   descriptors: start address, leading (LBO) and stride (SBO) byte
//   offsets (each encoded >> 4 in 14 bits), a base offset and the swizzle
//   (0 none, 1 128B, 2 64B, 3 32B). imm-trans-a/b (NVVM's layoutA = col,
//   layoutB = row) read the matrix MN-major, else K-major. With T the
//   elements in 16 bytes and W the swizzle's bytes, element (mn, k) lies
//   at (the ISA's canonical layouts):
//     K-major, none:     (mn % 8) 16 + (mn / 8) SBO + (k % T) e + (k / T) LBO
//     K-major, W:        (mn % 8) W + (mn / 8) SBO + k e
//     MN-major, none:    (mn % T) e + (mn / T) SBO + (k % 8) 16 + (k / 8) LBO
//     MN-major, W:       (mn % (W / e)) e + (mn / (W / e)) LBO + (k % 8) W
//                        + (k / 8) SBO
//   from the start address, e the element's bytes; then the swizzle XORs
//   the 16-byte chunk (address bits 4 up) with the 128-byte row (bits 7
//   up), over 3, 2 or 1 bits (Swizzle<3|2|1, 4, 3>).
// * The accumulator is a struct of N / 2 f32 a thread: thread t of the
//   warpgroup holds in d_i the element at row 16 (t / 32) + (t % 32) / 4 +
//   8 ((i / 2) % 2), column 8 (i / 4) + 2 (t % 4) + i % 2.
// * `wgmma.commit_group` closes the warpgroup's mma_asyncs since the last
//   one into a group; `wgmma.wait_group N` waits until at most N groups
//   are pending.
//
// The emulator computes an mma_async's result when the warpgroup issues
// it, and holds it until a wait_group covers it: each element of D is the
// exact sum of its products (exact in double) plus C's element, rounded
// once to f32, as ExecMatrix.cpp does for mma.sync. Until that wait, these
// are faults at the op: any op but the next mma_async taking the
// accumulator; a write to a shared byte the mma_async reads (it may read
// it at any time until then). And when it issues: a descriptor outside
// the kernel's shared memory; an operand byte written through the generic
// proxy (a store, a cp.async) with no `fence.proxy.async` since (the async
// proxy that wgmma reads through need not see it); a byte of a cp.async in
// flight; a write of another thread since the last barrier (a race).
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile::emulator;

namespace {
constexpr int64_t kWarpgroupSize = 4 * kWarpSize;

/// A matrix descriptor's fields, decoded.
struct MatrixDescriptor {
  int64_t start, leading, stride;
  unsigned baseOffset;
  /// The swizzle's bytes: 0 (none), 32, 64 or 128.
  int64_t swizzle;

  explicit MatrixDescriptor(uint64_t bits)
      : start((bits & 0x3fff) << 4), leading(((bits >> 16) & 0x3fff) << 4),
        stride(((bits >> 32) & 0x3fff) << 4),
        baseOffset(static_cast<unsigned>((bits >> 49) & 7)) {
    static constexpr int64_t kSwizzles[] = {0, 128, 64, 32};
    swizzle = kSwizzles[bits >> 62];
  }

  /// The byte address of element (mn, k) of a matrix of `bytes`-byte
  /// elements, read K-major or MN-major.
  int64_t address(int64_t mn, int64_t k, int64_t bytes, bool mnMajor) const {
    int64_t perChunk = 16 / bytes, offset;
    if (!mnMajor && swizzle == 0)
      offset = (mn % 8) * 16 + (mn / 8) * stride + (k % perChunk) * bytes +
               (k / perChunk) * leading;
    else if (!mnMajor)
      offset = (mn % 8) * swizzle + (mn / 8) * stride + k * bytes;
    else if (swizzle == 0)
      offset = (mn % perChunk) * bytes + (mn / perChunk) * stride +
               (k % 8) * 16 + (k / 8) * leading;
    else {
      int64_t perRow = swizzle / bytes;
      offset = (mn % perRow) * bytes + (mn / perRow) * leading +
               (k % 8) * swizzle + (k / 8) * stride;
    }
    int64_t address = start + offset;
    if (swizzle == 0)
      return address;
    int64_t mask = swizzle / 16 - 1;
    return address ^ (((address >> 7) & mask) << 4);
  }
};

/// The position of accumulator register `i` of thread `t` of a warpgroup.
std::pair<int64_t, int64_t> accumulatorPosition(int64_t t, int64_t i) {
  return {16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2),
          8 * (i / 4) + 2 * (t % 4) + i % 2};
}

StringRef typeName(NVVM::WGMMATypes type) {
  return NVVM::stringifyWGMMATypes(type);
}
} // namespace

void Interpreter::resetWgmma() {
  cta.wgmmas.clear();
  cta.warpgroups.assign(
      (launch.program.threadsPerBlock() + kWarpgroupSize - 1) / kWarpgroupSize,
      Warpgroup());
  cta.proxyEpoch = cta.proxyFencedBelow = 1;
  if (!launch.program.usesWgmma || launch.program.sharedBytes.size() != 1)
    return;
  size_t bytes = launch.program.sharedBytes.front();
  cta.wgmmaReaders.assign(bytes, 0);
  cta.genericWriteEpoch.assign(bytes, 0);
  cta.genericWriter.assign(bytes, nullptr);
}

LogicalResult Interpreter::executeWgmma(Operation *op) {
  if (auto fence = dyn_cast<NVVM::FenceProxyOp>(op)) {
    // Orders this thread's earlier generic-proxy accesses before its later
    // async-proxy ones; a barrier before it carries the other threads'
    // writes, so the emulator fences every write made so far.
    NVVM::ProxyKind kind = fence.getKind();
    if (kind == NVVM::ProxyKind::async ||
        kind == NVVM::ProxyKind::async_shared) {
      cta.proxyFencedBelow = cta.proxyEpoch + 1;
      ++cta.proxyEpoch;
    }
    return success();
  }
  thread->status = ThreadStatus::AtWarpgroupOp;
  thread->waitingAt = op;
  return success();
}

LogicalResult Interpreter::completeWarpgroupOp(Operation *op,
                                               unsigned warpgroup,
                                               ArrayRef<Thread *> threads) {
  thread = threads.front();
  Warpgroup &group = cta.warpgroups[warpgroup];
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](NVVM::WgmmaFenceAlignedOp) {
        group.fenced = true;
        return success();
      })
      .Case([&](NVVM::WgmmaGroupSyncAlignedOp) {
        group.committed.push_back(std::move(group.open));
        group.open.clear();
        return success();
      })
      .Case([&](NVVM::WgmmaWaitGroupSyncOp wait) {
        return waitWgmmaGroups(op, warpgroup, threads, wait.getGroup());
      })
      .Case([&](NVVM::WgmmaMmaAsyncOp) {
        return issueMmaAsync(op, warpgroup, threads);
      })
      .Default([&](Operation *) { return unsupported(op); });
}

LogicalResult Interpreter::waitWgmmaGroups(Operation *op, unsigned warpgroup,
                                           ArrayRef<Thread *> threads,
                                           int64_t pending) {
  Warpgroup &group = cta.warpgroups[warpgroup];
  group.fenced = false;
  while (static_cast<int64_t>(group.committed.size()) > pending) {
    for (uint32_t index : group.committed.front()) {
      Wgmma &wgmma = cta.wgmmas[index];
      wgmma.inFlight = false;
      for (auto [first, size] : wgmma.reads)
        for (int64_t byte = first; byte < first + size; ++byte)
          --cta.wgmmaReaders[byte];
      wgmma.reads = {};
      for (Thread *member : threads) {
        SmallVector<unsigned> landed;
        for (auto [value, wgmmaIndex] : member->pendingAccumulators)
          if (wgmmaIndex == index)
            landed.push_back(value);
        for (unsigned value : landed)
          member->pendingAccumulators.erase(value);
      }
    }
    group.committed.pop_front();
  }
  return success();
}

LogicalResult Interpreter::checkPendingAccumulators(Operation *op) {
  auto mma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op);
  for (OpOperand &operand : op->getOpOperands()) {
    // The next mma_async of the chain may take it: its issue orders them.
    if (mma && operand.get() == mma.getInouts())
      continue;
    auto pending = thread->pendingAccumulators.find(
        launch.program.valueIds.lookup(operand.get()));
    if (pending == thread->pendingAccumulators.end())
      continue;
    InFlightDiagnostic diagnostic =
        report(op, *thread,
               "read of the accumulator of a wgmma.mma_async still in "
               "flight: no wgmma.wait_group of its warpgroup covers it yet,");
    diagnostic.attachNote(cta.wgmmas[pending->second].op->getLoc())
        << "the wgmma.mma_async";
    return failure();
  }
  return success();
}

LogicalResult Interpreter::checkWgmmaOperands(Operation *op, Address address,
                                              int64_t size, AccessKind kind) {
  if (kind == AccessKind::Read || address.memory != 0 ||
      cta.wgmmaReaders.empty())
    return success();
  for (int64_t byte = address.offset; byte < address.offset + size; ++byte) {
    if (!cta.wgmmaReaders[byte])
      continue;
    const Wgmma *reader = nullptr;
    for (const Wgmma &wgmma : cta.wgmmas)
      if (wgmma.inFlight && llvm::any_of(wgmma.reads, [&](auto range) {
            return range.first <= byte && byte < range.first + range.second;
          }))
        reader = &wgmma;
    InFlightDiagnostic diagnostic = report(
        op, *thread,
        Twine(accessName(kind)) + " of byte " + Twine(byte) +
            " of shared memory, which a wgmma.mma_async in flight reads: no "
            "wgmma.wait_group of warpgroup " +
            Twine(reader ? reader->warpgroup : 0) + " covers it yet,");
    if (reader)
      diagnostic.attachNote(reader->op->getLoc()) << "the wgmma.mma_async";
    return failure();
  }
  if (!asyncProxy)
    for (int64_t byte = address.offset; byte < address.offset + size; ++byte) {
      cta.genericWriteEpoch[byte] = cta.proxyEpoch;
      cta.genericWriter[byte] = op;
    }
  return success();
}

LogicalResult Interpreter::issueMmaAsync(Operation *op, unsigned warpgroup,
                                         ArrayRef<Thread *> threads) {
  auto mma = cast<NVVM::WgmmaMmaAsyncOp>(op);
  Warpgroup &group = cta.warpgroups[warpgroup];
  int64_t m = mma.getShape().getM(), n = mma.getShape().getN(),
          k = mma.getShape().getK();
  NVVM::WGMMATypes typeA = mma.getTypeA(), typeB = mma.getTypeB();
  bool half =
      (typeA == NVVM::WGMMATypes::f16 || typeA == NVVM::WGMMATypes::bf16) &&
      typeB == typeA && k == 16;
  bool tf32 = typeA == NVVM::WGMMATypes::tf32 && typeB == typeA && k == 8;
  if (mma.getTypeD() != NVVM::WGMMATypes::f32 || m != 64 || n % 8 != 0 ||
      n < 8 || n > 256 || !(half || tf32))
    return unsupported(
        op, "wgmma.mma_async other than .m64nNk16 of f16/bf16 or .m64nNk8 "
            "of tf32, accumulated in f32, is not supported (here .m" +
                Twine(m) + "n" + Twine(n) + "k" + Twine(k) + "." +
                typeName(mma.getTypeD()) + "." + typeName(typeA) + "." +
                typeName(typeB) + ")");
  if (launch.program.sharedBytes.size() != 1)
    return unsupported(op, "wgmma.mma_async's descriptors address the "
                           "kernel's shared memory, which must be one buffer "
                           "(this kernel has " +
                               Twine(launch.program.sharedBytes.size()) + ")");
  if (!group.fenced)
    return fail(op, "wgmma.mma_async with no wgmma.fence since its "
                    "warpgroup's last wgmma.wait_group (the PTX ISA asks for "
                    "one before the first mma_async and whenever its "
                    "registers changed),");

  // The descriptors and the accumulator, the same in every thread.
  uint64_t bitsA = get(mma.getDescriptorA())[0];
  uint64_t bitsB = get(mma.getDescriptorB())[0];
  for (auto [index, member] : llvm::enumerate(threads)) {
    const Slots &a =
        member->values[launch.program.valueIds.lookup(mma.getDescriptorA())];
    const Slots &b =
        member->values[launch.program.valueIds.lookup(mma.getDescriptorB())];
    if (a[0] != bitsA || b[0] != bitsB)
      return report(op, *member,
                    "wgmma.mma_async's descriptors differ between threads " +
                        Twine(0) + " and " + Twine(index) +
                        " of its warpgroup,");
    if (member->values[launch.program.valueIds.lookup(mma.getInouts())]
            .size() != static_cast<size_t>(n / 2))
      return unsupported(op, "wgmma.mma_async's accumulator is not " +
                                 Twine(n / 2) + " f32 a thread");
  }
  MatrixDescriptor descA(bitsA), descB(bitsB);
  for (const MatrixDescriptor *desc : {&descA, &descB})
    if (desc->baseOffset != 0)
      return unsupported(op, "a wgmma matrix descriptor with a base offset "
                             "other than 0 is not supported");
  // imm-trans: NVVM's layoutA col, layoutB row.
  bool mnMajorA = mma.getLayoutA() == NVVM::MMALayout::col;
  bool mnMajorB = mma.getLayoutB() == NVVM::MMALayout::row;
  int64_t bytes = tf32 ? 4 : 2;
  ElementKind kind = typeA == NVVM::WGMMATypes::f16    ? ElementKind::F16
                     : typeA == NVVM::WGMMATypes::bf16 ? ElementKind::BF16
                                                       : ElementKind::F32;
  int64_t sharedSize = launch.program.sharedBytes.front();
  Wgmma record{op, warpgroup, {}, true};
  // Reads element (mn, k) of a matrix into `value`.
  auto read = [&](const MatrixDescriptor &desc, StringRef name, bool mnMajor,
                  int64_t mn, int64_t kk, double &value) -> LogicalResult {
    int64_t byte = desc.address(mn, kk, bytes, mnMajor);
    if (byte < 0 || byte + bytes > sharedSize)
      return fail(op, "wgmma.mma_async's descriptor of matrix " + name +
                          " addresses bytes " + Twine(byte) + " to " +
                          Twine(byte + bytes - 1) + " (element (" + Twine(mn) +
                          ", " + Twine(kk) + ")), outside the kernel's " +
                          Twine(sharedSize) + " bytes of shared memory,");
    for (int64_t b = byte; b < byte + bytes; ++b)
      if (cta.genericWriteEpoch[b] >= cta.proxyFencedBelow) {
        InFlightDiagnostic diagnostic = report(
            op, *thread,
            "wgmma.mma_async reads byte " + Twine(b) + " of matrix " + name +
                " in shared memory, written through the generic proxy with "
                "no fence.proxy.async since,");
        diagnostic.attachNote(cta.genericWriter[b]->getLoc()) << "the write";
        return failure();
      }
    const uint8_t *data = access(op, Address{MemorySpace::Shared, 0, byte},
                                 bytes, AccessKind::Read);
    if (!data)
      return failure();
    uint64_t raw = 0;
    std::memcpy(&raw, data, bytes);
    // tf32: the tensor core reads the 19 upper bits of an f32.
    value = tf32 ? bitCast<float>(static_cast<uint32_t>(raw) & 0xffffe000u)
                 : decodeDouble(kind, raw);
    record.reads.push_back({byte, bytes});
    return success();
  };
  std::vector<double> a(m * k), b(k * n);
  for (int64_t row = 0; row < m; ++row)
    for (int64_t kk = 0; kk < k; ++kk)
      if (failed(read(descA, "A", mnMajorA, row, kk, a[row * k + kk])))
        return failure();
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t column = 0; column < n; ++column)
      if (failed(read(descB, "B", mnMajorB, column, kk, b[kk * n + column])))
        return failure();

  double scale = (mma.getScaleA() == NVVM::WGMMAScaleIn::neg ? -1.0 : 1.0) *
                 (mma.getScaleB() == NVVM::WGMMAScaleIn::neg ? -1.0 : 1.0);
  bool accumulate = mma.getScaleD() == NVVM::WGMMAScaleOut::one;
  unsigned inout = launch.program.valueIds.lookup(mma.getInouts());
  unsigned result = launch.program.valueIds.lookup(mma.getResults());
  auto index = static_cast<uint32_t>(cta.wgmmas.size());
  for (auto [t, member] : llvm::enumerate(threads)) {
    Slots d = member->values[inout];
    for (int64_t i = 0; i < n / 2; ++i) {
      auto [row, column] = accumulatorPosition(t, i);
      double sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += a[row * k + kk] * b[kk * n + column];
      double c = accumulate ? decodeDouble(ElementKind::F32, d[i]) : 0.0;
      d[i] = encodeFloat(ElementKind::F32, c + scale * sum);
    }
    member->values[result] = std::move(d);
    member->pendingAccumulators[result] = index;
  }
  for (auto [first, size] : record.reads)
    for (int64_t byte = first; byte < first + size; ++byte)
      ++cta.wgmmaReaders[byte];
  cta.wgmmas.push_back(std::move(record));
  group.open.push_back(index);
  return success();
}

//===----------------------------------------------------------------------===//
// Structs of scalars (wgmma's accumulator): a slot per member
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::executeStruct(Operation *op) {
  auto members = [](Type type) -> int64_t {
    if (auto structure = dyn_cast<LLVM::LLVMStructType>(type))
      return structure.getBody().size();
    return slotCount(type);
  };
  auto position = [&](ArrayRef<int64_t> indices) -> std::optional<int64_t> {
    if (indices.size() != 1)
      return std::nullopt;
    return indices.front();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<LLVM::UndefOp, LLVM::PoisonOp, LLVM::ZeroOp>([&](Operation *) {
        // Undefined bits read as 0, as ZeroOp's do.
        set(op->getResult(0)) = Slots(members(op->getResult(0).getType()), 0);
        return success();
      })
      .Case([&](LLVM::InsertValueOp insert) -> LogicalResult {
        std::optional<int64_t> at = position(insert.getPosition());
        if (!at)
          return unsupported(op, "insertvalue into a nested aggregate is "
                                 "not supported");
        Slots slots = get(insert.getContainer());
        slots[*at] = get(insert.getValue())[0];
        set(insert.getResult()) = std::move(slots);
        return success();
      })
      .Case([&](LLVM::ExtractValueOp extract) -> LogicalResult {
        std::optional<int64_t> at = position(extract.getPosition());
        if (!at)
          return unsupported(op, "extractvalue from a nested aggregate is "
                                 "not supported");
        set(extract.getResult()) = {get(extract.getContainer())[*at]};
        return success();
      })
      .Default([&](Operation *) { return unsupported(op); });
}
