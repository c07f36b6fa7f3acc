//===- Npy.h - numpy's .npy files as host tensors ---------------*- C++ -*-===//
//
// `tile-run --input NAME=FILE.npy` reads a user's array and `--output-dir`
// writes every output as NAME.npy, in numpy's own format (numpy's
// `lib/format.py`): the magic "\x93NUMPY", a version, a header that is a
// Python dict literal with exactly 'descr', 'fortran_order' and 'shape',
// then the elements. The header is parsed strictly: anything but what
// numpy writes for a C-ordered little-endian array of one of tile's
// element types is an error that says what is wrong.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_NPY_H
#define TILE_RUNTIME_NPY_H

#include "tile/Runtime/Tensor.h"

#include <string_view>

namespace tile::runtime {

/// A .npy file, parsed: numpy's type string ("<f4"), the shape, and the
/// elements' bytes (a view into the file's bytes).
struct NpyArray {
  std::string descr;
  std::vector<int64_t> shape;
  std::string_view data;
};

/// Parses the bytes of a .npy file (format versions 1.0, 2.0 and 3.0).
/// Errors: not a .npy file, a header numpy would not write, a structured
/// dtype, Fortran order, data shorter (truncated) or longer than the
/// shape's.
Expected<NpyArray> parseNpy(std::string_view bytes);

/// The type string numpy writes for an array of `dtype`: "<f4", "<f2",
/// "<u2" for bf16 (its bit patterns: numpy has no bfloat16), "<i4", "|b1",
/// "<i8" for index.
const char *getNpyDescr(DType dtype);

/// The tensor of element type `dtype` a .npy file holds; an error when the
/// file's type string is not getNpyDescr(dtype) (naming both, and whether
/// tile has an element type for the file's at all), or a bool array holds
/// a byte other than 0 and 1. The shape is the file's (unchecked).
Expected<HostTensor> readNpyTensor(std::string_view bytes, DType dtype);

/// `tensor` as the bytes of a version 1.0 .npy file, as numpy.save writes
/// it (the header padded to a multiple of 64 bytes).
std::string formatNpy(const HostTensor &tensor);

} // namespace tile::runtime

#endif // TILE_RUNTIME_NPY_H
