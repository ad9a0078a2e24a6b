// TVM's x86 conv2d template (AutoTVM task "conv2d_NCHWc.x86", and "topi_x86_conv2d" / "conv2d" in
// the 0.1 logs): the NCHW input and OIHW kernel are packed into channel blocks (NCHW[ic_bn]c,
// OIHW[ic_bn]i[oc_bn]o), the convolution runs on the blocked layout with oc_bn output channels as
// the vector lanes and reg_n output columns as register accumulators, and the result is unpacked
// to NCHW. Knobs as TVM: tile_ic, tile_oc (2-way splits; their inner sizes are ic_bn/oc_bn),
// tile_ow (2-way, inner <= 64, "verbose" policy), then unroll_kw (kernels other than 1x1) or
// tile_oh (1x1 kernels). Schedules follow TVM's conv2d_avx_common / conv2d_avx_1x1
// `_schedule_conv_NCHWc` for the NCHW-in/NCHW-out path (packing stages scheduled in the same
// function); fallbacks follow their `_fallback_schedule` with the host's float32 vector length
// (16 with AVX-512, else 8).
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include <unistd.h>

#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/dispatch.h"
#include "minitvm/topi/template_spaces.h"
#include "topi/nn/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cpu {

using autotune::Json;
using nn::detail::I;
using nn::detail::named_compute;

namespace {

using Geom = topi::ConvGeometry;

// The geometry of TVM's generic 0.1 conv2d key (topi::conv_geometry), after the checks that
// give a conv2d_NCHWc-specific message.
Geom geometry(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
              const nn::Conv2dAttrs& a) {
  MINITVM_USER_CHECK(ds.size() == 4 && ks.size() == 4)
      << "conv2d_NCHWc: data must be NCHW and kernel OIHW (4-D), got " << ds.size() << "-D and "
      << ks.size() << "-D";
  MINITVM_USER_CHECK(ds[1] == ks[1])
      << "conv2d_NCHWc: data has " << ds[1] << " channels but the kernel expects " << ks[1]
      << " (grouped convolution is not supported)";
  nn::detail::pair_of(a.stride, "conv2d_NCHWc", "stride");
  nn::detail::pair_of(a.dilation, "conv2d_NCHWc", "dilation");
  nn::get_pad_tuple(a.padding);
  std::optional<Geom> g = topi::conv_geometry(conv2d_workloads(ds, ks, a).v01);
  MINITVM_USER_CHECK(g.has_value()) << "conv2d_NCHWc: empty output or sizes out of range";
  return *g;
}

bool is_1x1(const Geom& g) {
  return g.kh == 1 && g.kw == 1;
}

// Atrous convolutions on small maps read mostly padding (DeepLabV3's ASPP at rate 12 on a 14x14
// map: 24 of the 42 (output row, kernel row) pairs, and as many columns). The kernel rows that
// read only padding are skipped when they are a quarter of the pairs or more.
bool skips_padding_rows(const Geom& g) {
  int64_t padding = 0;
  for (int64_t oh = 0; oh < g.oh; ++oh)
    for (int64_t k = 0; k < g.kh; ++k) {
      int64_t ih = oh * g.stride_h - g.pad_top + k * g.dil_h;
      padding += ih < 0 || ih >= g.h;
    }
  return g.kh > 1 && padding * 4 >= g.oh * g.kh;
}

// Columns are skipped per register tile of output columns (a tile and a kernel column whose
// every input column is padding). Among the exact tiles of 4 (or the whole width, if narrower) to
// `columns` columns, the one that skips the largest share of the (tile, kernel column) pairs, the
// larger on ties; 0 when no tile skips a quarter (ordinary convs). DeepLabV3-ResNet50's rate-24
// conv on 28 columns: tiles of 14 skip 2 of 6 pairs, tiles of 4 12 of 21 (14.1 -> 11.1 ms).
int64_t padding_column_tile(const Geom& g, int64_t columns) {
  if (g.kw <= 1) return 0;
  int64_t best = 0;
  double best_share = 0.25;
  for (int64_t f = std::min(g.ow, columns); f >= std::min<int64_t>(g.ow, 4); --f) {
    if (g.ow % f) continue;
    int64_t padding = 0;
    for (int64_t t = 0; t < g.ow / f; ++t)
      for (int64_t k = 0; k < g.kw; ++k) {
        int64_t lo = t * f * g.stride_w - g.pad_left + k * g.dil_w;
        int64_t hi = lo + (f - 1) * g.stride_w;
        padding += hi < 0 || lo >= g.w;
      }
    double share = double(padding) / double((g.ow / f) * g.kw);
    if (share > best_share || (best == 0 && share >= best_share)) {
      best = f;
      best_share = share;
    }
  }
  return best;
}

}  // namespace

int64_t fp32_lanes() {
#if defined(__x86_64__) || defined(__i386__)
  static const int64_t lanes = __builtin_cpu_supports("avx512f") ? 16 : 8;
  return lanes;
#else
  return 4;
#endif
}

int64_t conv2d_nchwc_register_columns() {
  return fp32_lanes() >= 16 ? 31 : 14;
}

int64_t preferred_channel_block() {
#if defined(__x86_64__) || defined(__i386__)
  static const int64_t block =
      fp32_lanes() < 16 || __builtin_cpu_is("intel") ? 2 * fp32_lanes() : fp32_lanes();
  return block;
#else
  return fp32_lanes();
#endif
}

int64_t l2_cache_bytes() {
  static const int64_t bytes = [] {
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (v > 0) return static_cast<int64_t>(v);
#endif
    return int64_t{1} << 20;
  }();
  return bytes;
}

int64_t last_level_cache_bytes() {
  static const int64_t bytes = [] {
    int64_t best_level = 0, best = 0;
    for (int i = 0; i < 16; ++i) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      std::ifstream level_file(dir + "level"), size_file(dir + "size"), type_file(dir + "type");
      if (!level_file || !size_file) break;
      int64_t level = 0, size = 0;
      std::string unit, type;
      level_file >> level;
      size_file >> size;
      // sysfs writes "32768K"; a bare number is bytes
      if (size_file && size_file.peek() != EOF) size_file >> unit;
      if (type_file) type_file >> type;
      if (type == "Instruction") continue;
      if (unit == "K") size <<= 10;
      else if (unit == "M") size <<= 20;
      if (level > best_level && size > 0) {
        best_level = level;
        best = size;
      }
    }
    if (best_level >= 3) return best;
#ifdef _SC_LEVEL3_CACHE_SIZE
    const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v > 0) return static_cast<int64_t>(v);
#endif
    return best;
  }();
  return bytes;
}

bool host_cpu_is_amd() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool amd = __builtin_cpu_is("amd");
  return amd;
#else
  return false;
#endif
}

int64_t channel_block(int64_t channels) {
  const int64_t preferred = preferred_channel_block();
  if (channels % preferred == 0) return preferred;
  return detail::largest_divisor_at_most(channels, fp32_lanes());
}

int64_t register_columns_for_block(int64_t block) {
  const int64_t vectors = std::max<int64_t>(1, (block + fp32_lanes() - 1) / fp32_lanes());
  // AVX-512's multiply-add reads its broadcast operand from memory ({1to16}); AVX2 broadcasts
  // into a register first. Of AVX2's 16 registers the broadcast takes one and the kernel vectors
  // one each: 14 columns of one vector, 6 of two (7 x 2 spilled: twice as slow).
  if (fp32_lanes() < 16) return std::max<int64_t>(1, (15 - vectors) / vectors);
  return std::max<int64_t>(1, conv2d_nchwc_register_columns() / vectors);
}

int64_t conv2d_nchwc_oc_group(int64_t channels, int64_t oc_bn, bool one_by_one,
                              int64_t preferred_block, int64_t lanes, int64_t threads,
                              int64_t tasks_per_chunk) {
  if (!one_by_one || oc_bn != lanes || oc_bn >= preferred_block || channels % oc_bn != 0) return 1;
  const int64_t chunks = channels / oc_bn;
  for (int64_t group = 4; group >= 2; --group) {
    // With 16 vector registers (AVX2) four chunks leave room for 2 columns, 8 accumulators: too
    // few to hide the multiply-add latency. Two or three chunks keep 12 (6 or 4 columns), as a
    // two-vector block does. ResNeXt-50's 256 -> 256 1x1 at 56x56 on 8-channel output blocks
    // (for the 8-channel groups after it), with the grouped 3x3 after it: 5.47 -> 4.63 ms in 4
    // chunks, 4.46 in 2 (medians of 5 alternating processes, 2-core Zen 3, 2026-12-07).
    if (lanes < 16 && group * ((15 - group) / group) < 12) continue;
    if (chunks % group == 0 && chunks / group * tasks_per_chunk >= 2 * threads) return group;
  }
  // A chunk count without such a divisor (RegNetX-400MF's 400 channels: 25 chunks of 16) takes
  // groups of 4 all the same, the last one short (the split's guard; LLVM compiles the full groups
  // without it), where each group is one task (the weights are larger than the input: reduction
  // order) and the groups leave two tasks per thread.
  if (lanes >= 16 && tasks_per_chunk == 1 && chunks > 4 && (chunks + 3) / 4 >= 2 * threads)
    return 4;
  return 1;
}

int64_t conv2d_nchwc_ic_chunks_per_pass(int64_t ic_chunks, int64_t oc_group, int64_t ic_bn) {
  // In the reduction-outer order each pass over a tile's accumulators loads and stores them
  // around one input-channel chunk (ic_bn multiply-adds per accumulator in between). A tile of
  // several output chunks (3 weight vectors x 4 columns) does that with few columns per weight
  // load; up to 4 chunks per pass instead: RegNetY-1.6GF's 7x7 888 -> 888 layers (111 chunks of
  // 8, 3 per tile, 3 per pass) 785-793 -> 521-554 us, its strided 336 -> 888 (21 chunks of 16)
  // 310 -> 225 (per-call medians, 3 alternating processes, 2-core Zen 3, 2026-12-07). One-chunk
  // tiles measured level (ResNet-50's 7x7 layers, 2 chunks of 16 per pass) or 4-6 % slower
  // (RegNetY-400MF's 55 chunks of 8, 5 per pass).
  // Up to 128 input channels per pass (at least 4 chunks), as ONNX Runtime's pointwise kernel
  // batches them: RegNetY-16GF's 14x14 1232 -> 1232 layers (77 chunks of 16: no divisor 2-4, one
  // chunk per pass) 2268 -> 2042 us with 7 per pass (per-call medians of 3 alternating processes,
  // 2-core Xeon, 2026-12-08).
  if (oc_group < 2) return 1;
  return detail::largest_divisor_at_most(ic_chunks,
                                         std::max<int64_t>(4, 128 / std::max<int64_t>(ic_bn, 1)));
}

