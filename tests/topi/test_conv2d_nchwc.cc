// TVM's x86 conv2d template (conv2d_NCHWc.x86, src/topi/cpu/conv2d_nchwc.cc):
// - the space is TVM's: every record of the shipped llvm TopHub logs (0.1 topi_x86_conv2d and 0.2
//   conv2d_NCHWc.x86, tuned by TVM on a Skylake-AVX512) decodes its index to exactly its entity;
// - build_conv2d(..., "llvm") applies such a record (not the fallback) and, like the fallback
//   configs and random points of the space, matches a naive convolution (strides, asymmetric
//   padding, dilation, 1x1 with tile_oh, channel counts without a 16-divisor);
// - the fallback follows TVM's _fallback_schedule.
#include "ref.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/layer.h"

using namespace minitvm;
using namespace topi_test;
using autotune::Json;

namespace {

struct Case {
  std::vector<int64_t> ds, ks;
  topi::nn::Conv2dAttrs attrs;
};

// Shapes and attributes of a TopHub x86 conv2d record (both formats).
Case case_of(const autotune::Record& r) {
  Case c;
  const Json& a = r.input.args;
  c.ds = a[0][1].get<std::vector<int64_t>>();
  c.ks = a[1][1].get<std::vector<int64_t>>();
  if (r.version ==
      0.1) {  // the workload: ("conv2d", data, kernel, strides, padding, dilation, layout, dtype)
    const Json& w = r.input.workload;
    c.attrs.stride = w[3].get<std::vector<int64_t>>();
    c.attrs.padding = w[4].get<std::vector<int64_t>>();
    c.attrs.dilation = w[5].get<std::vector<int64_t>>();
  } else {  // conv2d_NCHWc.x86: data, kernel, strides, padding, dilation, layout, out_layout, dtype
    c.attrs.stride = a[2].get<std::vector<int64_t>>();
    c.attrs.padding = a[3].get<std::vector<int64_t>>();
    c.attrs.dilation = a[4].get<std::vector<int64_t>>();
  }
  return c;
}

ConvShape shape_of(const Case& c) {
  ConvShape s{int(c.ds[0]), int(c.ds[1]), int(c.ds[2]), int(c.ds[3]),
              int(c.ks[0]), int(c.ks[2]), int(c.ks[3])};
  s.sh = int(c.attrs.stride[0]);
  s.sw = int(c.attrs.stride.size() > 1 ? c.attrs.stride[1] : c.attrs.stride[0]);
  auto p = topi::nn::get_pad_tuple(c.attrs.padding);
  s.pad = {int(p[0]), int(p[1]), int(p[2]), int(p[3])};
  s.dh = int(c.attrs.dilation[0]);
  s.dw = int(c.attrs.dilation.size() > 1 ? c.attrs.dilation[1] : c.attrs.dilation[0]);
  return s;
}

// Builds through build_conv2d (under the current dispatch context), runs, compares with conv_ref.
topi::LayerBuild run_and_check(const Case& c, unsigned seed) {
  ConvShape s = shape_of(c);
  auto x = rnd(size_t(s.n) * s.ci * s.h * s.w, seed),
       k = rnd(size_t(s.co) * s.ci * s.kh * s.kw, seed + 1);
  topi::LayerBuild L = topi::build_conv2d(c.ds, c.ks, c.attrs, "llvm");
  auto y = runtime::NDArray::empty({s.n, s.co, s.oh(), s.ow()}, DataType::Float(32));
  L.module.get_function(L.func_name)(runtime::NDArray::from_vector(x, c.ds),
                                     runtime::NDArray::from_vector(k, c.ks), y);
  expect_close(y.to_vector<float>(), conv_ref(s, x, k), 1e-4f);
  return L;
}

std::vector<autotune::Record> tophub_x86_records() {
  std::vector<autotune::Record> all;
  for (const char* f : {"llvm_v0.03.log", "llvm_v0.04.log"}) {
    auto recs = autotune::load_records(std::string(MINITVM_SOURCE_DIR) + "/tophub/" + f);
    all.insert(all.end(), recs.begin(), recs.end());
  }
  return all;
}

}  // namespace

// The logs were tuned in 2018, when tile_ow enumerated the factors of OW; TVM 0.7+ (which reads
// conv2d_NCHWc.x86 records) enumerates the "verbose" list (factors and powers of two), so a
// record's index is not a position in today's space, and TVM never decodes it: it applies the
// record's entity. Every entity must therefore be a point of our space: same knobs in the same
// order, each value among the candidates (splits compared on their inner factors).
TEST(Conv2dNCHWc, EveryTophubRecordIsAPointOfTheSpace) {
  auto recs = tophub_x86_records();
  ASSERT_EQ(recs.size(), 70u);  // 35 layers in each format
  for (const auto& r : recs) {
    SCOPED_TRACE(r.source + ":" + std::to_string(r.line));
    Case c = case_of(r);
    autotune::FallbackConfigEntity fb;
    topi::cpu::define_conv2d_nchwc_space(fb, c.ds, c.ks, c.attrs);
    const auto& knobs = fb.space().knobs();
    const auto& ents = r.input.config.entities();
    ASSERT_EQ(knobs.size(), ents.size());
    for (size_t i = 0; i < knobs.size(); ++i) {
      ASSERT_EQ(knobs[i].name, ents[i].first);
      bool found = false;
      for (const auto& cand : knobs[i].entities) {
        if (auto* sp = std::get_if<autotune::SplitEntity>(&cand)) {
          auto* want = std::get_if<autotune::SplitEntity>(&ents[i].second);
          found |= want && std::vector<int64_t>(sp->size.begin() + 1, sp->size.end()) ==
                               std::vector<int64_t>(want->size.begin() + 1, want->size.end());
        } else {
          found |= cand == ents[i].second;
        }
      }
      EXPECT_TRUE(found) << knobs[i].name;
    }
  }
}

