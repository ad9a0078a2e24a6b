// The kernels of the tests/codegen/cuda_schedules suite: te schedules in TVM's CUDA style with
// naive references.
#include "cases.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

namespace minitvm::cuda_tests {
namespace {

using ir::Var;
using runtime::NDArray;
using te::IterVar;
using te::Tensor;

const DataType f32 = DataType::Float(32);
const DataType f16 = DataType::Float(16);

std::vector<float> rnd(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

/** Reference of the row reductions: sum (double accumulation) of each row of an m x n array. */
std::vector<double> row_sums(const std::vector<float>& a, int64_t m, int64_t n) {
  std::vector<double> r(static_cast<size_t>(m), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) r[i] += a[i * n + j];
  return r;
}

/** Maximum of each row of an m x n array (starting from -inf). */
std::vector<double> row_maxes(const std::vector<float>& a, int64_t m, int64_t n) {
  std::vector<double> r(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    float acc = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < n; ++j) acc = std::max(acc, a[i * n + j]);
    r[i] = acc;
  }
  return r;
}

uint16_t half_bits(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
_Float16 half_from_bits(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return h;
}
/** Round a float to float16 (round to nearest even). */
_Float16 to_half(float x) {
  return static_cast<_Float16>(x);
}

std::vector<_Float16> rnd_half(size_t n, unsigned seed) {
  auto f = rnd(n, seed);
  std::vector<_Float16> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = to_half(f[i]);
  return h;
}
NDArray half_array(const std::vector<_Float16>& v, std::vector<int64_t> shape) {
  std::vector<uint16_t> bits(v.size());
  for (size_t i = 0; i < v.size(); ++i) bits[i] = half_bits(v[i]);
  return NDArray::from_vector(bits, shape, f16);
}

IterVar thread(const char* tag) {
  return te::thread_axis(tag);
}

// C[i] = A[i] + B[i], n = 4096 split by 128 (blockIdx.x / threadIdx.x).
CudaCase vector_add() {
  const int n = 4096;
  auto A = te::placeholder({n}, f32, "A"), B = te::placeholder({n}, f32, "B");
  auto C = te::compute(
      {n}, [&](Var i) { return A(i) + B(i); }, "C");
  auto s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 128);
  s[C].bind(bx, thread("blockIdx.x"));
  s[C].bind(tx, thread("threadIdx.x"));
  auto a = rnd(n, 1), b = rnd(n, 2);
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = static_cast<float>(a[i] + b[i]);
  CudaCase c{"vector_add",
             s,
             {A, B, C},
             {NDArray::from_vector(a, {n}), NDArray::from_vector(b, {n}), NDArray::empty({n}, f32)},
             {2},
             {want}};
  c.rtol = c.atol = 0;
  c.flops = static_cast<double>(n);
  return c;
}

// B[i] = sum_k A[i, k], k split by 16 (200 is not a multiple: the reduction is guarded), the
// accumulator in registers (cache_write local), rows over blocks and threads.
CudaCase row_sum() {
  const int m = 96, n = 200;
  auto A = te::placeholder({m, n}, f32, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto B = te::compute(
      {m}, [&](Var i) { return te::sum(A(i, k), {k}); }, "B");
  auto s = te::create_schedule({B.op()});
  auto BL = s.cache_write(B, "local");
  auto [bx, tx] = s[B].split(B.op().axis()[0], 32);
  s[B].bind(bx, thread("blockIdx.x"));
  s[B].bind(tx, thread("threadIdx.x"));
  s[BL].compute_at(s[B], tx);
  auto [ko, ki] = s[BL].split(BL.op().reduce_axis()[0], 16);
  (void)ko;
  s[BL].unroll(ki);
  auto a = rnd(m * n, 3);
  std::vector<double> want = row_sums(a, m, n);
  CudaCase c{"row_sum", s,     {A, B}, {NDArray::from_vector(a, {m, n}), NDArray::empty({m}, f32)},
             {1},       {want}};
  c.rtol = 1e-5;
  c.atol = 1e-4;
  c.flops = static_cast<double>(m * n);
  return c;
}

// B[i] = max_k A[i, k] (initial value -inf), rows split into 3 blocks of 16 threads.
CudaCase max_reduce() {
  const int m = 48, n = 96;
  auto A = te::placeholder({m, n}, f32, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto B = te::compute(
      {m}, [&](Var i) { return te::max(A(i, k), {k}); }, "B");
  auto s = te::create_schedule({B.op()});
  auto [bx, tx] = s[B].split_nparts(B.op().axis()[0], 3);
  s[B].bind(bx, thread("blockIdx.x"));
  s[B].bind(tx, thread("threadIdx.x"));
  auto a = rnd(m * n, 4, -100.0f, -1.0f);  // all negative: a zero initial value would be wrong
  std::vector<double> want = row_maxes(a, m, n);
  CudaCase c{"max_reduce", s,
             {A, B},       {NDArray::from_vector(a, {m, n}), NDArray::empty({m}, f32)},
             {1},          {want}};
  c.rtol = c.atol = 0;
  return c;
}

// Cross-thread reduction as in TVM's reduction tutorial: B[i] = sum_k A[i, k], k split by 24
// (not a power of two, and 200 = 8 * 24 + 8 does not divide), the inner part factored out
// (BF[ki, i] sums over k.outer) and reduced across 24 threads of a block per row; thread 0 stores.
CudaCase allreduce_row_sum() {
  const int m = 37, n = 200;
  auto A = te::placeholder({m, n}, f32, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto B = te::compute(
      {m}, [&](Var i) { return te::sum(A(i, k), {k}); }, "B");
  auto s = te::create_schedule({B.op()});
  auto [ko, ki] = s[B].split(k, 24);
  (void)ko;
  Tensor BF = s.rfactor(B, ki)[0];
  s[B].bind(B.op().axis()[0], thread("blockIdx.x"));
  IterVar tx = thread("threadIdx.x");
  IterVar red = s[B].op().reduce_axis()[0];
  s[B].bind(red, tx);
  s[BF].compute_at(s[B], red);
  s[B].set_store_predicate(tx->var == 0);
  auto a = rnd(m * n, 21);
  std::vector<double> want = row_sums(a, m, n);
  CudaCase c{"allreduce_row_sum",
             s,
             {A, B},
             {NDArray::from_vector(a, {m, n}), NDArray::empty({m}, f32)},
             {1},
             {want}};
  c.rtol = 1e-5;
  c.atol = 1e-4;
  c.flops = static_cast<double>(m * n);
  return c;
}

// B[i] = max_k A[i, k] with k split by 19 and k.inner bound to threadIdx.x directly (each thread
// first reduces k.outer serially), 4 rows per block on threadIdx.y: 4 independent groups of 19
// threads in one shared buffer. 30 rows do not fill the last block: the threads of rows 30, 31
// contribute the identity and store nothing.
CudaCase allreduce_max_groups() {
  const int m = 30, n = 77;
  auto A = te::placeholder({m, n}, f32, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto B = te::compute(
      {m}, [&](Var i) { return te::max(A(i, k), {k}); }, "B");
  auto s = te::create_schedule({B.op()});
  auto [bx, ty] = s[B].split(B.op().axis()[0], 4);
  auto [ko, ki] = s[B].split(k, 19);
  (void)ko;
  s[B].bind(bx, thread("blockIdx.x"));
  s[B].bind(ty, thread("threadIdx.y"));
  s[B].bind(ki, thread("threadIdx.x"));
  auto a = rnd(m * n, 22, -100.0f, -1.0f);  // all negative: a zero identity would be wrong
  std::vector<double> want = row_maxes(a, m, n);
  CudaCase c{"allreduce_max_groups",
             s,
             {A, B},
             {NDArray::from_vector(a, {m, n}), NDArray::empty({m}, f32)},
             {1},
             {want}};
  c.rtol = c.atol = 0;
  return c;
}

// Argmax (a two-value comm_reducer: index, value) over 45 threads, one row per block: the values
// go into the all-reduce directly (no serial part); each tree step reads into registers, syncs,
// then writes. Ties resolve to the smaller index whatever the reduction order.
CudaCase allreduce_argmax() {
  const int m = 10, n = 45;
  auto A = te::placeholder({m, n}, f32, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto argmax = te::comm_reducer(
      [](const std::vector<Var>& x, const std::vector<Var>& y) {
        Expr take_y = (y[1] > x[1]) || ((y[1] == x[1]) && (y[0] < x[0]));
        return std::vector<Expr>{te::select(take_y, y[0], x[0]), te::select(take_y, y[1], x[1])};
      },
      {Expr(-1), ir::min_value(f32)}, "argmax");
  auto outs = te::compute_multi(
      {m},
      [&](const std::vector<Var>& i) {
        return te::reduce_multi(argmax, {Expr(k->var), A(i[0], k)}, {k});
      },
      "R");
  auto s = te::create_schedule({outs[0].op()});
  s[outs[0]].bind(outs[0].op().axis()[0], thread("blockIdx.x"));
  s[outs[0]].bind(k, thread("threadIdx.x"));
  auto a = rnd(m * n, 23);
  a[4 * n + 7] = 2.0f;
  a[4 * n + 40] = 2.0f;  // tie: index 7 wins
  std::vector<double> want_idx(m), want_val(m);
  for (int64_t i = 0; i < m; ++i) {
    int best = 0;
    for (int j = 1; j < n; ++j)
      if (a[i * n + j] > a[i * n + best]) best = j;
    want_idx[i] = best;
    want_val[i] = a[i * n + best];
  }
  CudaCase c{"allreduce_argmax",
             s,
             {A, outs[0], outs[1]},
             {NDArray::from_vector(a, {m, n}), NDArray::empty({m}, DataType::Int(32)),
              NDArray::empty({m}, f32)},
             {1, 2},
             {want_idx, want_val}};
  c.rtol = c.atol = 0;
  return c;
}

// The all-reduce inside a serial loop: 8 rows per block, one after the other, each summed by 20
// threads (k = 40 split by 20). The shared buffer is rewritten in every iteration, after all
// threads read the previous result: thread_sync adds the loop-carried barrier.
CudaCase allreduce_in_loop() {
  const int m = 24, n = 40;
  auto A = te::placeholder({m, n}, f32, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto B = te::compute(
      {m}, [&](Var i) { return te::sum(A(i, k) * 2.0f, {k}); }, "B");
  auto s = te::create_schedule({B.op()});
  auto [bx, ri] = s[B].split(B.op().axis()[0], 8);
  (void)ri;
  auto [ko, ki] = s[B].split(k, 20);
  (void)ko;
  s[B].bind(bx, thread("blockIdx.x"));
  s[B].bind(ki, thread("threadIdx.x"));
  auto a = rnd(m * n, 24);
  std::vector<double> want(m);
  for (int64_t i = 0; i < m; ++i) {
    double acc = 0;
    for (int64_t j = 0; j < n; ++j) acc += 2.0 * a[i * n + j];
    want[i] = acc;
  }
  CudaCase c{"allreduce_in_loop",
             s,
             {A, B},
             {NDArray::from_vector(a, {m, n}), NDArray::empty({m}, f32)},
             {1},
             {want}};
  c.rtol = 1e-5;
  c.atol = 1e-4;
  return c;
}

// A reduction over two thread axes at once: k = 58 split into threadIdx.y (6) x threadIdx.x (10),
// 60 threads reducing 58 values (the two threads past the end contribute the identity), flattened
// as threadIdx.y * 10 + threadIdx.x into one 60-slot buffer.
CudaCase allreduce_two_axes() {
  const int m = 5, n = 58;
  auto A = te::placeholder({m, n}, f32, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto B = te::compute(
      {m}, [&](Var i) { return te::sum(A(i, k), {k}); }, "B");
  auto s = te::create_schedule({B.op()});
  auto [ko, ki] = s[B].split(k, 10);
  IterVar tx = thread("threadIdx.x");
  s[B].bind(B.op().axis()[0], thread("blockIdx.x"));
  s[B].bind(ko, thread("threadIdx.y"));
  s[B].bind(ki, tx);
  s[B].set_store_predicate(tx->var == 0);
  auto a = rnd(m * n, 25);
  std::vector<double> want = row_sums(a, m, n);
  CudaCase c{"allreduce_two_axes",
             s,
             {A, B},
             {NDArray::from_vector(a, {m, n}), NDArray::empty({m}, f32)},
             {1},
             {want}};
  c.rtol = 1e-5;
  c.atol = 1e-5;
  return c;
}

// C[i] = max(A[i] * B[i] + A[i], 0) in float16.
CudaCase fp16_elementwise() {
  const int n = 2048;
  auto A = te::placeholder({n}, f16, "A"), B = te::placeholder({n}, f16, "B");
  auto C = te::compute(
      {n}, [&](Var i) { return te::max(A(i) * B(i) + A(i), ir::make_const(f16, 0.0)); }, "C");
  auto s = te::create_schedule({C.op()});
  auto [bx, tx] = s[C].split(C.op().axis()[0], 256);
  s[C].bind(bx, thread("blockIdx.x"));
  s[C].bind(tx, thread("threadIdx.x"));
  auto a = rnd_half(n, 5), b = rnd_half(n, 6);
  std::vector<double> want(n), fused(n);
  for (int64_t i = 0; i < n; ++i) {
    _Float16 p = to_half(static_cast<float>(a[i]) * static_cast<float>(b[i]));
    _Float16 q = to_half(static_cast<float>(p) + static_cast<float>(a[i]));
    want[i] = std::max(static_cast<double>(q), 0.0);
    // One rounding of the exact a * b + a (exact in double: 11-bit significands), as HFMA does.
    double exact =
        static_cast<double>(a[i]) * static_cast<double>(b[i]) + static_cast<double>(a[i]);
    fused[i] = std::max(static_cast<double>(static_cast<_Float16>(exact)), 0.0);
  }
  CudaCase c{"fp16_elementwise",
             s,
             {A, B, C},
             {half_array(a, {n}), half_array(b, {n}), NDArray::empty({n}, f16)},
             {2},
             {want}};
  c.expected_alt = {fused};  // the GPU contracts to HFMA (NVRTC --fmad=true); the emulator does not
  c.rtol = c.atol = 0;       // each element rounds to half exactly as one of the two references
  c.flops = 3.0 * n;
  return c;
}

// C[i] = half(sum_k float(A[i, k])): a float16 input summed in float32 (the sum's stage lives in
// registers, computed at the output's thread), cast back to float16.
CudaCase fp16_sum_float_acc() {
  const int m = 64, n = 300;
  auto A = te::placeholder({m, n}, f16, "A");
  auto k = te::reduce_axis({0, n}, "k");
  auto S = te::compute(
      {m}, [&](Var i) { return te::sum(ir::cast(f32, A(i, k)), {k}); }, "S");
  auto C = te::compute(
      {m}, [&](Var i) { return ir::cast(f16, S(i)); }, "C");
  auto s = te::create_schedule({C.op()});
  s[S].set_scope("local");
  auto [bx, tx] = s[C].split(C.op().axis()[0], 32);
  s[C].bind(bx, thread("blockIdx.x"));
  s[C].bind(tx, thread("threadIdx.x"));
  s[S].compute_at(s[C], tx);
  auto a = rnd_half(m * n, 7);
  std::vector<double> want(m);
  for (int64_t i = 0; i < m; ++i) {
    double acc = 0;
    for (int64_t j = 0; j < n; ++j) acc += static_cast<double>(a[i * n + j]);
    want[i] = acc;
  }
  CudaCase c{"fp16_sum_float_acc",
             s,
             {A, C},
             {half_array(a, {m, n}), NDArray::empty({m}, f16)},
             {1},
             {want}};
  // A float16 sum would be off by far more (300 terms, 11-bit mantissa); one final rounding is not.
  c.rtol = 1.0 / 1024;
  c.atol = 1e-3;
  return c;
}

// C[i, j] = A[i, j] * 2 + B[j] on 37 x 53 with 8 x 16 tiles: both splits are imperfect, so the
// stores and loads are guarded.
CudaCase imperfect_2d() {
  const int m = 37, n = 53;
  auto A = te::placeholder({m, n}, f32, "A"), B = te::placeholder({n}, f32, "B");
  auto C = te::compute(
      {m, n}, [&](Var i, Var j) { return A(i, j) * 2.0f + B(j); }, "C");
  auto s = te::create_schedule({C.op()});
  auto t = s[C].tile(C.op().axis()[0], C.op().axis()[1], 8, 16);
  s[C].bind(t[0], thread("blockIdx.y"));
  s[C].bind(t[1], thread("blockIdx.x"));
  s[C].bind(t[2], thread("threadIdx.y"));
  s[C].bind(t[3], thread("threadIdx.x"));
  auto a = rnd(m * n, 8), b = rnd(n, 9);
  std::vector<double> want(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) want[i * n + j] = a[i * n + j] * 2.0f + b[j];
  CudaCase c{
      "imperfect_2d",
      s,
      {A, B, C},
      {NDArray::from_vector(a, {m, n}), NDArray::from_vector(b, {n}), NDArray::empty({m, n}, f32)},
      {2},
      {want}};
  c.rtol = c.atol = 0;
  return c;
}

// C = A B on 50 x 70 x 30 with 16 x 16 tiles and shared-memory caches: every dimension is
// imperfect, the shared loads are guarded, barriers stay outside the guards.
CudaCase imperfect_matmul_shared() {
  const int M = 50, N = 70, K = 30, T = 16;
  auto A = te::placeholder({M, K}, f32, "A"), B = te::placeholder({K, N}, f32, "B");
  auto k = te::reduce_axis({0, K}, "k");
  auto C = te::compute(
      {M, N}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  auto AA = s.cache_read(A, "shared", {C.op()});
  auto BB = s.cache_read(B, "shared", {C.op()});
  auto CL = s.cache_write(C, "local");
  auto t = s[C].tile(C.op().axis()[0], C.op().axis()[1], T, T);
  s[C].bind(t[0], thread("blockIdx.y"));
  s[C].bind(t[1], thread("blockIdx.x"));
  s[C].bind(t[2], thread("threadIdx.y"));
  s[C].bind(t[3], thread("threadIdx.x"));
  s[CL].compute_at(s[C], t[3]);
  auto [ko, ki] = s[CL].split(CL.op().reduce_axis()[0], T);
  (void)ki;
  for (auto* X : {&AA, &BB}) {
    s[*X].compute_at(s[CL], ko);
    auto ax = X->op().axis();
    s[*X].bind(ax[0], thread("threadIdx.y"));
    s[*X].bind(ax[1], thread("threadIdx.x"));
  }
  auto a = rnd(M * K, 10), b = rnd(K * N, 11);
  std::vector<double> want(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < K; ++kk) acc += static_cast<double>(a[i * K + kk]) * b[kk * N + j];
      want[i * N + j] = acc;
    }
  CudaCase c{"imperfect_matmul_shared",
             s,
             {A, B, C},
             {NDArray::from_vector(a, {M, K}), NDArray::from_vector(b, {K, N}),
              NDArray::empty({M, N}, f32)},
             {2},
             {want}};
  c.rtol = 1e-5;
  c.atol = 1e-5;
  c.flops = 2.0 * M * N * K;
  return c;
}

// The caches of a shared/local-tiled matmul C = A B: A and B staged in shared memory, read into
// registers, C accumulated in registers.
struct MatmulCaches {
  te::Tensor AA, BB, AL, BL, CL;
};
MatmulCaches matmul_caches(te::Schedule& s, const te::Tensor& A, const te::Tensor& B,
                           const te::Tensor& C) {
  MatmulCaches m;
  m.AA = s.cache_read(A, "shared", {C.op()});
  m.BB = s.cache_read(B, "shared", {C.op()});
  m.AL = s.cache_read(m.AA, "local", {C.op()});
  m.BL = s.cache_read(m.BB, "local", {C.op()});
  m.CL = s.cache_write(C, "local");
  return m;
}

// Once C's loops are bound (threads innermost at `tx`): the accumulator at tx with its reduction
// split by ktile, the shared tiles at the k-tile loop fetched cooperatively by nthread x nthread
// threads (the tile's axes fused and split by the thread counts; optionally double-buffered), the
// register copies at the inner k loop.
void schedule_matmul_caches(te::Schedule& s, const te::Tensor& C, const MatmulCaches& m,
                            const IterVar& tx, int ktile, int nthread, bool double_buffer) {
  s[m.CL].compute_at(s[C], tx);
  auto cl_axes = m.CL.op().axis();
  auto [ko, ki] = s[m.CL].split(m.CL.op().reduce_axis()[0], ktile);
  s[m.CL].reorder({ko, ki, cl_axes[0], cl_axes[1]});
  s[m.AA].compute_at(s[m.CL], ko);
  s[m.BB].compute_at(s[m.CL], ko);
  s[m.AL].compute_at(s[m.CL], ki);
  s[m.BL].compute_at(s[m.CL], ki);
  for (const te::Tensor* X : {&m.AA, &m.BB}) {
    auto ax = X->op().axis();
    IterVar fused = s[*X].fuse(ax[0], ax[1]);
    auto [fy, rest] = s[*X].split_nparts(fused, nthread);
    auto [fx, inner] = s[*X].split_nparts(rest, nthread);
    (void)inner;
    s[*X].bind(fy, thread("threadIdx.y"));
    s[*X].bind(fx, thread("threadIdx.x"));
    if (double_buffer) s[*X].double_buffer();
  }
}

}  // namespace

// TVM's GPU matmul recipe: 64 x 64 block tiles, 8 x 8 threads, 2 x 2 virtual threads, 4 x 4
// outputs per thread accumulated in registers (cache_write local), A and B tiles of 64 x 8 staged
// in shared memory (cache_read shared, computed at the reduction's outer axis) and fetched
// cooperatively (the tile's axes fused and split by the thread counts), then read into registers
// (cache_read local) per reduction step.
CudaCase make_tiled_matmul(int n, bool with_reference) {
  const int block = 64, nthread = 8, nvthread = 2, ktile = 8;
  auto A = te::placeholder({n, n}, f32, "A"), B = te::placeholder({n, n}, f32, "B");
  auto k = te::reduce_axis({0, n}, "k");
  auto C = te::compute(
      {n, n}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  MatmulCaches m = matmul_caches(s, A, B, C);

  auto [by, yi0] = s[C].split(C.op().axis()[0], block);
  auto [bx, xi0] = s[C].split(C.op().axis()[1], block);
  auto [vy, yi1] = s[C].split_nparts(yi0, nvthread);
  auto [ty, yi] = s[C].split_nparts(yi1, nthread);
  auto [vx, xi1] = s[C].split_nparts(xi0, nvthread);
  auto [tx, xi] = s[C].split_nparts(xi1, nthread);
  s[C].reorder({by, bx, vy, vx, ty, tx, yi, xi});
  s[C].bind(by, thread("blockIdx.y"));
  s[C].bind(bx, thread("blockIdx.x"));
  s[C].bind(vy, thread("vthread"));
  s[C].bind(vx, thread("vthread"));
  s[C].bind(ty, thread("threadIdx.y"));
  s[C].bind(tx, thread("threadIdx.x"));
  schedule_matmul_caches(s, C, m, tx, ktile, nthread, false);

  auto a = rnd(n * n, 12), b = rnd(n * n, 13);
  std::vector<double> want;
  if (with_reference) {
    want.assign(n * n, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t kk = 0; kk < n; ++kk) {
        double av = a[i * n + kk];
        for (int64_t j = 0; j < n; ++j) want[i * n + j] += av * b[kk * n + j];
      }
  }
  CudaCase c{"tiled_matmul",
             s,
             {A, B, C},
             {NDArray::from_vector(a, {n, n}), NDArray::from_vector(b, {n, n}),
              NDArray::empty({n, n}, f32)},
             {2},
             {want}};
  c.rtol = 1e-4;
  c.atol = 1e-4;
  c.flops = 2.0 * n * n * n;
  return c;
}

// The tiled matmul with double-buffered shared tiles (TVM's s[AA].double_buffer()): C[32,32] =
// A[32,K] B[K,32], 16 x 16 block tiles, 4 x 4 threads, 2 virtual threads along y, k tiles of 4. The
// reduction's outer loop has extent ceil(K / 4): odd (K = 12), one (K = 4, nothing alternates),
// even (K = 16), non-dividing (K = 10, guarded fetches in the prologue, prefetch and tail) and two
// (K = 8: the split loop has one iteration and disappears; the tail still waits for the prefetch).
// The emulator reports shared-memory races, so a missing barrier fails the run.
CudaCase db_matmul(int K) {
  const int M = 32, N = 32, block = 16, nthread = 4, ktile = 4;
  auto A = te::placeholder({M, K}, f32, "A"), B = te::placeholder({K, N}, f32, "B");
  auto k = te::reduce_axis({0, K}, "k");
  auto C = te::compute(
      {M, N}, [&](Var i, Var j) { return te::sum(A(i, k) * B(k, j), {k}); }, "C");
  auto s = te::create_schedule({C.op()});
  MatmulCaches m = matmul_caches(s, A, B, C);
  auto [by, yi0] = s[C].split(C.op().axis()[0], block);
  auto [bx, xi0] = s[C].split(C.op().axis()[1], block);
  auto [vy, yi1] = s[C].split_nparts(yi0, 2);
  auto [ty, yi] = s[C].split_nparts(yi1, nthread);
  auto [tx, xi] = s[C].split_nparts(xi0, nthread);
  s[C].reorder({by, bx, vy, ty, tx, yi, xi});
  s[C].bind(by, thread("blockIdx.y"));
  s[C].bind(bx, thread("blockIdx.x"));
  s[C].bind(vy, thread("vthread"));
  s[C].bind(ty, thread("threadIdx.y"));
  s[C].bind(tx, thread("threadIdx.x"));
  schedule_matmul_caches(s, C, m, tx, ktile, nthread, true);
  auto a = rnd(M * K, 21 + K), b = rnd(K * N, 22 + K);
  std::vector<double> want(M * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int kk = 0; kk < K; ++kk) want[i * N + j] += double(a[i * K + kk]) * b[kk * N + j];
  CudaCase c{"db_matmul_k" + std::to_string(K),
             s,
             {A, B, C},
             {NDArray::from_vector(a, {M, K}), NDArray::from_vector(b, {K, N}),
              NDArray::empty({M, N}, f32)},
             {2},
             {want}};
  c.rtol = 1e-4;
  c.atol = 1e-4;
  c.flops = 2.0 * M * N * K;
  return c;
}

std::vector<std::string> case_names() {
  return {"vector_add",         "row_sum",
          "max_reduce",         "tiled_matmul",
          "fp16_elementwise",   "fp16_sum_float_acc",
          "imperfect_2d",       "imperfect_matmul_shared",
          "allreduce_row_sum",  "allreduce_max_groups",
          "allreduce_argmax",   "allreduce_in_loop",
          "allreduce_two_axes", "db_matmul_k12",
          "db_matmul_k4",       "db_matmul_k16",
          "db_matmul_k10",      "db_matmul_k8"};
}

CudaCase make_case(const std::string& name) {
  if (name == "vector_add") return vector_add();
  if (name == "row_sum") return row_sum();
  if (name == "max_reduce") return max_reduce();
  if (name == "tiled_matmul") return make_tiled_matmul(128);
  if (name == "fp16_elementwise") return fp16_elementwise();
  if (name == "fp16_sum_float_acc") return fp16_sum_float_acc();
  if (name == "imperfect_2d") return imperfect_2d();
  if (name == "imperfect_matmul_shared") return imperfect_matmul_shared();
  if (name == "allreduce_row_sum") return allreduce_row_sum();
  if (name == "allreduce_max_groups") return allreduce_max_groups();
  if (name == "allreduce_argmax") return allreduce_argmax();
  if (name == "allreduce_in_loop") return allreduce_in_loop();
  if (name == "allreduce_two_axes") return allreduce_two_axes();
  if (name.rfind("db_matmul_k", 0) == 0) return db_matmul(std::stoi(name.substr(11)));
  throw std::out_of_range("no CUDA test case named " + name);
}

std::vector<double> to_doubles(const NDArray& a) {
  DataType t = a.dtype();
  std::vector<double> out;
  if (t == f32) {
    for (float v : a.to_vector<float>()) out.push_back(v);
  } else if (t == f16) {
    for (uint16_t v : a.to_vector<uint16_t>())
      out.push_back(static_cast<double>(half_from_bits(v)));
  } else if (t == DataType::Int(32)) {
    for (int32_t v : a.to_vector<int32_t>()) out.push_back(v);
  } else {
    throw std::invalid_argument("to_doubles: unsupported dtype");
  }
  return out;
}

std::string compare(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                    double atol, const std::vector<double>* alt) {
  std::ostringstream os;
  if (got.size() != want.size() || (alt && alt->size() != want.size())) {
    os << "size " << got.size() << " != " << want.size();
    return os.str();
  }
  auto close = [&](double g, double w) {
    return g == w || std::fabs(g - w) <= atol + rtol * std::fabs(w);
  };
  for (size_t i = 0; i < got.size(); ++i) {
    if (!close(got[i], want[i]) && !(alt && close(got[i], (*alt)[i]))) {
      os << "element " << i << ": got " << got[i] << ", want " << want[i];
      if (alt) os << " (or " << (*alt)[i] << ")";
      return os.str();
    }
  }
  return "";
}

}  // namespace minitvm::cuda_tests