int64_t conv2d_nchwc_group_tile(int64_t chunks, int64_t group_chunks, int64_t stride,
                                int64_t group_input_bytes, int64_t l2_bytes, int64_t oc_bn,
                                int64_t lanes, int64_t threads, int64_t tasks_per_chunk, bool amd) {
  if (oc_bn != lanes || group_chunks < 2) return 1;
  if (amd && (stride < 2 || 2 * group_input_bytes <= l2_bytes)) return 1;
  for (int64_t group = 4; group >= 2; --group)
    if (group_chunks % group == 0 && chunks / group * tasks_per_chunk >= 2 * threads) return group;
  // A group of 5 or 7 chunks (RegNetY-16GF's 112-channel groups on 16-blocks) as one tile of 5
  // or 4 columns: its 112x112 -> 56x56 layer 6495 -> 6232 us, 56 -> 28 3192 -> 3066, 28 -> 14
  // 3234 -> 2753, 14 -> 7 level (per-call medians of 3 alternating processes, 2-core Xeon,
  // 2026-12-08).
  if (!amd)
    for (const int64_t group : {5, 7})
      if (group_chunks % group == 0 && chunks / group * tasks_per_chunk >= 2 * threads)
        return group;
  return 1;
}

Json conv2d_nchwc_workload(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                           const nn::Conv2dAttrs& a) {
  // conv2d_nchw.cuda's 0.2 key (tensors, strides, 4-value padding, dilation, dtype) under TVM's x86
  // task name, with the two layouts before the dtype.
  Json w = conv2d_workloads(ds, ks, a).v02.at(0);
  w[0] = "conv2d_NCHWc.x86";
  w.insert(w.end() - 1, Json("NCHW"));
  w.insert(w.end() - 1, Json("NCHW"));
  return w;
}

void define_conv2d_nchwc_space(autotune::SpaceDefiner& cfg, const std::vector<int64_t>& ds,
                               const std::vector<int64_t>& ks, const nn::Conv2dAttrs& a) {
  Geom g = geometry(ds, ks, a);
  autotune::SplitOptions two;
  cfg.define_split("tile_ic", g.ci, two);
  cfg.define_split("tile_oc", g.co, two);
  autotune::SplitOptions ow;
  ow.policy = autotune::SplitPolicy::Verbose;
  ow.filter = [](const autotune::SplitEntity& e) { return e.size.back() <= 64; };
  cfg.define_split("tile_ow", g.ow, ow);
  if (is_1x1(g)) {
    cfg.define_knob("tile_oh", g.oh > 1 ? std::vector<Json>{1, 2} : std::vector<Json>{1});
  } else {
    cfg.define_knob("unroll_kw", {true, false});
  }
}

void conv2d_nchwc_fallback(autotune::ConfigEntity& cfg, const std::vector<int64_t>& ds,
                           const std::vector<int64_t>& ks, const nn::Conv2dAttrs& a,
                           const GroupedBlocks* grouped) {
  define_conv2d_nchwc_space(cfg, ds, ks, a);
  Geom g = geometry(ds, ks, a);
  // TVM takes the largest divisor up to one vector and caps ic_bn at oc_bn; here each block is
  // channel_block() of its own channels, so a layer keeps its producer's block (MobileNetV2's
  // 144 -> 24: 16, not 12) and no layout_transform sits between them. A blocked grouped conv
  // has the blocks alter_op_layout gave it.
  int64_t oc_bn = grouped ? grouped->oc_bn : channel_block(g.co);
  int64_t ic_bn = grouped ? grouped->ic_bn : channel_block(g.ci);
  MINITVM_USER_CHECK(!grouped || (grouped->groups >= 1 && ic_bn >= 1 && oc_bn >= 1 &&
                                  g.ci % ic_bn == 0 && g.co % (grouped->groups * oc_bn) == 0))
      << "conv2d_NCHWc: grouped blocks " << ic_bn << "/" << oc_bn << " do not divide " << g.ci
      << " input channels per group and " << g.co << " output channels in "
      << (grouped ? grouped->groups : 1) << " groups";
  // Channel counts that are a multiple of a vector but not of the preferred two-vector block
  // (EfficientNet's 816 and 1392, 16 x 51 and 16 x 87) keep one-vector blocks, but their 1x1
  // layers take several chunks per register tile: each input value broadcast once for two to
  // four weight vectors, as two-vector blocks do. EfficientNet-B3's 7x7 240 -> 1392 and
  // 1392 -> 240 layers 185 -> 167 and 184 -> 165 us, its 14x14 144 -> 816 199 -> 189 us, the
  // network 2.3 % (per-call medians of 3 alternating processes, 2-core Xeon, 2026-12-06). Where
  // rows run outermost each row is a task, so three chunks are enough (816 -> 144 at 14x14
  // 181 -> 149 us, 288 -> 48 at 28x28 94 -> 75; the network another 1.3 %).
  // The tasks per group of chunks: the rows where the input is larger than the weights (rows
  // outermost), else one.
  const int64_t row_tasks = g.n * g.ci * g.h * g.w > g.co * g.ci * g.kh * g.kw ? g.oh : 1;
  int64_t oc_group =
      conv2d_nchwc_oc_group(g.co, oc_bn, is_1x1(g), preferred_channel_block(), fp32_lanes(),
                            runtime::configured_thread_count(), row_tasks);
  // A strided grouped conv runs its group's chunks one after another over the same input; where
  // that input (padded, one group's channels) does not stay in the L2 it is streamed again for
  // each chunk. 2-4 chunks of a group share a register tile instead (fewer columns each) and read
  // it once. Fastest of 3 processes' per-call medians (2-core Zen 4): RegNetX-16GF's 128-channel
  // groups 112x112 -> 56x56 10.70 -> 9.23 ms, 56x56 -> 28x28 5.35 -> 4.59 ms; RegNetX-3.2GF's
  // 48-channel groups at 112x112 1.45 -> 1.30 ms. Where the input stays in the L2 (28x28 and
  // 14x14 inputs) they measured level to 14 % slower (ResNeXt-50's 14x14 -> 7x7 221 -> 253 us).
  // On Intel's cores (the 2-core Xeon) sharing the tile wins at every size and stride 1 too:
  // RegNetX-3.2GF's 48-channel groups 112x112 -> 56x56 949 -> 903 us, 56x56 -> 28x28
  // 556 -> 430, 28x28 -> 14x14 346 -> 279, 14x14 -> 7x7 255 -> 204, its 7x7 stride-1 layer
  // 233 -> 188 (per-call medians of 3 alternating processes, 2026-12-08).
  if (grouped && grouped->groups > 1 && !is_1x1(g)) {
    const int64_t group_input_bytes =
        g.ci * (g.h + g.pad_top + g.pad_bottom) * (g.w + g.pad_left + g.pad_right) * 4;
    oc_group =
        conv2d_nchwc_group_tile(g.co / oc_bn, g.co / oc_bn / grouped->groups, g.stride_w,
                                group_input_bytes, l2_cache_bytes(), oc_bn, fp32_lanes(),
                                runtime::configured_thread_count(), row_tasks, host_cpu_is_amd());
  }
  const int64_t columns = register_columns_for_block(oc_bn * oc_group);
  cfg.set("tile_ic", autotune::SplitEntity{{g.ci / ic_bn, ic_bn}});
  cfg.set("tile_oc", autotune::SplitEntity{{g.co / oc_bn, oc_bn}});
  if (oc_group > 1) {
    // Set, not defined: the knob stays out of the space the fallback collects (which checks and
    // indexes tuning records; TVM's and those of `minitvm tune` have no such entity, and their
    // schedules keep one chunk per register tile).
    cfg.set("tile_oc_group", autotune::OtherOptionEntity{oc_group});
  }
  // A width whose divisors are all far below the register columns (a prime such as Inception's
  // 17, 71, 73, 149) would get a tile of 1 to 4 columns: a few multiply-adds per weight load, at a
  // third of the speed. It gets the fewest tiles of at most `columns` columns instead, the last
  // one partial (the split is not exact; the store is guarded): Inception-v3's 17x17 1x7 layer
  // 1.17 -> 0.40 ms (2-core Xeon, 2026-12-05). Records of the tuning space keep exact factors.
  auto ragged = [&](int64_t area) -> bool {
    if (area > 4 || g.ow <= area) return false;
    int64_t tiles = (g.ow + columns - 1) / columns;
    int64_t owf = (g.ow + tiles - 1) / tiles;
    if (is_1x1(g)) cfg.set("tile_oh", autotune::OtherOptionEntity{1});
    cfg.set("tile_ow", autotune::SplitEntity{{tiles, owf}});
    return true;
  };
  if (is_1x1(g)) {
    // The largest ow factor, then the largest oh factor, with at most the register columns of
    // outputs per tile (TVM: fewer than 32).
    for (int64_t owf = g.ow; owf >= 1; --owf) {
      if (g.ow % owf) continue;
      for (int64_t ohf = g.oh; ohf >= 1; --ohf) {
        if (g.oh % ohf == 0 && owf * ohf <= columns) {
          if (ragged(owf * ohf)) return;
          cfg.set("tile_oh", autotune::OtherOptionEntity{ohf});
          cfg.set("tile_ow", autotune::SplitEntity{{g.ow / owf, owf}});
          return;
        }
      }
    }
    MINITVM_INTERNAL_ERROR << "conv2d_NCHWc: no default 1x1 tiling";
  }
  int64_t reg_n = detail::largest_divisor_at_most(g.ow, columns);
  if (!ragged(reg_n)) cfg.set("tile_ow", autotune::SplitEntity{{g.ow / reg_n, reg_n}});
  // The tiles of the compute's padding-column condition (blocked_conv), so that it holds or fails
  // for a whole register tile.
  if (int64_t f = padding_column_tile(g, columns))
    cfg.set("tile_ow", autotune::SplitEntity{{g.ow / f, f}});
  cfg.set("unroll_kw", autotune::OtherOptionEntity{false});
}

