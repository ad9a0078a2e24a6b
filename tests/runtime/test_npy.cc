// runtime::load_npy / save_npy against the .npy format as numpy writes it (NEP 1 /
// numpy.lib.format): headers written here byte by byte, every supported dtype round-tripped, and
// malformed files rejected with the reason before anything is allocated.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "minitvm/runtime/npy.h"
#include "minitvm/support/error.h"

using namespace minitvm;
using namespace minitvm::runtime;

namespace {

// A version 1.0 file with `header` (padded with spaces and '\n' to a multiple of 64, as numpy does)
// followed by `data`.
std::string npy_v1(std::string header, const std::string& data) {
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string s("\x93NUMPY\x01\x00", 8);
  s += char(header.size() & 0xff);
  s += char(header.size() >> 8);
  return s + header + data;
}

std::string floats(std::initializer_list<float> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * 4);
}

std::string error_of(const std::string& bytes) {
  try {
    load_npy_bytes(bytes, "t.npy");
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Npy, ReadsWhatNumpyWrites) {
  NDArray a = load_npy_bytes(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                    floats({0, 1, 2, 3, 4, 5})));
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.dtype(), DataType::Float(32));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  // 1-D "(3,)", a scalar "()", double quotes, no trailing comma, Python 2 longs, a '|u1' and a
  // version 2.0 header (4-byte length).
  EXPECT_EQ(load_npy_bytes(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                  floats({1, 2, 3})))
                .shape(),
            (std::vector<int64_t>{3}));
  NDArray s = load_npy_bytes(
      npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floats({7})));
  EXPECT_TRUE(s.shape().empty());
  EXPECT_EQ(s.to_vector<float>(), std::vector<float>{7});
  EXPECT_EQ(
      load_npy_bytes(
          npy_v1("{\"shape\": (1L, 2L), \"descr\": \"|u1\", \"fortran_order\": False}", "\x05\x09"))
          .to_vector<uint8_t>(),
      (std::vector<uint8_t>{5, 9}));
  std::string h = "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }";
  h.append(64 - (12 + h.size() + 1) % 64, ' ');
  h += '\n';
  std::string v2("\x93NUMPY\x02\x00", 8);
  for (int k = 0; k < 4; ++k) v2 += char((h.size() >> (8 * k)) & 0xff);
  int64_t d[2] = {-3, 1LL << 40};
  v2 += h + std::string(reinterpret_cast<const char*>(d), 16);
  EXPECT_EQ(load_npy_bytes(v2).to_vector<int64_t>(), (std::vector<int64_t>{-3, 1LL << 40}));
}

TEST(Npy, WritesNumpysLayoutAndRoundTripsEveryType) {
  NDArray a = NDArray::from_vector<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(save_npy_bytes(a), npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                      floats({0, 1, 2, 3, 4, 5})));
  EXPECT_EQ(save_npy_bytes(a).size() % 64, 24u % 64);  // 128-byte header + 24 data bytes
  auto round = [](const NDArray& x) { return load_npy_bytes(save_npy_bytes(x)); };
  EXPECT_EQ(round(NDArray::from_vector<double>({1.5, -2}, {2})).to_vector<double>(),
            (std::vector<double>{1.5, -2}));
  EXPECT_EQ(round(NDArray::from_vector<int8_t>({-1, 2}, {1, 2})).to_vector<int8_t>(),
            (std::vector<int8_t>{-1, 2}));
  EXPECT_EQ(round(NDArray::from_vector<int32_t>({7}, {1, 1, 1})).to_vector<int32_t>(),
            std::vector<int32_t>{7});
  EXPECT_EQ(round(NDArray::from_vector<uint16_t>({9, 8}, {2})).to_vector<uint16_t>(),
            (std::vector<uint16_t>{9, 8}));
  EXPECT_EQ(round(NDArray::from_vector<uint64_t>({1ull << 63}, {1})).to_vector<uint64_t>(),
            std::vector<uint64_t>{1ull << 63});
  EXPECT_EQ(npy_descr(DataType::Bool()), "|b1");
  EXPECT_EQ(npy_descr(DataType::Float(16)), "<f2");
  NDArray e = round(NDArray::empty({0, 4}, DataType::Float(32)));
  EXPECT_EQ(e.shape(), (std::vector<int64_t>{0, 4}));
}

TEST(Npy, MalformedFilesAreErrorsNamingTheProblem) {
  std::string ok =
      npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", floats({1, 2}));
  EXPECT_NE(error_of("hello").find("magic"), std::string::npos);
  EXPECT_NE(error_of(ok.substr(0, 40)).find("header length"), std::string::npos);
  EXPECT_NE(error_of(ok.substr(0, ok.size() - 1)).find("needs 2 x 4 bytes, the file has 7"),
            std::string::npos);
  EXPECT_NE(error_of(ok + "x").find("the file has 9"), std::string::npos);
  EXPECT_NE(
      error_of(npy_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", floats({1, 2})))
          .find("'>f4'"),
      std::string::npos);
  EXPECT_NE(
      error_of(npy_v1("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", floats({1, 2})))
          .find("'<c8'"),
      std::string::npos);
  EXPECT_NE(
      error_of(npy_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", floats({1, 2})))
          .find("fortran"),
      std::string::npos);
  EXPECT_NE(error_of(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", ""))
                .find("dimension"),
            std::string::npos);
  // A shape whose element count overflows, with no data: refused before allocating.
  EXPECT_NE(
      error_of(
          npy_v1(
              "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
              ""))
          .find("overflows"),
      std::string::npos);
  EXPECT_NE(
      error_of(npy_v1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,), }", ""))
          .find("needs"),
      std::string::npos);
  EXPECT_NE(error_of(npy_v1("{'descr': '<f4', 'shape': (2,), 'extra': 1}", floats({1, 2})))
                .find("unknown key 'extra'"),
            std::string::npos);
  EXPECT_NE(error_of(npy_v1("{'descr': '<f4'}", floats({1, 2}))).find("lacks"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x93NUMPY\x09\x00\x00\x00", 10)).find("version 9"),
            std::string::npos);
  EXPECT_THROW(load_npy("/nonexistent/x.npy"), RuntimeError);
}
