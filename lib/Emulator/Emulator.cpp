//===- Emulator.cpp - the CTA scheduler: barriers and shuffles ------------===//
//
// The CTAs of the grid run one after another. Within a CTA, each warp's
// lanes run in turn, each until it waits (at a warp-synchronous op: a
// shuffle, ldmatrix or mma.sync; or at a barrier) or exits; when every lane
// of the warp waits, the warp's shuffles (or its matrix op) complete and its
// lanes go on. When every warp waits at a barrier, the barrier completes
// and a new epoch of the race check begins. The ops of a warpgroup (wgmma:
// 4 warps) complete, before any barrier, when all its 128 threads wait at
// the same one. A wait that cannot complete is
// an error: a barrier some threads never reach, a shuffle whose source lane
// is elsewhere.
//
//===----------------------------------------------------------------------===//

#include "tile/Emulator/Emulator.h"
#include "Interpreter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tile::emulator;

namespace {
class CTARunner {
public:
  explicit CTARunner(const Launch &launch)
      : launch(launch), program(launch.program), interpreter(launch, cta) {
    if (launch.options.countBankConflicts)
      cta.bankConflicts.emplace();
    threads.resize(program.threadsPerBlock());
    const std::array<int64_t, 3> &size = program.blockSize;
    for (auto [linear, thread] : llvm::enumerate(threads)) {
      thread.linearId = linear;
      thread.id = {static_cast<int64_t>(linear) % size[0],
                   (static_cast<int64_t>(linear) / size[0]) % size[1],
                   static_cast<int64_t>(linear) / (size[0] * size[1])};
    }
    std::vector<int64_t> elements;
    for (const EmulatedBuffer &buffer : launch.buffers)
      elements.push_back(buffer.tensor->numElements());
    cta.globalAccesses.reset(elements);
    cta.crossCTAAccesses.reset(elements);
    for (int64_t bytes : program.sharedBytes) {
      cta.shared.emplace_back(bytes);
      cta.sharedAccesses.emplace_back(launch.options.checkRaces ? bytes : 0);
      cta.sharedInFlight.emplace_back(bytes);
    }
  }

  LogicalResult run(std::array<int64_t, 3> blockId);
  uint64_t steps = 0;
  unsigned racesFound() const { return cta.racesFound; }
  const std::optional<BankConflictCounter> &bankConflicts() const {
    return cta.bankConflicts;
  }
  bool faulted() const { return cta.faulted; }

private:
  /// Runs the lanes of `warp` until each waits at a barrier or exits.
  LogicalResult runWarp(size_t first, size_t last);
  LogicalResult completeWarpOps(size_t first, size_t last);
  LogicalResult completeShuffles(size_t first, size_t last);
  /// The matrix op `lane` waits at, which every lane of its warp must wait
  /// at too.
  LogicalResult completeMatrixOp(size_t first, size_t last, Thread &lane);
  /// The wgmma ops warpgroups wait at (each needs all 128 threads of its
  /// warpgroup there); whether any was.
  FailureOr<bool> completeWarpgroupOps();
  LogicalResult completeBarrier();
  Slots &valueOf(Thread &thread, Value value) {
    return thread.values[program.valueIds.lookup(value)];
  }
  /// Where `thread` is, for a note: "exited" or "waits at a barrier".
  std::string whereIs(const Thread &thread) const;

  const Launch &launch;
  const Program &program;
  CTA cta;
  Interpreter interpreter;
  std::vector<Thread> threads;
};
} // namespace

std::string CTARunner::whereIs(const Thread &thread) const {
  switch (thread.status) {
  case ThreadStatus::Exited:
    return "has returned";
  case ThreadStatus::AtBarrier:
    return "waits at a barrier";
  case ThreadStatus::AtWarpOp:
    if (isa<gpu::ShuffleOp>(thread.waitingAt))
      return "waits at another shuffle";
    return ("waits at another warp-wide op ('" +
            thread.waitingAt->getName().getStringRef() + "')")
        .str();
  case ThreadStatus::AtWarpgroupOp:
    return ("waits at a warpgroup-wide op ('" +
            thread.waitingAt->getName().getStringRef() + "')")
        .str();
  case ThreadStatus::Running:
    break;
  }
  return "is running";
}

