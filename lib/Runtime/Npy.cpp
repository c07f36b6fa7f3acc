//===- Npy.cpp - numpy's .npy files as host tensors -----------------------===//

#include "tile/Runtime/Npy.h"

#include <cstring>

using namespace tile::runtime;

namespace {
constexpr std::string_view kMagic = "\x93NUMPY";

/// numpy's names of the type strings a user is likely to hold, for errors.
const char *getNumpyName(std::string_view descr) {
  static const std::pair<const char *, const char *> names[] = {
      {"<f2", "float16"},
      {"<f4", "float32"},
      {"<f8", "float64"},
      {"<i1", "int8"},
      {"|i1", "int8"},
      {"<i2", "int16"},
      {"<i4", "int32"},
      {"<i8", "int64"},
      {"<u1", "uint8"},
      {"|u1", "uint8"},
      {"<u2", "uint16"},
      {"<u4", "uint32"},
      {"<u8", "uint64"},
      {"|b1", "bool"},
      {"<c8", "complex64"},
      {"<c16", "complex128"},
      {"<V2", "bfloat16 (ml_dtypes)"}};
  for (const auto &[type, name] : names)
    if (descr == type)
      return name;
  return nullptr;
}

/// A reader of the header's dict literal, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (16, 64), }
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  Error parse(NpyArray &array, bool &fortranOrder) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    skipSpaces();
    if (!consume('{'))
      return fail("does not start with '{'");
    while (true) {
      skipSpaces();
      if (consume('}'))
        break;
      std::string key;
      if (Error error = parseString(key))
        return error;
      skipSpaces();
      if (!consume(':'))
        return fail("expects ':' after '" + key + "'");
      skipSpaces();
      bool *seen = key == "descr"           ? &seenDescr
                   : key == "fortran_order" ? &seenOrder
                   : key == "shape"         ? &seenShape
                                            : nullptr;
      if (!seen)
        return fail("has the key '" + key +
                    "' (numpy writes only 'descr', 'fortran_order' and "
                    "'shape')");
      if (*seen)
        return fail("has '" + key + "' twice");
      *seen = true;
      Error error = key == "descr"           ? parseDescr(array.descr)
                    : key == "fortran_order" ? parseBool(fortranOrder)
                                             : parseShape(array.shape);
      if (error)
        return error;
      skipSpaces();
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return fail("expects ',' or '}' after '" + key + "'");
    }
    // numpy pads with spaces and ends the header with a newline.
    skipSpaces();
    if (at != text.size())
      return fail("has bytes after its '}'");
    if (!seenDescr || !seenOrder || !seenShape)
      return fail(std::string("has no '") +
                  (!seenDescr   ? "descr"
                   : !seenOrder ? "fortran_order"
                                : "shape") +
                  "'");
    return Error::success();
  }

private:
  Error fail(const std::string &what) {
    return Error::input("not a .npy file numpy writes: its header %s",
                        what.c_str());
  }
  void skipSpaces() {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n'))
      ++at;
  }
  bool consume(char c) {
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
  bool consumeWord(std::string_view word) {
    if (text.substr(at, word.size()) != word)
      return false;
    at += word.size();
    return true;
  }
  Error parseString(std::string &out) {
    char quote = at < text.size() ? text[at] : 0;
    if (quote != '\'' && quote != '"')
      return fail("expects a quoted string at byte " + std::to_string(at));
    size_t end = text.find(quote, at + 1);
    if (end == std::string_view::npos)
      return fail("has an unterminated string");
    out = std::string(text.substr(at + 1, end - at - 1));
    at = end + 1;
    return Error::success();
  }
  Error parseDescr(std::string &out) {
    if (at < text.size() && text[at] == '[')
      return Error::input("unsupported dtype: the file holds a structured "
                          "array (a record of fields); tile reads arrays of "
                          "one element type");
    return parseString(out);
  }
  Error parseBool(bool &out) {
    if (consumeWord("True"))
      out = true;
    else if (consumeWord("False"))
      out = false;
    else
      return fail("has a 'fortran_order' that is neither True nor False");
    return Error::success();
  }
  Error parseShape(std::vector<int64_t> &out) {
    if (!consume('('))
      return fail("has a 'shape' that is not a tuple");
    while (true) {
      skipSpaces();
      if (consume(')'))
        return Error::success();
      size_t start = at;
      int64_t size = 0;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9')
        if (__builtin_mul_overflow(size, 10, &size) ||
            __builtin_add_overflow(size, text[at++] - '0', &size))
          return fail("has a dimension too large for 64 bits");
      if (at == start)
        return fail("has a 'shape' with something other than sizes");
      out.push_back(size);
      skipSpaces();
      if (consume(','))
        continue;
      if (consume(')'))
        break;
      return fail("has a 'shape' without ',' or ')' after a size");
    }
    // Python writes a 1-tuple as (N,): (N) is a number, not a tuple.
    if (out.size() == 1)
      return fail("has a 'shape' of one size without its ',' ((N,))");
    return Error::success();
  }

  std::string_view text;
  size_t at = 0;
};
} // namespace

