// The CUDA pool template (src/topi/pool/pool_schedule_cuda.cc): its knobs, fallback and dispatch;
// NVRTC + ptxas (sm_90) accept the kernels of several plans (float32, float16, bfloat16);
// non-default configs, float16 and bfloat16 plans run on the CUDA emulator and match the reference
// executor (float16 within one float16 rounding of the float32 result, which only float32
// accumulation achieves; bfloat16 bit-exactly equal to the reference result rounded once).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/space.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/frontend/pool_plan.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/runtime/nvrtc.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/topi/pool.h"

using namespace minitvm;
using namespace minitvm::frontend;
using topi::DivisorRule;
using topi::PoolDirection;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;

namespace {

const DataType kF32 = DataType::Float(32);
const DataType kF16 = DataType::Float(16);
const DataType kBF16 = DataType::BFloat(16);

PoolPlan max2d(std::vector<int64_t> shape, DataType dt, int64_t k, int64_t s, int64_t pad, bool idx,
               PoolLayout lay = PoolLayout::ChannelsFirst) {
  MaxPoolParams p;
  p.kernel_size = {k};
  p.stride = {s};
  p.padding = {pad};
  p.return_indices = idx;
  return plan_max_pool(2, PoolInput{shape, dt, lay}, p);
}

PoolPlan avg2d(std::vector<int64_t> shape, DataType dt, int64_t k, int64_t s, int64_t pad,
               bool include_pad, PoolLayout lay = PoolLayout::ChannelsFirst,
               bool ceil_mode = false) {
  AvgPoolParams p;
  p.kernel_size = {k};
  p.stride = {s};
  p.padding = {pad};
  p.count_include_pad = include_pad;
  p.ceil_mode = ceil_mode;
  return plan_avg_pool(2, PoolInput{shape, dt, lay}, p);
}

PoolPlan adaptive2d(bool max, std::vector<int64_t> shape, DataType dt, int64_t o0, int64_t o1,
                    PoolLayout lay = PoolLayout::ChannelsFirst) {
  AdaptivePoolParams p;
  p.output_size = {o0, o1};
  return max ? plan_adaptive_max_pool(2, PoolInput{shape, dt, lay}, p)
             : plan_adaptive_avg_pool(2, PoolInput{shape, dt, lay}, p);
}

PoolPlan with_dtype(PoolPlan p, DataType dt) {
  p.dtype = dt;
  return p;
}

// float <-> 16-bit patterns (round to nearest even).
uint16_t to_bits(float v, DataType dt) {
  if (dt.is_bfloat()) {
    uint32_t u = std::bit_cast<uint32_t>(v);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
  return std::bit_cast<uint16_t>(static_cast<_Float16>(v));
}
float from_bits(uint16_t b, DataType dt) {
  if (dt.is_bfloat()) return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
  return static_cast<float>(std::bit_cast<_Float16>(b));
}

// Random values already representable in dt (so the float32 reference sees the same inputs).
std::vector<float> random_values(int64_t n, DataType dt, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = from_bits(to_bits(u(rng), dt), dt);
  return v;
}

int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (auto x : s) n *= x;
  return n;
}

runtime::NDArray half_array(const std::vector<float>& v, const std::vector<int64_t>& shape,
                            DataType dt) {
  std::vector<uint16_t> b;
  for (float x : v) b.push_back(to_bits(x, dt));
  return runtime::NDArray::from_vector(b, shape, dt);
}

std::vector<float> half_values(const runtime::NDArray& a, DataType dt) {
  std::vector<float> r;
  for (uint16_t b : a.to_vector<uint16_t>()) r.push_back(from_bits(b, dt));
  return r;
}

// |got - ref| within `ulps` units of the 16-bit type's last place at |ref| (denormal floor).
void expect_close_half(const std::vector<float>& got, const std::vector<double>& ref, DataType dt,
                       double ulps, const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double eps = dt.is_bfloat() ? std::ldexp(1.0, -7) : std::ldexp(1.0, -10);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double tol = ulps * eps * std::max(std::fabs(ref[i]), 1.25e-4);
    if (!(std::fabs(got[i] - ref[i]) <= tol)) {
      if (++bad <= 3)
        ADD_FAILURE() << what << ": index " << i << ": got " << got[i] << ", expected " << ref[i];
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

// ---- knobs, fallback, dispatch
// -------------------------------------------------------------------

TEST(PoolCudaTemplate, TaskNameWorkloadAndSpace) {
  PoolPlan p = max2d({32, 128, 56, 56}, kF32, 3, 3, 0, false);
  EXPECT_EQ(topi::pool_cuda_task_name(p, PoolDirection::Forward), "pool2d_nchw_fwd.cuda");
  PoolPlan q = avg2d({2, 9, 9, 16}, kF16, 3, 2, 1, true, PoolLayout::ChannelsLast);
  EXPECT_EQ(topi::pool_cuda_task_name(q, PoolDirection::Backward), "pool2d_nhwc_bwd.cuda");
  autotune::Json w = topi::pool_cuda_workload(q, PoolDirection::Backward);
  EXPECT_EQ(w[0], "pool2d_nhwc_bwd.cuda");
  EXPECT_EQ(w[1][2], "float16");
  // same arguments as the CPU workload
  autotune::Json wc = topi::pool_workload(q, PoolDirection::Backward);
  for (size_t i = 1; i < w.size(); ++i) EXPECT_EQ(w[i], wc[i]) << i;

  autotune::ConfigSpace space;
  topi::define_pool_cuda_space(space, p, PoolDirection::Forward);
  ASSERT_EQ(space.knobs().size(), 3u);
  EXPECT_EQ(space.size(), 5 * 4 * 2);
  // first-defined knob (threads) is the least significant digit
  autotune::ConfigEntity c = space.get(1 + 5 * (3 + 4 * 1));
  EXPECT_EQ(c.knob_int("threads"), 128);
  EXPECT_EQ(c.knob_int("per_thread"), 8);
  EXPECT_EQ(c.knob_int("unroll_win"), 1);
}

TEST(PoolCudaTemplate, Fallback) {
  // 32x128x18x18 = 1.3M outputs: 4 per thread still gives >= 1024 blocks of 256
  autotune::FallbackConfigEntity big;
  topi::pool_cuda_fallback(big, max2d({32, 128, 56, 56}, kF32, 3, 3, 0, false),
                           PoolDirection::Forward);
  EXPECT_EQ(big.knob_int("threads"), 256);
  EXPECT_EQ(big.knob_int("per_thread"), 4);
  EXPECT_EQ(big.knob_int("unroll_win"), 1);
  // 32x3x2x2 outputs: one per thread
  autotune::FallbackConfigEntity small;
  topi::pool_cuda_fallback(small, max2d({32, 3, 7, 7}, kF32, 3, 3, 0, false),
                           PoolDirection::Forward);
  EXPECT_EQ(small.knob_int("threads"), 256);
  EXPECT_EQ(small.knob_int("per_thread"), 1);
  // a 100x100 adaptive window is not unrolled
  autotune::FallbackConfigEntity wide;
  topi::pool_cuda_fallback(wide, adaptive2d(false, {1, 4, 100, 100}, kF32, 1, 1),
                           PoolDirection::Forward);
  EXPECT_EQ(wide.knob_int("unroll_win"), 0);
}

TEST(PoolCudaTemplate, DispatchContextAndLaunchBounds) {
  PoolPlan p = max2d({2, 3, 10, 10}, kF32, 3, 2, 1, true);
  // bare root context: the fallback (256 threads)
  topi::PooledKernel fb = topi::lower_pool(p, "cuda -emulate", PoolDirection::Forward, {true});
  EXPECT_EQ(fb.config.knob_int("threads"), 256);
  EXPECT_EQ(fb.workload[0], "pool2d_nchw_fwd.cuda");
  // an entered context answers
  autotune::ConfigSpace space;
  topi::define_pool_cuda_space(space, p, PoolDirection::Forward);
  autotune::ApplyConfig ctx(space.get(0 + 5 * (2 + 4 * 0)));  // 64 threads, 4 per thread, no unroll
  autotune::DispatchScope scope(ctx);
  topi::BuildPoolOptions o;
  o.with_indices = true;
  topi::PooledKernel k = topi::build_pool(p, "cuda -emulate", PoolDirection::Forward, o);
  EXPECT_EQ(k.config.knob_int("threads"), 64);
  EXPECT_EQ(k.config.knob_int("per_thread"), 4);
  EXPECT_NE(k.module.get_source("cuda").find("__launch_bounds__(64)"), std::string::npos);
}

TEST(PoolCudaTemplate, Float16RejectedOnLlvm) {
  EXPECT_THROW(
      topi::lower_pool(avg2d({1, 2, 6, 6}, kF16, 2, 2, 0, true), "llvm", PoolDirection::Forward),
      CompileError);
}

// ---- NVRTC + ptxas
// ---------------------------------------------------------------------------------

struct PtxCase {
  std::string name;
  PoolPlan plan;
  PoolDirection dir;
  bool indices = false;
};

TEST(PoolCudaPtx, NvrtcAndPtxasAcceptKernels) {
  if (!runtime::nvrtc_available()) GTEST_SKIP() << "NVRTC not available";
  auto taps = [](PoolPlan p) {  // one-byte window-tap indices (uint8 loads and stores)
    p.index_base = topi::IndexBase::WindowTap;
    return p;
  };
  std::vector<PtxCase> cases = {
      {"max_fwd_nchw_f32_taps", taps(max2d({32, 128, 56, 56}, kF32, 3, 2, 1, true)),
       PoolDirection::Forward, true},
      {"max_bwd_nchw_f32_taps_disjoint", taps(max2d({32, 128, 56, 56}, kF32, 3, 3, 0, false)),
       PoolDirection::Backward},
      {"max_bwd_nchw_f16_taps_overlap", taps(max2d({4, 32, 28, 28}, kF16, 3, 2, 1, false)),
       PoolDirection::Backward},
      {"max_fwd_nchw_f32_idx", max2d({32, 128, 56, 56}, kF32, 3, 3, 0, true),
       PoolDirection::Forward, true},
      {"max_fwd_nhwc_f16", max2d({4, 28, 28, 32}, kF16, 3, 2, 1, false, PoolLayout::ChannelsLast),
       PoolDirection::Forward},
      {"avg_fwd_nchw_f16_pad", avg2d({4, 32, 28, 28}, kF16, 3, 2, 1, false),
       PoolDirection::Forward},
      {"avg_fwd_nhwc_f32", avg2d({4, 28, 28, 32}, kF32, 3, 3, 0, true, PoolLayout::ChannelsLast),
       PoolDirection::Forward},
      {"adaptive_avg_fwd_f16", adaptive2d(false, {2, 8, 13, 17}, kF16, 5, 7),
       PoolDirection::Forward},
      {"adaptive_max_fwd_f32_idx", adaptive2d(true, {2, 8, 13, 17}, kF32, 5, 7),
       PoolDirection::Forward, true},
      {"max_bwd_nchw_f16_overlap", max2d({4, 32, 28, 28}, kF16, 3, 2, 1, false),
       PoolDirection::Backward},
      {"max_bwd_nchw_f32_disjoint", max2d({32, 128, 56, 56}, kF32, 3, 3, 0, false),
       PoolDirection::Backward},
      {"avg_bwd_nhwc_f16", avg2d({4, 28, 28, 32}, kF16, 3, 2, 1, true, PoolLayout::ChannelsLast),
       PoolDirection::Backward},
      {"avg_bwd_nchw_f32", avg2d({4, 32, 28, 28}, kF32, 3, 3, 0, true), PoolDirection::Backward},
      {"adaptive_avg_bwd_f16", adaptive2d(false, {2, 8, 13, 17}, kF16, 5, 7),
       PoolDirection::Backward},
      {"max_fwd_nchw_bf16_idx", max2d({4, 32, 28, 28}, kBF16, 3, 2, 1, true),
       PoolDirection::Forward, true},
      {"avg_fwd_nhwc_bf16_pad",
       avg2d({4, 28, 28, 32}, kBF16, 3, 2, 1, false, PoolLayout::ChannelsLast),
       PoolDirection::Forward},
      {"global_avg_fwd_bf16", adaptive2d(false, {2, 8, 13, 17}, kBF16, 1, 1),
       PoolDirection::Forward},
      {"max_bwd_nchw_bf16_overlap", max2d({4, 32, 28, 28}, kBF16, 3, 2, 1, false),
       PoolDirection::Backward},
      {"avg_bwd_nchw_bf16_ceil",
       avg2d({4, 32, 28, 28}, kBF16, 3, 2, 1, true, PoolLayout::ChannelsFirst, true),
       PoolDirection::Backward},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    topi::BuildPoolOptions o;
    o.with_indices = c.indices;
    topi::PooledKernel k;
    ASSERT_NO_THROW(k = topi::build_pool(c.plan, "cuda -arch=sm_90", c.dir, o));
    std::string ptx = k.module.get_source("ptx");
    ASSERT_NE(ptx.find(".entry"), std::string::npos);
    runtime::PtxasReport rep;
    try {
      rep = runtime::ptxas_check(ptx, "sm_90");
    } catch (const RuntimeError& e) {
      GTEST_SKIP() << "ptxas not available: " << e.what();
    }
    ASSERT_FALSE(rep.kernels.empty());
    for (auto& kin : rep.kernels) {
      EXPECT_LE(kin.registers, 255) << kin.name;
      EXPECT_EQ(kin.spill_stores, 0) << kin.name;
      EXPECT_EQ(kin.shared_bytes, 0) << kin.name;
    }
  }
}

// ---- emulator: non-default configs (float32)
// ---------------------------------------------------------

std::vector<double> run_fp32_forward(const PoolPlan& plan, const autotune::ConfigEntity& cfg,
                                     const std::vector<float>& x, std::vector<int64_t>* idx) {
  topi::BuildPoolOptions o;
  o.with_indices = idx != nullptr;
  o.config = &cfg;
  topi::PooledKernel k = topi::build_pool(plan, "cuda -emulate", PoolDirection::Forward, o);
  auto in = runtime::NDArray::from_vector(x, plan.batched_input_shape());
  auto oshape = plan.batched_output_shape();
  auto out = runtime::NDArray::empty(oshape, kF32, Device::cpu());
  if (idx) {
    auto ind = runtime::NDArray::empty(oshape, DataType::Int(64), Device::cpu());
    k.module.get_function(k.func_name)(in, out, ind);
    *idx = ind.to_vector<int64_t>();
  } else {
    k.module.get_function(k.func_name)(in, out);
  }
  std::vector<double> r;
  for (float v : out.to_vector<float>()) r.push_back(v);
  return r;
}

HostArray host(const PoolPlan& plan, const std::vector<float>& x, std::vector<int64_t> shape) {
  std::vector<double> d(x.begin(), x.end());
  return HostArray::from_doubles(plan.dtype, std::move(shape), d);
}

TEST(PoolCudaEmulate, ConfigsMatchReference) {
  ReferencePoolExecutor ref;
  std::vector<PoolPlan> plans = {
      max2d({2, 3, 11, 9}, kF32, 3, 2, 1, true),
      avg2d({2, 5, 9, 7}, kF32, 3, 2, 1, false, PoolLayout::ChannelsLast),
      adaptive2d(false, {1, 3, 10, 7}, kF32, 3, 4)};
  autotune::ConfigSpace space;
  topi::define_pool_cuda_space(space, plans[0], PoolDirection::Forward);
  for (int64_t index : {0, 5 * 3, 4 + 5 * (1 + 4 * 1), 2 + 5 * (2 + 4 * 0)}) {
    autotune::ConfigEntity cfg = space.get(index);
    for (auto& plan : plans) {
      SCOPED_TRACE(plan.op + " config " + std::to_string(index));
      auto x = random_values(numel(plan.batched_input_shape()), kF32, 7);
      bool idx = plan.mode == PoolMode::Max;
      std::vector<int64_t> got_idx;
      auto got = run_fp32_forward(plan, cfg, x, idx ? &got_idx : nullptr);
      PoolPlan rp = plan;
      rp.batched = true;
      PoolForwardResult want = ref.forward(rp, host(rp, x, plan.batched_input_shape()));
      auto w = want.output.to_doubles();
      ASSERT_EQ(got.size(), w.size());
      for (size_t i = 0; i < w.size(); ++i)
        EXPECT_NEAR(got[i], w[i], 2e-6 * std::fabs(w[i]) + 1e-7) << i;
      if (idx)
        for (size_t i = 0; i < got_idx.size(); ++i)
          EXPECT_EQ(got_idx[i], want.indices.get_int(i)) << i;
    }
  }
}

// ---- emulator: float16 / bfloat16
// ------------------------------------------------------------------

// Forward of a 16-bit plan on the emulator against the float32 reference on the same values.
void check_half_forward(const PoolPlan& half_plan, double ulps) {
  DataType dt = half_plan.dtype;
  PoolPlan fp = with_dtype(half_plan, kF32);
  auto ishape = half_plan.batched_input_shape();
  auto x = random_values(numel(ishape), dt, 11);
  topi::PooledKernel k = topi::build_pool(half_plan, "cuda -emulate", PoolDirection::Forward);
  auto out = runtime::NDArray::empty(half_plan.batched_output_shape(), dt, Device::cpu());
  k.module.get_function(k.func_name)(half_array(x, ishape, dt), out);
  ReferencePoolExecutor ref;
  auto want = ref.forward(fp, host(fp, x, ishape)).output.to_doubles();
  expect_close_half(half_values(out, dt), want, dt, ulps, half_plan.op + " " + dt.str());
}

// Backward of a 16-bit plan against the float32 reference backward (max: the reference's indices).
void check_half_backward(const PoolPlan& half_plan, double ulps) {
  DataType dt = half_plan.dtype;
  PoolPlan fp = with_dtype(half_plan, kF32);
  if (fp.mode == PoolMode::Max) fp.return_indices = true;
  auto ishape = half_plan.batched_input_shape(), oshape = half_plan.batched_output_shape();
  auto x = random_values(numel(ishape), dt, 3);
  auto g = random_values(numel(oshape), dt, 5);
  ReferencePoolExecutor ref;
  HostArray hx = host(fp, x, ishape), hg = host(fp, g, oshape);
  PoolForwardResult f = ref.forward(fp, hx);
  auto want =
      ref.backward(fp, hx, hg, fp.mode == PoolMode::Max ? &f.indices : nullptr).to_doubles();

  topi::PooledKernel k = topi::build_pool(half_plan, "cuda -emulate", PoolDirection::Backward);
  auto gi = runtime::NDArray::empty(ishape, dt, Device::cpu());
  auto go = half_array(g, oshape, dt);
  if (half_plan.mode == PoolMode::Max) {
    std::vector<int64_t> ind(static_cast<size_t>(f.indices.numel()));
    for (size_t i = 0; i < ind.size(); ++i) ind[i] = f.indices.get_int(static_cast<int64_t>(i));
    k.module.get_function(k.func_name)(go, runtime::NDArray::from_vector(ind, oshape), gi);
  } else {
    k.module.get_function(k.func_name)(go, gi);
  }
  expect_close_half(half_values(gi, dt), want, dt, ulps, half_plan.op + " backward " + dt.str());
}

TEST(PoolCudaEmulate, Float16Forward) {
  check_half_forward(max2d({2, 3, 11, 9}, kF16, 3, 2, 1, false), 0.0);  // exact
  check_half_forward(max2d({1, 7, 6, 8}, kF16, 2, 2, 0, false, PoolLayout::ChannelsLast), 0.0);
  // averages: float32 sums, one rounding -> within half an ulp (+ the float32 error)
  check_half_forward(avg2d({2, 3, 11, 9}, kF16, 3, 2, 1, false), 0.5001);
  check_half_forward(avg2d({2, 3, 11, 9}, kF16, 3, 1, 1, true, PoolLayout::ChannelsLast), 0.5001);
  check_half_forward(adaptive2d(false, {1, 4, 13, 10}, kF16, 4, 3), 0.5001);
  check_half_forward(adaptive2d(true, {1, 4, 13, 10}, kF16, 4, 3), 0.0);
}

TEST(PoolCudaEmulate, Float16Backward) {
  check_half_backward(avg2d({2, 3, 11, 9}, kF16, 3, 2, 1, false), 0.5001);  // overlapping: grad_acc
  check_half_backward(avg2d({1, 5, 9, 9}, kF16, 3, 3, 0, true, PoolLayout::ChannelsLast),
                      0.5001);  // disjoint
  check_half_backward(max2d({2, 3, 11, 9}, kF16, 3, 2, 1, false), 0.5001);
  check_half_backward(adaptive2d(false, {1, 4, 13, 10}, kF16, 4, 3), 0.5001);
}

// ---- emulator: bfloat16
// ----------------------------------------------------------------------------- The reference
// executor runs in the kernel's accumulation type (float32; float64 for the Mean divisor rule of
// global/1x1 adaptive averages) on the bfloat16 inputs; its result rounded once to bfloat16 must
// equal the kernel's bits. Max is a selection (exact); averages and gradients are accumulated in
// float32 in the reference's order (window taps row-major, gradients in output order) and rounded
// once, so they are exact too.

// The nearest bfloat16 of v (ties to even) as bits, by scaling to an integer count of ulps
// (independent of the code generator's conversion); NaN -> 0x7FFF.
uint16_t bf16_of(double v) {
  if (std::isnan(v)) return 0x7FFF;
  double r = v;
  if (v != 0 && std::isfinite(v)) {
    double ulp = std::ldexp(1.0, std::max(std::ilogb(v), -126) - 7);
    r = std::nearbyint(v / ulp) * ulp;  // default rounding mode: ties to even
    if (std::fabs(r) > static_cast<double>(from_bits(0x7F7F, kBF16)))
      r = v < 0 ? -INFINITY : INFINITY;
  }
  return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(r)) >> 16);
}

void expect_bf16_exact(const std::vector<uint16_t>& got, const std::vector<double>& ref,
                       const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    uint16_t want = bf16_of(ref[i]);
    bool ok = std::isnan(ref[i]) ? (got[i] & 0x7FFF) > 0x7F80 : got[i] == want;
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << ": index " << i << ": got 0x" << std::hex << got[i] << " ("
                    << from_bits(got[i], kBF16) << "), expected 0x" << want << " (" << ref[i] << ")"
                    << std::dec;
  }
  EXPECT_EQ(bad, 0) << what;
}

