// TVM's CUDA templates: lowered IR of a TVM tutorial-sized conv2d, and emulated runs against
// references.
#include "ref.h"

#include <minitvm/autotune/record.h>
#include <minitvm/autotune/task.h>
#include <minitvm/runtime/nvrtc.h>
#include <minitvm/runtime/ptxas.h>
#include <minitvm/topi/cuda_schedule.h>
#include <minitvm/topi/layer.h>

using namespace minitvm;
using namespace topi_test;
namespace nn = minitvm::topi::nn;
namespace cuda = minitvm::topi::cuda;
using autotune::ConfigEntity;
using autotune::OtherOptionEntity;
using autotune::SplitEntity;

namespace {
const DataType f32 = DataType::Float(32);

ConfigEntity direct_cfg(std::vector<int64_t> f, std::vector<int64_t> y, std::vector<int64_t> x,
                        std::vector<int64_t> rc, std::vector<int64_t> ry, std::vector<int64_t> rx,
                        int unroll, int expl) {
  ConfigEntity c;
  c.template_key = "direct";
  c.set("tile_f", SplitEntity{f});
  c.set("tile_y", SplitEntity{y});
  c.set("tile_x", SplitEntity{x});
  c.set("tile_rc", SplitEntity{rc});
  c.set("tile_ry", SplitEntity{ry});
  c.set("tile_rx", SplitEntity{rx});
  c.set("auto_unroll_max_step", OtherOptionEntity{unroll});
  c.set("unroll_explicit", OtherOptionEntity{expl});
  return c;
}

// Number of elements of `allocate NAME[float32 * a * b ...]` in lowered IR text (-1 if absent).
int64_t alloc_size(const std::string& ir, const std::string& name) {
  std::string key = "allocate " + name + "[float32 * ";
  size_t p = ir.find(key);
  if (p == std::string::npos) return -1;
  size_t e = ir.find(']', p);
  std::string dims = ir.substr(p + key.size(), e - p - key.size());
  int64_t prod = 1;
  size_t q = 0;
  while (q < dims.size()) {
    size_t star = dims.find('*', q);
    prod *= std::stoll(dims.substr(q, star == std::string::npos ? std::string::npos : star - q));
    q = star == std::string::npos ? dims.size() : star + 1;
  }
  return prod;
}
}  // namespace

// Spec 6.7 (3): 3x3 conv, 224x224 output, fused bias + relu, blockIdx (14, 28, 1), threads (16, 1,
// 4).
TEST(TopiCuda, SpecExampleBufferSizes) {
  auto data = te::placeholder({1, 3, 224, 224}, f32, "data");
  auto kernel = te::placeholder({16, 3, 3, 3}, f32, "placeholder");
  auto bias = te::placeholder({16}, f32, "bias");
  auto conv = nn::conv2d_nchw(data, kernel, {1, 1}, {1, 1}, {1, 1});
  auto out = nn::relu(nn::bias_add(conv, bias));
  auto cfg =
      direct_cfg({1, 1, 4, 4}, {28, 1, 1, 8}, {14, 1, 16, 1}, {3, 1}, {1, 3}, {1, 3}, 1500, 1);
  auto g = topi::conv_geometry(
      cuda::conv2d_workloads({1, 3, 224, 224}, {16, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}).v01);
  ASSERT_TRUE(g.has_value());
  auto s = cuda::schedule_conv2d_nchw_direct({out}, cfg, *g, autotune::parse_target("cuda"));
  std::ostringstream os;
  os << lower(s, {data, kernel, bias, out}, "conv");
  std::string ir = os.str();
  EXPECT_EQ(alloc_size(ir, "compute"), 32) << ir;
  EXPECT_EQ(alloc_size(ir, "pad_temp.shared"), 180) << ir;
  EXPECT_EQ(alloc_size(ir, "placeholder.shared"), 144) << ir;
  EXPECT_NE(ir.find("thread_extent = 28"), std::string::npos);
  EXPECT_NE(ir.find("thread_extent = 14"), std::string::npos);
}

namespace {
std::vector<float> run_layer(const topi::LayerBuild& L,
                             const std::vector<std::vector<float>>& inputs) {
  std::vector<runtime::ArgValue> args;
  for (size_t i = 0; i + 1 < L.args.size(); ++i)
    args.push_back(runtime::NDArray::from_vector(inputs[i], nn::const_shape(L.args[i])));
  auto out = runtime::NDArray::empty(nn::const_shape(L.args.back()), f32);
  args.push_back(out);
  L.module.get_function(L.func_name).call(args);
  return out.to_vector<float>();
}
}  // namespace