Expected<NpyArray> tile::runtime::parseNpy(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return Error::input("not a .npy file (it does not start with numpy's "
                        "magic \\x93NUMPY)");
  if (bytes.size() < kMagic.size() + 4)
    return Error::input("truncated: the file ends inside its .npy preamble");
  auto byte = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
  uint8_t major = byte(6);
  if (major < 1 || major > 3)
    return Error::input("a .npy file of format version %u.%u, which tile "
                        "does not read (1.0, 2.0 and 3.0)",
                        major, byte(7));
  // Version 1.0 gives the header's length in 2 bytes, 2.0 and 3.0 in 4.
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t start = 8 + lengthBytes;
  if (bytes.size() < start)
    return Error::input("truncated: the file ends inside its .npy preamble");
  size_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= static_cast<size_t>(byte(8 + i)) << (8 * i);
  if (bytes.size() - start < headerLength)
    return Error::input("truncated: the file ends inside its header (%zu of "
                        "%zu bytes)",
                        bytes.size() - start, headerLength);
  std::string_view header = bytes.substr(start, headerLength);
  if (header.empty() || header.back() != '\n')
    return Error::input("not a .npy file numpy writes: its header does not "
                        "end with a newline");
  NpyArray array;
  bool fortranOrder = false;
  if (Error error = HeaderParser(header).parse(array, fortranOrder))
    return error;
  if (fortranOrder && array.shape.size() > 1)
    return Error::input("the array is in Fortran order (column-major); tile "
                        "reads C order: save np.ascontiguousarray(a)");
  // Checked by readNpyTensor against the parameter; here only its size.
  size_t itemSize = 0;
  std::string_view descr = array.descr;
  // The size in bytes of numbers ('<f4'); 0 for the kinds whose size is
  // counted otherwise (strings, objects), which readNpyTensor rejects.
  if (descr.size() >= 3 && std::strchr("<>|=", descr[0]) &&
      std::strchr("fiubc", descr[1]))
    for (char c : descr.substr(2))
      itemSize = c >= '0' && c <= '9' ? itemSize * 10 + (c - '0') : 0;
  std::optional<int64_t> count = countElements(array.shape);
  size_t dataBytes = 0;
  if (!count ||
      __builtin_mul_overflow(static_cast<size_t>(*count), itemSize, &dataBytes))
    return Error::input("the shape %s is too large",
                        formatShape(array.shape).c_str());
  std::string_view data = bytes.substr(start + headerLength);
  if (itemSize && data.size() < dataBytes)
    return Error::input("truncated: the header's shape %s of '%s' needs %zu "
                        "bytes of data, the file holds %zu",
                        formatShape(array.shape).c_str(), array.descr.c_str(),
                        dataBytes, data.size());
  if (itemSize && data.size() > dataBytes)
    return Error::input("%zu bytes after the data of the header's shape %s "
                        "of '%s' (%zu bytes): not one array",
                        data.size() - dataBytes,
                        formatShape(array.shape).c_str(), array.descr.c_str(),
                        dataBytes);
  array.data = data;
  return array;
}

const char *tile::runtime::getNpyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "<u2";
  case DType::I32:
    return "<i4";
  case DType::I1:
    return "|b1";
  case DType::Index:
    return "<i8";
  }
  return "?";
}

/// "f32 ('<f4'): save a.astype(numpy.float32)", what a parameter of
/// `dtype` takes.
static std::string describeWanted(DType dtype) {
  return std::string(dtypeName(dtype)) + " ('" + getNpyDescr(dtype) +
         "'): save a.astype(numpy." + getNumpyName(getNpyDescr(dtype)) + ")" +
         (dtype == DType::BF16 ? ", bfloat16's bit patterns" : "");
}

Expected<HostTensor> tile::runtime::readNpyTensor(std::string_view bytes,
                                                  DType dtype) {
  Expected<NpyArray> array = parseNpy(bytes);
  if (!array)
    return array.takeError();
  const std::string &descr = array->descr;
  if (descr != getNpyDescr(dtype)) {
    const char *numpyName = getNumpyName(descr);
    std::string held = (numpyName ? numpyName : descr) +
                       (numpyName ? " ('" + descr + "')" : "");
    // A type another parameter could take, or none of tile's at all.
    bool tileHasIt = false;
    for (DType other : {DType::F32, DType::F16, DType::BF16, DType::I32,
                        DType::I1, DType::Index})
      tileHasIt |= descr == getNpyDescr(other);
    if (!descr.empty() && descr[0] == '>')
      return Error::input("unsupported dtype '%s': big-endian; tile reads "
                          "little-endian arrays (a.astype(a.dtype."
                          "newbyteorder('<')))",
                          descr.c_str());
    if (!tileHasIt)
      return Error::input("unsupported dtype: the file holds %s, which is "
                          "no element type of tile; the parameter is %s",
                          held.c_str(), describeWanted(dtype).c_str());
    return Error::input("wrong dtype: the file holds %s, the parameter is %s",
                        held.c_str(), describeWanted(dtype).c_str());
  }
  HostTensor tensor = HostTensor::zeros(dtype, array->shape);
  if (tensor.bytes.size() != array->data.size())
    return Error::input("the data of shape %s does not fit in memory",
                        formatShape(array->shape).c_str());
  std::memcpy(tensor.bytes.data(), array->data.data(), tensor.bytes.size());
  if (dtype == DType::I1)
    for (size_t i = 0; i < tensor.bytes.size(); ++i)
      if (tensor.bytes[i] > 1)
        return Error::input("element %s of the bool array is the byte %u, "
                            "not 0 or 1",
                            formatIndex(tensor.shape, i).c_str(),
                            tensor.bytes[i]);
  return tensor;
}

std::string tile::runtime::formatNpy(const HostTensor &tensor) {
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  shape += tensor.shape.size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + getNpyDescr(tensor.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // numpy pads the preamble and header to a multiple of 64 bytes with
  // spaces, then a newline.
  size_t preamble = kMagic.size() + 4;
  size_t padded = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(padded - preamble - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char *>(tensor.bytes.data()),
             tensor.bytes.size());
  return out;
}
