// Small helpers shared by the relay tests: counting ops of a graph, comparing with the reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/relay/relay.h"
#include "minitvm/support/error.h"

namespace relay_test {

/** A float32 tensor type. */
inline minitvm::relay::TensorType T(std::vector<int64_t> s) {
  return minitvm::relay::TensorType{std::move(s), minitvm::DataType::Float(32)};
}

/** The message of the CompileError `f` throws, or "(no error)". */
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const minitvm::CompileError& e) {
    return e.what();
  }
  return "(no error)";
}

/** Calls of `op` reachable from the function's body. */
inline int count_op(const minitvm::relay::Function& f, const std::string& op) {
  int n = 0;
  for (auto& e : minitvm::relay::post_order(f.body)) n += e->is_call(op) ? 1 : 0;
  return n;
}

/** Layers of a network: convolutions (groups 1), grouped/depthwise ones and dense. */
struct Layers {
  int conv = 0, depthwise = 0, dense = 0;
};
inline Layers count_layers(const minitvm::relay::Function& f) {
  Layers l;
  for (auto& e : minitvm::relay::post_order(f.body)) {
    if (e->is_call("nn.conv2d")) (e->attrs["groups"].get<int64_t>() > 1 ? l.depthwise : l.conv)++;
    if (e->is_call("nn.dense")) l.dense++;
  }
  return l;
}

/** Same shape, and |a - b| <= tol * max|b| elementwise (the reference accumulates in double). */
inline void expect_close(const minitvm::runtime::NDArray& a, const minitvm::runtime::NDArray& b,
                         double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  auto x = a.to_vector<float>(), y = b.to_vector<float>();
  ASSERT_EQ(x.size(), y.size());
  double m = 0;
  for (float v : y) m = std::max(m, double(std::abs(v)));
  ASSERT_GT(m, 0.0);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], y[i], tol * m) << "at " << i;
}

}  // namespace relay_test
