//===- ExecMemory.cpp - memory, pointers, vectors and their checks --------===//
//
// A pointer or memref is an Address: which memory (a global buffer, a
// shared memory of the CTA, a thread's alloca) and a byte offset. Every
// access checks that its bytes lie inside their memory, so an index the
// lowering got wrong is an error at the op rather than a corrupted host
// buffer; every shared access is recorded for the race check.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Runtime/Tensor.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile::emulator;

static void readSlots(const uint8_t *bytes, ElementType element, int64_t count,
                      Slots &slots) {
  unsigned size = element.bytes();
  slots.resize(count);
  for (auto [i, slot] : llvm::enumerate(slots)) {
    uint64_t value = 0;
    std::memcpy(&value, bytes + i * size, size); // little-endian host
    slot = truncateBits(value, element.bits);
  }
}

static void readSlots(const uint8_t *bytes, Type type, Slots &slots) {
  readSlots(bytes, classify(type), slotCount(type), slots);
}

static void writeSlots(uint8_t *bytes, Type type, const Slots &slots) {
  unsigned size = classify(type).bytes();
  for (auto [i, slot] : llvm::enumerate(slots))
    std::memcpy(bytes + i * size, &slot, size);
}

//===----------------------------------------------------------------------===//
// Access checks
//===----------------------------------------------------------------------===//

uint8_t *Interpreter::checkBounds(Operation *op, Address address, int64_t size,
                                  StringRef what) {
  std::vector<uint8_t> *memory = nullptr;
  if (address.space == MemorySpace::Global)
    memory = &launch.buffers[address.memory].tensor->bytes;
  else if (address.space == MemorySpace::Shared)
    memory = &cta.shared[address.memory];
  else
    memory = &thread->privateMemory[address.memory];
  auto limit = static_cast<int64_t>(memory->size());
  if (address.offset >= 0 && address.offset <= limit - size)
    return memory->data() + address.offset;

  std::string message;
  llvm::raw_string_ostream os(message);
  os << "out-of-bounds " << what << " of " << size << " bytes at byte offset "
     << address.offset << " of ";
  if (address.space == MemorySpace::Global) {
    const EmulatedBuffer &buffer = launch.buffers[address.memory];
    const ::tile::runtime::HostTensor &tensor = *buffer.tensor;
    auto elementBytes =
        static_cast<int64_t>(::tile::runtime::dtypeSize(tensor.dtype));
    os << "tensor '" << buffer.name << "' ("
       << ::tile::runtime::dtypeName(tensor.dtype)
       << ::tile::runtime::formatShape(tensor.shape) << ", " << limit
       << " bytes): element "
       << llvm::divideFloorSigned(address.offset, elementBytes) << " of "
       << tensor.numElements();
  } else if (address.space == MemorySpace::Shared) {
    os << "the shared buffer of " << limit << " bytes";
  } else {
    os << "a per-thread buffer of " << limit << " bytes";
  }
  (void)report(op, *thread, message);
  return nullptr;
}

const char *mlir::tile::emulator::sharedAccessName(SharedAccessKind kind) {
  switch (kind) {
  case SharedAccessKind::Load:
    return "ld.shared";
  case SharedAccessKind::Store:
    return "st.shared";
  case SharedAccessKind::LdMatrix:
    return "ldmatrix";
  case SharedAccessKind::AsyncCopy:
    return "cp.async";
  }
  return "";
}

const char *mlir::tile::emulator::accessName(AccessKind kind) {
  switch (kind) {
  case AccessKind::Read:
    return "read";
  case AccessKind::Write:
    return "write";
  case AccessKind::Atomic:
    return "atomic access";
  }
  return "access";
}

/// "wrote", "read", "accessed atomically": what another thread did.
static const char *accessVerb(AccessKind kind) {
  switch (kind) {
  case AccessKind::Read:
    return "read";
  case AccessKind::Write:
    return "wrote";
  case AccessKind::Atomic:
    return "accessed atomically";
  }
  return "accessed";
}