NCHWcChoice conv2d_nchwc_config(const autotune::Target& t, const std::vector<int64_t>& ds,
                                const std::vector<int64_t>& ks, const nn::Conv2dAttrs& attrs) {
  // TVM's x86 template: 0.1 logs key it as ("conv2d", ...) (task topi_x86_conv2d), 0.2 logs as
  // conv2d_NCHWc.x86; the innermost context with a record for either answers.
  Workloads wl = conv2d_workloads(ds, ks, attrs);
  wl.v02 = {conv2d_nchwc_workload(ds, ks, attrs)};
  Dispatched d = dispatch(t, wl);
  NCHWcChoice r;
  if (d.cfg && !d.cfg->is_fallback()) {
    r.cfg = *d.cfg;
  } else {
    autotune::FallbackConfigEntity fb;
    conv2d_nchwc_fallback(fb, ds, ks, attrs);
    r.cfg = fb;
  }
  r.workload = d.workload;
  r.is_fallback = r.cfg.is_fallback();
  r.ic_bn = r.cfg.split("tile_ic").size.back();
  r.oc_bn = r.cfg.split("tile_oc").size.back();
  MINITVM_USER_CHECK(ds[1] % r.ic_bn == 0 && ks[0] % r.oc_bn == 0)
      << "conv2d_NCHWc.x86: the config's channel blocks " << r.ic_bn << "/" << r.oc_bn
      << " do not divide " << ds[1] << "/" << ks[0];
  return r;
}

// The order of the loops around the register tile. TVM's schedule runs the output-channel chunks
// outermost (each thread keeps one chunk's weights in L2 and streams the input rows past them,
// once per chunk). That suits neither end of a network at batch 1 with few threads:
//  - kRowsOuter when the input is larger than the weights (the early layers): a thread takes whole
//    output rows for every channel chunk, so each input row is read once, while it is in L1/L2,
//    instead of once per chunk from L3 (ResNet-50's 56x56 1x1 layers: 0.49 -> 0.44 ms).
//  - kReductionOuter when the weights are larger than the input (the late layers, 1-9 MB of
//    weights for a 7x7 or 14x14 map): a task is one (batch, channel chunk) tile, and the
//    input-channel chunks run outermost in it. Each chunk of weights (ic_bn x kh x kw x oc_bn) is
//    then read from memory once and used for every output position while it is in L1, and the
//    tile's accumulators stay in L1/L2 between chunks; the other orders read each weight once per
//    output row, from L2 or, past L2, from memory (ResNet-50's 7x7 layers: 0.57 -> 0.46 ms for a
//    1x1, 1.20 -> 1.12 ms for a 3x3; 2-core Xeon, 2026-12-04). It needs enough tiles to keep
//    the threads busy, and a blocked (5-D) output: with the NCHW unpack, TVM's order.
NCHWcLoopOrder conv2d_nchwc_loop_order(int64_t data_elements, int64_t weight_elements,
                                       int64_t tiles, int64_t threads, int64_t kernel_hw,
                                       int64_t chunk_bytes, int64_t weight_bytes, int64_t l2_bytes,
                                       int64_t out_width) {
  if (data_elements > weight_elements) return NCHWcLoopOrder::kRowsOuter;
  if (weight_elements > data_elements && tiles >= 2 * threads) {
    // A 1x1 kernel whose task would touch more than 32 KiB per input-channel chunk (its
    // accumulators, that chunk of its input and of the weights: ResNet-50's 14x14 layers with
    // 32-channel blocks, 54 KB) does not keep them in L1 between chunks, and the reduction-outer
    // order then only adds the accumulators' round trips: TVM's order instead, the full reduction
    // per register tile. Those layers -5 to -12 %; per round of 6 alternating processes,
    // ResNet-50 -3 %, MobileNetV2 and DenseNet-121 -5 %, MobileNetV3 and EfficientNet-B0 -10 %,
    // GoogLeNet level (2-core Xeon, 2026-12-05). The 7x7 maps (17 KB) keep the reduction
    // outermost; a 3x3 at 14x14 was level or slower in TVM's order.
    if (kernel_hw == 1 && chunk_bytes > (int64_t{32} << 10)) return NCHWcLoopOrder::kChannelsOuter;
    // A spatial kernel whose weights are at most twice its input (ResNet's 28x28 3x3 128 -> 128:
    // 100k input and 147k weight elements, 4 channel tiles for 2 threads) runs in row blocks
    // instead: 28 tasks of 37 KB weight chunks in L1 rather than 4 tasks of 100 KB accumulator
    // tiles in L2 (those layers -3 to -8 %, ResNet-50 -1.6 %, ResNet-18 -1.4 %, GoogLeNet -1.1 %
    // end to end, 6 alternating processes each; 2-core Xeon, 2026-12-05).
    if (kernel_hw > 1 && weight_elements <= 2 * data_elements) return NCHWcLoopOrder::kRowsOuter;
    // A 1x1 kernel with rows of 14 columns or more whose weights fit in half a core's L2 runs rows
    // outermost too (16-channel blocks at 14x14: 25 KB per chunk): each thread reads every weight
    // once per output row, from its own L2, and only its own rows of the input, which the kernel
    // before it mostly wrote there (consecutive kernels split their rows alike; thread_pool.cc),
    // instead of a whole map of accumulators per task. Per-call medians (2-core Xeon, 2 MiB L2,
    // 2026-12-06): EfficientNet-B3's 144 -> 816 269 -> 227 us, RegNetY-400MF's 208 -> 208 88 ->
    // 61. At 7x7 (RegNetX's 400 -> 400, 640 KB) rows were 20 % slower: a row's multiply-adds per
    // weight read are its width. Where TVM's order was chosen (32-channel blocks, over 32 KiB
    // per chunk) rows were level or slower in networks: ResNet-50's 14x14 256 -> 1024 with its
    // residual 383 -> 430 us, MobileNetV2's depthwise layers after the expansions.
    if (kernel_hw == 1 && out_width >= 14 && weight_bytes > 0 && l2_bytes > 0 &&
        2 * weight_bytes <= l2_bytes)
      return NCHWcLoopOrder::kRowsOuter;
    return NCHWcLoopOrder::kReductionOuter;
  }
  return NCHWcLoopOrder::kChannelsOuter;
}

bool conv2d_nchwc_output_bound(int64_t in_channels, int64_t out_bytes, int64_t threads,
                               int64_t l2_bytes) {
  // A 1x1 kernel over few input channels does that many multiply-adds per output value, so on a
  // large map it runs at the speed its output is written. That output is larger than the
  // threads' L2s together and was last touched an inference ago: it comes from memory, whichever
  // thread writes it. In rows-outer order every thread writes a row of each output-channel chunk
  // in turn, one run of 7 KB per chunk plane; in TVM's order it writes its chunks' planes, one
  // contiguous run. RegNetX-3.2GF's 32 -> 96 at 112x112 (4.8 MB out) 507 -> 403 us, RegNetY-8GF's
  // 32 -> 224 1206 -> 934, MobileNetV2's 16 -> 96 266 -> 224 (its depthwise consumer 70 -> 101);
  // every other 1x1 layer of ResNet-50, MobileNetV2, EfficientNet-B0 and RegNetX-3.2GF was level
  // or 3-34 % slower in TVM's order, their consumers too (2-core Zen 4, fastest of 3 processes'
  // per-call medians, 2026-12-06; docs/PERFORMANCE.md).
  return in_channels <= 32 && threads > 0 && l2_bytes > 0 && out_bytes > threads * l2_bytes;
}

// Blocks of output rows for kRowsOuter when a spatial kernel reads several input-channel chunks
// (VGG's and ResNet-50's 3x3 layers at 56x56 and more). Whole rows with the full reduction per
// register tile read every weight of the channel chunk (2 ic chunks x 3x3 x 32 x 32 = 74 KB and
// more) from L2 once per tile of 14 columns. With the input-channel chunks outermost in a block of
// R rows, one chunk's weights (ic_bn x kh x kw x oc_bn, 37 KB) stay in L1 for R rows, and the
// block's accumulators (R x ow x oc_bn) in L1/L2 between chunks. R = 4 was the fastest of 2, 4
// and 8 on every such layer of VGG-16 and ResNet-50 (2-core Xeon, 2026-12-04: VGG-16's 56x56
// layers -5 to -10 %, its 112x112 ones -2 to -7 %, ResNet-50's 56x56 3x3 -1.5 to -5 %): fewer rows
// re-read the weights more often, more rows push the block's input past L1. The largest divisor
// of the rows up to 4, at least 2, and enough tasks for two per thread; 0 (whole rows) otherwise,
// and for a single input-channel chunk (the stem), where there is no chunk loop to move outward.
int64_t conv2d_nchwc_row_block(int64_t kernel_hw, int64_t ic_chunks, int64_t out_rows,
                               int64_t tasks_per_row_block, int64_t threads) {
  if (kernel_hw <= 1 || ic_chunks < 2) return 0;
  for (int64_t r = 4; r >= 2; --r)
    if (out_rows % r == 0) return out_rows / r * tasks_per_row_block >= 2 * threads ? r : 0;
  return 0;
}

