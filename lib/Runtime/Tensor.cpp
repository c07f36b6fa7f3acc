//===- Tensor.cpp - host buffers of the tile runtime ----------------------===//

#include "tile/Runtime/Tensor.h"
#include "tile/Runtime/Half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace tile::runtime;

std::optional<DType> tile::runtime::parseDType(std::string_view name) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32,
                      DType::I1, DType::Index})
    if (name == dtypeName(dtype))
      return dtype;
  return std::nullopt;
}

const char *tile::runtime::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I32:
    return "i32";
  case DType::I1:
    return "i1";
  case DType::Index:
    return "index";
  }
  return "?";
}

size_t tile::runtime::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I1:
    return 1;
  case DType::Index:
    return 8;
  }
  return 1;
}

bool tile::runtime::isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

std::optional<int64_t>
tile::runtime::countElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    if (size < 0 || __builtin_mul_overflow(count, size, &count))
      return std::nullopt;
  return count;
}

std::string tile::runtime::formatShape(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

HostTensor HostTensor::zeros(DType dtype, std::vector<int64_t> shape) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.bytes.assign(countElements(shape).value_or(0) * dtypeSize(dtype), 0);
  tensor.shape = std::move(shape);
  return tensor;
}

HostTensor HostTensor::poisoned(DType dtype, std::vector<int64_t> shape) {
  HostTensor tensor = zeros(dtype, std::move(shape));
  if (dtype == DType::I1) {
    std::memset(tensor.bytes.data(), 0xff, tensor.bytes.size());
    return tensor;
  }
  double poison = isFloat(dtype)          ? std::nan("")
                  : dtype == DType::Index ? 9.2e18
                                          : 2147483647.0;
  for (size_t i = 0; i < tensor.numElements(); ++i)
    tensor.set(i, poison);
  return tensor;
}

bool HostTensor::isPoison(size_t index) const {
  static const HostTensor poison[] = {
      poisoned(DType::F32, {1}), poisoned(DType::F16, {1}),
      poisoned(DType::BF16, {1}), poisoned(DType::I32, {1}),
      poisoned(DType::I1, {1})};
  size_t size = dtypeSize(dtype);
  return std::memcmp(bytes.data() + index * size,
                     poison[static_cast<int>(dtype)].bytes.data(), size) == 0;
}

double HostTensor::get(size_t index) const {
  const uint8_t *element = bytes.data() + index * dtypeSize(dtype);
  switch (dtype) {
  case DType::F32: {
    float value;
    std::memcpy(&value, element, sizeof(value));
    return value;
  }
  case DType::I32: {
    int32_t value;
    std::memcpy(&value, element, sizeof(value));
    return value;
  }
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, element, sizeof(bits));
    return dtype == DType::F16 ? fromHalfBits(bits) : fromBFloat16Bits(bits);
  }
  case DType::I1:
    return *element;
  case DType::Index:
    return static_cast<double>(getInt(index));
  }
  return 0;
}

int64_t HostTensor::getInt(size_t index) const {
  if (dtype != DType::Index)
    return static_cast<int64_t>(get(index));
  int64_t value;
  std::memcpy(&value, bytes.data() + index * 8, sizeof(value));
  return value;
}

void HostTensor::setInt(size_t index, int64_t value) {
  if (dtype != DType::Index)
    return set(index, static_cast<double>(value));
  std::memcpy(bytes.data() + index * 8, &value, sizeof(value));
}

void HostTensor::set(size_t index, double value) {
  uint8_t *element = bytes.data() + index * dtypeSize(dtype);
  switch (dtype) {
  case DType::F32: {
    auto narrowed = static_cast<float>(value);
    std::memcpy(element, &narrowed, sizeof(narrowed));
    return;
  }
  case DType::I32: {
    // Wrap to 32 bits, as the integer ops of a kernel do; a value no
    // int64 holds (NaN, huge) would be undefined behaviour to convert.
    if (!(std::fabs(value) < 0x1p63))
      value = 0;
    auto wrapped = static_cast<int32_t>(static_cast<uint32_t>(
        static_cast<uint64_t>(static_cast<int64_t>(value))));
    std::memcpy(element, &wrapped, sizeof(wrapped));
    return;
  }
  case DType::F16:
  case DType::BF16: {
    uint16_t bits =
        dtype == DType::F16 ? toHalfBits(value) : toBFloat16Bits(value);
    std::memcpy(element, &bits, sizeof(bits));
    return;
  }
  case DType::I1:
    *element = value != 0;
    return;
  case DType::Index:
    setInt(index, std::fabs(value) < 0x1p63 ? static_cast<int64_t>(value) : 0);
    return;
  }
}

std::string tile::runtime::formatIndex(const std::vector<int64_t> &shape,
                                       size_t index) {
  std::vector<int64_t> position(shape.size());
  for (size_t dim = shape.size(); dim-- > 0;) {
    int64_t size = shape[dim] > 0 ? shape[dim] : 1;
    position[dim] = static_cast<int64_t>(index % size);
    index /= size;
  }
  return formatShape(position);
}

Expected<std::string> tile::runtime::readFile(const std::string &path) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    return Error::input("'%s' is not a file", path.c_str());
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Error::input("cannot open '%s'", path.c_str());
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad())
    return Error::input("cannot read '%s'", path.c_str());
  return contents.str();
}
