//===- Interpreter.cpp - the walk, control flow and thread ids ------------===//

#include "Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile::emulator;

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

FailureOr<Slots> mlir::tile::emulator::decodeConstant(Attribute value,
                                                      Type type) {
  auto decodeInt = [](const APInt &v) {
    return v.getBitWidth() > 64 ? v.trunc(64).getZExtValue() : v.getZExtValue();
  };
  auto decodeFloat = [&](const APFloat &v) {
    return decodeInt(v.bitcastToAPInt());
  };
  if (auto integer = dyn_cast<IntegerAttr>(value))
    return Slots{
        truncateBits(decodeInt(integer.getValue()), classify(type).bits)};
  if (auto real = dyn_cast<FloatAttr>(value))
    return Slots{decodeFloat(real.getValue())};
  auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value);
  if (!dense || !isa<VectorType>(type))
    return failure();
  Slots slots;
  slots.reserve(dense.getNumElements());
  if (dense.getElementType().isIntOrIndex()) {
    unsigned bits = classify(type).bits;
    for (const APInt &element : dense.getValues<APInt>())
      slots.push_back(truncateBits(decodeInt(element), bits));
  } else {
    for (const APFloat &element : dense.getValues<APFloat>())
      slots.push_back(decodeFloat(element));
  }
  return slots;
}

/// Scalars and vectors of the element types Values.h knows, pointers and
/// memrefs: every other type is an error before the run, not a wrong value
/// during it.
static bool isSupportedType(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return true;
  if (auto memref = dyn_cast<MemRefType>(type))
    type = memref.getElementType();
  // A struct of scalars (wgmma's accumulator): a slot per member.
  if (auto structure = dyn_cast<LLVM::LLVMStructType>(type))
    return !structure.isOpaque() &&
           llvm::all_of(structure.getBody(), [](Type member) {
             return !isa<VectorType>(member) &&
                    classify(member).kind != ElementKind::Other;
           });
  return classify(type).kind != ElementKind::Other;
}