int64_t conv2d_nchwc_balance_parts(int64_t tiles, int64_t out_rows, int64_t threads) {
  // Reduction-ordered tasks are few (RegNetX-3.2GF's 14x14 layers: 27 output-channel chunks), and
  // the parallel loop hands each thread a contiguous run of them, so one thread's share can be a
  // whole task longer than the other's: 14 against 13 is 3.7 % of the layer lost. Splitting every
  // task's rows into p parts, in the order (chunk, part) so that the parts of a chunk run one after
  // the other on one thread and share its weights in L1/L2, gives p * tiles tasks. RegNetX-3.2GF's
  // 14x14 1x1 432 -> 432 353 -> 340 us, its grouped 3x3 358 -> 348 (2-core Zen 4, per-call
  // medians of 4 alternating processes, 2026-12-06).
  if (threads <= 1 || tiles <= 0 || tiles % threads == 0) return 1;
  // The longest share over the average one, for p parts per task.
  auto makespan = [&](int64_t p) {
    const int64_t tasks = tiles * p;
    return double((tasks + threads - 1) / threads) * double(threads) / double(tasks);
  };
  int64_t best = 1;
  for (int64_t p = 2; p <= 4; ++p)
    if (out_rows % p == 0 && makespan(p) < makespan(best) - 1e-9) best = p;
  return best;
}

int64_t conv2d_nchwc_tile_rows(int64_t columns, int64_t ow_factor, int64_t rows, bool grouped) {
  // The reduction-outer order's register tile was one output row of ow_factor columns. On a map
  // narrower than the register columns (7 of AVX-512's 16 for two-vector blocks) that leaves
  // half the accumulators unused, and each weight vector loaded from L1 feeds 7 multiply-adds
  // instead of 14. Several rows per tile fill them; a row count that does not divide the task's
  // rows leaves a shorter last tile, whose guards partition_guarded_tiles takes out of a spatial
  // kernel's reduction loops (and LLVM unswitched out of the 1x1 ones looked at).
  // Per-call medians of 3-4 alternating processes (2-core Xeon, AVX-512, 2026-12-07): RegNetX-
  // 800MF's 7x7 672 -> 672 1x1 171 -> 165 us, MNASNet-1.3's 1488 -> 256 (16-channel input
  // blocks) 156 -> 138 and 1488 -> 416 253 -> 227, ResNet-50's 7x7 1x1 layers 454 -> 442 and its
  // 7x7 3x3 986 -> 940; while the machine ran slower (weights from memory), level to 8 % faster.
  // End to end (8 alternating rounds) RegNetX-800MF -3 %, seven other networks level (+-1 %).
  // A grouped conv's 3x3 at 7x7 (RegNetX's 16-channel groups on 4 rows) was 27 % slower: one
  // input-channel chunk per group is too short a reduction to fill the larger tile; it keeps one
  // row.
  if (grouped || ow_factor <= 0) return 1;
  return std::max<int64_t>(1, std::min(columns / ow_factor, rows));
}

bool conv2d_nchwc_prefetch_weights(int64_t weight_bytes, int64_t out_positions, bool one_by_one,
                                   bool amd) {
  // Weights of 4 MiB and more over a map of at most 64 positions (ResNet's 7x7 layers:
  // 9.4 MB for 512 -> 512 3x3) stream from memory with little compute per input-channel chunk
  // (5 us per 36 KB chunk). ResNet-50's 7x7 3x3 layers -6 to -10 %, its strided 14x14 -> 7x7 3x3
  // and 1x1 -6 to -7 % (3 processes each, 2-core Xeon); with 1 MiB and 14x14 maps (more compute
  // per chunk) it was level or slower.
  if (weight_bytes >= (int64_t{4} << 20) && out_positions <= 64) return true;
  // On Zen 4 every 1x1 layer in this order gains: its weights come from memory in a network
  // (the other layers' weights have pushed them out of the L3), and a chunk's few multiply-adds
  // per weight (one per output position) do not cover the wait. Per-call medians of 3 alternating
  // processes each (2026-12-06): RegNetX-3.2GF's 7x7 1008 -> 1008 (4.06 MB) 526 -> 463 us,
  // 14x14 432 -> 432 (746 KB) 375 -> 355 and 432 -> 1008 867 -> 824; three of ResNet-50's 14x14
  // 1x1 layer shapes -4 to -5 %. Its grouped 3x3 layers at 14x14 and 7x7 in the same order were
  // 6-9 % slower.
  return amd && one_by_one;
}

namespace {

// The block a reduction over the first `channels` input channels of ic_bn-channel data blocks
// is split by: ic_bn where it divides them, else the channels themselves (fewer than one block)
// or their greatest common divisor with ic_bn.
int64_t reduction_block(int64_t channels, int64_t ic_bn) {
  if (channels % ic_bn == 0) return ic_bn;
  return channels < ic_bn ? channels : std::gcd(channels, ic_bn);
}

// data_pad and the blocked convolution of r.data_vec / r.kernel_vec (set by the caller).
// Grouped (groups > 1): g.ci is the input channels of one group; output chunk k reads the input
// chunks of its group, (k / output chunks per group) * (input chunks per group) + icc.
// data_channels (0: all): the input channels that hold data, the rest padding with zero weights,
// which the reduction may leave out.
void blocked_conv(Conv2dNCHWc& r, const Geom& g, const nn::Conv2dAttrs& a, int64_t ic_bn,
                  int64_t oc_bn, int64_t groups = 1, int64_t data_channels = 0) {
  bool dopad = g.pad_top || g.pad_left || g.pad_bottom || g.pad_right;
  r.data_pad = dopad ? nn::pad(r.data_vec, {0, 0, g.pad_top, g.pad_left, 0},
                               {0, 0, g.pad_bottom, g.pad_right, 0}, 0.0, "data_pad")
                     : r.data_vec;
  // A strided 1x1 kernel without padding (ResNet's downsampling shortcuts) reads one input
  // position in stride_h x stride_w: a cache line of a 16-channel block, then none, across every
  // input row it uses and none of the rows between. Its input is first gathered into a compact
  // map (data_pad: the output's rows and columns, a quarter of the input with stride 2), which the
  // multiply-adds then read contiguously, as a stride-1 1x1. ResNet-50's 14x14 -> 7x7 1024 -> 2048
  // 1753 -> 1216 us, 28x28 -> 14x14 512 -> 1024 1645 -> 1213 us; its 56x56 -> 28x28 one (rows
  // outermost, the input read once while in cache) level, 1162 -> 1160 (per-call medians of
  // `minitvm profile` in alternating processes, 2-core Zen 3, 2026-12-07). On the 2-core Intel
  // Xeon (AVX-512, 32-channel blocks) 842 -> 778 and 1074 -> 978 us, but the rows-outer 56x56
  // one 722 -> 777 (+7 %): the copy is one rule, not split by loop order, for 40 us of 28 ms.
  int64_t sh = g.stride_h, sw = g.stride_w;
  if (!dopad && g.kh == 1 && g.kw == 1 && (sh > 1 || sw > 1)) {
    te::Tensor dv = r.data_vec;
    const int64_t chunks = nn::const_shape(dv)[1];
    r.data_pad = named_compute(
        {g.n, chunks, g.oh, g.ow, ic_bn}, {"n", "c", "h", "w", "b"},
        [&](const std::vector<Var>& v) { return dv(v[0], v[1], v[2] * I(sh), v[3] * I(sw), v[4]); },
        "data_pad", "injective");
    sh = sw = 1;
  }
  // Where the padding is an eighth of the channels or more and the real ones split into blocks
  // of 4 or more (reduction_block): MNASNet's 24 of 32 channels (one block), its 40 of 48 (5
  // blocks of 8 in 3 of 16).
  const int64_t dc = data_channels;
  const bool part = groups == 1 && dc > 0 && dc < g.ci && 8 * dc <= 7 * g.ci &&
                    reduction_block(dc, ic_bn) >= std::min<int64_t>(dc, 4);
  te::IterVar ic = te::reduce_axis({0, static_cast<int>(part ? dc : g.ci)}, "ic");
  te::IterVar kh = te::reduce_axis({0, static_cast<int>(g.kh)}, "kh");
  te::IterVar kw = te::reduce_axis({0, static_cast<int>(g.kw)}, "kw");
  te::Tensor dp = r.data_pad, kv = r.kernel_vec;
  // Atrous convolutions on small maps skip the kernel rows, and the kernel columns of whole
  // register tiles, that read only padding: a reduction condition on (output row, kernel row)
  // and on (output column tile, kernel column), which hoist_if_then_else moves out of the
  // channel-block and register-tile loops (the fallback tiles the columns as the condition does;
  // a tuned config's other tiles keep it per column, still exact). Ordinary convolutions (a 3x3
  // kernel with padding 1 reads padding in 2 of 3 * H pairs) keep the unconditional nest.
  const bool skip_rows = skips_padding_rows(g);
  const int64_t column_tile = padding_column_tile(g, register_columns_for_block(oc_bn));
  r.conv = named_compute(
      {g.n, g.co / oc_bn, g.oh, g.ow, oc_bn}, {"n", "oc_chunk", "oh", "ow", "oc_block"},
      [&](const std::vector<Var>& v) {
        Expr icc = floordiv(ic->var, I(ic_bn)), icb = floormod(ic->var, I(ic_bn));
        Expr dcc = icc;
        if (groups > 1) dcc = floordiv(v[1], I(g.co / groups / oc_bn)) * I(g.ci / ic_bn) + icc;
        Expr x = dp(v[0], dcc, v[2] * I(sh) + kh->var * I(g.dil_h),
                    v[3] * I(sw) + kw->var * I(g.dil_w), icb);
        Expr where;
        if (skip_rows) {
          Expr ih = v[2] * I(g.stride_h) + kh->var * I(g.dil_h) - I(g.pad_top);
          where = ih >= I(0) && ih < I(g.h);
        }
        if (column_tile > 0) {
          // the input columns of the tile's first and last output columns
          Expr lo = floordiv(v[3], I(column_tile)) * I(column_tile * g.stride_w) +
                    kw->var * I(g.dil_w) - I(g.pad_left);
          Expr hi = lo + I((column_tile - 1) * g.stride_w);
          Expr cols = hi >= I(0) && lo < I(g.w);
          where = where.defined() ? (where && cols) : cols;
        }
        return te::sum(nn::detail::cast_to(a.out_dtype, x) *
                           nn::detail::cast_to(a.out_dtype, kv(v[1], icc, kh, kw, icb, v[4])),
                       {ic, kh, kw}, where);
      },
      "conv2d_NCHWc", "conv2d_NCHWc");
}

// Packing stages (TVM's schedule of data_vec / kernel_vec in _schedule_conv_NCHWc): data parallel
// over (n, c chunk, h); kernel reordered to (oc chunk, kh, ic chunk, kw, ic block, oc block), the
// oc block vectorized, parallel over (oc chunk, kh).
void schedule_pack_data(te::Schedule& s, const te::Tensor& dv) {
  te::Stage st = s[dv];
  auto ax = dv.op().axis();
  st.parallel(st.fuse(std::vector<IterVar>{ax[0], ax[1], ax[2]}));
}
void schedule_pack_kernel(te::Schedule& s, const te::Tensor& kv, int64_t oc_bn) {
  te::Stage st = s[kv];
  auto ax = kv.op().axis();  // oc_chunk, ic_chunk, kh, kw, ic_block, oc_block
  st.reorder({ax[0], ax[2], ax[1], ax[3], ax[4], ax[5]});
  if (oc_bn > 1) st.vectorize(ax[5]);
  st.parallel(st.fuse(std::vector<IterVar>{ax[0], ax[2]}));
}

void check_blocks(const Geom& g, int64_t ic_bn, int64_t oc_bn) {
  MINITVM_USER_CHECK(ic_bn >= 1 && g.ci % ic_bn == 0 && oc_bn >= 1 && g.co % oc_bn == 0)
      << "conv2d_NCHWc: channel blocks " << ic_bn << "/" << oc_bn << " do not divide " << g.ci
      << "/" << g.co;
}

}  // namespace