LogicalResult CTARunner::run(std::array<int64_t, 3> blockId) {
  cta.blockId = blockId;
  const std::array<int64_t, 3> &grid = launch.grid;
  cta.linearId = static_cast<uint32_t>(
      blockId[0] + grid[0] * (blockId[1] + grid[1] * blockId[2]));
  ++cta.epoch;
  cta.globalAccesses.release(); // CTAs are not ordered by barriers
  // Shared memory starts as NaNs (0xff bytes), so a read before any write
  // shows up in the results.
  for (std::vector<uint8_t> &memory : cta.shared)
    std::fill(memory.begin(), memory.end(), 0xff);
  // Each thread's copies landed when it exited.
  cta.asyncCopies.clear();
  for (std::vector<uint32_t> &inFlight : cta.sharedInFlight)
    std::fill(inFlight.begin(), inFlight.end(), 0);
  cta.sourcesInFlight.clear();
  interpreter.resetWgmma();
  for (Thread &thread : threads)
    interpreter.start(thread);
  LogicalResult status = success();
  while (succeeded(status)) {
    for (size_t first = 0; first < threads.size() && succeeded(status);
         first += kWarpSize)
      status =
          runWarp(first, std::min<size_t>(first + kWarpSize, threads.size()));
    if (failed(status) || llvm::all_of(threads, [](const Thread &thread) {
          return thread.status == ThreadStatus::Exited;
        }))
      break;
    FailureOr<bool> warpgroupOps = completeWarpgroupOps();
    if (failed(warpgroupOps)) {
      status = failure();
      break;
    }
    if (!*warpgroupOps)
      status = completeBarrier();
  }
  for (const Thread &thread : threads)
    steps += thread.steps;
  if (cta.bankConflicts)
    cta.bankConflicts->flush();
  return status;
}

LogicalResult CTARunner::runWarp(size_t first, size_t last) {
  for (;;) {
    bool atWarpOp = false;
    for (size_t lane = first; lane < last; ++lane) {
      Thread &thread = threads[lane];
      if (thread.status == ThreadStatus::Running &&
          failed(interpreter.run(thread)))
        return failure();
      atWarpOp |= thread.status == ThreadStatus::AtWarpOp;
    }
    if (!atWarpOp)
      return success();
    if (failed(completeWarpOps(first, last)))
      return failure();
  }
}

/// A warp whose lanes all wait: a matrix op completes for the whole warp
/// at once, shuffles lane by lane.
LogicalResult CTARunner::completeWarpOps(size_t first, size_t last) {
  for (size_t index = first; index < last; ++index) {
    Thread &thread = threads[index];
    if (thread.status == ThreadStatus::AtWarpOp &&
        !isa<gpu::ShuffleOp>(thread.waitingAt))
      return completeMatrixOp(first, last, thread);
  }
  return completeShuffles(first, last);
}