DataType reference_dtype(const PoolPlan& p, PoolDirection dir) {
  return dir == PoolDirection::Forward && p.divisor_rule == DivisorRule::Mean ? DataType::Float(64)
                                                                              : kF32;
}

// `specials`: (input index, value) pairs written over the random inputs (NaN, +-inf).
void check_bf16_forward(const PoolPlan& plan, bool indices = false,
                        const std::vector<std::pair<size_t, float>>& specials = {}) {
  SCOPED_TRACE(plan.op + " forward bfloat16");
  PoolPlan ref_plan = with_dtype(plan, reference_dtype(plan, PoolDirection::Forward));
  ref_plan.return_indices = indices;
  auto ishape = plan.batched_input_shape(), oshape = plan.batched_output_shape();
  auto x = random_values(numel(ishape), kBF16, 13);
  for (auto [i, v] : specials) x.at(i) = v;
  topi::BuildPoolOptions o;
  o.with_indices = indices;
  topi::PooledKernel k = topi::build_pool(plan, "cuda -emulate", PoolDirection::Forward, o);
  EXPECT_NE(k.module.get_source("cuda").find("__nv_bfloat16"), std::string::npos);
  auto out = runtime::NDArray::empty(oshape, kBF16, Device::cpu());
  auto ind = runtime::NDArray::empty(oshape, DataType::Int(64), Device::cpu());
  if (indices)
    k.module.get_function(k.func_name)(half_array(x, ishape, kBF16), out, ind);
  else
    k.module.get_function(k.func_name)(half_array(x, ishape, kBF16), out);
  ReferencePoolExecutor ref;
  PoolForwardResult want = ref.forward(ref_plan, host(ref_plan, x, ishape));
  expect_bf16_exact(out.to_vector<uint16_t>(), want.output.to_doubles(), plan.op);
  if (indices) {
    auto got = ind.to_vector<int64_t>();
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want.indices.get_int(static_cast<int64_t>(i))) << i;
  }
}