uint8_t *Interpreter::access(Operation *op, Address address, int64_t size,
                             AccessKind kind) {
  uint8_t *bytes = checkBounds(op, address, size,
                               kind == AccessKind::Read    ? "load"
                               : kind == AccessKind::Write ? "store"
                                                           : "atomic update");
  if (!bytes || failed(checkInFlight(op, address, size, kind)))
    return nullptr;
  if (launch.program.usesWgmma && address.space == MemorySpace::Shared &&
      failed(checkWgmmaOperands(op, address, size, kind)))
    return nullptr;
  // A global access is of whole elements, a vector access of several,
  // which the GPU requires aligned to its size.
  int64_t elementBytes = size;
  if (address.space == MemorySpace::Global) {
    elementBytes = static_cast<int64_t>(::tile::runtime::dtypeSize(
        launch.buffers[address.memory].tensor->dtype));
    if (size > elementBytes && address.offset % size != 0) {
      (void)report(op, *thread,
                   "misaligned vector access of " + Twine(size) +
                       " bytes at byte offset " + Twine(address.offset) +
                       " of tensor '" + launch.buffers[address.memory].name +
                       "' (the GPU needs it aligned to its size)");
      return nullptr;
    }
  }
  if (address.space == MemorySpace::Global && kind != AccessKind::Read)
    if (std::vector<bool> *written = launch.buffers[address.memory].written)
      for (int64_t offset = address.offset; offset < address.offset + size;
           offset += elementBytes)
        (*written)[offset / elementBytes] = true;
  if (!launch.options.checkRaces)
    return bytes;
  if (address.space == MemorySpace::Shared) {
    for (int64_t byte = address.offset; byte < address.offset + size; ++byte)
      if (failed(recordAccess(
              op, 0, cta.sharedAccesses[address.memory][byte], kind, [&] {
                return "byte " + std::to_string(byte) + " of shared memory";
              })))
        return nullptr;
  } else if (address.space == MemorySpace::Global) {
    auto opId =
        static_cast<uint16_t>(launch.program.globalAccessIds.lookup(op));
    // Every access to a tensor element is of the whole element: one entry.
    for (int64_t offset = address.offset; offset < address.offset + size;
         offset += elementBytes) {
      ElementAccesses &history =
          cta.globalAccesses.at(address.memory, offset / elementBytes);
      if (failed(recordAccess(op, opId, history, kind, [&] {
            const EmulatedBuffer &buffer = launch.buffers[address.memory];
            return "element " + std::to_string(offset / elementBytes) +
                   " of tensor '" + buffer.name + "'";
          })))
        return nullptr;
      if (launch.grid[0] * launch.grid[1] * launch.grid[2] > 1 &&
          failed(recordCrossCTAAccess(op, opId, address.memory,
                                      offset / elementBytes, kind)))
        return nullptr;
    }
  }
  return bytes;
}

LogicalResult Interpreter::reportRace(Operation *op, Operation *otherOp,
                                      const Twine &message, const Twine &note) {
  if (!cta.racesReported.insert({op, otherOp}).second)
    return success();
  InFlightDiagnostic diagnostic = report(op, *thread, message);
  diagnostic.attachNote(otherOp->getLoc()) << note;
  if (++cta.racesFound >= launch.options.maxRaceReports)
    return failure();
  return success();
}

// The sides of a shared byte's history, current in `epoch` (kNone else),
// and of a global element's (released at barriers: always current).
static uint32_t threadAt(const ByteAccesses &history, AccessSlot slot,
                         uint32_t epoch) {
  switch (slot) {
  case AccessSlot::Write:
    return history.writeEpoch == epoch ? history.writer : ByteAccesses::kNone;
  case AccessSlot::Atomic:
    return history.atomicEpoch == epoch ? history.atomicThread
                                        : ByteAccesses::kNone;
  case AccessSlot::FirstReader:
  case AccessSlot::SecondReader:
    return history.readEpoch == epoch
               ? history.readers[slot == AccessSlot::SecondReader]
               : ByteAccesses::kNone;
  }
  return ByteAccesses::kNone;
}