/// ldmatrix and mma.sync are `.sync.aligned`: every lane of the warp
/// executes the same instruction, and the behaviour is undefined when one
/// has exited or waits elsewhere (PTX ISA), so each such lane is an error,
/// as an inactive source lane of a shuffle is.
LogicalResult CTARunner::completeMatrixOp(size_t first, size_t last,
                                          Thread &lane) {
  Operation *op = lane.waitingAt;
  std::string name = op->getName().getStringRef().str();
  if (last - first != static_cast<size_t>(kWarpSize))
    return interpreter.report(op, lane,
                              "'" + name +
                                  "' needs all 32 lanes of a warp, "
                                  "but lanes " +
                                  Twine(last - first) +
                                  " to 31 of this one are not in the CTA,");
  SmallVector<Thread *, kWarpSize> lanes;
  for (size_t index = first; index < last; ++index) {
    Thread &peer = threads[index];
    if (peer.status != ThreadStatus::AtWarpOp || peer.waitingAt != op) {
      InFlightDiagnostic diagnostic = interpreter.report(
          op, lane,
          "'" + name + "' with lane " + Twine(index - first) +
              " inactive: it " + whereIs(peer) + ",");
      if (peer.waitingAt && peer.status != ThreadStatus::Exited)
        diagnostic.attachNote(peer.waitingAt->getLoc())
            << "where lane " << index - first << " waits";
      return diagnostic;
    }
    lanes.push_back(&peer);
  }
  if (failed(interpreter.completeMatrixOp(op, lanes)))
    return failure();
  for (Thread *peer : lanes) {
    peer->status = ThreadStatus::Running;
    peer->waitingAt = nullptr;
  }
  return success();
}

/// wgmma's ops are `.sync.aligned` over a warpgroup (4 warps, 128 threads):
/// as for a warp's matrix op, every thread of it must be there.
FailureOr<bool> CTARunner::completeWarpgroupOps() {
  constexpr size_t kWarpgroupSize = 4 * kWarpSize;
  bool any = false;
  for (size_t first = 0; first < threads.size(); first += kWarpgroupSize) {
    size_t last = std::min(first + kWarpgroupSize, threads.size());
    auto waiting = llvm::find_if(
        llvm::make_range(threads.begin() + first, threads.begin() + last),
        [](const Thread &thread) {
          return thread.status == ThreadStatus::AtWarpgroupOp;
        });
    if (waiting == threads.begin() + last)
      continue;
    any = true;
    Operation *op = waiting->waitingAt;
    std::string name = op->getName().getStringRef().str();
    if (last - first != kWarpgroupSize) {
      (void)interpreter.report(op, *waiting,
                               "'" + name +
                                   "' needs all 128 threads of a warpgroup, "
                                   "but " +
                                   Twine(kWarpgroupSize - (last - first)) +
                                   " of this one are not in the CTA,");
      return failure();
    }
    SmallVector<Thread *, kWarpgroupSize> members;
    for (size_t index = first; index < last; ++index) {
      Thread &peer = threads[index];
      if (peer.status != ThreadStatus::AtWarpgroupOp || peer.waitingAt != op) {
        InFlightDiagnostic diagnostic = interpreter.report(
            op, *waiting,
            "'" + name + "' with thread " + Twine(index - first) +
                " of its warpgroup elsewhere: it " + whereIs(peer) + ",");
        if (peer.waitingAt && peer.status != ThreadStatus::Exited)
          diagnostic.attachNote(peer.waitingAt->getLoc())
              << "where thread " << index - first << " of the warpgroup waits";
        return failure();
      }
      members.push_back(&peer);
    }
    if (failed(interpreter.completeWarpgroupOp(op, first / kWarpgroupSize,
                                               members)))
      return failure();
    for (Thread *peer : members) {
      peer->status = ThreadStatus::Running;
      peer->waitingAt = nullptr;
    }
  }
  return any;
}