FailureOr<Program> Program::prepare(gpu::GPUFuncOp func,
                                    const EmulatorOptions &options) {
  Program program;
  program.func = func;
  program.indexBits = DataLayout::closest(func).getTypeSizeInBits(
      IndexType::get(func.getContext()));
  if (func.getBody().empty())
    return func.emitError("emulate: the kernel has no body");
  std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize();
  if (!block || block->size() != 3)
    return func.emitError("emulate: the kernel has no known_block_size");
  for (unsigned i = 0; i < 3; ++i) {
    if ((*block)[i] <= 0)
      return func.emitError("emulate: block size must be positive");
    program.blockSize[i] = (*block)[i];
  }
  if (program.threadsPerBlock() > 1024)
    return func.emitError("emulate: more than 1024 threads per block");

  // The ABI: pointers and scalars, then i64 symbols; which are which, the
  // buffers of a launch say (checkArguments).
  for (Type type : func.getArgumentTypes()) {
    if (!isa<LLVM::LLVMPointerType>(type) && classify(type).bytes() == 0)
      return func.emitError("emulate: kernel parameter of type ")
             << type
             << " is not the ABI's (pointers and scalars, then i64 symbols)";
    ++program.numArguments;
  }
  if (!func.getPrivateAttributions().empty())
    return func.emitError("emulate: private attributions are not supported");
  for (BlockArgument buffer : func.getWorkgroupAttributions()) {
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape())
      return func.emitError("emulate: workgroup buffer of type ")
             << buffer.getType() << " has no static size";
    program.sharedBytes.push_back(type.getNumElements() *
                                  classify(type.getElementType()).bytes());
  }

  unsigned nextId = 0;
  // The entry block's arguments: the parameters, then the attributions.
  for (BlockArgument argument : func.getBody().front().getArguments())
    program.valueIds[argument] = nextId++;
  bool usesDynamicShared = false;
  WalkResult walk = func.getBody().walk([&](Operation *op) -> WalkResult {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          program.valueIds[argument] = nextId++;
    for (Value result : op->getResults()) {
      program.valueIds[result] = nextId++;
      if (!isSupportedType(result.getType()))
        return op->emitError("emulate: unsupported type ") << result.getType();
    }
    if (isa<arith::ConstantOp, LLVM::ConstantOp>(op)) {
      Attribute value = op->getAttrOfType<TypedAttr>("value");
      FailureOr<Slots> slots =
          decodeConstant(value, op->getResult(0).getType());
      if (failed(slots))
        return op->emitError("emulate: unsupported constant ") << value;
      program.constants[op] = std::move(*slots);
    } else if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      MemRefType type = alloca.getType();
      if (!type.hasStaticShape())
        return op->emitError("emulate: alloca of dynamic size");
      program.allocaIds[op] = program.allocaBytes.size();
      program.allocaBytes.push_back(type.getNumElements() *
                                    classify(type.getElementType()).bytes() *
                                    slotCount(type.getElementType()));
    } else if (isa<gpu::DynamicSharedMemoryOp>(op)) {
      usesDynamicShared = true;
    } else if (isa<NVVM::WgmmaMmaAsyncOp>(op)) {
      program.usesWgmma = true;
    } else if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::AtomicRMWOp,
                   NVVM::CpAsyncOp>(op)) {
      if (program.globalAccessOps.size() ==
          std::numeric_limits<uint16_t>::max())
        return op->emitError("emulate: more than 65535 memory accesses in "
                             "the kernel");
      program.globalAccessIds[op] = program.globalAccessOps.size();
      program.globalAccessOps.push_back(op);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  program.findFusedProducts();
  program.decode();
  if (usesDynamicShared) {
    if (options.dynamicSharedBytes <= 0)
      return func.emitError("emulate: the kernel uses dynamic shared memory; "
                            "give its size (the manifest's shared_bytes)");
    program.sharedBytes.push_back(options.dynamicSharedBytes);
  }
  return program;
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

std::string Interpreter::describeThread(unsigned linearId) const {
  const std::array<int64_t, 3> &size = launch.program.blockSize;
  return llvm::formatv("thread ({0}, {1}, {2})", linearId % size[0],
                       (linearId / size[0]) % size[1],
                       linearId / (size[0] * size[1]));
}

std::string Interpreter::describeBlock(uint32_t linearId) const {
  const std::array<int64_t, 3> &grid = launch.grid;
  return llvm::formatv("block ({0}, {1}, {2})", linearId % grid[0],
                       (linearId / grid[0]) % grid[1],
                       linearId / (grid[0] * grid[1]));
}

/// At the op's location, without the op printed after it: the location
/// points into the .tile source, which is what the user reads.
static InFlightDiagnostic diagnose(Operation *op, const CTA &cta,
                                   const std::string &thread,
                                   const Twine &message) {
  return mlir::emitError(op->getLoc(), "emulate: ")
         << message << " in block (" << cta.blockId[0] << ", " << cta.blockId[1]
         << ", " << cta.blockId[2] << "), " << thread;
}

InFlightDiagnostic Interpreter::report(Operation *op, const Thread &t,
                                       const Twine &message) const {
  cta.faulted = true;
  return diagnose(op, cta, describeThread(t.linearId), message);
}

LogicalResult Interpreter::unsupported(Operation *op, const Twine &what) {
  if (what.isTriviallyEmpty())
    return diagnose(op, cta, describeThread(thread->linearId),
                    "unsupported op '" + op->getName().getStringRef() + "'");
  return diagnose(op, cta, describeThread(thread->linearId), what);
}

void Interpreter::start(Thread &t) {
  const Program &program = launch.program;
  t.values.resize(program.valueIds.size());
  t.privateMemory.resize(program.allocaBytes.size());
  for (auto [memory, bytes] :
       llvm::zip_equal(t.privateMemory, program.allocaBytes))
    memory.assign(bytes, 0);
  t.frames.clear();
  t.openCopies.clear();
  t.committedCopies.clear();
  t.status = ThreadStatus::Running;
  t.waitingAt = nullptr;
  t.steps = 0;
  t.scatterNumber = t.scatterSlot = -1;
  t.scatterWrites.clear();
  t.sharedInstances.clear();
  t.pendingAccumulators.clear();

  gpu::GPUFuncOp func = program.func;
  Block &entry = func.getBody().front();
  thread = &t;
  ArrayRef<BlockArgument> params =
      entry.getArguments().take_front(program.numArguments);
  size_t numParams = launch.buffers.size();
  for (auto [index, argument] : llvm::enumerate(params)) {
    if (index >= numParams) {
      set(argument) = {
          static_cast<uint64_t>(launch.symbols[index - numParams])};
      continue;
    }
    const ::tile::runtime::HostTensor &buffer = *launch.buffers[index].tensor;
    if (!buffer.isScalar()) {
      Address{MemorySpace::Global, static_cast<uint32_t>(index), 0}.toSlots(
          set(argument));
      continue;
    }
    // A scalar is passed by value: its bits.
    ElementType element = classify(argument.getType());
    uint64_t bits = 0;
    std::memcpy(&bits, buffer.bytes.data(), element.bytes());
    set(argument) = {truncateBits(bits, element.bits)};
  }
  for (auto [index, buffer] : llvm::enumerate(func.getWorkgroupAttributions()))
    Address{MemorySpace::Shared, static_cast<uint32_t>(index), 0}.toSlots(
        set(buffer));
  const DecodedOp *first = program.decoded(entry);
  t.frames.push_back({func, &entry, first, first});
}

LogicalResult Interpreter::run(Thread &t) {
  thread = &t;
  uint64_t limit = launch.options.maxStepsPerThread;
  while (t.status == ThreadStatus::Running) {
    const DecodedOp &decoded = *t.frames.back().next++;
    if (++t.steps > limit)
      return fail(decoded.op,
                  "step limit of " + Twine(limit) +
                      " ops per thread reached (a loop that never ends?)");
    if (!t.pendingAccumulators.empty() &&
        failed(checkPendingAccumulators(decoded.op)))
      return failure();
    if (failed(decoded.opcode == Opcode::Generic ? execute(decoded.op)
                                                 : executeDecoded(decoded)))
      return failure();
  }
  return success();
}

/// Whether `value` is a value of a 32-bit index.
static bool fitsIndex32(int64_t value) {
  return value >= std::numeric_limits<int32_t>::min() &&
         value <= std::numeric_limits<int32_t>::max();
}

static constexpr llvm::StringLiteral kIndexWidthHint =
    " (the kernel computes indices in 32 bits, where the GPU wraps it; "
    "compile it with --index-bits=64)";

LogicalResult Interpreter::checkIndexWidth(Operation *op) {
  if (launch.program.indexBits != 32)
    return success();
  for (Value result : op->getResults()) {
    if (!getElementTypeOrSelf(result.getType()).isIndex())
      continue;
    for (uint64_t slot : get(result))
      if (!fitsIndex32(static_cast<int64_t>(slot)))
        return fail(op, "index value " + Twine(static_cast<int64_t>(slot)) +
                            " does not fit in 32 bits" + kIndexWidthHint);
  }
  return success();
}

LogicalResult Interpreter::checkIndexWidth(Operation *op, int64_t next) {
  if (launch.program.indexBits != 32 || fitsIndex32(next))
    return success();
  return fail(op, "the loop's next index " + Twine(next) +
                      " does not fit in 32 bits" + kIndexWidthHint);
}

LogicalResult Interpreter::execute(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (isa_and_nonnull<arith::ArithDialect>(dialect))
    return failure(failed(executeArith(op)) || failed(checkIndexWidth(op)));
  if (isa_and_nonnull<scf::SCFDialect>(dialect))
    return executeSCF(op);
  if (isa_and_nonnull<memref::MemRefDialect>(dialect))
    return executeMemRef(op);
  if (isa_and_nonnull<LLVM::LLVMDialect>(dialect))
    return executeLLVM(op);
  if (isa_and_nonnull<vector::VectorDialect>(dialect))
    return executeVector(op);
  if (isa_and_nonnull<math::MathDialect>(dialect))
    return executeMath(op);
  if (isa_and_nonnull<gpu::GPUDialect>(dialect))
    return executeGPU(op);
  if (isa<NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaMmaAsyncOp,
          NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp,
          NVVM::FenceProxyOp>(op))
    return executeWgmma(op);
  if (isa_and_nonnull<NVVM::NVVMDialect>(dialect))
    return executeNVVM(op);
  if (isa_and_nonnull<nvgpu::NVGPUDialect>(dialect))
    return executeNVGPU(op);
  return unsupported(op);
}

void Interpreter::enter(Operation *owner, Block &block,
                        ArrayRef<Slots> arguments) {
  for (auto [argument, value] :
       llvm::zip_equal(block.getArguments(), arguments))
    set(argument) = value;
  const DecodedOp *first = launch.program.decoded(block);
  thread->frames.push_back({owner, &block, first, first});
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

/// The slots of `values`, copied: a region's new arguments may be computed
/// from its old ones (a loop that swaps two iter_args).
static SmallVector<Slots> copyValues(ValueRange values,
                                     function_ref<const Slots &(Value)> get) {
  SmallVector<Slots> copies;
  copies.reserve(values.size());
  for (Value value : values)
    copies.push_back(get(value));
  return copies;
}

LogicalResult Interpreter::yield(Operation *op, ValueRange yielded) {
  auto getValue = [&](Value v) -> const Slots & { return get(v); };
  Frame &frame = thread->frames.back();
  Operation *owner = frame.owner;
  auto finish = [&](SmallVector<Slots> results) {
    thread->frames.pop_back();
    for (auto [result, value] : llvm::zip_equal(owner->getResults(), results))
      set(result) = std::move(value);
    return success();
  };
  if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    unsigned bits = classify(loop.getInductionVar().getType()).bits;
    if (loop.getInductionVar().getType().isIndex() &&
        failed(checkIndexWidth(
            loop,
            static_cast<int64_t>(static_cast<uint64_t>(frame.inductionVar) +
                                 static_cast<uint64_t>(frame.step)))))
      return failure();
    frame.inductionVar =
        signExtend(truncateBits(static_cast<uint64_t>(frame.inductionVar) +
                                    static_cast<uint64_t>(frame.step),
                                bits),
                   bits);
    bool more = loop.getUnsignedCmp() ? truncateBits(frame.inductionVar, bits) <
                                            truncateBits(frame.upperBound, bits)
                                      : frame.inductionVar < frame.upperBound;
    SmallVector<Slots> values = copyValues(yielded, getValue);
    if (!more)
      return finish(std::move(values));
    set(loop.getInductionVar()) = {truncateBits(frame.inductionVar, bits)};
    for (auto [argument, value] :
         llvm::zip_equal(loop.getRegionIterArgs(), values))
      set(argument) = std::move(value);
    frame.next = frame.first;
    return success();
  }
  if (auto loop = dyn_cast<scf::WhileOp>(owner)) {
    // The after region yields the next iteration's before arguments.
    SmallVector<Slots> values = copyValues(yielded, getValue);
    Block &before = loop.getBefore().front();
    for (auto [argument, value] :
         llvm::zip_equal(before.getArguments(), values))
      set(argument) = std::move(value);
    frame.block = &before;
    frame.first = frame.next = launch.program.decoded(before);
    return success();
  }
  if (isa<scf::IfOp, scf::ExecuteRegionOp>(owner))
    return finish(copyValues(yielded, getValue));
  return unsupported(op, "yield from an unsupported region");
}

LogicalResult Interpreter::executeSCF(Operation *op) {
  auto getValue = [&](Value v) -> const Slots & { return get(v); };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](scf::ForOp loop) -> LogicalResult {
        unsigned bits = classify(loop.getInductionVar().getType()).bits;
        bool isUnsigned = loop.getUnsignedCmp();
        auto read = [&](Value v) {
          return isUnsigned ? static_cast<int64_t>(get(v)[0])
                            : signExtend(get(v)[0], bits);
        };
        int64_t lower = read(loop.getLowerBound());
        int64_t upper = read(loop.getUpperBound());
        int64_t step = read(loop.getStep());
        if (step <= 0)
          return fail(op, "scf.for step " + Twine(step) + " is not positive");
        SmallVector<Slots> inits = copyValues(loop.getInitArgs(), getValue);
        bool enters = isUnsigned ? static_cast<uint64_t>(lower) <
                                       static_cast<uint64_t>(upper)
                                 : lower < upper;
        if (!enters) {
          for (auto [result, value] : llvm::zip_equal(loop.getResults(), inits))
            set(result) = std::move(value);
          return success();
        }
        SmallVector<Slots> arguments{{truncateBits(lower, bits)}};
        arguments.append(inits.begin(), inits.end());
        enter(op, *loop.getBody(), arguments);
        Frame &frame = thread->frames.back();
        frame.inductionVar = lower;
        frame.upperBound = upper;
        frame.step = step;
        return success();
      })
      .Case([&](scf::IfOp branch) {
        Region &region = get(branch.getCondition())[0] ? branch.getThenRegion()
                                                       : branch.getElseRegion();
        if (!region.empty())
          enter(op, region.front(), {});
        return success();
      })
      .Case([&](scf::WhileOp loop) {
        enter(op, loop.getBefore().front(),
              copyValues(loop.getInits(), getValue));
        return success();
      })
      .Case([&](scf::ConditionOp condition) {
        Frame &frame = thread->frames.back();
        auto loop = cast<scf::WhileOp>(frame.owner);
        SmallVector<Slots> values = copyValues(condition.getArgs(), getValue);
        if (!get(condition.getCondition())[0]) {
          thread->frames.pop_back();
          for (auto [result, value] :
               llvm::zip_equal(loop.getResults(), values))
            set(result) = std::move(value);
          return success();
        }
        Block &after = loop.getAfter().front();
        for (auto [argument, value] :
             llvm::zip_equal(after.getArguments(), values))
          set(argument) = std::move(value);
        frame.block = &after;
        frame.first = frame.next = launch.program.decoded(after);
        return success();
      })
      .Case([&](scf::ExecuteRegionOp region) {
        if (!region.getRegion().hasOneBlock())
          return unsupported(op);
        enter(op, region.getRegion().front(), {});
        return success();
      })
      .Case([&](scf::YieldOp terminator) {
        return yield(op, terminator.getOperands());
      })
      .Default([&](Operation *) { return unsupported(op); });
}