static uint32_t threadAt(const ElementAccesses &history, AccessSlot slot,
                         uint32_t) {
  uint16_t plusOne = slot == AccessSlot::Write ? history.writer
                     : slot == AccessSlot::Atomic
                         ? history.atomicThread
                         : history.readers[slot == AccessSlot::SecondReader];
  return plusOne == 0 ? ByteAccesses::kNone : plusOne - 1u;
}

static Operation *opAt(const ByteAccesses &history, AccessSlot slot,
                       const Program &) {
  return slot == AccessSlot::Write ? history.writeOp
         : slot == AccessSlot::Atomic
             ? history.atomicOp
             : history.readOps[slot == AccessSlot::SecondReader];
}

static Operation *opAt(const ElementAccesses &history, AccessSlot slot,
                       const Program &program) {
  return program
      .globalAccessOps[slot == AccessSlot::Write ? history.writeOp
                       : slot == AccessSlot::Atomic
                           ? history.atomicOp
                           : history.readOps[slot == AccessSlot::SecondReader]];
}

/// Makes `thread` (kNone: nobody) the `slot` side of `history`.
static void put(ByteAccesses &history, AccessSlot slot, uint32_t thread,
                Operation *op, uint16_t, uint32_t epoch) {
  switch (slot) {
  case AccessSlot::Write:
    history.writeEpoch = epoch;
    history.writer = thread;
    history.writeOp = op;
    return;
  case AccessSlot::Atomic:
    history.atomicEpoch = epoch;
    history.atomicThread = thread;
    history.atomicOp = op;
    return;
  case AccessSlot::FirstReader:
  case AccessSlot::SecondReader:
    history.readEpoch = epoch;
    history.readers[slot == AccessSlot::SecondReader] = thread;
    history.readOps[slot == AccessSlot::SecondReader] = op;
    return;
  }
}

static void put(ElementAccesses &history, AccessSlot slot, uint32_t thread,
                Operation *, uint16_t opId, uint32_t) {
  auto plusOne = static_cast<uint16_t>(thread + 1); // kNone + 1 == 0
  switch (slot) {
  case AccessSlot::Write:
    history.writer = plusOne;
    history.writeOp = opId;
    return;
  case AccessSlot::Atomic:
    history.atomicThread = plusOne;
    history.atomicOp = opId;
    return;
  case AccessSlot::FirstReader:
  case AccessSlot::SecondReader:
    history.readers[slot == AccessSlot::SecondReader] = plusOne;
    history.readOps[slot == AccessSlot::SecondReader] = opId;
    return;
  }
}

template <typename History>
LogicalResult Interpreter::recordAccess(Operation *op, uint16_t opId,
                                        History &history, AccessKind kind,
                                        function_ref<std::string()> where) {
  uint32_t self = thread->linearId, epoch = cta.epoch;
  // The other side of a race, if any, since the barrier: another thread's
  // write, for a write another thread's read, for a plain access another
  // thread's atomic one, for an atomic one another's plain access.
  static constexpr std::pair<AccessSlot, AccessKind> kSides[] = {
      {AccessSlot::Write, AccessKind::Write},
      {AccessSlot::Atomic, AccessKind::Atomic},
      {AccessSlot::FirstReader, AccessKind::Read},
      {AccessSlot::SecondReader, AccessKind::Read}};
  for (auto [slot, otherKind] : kSides) {
    uint32_t other = threadAt(history, slot, epoch);
    if (other == ByteAccesses::kNone || other == self ||
        !racesWith(kind, otherKind))
      continue;
    std::string peerName = describeThread(other);
    std::string place = where();
    if (failed(reportRace(
            op, opAt(history, slot, launch.program),
            Twine(StringRef(place).contains("shared") ? "shared" : "global") +
                "-memory race: " + accessName(kind) + " of " + place +
                ", which " + peerName + " " + accessVerb(otherKind) +
                " with no barrier between,",
            "the " + Twine(accessName(otherKind)) + " of " + peerName)))
      return failure();
    break;
  }
  switch (kind) {
  case AccessKind::Write:
    put(history, AccessSlot::Write, self, op, opId, epoch);
    break;
  case AccessKind::Atomic:
    put(history, AccessSlot::Atomic, self, op, opId, epoch);
    break;
  case AccessKind::Read: {
    uint32_t first = threadAt(history, AccessSlot::FirstReader, epoch);
    if (first == ByteAccesses::kNone) {
      put(history, AccessSlot::FirstReader, self, op, opId, epoch);
      put(history, AccessSlot::SecondReader, ByteAccesses::kNone, nullptr, 0,
          epoch);
    } else if (first != self && threadAt(history, AccessSlot::SecondReader,
                                         epoch) == ByteAccesses::kNone) {
      put(history, AccessSlot::SecondReader, self, op, opId, epoch);
    }
    break;
  }
  }
  return success();
}