/// The shuffles of a warp complete together: each lane at a shuffle reads
/// the value of its source lane, which must wait at the same shuffle. The
/// source lane and `valid` follow shfl.sync as convert-gpu-to-nvvm emits it:
/// member mask and clamp from the width, no segment mask.
LogicalResult CTARunner::completeShuffles(size_t first, size_t last) {
  struct Exchange {
    Thread *lane;
    Slots value;
    bool valid;
  };
  SmallVector<Exchange, kWarpSize> exchanges;
  for (size_t index = first; index < last; ++index) {
    Thread &thread = threads[index];
    if (thread.status != ThreadStatus::AtWarpOp)
      continue;
    auto shuffle = cast<gpu::ShuffleOp>(thread.waitingAt);
    auto offset =
        static_cast<uint32_t>(valueOf(thread, shuffle.getOffset())[0]);
    auto width = static_cast<int64_t>(valueOf(thread, shuffle.getWidth())[0]);
    if (width < 1 || width > kWarpSize)
      return interpreter.report(shuffle, thread,
                                "shuffle width " + Twine(width) +
                                    " is outside 1 to 32");
    int64_t lane = index - first, bits = offset & 31, source = lane;
    bool valid = false;
    switch (shuffle.getMode()) {
    case gpu::ShuffleMode::UP:
      source = lane - bits;
      valid = source >= kWarpSize - width;
      break;
    case gpu::ShuffleMode::DOWN:
      source = lane + bits;
      valid = source <= width - 1;
      break;
    case gpu::ShuffleMode::XOR:
      source = lane ^ bits;
      valid = source <= width - 1;
      break;
    case gpu::ShuffleMode::IDX:
      source = bits;
      valid = source <= width - 1;
      break;
    }
    if (!valid)
      source = lane;
    size_t sourceIndex = first + source;
    if (sourceIndex >= last) {
      return interpreter.report(shuffle, thread,
                                "shuffle reads lane " + Twine(source) +
                                    ", which is not in the CTA (inactive),");
    }
    Thread &peer = threads[sourceIndex];
    if (peer.status != ThreadStatus::AtWarpOp || peer.waitingAt != shuffle) {
      InFlightDiagnostic diagnostic = interpreter.report(
          shuffle, thread,
          "shuffle reads lane " + Twine(source) + ", which is inactive: it " +
              whereIs(peer) + ",");
      if (peer.waitingAt && peer.status != ThreadStatus::Exited)
        diagnostic.attachNote(peer.waitingAt->getLoc())
            << "where lane " << source << " waits";
      return diagnostic;
    }
    exchanges.push_back({&thread, valueOf(peer, shuffle.getValue()), valid});
  }
  for (Exchange &exchange : exchanges) {
    auto shuffle = cast<gpu::ShuffleOp>(exchange.lane->waitingAt);
    valueOf(*exchange.lane, shuffle.getShuffleResult()) =
        std::move(exchange.value);
    valueOf(*exchange.lane, shuffle.getValid()) = {exchange.valid};
    exchange.lane->status = ThreadStatus::Running;
    exchange.lane->waitingAt = nullptr;
  }
  return success();
}

LogicalResult CTARunner::completeBarrier() {
  // Every thread waits at a barrier or has returned.
  const Thread *waiting = nullptr, *exited = nullptr;
  size_t exitedCount = 0;
  for (const Thread &thread : threads) {
    if (thread.status == ThreadStatus::Exited) {
      exited = exited ? exited : &thread;
      ++exitedCount;
      continue;
    }
    if (!waiting) {
      waiting = &thread;
      continue;
    }
    if (thread.waitingAt != waiting->waitingAt) {
      InFlightDiagnostic diagnostic = interpreter.report(
          waiting->waitingAt, *waiting,
          "barrier divergence: this barrier and another one are reached by "
          "different threads of the CTA, such as " +
              interpreter.describeThread(thread.linearId) + ",");
      diagnostic.attachNote(thread.waitingAt->getLoc())
          << "the barrier " << interpreter.describeThread(thread.linearId)
          << " waits at";
      return diagnostic;
    }
  }
  if (exited)
    return interpreter.report(
        waiting->waitingAt, *waiting,
        "barrier reached by only part of the CTA: " + Twine(exitedCount) +
            " of " + Twine(threads.size()) +
            " threads returned without reaching it, such as " +
            interpreter.describeThread(exited->linearId) + ",");
  for (Thread &thread : threads) {
    thread.status = ThreadStatus::Running;
    thread.waitingAt = nullptr;
  }
  ++cta.epoch;
  cta.globalAccesses.release();
  return success();
}