Conv2dNCHWc conv2d_nchwc(const te::Tensor& data, const te::Tensor& kernel, const nn::Conv2dAttrs& a,
                         int64_t ic_bn, int64_t oc_bn) {
  Geom g = geometry(nn::const_shape(data), nn::const_shape(kernel), a);
  check_blocks(g, ic_bn, oc_bn);
  Conv2dNCHWc r;
  r.data_vec = named_compute(
      {g.n, g.ci / ic_bn, g.h, g.w, ic_bn}, {"bs", "c", "h", "w", "vc"},
      [&](const std::vector<Var>& v) { return data(v[0], v[1] * I(ic_bn) + v[4], v[2], v[3]); },
      "data_vec", "injective");
  r.kernel_vec = named_compute(
      {g.co / oc_bn, g.ci / ic_bn, g.kh, g.kw, ic_bn, oc_bn},
      {"occ", "icc", "k_h", "k_w", "icb", "ocb"},
      [&](const std::vector<Var>& v) {
        return kernel(v[0] * I(oc_bn) + v[5], v[1] * I(ic_bn) + v[4], v[2], v[3]);
      },
      "kernel_vec", "injective");
  blocked_conv(r, g, a, ic_bn, oc_bn);
  te::Tensor conv = r.conv;
  r.output = named_compute(
      {g.n, g.co, g.oh, g.ow}, {"n", "c", "h", "w"},
      [&](const std::vector<Var>& v) {
        return conv(v[0], floordiv(v[1], I(oc_bn)), v[2], v[3], floormod(v[1], I(oc_bn)));
      },
      "output_unpack", "injective,unpack_nchwc");
  return r;
}

Conv2dNCHWc conv2d_nchwc_blocked(const te::Tensor& data5, const te::Tensor& kernel6,
                                 const nn::Conv2dAttrs& a, int64_t groups, int64_t data_channels) {
  std::vector<int64_t> d = nn::const_shape(data5), k = nn::const_shape(kernel6);
  MINITVM_USER_CHECK(d.size() == 5 && k.size() == 6)
      << "conv2d_NCHWc: blocked data must be NCHW[x]c (5-D) and the kernel OIHW[x]i[y]o (6-D), got "
      << d.size() << "-D and " << k.size() << "-D";
  int64_t ic_bn = d[4], oc_bn = k[5];
  MINITVM_USER_CHECK(groups >= 1 && d[1] % groups == 0 && k[0] % groups == 0)
      << "conv2d_NCHWc: " << groups << " groups do not divide the " << d[1] << " input and " << k[0]
      << " output channel chunks";
  MINITVM_USER_CHECK(k[4] == ic_bn && k[1] * groups == d[1])
      << "conv2d_NCHWc: kernel input blocks (" << k[1] << " x " << k[4] << ", " << groups
      << " groups) do not match the data's (" << d[1] << " x " << ic_bn << ")";
  // The geometry of one group (its input channels; all output channels).
  Geom g = geometry({d[0], k[1] * ic_bn, d[2], d[3]}, {k[0] * oc_bn, k[1] * ic_bn, k[2], k[3]}, a);
  Conv2dNCHWc r;
  r.data_vec = data5;
  r.kernel_vec = kernel6;
  MINITVM_USER_CHECK(data_channels >= 0 && data_channels <= g.ci)
      << "conv2d_NCHWc: data_channels " << data_channels << " outside the input's " << g.ci
      << " channels";
  blocked_conv(r, g, a, ic_bn, oc_bn, groups, data_channels);
  r.output = r.conv;
  return r;
}