LogicalResult Interpreter::recordCrossCTAAccess(Operation *op, uint16_t opId,
                                                uint32_t buffer,
                                                int64_t element,
                                                AccessKind kind) {
  CrossCTAAccesses &history = cta.crossCTAAccesses.at(buffer, element);
  for (AccessKind earlier :
       {AccessKind::Write, AccessKind::Atomic, AccessKind::Read}) {
    uint32_t otherCTA = history.cta[static_cast<int>(earlier)];
    if (otherCTA == CrossCTAAccesses::kNone || otherCTA == cta.linearId ||
        !racesWith(kind, earlier))
      continue;
    Operation *otherOp =
        launch.program.globalAccessOps[history.op[static_cast<int>(earlier)]];
    std::string otherBlock = describeBlock(otherCTA);
    if (failed(reportRace(
            op, otherOp,
            Twine("global-memory race between CTAs: ") + accessName(kind) +
                " of element " + Twine(element) + " of tensor '" +
                launch.buffers[buffer].name + "', which " + otherBlock + " " +
                accessVerb(earlier) + ", and nothing orders two CTAs,",
            "the " + Twine(accessName(earlier)) + " of " + otherBlock)))
      return failure();
    break;
  }
  if (history.cta[static_cast<int>(kind)] == CrossCTAAccesses::kNone) {
    history.cta[static_cast<int>(kind)] = cta.linearId;
    history.op[static_cast<int>(kind)] = opId;
  }
  return success();
}

LogicalResult Interpreter::checkScatterRepeat(Operation *op, Address address) {
  auto marker = op->getAttrOfType<DenseI64ArrayAttr>(tile::kScatterAttr);
  if (!marker || marker.size() != 2)
    return success();
  Thread &self = *thread;
  // A store of another scatter, or of a slot not after the last one, is
  // the start of the next scatter (the same op again, in a loop).
  if (marker[0] != self.scatterNumber || marker[1] <= self.scatterSlot)
    self.scatterWrites.clear();
  self.scatterNumber = marker[0];
  self.scatterSlot = marker[1];
  for (auto [written, store] : self.scatterWrites) {
    if (written.space != address.space || written.memory != address.memory ||
        written.offset != address.offset)
      continue;
    const EmulatedBuffer &buffer = launch.buffers[address.memory];
    auto elementBytes =
        static_cast<int64_t>(::tile::runtime::dtypeSize(buffer.tensor->dtype));
    return reportRace(op, store,
                      "global-memory race: a scatter writes element " +
                          Twine(address.offset / elementBytes) +
                          " of tensor '" + buffer.name +
                          "' twice, from two of this thread's elements: which "
                          "one lands is undefined,",
                      "the other write of this thread");
  }
  self.scatterWrites.push_back({address, op});
  return success();
}

std::optional<Address> Interpreter::memrefElement(Operation *op, Value memref,
                                                  ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
    (void)unsupported(op, "memref of dynamic shape or non-identity layout is "
                          "not supported");
    return std::nullopt;
  }
  int64_t linear = 0;
  for (auto [dimension, index, size] :
       llvm::enumerate(indices, type.getShape())) {
    auto value = static_cast<int64_t>(get(index)[0]);
    if (value < 0 || value >= size) {
      std::string typeName;
      llvm::raw_string_ostream(typeName) << type;
      (void)fail(op, "out-of-bounds index " + Twine(value) + " of dimension " +
                         Twine(dimension) + " (size " + Twine(size) + ") of " +
                         typeName);
      return std::nullopt;
    }
    linear = linear * size + value;
  }
  Address address = Address::fromSlots(get(memref));
  address.offset += linear * storageBytes(type.getElementType());
  return address;
}