void check_bf16_backward(const PoolPlan& plan) {
  SCOPED_TRACE(plan.op + " backward bfloat16");
  PoolPlan fp = with_dtype(plan, reference_dtype(plan, PoolDirection::Backward));
  if (fp.mode == PoolMode::Max) fp.return_indices = true;
  auto ishape = plan.batched_input_shape(), oshape = plan.batched_output_shape();
  auto x = random_values(numel(ishape), kBF16, 17);
  auto g = random_values(numel(oshape), kBF16, 19);
  ReferencePoolExecutor ref;
  HostArray hx = host(fp, x, ishape), hg = host(fp, g, oshape);
  PoolForwardResult f = ref.forward(fp, hx);
  auto want =
      ref.backward(fp, hx, hg, fp.mode == PoolMode::Max ? &f.indices : nullptr).to_doubles();

  topi::PooledKernel k = topi::build_pool(plan, "cuda -emulate", PoolDirection::Backward);
  auto gi = runtime::NDArray::empty(ishape, kBF16, Device::cpu());
  auto go = half_array(g, oshape, kBF16);
  if (plan.mode == PoolMode::Max) {
    std::vector<int64_t> ind(static_cast<size_t>(f.indices.numel()));
    for (size_t i = 0; i < ind.size(); ++i) ind[i] = f.indices.get_int(static_cast<int64_t>(i));
    k.module.get_function(k.func_name)(go, runtime::NDArray::from_vector(ind, oshape), gi);
  } else {
    k.module.get_function(k.func_name)(go, gi);
  }
  expect_bf16_exact(gi.to_vector<uint16_t>(), want, plan.op + " backward");
}