std::vector<NCHWcTransform> conv2d_nchwc_transforms(const std::vector<int64_t>& ds,
                                                    const std::vector<int64_t>& ks,
                                                    const nn::Conv2dAttrs& a, int64_t ic_bn,
                                                    int64_t oc_bn) {
  Geom g = geometry(ds, ks, a);
  check_blocks(g, ic_bn, oc_bn);
  te::Tensor data = te::placeholder(nn::detail::to_exprs(ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(nn::detail::to_exprs(ks), DataType::Float(32), "kernel");
  Conv2dNCHWc t = conv2d_nchwc(data, kernel, a, ic_bn, oc_bn);
  std::vector<NCHWcTransform> out;
  {  // data NCHW -> NCHW[ic_bn]c
    te::Schedule s = te::create_schedule({t.data_vec.op()});
    schedule_pack_data(s, t.data_vec);
    out.push_back({"pack_data", s, {data, t.data_vec}});
  }
  {  // kernel OIHW -> OIHW[ic_bn]i[oc_bn]o
    te::Schedule s = te::create_schedule({t.kernel_vec.op()});
    schedule_pack_kernel(s, t.kernel_vec, oc_bn);
    out.push_back({"pack_kernel", s, {kernel, t.kernel_vec}});
  }
  {  // output NCHW[oc_bn]c -> NCHW: parallel over (n, c), rows contiguous
    te::Tensor blocked =
        te::placeholder(nn::detail::to_exprs({g.n, g.co / oc_bn, g.oh, g.ow, oc_bn}),
                        DataType::Float(32), "conv2d_NCHWc");
    te::Tensor unpacked = named_compute(
        {g.n, g.co, g.oh, g.ow}, {"n", "c", "h", "w"},
        [&](const std::vector<Var>& v) {
          return blocked(v[0], floordiv(v[1], I(oc_bn)), v[2], v[3], floormod(v[1], I(oc_bn)));
        },
        "output_unpack", "injective,unpack_nchwc");
    te::Schedule s = te::create_schedule({unpacked.op()});
    auto ax = unpacked.op().axis();
    s[unpacked].parallel(s[unpacked].fuse(std::vector<IterVar>{ax[0], ax[1]}));
    out.push_back({"unpack_output", s, {blocked, unpacked}});
  }
  return out;
}

namespace {

int64_t elements(const te::Tensor& t) {
  return detail::num_elements(nn::const_shape(t));
}
int64_t bytes(const te::Tensor& t) {
  return elements(t) * t.dtype().bytes();
}

// With the thread pool's size (the hardware threads, or TVM_NUM_THREADS).
NCHWcLoopOrder loop_order(const Conv2dNCHWc& t) {
  const std::vector<int64_t> out = nn::const_shape(t.conv);  // n, oc chunks, oh, ow, oc block
  // oc chunks, ic chunks, kh, kw, ic block, oc block
  const std::vector<int64_t> k = nn::const_shape(t.kernel_vec);
  // Per input-channel chunk, a reduction-outer task touches its accumulators (every output
  // position of one oc block), the input under them and one chunk of weights.
  const int64_t chunk_elements = out[2] * out[3] * (out[4] + k[4]) + k[2] * k[3] * k[4] * k[5];
  const int64_t threads = runtime::configured_thread_count(), l2 = l2_cache_bytes();
  const NCHWcLoopOrder order = conv2d_nchwc_loop_order(
      elements(t.data_vec), elements(t.kernel_vec), out[0] * out[1], threads, k[2] * k[3],
      chunk_elements * t.conv.dtype().bytes(), bytes(t.kernel_vec), l2, out[3]);
  if (order == NCHWcLoopOrder::kRowsOuter && k[2] * k[3] == 1 &&
      conv2d_nchwc_output_bound(k[1] * k[4], bytes(t.conv), threads, l2))
    return NCHWcLoopOrder::kChannelsOuter;
  return order;
}

// TVM's _schedule_conv_NCHWc on `s`: t.output is the stage the convolution is computed in (the
// convolution itself, the NCHW unpack, or a 5-D injective epilogue of the blocked result).
void schedule_nchwc_into(te::Schedule& s, const autotune::ConfigEntity& cfg, const Conv2dNCHWc& t) {
  int64_t oc_bn = cfg.split("tile_oc").size.back();
  bool one_by_one = cfg.has("tile_oh");
  int64_t ow_factor = cfg.split("tile_ow").size.back();
  int64_t oh_factor = one_by_one ? cfg.knob_int("tile_oh") : 1;
  // Output-channel chunks per register tile (conv2d_nchwc_oc_group; 1 without the knob).
  const int64_t oc_group = cfg.has("tile_oc_group") ? cfg.knob_int("tile_oc_group") : 1;
  // Splits a stage's output-channel-chunk axis by oc_group: the outer part (the task's) and the
  // inner one (undefined for 1).
  auto group_chunks = [&](te::Stage& st, IterVar occ) -> std::pair<IterVar, IterVar> {
    if (oc_group == 1) return {occ, IterVar()};
    return st.split(occ, I(oc_group));
  };

  // The blocked convolution C, its accumulator CC (a cache of C) and the unpacked output O.
  // With blocked input and output (conv2d_nchwc_blocked) C is the output itself.
  const NCHWcLoopOrder order = loop_order(t);
  const bool out5 = t.output.ndim() == 5, c_is_out = t.output.op().same_as(t.conv.op());
  // Row blocks (conv2d_nchwc_row_block) for kRowsOuter on a blocked output.
  int64_t row_block = 0;
  if (order == NCHWcLoopOrder::kRowsOuter && !one_by_one && (c_is_out || out5)) {
    const std::vector<int64_t> k = nn::const_shape(t.kernel_vec), out = nn::const_shape(t.conv);
    row_block = conv2d_nchwc_row_block(k[2] * k[3], k[1], out[2],
                                       out[0] * ((out[1] + oc_group - 1) / oc_group),
                                       runtime::configured_thread_count());
  }
  // Reduction-ordered tasks split into row blocks where the chunks alone leave the threads
  // uneven shares (conv2d_nchwc_balance_parts); the blocks of a chunk run back to back.
  bool balance_blocks = false;
  if (order == NCHWcLoopOrder::kReductionOuter && (c_is_out || out5)) {
    const std::vector<int64_t> out = nn::const_shape(t.conv);
    const int64_t parts = conv2d_nchwc_balance_parts(out[0] * ((out[1] + oc_group - 1) / oc_group),
                                                     out[2], runtime::configured_thread_count());
    if (parts > 1) {
      row_block = out[2] / parts;
      balance_blocks = true;
    }
  }
  // A padded input of 4 MiB or more (twice a core's L2 here; VGG-16's 224x224 and 112x112
  // layers) is padded per task instead of in one copy before the convolution: each row block pads
  // the rows it reads, one input-channel chunk at a time, while they are in L1/L2, instead of
  // writing and re-reading the whole padded input through L3 or memory (VGG-16's 224x224 64->64
  // layer alone 14.2-15.0 -> 13.4 ms, in the network 14.6 -> 14.1; at ResNet-50's 56x56, where
  // the copy stays in cache, the network was level).
  const bool padded = !t.data_pad.same_as(t.data_vec);
  // A grouped conv's tasks (row blocks, or whole chunks in the reduction order) read only their
  // group's input chunks. Each pads what it reads, right before the multiply-adds, where the one
  // copy costs most against the layer: with stride 2 or more (a quarter of the outputs per input
  // byte) and on maps of at most 7 rows (the copy's own parallel pass is a few per cent of the
  // layer). Stride-1 layers on 14x14 to 56x56 maps measured level to 3 % slower and keep the copy.
  // RegNetX-3.2GF (2-core Zen 4, fastest of 3-4 processes' per-call medians): 56x56 -> 28x28
  // 718 -> 633 us, 28x28 -> 14x14 408 -> 371, 14x14 -> 7x7 265 -> 256, 7x7 230 -> 221;
  // ResNeXt-50's 7x7 168 -> 150; RegNetX-16GF's 56x56 -> 28x28 4641 -> 4508.
  const std::vector<int64_t> out_shape = nn::const_shape(t.conv);
  const bool grouped = nn::const_shape(t.kernel_vec)[1] < nn::const_shape(t.data_pad)[1];
  const bool strided = nn::const_shape(t.data_pad)[2] >= 2 * out_shape[2];
  const bool pad_grouped_per_task =
      grouped && !one_by_one && (c_is_out || out5) &&
      (row_block > 0 || order == NCHWcLoopOrder::kReductionOuter) &&
      (strided || out_shape[2] <= 7);
  const bool pad_per_task =
      padded && ((row_block > 0 && bytes(t.data_pad) >= (int64_t{4} << 20)) || pad_grouped_per_task);
  // A strided conv whose tasks (row by row) each read one input-channel chunk (a grouped conv
  // with a chunk per group: RegNet's and ResNeXt's 16- and 32-channel groups) pads, per task, the
  // kernel rows of its output row, one chunk, where the padded input is 1 MiB or more (about a
  // core's L2). The copy then goes from L2 to L1 right before the multiply-adds read it, instead
  // of a pass over the whole input before the convolution; with stride 2 a task pads 1.5 times
  // the rows it owns. A 128-channel 56x56 -> 28x28 stride-2 layer of 16-channel groups (1.7 MB
  // padded) 383-410 -> 213 us per call (median of 600 calls), 64 channels 112x112 -> 56x56
  // 779 -> 435 us; in RegNetX-800MF its 112x112 layer 546 -> 435 us (2-core Zen 4). Stride 1
  // (three times the rows per task) measured level at 56x56 and stays one copy.
  const std::vector<int64_t> pad_shape = nn::const_shape(t.data_pad);
  const bool pad_per_row = padded && !pad_per_task && row_block == 0 && !one_by_one &&
                           order == NCHWcLoopOrder::kRowsOuter &&
                           nn::const_shape(t.kernel_vec)[1] == 1 &&
                           pad_shape[2] >= 2 * nn::const_shape(t.conv)[2] &&
                           bytes(t.data_pad) >= (int64_t{1} << 20);

  // Padding: parallel over (n, c chunk, h), the channel block vectorized; packing stages (when the
  // data and kernel are not given blocked) as the standalone transforms.
  if (padded) {
    s[t.data_pad].vectorize(t.data_pad.op().axis()[4]);
    if (!pad_per_task && !pad_per_row) schedule_pack_data(s, t.data_pad);
  }
  if (t.data_vec.op().op_type() == te::OpType::Compute) schedule_pack_data(s, t.data_vec);
  if (t.kernel_vec.op().op_type() == te::OpType::Compute)
    schedule_pack_kernel(s, t.kernel_vec, oc_bn);

  const bool row_first = order == NCHWcLoopOrder::kRowsOuter;
  // The parallel loop fuses (batch, oc chunk, rows) in this order, or (batch, rows, oc chunk).
  auto par_order = [&](IterVar n, IterVar occ, IterVar rows) {
    return row_first ? std::vector<IterVar>{n, rows, occ} : std::vector<IterVar>{n, occ, rows};
  };
  te::Tensor C = t.conv, O = t.output;
  te::Tensor CC = s.cache_write(C, "global");
  te::Stage sc = s[C], scc = s[CC];
  auto cax = C.op().axis();  // batch, oc_chunk, oh, ow, oc_block
  auto ccax = CC.op().axis();
  auto rax = CC.op().reduce_axis();  // ic, kh, kw
  // The padding rows and columns an atrous conv skips (blocked_conv's reduction condition): their
  // guards move out of the inner loops of the kernel-row loop.
  if (auto* red = C.op().as<te::ComputeOpNode>()->body[0].as<ir::ReduceNode>();
      red && red->condition.defined() && !ir::is_one(red->condition))
    scc.pragma(rax[1], "hoist_if_then_else");
  int64_t ic_bn = cfg.split("tile_ic").size.back();
  // A reduction over the real channels of zero-padded blocks (blocked_conv's data_channels) is
  // split by its reduction_block.
  int64_t ic_chunks = nn::const_shape(t.kernel_vec)[1];
  if (const int64_t* ext = ir::as_const_int(rax[0]->dom.extent())) {
    ic_bn = reduction_block(*ext, ic_bn);
    ic_chunks = *ext / ic_bn;
  }
  // The NCHW output O: parallel over (batch, oc chunk, oh [outer]), C computed there, the oc block
  // vectorized (TVM's out_ndim == 4 case; the 1x1 schedule also splits oh by tile_oh).
  auto schedule_unpack = [&](bool split_oh) {
    te::Stage so = s[O];
    auto oax = O.op().axis();  // batch, oc, oh, ow
    auto [o_c, o_ocb] = so.split(oax[1], I(oc_bn));
    auto [o_occ, o_occi] = group_chunks(so, o_c);
    IterVar o_oh = oax[2], o_ohi;
    if (split_oh) std::tie(o_oh, o_ohi) = so.split(oax[2], I(oh_factor));
    auto [o_owo, o_owi] = so.split(oax[3], I(ow_factor));
    std::vector<IterVar> order = par_order(oax[0], o_occ, o_oh);
    if (o_occi.defined()) order.push_back(o_occi);
    order.push_back(o_owo);
    if (split_oh) order.push_back(o_ohi);
    order.insert(order.end(), {o_owi, o_ocb});
    so.reorder(order);
    IterVar par = so.fuse(par_order(oax[0], o_occ, o_oh));
    sc.compute_at(so, par);
    so.vectorize(o_ocb);
    so.parallel(par);
  };
  // A 5-D output (NCHW[oc_bn]c epilogue): TVM's out_ndim == 5 case.
  auto schedule_out5 = [&](bool split_oh) {
    te::Stage so = s[O];
    auto oax = O.op().axis();  // batch, oc_chunk, oh, ow, oc_block
    auto [o_occ, o_occi] = group_chunks(so, oax[1]);
    IterVar o_oh = oax[2], o_ohi;
    if (split_oh) std::tie(o_oh, o_ohi) = so.split(oax[2], I(oh_factor));
    auto [o_owo, o_owi] = so.split(oax[3], I(ow_factor));
    std::vector<IterVar> order = par_order(oax[0], o_occ, o_oh);
    if (o_occi.defined()) order.push_back(o_occi);
    order.push_back(o_owo);
    if (split_oh) order.push_back(o_ohi);
    order.insert(order.end(), {o_owi, oax[4]});
    so.reorder(order);
    IterVar par = so.fuse(par_order(oax[0], o_occ, o_oh));
    sc.compute_at(so, par);
    so.vectorize(oax[4]);
    so.parallel(par);
  };
  if ((order == NCHWcLoopOrder::kReductionOuter || row_block > 0) && (c_is_out || out5)) {
    // The whole (batch, oc chunk) tile per task, or a block of row_block rows of it, the
    // input-channel chunks outermost: each chunk of weights (ic_bn x kh x kw x oc_bn) is loaded
    // once and used for every output row of the task while it is in L1, and the task's
    // accumulators stay in L1/L2 between chunks.
    IterVar par;
    if (row_block > 0) {
      // Tasks (batch, row block, oc chunk): consecutive tasks share their input rows. Blocks for
      // balance: (batch, oc chunk, row block), consecutive tasks share their weights.
      te::Stage so = s[O];
      auto oax = O.op().axis();  // batch, oc_chunk, oh, ow, oc_block
      auto [o_occ, o_occi] = group_chunks(so, oax[1]);
      auto [o_rb, o_ohi] = so.split(oax[2], I(row_block));
      const std::vector<IterVar> tasks = balance_blocks ? std::vector<IterVar>{oax[0], o_occ, o_rb}
                                                        : std::vector<IterVar>{oax[0], o_rb, o_occ};
      std::vector<IterVar> order = tasks;
      if (o_occi.defined()) order.push_back(o_occi);
      order.insert(order.end(), {o_ohi, oax[3], oax[4]});
      so.reorder(order);
      par = so.fuse(tasks);
      so.vectorize(oax[4]);
      so.parallel(par);
      if (c_is_out) {
        scc.compute_at(so, par);
      } else {
        sc.compute_at(so, par);
        sc.vectorize(cax[4]);
        scc.compute_at(sc, oc_group > 1 ? cax[0] : cax[1]);
      }
    } else if (c_is_out) {
      auto [occ, occi] = group_chunks(sc, cax[1]);
      if (occi.defined()) sc.reorder({cax[0], occ, occi, cax[2], cax[3], cax[4]});
      par = sc.fuse(std::vector<IterVar>{cax[0], occ});
      sc.parallel(par);
      sc.vectorize(cax[4]);
      scc.compute_at(sc, par);
    } else {
      te::Stage so = s[O];
      auto oax = O.op().axis();
      auto [occ, occi] = group_chunks(so, oax[1]);
      if (occi.defined()) so.reorder({oax[0], occ, occi, oax[2], oax[3], oax[4]});
      par = so.fuse(std::vector<IterVar>{oax[0], occ});
      so.vectorize(oax[4]);
      so.parallel(par);
      sc.compute_at(so, par);
      sc.vectorize(cax[4]);
      scc.compute_at(sc, oc_group > 1 ? cax[0] : cax[1]);
    }
    auto [cc_owc, cc_owb] = scc.split(ccax[3], I(ow_factor));
    auto [ic_chunk, ic_block] = scc.split(rax[0], I(ic_bn));
    const int64_t per_pass = order == NCHWcLoopOrder::kReductionOuter && one_by_one
                                 ? conv2d_nchwc_ic_chunks_per_pass(ic_chunks, oc_group, ic_bn)
                                 : 1;
    if (per_pass > 1) {
      // Several input-channel chunks per pass over the tile's accumulators (the chunks of a pass
      // innermost but for the register tile).
      auto [ic_outer, ic_inner] = scc.split(ic_chunk, I(per_pass));
      scc.reorder({ccax[0], ic_outer, ccax[2], cc_owc, ic_inner, rax[1], rax[2], ic_block, cc_owb,
                   ccax[1], ccax[4]});
      scc.unroll(ccax[1]);
      ic_chunk = ic_outer;
    } else if (!one_by_one && cfg.knob_int("unroll_kw") != 0) {
      scc.reorder(
          {ccax[0], ccax[1], ic_chunk, ccax[2], cc_owc, rax[1], ic_block, rax[2], cc_owb, ccax[4]});
      scc.unroll(rax[2]);
    } else if (oc_group > 1) {
      // The group's chunks innermost but for the lanes: one input value, oc_group weight vectors.
      scc.reorder(
          {ccax[0], ic_chunk, ccax[2], cc_owc, rax[1], rax[2], ic_block, cc_owb, ccax[1], ccax[4]});
      scc.unroll(ccax[1]);
    } else if (const int64_t rows =
                   conv2d_nchwc_tile_rows(register_columns_for_block(oc_bn), ow_factor,
                                          balance_blocks ? row_block : out_shape[2], grouped);
               order == NCHWcLoopOrder::kReductionOuter && rows > 1) {
      // Several output rows per register tile (conv2d_nchwc_tile_rows).
      auto [oh_tile, oh_row] = scc.split(ccax[2], I(rows));
      scc.reorder({ccax[0], ccax[1], ic_chunk, oh_tile, cc_owc, rax[1], rax[2], ic_block, oh_row,
                   cc_owb, ccax[4]});
      scc.unroll(oh_row);
      // The tile loop stays a loop: unrolled (its trip count is small), LLVM would keep every
      // tile's accumulators live at once and spill them (partition_guarded_tiles).
      scc.pragma(oh_tile, "unroll_disable");
    } else {
      scc.reorder(
          {ccax[0], ccax[1], ic_chunk, ccax[2], cc_owc, rax[1], rax[2], ic_block, cc_owb, ccax[4]});
    }
    scc.vectorize(ccax[4]);
    scc.unroll(cc_owb);
    scc.pragma(cc_owc, "unroll_disable");
    if (pad_per_task) s[t.data_pad].compute_at(scc, ic_chunk);
    const std::vector<int64_t> out = nn::const_shape(C);
    if (order == NCHWcLoopOrder::kReductionOuter &&
        conv2d_nchwc_prefetch_weights(bytes(t.kernel_vec), out[2] * out[3], one_by_one,
                                      host_cpu_is_amd()))
      scc.prefetch(t.kernel_vec, ic_chunk, I(1));
    return;
  }
  // A direct conv with a short reduction (at most 256 products per output: the stems, 3 input
  // channels by 3x3 or 7x7) and a blocked epilogue computes the epilogue at the register tile,
  // as the 1x1 layers below do: per output row, the accumulators went to a row buffer that the
  // epilogue read back, a round trip through L1 per output vector against 27-147 multiply-adds.
  // VGG-16's 3 -> 64 at 224x224 1209 -> 790 us, ResNet-50's 7x7 stem 797 -> 727, MNASNet's
  // 132 -> 104 (2-core Xeon, medians of 3 processes, 2026-12-07). Longer reductions measured
  // level, and keep TVM's row schedule.
  // The epilogue at the register tile (the 1x1 case below says why): O's tasks are (batch, oc
  // chunk, `rows` output rows), its tile `rows` x ow_factor columns (x the group's chunks); the
  // convolution and its accumulators are computed at the tile, unrolled. Returns the
  // accumulators' input-channel split; the caller orders the reduction around the tile.
  auto epilogue_at_tile = [&](int64_t rows) -> std::pair<IterVar, IterVar> {
    te::Stage so = s[O];
    auto oax = O.op().axis();  // batch, oc_chunk, oh, ow, oc_block
    auto [o_occ, o_occi] = group_chunks(so, oax[1]);
    auto [o_oho, o_ohi] = so.split(oax[2], I(rows));
    auto [o_owo, o_owi] = so.split(oax[3], I(ow_factor));
    std::vector<IterVar> order = par_order(oax[0], o_occ, o_oho);
    order.push_back(o_owo);
    if (o_occi.defined()) order.push_back(o_occi);
    order.insert(order.end(), {o_ohi, o_owi, oax[4]});
    so.reorder(order);
    IterVar par = so.fuse(par_order(oax[0], o_occ, o_oho));
    so.vectorize(oax[4]);
    so.parallel(par);
    if (o_occi.defined()) so.unroll(o_occi);
    so.unroll(o_ohi);
    so.unroll(o_owi);
    sc.compute_at(so, o_owo);
    sc.vectorize(cax[4]);
    sc.unroll(cax[1]);
    sc.unroll(cax[2]);
    sc.unroll(cax[3]);
    scc.compute_at(so, o_owo);
    scc.vectorize(ccax[4]);
    scc.unroll(ccax[1]);
    scc.unroll(ccax[2]);
    scc.unroll(ccax[3]);
    return scc.split(rax[0], I(ic_bn));
  };
  // A direct conv with a short reduction (at most 256 products per output: the stems, 3 input
  // channels by 3x3 or 7x7) and a blocked epilogue computes the epilogue at the register tile,
  // as the 1x1 layers do: per output row, the accumulators went to a row buffer that the
  // epilogue read back, a round trip through L1 per output vector against 27-147 multiply-adds.
  // VGG-16's 3 -> 64 at 224x224 1209 -> 790 us, ResNet-50's 7x7 stem 797 -> 727, MNASNet's
  // 132 -> 104 (2-core Xeon, medians of 3 processes, 2026-12-07). Longer reductions measured
  // level, and keep TVM's row schedule.
  const std::vector<int64_t> kshape = nn::const_shape(t.kernel_vec);
  if (!one_by_one && !c_is_out && out5 && oc_group == 1 && !pad_per_row &&
      kshape[1] * kshape[2] * kshape[3] * kshape[4] <= 256 &&
      nn::const_shape(t.conv)[3] % ow_factor == 0) {
    auto [ic_chunk, ic_block] = epilogue_at_tile(1);
    if (cfg.knob_int("unroll_kw") != 0) {
      scc.reorder(
          {ccax[0], ccax[1], ccax[2], ic_chunk, rax[1], ic_block, rax[2], ccax[3], ccax[4]});
      scc.unroll(rax[2]);
    } else {
      scc.reorder(
          {ccax[0], ccax[1], ccax[2], ic_chunk, rax[1], rax[2], ic_block, ccax[3], ccax[4]});
    }
    return;
  }
  if (!one_by_one) {
    // With chunk groups (a strided grouped conv's fallback) the group's chunks share the register
    // tile of each column block: the accumulator is computed at the column block, outside them.
    auto [occ, occi] = group_chunks(sc, cax[1]);
    auto [ow_chunk, ow_block] = sc.split(cax[3], I(ow_factor));
    std::vector<IterVar> order = par_order(cax[0], occ, cax[2]);
    order.push_back(ow_chunk);
    if (occi.defined()) order.push_back(occi);
    order.insert(order.end(), {ow_block, cax[4]});
    sc.reorder(order);
    IterVar c_par = sc.fuse(par_order(cax[0], occ, cax[2]));
    if (c_is_out) sc.parallel(c_par);
    sc.vectorize(cax[4]);
    scc.compute_at(sc, ow_chunk);
    if (pad_per_row) s[t.data_pad].compute_at(sc, c_par);
    auto [cc_owc, cc_owb] = scc.split(ccax[3], I(ow_factor));
    auto [ic_chunk, ic_block] = scc.split(rax[0], I(ic_bn));
    if (oc_group > 1) {
      scc.reorder(
          {ccax[0], ccax[2], cc_owc, ic_chunk, rax[1], rax[2], ic_block, cc_owb, ccax[1], ccax[4]});
      scc.unroll(ccax[1]);
    } else if (cfg.knob_int("unroll_kw") != 0) {
      scc.reorder(
          {ccax[0], ccax[1], ccax[2], cc_owc, ic_chunk, rax[1], ic_block, rax[2], cc_owb, ccax[4]});
      scc.unroll(rax[2]);
    } else {
      scc.reorder(
          {ccax[0], ccax[1], ccax[2], cc_owc, ic_chunk, rax[1], rax[2], ic_block, cc_owb, ccax[4]});
    }
    scc.vectorize(ccax[4]);
    scc.unroll(cc_owb);
    scc.pragma(cc_owc, "unroll_disable");
    if (!c_is_out) out5 ? schedule_out5(false) : schedule_unpack(false);
  } else {
    // A 1x1 with a blocked epilogue (bias, relu, a residual add) computes the accumulators, the
    // convolution and the epilogue at the register tile: the tile's buffers are a few vectors
    // that LLVM keeps in registers, and each output is stored once, by the epilogue. Computed at
    // the parallel row instead (TVM's schedule), the accumulators went to a row buffer, the
    // convolution copied them to a second one and the epilogue read that: two round trips
    // through L1 per output, which a short reduction does not hide. MNASNet's 16 -> 48 at 112x112
    // 112 -> 67 us, ResNet-50's 56x56 64 -> 256 with its residual 425 -> 377, ResNeXt-50's
    // 56x56 layers -5 to -11 %, ResNet-50's kernel sum -2.6 % (per-call medians of 3 alternating
    // processes, 2-core Xeon, 2026-12-07; docs/PERFORMANCE.md). Not for a ragged chunk group
    // (conv2d_nchwc_oc_group): its guard inside the tile was 1.56x slower (RegNetX-400MF's 14x14
    // 160 -> 400); that keeps the row buffers.
    if (!c_is_out && out5 && nn::const_shape(t.conv)[1] % oc_group == 0) {
      auto [ic_chunk, ic_block] = epilogue_at_tile(oh_factor);
      scc.reorder(
          {ccax[0], ic_chunk, ic_block, ccax[2], ccax[3], ccax[1], ccax[4], rax[1], rax[2]});
      return;
    }
    auto [oh_outer, oh_inner] = sc.split(cax[2], I(oh_factor));
    auto [ow_outer, ow_inner] = sc.split(cax[3], I(ow_factor));
    auto [occ, occi] = group_chunks(sc, cax[1]);
    std::vector<IterVar> order = par_order(cax[0], occ, oh_outer);
    if (occi.defined()) order.push_back(occi);
    order.insert(order.end(), {ow_outer, oh_inner, ow_inner, cax[4]});
    sc.reorder(order);
    sc.vectorize(cax[4]);
    IterVar c_par = sc.fuse(par_order(cax[0], occ, oh_outer));
    scc.compute_at(sc, c_par);
    if (c_is_out) sc.parallel(c_par);
    auto [ic_chunk, ic_block] = scc.split(rax[0], I(ic_bn));
    auto [cc_oho, cc_ohi] = scc.split(ccax[2], I(oh_factor));
    auto [cc_owo, cc_owi] = scc.split(ccax[3], I(ow_factor));
    if (oc_group > 1) {
      scc.reorder({ccax[0], cc_oho, cc_owo, ic_chunk, ic_block, cc_ohi, cc_owi, ccax[1], ccax[4],
                   rax[1], rax[2]});
      scc.unroll(ccax[1]);
    } else {
      scc.reorder({ccax[0], ccax[1], cc_oho, cc_owo, ic_chunk, ic_block, cc_ohi, cc_owi, ccax[4],
                   rax[1], rax[2]});
    }
    scc.vectorize(ccax[4]);
    scc.unroll(cc_owi);
    scc.unroll(cc_ohi);
    scc.pragma(cc_oho, "unroll_disable");
    scc.pragma(cc_owo, "unroll_disable");
    if (!c_is_out) out5 ? schedule_out5(true) : schedule_unpack(true);
  }
}

}  // namespace

te::Schedule schedule_conv2d_nchwc(const autotune::ConfigEntity& cfg, const Conv2dNCHWc& t) {
  te::Schedule s = te::create_schedule({t.output.op()});
  schedule_nchwc_into(s, cfg, t);
  return s;
}

te::Schedule schedule_conv2d_nchwc_fused(const autotune::ConfigEntity& cfg,
                                         const std::vector<te::Tensor>& outs) {
  MINITVM_USER_CHECK(outs.size() == 1)
      << "schedule_conv2d_nchwc_fused: one output expected, got " << outs.size();
  te::Schedule s = te::create_schedule({outs[0].op()});
  te::Operation conv = detail::inline_epilogue(s, outs[0].op(), "conv2d_NCHWc");
  Conv2dNCHWc t;
  t.conv = conv.output(0);
  t.data_pad = conv.input_tensors().at(0);
  t.kernel_vec = conv.input_tensors().at(1);
  t.data_vec = t.data_pad.op()->tag.find("pad") != std::string::npos
                   ? t.data_pad.op().input_tensors().at(0)
                   : t.data_pad;
  t.output = outs[0];
  schedule_nchwc_into(s, cfg, t);
  return s;
}

namespace {

// The tuner template: args = the workload's tail (data tensor, kernel tensor, strides, padding,
// dilation, layout, out_layout, out_dtype), or the conv2d_nchw form without the two layouts
// (data, kernel, strides, padding, dilation, out_dtype), which network descriptions use.
autotune::TemplateResult nchwc_template(autotune::ConfigEntity& cfg, const Json& raw) {
  MINITVM_USER_CHECK(raw.is_array() && (raw.size() == 8 || raw.size() == 6))
      << "conv2d_NCHWc.x86 takes (data, kernel, strides, padding, dilation, layout, out_layout, "
         "out_dtype) "
      << "or (data, kernel, strides, padding, dilation, out_dtype)";
  Json args = raw;
  if (args.size() == 6)
    args = Json::array({raw[0], raw[1], raw[2], raw[3], raw[4], "NCHW", "NCHW", raw[5]});
  auto shape_of = [](const Json& t, const char* what) {
    MINITVM_USER_CHECK(t.is_array() && t.size() >= 3 && t[0] == "TENSOR" && t[1].is_array())
        << "conv2d_NCHWc.x86: " << what << " must be [\"TENSOR\", shape, dtype]";
    return t[1].get<std::vector<int64_t>>();
  };
  std::vector<int64_t> ds = shape_of(args[0], "data"), ks = shape_of(args[1], "kernel");
  nn::Conv2dAttrs a;
  a.stride = args[2].get<std::vector<int64_t>>();
  a.padding = args[3].get<std::vector<int64_t>>();
  a.dilation = args[4].get<std::vector<int64_t>>();
  MINITVM_USER_CHECK(args[5] == "NCHW" && args[6] == "NCHW")
      << "conv2d_NCHWc.x86: only NCHW layouts are supported";
  MINITVM_USER_CHECK(args[7] == "float32") << "conv2d_NCHWc.x86: only float32 is supported";
  define_conv2d_nchwc_space(cfg, ds, ks, a);
  if (cfg.is_fallback()) conv2d_nchwc_fallback(cfg, ds, ks, a);
  // What a network runs (relay's alter_op_layout keeps activations blocked and packs weights at
  // build time), and what TVM's x86 task times: the blocked convolution alone, data
  // NCHW[ic_bn]c, kernel OIHW[ic_bn]i[oc_bn]o, output NCHW[oc_bn]c. Timing the packing of data and
  // weights with it would favour configs whose packing is cheap over those whose kernel is fast.
  const int64_t ic_bn = cfg.split("tile_ic").size.back(), oc_bn = cfg.split("tile_oc").size.back();
  MINITVM_USER_CHECK(ic_bn >= 1 && ds[1] % ic_bn == 0 && oc_bn >= 1 && ks[0] % oc_bn == 0)
      << "conv2d_NCHWc.x86: channel blocks " << ic_bn << "/" << oc_bn << " do not divide " << ds[1]
      << "/" << ks[0];
  te::Tensor data =
      te::placeholder(nn::detail::to_exprs({ds[0], ds[1] / ic_bn, ds[2], ds[3], ic_bn}),
                      DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(
      nn::detail::to_exprs({ks[0] / oc_bn, ks[1] / ic_bn, ks[2], ks[3], ic_bn, oc_bn}),
      DataType::Float(32), "kernel");
  Conv2dNCHWc t = conv2d_nchwc_blocked(data, kernel, a);
  autotune::TemplateResult r;
  r.schedule = schedule_conv2d_nchwc_fused(cfg, {t.output});
  r.args = {data, kernel, t.output};
  Geom g = geometry(ds, ks, a);
  r.flop = 2.0 * g.n * g.co * g.oh * g.ow * g.ci * g.kh * g.kw;
  return r;
}

const bool registered = autotune::register_template("conv2d_NCHWc.x86", nchwc_template);

}  // namespace

}  // namespace minitvm::topi::cpu