LogicalResult Interpreter::checkAlignment(Operation *op, Address address,
                                          std::optional<uint64_t> alignment) {
  // Every memory starts aligned: a global buffer as cuMemAlloc's (256
  // bytes), shared memory and allocas to 16.
  if (!alignment || *alignment <= 1 ||
      address.offset % static_cast<int64_t>(*alignment) == 0)
    return success();
  return fail(op, "misaligned access: byte offset " + Twine(address.offset) +
                      " is not a multiple of the access's alignment of " +
                      Twine(*alignment) + " bytes");
}

void Interpreter::countSharedAccess(Operation *op, SharedAccessKind kind,
                                    Address address, int64_t size) {
  if (!cta.bankConflicts || address.space != MemorySpace::Shared)
    return;
  cta.bankConflicts->record(
      op, kind, thread->linearId / kWarpSize, thread->linearId % kWarpSize,
      thread->sharedInstances[op]++, address.offset, size);
}

LogicalResult Interpreter::loadSlots(Operation *op, Address address,
                                     ElementType element, int64_t count,
                                     Slots &result,
                                     std::optional<uint64_t> alignment) {
  if (failed(checkAlignment(op, address, alignment)))
    return failure();
  int64_t size = element.bytes() * count;
  const uint8_t *bytes = access(op, address, size, AccessKind::Read);
  if (!bytes)
    return failure();
  countSharedAccess(op, SharedAccessKind::Load, address, size);
  readSlots(bytes, element, count, result);
  return success();
}

LogicalResult Interpreter::loadValue(Operation *op,
                                     std::optional<Address> address,
                                     Value result,
                                     std::optional<uint64_t> alignment) {
  if (!address)
    return failure();
  Type type = result.getType();
  return loadSlots(op, *address, classify(type), slotCount(type), set(result),
                   alignment);
}

LogicalResult Interpreter::storeValue(Operation *op,
                                      std::optional<Address> address,
                                      Value value,
                                      std::optional<uint64_t> alignment) {
  if (!address || failed(checkAlignment(op, *address, alignment)))
    return failure();
  Type type = value.getType();
  uint8_t *bytes = access(op, *address, storageBytes(type), AccessKind::Write);
  if (!bytes)
    return failure();
  countSharedAccess(op, SharedAccessKind::Store, *address, storageBytes(type));
  writeSlots(bytes, type, get(value));
  return success();
}

//===----------------------------------------------------------------------===//
// memref
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::executeMemRef(Operation *op) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](memref::AllocaOp) {
        Address{MemorySpace::Private, launch.program.allocaIds.lookup(op), 0}
            .toSlots(set(op->getResult(0)));
        return success();
      })
      .Case([&](memref::ViewOp view) {
        MemRefType type = view.getType();
        if (!type.hasStaticShape())
          return unsupported(op);
        Address address = Address::fromSlots(get(view.getSource()));
        address.offset =
            static_cast<int64_t>(static_cast<uint64_t>(address.offset) +
                                 get(view.getByteShift())[0]);
        // The whole view must lie in its buffer, not just what is accessed.
        int64_t bytes =
            type.getNumElements() * storageBytes(type.getElementType());
        if (bytes > 0 && !checkBounds(op, address, bytes, "view"))
          return failure();
        address.toSlots(set(view.getResult()));
        return success();
      })
      .Case([&](memref::LoadOp load) {
        return loadValue(op,
                         memrefElement(op, load.getMemRef(), load.getIndices()),
                         load.getResult());
      })
      .Case([&](memref::ExtractAlignedPointerAsIndexOp extract) {
        set(extract.getResult()) = {
            Address::fromSlots(get(extract.getSource())).toInteger()};
        return success();
      })
      .Case([&](memref::StoreOp store) -> LogicalResult {
        std::optional<Address> address =
            memrefElement(op, store.getMemRef(), store.getIndices());
        if (failed(storeValue(op, address, store.getValueToStore())))
          return failure();
        if (op->hasAttr(tile::kAsyncCopyAttr) &&
            address->space == MemorySpace::Shared)
          holdAsyncStore(op, *address,
                         storageBytes(store.getValueToStore().getType()));
        return success();
      })
      .Default([&](Operation *) { return unsupported(op); });
}