TEST(Conv2dNCHWc, TophubRecordsApplyAndMatchReference) {
  auto recs = tophub_x86_records();
  int checked = 0;
  for (const auto& r : recs) {
    Case c = case_of(r);
    // the stem (7x7/2), a 1x1/2, a 3x3 of each format; the reference is a naive loop nest
    bool pick = (c.ks[2] == 7) || (c.ds[1] == 64 && c.ks[0] == 128 && c.ks[2] == 1) ||
                (c.ds[1] == 128 && c.ds[2] == 28 && c.ks[0] == 128);
    if (!pick) continue;
    SCOPED_TRACE(r.source + ":" + std::to_string(r.line));
    autotune::ApplyHistoryBest best(std::vector<autotune::Record>{r});
    autotune::DispatchScope scope(best);
    topi::LayerBuild L = run_and_check(c, 3);
    EXPECT_FALSE(L.is_fallback);
    EXPECT_EQ(L.config.index, r.input.config.index);
    EXPECT_EQ(L.template_key, "conv2d_NCHWc.x86");
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

TEST(Conv2dNCHWc, FallbackAndRandomConfigsMatchReference) {
  autotune::root_fallback_context().silent = true;
  std::vector<Case> cases = {
      {{1, 16, 10, 9}, {32, 16, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
      {{2, 3, 17, 15},
       {20, 3, 5, 3},
       {{2, 1}, {2, 1, 0, 2}, {1, 1}}},  // asymmetric pad, co without 16-divisor
      {{1, 24, 9, 11}, {40, 24, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},  // 1x1: tile_oh
      {{1, 8, 14, 14}, {16, 8, 1, 1}, {{2, 2}, {0, 0}, {1, 1}}},   // 1x1 stride 2
      {{1, 6, 12, 12}, {12, 6, 3, 3}, {{1, 1}, {2, 2}, {2, 2}}},   // dilation 2
      {{1, 64, 9, 30}, {64, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},  // 32-blocks on Intel AVX-512
      {{1, 64, 8, 15}, {96, 64, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},  // and a 1x1 with them
  };
  std::mt19937 rng(11);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    autotune::FallbackConfigEntity fb;
    topi::cpu::conv2d_nchwc_fallback(fb, c.ds, c.ks, c.attrs);
    {  // fallback: oc_bn and ic_bn each channel_block() of their channels
      topi::LayerBuild L = run_and_check(c, 5 + unsigned(i));
      EXPECT_TRUE(L.is_fallback);
      int64_t oc_bn = L.config.split("tile_oc").size.back(),
              ic_bn = L.config.split("tile_ic").size.back();
      EXPECT_EQ(oc_bn, topi::cpu::channel_block(c.ks[0]));
      EXPECT_EQ(ic_bn, topi::cpu::channel_block(c.ds[1]));
      EXPECT_EQ(c.ks[0] % oc_bn, 0);
      EXPECT_EQ(c.ds[1] % ic_bn, 0);
      for (int64_t b = ic_bn + 1; b <= topi::cpu::fp32_lanes(); ++b)
        EXPECT_NE(c.ds[1] % b, 0) << "ic_bn " << ic_bn << " is not the largest divisor";
      if (c.ds[1] % topi::cpu::preferred_channel_block() == 0)
        EXPECT_EQ(ic_bn, topi::cpu::preferred_channel_block());
      EXPECT_EQ(L.config.entity_json(), fb.entity_json());
    }
    for (int k = 0; k < 3; ++k) {  // random points of the space, as a tuner would try them
      int64_t idx = std::uniform_int_distribution<int64_t>(0, fb.space().size() - 1)(rng);
      autotune::ApplyConfig one(fb.space().get(idx));
      autotune::DispatchScope scope(one);
      SCOPED_TRACE(fb.space().get(idx).str());
      run_and_check(c, 50 + unsigned(k));
    }
  }
}

TEST(Conv2dNCHWc, FallbackFollowsTvm) {
  // TVM's fallback: oc_bn = ic_bn = lanes (16 with AVX-512, else 8); reg_n = the largest divisor
  // of the output width up to the register columns: TVM's 31 with AVX-512, 14 with AVX2's 16
  // registers (TVM keeps 31 there: 28 accumulators spill, and ResNet-50 ran 1.3-1.7x slower).
  // minitvm's blocks: two vectors on Intel's AVX-512 cores (32) and with AVX2 (16). With AVX-512
  // the column count is then halved (two accumulators per column); AVX2's 16 registers hold 6
  // columns of two vectors besides the two kernel vectors and the broadcast.
  const int64_t lanes = topi::cpu::fp32_lanes();
  EXPECT_TRUE(lanes == 16 || lanes == 8);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_register_columns(), lanes == 16 ? 31 : 14);
  const int64_t blk = topi::cpu::preferred_channel_block();
  EXPECT_EQ(blk, lanes == 8 || __builtin_cpu_is("intel") ? 2 * lanes : lanes);
  const int64_t cols = topi::cpu::register_columns_for_block(blk);
  EXPECT_EQ(cols, blk == 32 ? 15 : (lanes == 16 ? 31 : 6));
  EXPECT_EQ(topi::cpu::register_columns_for_block(lanes), lanes == 16 ? 31 : 14);
  EXPECT_EQ(topi::cpu::register_columns_for_block(3 * lanes), lanes == 16 ? 10 : 4);
  EXPECT_EQ(topi::cpu::channel_block(64), blk);
  EXPECT_EQ(topi::cpu::channel_block(144), 16);  // 144 = 9 x 16: never 32, never 24
  EXPECT_EQ(topi::cpu::channel_block(24), lanes == 16 ? 12 : 8);
  EXPECT_EQ(topi::cpu::channel_block(3), 3);
  // The largest divisor of 56 and 112 up to cols; with AVX2's 6 columns that is 4, and the
  // fallback takes tiles of 6 instead, the last one partial (10 over 56, 19 over 112).
  const std::vector<int64_t> tiles56 = cols >= 28   ? std::vector<int64_t>{2, 28}
                                       : cols >= 14 ? std::vector<int64_t>{4, 14}
                                                    : std::vector<int64_t>{10, 6};
  const std::vector<int64_t> tiles112 = cols >= 28   ? std::vector<int64_t>{4, 28}
                                        : cols >= 14 ? std::vector<int64_t>{8, 14}
                                                     : std::vector<int64_t>{19, 6};

  // 64x56x56 -> 64, 3x3.
  autotune::FallbackConfigEntity fb;
  topi::cpu::conv2d_nchwc_fallback(fb, {1, 64, 56, 56}, {64, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}});
  EXPECT_EQ(fb.split("tile_oc").size.back(), blk);
  EXPECT_EQ(fb.split("tile_ic").size.back(), blk);
  EXPECT_EQ(fb.split("tile_ow").size, tiles56);
  EXPECT_EQ(fb.knob_int("unroll_kw"), 0);
  // 1x1, 256x56x56 -> 64: the largest ow factor with some oh factor giving at most the register
  // columns of outputs: 28 x 1 or 14 x 1 (6 x 1 with AVX2, ragged as above).
  autotune::FallbackConfigEntity f1;
  topi::cpu::conv2d_nchwc_fallback(f1, {1, 256, 56, 56}, {64, 256, 1, 1}, {{1, 1}, {0, 0}, {1, 1}});
  EXPECT_EQ(f1.split("tile_ow").size, tiles56);
  EXPECT_EQ(f1.knob_int("tile_oh"), 1);
  // 3 input channels: ic_bn 3; 7x7 stem, ow 112.
  autotune::FallbackConfigEntity f2;
  topi::cpu::conv2d_nchwc_fallback(f2, {1, 3, 224, 224}, {64, 3, 7, 7}, {{2, 2}, {3, 3}, {1, 1}});
  EXPECT_EQ(f2.split("tile_ic").size, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(f2.split("tile_ow").size, tiles112);
  // Where minitvm differs from TVM (whose ic_bn is at most oc_bn): 144 -> 24 (MobileNetV2) keeps
  // the 144-channel producer's block (16) instead of 12 / 8, so no layout_transform sits between
  // the two convolutions.
  autotune::FallbackConfigEntity f3;
  topi::cpu::conv2d_nchwc_fallback(f3, {1, 144, 56, 56}, {24, 144, 1, 1}, {{1, 1}, {0, 0}, {1, 1}});
  EXPECT_EQ(f3.split("tile_ic").size.back(), 16);
  EXPECT_EQ(f3.split("tile_oc").size.back(), lanes == 16 ? 12 : 8);
}

// A network's conv2d layer on llvm becomes a conv2d_NCHWc.x86 task (as TVM extracts it) whose
// workload is the key build_conv2d queries: a record of that task dispatches.
TEST(Conv2dNCHWc, ExtractedTaskRecordsDispatchInBuildConv2d) {
  Json net =
      Json::parse(R"({"layers": [{"op": "conv2d", "args": [["TENSOR", [1, 8, 12, 12], "float32"],
      ["TENSOR", [16, 8, 3, 3], "float32"], [1, 1], [1, 1, 1, 1], [1, 1], "float32"]}]})");
  auto tasks = autotune::extract_tasks(net, "llvm");
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].name(), "conv2d_NCHWc.x86");
  Case c{{1, 8, 12, 12}, {16, 8, 3, 3}, {{1, 1}, {1, 1, 1, 1}, {1, 1}}};
  EXPECT_EQ(tasks[0].workload(), topi::cpu::conv2d_nchwc_workload(c.ds, c.ks, c.attrs));
  autotune::MeasureResult res;
  res.costs = {1e-5};
  int64_t pick = tasks[0].config_space().size() - 1;
  autotune::ApplyHistoryBest best(
      std::vector<autotune::Record>{autotune::make_record(tasks[0], tasks[0].config(pick), res)});
  autotune::DispatchScope scope(best);
  topi::LayerBuild L = run_and_check(c, 9);
  EXPECT_FALSE(L.is_fallback);
  EXPECT_EQ(L.config.index, pick);
}

// The NCHW input, OIHW kernel and NCHW[oc_bn]c output of `s` in conv2d_NCHWc's blocked layouts:
// channel ch at (ch / b, ..., ch % b); weight (o, i) at (o / oc_bn, i / ic_bn, kh, kw, i % ic_bn,
// o % oc_bn).
std::vector<float> pack_blocked_data(const ConvShape& s, const std::vector<float>& x,
                                     int64_t ic_bn) {
  std::vector<float> xb(x.size());
  for (int n = 0; n < s.n; ++n)
    for (int ch = 0; ch < s.ci; ++ch)
      for (int h = 0; h < s.h; ++h)
        for (int w = 0; w < s.w; ++w)
          xb[(((size_t(n) * (s.ci / ic_bn) + ch / ic_bn) * s.h + h) * s.w + w) * ic_bn +
             ch % ic_bn] = x[((size_t(n) * s.ci + ch) * s.h + h) * s.w + w];
  return xb;
}

std::vector<float> pack_blocked_kernel(const ConvShape& s, const std::vector<float>& k,
                                       int64_t ic_bn, int64_t oc_bn) {
  std::vector<float> kb(k.size());
  for (int o = 0; o < s.co; ++o)
    for (int ch = 0; ch < s.ci; ++ch)
      for (int a = 0; a < s.kh * s.kw; ++a)
        kb[((((size_t(o / oc_bn) * (s.ci / ic_bn) + ch / ic_bn) * s.kh * s.kw + a) * ic_bn +
             ch % ic_bn) *
            oc_bn) +
           o % oc_bn] = k[(size_t(o) * s.ci + ch) * s.kh * s.kw + a];
  return kb;
}

std::vector<float> unpack_blocked_output(const ConvShape& s, const std::vector<float>& yb,
                                         int64_t oc_bn) {
  std::vector<float> y(yb.size());
  for (int n = 0; n < s.n; ++n)
    for (int o = 0; o < s.co; ++o)
      for (int h = 0; h < s.oh(); ++h)
        for (int w = 0; w < s.ow(); ++w)
          y[((size_t(n) * s.co + o) * s.oh() + h) * s.ow() + w] =
              yb[(((size_t(n) * (s.co / oc_bn) + o / oc_bn) * s.oh() + h) * s.ow() + w) * oc_bn +
                 o % oc_bn];
  return y;
}

// LayerOptions::nchwc_blocked: the convolution alone on the config's blocked layouts; data and
// kernel packed here on the host, the output unpacked, compared with the naive NCHW convolution.
// Builds on the blocked layouts (LayerOptions::nchwc_blocked, under the current dispatch context),
// packs a random input and kernel by hand, runs, and compares the unpacked result with conv_ref;
// then checks the module's own layout transforms against the same packing.
void check_blocked(const Case& c, unsigned seed) {
  ConvShape s = shape_of(c);
  topi::LayerOptions opt;
  opt.nchwc_blocked = true;
  topi::LayerBuild L = topi::build_conv2d(c.ds, c.ks, c.attrs, "llvm", opt);
  auto dim = [](const te::Tensor& t, size_t k) { return *ir::as_const_int(t.shape()[k]); };
  int64_t ic_bn = dim(L.args[0], 4), oc_bn = dim(L.args[1], 5);
  ASSERT_EQ(dim(L.args[2], 4), oc_bn);
  auto x = rnd(size_t(s.n) * s.ci * s.h * s.w, seed),
       k = rnd(size_t(s.co) * s.ci * s.kh * s.kw, seed + 10);
  const std::vector<float> xb = pack_blocked_data(s, x, ic_bn),
                           kb = pack_blocked_kernel(s, k, ic_bn, oc_bn);
  auto xn = runtime::NDArray::from_vector(xb, {s.n, s.ci / ic_bn, s.h, s.w, ic_bn});
  auto kn =
      runtime::NDArray::from_vector(kb, {s.co / oc_bn, s.ci / ic_bn, s.kh, s.kw, ic_bn, oc_bn});
  auto yn =
      runtime::NDArray::empty({s.n, s.co / oc_bn, s.oh(), s.ow(), oc_bn}, DataType::Float(32));
  L.module.get_function(L.func_name)(xn, kn, yn);
  const std::vector<float> y = unpack_blocked_output(s, yn.to_vector<float>(), oc_bn);
  expect_close(y, conv_ref(s, x, k), 1e-4f);
  // the module's layout transforms: same packing as above, unpack gives the NCHW result
  auto xp = runtime::NDArray::empty({s.n, s.ci / ic_bn, s.h, s.w, ic_bn}, DataType::Float(32));
  auto kp = runtime::NDArray::empty({s.co / oc_bn, s.ci / ic_bn, s.kh, s.kw, ic_bn, oc_bn},
                                    DataType::Float(32));
  auto yu = runtime::NDArray::empty({s.n, s.co, s.oh(), s.ow()}, DataType::Float(32));
  L.module.get_function(L.func_name + "_pack_data")(runtime::NDArray::from_vector(x, c.ds), xp);
  L.module.get_function(L.func_name + "_pack_kernel")(runtime::NDArray::from_vector(k, c.ks), kp);
  L.module.get_function(L.func_name + "_unpack_output")(yn, yu);
  EXPECT_EQ(xp.to_vector<float>(), xb);
  EXPECT_EQ(kp.to_vector<float>(), kb);
  EXPECT_EQ(yu.to_vector<float>(), y);
}

