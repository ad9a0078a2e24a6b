// Helpers shared by the end-to-end schedule tests: random inputs and tolerant comparison.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <minitvm/minitvm.h>

namespace minitvm::testing {

/** How many times `part` occurs in `s` (overlapping occurrences counted). */
inline size_t count_occurrences(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t p = s.find(part); p != std::string::npos; p = s.find(part, p + 1)) ++n;
  return n;
}

inline std::vector<float> random_vec(size_t n, unsigned seed = 1) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

inline void expect_close(const std::vector<float>& got, const std::vector<float>& ref,
                         float tol = 1e-4f) {
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], ref[i], tol * std::max(1.0f, std::fabs(ref[i]))) << "at index " << i;
  }
}

/** The message of the CompileError `f` throws, or "<no error>". */
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "<no error>";
}

/** Runs `argmax(A, idx, val)` of `mod` on the n x m matrix `a` and checks every row against a naive
 *  loop: the index of the row's first maximum (ties keep the lowest index) and its value. */
inline void expect_row_argmax(runtime::Module& mod, const std::vector<float>& a, int n, int m) {
  auto idx = runtime::NDArray::empty({n}, DataType::Int(32));
  auto val = runtime::NDArray::empty({n}, DataType::Float(32));
  mod.get_function("argmax")(runtime::NDArray::from_vector(a, {n, m}), idx, val);
  auto iv = idx.to_vector<int32_t>();
  auto vv = val.to_vector<float>();
  for (int i = 0; i < n; ++i) {
    int best = 0;
    for (int j = 1; j < m; ++j)
      if (a[i * m + j] > a[i * m + best]) best = j;
    EXPECT_EQ(iv[i], best) << "row " << i;
    EXPECT_EQ(vv[i], a[i * m + best]) << "row " << i;
  }
}

}  // namespace minitvm::testing

/** `stmt` throws a CompileError whose message contains every one of the given parts. */
#define EXPECT_ERROR_HAS(stmt, ...)                                                                \
  do {                                                                                             \
    std::string msg = ::minitvm::testing::error_of([&] { stmt; });                                 \
    for (const char* part : {__VA_ARGS__})                                                         \
      EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nmissing: " << part; \
  } while (0)
