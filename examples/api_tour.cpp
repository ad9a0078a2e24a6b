#include <minitvm/minitvm.h>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>
using namespace minitvm;

int main() {
  const int n = 1000, m = 64;
  DataType f32 = DataType::Float(32);
  te::Tensor A = te::placeholder({n, m}, f32, "A");
  te::Tensor Bias = te::placeholder({n}, f32, "Bias");
  te::IterVar k = te::reduce_axis({0, m}, "k");
  te::Tensor S = te::compute(
      {n}, [&](Var i) { return te::sum(A(i, k) * 2.0f, {k}); }, "S");
  te::Tensor Out = te::compute(
      {n}, [&](Var i) { return te::max(S(i) + Bias(i), 0.0f); }, "Out");

  te::Schedule s = te::create_schedule({Out.op()});
  auto [xo, xi] = s[Out].split(Out.op().axis()[0], 32);  // 1000 is not a multiple of 32
  s[S].compute_at(s[Out], xi);
  s[Out].parallel(xo);

  ir::PrimFunc f = lower(s, {A, Bias, Out}, "fused");
  std::cout << f << std::endl;

  runtime::Module mod = build(s, {A, Bias, Out}, "llvm", "fused");
  std::vector<float> a(n * m), bias(n);
  for (int i = 0; i < n * m; ++i) a[i] = std::sin(i * 0.01f);
  for (int i = 0; i < n; ++i) bias[i] = float(i % 7) - 3.0f;
  runtime::NDArray a_nd = runtime::NDArray::from_vector(a, {n, m});
  runtime::NDArray b_nd = runtime::NDArray::from_vector(bias, {n});
  runtime::NDArray o_nd = runtime::NDArray::empty({n}, f32, Device::cpu());
  mod.get_function("fused")(a_nd, b_nd, o_nd);
  std::vector<float> out = o_nd.to_vector<float>();
  for (int i = 0; i < n; ++i) {
    float acc = 0;
    for (int j = 0; j < m; ++j) acc += a[i * m + j] * 2.0f;
    float ref = std::max(acc + bias[i], 0.0f);
    if (std::abs(out[i] - ref) > 1e-3f * std::max(1.0f, std::abs(ref))) return 1;
  }
  std::cout << "api tour: ok" << std::endl;
}