//===----------------------------------------------------------------------===//
// llvm pointers
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::executeLLVM(Operation *op) {
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](LLVM::ConstantOp) {
        set(op->getResult(0)) = launch.program.constants.lookup(op);
        return success();
      })
      .Case([&](LLVM::GEPOp) {
        // One index is decoded (Decode.cpp); a GEP into aggregates is not
        // what tile-to-gpu emits.
        return unsupported(op, "getelementptr with more than one index is "
                               "not supported");
      })
      .Case<LLVM::UndefOp, LLVM::PoisonOp, LLVM::ZeroOp, LLVM::InsertValueOp,
            LLVM::ExtractValueOp>(
          [&](Operation *) { return executeStruct(op); })
      .Case([&](LLVM::IntToPtrOp cast) -> LogicalResult {
        std::optional<Address> address =
            Address::fromInteger(get(cast.getArg())[0]);
        if (!address)
          return fail(op, "inttoptr of an integer that is no pointer's");
        address->toSlots(set(cast.getResult()));
        return success();
      })
      .Case([&](LLVM::PtrToIntOp cast) {
        set(cast.getResult()) = {
            truncateBits(Address::fromSlots(get(cast.getArg())).toInteger(),
                         classify(cast.getType()).bits)};
        return success();
      })
      .Case([&](LLVM::AtomicRMWOp update) -> LogicalResult {
        // One read-modify-write of one element: an atomic access, which
        // races with plain accesses but not with other atomic ones.
        Type type = update.getVal().getType();
        ElementType element = classify(type);
        uint8_t *bytes = access(op, Address::fromSlots(get(update.getPtr())),
                                storageBytes(type), AccessKind::Atomic);
        if (!bytes)
          return failure();
        Slots old;
        readSlots(bytes, type, old);
        uint64_t a = old[0], b = get(update.getVal())[0];
        auto floats = [&](auto fn) {
          return encodeFloat(element.kind, fn(decodeDouble(element.kind, a),
                                              decodeDouble(element.kind, b)));
        };
        int64_t x = signExtend(a, element.bits),
                y = signExtend(b, element.bits);
        uint64_t result;
        switch (update.getBinOp()) {
        case LLVM::AtomicBinOp::fadd:
          // f32 adds in float, as the GPU does; f16 rounds once.
          result = element.kind == ElementKind::F32
                       ? bitCast<uint32_t>(decodeFloat(element.kind, a) +
                                           decodeFloat(element.kind, b))
                       : floats([](double p, double q) { return p + q; });
          break;
        case LLVM::AtomicBinOp::fmax:
          result = floats([](double p, double q) { return std::fmax(p, q); });
          break;
        case LLVM::AtomicBinOp::fmin:
          result = floats([](double p, double q) { return std::fmin(p, q); });
          break;
        case LLVM::AtomicBinOp::add:
          result = truncateBits(a + b, element.bits);
          break;
        case LLVM::AtomicBinOp::max:
          result =
              truncateBits(static_cast<uint64_t>(std::max(x, y)), element.bits);
          break;
        case LLVM::AtomicBinOp::min:
          result =
              truncateBits(static_cast<uint64_t>(std::min(x, y)), element.bits);
          break;
        default:
          return unsupported(op, "this llvm.atomicrmw operation");
        }
        writeSlots(bytes, type, Slots{result});
        set(update.getRes()) = old;
        return success();
      })
      .Case([&](LLVM::StoreOp store) -> LogicalResult {
        Address address = Address::fromSlots(get(store.getAddr()));
        if (failed(checkScatterRepeat(op, address)))
          return failure();
        return storeValue(op, address, store.getValue(), store.getAlignment());
      })
      .Default([&](Operation *) { return unsupported(op); });
}

