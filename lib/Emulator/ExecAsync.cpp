//===- ExecAsync.cpp - cp.async, its groups and waits, from the PTX ISA ---===//
//
// The model follows the PTX ISA's description of cp.async, not the code
// tile-to-gpu emits:
//
// * `cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}`
//   copies cp-size bytes (4, 8 or 16; .cg only 16) to shared memory, the
//   first src-size of them (at most cp-size) read from global memory and
//   the rest zero-filled; both addresses are aligned to cp-size. It is
//   asynchronous: it may read its source and write its destination at any
//   time until the thread waits for it.
// * `cp.async.commit_group` closes the thread's copies since the last one
//   into a group (possibly empty).
// * `cp.async.wait_group N` waits until at most the N most recent groups
//   of the thread are pending; the copies of the others are complete and
//   their writes visible to the thread. Other threads see them only after
//   a barrier that follows the wait; a barrier alone completes nothing.
//
// So the emulator lands a copy (reads its source, writes its destination,
// records the write for the race check) at the wait that covers it, and
// until then any access to its destination by any thread, or a write to
// its source, is an error naming both ops: on a GPU such an access would
// see the copy or not depending on timing. Copies still in flight when
// their thread exits land then.
//
// Where an async copy is not aligned for cp.async and its elements are
// narrower than 4 bytes, tile-to-gpu moves them with a load and a store
// marked tile.async_copy. Such a store writes at once, but it is held in
// flight like the cp.async it stands for: the kernel may rely on the copy
// only after its wait (docs/spec.md), whichever way it was lowered, and a
// read before it is that fault, not a race of the lowering's.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile::emulator;

LogicalResult Interpreter::checkInFlight(Operation *op, Address address,
                                         int64_t size, AccessKind kind) {
  auto conflict = [&](uint32_t id, StringRef what) {
    const AsyncCopy &copy = cta.asyncCopies[id - 1];
    StringRef copyName =
        copy.stored ? "an async copy (its element-wise store)" : "a cp.async";
    InFlightDiagnostic diagnostic = report(
        op, *thread,
        Twine(accessName(kind)) + " of " + what + " of " + copyName + " of " +
            describeThread(copy.thread) +
            " that is still in flight: no cp.async.wait_group of that thread "
            "covers it yet,");
    diagnostic.attachNote(copy.op->getLoc())
        << (copy.stored ? "the async copy" : "the cp.async");
    return failure();
  };
  if (address.space == MemorySpace::Shared) {
    std::vector<uint32_t> &inFlight = cta.sharedInFlight[address.memory];
    for (int64_t byte = address.offset; byte < address.offset + size; ++byte)
      if (uint32_t id = inFlight[byte])
        return conflict(id, "byte " + std::to_string(byte) +
                                " of shared memory, the destination");
    return success();
  }
  if (address.space == MemorySpace::Global && kind != AccessKind::Read &&
      !cta.sourcesInFlight.empty())
    for (int64_t byte = address.offset; byte < address.offset + size; ++byte)
      if (uint32_t id = cta.sourcesInFlight.lookup({address.memory, byte}))
        return conflict(id, "byte " + std::to_string(byte) + " of tensor '" +
                                launch.buffers[address.memory].name +
                                "', the source");
  return success();
}

LogicalResult Interpreter::landAsyncCopy(uint32_t index) {
  AsyncCopy copy = cta.asyncCopies[index];
  auto id = index + 1;
  // No longer in flight: its own accesses below must not trip on it.
  std::vector<uint32_t> &inFlight = cta.sharedInFlight[copy.dest.memory];
  for (int64_t byte = copy.dest.offset; byte < copy.dest.offset + copy.size;
       ++byte)
    if (inFlight[byte] == id)
      inFlight[byte] = 0;
  // A store's bytes are in place: its write is recorded again, now, for
  // the race check, as a cp.async's is when it lands.
  if (copy.stored)
    return success(access(copy.op, copy.dest, copy.size, AccessKind::Write) !=
                   nullptr);
  for (int64_t byte = copy.source.offset;
       byte < copy.source.offset + copy.sourceSize; ++byte) {
    auto it = cta.sourcesInFlight.find({copy.source.memory, byte});
    if (it != cta.sourcesInFlight.end() && it->second == id)
      cta.sourcesInFlight.erase(it);
  }
  std::vector<uint8_t> data(copy.size, 0);
  if (copy.sourceSize > 0) {
    const uint8_t *from =
        access(copy.op, copy.source, copy.sourceSize, AccessKind::Read);
    if (!from)
      return failure();
    std::memcpy(data.data(), from, copy.sourceSize);
  }
  uint8_t *to = access(copy.op, copy.dest, copy.size, AccessKind::Write);
  if (!to)
    return failure();
  std::memcpy(to, data.data(), copy.size);
  return success();
}

