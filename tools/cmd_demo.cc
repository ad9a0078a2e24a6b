// `minitvm demo`: the main job. A tour of the API, a scheduled matmul, and (as later parts land)
// CUDA emission, a TopHub-tuned conv layer and the pooling frontend. Each part checks its results
// against a naive reference and says so; the command fails if any check fails.
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>

#include <minitvm/minitvm.h>

#include "cli.h"
#include "commands.h"
#include "demo_parts.h"

namespace minitvm::tools {

namespace {
bool close(float a, float b, float tol) {
  return std::fabs(a - b) <= tol * std::max(1.0f, std::fabs(b));
}

bool demo_api_tour() {
  std::cout << "== part 1: API tour (reduction, compute_at, imperfect split, parallel) ==\n";
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
  auto [xo, xi] = s[Out].split(Out.op().axis()[0], 32);
  s[S].compute_at(s[Out], xi);
  s[Out].parallel(xo);
  std::cout << lower(s, {A, Bias, Out}, "fused") << "\n";
  runtime::Module mod = build(s, {A, Bias, Out}, "llvm", "fused");
  std::vector<float> a(n * m), bias(n);
  for (int i = 0; i < n * m; ++i) a[i] = std::sin(i * 0.01f);
  for (int i = 0; i < n; ++i) bias[i] = float(i % 7) - 3.0f;
  auto o = runtime::NDArray::empty({n}, f32);
  mod.get_function("fused")(runtime::NDArray::from_vector(a, {n, m}),
                            runtime::NDArray::from_vector(bias, {n}), o);
  auto out = o.to_vector<float>();
  for (int i = 0; i < n; ++i) {
    float acc = 0;
    for (int j = 0; j < m; ++j) acc += a[i * m + j] * 2.0f;
    if (!close(out[i], std::max(acc + bias[i], 0.0f), 1e-3f)) {
      std::cout << "api tour: MISMATCH at " << i << "\n";
      return false;
    }
  }
  std::cout << "api tour: ok (1000 outputs match the reference)\n\n";
  return true;
}

bool demo_matmul() {
  std::cout
      << "== part 2: scheduled matmul 256x256x256 (cache_write, tile, vectorize, parallel) ==\n";
  const int N = 256;
  DataType f32 = DataType::Float(32);
  auto A = te::placeholder({N, N}, f32, "A"), B = te::placeholder({N, N}, f32, "B");
  auto k = te::reduce_axis({0, N}, "k");
  auto C = te::compute(
      {N, N}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto CL = s.cache_write(C, "local");
  auto t = s[C].tile(C.op().axis()[0], C.op().axis()[1], 32, 32);
  s[C].parallel(t[0]);
  s[CL].compute_at(s[C], t[1]);
  auto cax = s[CL].op().axis();
  auto [ko, ki] = s[CL].split(s[CL].op().reduce_axis()[0], 4);
  auto [jo, jv] = s[CL].split(cax[1], 16);
  s[CL].reorder({ko, cax[0], ki, jo, jv});
  s[CL].vectorize(jv);
  s[CL].unroll(ki);
  std::cout << lower(s, {A, B, C}, "matmul") << "\n";
  auto mod = build(s, {A, B, C}, "llvm", "matmul");
  std::mt19937 g(7);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(N * N), b(N * N);
  for (auto& x : a) x = d(g);
  for (auto& x : b) x = d(g);
  auto an = runtime::NDArray::from_vector(a, {N, N}), bn = runtime::NDArray::from_vector(b, {N, N});
  auto cn = runtime::NDArray::empty({N, N}, f32);
  auto f = mod.get_function("matmul");
  f(an, bn, cn);
  auto c = cn.to_vector<float>();
  for (int i = 0; i < N; i += 17)
    for (int j = 0; j < N; j += 13) {
      float acc = 0;
      for (int x = 0; x < N; ++x) acc += a[i * N + x] * b[x * N + j];
      if (!close(c[i * N + j], acc, 1e-3f)) {
        std::cout << "matmul: MISMATCH at (" << i << ", " << j << ")\n";
        return false;
      }
    }
  auto t0 = std::chrono::steady_clock::now();
  const int reps = 10;
  for (int r = 0; r < reps; ++r) f(an, bn, cn);
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  std::cout << "matmul: ok (sampled outputs match the reference), " << 2.0 * N * N * N / sec / 1e9
            << " GFLOP/s\n\n";
  return true;
}
}  // namespace

static int run_demo(const std::vector<std::string>& args) {
  auto app = cli::make_app(
      "minitvm demo",
      "The main demo: an API tour, a scheduled matmul, then the registered parts (CUDA "
      "emission, a TopHub-tuned conv layer, pooling); each checks its results against a naive "
      "reference. Exit status 1 when a check fails.",
      "usage: minitvm demo");
  if (auto rc = cli::parse(*app, args)) return *rc;
  bool ok = true;
  ok &= demo_api_tour();
  ok &= demo_matmul();
  for (auto& part : demo_parts()) {
    std::cout << "== part: " << part.title << " ==\n";
    bool r = false;
    try {
      r = part.run();
    } catch (const std::exception& e) {
      std::cout << part.title << ": FAILED: " << e.what() << "\n";
    }
    ok &= r;
    std::cout << "\n";
  }
  std::cout << (ok ? "demo: all parts ok" : "demo: SOME PARTS FAILED") << std::endl;
  return ok ? 0 : 1;
}

MINITVM_COMMAND("demo", "run the main demo: API tour, scheduled matmul, and the other parts",
                run_demo);

std::vector<DemoPart>& demo_parts() {
  static std::vector<DemoPart> parts;
  return parts;
}

}  // namespace minitvm::tools