// Two random points of the case's space, each built NCHW and blocked against the naive conv
// (seeds base + k and base + 10 + k).
void check_random_points(const Case& c, std::mt19937& rng, unsigned base) {
  autotune::FallbackConfigEntity fb;
  topi::cpu::conv2d_nchwc_fallback(fb, c.ds, c.ks, c.attrs);
  for (int k = 0; k < 2; ++k) {
    int64_t idx = std::uniform_int_distribution<int64_t>(0, fb.space().size() - 1)(rng);
    autotune::ApplyConfig one(fb.space().get(idx));
    autotune::DispatchScope scope(one);
    SCOPED_TRACE(fb.space().get(idx).str());
    check_blocked(c, base + unsigned(k));
    run_and_check(c, base + 10 + unsigned(k));
  }
}

TEST(Conv2dNCHWc, BlockedLayoutsMatchReference) {
  autotune::root_fallback_context().silent = true;
  std::vector<Case> cases = {
      {{1, 32, 9, 10}, {48, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
      {{2, 24, 8, 8}, {40, 24, 1, 1}, {{2, 2}, {0, 0}, {1, 1}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    check_blocked(cases[i], 30 + unsigned(i));
  }
}

TEST(Conv2dNCHWc, LoopOrderFollowsTheLargerOperand) {
  using topi::cpu::NCHWcLoopOrder;
  // ResNet-50's 56x56 1x1 (input 802816 elements, weights 16384): rows outermost.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(802816, 16384, 8, 2), NCHWcLoopOrder::kRowsOuter);
  // Its 7x7 3x3 (25088 vs 2359296, 16 channel chunks): the reduction outermost with 2 threads,
  // TVM's order when 16 tiles cannot keep 16 threads busy; equal sizes keep TVM's order too.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(25088, 2359296, 16, 2),
            NCHWcLoopOrder::kReductionOuter);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(25088, 2359296, 16, 16),
            NCHWcLoopOrder::kChannelsOuter);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(4096, 4096, 64, 2), NCHWcLoopOrder::kChannelsOuter);
  // ResNet's 28x28 3x3 128 -> 128 (100352 input, 147456 weight elements, 4 tiles): weights at most
  // twice the input, a spatial kernel: rows (in row blocks); a 1x1 of the same sizes, or weights
  // of more than twice the input (its 14x14 3x3 256 -> 256), keep the reduction outermost.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(100352, 147456, 4, 2, 9),
            NCHWcLoopOrder::kRowsOuter);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(100352, 147456, 4, 2, 1),
            NCHWcLoopOrder::kReductionOuter);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(50176, 589824, 8, 2, 9),
            NCHWcLoopOrder::kReductionOuter);
  // 1x1 layers by the bytes a reduction-outer task touches per input-channel chunk (32-channel
  // blocks): ResNet-50's 14x14 1024 -> 256 (196 positions x 64 channels + a 32x32 weight chunk,
  // 54 KB) runs TVM's order; its 7x7 2048 -> 512 (17 KB) keeps the reduction outermost, and so
  // does a spatial kernel of any chunk size.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(200704, 262144, 8, 2, 1, 54272),
            NCHWcLoopOrder::kChannelsOuter);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(100352, 1048576, 16, 2, 1, 16640),
            NCHWcLoopOrder::kReductionOuter);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(50176, 589824, 8, 2, 9, 1 << 20),
            NCHWcLoopOrder::kReductionOuter);
  // too few tiles for the reduction order: TVM's, whatever the kernel (DenseNet's 14x14 3x3)
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(25088, 36864, 1, 2, 9),
            NCHWcLoopOrder::kChannelsOuter);
  // A 1x1 that would take the reduction order, with rows of 14 columns or more and weights in
  // half of L2, runs rows instead: EfficientNet-B3's 14x14 144 -> 816 (470 KB, 16-channel blocks:
  // 26 KB per chunk) with a 2 MiB L2, not with 512 KiB. RegNetX's 7x7 400 -> 400 (640 KB) keeps
  // the reduction order (7 columns per weight read), and ResNet-50's 14x14 1024 -> 256 (54 KB per
  // chunk) TVM's.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(28224, 117504, 51, 2, 1, 26112, 470016, 2 << 20, 14),
            NCHWcLoopOrder::kRowsOuter);
  EXPECT_EQ(
      topi::cpu::conv2d_nchwc_loop_order(28224, 117504, 51, 2, 1, 26112, 470016, 512 << 10, 14),
      NCHWcLoopOrder::kReductionOuter);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(19600, 160000, 25, 2, 1, 7296, 640000, 2 << 20, 7),
            NCHWcLoopOrder::kReductionOuter);
  EXPECT_EQ(
      topi::cpu::conv2d_nchwc_loop_order(200704, 262144, 8, 2, 1, 54272, 1 << 20, 2 << 20, 14),
      NCHWcLoopOrder::kChannelsOuter);
  // ... and a spatial kernel never takes this rule (ResNet's 14x14 3x3 256 -> 256, 2.4 MB).
  EXPECT_EQ(
      topi::cpu::conv2d_nchwc_loop_order(50176, 589824, 8, 2, 9, 1 << 20, 2359296, 8 << 20, 14),
      NCHWcLoopOrder::kReductionOuter);
}

TEST(Conv2dNCHWc, RowBlocksForSpatialKernelsOverSeveralChannelChunks) {
  // VGG-16's 224x224 64->64 3x3 (2 input chunks of 32, 2 output chunks), 2 threads: 4 rows.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(9, 2, 224, 2, 2), 4);
  // 30 rows: the largest divisor up to 4 is 3; 14 rows: 2; 7 or 13 rows: whole rows.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(9, 2, 30, 2, 2), 3);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(9, 2, 14, 2, 2), 2);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(9, 2, 7, 2, 2), 0);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(9, 2, 13, 2, 2), 0);
  // A 1x1 kernel, or a single input chunk (the 3-channel stem): whole rows.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(1, 8, 56, 8, 2), 0);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(49, 1, 112, 2, 2), 0);
  // Too few tasks for two per thread: 8 rows in 2 blocks x 1 chunk with 2 threads.
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(9, 2, 8, 1, 2), 0);
  EXPECT_EQ(topi::cpu::conv2d_nchwc_row_block(9, 2, 8, 2, 2), 4);
}

// 1x1 layers over few input channels with an output larger than the threads' L2s run in TVM's
// order (each thread writes its chunks' planes); the others keep rows outermost.
TEST(Conv2dNCHWc, OutputBoundOneByOnesRunInTvmsOrder) {
  using topi::cpu::conv2d_nchwc_output_bound;
  const int64_t MiB = int64_t{1} << 20;
  EXPECT_TRUE(conv2d_nchwc_output_bound(32, 4816896, 2, MiB));   // RegNetX's 32 -> 96 at 112x112
  EXPECT_TRUE(conv2d_nchwc_output_bound(16, 4816896, 2, MiB));   // MobileNetV2's 16 -> 96
  EXPECT_TRUE(conv2d_nchwc_output_bound(32, 3211264, 2, MiB));   // RegNetX-800MF's 32 -> 64
  EXPECT_FALSE(conv2d_nchwc_output_bound(24, 1806336, 2, MiB));  // MobileNetV2's 24 -> 144 at 56
  EXPECT_FALSE(conv2d_nchwc_output_bound(64, 3211264, 2, MiB));  // ResNet-50's 64 -> 256 at 56
  EXPECT_FALSE(conv2d_nchwc_output_bound(32, 4816896, 8, MiB));  // eight threads' L2s hold it
  EXPECT_FALSE(conv2d_nchwc_output_bound(32, 2 * MiB, 2, MiB));

  autotune::root_fallback_context().silent = true;
  const int64_t threads = runtime::configured_thread_count();
  const int64_t l2 = topi::cpu::l2_cache_bytes();
  struct OneCase {
    Case c;
    int64_t out_bytes;
  };
  const topi::nn::Conv2dAttrs one{{1, 1}, {0, 0}, {1, 1}};
  const OneCase cases[] = {
      {{{1, 32, 112, 112}, {96, 32, 1, 1}, one}, 96 * 112 * 112 * 4},
      {{{1, 64, 56, 56}, {256, 64, 1, 1}, one}, 256 * 56 * 56 * 4},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i].c;
    // Both have an input larger than their weights: rows outermost but for the new rule.
    ASSERT_EQ(topi::cpu::conv2d_nchwc_loop_order(c.ds[1] * c.ds[2] * c.ds[3], c.ks[0] * c.ks[1],
                                                 c.ks[0] / 16, threads, 1, 0, 0, l2, c.ds[3]),
              topi::cpu::NCHWcLoopOrder::kRowsOuter);
    const bool bound = conv2d_nchwc_output_bound(c.ds[1], cases[i].out_bytes, threads, l2);
    if (threads == 2 && l2 <= 2 * MiB) EXPECT_EQ(bound, i == 0);
    topi::LayerOptions opt;
    opt.nchwc_blocked = true;
    const std::string ir = topi::build_conv2d(c.ds, c.ks, c.attrs, "llvm", opt).ir;
    EXPECT_NE(ir.find(bound ? "parallel (n.oc_chunk.fused.oh.outer.fused, "
                            : "parallel (n.oh.outer.fused.oc_chunk.fused, "),
              std::string::npos)
        << ir;
    check_blocked(c, 190 + unsigned(i));
    run_and_check(c, 200 + unsigned(i));
  }
}