TEST(PoolCudaEmulate, Bfloat16RoundingReference) {
  EXPECT_EQ(bf16_of(1.0), 0x3F80);
  EXPECT_EQ(bf16_of(1.0 + std::ldexp(1.0, -8)), 0x3F80);  // tie: to even
  EXPECT_EQ(bf16_of(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
  EXPECT_EQ(bf16_of(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3F81);
  EXPECT_EQ(bf16_of(-2.0), 0xC000);
  EXPECT_EQ(bf16_of(-0.0), 0x8000);
  EXPECT_EQ(bf16_of(1e39), 0x7F80);
  EXPECT_EQ(bf16_of(std::ldexp(1.0, -133)), 0x0001);  // smallest denormal
  EXPECT_EQ(bf16_of(std::ldexp(1.0, -134)), 0x0000);  // tie with 0: to even
}

TEST(PoolCudaEmulate, Bfloat16MaxForwardNanInf) {
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  // 2x3x11x9 input (planes of 99): NaN inside overlapping windows, +inf, -inf; plane 1's corner
  // window (rows 0-1, cols 0-1 with padding 1) holds -inf only; plane 2: NaN next to +inf.
  std::vector<std::pair<size_t, float>> sp = {{10, nan},   {31, inf},   {40, -inf},  {99, -inf},
                                              {100, -inf}, {108, -inf}, {109, -inf}, {200, nan},
                                              {201, inf},  {202, nan}};
  check_bf16_forward(max2d({2, 3, 11, 9}, kBF16, 3, 2, 1, false), false, sp);
  check_bf16_forward(max2d({2, 3, 11, 9}, kBF16, 3, 2, 1, true), true, sp);
  check_bf16_forward(max2d({1, 7, 6, 8}, kBF16, 2, 2, 0, false, PoolLayout::ChannelsLast), false,
                     {{3, nan}, {50, -inf}, {51, inf}});
}

TEST(PoolCudaEmulate, Bfloat16AvgForward) {
  check_bf16_forward(avg2d({2, 3, 11, 9}, kBF16, 3, 2, 1, true));
  check_bf16_forward(avg2d({2, 3, 11, 9}, kBF16, 3, 2, 1, false, PoolLayout::ChannelsLast));
  check_bf16_forward(
      avg2d({1, 3, 10, 9}, kBF16, 3, 2, 1, true, PoolLayout::ChannelsFirst, true));  // ceil_mode
  check_bf16_forward(
      avg2d({1, 3, 10, 9}, kBF16, 3, 2, 1, false, PoolLayout::ChannelsFirst, true));  // ceil_mode
  check_bf16_forward(adaptive2d(false, {1, 4, 13, 10}, kBF16, 4, 3));  // per-axis division, float32
  check_bf16_forward(
      adaptive2d(false, {1, 4, 13, 10}, kBF16, 1, 1));  // mean in float64, __double2bfloat16
}

TEST(PoolCudaEmulate, Bfloat16Backward) {
  check_bf16_backward(
      max2d({2, 3, 11, 9}, kBF16, 3, 2, 1, false));  // overlapping: float32 grad_acc
  check_bf16_backward(avg2d({2, 3, 11, 9}, kBF16, 3, 2, 1, false));  // overlapping
  check_bf16_backward(
      avg2d({1, 3, 10, 9}, kBF16, 3, 2, 1, true, PoolLayout::ChannelsLast, true));  // ceil_mode
  check_bf16_backward(
      avg2d({1, 5, 9, 9}, kBF16, 3, 3, 0, true, PoolLayout::ChannelsLast));  // disjoint
  check_bf16_backward(adaptive2d(false, {1, 4, 13, 10}, kBF16, 4, 3));
}

}  // namespace
