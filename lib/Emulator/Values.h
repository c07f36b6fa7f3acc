//===- Values.h - the emulator's representation of SSA values -------------===//
//
// Every SSA value of a thread is a small array of 64-bit slots, whatever its
// type: a scalar is one slot, a vector one slot per element (row-major), a
// pointer or a memref two (the memory it points into and a byte offset).
// Integers are kept as their bit pattern zero-extended from their width;
// floats as their IEEE bits (f16/bf16 in 16 bits, f32 in 32), so that
// memory, bitcasts and shuffles move bits and only arithmetic decodes them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EMULATOR_VALUES_H
#define TILE_LIB_EMULATOR_VALUES_H

#include "tile/Runtime/Half.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <limits>
#include <optional>

namespace mlir::tile::emulator {

using Slots = llvm::SmallVector<uint64_t, 4>;

/// What a slot of a value holds, from its (element) type.
enum class ElementKind : uint8_t { Integer, F16, BF16, F32, F64, Other };

struct ElementType {
  ElementKind kind = ElementKind::Other;
  /// Bits of an integer (index: 64); bits of a float.
  unsigned bits = 0;

  bool isFloat() const {
    return kind != ElementKind::Integer && kind != ElementKind::Other;
  }
  /// Bytes in memory: i1 takes a byte, as in LLVM's data layout.
  unsigned bytes() const { return bits == 1 ? 1 : (bits + 7) / 8; }
};

/// The element type of a scalar or vector type.
inline ElementType classify(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  if (type.isIndex())
    return {ElementKind::Integer, 64};
  if (auto integer = dyn_cast<IntegerType>(type))
    return {integer.getWidth() <= 64 ? ElementKind::Integer
                                     : ElementKind::Other,
            integer.getWidth()};
  if (type.isF16())
    return {ElementKind::F16, 16};
  if (type.isBF16())
    return {ElementKind::BF16, 16};
  if (type.isF32())
    return {ElementKind::F32, 32};
  if (type.isF64())
    return {ElementKind::F64, 64};
  return {};
}

/// Slots of a value of `type`: elements of a vector, else one.
inline int64_t slotCount(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

/// The first slot and the slot count of the part of a vector of `shape` at
/// `position` (a prefix of its indices, each inside its dimension).
inline std::pair<int64_t, int64_t> vectorPart(ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> position) {
  int64_t first = 0;
  for (auto [index, value] : llvm::enumerate(position))
    first = first * shape[index] + value;
  int64_t count = 1;
  for (int64_t size : shape.drop_front(position.size()))
    count *= size;
  return {first * count, count};
}

/// Bytes a value of `type` takes in memory (vectors densely packed).
inline int64_t storageBytes(Type type) {
  return classify(type).bytes() * slotCount(type);
}

inline uint64_t truncateBits(uint64_t value, unsigned bits) {
  return bits >= 64 ? value : value & ((uint64_t(1) << bits) - 1);
}

inline int64_t signExtend(uint64_t value, unsigned bits) {
  if (bits >= 64)
    return static_cast<int64_t>(value);
  unsigned shift = 64 - bits;
  return static_cast<int64_t>(value << shift) >> shift;
}

template <typename To, typename From> To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

/// The value of f16 `bits`, by moving its fields (the same values as
/// tile::runtime::fromHalfBits, which computes them with ldexp: a hot spot
/// of f16 kernels).
inline float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::numeric_limits<float>::quiet_NaN()
                    : bitCast<float>(sign | 0x7f800000u);
  if (exponent == 0) {
    float subnormal = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -subnormal : subnormal;
  }
  return bitCast<float>(sign | (exponent + 112) << 23 | mantissa << 13);
}

/// The f16 bits of `value` rounded to nearest even, from its fields (the
/// same bits as tile::runtime::toHalfBits).
inline uint16_t doubleToHalf(double value) {
  uint64_t bits = bitCast<uint64_t>(value);
  auto sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  if (std::isnan(value))
    return sign | 0x7e00;
  double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) // rounds past 65504
    return sign | 0x7c00;
  if (magnitude < 0x1p-14) // a count of 2^-24, which may round up to 2^-14
    return sign | static_cast<uint16_t>(std::nearbyint(magnitude * 0x1p24));
  int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
  uint64_t kept = fraction >> 42, rest = fraction & ((uint64_t(1) << 42) - 1);
  uint64_t half = uint64_t(1) << 41;
  if (rest > half || (rest == half && (kept & 1)))
    ++kept; // a carry into the exponent is the next binade's encoding
  return sign | static_cast<uint16_t>(((exponent + 15) << 10) + kept);
}

/// The value of a 16- or 32-bit float slot. f32 arithmetic happens in
/// float, so results round as the GPU's f32 instructions do.
inline float decodeFloat(ElementKind kind, uint64_t bits) {
  switch (kind) {
  case ElementKind::F16:
    return halfToFloat(static_cast<uint16_t>(bits));
  case ElementKind::BF16:
    return static_cast<float>(::tile::runtime::fromBFloat16Bits(bits));
  default:
    return bitCast<float>(static_cast<uint32_t>(bits));
  }
}

/// The bits of `value` rounded to `kind`, to nearest even.
inline uint64_t encodeFloat(ElementKind kind, double value) {
  switch (kind) {
  case ElementKind::F16:
    return doubleToHalf(value);
  case ElementKind::BF16:
    return ::tile::runtime::toBFloat16Bits(value);
  case ElementKind::F64:
    return bitCast<uint64_t>(value);
  default:
    return bitCast<uint32_t>(static_cast<float>(value));
  }
}

inline double decodeDouble(ElementKind kind, uint64_t bits) {
  return kind == ElementKind::F64 ? bitCast<double>(bits)
                                  : decodeFloat(kind, bits);
}

/// Where a pointer or memref points: which memory and the byte offset in it.
/// Global buffers are numbered by parameter; shared and private memories
/// get their own spaces.
enum class MemorySpace : uint32_t { Global, Shared, Private };

struct Address {
  MemorySpace space = MemorySpace::Global;
  uint32_t memory = 0;
  int64_t offset = 0;

  static Address fromSlots(const Slots &slots) {
    return {static_cast<MemorySpace>(slots[0] >> 32),
            static_cast<uint32_t>(slots[0]), static_cast<int64_t>(slots[1])};
  }
  void toSlots(Slots &slots) const {
    slots.assign({(uint64_t(space) << 32) | memory, uint64_t(offset)});
  }

  /// The address as one integer (llvm.ptrtoint, the aligned pointer of a
  /// memref): the space and memory above bit 40, the offset below, so
  /// that adding to the integer moves the offset and the low bits tell
  /// the alignment (every memory starts aligned).
  static constexpr unsigned kOffsetBits = 40;
  uint64_t toInteger() const {
    return (uint64_t(space) + 1) << 56 | uint64_t(memory) << kOffsetBits |
           (uint64_t(offset) & ((uint64_t(1) << kOffsetBits) - 1));
  }
  /// The address an integer of toInteger() names; none for another one.
  static std::optional<Address> fromInteger(uint64_t value) {
    uint64_t space = value >> 56;
    if (space == 0 || space > 3)
      return std::nullopt;
    return Address{static_cast<MemorySpace>(space - 1),
                   static_cast<uint32_t>((value >> kOffsetBits) & 0xffff),
                   signExtend(value, kOffsetBits)};
  }
};

} // namespace mlir::tile::emulator

#endif // TILE_LIB_EMULATOR_VALUES_H