//===----------------------------------------------------------------------===//
// vector
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::executeVector(Operation *op) {
  // The first slot and the count of the part of `vector` at `position`
  // (a prefix of its indices), or none after an error.
  auto locate = [&](VectorType vector, ArrayRef<int64_t> staticPosition,
                    ValueRange dynamicPosition)
      -> std::optional<std::pair<int64_t, int64_t>> {
    ArrayRef<int64_t> shape = vector.getShape();
    SmallVector<int64_t> position;
    auto dynamic = dynamicPosition.begin();
    for (auto [index, staticIndex] : llvm::enumerate(staticPosition)) {
      int64_t value = staticIndex;
      if (ShapedType::isDynamic(value))
        value = static_cast<int64_t>(get(*dynamic++)[0]);
      if (value < 0 || value >= shape[index]) {
        (void)fail(op, "vector position " + Twine(value) +
                           " is outside dimension " + Twine(index) +
                           " of size " + Twine(shape[index]));
        return std::nullopt;
      }
      position.push_back(value);
    }
    return vectorPart(shape, position);
  };

  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](vector::ExtractOp extract) {
        auto part =
            locate(extract.getSourceVectorType(), extract.getStaticPosition(),
                   extract.getDynamicPosition());
        if (!part)
          return failure();
        const Slots &source = get(extract.getSource());
        set(extract.getResult())
            .assign(source.begin() + part->first,
                    source.begin() + part->first + part->second);
        return success();
      })
      .Case([&](vector::InsertOp insert) {
        auto part =
            locate(insert.getDestVectorType(), insert.getStaticPosition(),
                   insert.getDynamicPosition());
        if (!part)
          return failure();
        Slots &result = set(insert.getResult());
        result = get(insert.getDest());
        const Slots &value = get(insert.getValueToStore());
        std::copy(value.begin(), value.end(), result.begin() + part->first);
        return success();
      })
      .Case([&](vector::FromElementsOp build) {
        Slots &result = set(build.getResult());
        result.clear();
        for (Value element : build.getElements())
          result.push_back(get(element)[0]);
        return success();
      })
      .Case([&](vector::BroadcastOp broadcast) {
        // Source dims align with the result's trailing dims; a source dim of
        // 1 (or a missing one) repeats.
        VectorType resultType = broadcast.getResultVectorType();
        ArrayRef<int64_t> shape = resultType.getShape();
        SmallVector<int64_t> sourceShape;
        if (auto source = dyn_cast<VectorType>(broadcast.getSourceType()))
          sourceShape.assign(source.getShape().begin(),
                             source.getShape().end());
        size_t leading = shape.size() - sourceShape.size();
        const Slots &source = get(broadcast.getSource());
        Slots &result = set(broadcast.getResult());
        result.resize(resultType.getNumElements());
        for (int64_t linear = 0, e = result.size(); linear < e; ++linear) {
          int64_t rest = linear, sourceIndex = 0, stride = 1;
          for (size_t d = shape.size(); d-- > leading;) {
            int64_t coordinate = rest % shape[d];
            rest /= shape[d];
            int64_t sourceSize = sourceShape[d - leading];
            sourceIndex += (sourceSize == 1 ? 0 : coordinate) * stride;
            stride *= sourceSize;
          }
          result[linear] = source[sourceIndex];
        }
        return success();
      })
      .Case([&](vector::LoadOp load) {
        return loadValue(op,
                         memrefElement(op, load.getBase(), load.getIndices()),
                         load.getResult(), load.getAlignment());
      })
      .Case([&](vector::StoreOp store) {
        return storeValue(
            op, memrefElement(op, store.getBase(), store.getIndices()),
            store.getValueToStore(), store.getAlignment());
      })
      .Case([&](vector::ShapeCastOp cast) {
        set(cast.getResult()) = get(cast.getSource());
        return success();
      })
      .Default([&](Operation *) { return unsupported(op); });
}
