//===- Tensor.h - host buffers of the tile runtime --------------*- C++ -*-===//
//
// A HostTensor is a dense, row-major buffer on the host with its element
// type and shape: what a kernel parameter is bound to before a launch, and
// what the interpreter reads and writes. Elements are read and written as
// double, which holds every f32, f16, bf16, i32 and i1 value exactly.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_TENSOR_H
#define TILE_RUNTIME_TENSOR_H

#include "tile/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tile::runtime {

/// The element types of docs/abi.md; `Index` (a signed 64-bit integer) is
/// only the type of a scalar parameter.
enum class DType { F32, F16, BF16, I32, I1, Index };

/// "f32", "f16", "bf16", "i32", "i1" or "index" -> the DType; none for
/// other names.
std::optional<DType> parseDType(std::string_view name);
const char *dtypeName(DType dtype);
size_t dtypeSize(DType dtype);
bool isFloat(DType dtype);

/// The product of `shape`, or none when a size is negative or it overflows.
std::optional<int64_t> countElements(const std::vector<int64_t> &shape);
/// "[16, 4096]".
std::string formatShape(const std::vector<int64_t> &shape);

/// A tensor, or with an empty shape the value of a scalar parameter.
struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Little-endian, row-major, dtypeSize(dtype) bytes an element.
  std::vector<uint8_t> bytes;

  /// A tensor of zeros.
  static HostTensor zeros(DType dtype, std::vector<int64_t> shape);
  /// A tensor whose every element shows that nothing wrote it: NaN for
  /// floats, 0x7fffffff for i32, 0xff for i1 (which is neither 0 nor 1).
  static HostTensor poisoned(DType dtype, std::vector<int64_t> shape);

  size_t numElements() const { return bytes.size() / dtypeSize(dtype); }
  /// Whether element `index` holds exactly the bits poisoned() puts there.
  bool isPoison(size_t index) const;
  bool isScalar() const { return shape.empty(); }
  double get(size_t index) const;
  /// An integer element exactly (`get` rounds an index beyond 2^53).
  int64_t getInt(size_t index) const;
  /// Stores `value` rounded to the dtype: to nearest even for floats,
  /// wrapped to 32 bits for i32, `value != 0` for i1.
  void set(size_t index, double value);
  void setInt(size_t index, int64_t value);
};

/// "[0, 37]": the row-major position of element `index` in `shape`.
std::string formatIndex(const std::vector<int64_t> &shape, size_t index);

/// The whole file at `path`, as bytes.
Expected<std::string> readFile(const std::string &path);

} // namespace tile::runtime

#endif // TILE_RUNTIME_TENSOR_H