void Interpreter::holdAsyncStore(Operation *op, Address dest, int64_t size) {
  auto index = static_cast<uint32_t>(cta.asyncCopies.size());
  cta.asyncCopies.push_back({op, thread->linearId, dest, Address{}, size,
                             /*sourceSize=*/0, /*stored=*/true});
  std::vector<uint32_t> &inFlight = cta.sharedInFlight[dest.memory];
  for (int64_t byte = dest.offset; byte < dest.offset + size; ++byte)
    inFlight[byte] = index + 1;
  thread->openCopies.push_back(index);
}

LogicalResult Interpreter::completeAsyncCopies(Operation *op, int64_t pending) {
  SmallVector<uint32_t> landing;
  if (pending < 0) {
    for (SmallVector<uint32_t> &group : thread->committedCopies)
      llvm::append_range(landing, group);
    llvm::append_range(landing, thread->openCopies);
    thread->committedCopies.clear();
    thread->openCopies.clear();
  }
  while (pending >= 0 &&
         static_cast<int64_t>(thread->committedCopies.size()) > pending) {
    llvm::append_range(landing, thread->committedCopies.front());
    thread->committedCopies.pop_front();
  }
  for (uint32_t index : landing)
    if (failed(landAsyncCopy(index)))
      return failure();
  return success();
}

LogicalResult Interpreter::executeNVVM(Operation *op) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](NVVM::CpAsyncOp copy) -> LogicalResult {
        int64_t size = copy.getSize();
        if (size != 4 && size != 8 && size != 16)
          return fail(op,
                      "cp.async copies 4, 8 or 16 bytes, not " + Twine(size));
        if (copy.getModifier() == NVVM::LoadCacheModifierKind::CG && size != 16)
          return fail(op, "cp.async.cg copies 16 bytes, not " + Twine(size));
        int64_t sourceSize = size;
        if (Value operand = copy.getCpSize())
          sourceSize = signExtend(get(operand)[0], 32);
        if (sourceSize < 0 || sourceSize > size)
          return fail(op, "cp.async source size " + Twine(sourceSize) +
                              " is outside 0 to its " + Twine(size) + " bytes");
        Address dest = Address::fromSlots(get(copy.getDst()));
        Address source = Address::fromSlots(get(copy.getSrc()));
        if (dest.space != MemorySpace::Shared ||
            source.space != MemorySpace::Global)
          return fail(op, "cp.async copies from global to shared memory");
        for (auto [address, what] :
             {std::pair{dest, "destination"}, std::pair{source, "source"}})
          if (address.offset % size != 0)
            return fail(op, Twine("misaligned cp.async: its ") + what +
                                " at byte offset " + Twine(address.offset) +
                                " is not aligned to its " + Twine(size) +
                                " bytes");
        if (!checkBounds(op, dest, size, "cp.async destination") ||
            (sourceSize > 0 &&
             !checkBounds(op, source, sourceSize, "cp.async source")))
          return failure();
        // It may write now: others' accesses since the barrier race with
        // it; and nothing else may be writing those bytes.
        if (failed(checkInFlight(op, dest, size, AccessKind::Write)) ||
            (launch.options.checkRaces &&
             !access(op, dest, size, AccessKind::Write)))
          return failure();
        countSharedAccess(op, SharedAccessKind::AsyncCopy, dest, size);
        auto index = static_cast<uint32_t>(cta.asyncCopies.size());
        cta.asyncCopies.push_back(
            {op, thread->linearId, dest, source, size, sourceSize});
        std::vector<uint32_t> &inFlight = cta.sharedInFlight[dest.memory];
        for (int64_t byte = dest.offset; byte < dest.offset + size; ++byte)
          inFlight[byte] = index + 1;
        for (int64_t byte = source.offset; byte < source.offset + sourceSize;
             ++byte)
          cta.sourcesInFlight[{source.memory, byte}] = index + 1;
        thread->openCopies.push_back(index);
        return success();
      })
      .Case([&](NVVM::CpAsyncCommitGroupOp) {
        thread->committedCopies.push_back(std::move(thread->openCopies));
        thread->openCopies.clear();
        return success();
      })
      .Case([&](NVVM::CpAsyncWaitGroupOp wait) {
        return completeAsyncCopies(op, wait.getN());
      })
      .Default([&](Operation *) { return unsupported(op); });
}
