// bench/matmul: 512^3 float32 matmul, side by side in one run:
//   - minitvm with the default (naive) schedule,
//   - minitvm with a blocked, vectorized, parallel schedule written by hand,
//   - a plain C++ triple loop (i, k, j order) compiled with -O3 -march=native, single thread,
//     and the same loop with std::thread over rows (same thread count as minitvm's pool).
// Prints GFLOP/s (best of the repeats) and ratios. This is a benchmark, not a test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include <minitvm/minitvm.h>
#include <minitvm/runtime/time_evaluator.h>

#include "cli.h"

using namespace minitvm;

namespace {
constexpr int N = 512;
const DataType f32 = DataType::Float(32);

template <typename F>
double best_seconds(F&& f, int repeat) {
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

void cpp_matmul(const float* a, const float* b, float* c, int row_begin, int row_end) {
  for (int i = row_begin; i < row_end; ++i) {
    float* ci = c + i * N;
    for (int j = 0; j < N; ++j) ci[j] = 0;
    for (int k = 0; k < N; ++k) {
      float aik = a[i * N + k];
      const float* bk = b + k * N;
      for (int j = 0; j < N; ++j) ci[j] += aik * bk[j];
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  auto app = minitvm::cli::make_app(
      "minitvm-bench-matmul",
      "Matmul 512x512x512 float32 on the CPU: minitvm naive and hand-scheduled vs a C++ "
      "loop nest, single-threaded and over std::thread; GFLOP/s and ratios.",
      "usage: minitvm-bench-matmul");
  if (auto rc = minitvm::cli::parse(*app, argc, argv)) return *rc;
  auto A = te::placeholder({N, N}, f32, "A"), B = te::placeholder({N, N}, f32, "B");
  auto k = te::reduce_axis({0, N}, "k");
  auto C = te::compute(
      {N, N}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");

  auto naive = te::create_schedule({C.op()});
  auto mod_naive = build(naive, {A, B, C}, "llvm", "mm");

  // The hand-written schedule, by the vector width (the binary is built with -march=native).
  // Both: output tiles over the threads, each with an accumulator (a local cache of C) computed in
  // register tiles of `rows` rows x the tile's columns, k split by 4, both unrolled.
  auto register_tiles = [](te::Schedule& s, const te::Tensor& out, int tile_rows, int tile_cols,
                           int rows) {
    auto CL = s.cache_write(out, "local");
    auto t = s[out].tile(out.op().axis()[0], out.op().axis()[1], tile_rows, tile_cols);
    IterVar tiles = s[out].fuse(t[0], t[1]);
    s[out].parallel(tiles);
    s[out].vectorize(t[3]);
    s[CL].compute_at(s[out], tiles);
    auto cax = s[CL].op().axis();
    auto [io, ii] = s[CL].split(cax[0], rows);
    auto [ko, ki] = s[CL].split(s[CL].op().reduce_axis()[0], 4);
    s[CL].reorder({io, ko, ki, ii, cax[1]});
    s[CL].vectorize(cax[1]);
    s[CL].unroll(ii);
    s[CL].unroll(ki);
  };
  const bool avx512 = __builtin_cpu_supports("avx512f");
  runtime::Module mod_blocked;
  const char* blocked_what;
  if (avx512) {
    // 32x32 output tiles; register tiles of 8 rows x 32 columns: 16 accumulator vectors, each k
    // step one load of B's 32 columns and a broadcast of A per row (the earlier 32x64 tiles with k
    // outermost kept no accumulator in registers: 1.05 ms here against 0.82 ms, 2-core Xeon).
    auto s = te::create_schedule({C.op()});
    register_tiles(s, C, 32, 32, 8);
    mod_blocked = build(s, {A, B, C}, "llvm", "mm");
    blocked_what = "8x32 register tiles, AVX-512";
  } else {
    // 16 vector registers (AVX2): 8 rows x 32 columns spilled (3.97 ms, 67 GFLOP/s on Zen 3).
    // Register tiles of 4 rows x 16 columns (8 accumulators: the FMA latency times the ports),
    // over 128x16 output tiles; B first copied into 16-column panels [N/16][K][16], so a tile's
    // k steps read one panel sequentially instead of a line per 2 KB row of B (which maps a
    // column block's 512 rows onto two L1 sets). Zen 3: 1.51-1.73 ms against OpenBLAS's
    // 1.45-1.94 (docs/PERFORMANCE.md).
    constexpr int P = 16;
    auto Bp = te::compute(
        {N / P, N, P}, [&](Var jo, Var kk, Var ji) { return B(kk, jo * P + ji); }, "Bp");
    auto k2 = te::reduce_axis({0, N}, "k");
    auto C2 = te::compute(
        {N, N},
        [&](Var i, Var j) {
          return te::sum(A(i, k2) * Bp(ir::floordiv(j, P), k2, ir::floormod(j, P)), {k2});
        },
        "C");
    auto s = te::create_schedule({C2.op()});
    auto bax = Bp.op().axis();
    s[Bp].parallel(s[Bp].fuse(bax[0], bax[1]));
    s[Bp].vectorize(bax[2]);
    register_tiles(s, C2, 128, P, 4);
    mod_blocked = build(s, {A, B, C2}, "llvm", "mm");
    blocked_what = "B packed, 4x16 register tiles, AVX2";
  }

  std::mt19937 g(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(N * N), b(N * N), ref(N * N);
  for (auto& x : a) x = d(g);
  for (auto& x : b) x = d(g);
  auto an = runtime::NDArray::from_vector(a, {N, N}), bn = runtime::NDArray::from_vector(b, {N, N});
  auto cn = runtime::NDArray::empty({N, N}, f32);

  cpp_matmul(a.data(), b.data(), ref.data(), 0, N);
  auto check = [&](const char* what) {
    auto c = cn.to_vector<float>();
    for (int i = 0; i < N * N; ++i)
      if (std::fabs(c[i] - ref[i]) > 1e-3f * std::max(1.0f, std::fabs(ref[i]))) {
        std::printf("%s: WRONG RESULT at %d\n", what, i);
        std::exit(1);
      }
  };
  const double flop = 2.0 * N * N * N;
  auto f_naive = mod_naive.get_function("mm");
  auto f_blocked = mod_blocked.get_function("mm");
  f_naive(an, bn, cn);
  check("naive");
  f_blocked(an, bn, cn);
  check("blocked");

  double t_naive = best_seconds([&] { f_naive(an, bn, cn); }, 3);
  double t_blocked = best_seconds([&] { f_blocked(an, bn, cn); }, 10);
  std::vector<float> c2(N * N);
  double t_cpp = best_seconds([&] { cpp_matmul(a.data(), b.data(), c2.data(), 0, N); }, 5);
  unsigned nt = std::max(1u, std::thread::hardware_concurrency());
  double t_cpp_mt = best_seconds(
      [&] {
        std::vector<std::thread> th;
        for (unsigned i = 0; i < nt; ++i)
          th.emplace_back(cpp_matmul, a.data(), b.data(), c2.data(), int(N * i / nt),
                          int(N * (i + 1) / nt));
        for (auto& x : th) x.join();
      },
      5);

  std::printf("matmul %dx%dx%d float32 (%u hardware threads)\n", N, N, N, nt);
  std::printf("  %-36s %9.2f ms %8.2f GFLOP/s\n", "minitvm naive schedule", t_naive * 1e3,
              flop / t_naive / 1e9);
  std::printf("  %-36s %9.2f ms %8.2f GFLOP/s  (%s)\n", "minitvm blocked schedule", t_blocked * 1e3,
              flop / t_blocked / 1e9, blocked_what);
  std::printf("  %-36s %9.2f ms %8.2f GFLOP/s\n", "C++ loop -O3 (1 thread)", t_cpp * 1e3,
              flop / t_cpp / 1e9);
  std::printf("  %-36s %9.2f ms %8.2f GFLOP/s\n", "C++ loop -O3 (all threads)", t_cpp_mt * 1e3,
              flop / t_cpp_mt / 1e9);
  std::printf(
      "ratios: blocked/naive %.1fx, blocked/C++(1 thread) %.2fx, blocked/C++(all threads) %.2fx\n",
      t_naive / t_blocked, t_cpp / t_blocked, t_cpp_mt / t_blocked);
  return 0;
}
