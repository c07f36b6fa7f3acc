//===- NpyTest.cpp - numpy's .npy files as host tensors -------------------===//

#include "tile/Runtime/Npy.h"

#include "gtest/gtest.h"

using namespace tile::runtime;

namespace {

/// A version 1.0 file with `header` (padded as numpy pads it) and `data`.
std::string npyFile(const std::string &header, const std::string &data) {
  std::string text = header;
  size_t padded = (10 + text.size() + 1 + 63) / 64 * 64;
  text.append(padded - 10 - text.size() - 1, ' ');
  text += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(text.size() & 0xff);
  out += static_cast<char>(text.size() >> 8);
  return out + text + data;
}

std::string errorOf(const std::string &bytes, DType dtype = DType::F32) {
  Expected<HostTensor> tensor = readNpyTensor(bytes, dtype);
  return tensor ? "" : tensor.getError().message();
}

TEST(NpyTest, RoundTripsEveryDType) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32,
                      DType::I1, DType::Index}) {
    HostTensor tensor = HostTensor::zeros(dtype, {3, 5});
    for (size_t i = 0; i < tensor.numElements(); ++i)
      tensor.set(i, dtype == DType::I1 ? i % 2 : double(i) - 7);
    std::string bytes = formatNpy(tensor);
    // numpy's alignment: the data starts at a multiple of 64 bytes.
    EXPECT_EQ((bytes.size() - tensor.bytes.size()) % 64, 0u);
    Expected<HostTensor> back = readNpyTensor(bytes, dtype);
    ASSERT_TRUE(back) << back.getError().message();
    EXPECT_EQ(back->shape, tensor.shape);
    EXPECT_EQ(back->bytes, tensor.bytes);
  }
}

TEST(NpyTest, WritesNumpysHeader) {
  HostTensor vector = HostTensor::zeros(DType::F32, {4});
  std::string bytes = formatNpy(vector);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (4,), }"),
            std::string::npos);
  EXPECT_NE(formatNpy(HostTensor::zeros(DType::I32, {2, 3})).find("(2, 3)"),
            std::string::npos);
}

TEST(NpyTest, ReadsVersions2And3AndSpacing) {
  std::string header = "{\"descr\":'<i4' ,'shape':( 2 ,),'fortran_order':"
                       "False}";
  std::string data(8, '\0');
  data[0] = 7;
  for (char version : {'\x02', '\x03'}) {
    std::string text = header + "\n";
    std::string bytes = std::string("\x93NUMPY", 6) + version + '\0';
    bytes += static_cast<char>(text.size());
    bytes += std::string(3, '\0');
    Expected<HostTensor> tensor =
        readNpyTensor(bytes + text + data, DType::I32);
    ASSERT_TRUE(tensor) << tensor.getError().message();
    EXPECT_EQ(tensor->shape, (std::vector<int64_t>{2}));
    EXPECT_EQ(tensor->get(0), 7);
  }
}

TEST(NpyTest, RejectsWhatNumpyWouldNotWrite) {
  std::string four(4, '\0');
  auto header = [](const std::string &descr, const std::string &order,
                   const std::string &shape) {
    return "{'descr': '" + descr + "', 'fortran_order': " + order +
           ", 'shape': " + shape + ", }";
  };
  EXPECT_EQ(errorOf(npyFile(header("<f4", "False", "(1,)"), four)), "");
  EXPECT_NE(errorOf("P5\n").find("not a .npy file"), std::string::npos);
  EXPECT_NE(errorOf(npyFile(header("<f4", "True", "(1, 1)"), four))
                .find("Fortran order"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile(header("<f4", "False", "(2,)"), four))
                .find("truncated: the header's shape [2] of '<f4' needs 8 "
                      "bytes of data, the file holds 4"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile(header("<f4", "False", "(1,)"), four + "x"))
                .find("1 bytes after the data"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile(header("<f4", "False", "(1)"), four))
                .find("without its ','"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile("{'descr': '<f4', 'shape': (1,), }", four))
                .find("has no 'fortran_order'"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (1,), 'extra': 1}",
                            four))
                .find("has the key 'extra'"),
            std::string::npos);
  EXPECT_NE(errorOf(npyFile("{'descr': [('a', '<f4')], 'fortran_order': "
                            "False, 'shape': (1,), }",
                            four))
                .find("structured array"),
            std::string::npos);
  std::string truncated = npyFile(header("<f4", "False", "(1,)"), four);
  EXPECT_NE(errorOf(truncated.substr(0, 30)).find("ends inside its header"),
            std::string::npos);
}

TEST(NpyTest, NamesWrongAndUnsupportedDTypes) {
  std::string eight(8, '\0');
  auto file = [&](const std::string &descr) {
    return npyFile("{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': (1,), }",
                   eight.substr(0, descr == "<f2"   ? 2
                                   : descr == "<i4" ? 4
                                                    : 8));
  };
  EXPECT_EQ(errorOf(file("<f8")),
            "unsupported dtype: the file holds float64 ('<f8'), which is no "
            "element type of tile; the parameter is f32 ('<f4'): save "
            "a.astype(numpy.float32)");
  EXPECT_EQ(errorOf(file("<i4")),
            "wrong dtype: the file holds int32 ('<i4'), the parameter is f32 "
            "('<f4'): save a.astype(numpy.float32)");
  EXPECT_NE(errorOf(file("<f2"), DType::BF16).find("bfloat16's bit patterns"),
            std::string::npos);
  EXPECT_NE(errorOf(file(">f8")).find("big-endian"), std::string::npos);
}

TEST(NpyTest, BoolsAreZeroOrOne) {
  std::string header =
      "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  EXPECT_EQ(errorOf(npyFile(header, std::string("\x01\x00\x01", 3)), DType::I1),
            "");
  EXPECT_EQ(errorOf(npyFile(header, std::string("\x01\x02\x01", 3)), DType::I1),
            "element [1] of the bool array is the byte 2, not 0 or 1");
}

} // namespace