//===----------------------------------------------------------------------===//
// The API
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::emulator::emulateKernel(
    gpu::GPUFuncOp kernel, ArrayRef<EmulatedBuffer> buffers,
    ArrayRef<int64_t> symbols, std::array<int64_t, 3> grid,
    const EmulatorOptions &options, EmulatorReport &report) {
  auto start = std::chrono::steady_clock::now();
  FailureOr<Program> program = Program::prepare(kernel, options);
  if (failed(program))
    return failure();
  if (buffers.size() + symbols.size() != program->numArguments)
    return kernel.emitError("emulate: the kernel takes ")
           << program->numArguments << " arguments (parameters, then "
           << "symbols); given " << buffers.size() << " buffers and "
           << symbols.size() << " symbols";
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (!buffer.tensor)
      return kernel.emitError("emulate: no tensor for buffer '")
             << buffer.name << "'";
    // A tensor is a pointer; a scalar, a value of its type.
    Type type = kernel.getArgumentTypes()[index];
    bool pointer = isa<LLVM::LLVMPointerType>(type);
    if (pointer != !buffer.tensor->isScalar() ||
        (!pointer && classify(type).bytes() != buffer.tensor->bytes.size()))
      return kernel.emitError("emulate: parameter #")
             << index << " ('" << buffer.name << "') is a " << type
             << ", but its buffer is a "
             << (buffer.tensor->isScalar() ? "scalar" : "tensor") << " of "
             << ::tile::runtime::dtypeName(buffer.tensor->dtype);
  }
  for (Type type : kernel.getArgumentTypes().drop_front(buffers.size()))
    if (!type.isInteger(64))
      return kernel.emitError("emulate: symbol arguments are i64, not ")
             << type;
  for (int64_t size : grid)
    if (size < 1)
      return kernel.emitError("emulate: grid sizes must be positive");
  // CTAs are numbered in 32 bits; the emulator could not run more anyway.
  int64_t ctas;
  if (__builtin_mul_overflow(grid[0], grid[1], &ctas) ||
      __builtin_mul_overflow(ctas, grid[2], &ctas) ||
      ctas > (int64_t(1) << 32) - 2)
    return kernel.emitError("emulate: a grid of ")
           << grid[0] << " x " << grid[1] << " x " << grid[2]
           << " CTAs is more than the emulator runs";
  for (const EmulatedBuffer &buffer : buffers)
    if (buffer.written)
      buffer.written->assign(buffer.tensor->numElements(), false);

  Launch launch{*program, buffers, symbols, grid, options};
  CTARunner runner(launch);
  report = EmulatorReport();
  auto runGrid = [&]() -> LogicalResult {
    for (int64_t z = 0; z < grid[2]; ++z)
      for (int64_t y = 0; y < grid[1]; ++y)
        for (int64_t x = 0; x < grid[0]; ++x) {
          ++report.ctas;
          report.threads += program->threadsPerBlock();
          // Races are reported without stopping the CTA; stop after it.
          if (failed(runner.run({x, y, z})) || runner.racesFound() > 0)
            return failure();
        }
    return success();
  };
  LogicalResult status = runGrid();
  report.fault = runner.faulted();
  report.steps = runner.steps;
  if (runner.bankConflicts())
    runner.bankConflicts()->fill(report);
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return status;
}

LogicalResult mlir::tile::emulator::emulateKernel(
    ModuleOp module, StringRef kernel, ArrayRef<EmulatedBuffer> buffers,
    ArrayRef<int64_t> symbols, std::array<int64_t, 3> grid,
    const EmulatorOptions &options, EmulatorReport &report) {
  gpu::GPUFuncOp func;
  module.walk([&](gpu::GPUFuncOp candidate) {
    if (candidate.getName() == kernel && candidate.isKernel())
      func = candidate;
  });
  if (!func)
    return module.emitError("emulate: no gpu.func kernel @")
           << kernel << " in the module (run tile-to-gpu first)";
  return emulateKernel(func, buffers, symbols, grid, options, report);
}