// Output channels for the reduction-ordered cases below: at least two tiles of the preferred block
// per thread, four with one thread, and at least 64, so that the 1x1 cases' weights are larger
// than their inputs with 8-lane blocks (AVX2) as with 16 or 32.
static int64_t many_output_channels(int64_t threads) {
  return std::max<int64_t>(std::max<int64_t>(2 * threads, 4) * topi::cpu::preferred_channel_block(),
                           64);
}

// Reduction-ordered tasks (one per output-channel chunk) that would leave the threads uneven
// shares split their rows into parts, chunk by chunk; the split convolutions match the reference.
TEST(Conv2dNCHWc, ReductionTasksSplitRowsToBalanceTheThreads) {
  using topi::cpu::conv2d_nchwc_balance_parts;
  EXPECT_EQ(conv2d_nchwc_balance_parts(27, 14, 2), 2);  // RegNetX-3.2GF's 14x14 layers
  EXPECT_EQ(conv2d_nchwc_balance_parts(28, 14, 2), 1);  // even already
  EXPECT_EQ(conv2d_nchwc_balance_parts(63, 7, 2), 1);   // 7 rows: no part count of 2-4
  EXPECT_EQ(conv2d_nchwc_balance_parts(27, 9, 2), 3);   // 81 tasks: 41 + 40 rather than 14 + 13
  EXPECT_EQ(conv2d_nchwc_balance_parts(9, 8, 4), 4);    // 36 tasks; 2 parts give 18 (5 + 5 + 4 + 4)
  EXPECT_EQ(conv2d_nchwc_balance_parts(9, 6, 4), 3);    // 27 tasks (7 + 7 + 7 + 6) over 18
  EXPECT_EQ(conv2d_nchwc_balance_parts(27, 14, 4), 1);  // 54 tasks are as uneven as 27
  EXPECT_EQ(conv2d_nchwc_balance_parts(27, 14, 1), 1);

  autotune::root_fallback_context().silent = true;
  const int64_t threads = runtime::configured_thread_count();
  // An odd number of vector-wide output chunks (the vector is the block for an odd multiple of
  // it: 8 lanes with AVX2, 16 with AVX-512, where Intel's preferred 32 does not divide), weights
  // larger than the input: one reduction-ordered task per chunk.
  const int64_t chunks = 2 * threads + 1;
  const int64_t oc = topi::cpu::fp32_lanes() * chunks;
  const Case cases[] = {
      {{1, 32, 4, 5}, {oc, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
      {{1, 64, 4, 7}, {oc, 64, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    topi::LayerOptions opt;
    opt.nchwc_blocked = true;
    const std::string ir = topi::build_conv2d(c.ds, c.ks, c.attrs, "llvm", opt).ir;
    const int64_t parts = conv2d_nchwc_balance_parts(chunks, 4, threads);
    EXPECT_EQ(parts > 1, threads > 1);
    // The convolution's parallel loop: a task per chunk, or per chunk and part.
    const std::string split = "parallel (n.oc_chunk.fused.oh.outer.fused, 0, " +
                              std::to_string(chunks * parts) + ")";
    const std::string whole = "parallel (n.oc_chunk.fused, 0, " + std::to_string(chunks) + ")";
    EXPECT_NE(ir.find(parts > 1 ? split : whole), std::string::npos) << ir;
    check_blocked(c, 170 + unsigned(i));
    run_and_check(c, 180 + unsigned(i));
  }
}

// Reduction-ordered tiles on maps narrower than the register columns span several output rows
// (the last tile shorter where the rows do not divide), grouped convs keep one row, and every such
// tiling computes the same convolution as the reference.
TEST(Conv2dNCHWc, ReductionOrderTilesSpanTheRowsOfNarrowMaps) {
  using topi::cpu::conv2d_nchwc_tile_rows;
  EXPECT_EQ(conv2d_nchwc_tile_rows(14, 7, 7, false), 2);    // 7x7 on two-vector blocks
  EXPECT_EQ(conv2d_nchwc_tile_rows(28, 7, 7, false), 4);    // one-vector blocks: 4 + 3 rows
  EXPECT_EQ(conv2d_nchwc_tile_rows(14, 14, 14, false), 1);  // a row fills the tile
  EXPECT_EQ(conv2d_nchwc_tile_rows(28, 7, 3, false), 3);    // at most the task's rows
  EXPECT_EQ(conv2d_nchwc_tile_rows(14, 1, 1, false), 1);    // a 1x1 map
  EXPECT_EQ(conv2d_nchwc_tile_rows(28, 7, 7, true), 1);     // grouped
  EXPECT_EQ(conv2d_nchwc_tile_rows(6, 4, 7, false), 1);     // AVX2's ragged 4 of 6 columns

  autotune::root_fallback_context().silent = true;
  const int64_t threads = runtime::configured_thread_count();
  const int64_t many = many_output_channels(threads);
  const int64_t odd = topi::cpu::fp32_lanes() * (2 * threads + 1);  // one-vector blocks
  const Case cases[] = {
      {{1, 64, 7, 7}, {many, 64, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},  // 7x7 1x1
      {{1, 64, 7, 7}, {odd, 64, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},   // one-vector output blocks
      {{1, 32, 7, 7}, {many, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},  // padded 3x3
      {{1, 64, 10, 5},
       {many, 64, 1, 1},
       {{2, 2}, {0, 0}, {1, 1}}},  // strided: 5 rows of 3, one tile
      {{1, 32, 5, 6}, {many, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},  // 5 rows of 6 columns
  };
  for (size_t i = 0; i < std::size(cases); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    autotune::FallbackConfigEntity fb;
    topi::cpu::conv2d_nchwc_fallback(fb, c.ds, c.ks, c.attrs);
    const ConvShape sh = shape_of(c);
    const int64_t rows = conv2d_nchwc_tile_rows(
        topi::cpu::register_columns_for_block(fb.split("tile_oc").size.back()),
        fb.split("tile_ow").size.back(), sh.oh(), false);
    topi::LayerOptions opt;
    opt.nchwc_blocked = true;
    const std::string ir = topi::build_conv2d(c.ds, c.ks, c.attrs, "llvm", opt).ir;
    ASSERT_NE(ir.find("parallel (n.oc_chunk.fused"), std::string::npos) << ir;  // reduction order
    // The accumulators' loop over tiles of `rows` rows where there are several (a ragged last
    // tile may be partitioned off it), and none of one row.
    const int64_t tiles = (sh.oh() + rows - 1) / rows;
    EXPECT_EQ(ir.find("for (oh.c.outer, 0, ") != std::string::npos, rows > 1 && tiles > 1) << ir;
    if (rows > 1 && tiles > 1)
      EXPECT_NE(ir.find("iter_var(oh.c.outer, )] pragma_unroll_disable"), std::string::npos) << ir;
    check_blocked(c, 190 + unsigned(i));
    run_and_check(c, 200 + unsigned(i));
  }
}

// Reduction-ordered tasks prefetch the next input-channel chunk's weights: for large weights over
// small maps everywhere, and for every 1x1 kernel on AMD (what Zen 4 measured).
TEST(Conv2dNCHWc, WeightPrefetchRule) {
  using topi::cpu::conv2d_nchwc_prefetch_weights;
  const int64_t MiB = int64_t{1} << 20;
  EXPECT_TRUE(conv2d_nchwc_prefetch_weights(4 * MiB, 49, false, false));
  EXPECT_TRUE(conv2d_nchwc_prefetch_weights(4 * MiB, 64, true, false));
  EXPECT_FALSE(conv2d_nchwc_prefetch_weights(4 * MiB, 65, false, false));
  EXPECT_FALSE(conv2d_nchwc_prefetch_weights(4 * MiB - 1, 49, true, false));
  EXPECT_FALSE(conv2d_nchwc_prefetch_weights(746496, 196, false, true));  // grouped 3x3, Zen 4
  EXPECT_TRUE(conv2d_nchwc_prefetch_weights(746496, 196, true, true));
  EXPECT_TRUE(conv2d_nchwc_prefetch_weights(16384, 12, true, true));

  // The lowered kernels of two reduction-ordered layers on blocked layouts (the cases of
  // EveryLoopOrderMatchesReference): a 1x1 and a 3x3 with small weights.
  autotune::root_fallback_context().silent = true;
  const int64_t many = many_output_channels(runtime::configured_thread_count());
  topi::LayerOptions opt;
  opt.nchwc_blocked = true;
  const Case one{{1, 64, 6, 7}, {many, 64, 1, 1}, {{2, 2}, {0, 0}, {1, 1}}};
  const Case three{{1, 32, 5, 6}, {many, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}};
  const std::string ir1 = topi::build_conv2d(one.ds, one.ks, one.attrs, "llvm", opt).ir;
  const std::string ir3 = topi::build_conv2d(three.ds, three.ks, three.attrs, "llvm", opt).ir;
  EXPECT_EQ(ir1.find("prefetch(") != std::string::npos, topi::cpu::host_cpu_is_amd()) << ir1;
  EXPECT_EQ(ir3.find("prefetch("), std::string::npos) << ir3;
}

// Each loop order (chosen from the shapes and this machine's thread count) computes the same
// convolution as the reference: on the blocked layouts (where the reduction-outer order applies)
// and through the NCHW unpack, with the fallback and with random points of the space (unroll_kw
// on and off, tile_oh for 1x1).
TEST(Conv2dNCHWc, EveryLoopOrderMatchesReference) {
  using topi::cpu::NCHWcLoopOrder;
  autotune::root_fallback_context().silent = true;
  const int64_t threads = runtime::configured_thread_count();
  const int64_t many = many_output_channels(threads);
  // A map whose 64 channels are between half and all of `many` 3x3 filters' weights, its side a
  // multiple of 4 (row blocks of 2-4 rows divide it with any thread count).
  const int64_t side = 4 * static_cast<int64_t>(std::lround(std::sqrt(6.3 * double(many)) / 4));
  struct OrderCase {
    Case c;
    NCHWcLoopOrder order;
    bool row_blocks = false;  // kRowsOuter in blocks of rows (conv2d_nchwc_row_block)
  };
  std::vector<OrderCase> cases = {
      {{{1, 16, 12, 11}, {16, 16, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}}, NCHWcLoopOrder::kRowsOuter},
      // One input chunk on every machine (8 channels): whole rows, no row blocks.
      {{{1, 8, 20, 18}, {32, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}}, NCHWcLoopOrder::kRowsOuter},
      {{{1, 32, 5, 6}, {many, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
       NCHWcLoopOrder::kReductionOuter},
      {{{1, 64, 6, 7}, {many, 64, 1, 1}, {{2, 2}, {0, 0}, {1, 1}}},
       NCHWcLoopOrder::kReductionOuter},
      {{{1, 32, 4, 4}, {16, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}}, NCHWcLoopOrder::kChannelsOuter},
      // Several input chunks, padded 3x3, 62 rows in blocks of 2 (up to 8 threads busy).
      {{{1, 64, 62, 21}, {32, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
       NCHWcLoopOrder::kRowsOuter,
       true},
      // Strided and unpadded: 48 output rows in blocks of 4.
      {{{1, 96, 97, 23}, {16, 96, 3, 3}, {{2, 2}, {0, 0}, {1, 1}}},
       NCHWcLoopOrder::kRowsOuter,
       true},
      // Weights of 4 MiB or more over 16 output positions: the next chunk's weights prefetched.
      {{{1, 256, 4, 4}, {512, 256, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
       NCHWcLoopOrder::kReductionOuter},
      // Weights larger than the input but at most twice it, a 3x3 kernel over two input chunks
      // (ResNet's 28x28 3x3 when threads = 2): row blocks rather than the reduction order.
      {{{1, 64, side, side}, {many, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
       NCHWcLoopOrder::kRowsOuter,
       true},
      // A padded input of 4 MiB or more: padded per task (row block, input-channel chunk).
      {{{1, 64, 128, 130}, {32, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},
       NCHWcLoopOrder::kRowsOuter,
       true},
      // A 1x1 with weights larger than the input over 576 positions (over 32 KiB per input-channel
      // chunk with 16- or 32-channel blocks): TVM's order rather than the reduction's.
      {{{1, 64, 24, 24}, {640, 64, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},
       NCHWcLoopOrder::kChannelsOuter},
      // Over 56 positions in rows of 14 (at most 19 KB per chunk), weights in L2: rows rather
      // than the reduction order, though the input is the smaller operand.
      {{{1, 32, 4, 14}, {many, 32, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}}, NCHWcLoopOrder::kRowsOuter},
  };
  std::mt19937 rng(23);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i].c;
    autotune::FallbackConfigEntity fb;
    topi::cpu::conv2d_nchwc_fallback(fb, c.ds, c.ks, c.attrs);
    {  // the fallback's blocks give the order the case is meant to cover
      const int64_t oc_bn = fb.split("tile_oc").size.back();
      const int64_t ic_bn = fb.split("tile_ic").size.back();
      const int64_t oh = (c.ds[2] + 2 * c.attrs.padding[0] - c.ks[2]) / c.attrs.stride[0] + 1;
      const int64_t ow = (c.ds[3] + 2 * c.attrs.padding[1] - c.ks[3]) / c.attrs.stride[1] + 1;
      const int64_t data = c.ds[0] * c.ds[1] * c.ds[2] * c.ds[3],
                    weights = c.ks[0] * c.ks[1] * c.ks[2] * c.ks[3];
      const int64_t chunk_bytes =
          4 * (oh * ow * (oc_bn + ic_bn) + c.ks[2] * c.ks[3] * ic_bn * oc_bn);
      EXPECT_EQ(topi::cpu::conv2d_nchwc_loop_order(data, weights, c.ds[0] * (c.ks[0] / oc_bn),
                                                   threads, c.ks[2] * c.ks[3], chunk_bytes,
                                                   4 * weights, topi::cpu::l2_cache_bytes(), ow),
                cases[i].order);
      // (The row-block cases have tasks for two per thread up to 6 threads.)
      if (threads <= 6)
        EXPECT_EQ(cases[i].order == NCHWcLoopOrder::kRowsOuter &&
                      topi::cpu::conv2d_nchwc_row_block(c.ks[2] * c.ks[3], c.ds[1] / ic_bn, oh,
                                                        c.ds[0] * (c.ks[0] / oc_bn), threads) > 0,
                  cases[i].row_blocks);
    }
    check_blocked(c, 60 + unsigned(i));
    run_and_check(c, 70 + unsigned(i));
    check_random_points(c, rng, 80);
  }
}

// Widths whose divisors are all far below the register columns (Inception's 17, 71, 73): the
// fallback tiles them in the fewest tiles of at most the register columns, the last one partial,
// and every loop order computes them right (blocked and NCHW, fallback and random points).
TEST(Conv2dNCHWc, RaggedWidthTilesMatchReference) {
  autotune::root_fallback_context().silent = true;
  const int64_t threads = runtime::configured_thread_count();
  const int64_t many = 2 * threads * topi::cpu::preferred_channel_block();
  std::vector<Case> cases = {
      {{1, 32, 17, 17}, {32, 32, 1, 7}, {{1, 1}, {0, 3}, {1, 1}}},   // Inception's 1x7
      {{1, 64, 17, 17}, {64, 64, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},   // 1x1 at 17x17
      {{1, 16, 34, 34}, {32, 16, 1, 1}, {{2, 2}, {0, 0}, {1, 1}}},   // 1x1 stride 2 -> 17
      {{1, 32, 5, 19}, {many, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},  // reduction outer
      {{1, 64, 30, 23}, {32, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}},   // row blocks
      {{1, 16, 9, 73}, {16, 16, 3, 3}, {{1, 1}, {0, 0}, {1, 1}}},    // 71 columns
      {{1, 64, 23, 23}, {640, 64, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}},  // 1x1, TVM's order
  };
  std::mt19937 rng(29);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    autotune::FallbackConfigEntity fb;
    topi::cpu::conv2d_nchwc_fallback(fb, c.ds, c.ks, c.attrs);
    const int64_t ow = shape_of(c).ow();
    const int64_t cols = topi::cpu::register_columns_for_block(fb.split("tile_oc").size.back());
    auto tile = fb.split("tile_ow").size;
    if (cols >= 5) {  // no divisor of these widths is within 4 of the columns
      EXPECT_EQ(tile[0], (ow + cols - 1) / cols) << "fewest tiles";
      EXPECT_GE(tile[0] * tile[1], ow);
      EXPECT_LT((tile[0] - 1) * tile[1], ow) << "no empty tile";
      EXPECT_LE(tile[1], cols);
      EXPECT_GT(tile[1], 4);
    }
    check_blocked(c, 100 + unsigned(i));
    run_and_check(c, 110 + unsigned(i));
    for (int k = 0; k < 2; ++k) {
      int64_t idx = std::uniform_int_distribution<int64_t>(0, fb.space().size() - 1)(rng);
      autotune::ApplyConfig one(fb.space().get(idx));
      autotune::DispatchScope scope(one);
      SCOPED_TRACE(fb.space().get(idx).str());
      run_and_check(c, 120 + unsigned(k));
    }
  }
}

// Fallbacks of 1x1 layers on one-vector blocks smaller than the preferred block take 2-4 chunks
// per register tile when that leaves two tasks per thread; nothing else does.
TEST(Conv2dNCHWc, OutputChunkGroupsOnlyForShortBlocksOfOneByOnes) {
  using topi::cpu::conv2d_nchwc_oc_group;
  EXPECT_EQ(conv2d_nchwc_oc_group(816, 16, true, 32, 16, 2), 3);   // 51 chunks
  EXPECT_EQ(conv2d_nchwc_oc_group(1392, 16, true, 32, 16, 2), 3);  // 87
  EXPECT_EQ(conv2d_nchwc_oc_group(720, 16, true, 32, 16, 2), 3);   // 45: 3 rather than 4 or 5
  EXPECT_EQ(conv2d_nchwc_oc_group(1392, 16, true, 32, 16, 8), 3);  // 29 tasks for 8 threads
  EXPECT_EQ(conv2d_nchwc_oc_group(1392, 16, true, 32, 16, 16), 1);
  EXPECT_EQ(conv2d_nchwc_oc_group(144, 16, true, 32, 16, 2), 1);      // 3 tasks for 2 threads
  EXPECT_EQ(conv2d_nchwc_oc_group(144, 16, true, 32, 16, 2, 56), 3);  // ... but for 56 rows each
  // 25 chunks, no factor 2-4: groups of 4 all the same, the last one short, where each group is
  // a task (weights larger than the input) and there are two per thread; not with 8 lanes.
  EXPECT_EQ(conv2d_nchwc_oc_group(400, 16, true, 32, 16, 2), 4);
  EXPECT_EQ(conv2d_nchwc_oc_group(400, 16, true, 32, 16, 2, 7), 1);   // a task per row
  EXPECT_EQ(conv2d_nchwc_oc_group(400, 16, true, 32, 16, 4), 1);      // 7 tasks for 4 threads
  EXPECT_EQ(conv2d_nchwc_oc_group(200, 8, true, 16, 8, 2), 1);        // 25 chunks of 8 lanes
  EXPECT_EQ(conv2d_nchwc_oc_group(816, 16, false, 32, 16, 2), 1);     // a 3x3
  EXPECT_EQ(conv2d_nchwc_oc_group(816, 16, true, 16, 16, 2), 1);      // the preferred block
  EXPECT_EQ(conv2d_nchwc_oc_group(96, 32, true, 32, 16, 2), 1);       // two vectors already
  EXPECT_EQ(conv2d_nchwc_oc_group(120, 8, true, 32, 16, 2), 1);       // not a whole vector
  // Reduction-ordered tiles of several chunks read up to 128 input channels (at least 4
  // chunks) per pass over their accumulators, a divisor of the chunks; one-chunk tiles one.
  using topi::cpu::conv2d_nchwc_ic_chunks_per_pass;
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(111, 3, 8), 3);
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(64, 2, 32), 4);
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(64, 2, 16), 8);
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(77, 4, 16), 7);  // RegNetY-16GF's 1232 channels
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(25, 4, 16), 5);
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(21, 3, 16), 7);
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(21, 3, 32), 3);
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(37, 3, 16), 1);
  EXPECT_EQ(conv2d_nchwc_ic_chunks_per_pass(64, 1, 16), 1);
  // Eight lanes (AVX2): four chunks would leave 2 columns of 4 vectors, 8 accumulators; two or
  // three keep 12.
  EXPECT_EQ(conv2d_nchwc_oc_group(256, 8, true, 16, 8, 2, 56), 2);    // 32 chunks
  EXPECT_EQ(conv2d_nchwc_oc_group(72, 8, true, 16, 8, 2, 56), 3);     // 9
  EXPECT_EQ(conv2d_nchwc_oc_group(40, 8, true, 16, 8, 2, 56), 1);     // 5
  EXPECT_EQ(conv2d_nchwc_oc_group(256, 16, true, 32, 16, 2, 56), 4);  // 16 lanes: 4 chunks
  // The fallback carries the knob where the machine's blocks call for it, and only there: a
  // layer whose weights are larger (one task per group) and one whose input is (one per row).
  struct FallbackCase {
    std::vector<int64_t> ds, ks;
    int64_t tasks_per_chunk;
  };
  for (const FallbackCase& f : {FallbackCase{{1, 144, 14, 14}, {816, 144, 1, 1}, 1},
                                FallbackCase{{1, 24, 56, 56}, {144, 24, 1, 1}, 56}}) {
    autotune::FallbackConfigEntity fb;
    topi::nn::Conv2dAttrs a;
    topi::cpu::conv2d_nchwc_fallback(fb, f.ds, f.ks, a);
    const int64_t want = conv2d_nchwc_oc_group(
        f.ks[0], fb.split("tile_oc").size.back(), true, topi::cpu::preferred_channel_block(),
        topi::cpu::fp32_lanes(), runtime::configured_thread_count(), f.tasks_per_chunk);
    EXPECT_EQ(fb.has("tile_oc_group") ? fb.knob_int("tile_oc_group") : 1, want);
    if (want > 1) {
      auto tile = fb.split("tile_ow").size;
      EXPECT_LE(tile.back() * fb.knob_int("tile_oh") * want,
                topi::cpu::conv2d_nchwc_register_columns())
          << "the group's accumulators fit in the registers";
    }
    // The knob is set, not defined: a record of the layer's space (none has the knob) still
    // checks against the template and dispatches (the shipped llvm log's layers included).
    EXPECT_EQ(fb.space().find("tile_oc_group"), nullptr);
    Case c{f.ds, f.ks, a};
    const Json wl = topi::cpu::conv2d_nchwc_workload(f.ds, f.ks, a);
    autotune::Task task("conv2d_NCHWc.x86", Json(wl.begin() + 1, wl.end()), "llvm");
    autotune::MeasureResult res;
    res.costs = {1e-5};
    autotune::ApplyHistoryBest best(
        std::vector<autotune::Record>{autotune::make_record(task, task.config(0), res)});
    autotune::DispatchScope scope(best);
    topi::LayerBuild L = run_and_check(c, 160);
    EXPECT_FALSE(L.is_fallback);
    EXPECT_EQ(L.config.index, 0);
  }
}

// Blocked grouped convs with a spatial kernel on one-vector blocks tile 2-4 output chunks of a
// group together (they read the same input) where the tiles leave two tasks per thread; one chunk
// per group, a group count of chunks with no factor 2-4 and two-vector blocks keep one chunk per
// tile. On AMD's cores only strided ones whose group's padded input is more than half an L2 do.
// The fallback of a grouped conv sets the knob from its blocks and groups, and its register tile
// fits.
TEST(Conv2dNCHWc, GroupedConvsTileTheChunksOfAGroup) {
  using topi::cpu::conv2d_nchwc_group_tile;
  const int64_t MiB = int64_t{1} << 20, l2 = MiB;
  // RegNetX-3.2GF's 112x112 layer (48-channel groups, 2.5 MB padded) and RegNetX-16GF's
  EXPECT_EQ(conv2d_nchwc_group_tile(6, 3, 2, 48 * 114 * 114 * 4, l2, 16, 16, 2, 56, true), 3);
  EXPECT_EQ(conv2d_nchwc_group_tile(32, 8, 2, 128 * 58 * 58 * 4, l2, 16, 16, 2, 28, true), 4);
  EXPECT_EQ(conv2d_nchwc_group_tile(64, 2, 2, 2 * MiB, l2, 16, 16, 2, 1, true), 2);
  EXPECT_EQ(conv2d_nchwc_group_tile(32, 8, 3, 2 * MiB, l2, 16, 16, 2, 28, true), 4);  // stride 3
  EXPECT_EQ(conv2d_nchwc_group_tile(32, 8, 1, 2 * MiB, l2, 16, 16, 2, 28, true), 1);  // stride 1
  EXPECT_EQ(conv2d_nchwc_group_tile(16, 1, 2, 2 * MiB, l2, 16, 16, 2, 28, true), 1);  // 1 chunk
  EXPECT_EQ(conv2d_nchwc_group_tile(56, 7, 2, 2 * MiB, l2, 16, 16, 2, 28, true), 1);  // 7 chunks
  EXPECT_EQ(conv2d_nchwc_group_tile(16, 4, 2, 2 * MiB, l2, 32, 16, 2, 28, true), 1);  // 2 vectors
  EXPECT_EQ(conv2d_nchwc_group_tile(8, 8, 2, 2 * MiB, l2, 8, 8, 2, 1, true), 2);      // 4 tasks: 2
  EXPECT_EQ(conv2d_nchwc_group_tile(6, 3, 2, 2 * MiB, l2, 16, 16, 2, 1, true), 1);    // 2 tasks
  // The group's input stays in the L2 (RegNetX-16GF's 28x28 -> 14x14, ResNeXt-50's 14x14 -> 7x7)
  EXPECT_EQ(conv2d_nchwc_group_tile(56, 8, 2, 128 * 30 * 30 * 4, l2, 16, 16, 2, 14, true), 1);
  EXPECT_EQ(conv2d_nchwc_group_tile(64, 2, 2, 32 * 16 * 16 * 4, l2, 16, 16, 2, 1, true), 1);
  EXPECT_EQ(conv2d_nchwc_group_tile(56, 8, 2, 128 * 30 * 30 * 4, 512 << 10, 16, 16, 2, 14, true),
            4);  // ... but not in a 512 KiB one
  // On Intel's cores every group of several chunks on one-vector blocks, whatever the stride and
  // the input's size, where there are tasks enough.
  EXPECT_EQ(conv2d_nchwc_group_tile(32, 8, 1, 2 * MiB, l2, 16, 16, 2, 28, false), 4);  // stride 1
  EXPECT_EQ(conv2d_nchwc_group_tile(56, 8, 2, 128 * 30 * 30 * 4, l2, 16, 16, 2, 14, false), 4);
  EXPECT_EQ(conv2d_nchwc_group_tile(63, 3, 1, 48 * 9 * 9 * 4, l2, 16, 16, 2, 1, false), 3);
  EXPECT_EQ(conv2d_nchwc_group_tile(16, 1, 2, 2 * MiB, l2, 16, 16, 2, 28, false), 1);  // 1 chunk
  EXPECT_EQ(conv2d_nchwc_group_tile(16, 4, 2, 2 * MiB, l2, 32, 16, 2, 28, false), 1);  // 2 vectors
  EXPECT_EQ(conv2d_nchwc_group_tile(6, 3, 1, 2 * MiB, l2, 16, 16, 2, 1, false), 1);    // 2 tasks
  // Groups of 5 or 7 chunks (no factor 2-4) as one tile, not on AMD's; 11 chunks stay single.
  EXPECT_EQ(conv2d_nchwc_group_tile(77, 7, 2, 2 * MiB, l2, 16, 16, 2, 14, false), 7);
  EXPECT_EQ(conv2d_nchwc_group_tile(25, 5, 1, 2 * MiB, l2, 16, 16, 2, 1, false), 5);
  EXPECT_EQ(conv2d_nchwc_group_tile(77, 7, 2, 4 * MiB, l2, 16, 16, 2, 14, true), 1);
  EXPECT_EQ(conv2d_nchwc_group_tile(44, 11, 2, 2 * MiB, l2, 16, 16, 2, 14, false), 1);
  const int64_t lanes = topi::cpu::fp32_lanes();
  struct FallbackCase {
    std::vector<int64_t> ds, ks;  // one group's input channels; all output channels
    int64_t stride, groups;
  };
  for (const FallbackCase& f :
       {FallbackCase{{1, 8 * lanes, 56, 56}, {32 * lanes, 8 * lanes, 3, 3}, 2, 4},
        FallbackCase{{1, 3 * lanes, 112, 112}, {6 * lanes, 3 * lanes, 3, 3}, 2, 2},
        FallbackCase{{1, 3 * lanes, 14, 14}, {63 * lanes, 3 * lanes, 3, 3}, 2, 21},
        FallbackCase{{1, 8 * lanes, 112, 112}, {32 * lanes, 8 * lanes, 3, 3}, 1, 4}}) {
    SCOPED_TRACE(testing::Message() << f.ks[0] << " channels in " << f.groups << " groups, "
                                    << f.ds[2] << "x" << f.ds[3] << ", stride " << f.stride);
    autotune::FallbackConfigEntity fb;
    topi::nn::Conv2dAttrs a{{f.stride, f.stride}, {1, 1}, {1, 1}};
    const topi::cpu::GroupedBlocks blocks{f.groups, lanes, lanes};
    topi::cpu::conv2d_nchwc_fallback(fb, f.ds, f.ks, a, &blocks);
    EXPECT_EQ(fb.split("tile_ic").size.back(), lanes);
    EXPECT_EQ(fb.split("tile_oc").size.back(), lanes);
    const int64_t oh = (f.ds[2] + 2 - 3) / f.stride + 1;
    const int64_t chunks = f.ks[0] / lanes;
    // The tasks per group of chunks, as the fallback counts them: rows where the group's input is
    // larger than the weights.
    const int64_t rows = f.ds[1] * f.ds[2] * f.ds[3] > f.ks[0] * f.ks[1] * 9 ? oh : 1;
    const int64_t padded = f.ds[1] * (f.ds[2] + 2) * (f.ds[3] + 2) * 4;
    const int64_t want = conv2d_nchwc_group_tile(chunks, chunks / f.groups, f.stride, padded,
                                                 topi::cpu::l2_cache_bytes(), lanes, lanes,
                                                 runtime::configured_thread_count(), rows);
    EXPECT_EQ(fb.has("tile_oc_group") ? fb.knob_int("tile_oc_group") : 1, want);
    if (f.stride == 1 && topi::cpu::host_cpu_is_amd()) EXPECT_EQ(want, 1);
    EXPECT_LE(fb.split("tile_ow").size.back() * want, topi::cpu::conv2d_nchwc_register_columns())
        << "the tile's accumulators fit in the registers";
    EXPECT_EQ(fb.space().find("tile_oc_group"), nullptr) << "set, not defined";
  }
  // Blocks that do not divide a group's channels are an error that names them.
  autotune::FallbackConfigEntity fb;
  const topi::cpu::GroupedBlocks bad{4, 16, 24};
  try {
    topi::cpu::conv2d_nchwc_fallback(fb, {1, 32, 14, 14}, {128, 32, 3, 3},
                                     topi::nn::Conv2dAttrs{{2, 2}, {1, 1}, {1, 1}}, &bad);
    ADD_FAILURE() << "no error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("grouped blocks 16/24"), std::string::npos) << e.what();
  }
}

// Configs with tile_oc_group (set by hand here, so on any machine): every loop order of the 1x1
// schedule and of the 3x3 one, blocked and NCHW output, against the naive convolution.
TEST(Conv2dNCHWc, GroupedOutputChunksMatchReference) {
  autotune::root_fallback_context().silent = true;
  struct GroupCase {
    Case c;
    int64_t group, ow_tile;
  };
  const topi::nn::Conv2dAttrs one{{1, 1}, {0, 0}, {1, 1}};
  std::vector<GroupCase> cases = {
      {{{1, 32, 7, 7}, {96, 32, 1, 1}, one}, 3, 7},    // weights larger: reduction outer
      {{{1, 48, 14, 14}, {96, 48, 1, 1}, one}, 2, 7},  // input larger: rows outer
      {{{1, 64, 12, 12}, {512, 64, 1, 1}, one}, 4, 6},
      {{{1, 64, 48, 12}, {640, 64, 1, 1}, one}, 4, 4},                      // TVM's order
      {{{1, 32, 17, 17}, {80, 32, 1, 1}, {{2, 2}, {0, 0}, {1, 1}}}, 5, 3},  // strided, 9 columns
      // Reduction outer, an odd number of tasks (groups of 3 chunks) for the threads: their 4
      // rows in parts (conv2d_nchwc_balance_parts).
      {{{1, 32, 4, 7}, {48 * (2 * runtime::configured_thread_count() + 1), 32, 1, 1}, one}, 3, 7},
      // 3x3 kernels (the strided grouped convs' fallback): reduction outer; rows outermost
      // without row blocks (7 rows); rows outermost over a larger map; stride 1
      {{{1, 32, 15, 15}, {96, 32, 3, 3}, {{2, 2}, {1, 1}, {1, 1}}}, 3, 8},
      {{{1, 16, 27, 27}, {32, 16, 3, 3}, {{4, 4}, {1, 1}, {1, 1}}}, 2, 7},
      {{{1, 32, 56, 56}, {64, 32, 3, 3}, {{2, 2}, {1, 1}, {1, 1}}}, 4, 7},
      {{{1, 32, 12, 12}, {64, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}}, 4, 6},
      // reduction outer with 12 input chunks, 6 per pass (conv2d_nchwc_ic_chunks_per_pass)
      {{{1, 192, 7, 7}, {192, 192, 1, 1}, one}, 3, 7},
      // groups that do not divide the chunks, the last one short: 25 chunks in groups of 4
      // (reduction outer, RegNetX-400MF's 7x7 layers), 5 in groups of 2 (rows outer)
      {{{1, 32, 7, 7}, {400, 32, 1, 1}, one}, 4, 7},
      {{{1, 48, 14, 14}, {80, 48, 1, 1}, one}, 2, 7},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i].c;
    autotune::FallbackConfigEntity fb;
    topi::cpu::conv2d_nchwc_fallback(fb, c.ds, c.ks, c.attrs);
    std::optional<autotune::ConfigEntity> cfg;
    for (int64_t k = 0; k < fb.space().size() && !cfg; ++k) {
      autotune::ConfigEntity e = fb.space().get(k);
      const bool one_by_one = c.ks[2] == 1 && c.ks[3] == 1;
      if (e.split("tile_ic").size.back() == 16 && e.split("tile_oc").size.back() == 16 &&
          e.split("tile_ow").size.back() == cases[i].ow_tile &&
          (one_by_one ? e.knob_int("tile_oh") == 1 : e.knob_int("unroll_kw") == 0))
        cfg = e;
    }
    ASSERT_TRUE(cfg.has_value());
    cfg->set("tile_oc_group", autotune::OtherOptionEntity{cases[i].group});
    autotune::ApplyConfig one_config(*cfg);
    autotune::DispatchScope scope(one_config);
    check_blocked(c, 140 + unsigned(i));
    if (i == 5) {  // the tasks of the odd case in row parts
      const int64_t threads = runtime::configured_thread_count(), tasks = 2 * threads + 1;
      const int64_t parts = topi::cpu::conv2d_nchwc_balance_parts(tasks, 4, threads);
      EXPECT_EQ(parts > 1, threads > 1);
      topi::LayerOptions opt;
      opt.nchwc_blocked = true;
      const std::string ir = topi::build_conv2d(c.ds, c.ks, c.attrs, "llvm", opt).ir;
      EXPECT_EQ(ir.find(".oh.outer.fused, 0, " + std::to_string(tasks * parts) + ")") !=
                    std::string::npos,
                parts > 1)
          << ir;
    }
    if (i == 10) {  // 2 passes of 6 input chunks over each row of the tile's accumulators
      topi::LayerOptions opt;
      opt.nchwc_blocked = true;
      const std::string ir = topi::build_conv2d(c.ds, c.ks, c.attrs, "llvm", opt).ir;
      const size_t outer = ir.find("for (ic.outer.outer, 0, 2)"), row = ir.find("for (oh.c, 0, 7)"),
                   inner = ir.find("for (ic.outer.inner, 0, 6)");
      ASSERT_NE(outer, std::string::npos) << ir;
      EXPECT_LT(outer, row) << ir;
      EXPECT_LT(row, inner) << ir;
      EXPECT_NE(inner, std::string::npos) << ir;
    }
    topi::LayerBuild L = run_and_check(c, 150 + unsigned(i));
    EXPECT_FALSE(L.is_fallback);
    ASSERT_TRUE(L.config.has("tile_oc_group"));
    EXPECT_EQ(L.config.knob_int("tile_oc_group"), cases[i].group);
  }
}

// The tuning template times what a network runs: the blocked convolution alone, on the config's
// layouts (data NCHW[ic_bn]c, kernel OIHW[ic_bn]i[oc_bn]o). Candidates with different blocks are
// checked against references of their own layout, so every one passes the correctness check.
TEST(Conv2dNCHWc, TuningTemplateTimesTheBlockedConvolutionOnTheConfigsLayouts) {
  Json args = Json::array({Json::array({"TENSOR", {1, 16, 10, 10}, "float32"}),
                           Json::array({"TENSOR", {24, 16, 3, 3}, "float32"}),
                           {1, 1},
                           {1, 1, 1, 1},
                           {1, 1},
                           "NCHW",
                           "NCHW",
                           "float32"});
  autotune::Task task("conv2d_NCHWc.x86", args, "llvm");
  std::set<std::pair<int64_t, int64_t>> blocks;
  std::vector<autotune::ConfigEntity> cfgs;
  for (int64_t i = 0; i < task.config_space().size() && cfgs.size() < 6; i += 7) {
    autotune::ConfigEntity c = task.config(i);
    std::pair<int64_t, int64_t> b{c.split("tile_ic").size.back(), c.split("tile_oc").size.back()};
    if (!blocks.insert(b).second) continue;
    autotune::ConfigEntity inst = c;
    autotune::TemplateResult r = task.instantiate(inst);
    ASSERT_EQ(r.args.size(), 3u);
    auto dim = [](const te::Tensor& t, size_t k) { return *ir::as_const_int(t.shape()[k]); };
    ASSERT_EQ(r.args[0].shape().size(), 5u);
    ASSERT_EQ(r.args[1].shape().size(), 6u);
    ASSERT_EQ(r.args[2].shape().size(), 5u);
    EXPECT_EQ(dim(r.args[0], 1) * dim(r.args[0], 4), 16);
    EXPECT_EQ(dim(r.args[0], 4), b.first);
    EXPECT_EQ(dim(r.args[1], 5), b.second);
    EXPECT_EQ(dim(r.args[2], 1) * dim(r.args[2], 4), 24);
    cfgs.push_back(c);
  }
  ASSERT_GE(blocks.size(), 3u);
  autotune::MeasureOption mo;
  mo.check_correctness = true;
  mo.repeat = 1;
  mo.min_repeat_ms = 0;
  autotune::LocalMeasurer m(task, mo);
  for (const auto& o : m.measure(cfgs))
    EXPECT_EQ(o.result.error_no, 0) << o.config.str() << ": " << o.error;
}

// Atrous convolutions whose kernel reaches past a small map (DeepLabV3's ASPP, rate 12 on 14x14):
// the kernel rows that read only padding are skipped, under a condition on (output row, kernel
// row) that hoist_if_then_else moves out of the kernel-column loop, and so are the kernel columns
// of whole column tiles; the results match the naive convolution (fallback and random points of
// the space, whose other tiles keep the column condition per column; NCHW and blocked). An
// ordinary padded 3x3 keeps the unconditional nest.
TEST(Conv2dNCHWc, AtrousRowsOverPaddingAreSkipped) {
  autotune::root_fallback_context().silent = true;
  std::vector<Case> cases = {
      {{1, 32, 10, 24}, {32, 32, 3, 3}, {{1, 1}, {6, 12}, {6, 12}}},
      {{1, 16, 11, 12}, {32, 16, 3, 3}, {{2, 1}, {5, 4}, {5, 4}}},
      {{1, 16, 7, 8}, {16, 16, 5, 3}, {{1, 1}, {6, 3, 5, 2}, {3, 2}}},
  };
  std::mt19937 rng(29);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i];
    topi::LayerBuild L = run_and_check(c, 110 + unsigned(i));
    // The guard sits right above the kernel-column loop, not inside the vector updates.
    const size_t kw = L.ir.find("for (kw");
    ASSERT_NE(kw, std::string::npos) << L.ir;
    const size_t guard = L.ir.rfind("if (", kw);
    ASSERT_NE(guard, std::string::npos) << L.ir;
    EXPECT_EQ(L.ir.find("for (", guard + 1), kw) << L.ir;
    EXPECT_NE(L.ir.substr(guard, kw - guard).find("kh"), std::string::npos) << L.ir;
    if (i == 0) {
      // 24 columns at rate 12 and padding 12: the outer kernel columns read only padding for a
      // whole tile in 2 of 6 (tile, kernel column) pairs with tiles of 12, in 4 of 12 with tiles
      // of 6 (AVX2's 6 register columns); the fallback takes 12 or 6, and the guard sits right
      // inside the kernel-column loop.
      autotune::FallbackConfigEntity fb;
      topi::cpu::conv2d_nchwc_fallback(fb, c.ds, c.ks, c.attrs);
      const int64_t cols = topi::cpu::register_columns_for_block(topi::cpu::channel_block(32));
      EXPECT_EQ(fb.split("tile_ow").size.back(), cols >= 12 ? 12 : 6);
      const size_t next = L.ir.find("for (", kw + 1);
      ASSERT_NE(next, std::string::npos);
      const std::string inside = L.ir.substr(kw, next - kw);
      EXPECT_NE(inside.find("if ("), std::string::npos) << L.ir;
      EXPECT_NE(inside.find("kw"), std::string::npos) << L.ir;
    }
    check_blocked(c, 120 + unsigned(i));
    check_random_points(c, rng, 130);
  }
  {  // rate 24 on 28 columns: tiles of 4 skip 12 of the 21 (tile, kernel column) pairs, tiles of
     // 7 6 of 12, tiles of 14 2 of 6: the fallback takes 4
    Case wide{{1, 16, 28, 28}, {16, 16, 3, 3}, {{1, 1}, {24, 24}, {24, 24}}};
    autotune::FallbackConfigEntity fb;
    topi::cpu::conv2d_nchwc_fallback(fb, wide.ds, wide.ks, wide.attrs);
    EXPECT_EQ(fb.split("tile_ow").size.back(), 4);
    run_and_check(wide, 160);
  }
  // (12 columns: tiles of 12, or 6 with AVX2, divide them, so no ragged-tile guard either.)
  Case plain{{1, 16, 9, 12}, {16, 16, 3, 3}, {{1, 1}, {1, 1}, {1, 1}}};
  topi::LayerBuild L = run_and_check(plain, 150);
  EXPECT_EQ(L.ir.find("if ("), std::string::npos) << L.ir;
}

// A strided 1x1 kernel without padding gathers the input positions it reads into a compact map
// (the output's rows and columns) before the multiply-adds: a data_pad stage of n x C x oh x ow
// values. Stride 2, unequal strides on odd maps, a single chunk; with padding the ordinary
// padded copy, and none for stride 1. Values as the naive
// loops', NCHW and blocked, fallback and random configs.
TEST(Conv2dNCHWc, StridedOneByOnesReadACompactCopyOfTheirInput) {
  autotune::root_fallback_context().silent = true;
  struct StridedCase {
    Case c;
    int64_t staged;  // values in the data_pad allocation, 0 for none
  };
  const std::vector<StridedCase> cases = {
      {{{1, 64, 14, 14}, {128, 64, 1, 1}, {{2, 2}, {0, 0}, {1, 1}}}, 64 * 7 * 7},
      {{{1, 32, 13, 17}, {48, 32, 1, 1}, {{2, 3}, {0, 0}, {1, 1}}}, 32 * 7 * 6},
      {{{1, 16, 9, 9}, {16, 16, 1, 1}, {{3, 3}, {0, 0}, {1, 1}}}, 16 * 3 * 3},
      // padded: the padded rows and columns the stride reaches (0 to 10 of 12)
      {{{1, 32, 10, 10}, {32, 32, 1, 1}, {{2, 2}, {1, 1}, {1, 1}}}, 32 * 11 * 11},
      {{{1, 32, 10, 10}, {32, 32, 1, 1}, {{1, 1}, {0, 0}, {1, 1}}}, 0},
  };
  std::mt19937 rng(41);
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const Case& c = cases[i].c;
    topi::LayerBuild L = run_and_check(c, 300 + unsigned(i));
    const std::string alloc = "allocate data_pad[float32 * ";
    const size_t at = L.ir.find(alloc);
    if (cases[i].staged == 0) {
      EXPECT_EQ(at, std::string::npos) << L.ir;
    } else {
      ASSERT_NE(at, std::string::npos) << L.ir;
      EXPECT_EQ(std::stoll(L.ir.substr(at + alloc.size())), cases[i].staged) << L.ir;
    }
    check_blocked(c, 310 + unsigned(i));
    check_random_points(c, rng, 320);
  }
}

// A direct conv with a short reduction (3 input channels by 3x3 or 7x7: the stems; 16 by 3x3) and
// a bias + relu epilogue, fused as a network runs it: the epilogue is computed at the register
// tile (the convolution's buffer holds one tile, not an output row) and the values match naive
// loops; a 64-channel 3x3 (576 products) keeps the row schedule.
TEST(Conv2dNCHWc, ShortReductionsComputeTheEpilogueAtTheRegisterTile) {
  autotune::root_fallback_context().silent = true;
  struct Short {
    int ci, hw, co, k, stride, pad;
    bool at_tile;
  };
  for (Short c : {Short{3, 56, 32, 3, 2, 1, true}, Short{3, 56, 64, 7, 2, 3, true},
                  Short{16, 56, 32, 3, 2, 1, true}, Short{64, 56, 32, 3, 2, 1, false}}) {
    SCOPED_TRACE(::testing::Message() << c.ci << "x" << c.hw << "x" << c.hw << " -> " << c.co
                                      << " k" << c.k << " s" << c.stride);
    topi::nn::Conv2dAttrs a{{c.stride, c.stride}, {c.pad, c.pad}, {1, 1}};
    autotune::FallbackConfigEntity fb;
    topi::cpu::conv2d_nchwc_fallback(fb, {1, c.ci, c.hw, c.hw}, {c.co, c.ci, c.k, c.k}, a);
    const int64_t ic_bn = fb.split("tile_ic").size.back(), oc_bn = fb.split("tile_oc").size.back(),
                  ow_factor = fb.split("tile_ow").size.back();
    const DataType f32 = DataType::Float(32);
    auto x = te::placeholder({1, c.ci / ic_bn, c.hw, c.hw, ic_bn}, f32, "x");
    auto w = te::placeholder({c.co / oc_bn, c.ci / ic_bn, c.k, c.k, ic_bn, oc_bn}, f32, "w");
    auto bias = te::placeholder({c.co / oc_bn, oc_bn}, f32, "bias");
    topi::cpu::Conv2dNCHWc t = topi::cpu::conv2d_nchwc_blocked(x, w, a);
    te::Tensor out = topi::nn::relu(te::compute(
        topi::nn::const_shape(t.output),
        [&](const std::vector<Var>& v) {
          return t.output.read(std::vector<Expr>(v.begin(), v.end())) + bias(v[1], v[4]);
        },
        "T_add", "broadcast"));
    te::Schedule sch = topi::cpu::schedule_conv2d_nchwc_fused(fb, {out});
    std::ostringstream ir;
    ir << lower(sch, {x, w, bias, out}, "conv");
    const int oh = (c.hw + 2 * c.pad - c.k) / c.stride + 1;
    ASSERT_GT(oh, ow_factor);  // a tile is less than a row
    const std::string tile_buffer =
        "allocate conv2d_NCHWc[float32 * " + std::to_string(ow_factor * oc_bn) + "]";
    EXPECT_EQ(ir.str().find(tile_buffer) != std::string::npos, c.at_tile) << ir.str();
    runtime::Module m =
        build(topi::cpu::schedule_conv2d_nchwc_fused(fb, {out}), {x, w, bias, out}, "llvm", "conv");
    // Random NCHW data and OIHW weights, packed to the blocked layouts; the result unpacked and
    // compared with the naive convolution plus bias and relu.
    const ConvShape sh = shape_of(Case{{1, c.ci, c.hw, c.hw}, {c.co, c.ci, c.k, c.k}, a});
    auto xv = rnd(size_t(c.ci) * c.hw * c.hw, 401), wv = rnd(size_t(c.co) * c.ci * c.k * c.k, 402),
         bv = rnd(size_t(c.co), 403);
    auto y = runtime::NDArray::empty({1, c.co / oc_bn, oh, oh, oc_bn}, f32);
    m.get_function("conv")(
        runtime::NDArray::from_vector(pack_blocked_data(sh, xv, ic_bn),
                                      {1, c.ci / ic_bn, c.hw, c.hw, ic_bn}),
        runtime::NDArray::from_vector(pack_blocked_kernel(sh, wv, ic_bn, oc_bn),
                                      {c.co / oc_bn, c.ci / ic_bn, c.k, c.k, ic_bn, oc_bn}),
        runtime::NDArray::from_vector(bv, {c.co / oc_bn, oc_bn}), y);
    std::vector<float> want = conv_ref(sh, xv, wv);
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = std::max(want[i] + bv[i / (size_t(oh) * oh)], 0.f);
    expect_close(unpack_blocked_output(sh, y.to_vector<float>(), oc_bn), want, 1e-4f);
  }
}