// Cooperative loads that divide evenly among the threads (see docs/TOPI.md: uneven ones race
// until the lowering guards intermediate split axes).
TEST(TopiCuda, Conv2dDirectEmulatedWithConfig) {
  ConvShape s{1, 8, 14, 14, 16, 3, 3, 1, 1, {1, 1, 1, 1}};
  autotune::ApplyConfig ctx(
      direct_cfg({-1, 2, 2, 2}, {-1, 1, 1, 2}, {-1, 1, 2, 7}, {-1, 4}, {-1, 3}, {-1, 1}, 512, 1));
  autotune::DispatchScope scope(ctx);
  auto L =
      topi::build_conv2d({1, 8, 14, 14}, {16, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda -emulate");
  EXPECT_FALSE(L.is_fallback);
  EXPECT_NE(L.source.find("__shared__"), std::string::npos);
  auto x = rnd(8 * 14 * 14, 1), k = rnd(16 * 8 * 9, 2);
  expect_close(run_layer(L, {x, k}), conv_ref(s, x, k), 1e-4f);
}

TEST(TopiCuda, DepthwiseEmulatedWithConfig) {
  ConvShape s{1, 8, 14, 14, 0, 3, 3, 1, 1, {1, 1, 1, 1}};
  ConfigEntity c;
  c.set("tile_f", SplitEntity{{-1, 1, 2, 1}});
  c.set("tile_y", SplitEntity{{-1, 1, 2, 7}});
  c.set("tile_x", SplitEntity{{-1, 1, 4, 1}});
  c.set("auto_unroll_max_step", OtherOptionEntity{256});
  c.set("unroll_explicit", OtherOptionEntity{1});
  autotune::ApplyConfig ctx(c);
  autotune::DispatchScope scope(ctx);
  auto L = topi::build_depthwise_conv2d({1, 8, 14, 14}, {8, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}},
                                        "cuda -emulate");
  auto x = rnd(8 * 14 * 14, 3), k = rnd(8 * 9, 4);
  expect_close(run_layer(L, {x, k}), conv_ref(s, x, k, 1), 1e-4f);
}

TEST(TopiCuda, WinogradEmulatedWithConfig) {
  ConvShape s{1, 4, 8, 8, 8, 3, 3, 1, 1, {1, 1, 1, 1}};
  ConfigEntity c;
  c.template_key = "winograd";
  c.set("tile_b", SplitEntity{{-1, 1, 1, 1}});
  c.set("tile_y", SplitEntity{{-1, 1, 4, 2}});
  c.set("tile_x", SplitEntity{{-1, 1, 4, 1}});
  c.set("tile_rc", SplitEntity{{-1, 2}});
  c.set("auto_unroll_max_step", OtherOptionEntity{128});
  c.set("unroll_explicit", OtherOptionEntity{1});
  autotune::ApplyConfig ctx(c);
  autotune::DispatchScope scope(ctx);
  // Lowered only: the core's split_host_device cannot yet pass intermediate global buffers
  // (kernel_pack, data_pack, bgemm) between kernels, which running the winograd pipeline needs.
  topi::LayerOptions opt;
  opt.lower_only = true;
  auto L = topi::build_conv2d({1, 4, 8, 8}, {8, 4, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda -emulate",
                              opt);
  EXPECT_EQ(L.template_key, "winograd");
  EXPECT_EQ(alloc_size(L.ir, "bgemm.local"), 2) << L.ir;  // y1*y3 * x1*x3 = 1*2 * 1*1
  EXPECT_NE(L.ir.find("produce kernel_pack"), std::string::npos);
  EXPECT_NE(L.ir.find("threadIdx.y, , threadIdx.y)] thread_extent = 4"), std::string::npos);
  (void)s;
}

TEST(TopiCuda, DenseSmallAndLargeBatchEmulated) {
  for (auto [B, K, N] : std::vector<std::array<int, 3>>{{1, 100, 40}, {32, 16, 32}}) {
    SCOPED_TRACE(testing::Message() << B << "x" << K << "x" << N);
    autotune::FallbackContext fb;
    fb.silent = true;
    autotune::DispatchScope scope(fb);
    auto L = topi::build_dense(B, K, N, true, "cuda -emulate");
    EXPECT_TRUE(L.is_fallback);
    auto x = rnd(B * K, 7), w = rnd(N * K, 8), b = rnd(N, 9);
    expect_close(run_layer(L, {x, w, b}), dense_ref(B, K, N, x, w, &b), 1e-4f);
  }
}

// TVM's small-batch schedule: rfactor of the tile_k inner axis, one block (blockIdx.y = row,
// blockIdx.x = column) per output, the kf partial sums all-reduced across kf threads, thread 0
// storing. kf = 20 threads (not a power of two) and the fallback's 64 threads over 100 and 40
// elements (the factored reduction is guarded). NVRTC and ptxas (sm_90) accept the source.
TEST(TopiCuda, DenseSmallBatchCrossThreadReduction) {
  struct Case {
    int B, K, N;
    int64_t kf;  // 0: fallback
  };
  for (auto c : std::vector<Case>{{3, 100, 17, 20}, {2, 100, 9, 0}, {5, 40, 6, 0}}) {
    SCOPED_TRACE(testing::Message() << c.B << "x" << c.K << "x" << c.N << " kf " << c.kf);
    ConfigEntity cfg;
    cfg.template_key = "direct";
    cfg.set("tile_k", SplitEntity{{-1, c.kf}});
    autotune::ApplyConfig apply(cfg);
    autotune::FallbackContext fb;
    fb.silent = true;
    autotune::DispatchScope scope(c.kf ? static_cast<autotune::DispatchContext&>(apply)
                                       : static_cast<autotune::DispatchContext&>(fb));
    auto L = topi::build_dense(c.B, c.K, c.N, true, "cuda -emulate");
    EXPECT_EQ(L.is_fallback, c.kf == 0);
    const int64_t threads = c.kf ? c.kf : 64;
    EXPECT_NE(L.source.find("__launch_bounds__(" + std::to_string(threads) + ")"),
              std::string::npos)
        << L.source;
    EXPECT_NE(L.source.find("__shared__ float red_buf0[" + std::to_string(threads) + "];"),
              std::string::npos)
        << L.source;
    EXPECT_NE(L.source.find("__syncthreads();"), std::string::npos);
    EXPECT_NE(L.source.find("if (((int)threadIdx.x) == 0)"), std::string::npos) << L.source;
    EXPECT_NE(L.ir.find("produce T_dense.rf"), std::string::npos) << L.ir;
    EXPECT_NE(L.ir.find("blockIdx.y, , blockIdx.y)] thread_extent = " + std::to_string(c.B)),
              std::string::npos);
    EXPECT_NE(L.ir.find("blockIdx.x, , blockIdx.x)] thread_extent = " + std::to_string(c.N)),
              std::string::npos);
    auto x = rnd(c.B * c.K, 17), w = rnd(c.N * c.K, 18), b = rnd(c.N, 19);
    expect_close(run_layer(L, {x, w, b}), dense_ref(c.B, c.K, c.N, x, w, &b), 1e-4f);
    if (!runtime::nvrtc_available() || runtime::find_ptxas().empty()) continue;
    runtime::NvrtcOptions o;
    o.arch = "sm_90";
    auto ptx = runtime::nvrtc_compile(L.source, o).ptx;
    auto report = runtime::ptxas_check(ptx, "sm_90");
    ASSERT_FALSE(report.kernels.empty()) << report.output;
    EXPECT_EQ(report.kernels[0].shared_bytes, threads * 4);
  }
}

TEST(TopiCuda, SeedLogRecordIsAppliedExactly) {
  // vgg16 batch 1 first layer: the seed record's tile sizes show up as launch extents.
  autotune::ApplyHistoryBest best;
  best.load(std::string(MINITVM_SOURCE_DIR) + "/tophub/seed/vgg16_bs_1.log");
  autotune::DispatchScope scope(best);
  topi::LayerOptions opt;
  opt.lower_only = true;
  auto L =
      topi::build_conv2d({1, 3, 224, 224}, {64, 3, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}, "cuda", opt);
  EXPECT_FALSE(L.is_fallback);
  EXPECT_EQ(L.config.split("tile_x").size, (std::vector<int64_t>{-1, 1, 28, 1}));
  EXPECT_NE(L.ir.find("blockIdx.x, , blockIdx.x)] thread_extent = 8"), std::string::npos)
      << L.ir.substr(0, 2000);
  EXPECT_NE(L.ir.find("threadIdx.x, , threadIdx.x)] thread_extent = 28"), std::string::npos);
}

namespace {
struct GroupCase {
  ConvShape s;
  int groups;
  bool epilogue;  // bias + relu fused into the output stage
};

// group_conv2d_nchw.cuda under the current dispatch context (as relay::build queries it), built
// for `target`; runs it on `cuda -emulate` and compares with the naive grouped loops.
void check_group_cuda(const GroupCase& c, const std::string& target, bool expect_fallback) {
  const ConvShape& s = c.s;
  SCOPED_TRACE(testing::Message() << "group conv " << s.ci << "->" << s.co << " groups " << c.groups
                                  << " " << s.h << "x" << s.w << " stride " << s.sh << " dil "
                                  << s.dh);
  std::vector<int64_t> ds{s.n, s.ci, s.h, s.w}, ks{s.co, s.ci / c.groups, s.kh, s.kw};
  nn::Conv2dAttrs attrs{{s.sh, s.sw}, {s.pad[0], s.pad[1], s.pad[2], s.pad[3]}, {s.dh, s.dw}};
  auto data = te::placeholder({s.n, s.ci, s.h, s.w}, f32, "data");
  auto kernel = te::placeholder({s.co, s.ci / c.groups, s.kh, s.kw}, f32, "placeholder");
  auto bias = te::placeholder({s.co}, f32, "bias");
  auto conv =
      nn::group_conv2d_nchw(data, kernel, attrs.stride, attrs.padding, attrs.dilation, c.groups);
  te::Tensor out = c.epilogue ? nn::relu(nn::bias_add(conv, bias)) : conv;
  auto t = autotune::parse_target(target);
  auto wl = cuda::group_conv2d_workloads(ds, ks, attrs, c.groups);
  EXPECT_EQ(wl.v02.at(0).at(0), "group_conv2d_nchw.cuda");
  auto d = cuda::dispatch(t, wl);
  ASSERT_TRUE(d.cfg);
  EXPECT_EQ(d.cfg->is_fallback(), expect_fallback);
  auto g = topi::conv_geometry(wl.v01);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->groups, c.groups);
  auto sch = cuda::schedule_group_conv2d_nchw({out}, *d.cfg, *g, t);
  std::vector<te::Tensor> args{data, kernel, out};
  if (c.epilogue) args.insert(args.begin() + 2, bias);
  auto mod = build(sch, args, target, "gconv");
  std::string src = mod.get_source("");
  EXPECT_NE(src.find("__shared__"), std::string::npos);
  auto x = rnd(size_t(s.n) * s.ci * s.h * s.w, 41),
       k = rnd(size_t(s.co) * (s.ci / c.groups) * s.kh * s.kw, 42);
  auto b = rnd(size_t(s.co), 43);
  auto on = runtime::NDArray::empty(nn::const_shape(out), f32);
  std::vector<runtime::ArgValue> call{runtime::NDArray::from_vector(x, ds),
                                      runtime::NDArray::from_vector(k, ks)};
  if (c.epilogue) call.push_back(runtime::NDArray::from_vector(b, {s.co}));
  call.push_back(on);
  mod.get_function("gconv").call(call);
  auto ref = group_conv_ref(s, c.groups, x, k);
  if (c.epilogue) {
    size_t plane = size_t(s.oh()) * s.ow();
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = std::max(ref[i] + b[(i / plane) % s.co], 0.f);
  }
  expect_close(on.to_vector<float>(), ref, 1e-4f);
  if (!runtime::nvrtc_available() || runtime::find_ptxas().empty()) return;
  runtime::NvrtcOptions o;
  o.arch = "sm_90";
  auto ptx = runtime::nvrtc_compile(src, o).ptx;
  auto report = runtime::ptxas_check(ptx, "sm_90");
  ASSERT_FALSE(report.kernels.empty()) << report.output;
  EXPECT_LE(report.kernels[0].shared_bytes, 48 * 1024);
  testing::Test::RecordProperty("ptxas_sm_90_shared_bytes",
                                std::to_string(report.kernels[0].shared_bytes));
}

ConfigEntity group_cfg(std::vector<int64_t> n, std::vector<int64_t> gr, std::vector<int64_t> f,
                       std::vector<int64_t> y, std::vector<int64_t> x, std::vector<int64_t> rc,
                       std::vector<int64_t> ry, std::vector<int64_t> rx, int unroll, int expl,
                       int fuse_yx) {
  ConfigEntity c;
  for (auto& [name, v] : std::vector<std::pair<const char*, std::vector<int64_t>>>{{"tile_n", n},
                                                                                   {"tile_g", gr},
                                                                                   {"tile_f", f},
                                                                                   {"tile_y", y},
                                                                                   {"tile_x", x},
                                                                                   {"tile_rc", rc},
                                                                                   {"tile_ry", ry},
                                                                                   {"tile_rx", rx}})
    c.set(name, SplitEntity{v});
  c.set("auto_unroll_max_step", OtherOptionEntity{unroll});
  c.set("unroll_explicit", OtherOptionEntity{expl});
  c.set("fuse_yx", OtherOptionEntity{fuse_yx});
  return c;
}
}  // namespace

// Fallback configs (no log holds group_conv2d_nchw.cuda): groups 2, 4 (stride 2, asymmetric
// padding), 4 with dilation 2, 32 (ResNeXt 32x4d-like, stride 2), depthwise with multiplier 2.
TEST(TopiCuda, GroupConv2dEmulatedFallback) {
  autotune::FallbackContext fb;
  fb.silent = true;
  autotune::DispatchScope scope(fb);
  for (const GroupCase& c :
       std::vector<GroupCase>{{{1, 8, 10, 10, 16, 3, 3, 1, 1, {1, 1, 1, 1}}, 2, true},
                              {{2, 16, 11, 9, 16, 3, 3, 2, 2, {1, 0, 2, 1}}, 4, false},
                              {{1, 8, 12, 12, 8, 3, 3, 1, 1, {2, 2, 2, 2}, 2, 2}, 4, true},
                              {{1, 128, 8, 8, 128, 3, 3, 2, 2, {1, 1, 1, 1}}, 32, true},
                              {{1, 4, 9, 9, 8, 3, 3, 1, 1, {1, 1, 1, 1}}, 4, false}})
    check_group_cuda(c, "cuda -emulate", true);
}

// Explicit configs: vthreads over groups / channels / columns, threads over n, f, y, x, both
// fuse_yx modes, a split reduction (tile_rc, tile_ry) with shared stages inside the window.
TEST(TopiCuda, GroupConv2dEmulatedWithConfig) {
  GroupCase c{{2, 16, 8, 8, 32, 3, 3, 1, 1, {1, 1, 1, 1}}, 4, true};
  for (int fuse_yx : {0, 1}) {
    SCOPED_TRACE(testing::Message() << "fuse_yx " << fuse_yx);
    autotune::ApplyConfig ctx(group_cfg({-1, 1, 2, 1}, {-1, 2}, {-1, 2, 2, 2}, {-1, 1, 2, 2},
                                        {-1, 2, 4, 1}, {-1, 2}, {-1, 1}, {-1, 3}, 512, 1, fuse_yx));
    autotune::DispatchScope scope(ctx);
    check_group_cuda(c, "cuda -emulate", false);
  }
}

// The registered tuning template: TVM's knobs in TVM's order, its flop count, a config of its
// space instantiates; a group count that does not divide the channels is a CompileError.
TEST(TopiCuda, GroupConv2dTemplateRegistered) {
  using autotune::Json;
  Json args = Json::array({Json::array({"TENSOR", {1, 8, 6, 6}, "float32"}),
                           Json::array({"TENSOR", {12, 2, 3, 3}, "float32"}),
                           {1, 1},
                           {1, 1, 1, 1},
                           {1, 1},
                           4,
                           "float32"});
  autotune::Task task("group_conv2d_nchw.cuda", args, "cuda");
  std::vector<std::string> names;
  for (auto& k : task.config_space().knobs()) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "tile_n", "tile_g", "tile_f", "tile_y", "tile_x", "tile_rc", "tile_ry",
                       "tile_rx", "auto_unroll_max_step", "unroll_explicit", "fuse_yx"}));
  EXPECT_DOUBLE_EQ(task.flop(), 2.0 * 12 * 6 * 6 * 2 * 9);
  auto space =
      autotune::template_space("group_conv2d_nchw.cuda", "", task.workload(), task.target());
  ASSERT_TRUE(space.has_value());
  EXPECT_EQ(space->size(), task.config_space().size());
  ConfigEntity cfg = task.config(task.config_space().size() / 3);
  auto r = task.instantiate(cfg);
  EXPECT_EQ(r.args.size(), 3u);
  Json bad = args;
  bad[5] = 3;
  EXPECT_THROW(autotune::Task("group_conv2d_nchw.cuda", bad, "cuda"), CompileError);
}
