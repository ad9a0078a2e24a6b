// Helpers shared by the end-to-end schedule tests: random inputs and tolerant comparison.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <minitvm/minitvm.h>

namespace minitvm::testing {

inline std::vector<float> random_vec(size_t n, unsigned seed = 1) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

inline void expect_close(const std::vector<float>& got, const std::vector<float>& ref, float tol = 1e-4f) {
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

}  // namespace minitvm::testing

/** `stmt` throws a CompileError whose message contains every one of the given parts. */
#define EXPECT_ERROR_HAS(stmt, ...)                                                                \
  do {                                                                                             \
    std::string msg = ::minitvm::testing::error_of([&] { stmt; });                                 \
    for (const char* part : {__VA_ARGS__})                                                         \
      EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nmissing: " << part; \
  } while (0)