//===----------------------------------------------------------------------===//
// gpu
//===----------------------------------------------------------------------===//

static int64_t component(const std::array<int64_t, 3> &values,
                         gpu::Dimension dimension) {
  return values[static_cast<unsigned>(dimension)];
}

LogicalResult Interpreter::executeGPU(Operation *op) {
  const Program &program = launch.program;
  auto setIndex = [&](int64_t value) {
    set(op->getResult(0)) = {static_cast<uint64_t>(value)};
    return success();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](gpu::ThreadIdOp id) {
        return setIndex(component(thread->id, id.getDimension()));
      })
      .Case([&](gpu::BlockIdOp id) {
        return setIndex(component(cta.blockId, id.getDimension()));
      })
      .Case([&](gpu::BlockDimOp dim) {
        return setIndex(component(program.blockSize, dim.getDimension()));
      })
      .Case([&](gpu::GridDimOp dim) {
        return setIndex(component(launch.grid, dim.getDimension()));
      })
      .Case(
          [&](gpu::LaneIdOp) { return setIndex(thread->linearId % kWarpSize); })
      .Case([&](gpu::DynamicSharedMemoryOp) {
        Address{MemorySpace::Shared,
                static_cast<uint32_t>(program.sharedBytes.size() - 1), 0}
            .toSlots(set(op->getResult(0)));
        return success();
      })
      .Case([&](gpu::BarrierOp) {
        thread->status = ThreadStatus::AtBarrier;
        thread->waitingAt = op;
        return success();
      })
      .Case([&](gpu::ShuffleOp) {
        thread->status = ThreadStatus::AtWarpOp;
        thread->waitingAt = op;
        return success();
      })
      .Case([&](gpu::ReturnOp) {
        if (failed(completeAsyncCopies(op, /*pending=*/-1)))
          return failure();
        thread->status = ThreadStatus::Exited;
        thread->frames.clear();
        return success();
      })
      .Default([&](Operation *) { return unsupported(op); });
}
