// CPU schedule template of the pool computes (an AutoTVM template) and build_pool.
//
// Knobs (defined in this order, so "tile_inner" is the least significant digit of the flat index):
//   tile_inner  split of the innermost output axis (W for channels-first, C for channels-last)
//   vec         1: vectorize the inner part of that split, reduction axes moved outside it;
//               0: scalar loops with the window (reduction) innermost, so that each output is
//               reduced in registers and LLVM's loop vectorizer vectorizes the output loop
//               (strided window reads become wide loads + shuffles)
//   fuse_level  how many outer axes are fused into the parallel loop (1..outer axes)
//   unroll_win  unroll the window (reduction) loops (0/1)
//   prefetch    forward only: at each iteration of the innermost outer loop (an output row for
//               channels-first), prefetch the input that iteration + prefetch reads (0 = none;
//               Stage::prefetch). Records without this knob (tuned before it existed) apply with 0.
// Workload: (task name, ("TENSOR", batched input shape, dtype), mode, kernel, stride, pad_begin,
// pad_end, dilation, output lengths, rule string) — see docs/POOLING.md "Kernels".
#include <sstream>

#include "minitvm/autotune/target.h"
#include "minitvm/codegen/build.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/pool.h"
#include "pool_util.h"
#include "topi/schedule_util.h"

namespace minitvm::topi {

using namespace detail;
using autotune::Json;

namespace {

int64_t inner_length(const PoolPlan& plan, PoolDirection dir) {
  bool fwd = dir == PoolDirection::Forward;
  if (plan.layout == PoolLayout::ChannelsLast) return plan.channels;
  const PoolAxis& ax = plan.axes.back();
  return fwd ? ax.out : ax.in;
}

// The planes of a channels-first plan (batch x channels), what its parallel loops split.
int64_t num_planes(const PoolPlan& plan) {
  return (plan.batched ? plan.batch : 1) *
         (plan.layout == PoolLayout::ChannelsFirst ? plan.channels : 1);
}

int outer_axes(const PoolPlan& plan) {
  return 1 + plan.spatial_rank();
}  // all but the innermost

const char* mode_name(PoolMode m) {
  return m == PoolMode::Max ? "max" : m == PoolMode::Avg ? "avg" : "lp";
}

std::string rule_string(const PoolPlan& plan) {
  std::ostringstream os;
  os << "div" << static_cast<int>(plan.divisor_rule);
  if (plan.divisor_rule == DivisorRule::Override) os << "=" << plan.divisor_override;
  if (plan.mode == PoolMode::Lp)
    os << ",lp" << static_cast<int>(plan.lp_rule) << "=" << plan.lp_norm;
  if (plan.mode == PoolMode::Max) os << ",idx" << static_cast<int>(plan.index_base);
  return os.str();
}

}  // namespace

std::string pool_task_name(const PoolPlan& plan, PoolDirection dir) {
  std::string lay = layout_name(plan.layout, plan.spatial_rank());
  for (auto& ch : lay) ch = static_cast<char>(std::tolower(ch));
  return "pool" + std::to_string(plan.spatial_rank()) + "d_" + lay +
         (dir == PoolDirection::Forward ? "_fwd" : "_bwd") + ".llvm";
}

Json pool_workload(const PoolPlan& plan, PoolDirection dir) {
  Json args = Json::array();
  Json shape = Json::array();
  for (auto v : plan.batched_input_shape()) shape.push_back(v);
  args.push_back(Json::array({"TENSOR", shape, plan.dtype.str()}));
  args.push_back(mode_name(plan.mode));
  Json k = Json::array(), s = Json::array(), pb = Json::array(), pe = Json::array(),
       d = Json::array(), o = Json::array();
  for (auto& ax : plan.axes) {
    k.push_back(ax.adaptive ? 0 : ax.kernel);
    s.push_back(ax.adaptive ? 0 : ax.stride);
    pb.push_back(ax.pad_begin);
    pe.push_back(ax.pad_end);
    d.push_back(ax.dilation);
    o.push_back(ax.out);
  }
  for (auto* j : {&k, &s, &pb, &pe, &d, &o}) args.push_back(*j);
  args.push_back(rule_string(plan));
  return autotune::workload_v02(pool_task_name(plan, dir), args);
}

namespace {

// Channels-first backward of disjoint windows whose first window starts on a stride boundary:
// an inner tile of whole windows (a multiple of the stride) reads grad_output/indices at
// floordiv(w, stride) as repeated lanes of dense loads. The tile: the windows of 16 lanes (at
// most 64 lanes), no more than the row needs; the row's tail runs masked.
int64_t bwd_window_tile(const PoolPlan& plan, PoolDirection dir) {
  if (dir != PoolDirection::Backward || plan.layout != PoolLayout::ChannelsFirst ||
      !pool_windows_disjoint(plan))
    return 0;
  const PoolAxis& ax = plan.axes.back();
  int64_t s = ax.stride;
  if (s < 1 || s > 64 || ax.pad_begin % s != 0) return 0;
  int64_t windows = std::min<int64_t>({16, 64 / s, (ax.in + s - 1) / s});
  return s * std::max<int64_t>(1, windows);
}

// The fallback's "stream" (backward): a disjoint-window backward whose planes are whole 64-byte
// lines (each task's plane then starts aligned in an aligned buffer) and whose grad_input does not
// stay in cache (ordinary stores read every line for ownership before writing it back). The plane
// is computed into a buffer that stays in L1/L2, then copied out with stores that bypass the
// caches. On Intel's cores that is a grad_input larger than the L2s of the threads that write it:
// on the 2-core Xeon (2 MiB L2 per core) the 12.8 MB seed shapes 0.56-0.87 -> 0.39-0.44 ms per
// call after the other kernels (55-61 -> 72-97 % of copy), 0.46-0.50 -> 0.36-0.39 back to back,
// 32x64x28x28 (6.4 MB) 0.215 -> 0.18 back to back, while 32x32x28x28 (3.2 MB, in the L2s) ran
// 0.06 -> 0.095 ms (2026-12-07; docs/PERFORMANCE.md). On AMD's cores, whose L3 (32 MiB per core
// complex on Zen 3-5) takes the lines the L2s evict, it is a grad_input of 16 MiB or more where
// the backward's bytes (grad_output, indices, grad_input) do not all fit in the L3, which keeps
// them from one call to the next with ordinary stores: 32x256x28x28 with one-byte taps (29 MB)
// ran 1.09-1.39x oneDNN without streaming and 0.73-1.27x with it on Zen 4, where with int64
// indices (33.7 MB, over the 32 MiB) streaming stayed ahead.
bool streams_grad_input(const PoolPlan& plan, PoolDirection dir, int64_t in_bytes) {
  if (bwd_window_tile(plan, dir) == 0) return false;
  int64_t plane = plan.dtype.bytes();
  for (const PoolAxis& ax : plan.axes) plane *= ax.in;
  if (plane % 64 != 0) return false;
  if (!cpu::host_cpu_is_amd())
    return in_bytes > runtime::configured_thread_count() * cpu::l2_cache_bytes();
  if (in_bytes < (int64_t{16} << 20)) return false;
  int64_t outputs = 1;
  for (int64_t d : plan.batched_output_shape()) outputs *= d;
  int64_t per_output = plan.dtype.bytes();
  if (plan.mode == PoolMode::Max) per_output += pool_index_dtype(plan).bytes();
  const int64_t llc = cpu::last_level_cache_bytes();
  return llc <= 0 || in_bytes + outputs * per_output > llc;
}

// Whether the forward can stage its window rows (knob "window_rows"): a value-only max over a
// channels-first input of two or three spatial axes whose windows never leave the input (no tap
// conditions), several taps per window row and more than one window row.
bool stages_window_rows(const PoolPlan& plan, PoolDirection dir) {
  if (dir != PoolDirection::Forward || plan.mode != PoolMode::Max ||
      plan.layout != PoolLayout::ChannelsFirst || plan.spatial_rank() < 2)
    return false;
  int64_t row_taps = 1;
  for (int a = 0; a < plan.spatial_rank(); ++a) {
    const PoolAxis& ax = plan.axes[a];
    if (ax.adaptive || needs_low_check(ax) || needs_high_check(ax) || ax.out == 0) return false;
    if (a + 1 < plan.spatial_rank()) row_taps *= ax.kernel;
  }
  return row_taps > 1 && plan.axes.back().kernel > 1 && plan.axes.back().stride <= 4;
}

}  // namespace

void define_pool_cpu_space(autotune::SpaceDefiner& cfg, const PoolPlan& plan, PoolDirection dir) {
  int64_t L = std::max<int64_t>(1, inner_length(plan, dir));
  autotune::SplitOptions so;
  so.num_outputs = 2;
  so.max_factor = 64;
  if (int64_t wt = bwd_window_tile(plan, dir)) {
    // the factors of L up to 64, then whole-window tiles that need not divide L (masked tail)
    so.policy = autotune::SplitPolicy::Candidate;
    for (int64_t f : autotune::get_factors(L))
      if (f <= 64) so.candidate.push_back({-1, f});
    for (int64_t t : {wt, wt / 2})
      if (t > 0 && t % plan.axes.back().stride == 0 && L % t != 0) so.candidate.push_back({-1, t});
  }
  cfg.define_split("tile_inner", L, so);
  cfg.define_knob("vec", {0, 1});
  std::vector<Json> levels;
  for (int i = 1; i <= outer_axes(plan); ++i) levels.push_back(i);
  cfg.define_knob("fuse_level", levels);
  cfg.define_knob("unroll_win", {0, 1});
  cfg.define_knob("prefetch", {0, 1, 2, 4});
  cfg.set_record_default("prefetch",
                         autotune::OtherOptionEntity{0});  // records tuned before the knob
  if (stages_window_rows(plan, dir)) {
    cfg.define_knob("window_rows", {0, 1});
    cfg.set_record_default("window_rows", autotune::OtherOptionEntity{0});
  }
  if (dir == PoolDirection::Backward) {
    cfg.define_knob("stream", {0, 1});
    cfg.set_record_default("stream", autotune::OtherOptionEntity{0});
  }
}

void pool_cpu_fallback(autotune::ConfigEntity& cfg, const PoolPlan& plan, PoolDirection dir) {
  define_pool_cpu_space(cfg, plan, dir);
  int64_t L = std::max<int64_t>(1, inner_length(plan, dir));
  auto largest_factor = [&](int64_t cap) {
    int64_t f = 1;
    for (int64_t x : autotune::get_factors(L))
      if (x <= cap) f = x;
    return f;
  };
  bool vec = false;
  int64_t f = 1;
  if (plan.layout == PoolLayout::ChannelsLast) {
    // Inner tile: the largest factor of C up to 32 (a few vectors).
    f = largest_factor(32);
    vec = true;
  } else if (int64_t wt = bwd_window_tile(plan, dir)) {
    // Whole windows per vector (see bwd_window_tile): dense stores, dense grad_output/index loads.
    f = wt;
    vec = true;
  } else if (dir == PoolDirection::Forward && plan.mode == PoolMode::Max) {
    // Max forward: the whole output row as one vector (up to 64 lanes) when no window of the row
    // leaves the input, window loops outside: each tap is a strided read of the row, one dense
    // load and a shuffle (stride <= 4). Otherwise a scalar loop with the window innermost, which
    // LLVM's loop vectorizer handles (it would gather when the row is short).
    const PoolAxis& ax = plan.axes.back();
    bool plain = !ax.adaptive && !needs_low_check(ax) && !needs_high_check(ax) && ax.stride <= 4;
    f = largest_factor(64);
    vec = plain && f >= 2;
    if (!vec) f = 1;
  }
  cfg.set("tile_inner", autotune::SplitEntity{{-1, f}});
  cfg.set("vec", autotune::OtherOptionEntity{vec && f > 1 ? 1 : 0});
  // Parallel tasks: whole planes (N*C fused) when there are enough of them; each task then runs
  // its rows with cheap index arithmetic. Otherwise fuse every outer axis.
  int level = outer_axes(plan);
  if (plan.layout == PoolLayout::ChannelsFirst && num_planes(plan) >= 64) level = 2;
  cfg.set("fuse_level", autotune::OtherOptionEntity{level});
  cfg.set("unroll_win", autotune::OtherOptionEntity{1});
  // Channels-first forward over inputs of 8 MiB and more (which mostly stream from memory) with
  // short input rows (at most 256 bytes, 4 cache lines): prefetch the input rows of the output row
  // four iterations ahead (1.3-2.7 KB). There the hardware prefetcher lags behind the unrolled
  // window loads, which touch the few cache lines of three input rows out of order; on longer rows
  // it keeps up, and on inputs that stay in cache the extra instructions cost a few percent. Two
  // rows ahead was as good on a Xeon whose memory answered sooner; four was 5-12 % faster on one
  // that answered later, with the window rows below staged or not (docs/PERFORMANCE.md).
  int64_t in_bytes = plan.dtype.bytes();
  for (int64_t d : plan.batched_input_shape()) in_bytes *= d;
  bool prefetch_rows = dir == PoolDirection::Forward && plan.layout == PoolLayout::ChannelsFirst &&
                       in_bytes >= (int64_t{8} << 20) &&
                       plan.axes.back().in * plan.dtype.bytes() <= 256;
  cfg.set("prefetch", autotune::OtherOptionEntity{prefetch_rows ? 4 : 0});
  // Staged window rows (knob "window_rows") where they fit in 8 vector registers: 28-wide
  // rows on AVX-512 (3 rows of 27 floats, 6 vectors) ran 3-6 % faster; 56-wide ones (12
  // vectors) between 4 % slower and 10 % faster, 112-wide ones (21) 1.4x slower, spilled
  // (docs/PERFORMANCE.md).
  if (cfg.has("window_rows")) {
    const PoolAxis& last = plan.axes.back();
    int64_t row_taps = 1;
    for (size_t a = 0; a + 1 < plan.axes.size(); ++a) row_taps *= plan.axes[a].kernel;
    const int64_t span_bytes =
        ((f - 1) * last.stride + last.effective_kernel()) * plan.dtype.bytes();
    const int64_t vector_bytes = cpu::fp32_lanes() * 4;
    const int64_t staged = row_taps * ((span_bytes + vector_bytes - 1) / vector_bytes);
    cfg.set("window_rows",
            autotune::OtherOptionEntity{vec && f > 1 && L % f == 0 && staged <= 8 ? 1 : 0});
  }
  if (dir == PoolDirection::Backward)
    cfg.set("stream", autotune::OtherOptionEntity{streams_grad_input(plan, dir, in_bytes) ? 1 : 0});
}

namespace {

// Whether a config vectorizes the output's inner tile (knob vec with a tile of several lanes).
bool vectorizes_tile(const autotune::ConfigEntity& cfg) {
  return cfg.has("vec") && cfg.knob_int("vec") != 0 && cfg.split("tile_inner").size.back() > 1;
}

// Tile a stage whose data axes are `axes` (layout order) and reduction axes `raxes`:
// inner axis split, outer axes fused to `fuse_level` and parallel, reductions just outside the
// vectorized inner loop. Returns the axis at which helper stages can be attached (the outer part
// of the inner split).
IterVar tile_stage(te::Stage st, const std::vector<IterVar>& axes,
                   const std::vector<IterVar>& raxes, const autotune::ConfigEntity& cfg,
                   bool parallel, const std::vector<te::Tensor>& prefetch = {},
                   int64_t row_group = 1) {
  int64_t factor = cfg.split("tile_inner").size.back();
  bool vec = cfg.knob_int("vec") != 0;
  int level = static_cast<int>(cfg.knob_int("fuse_level"));
  bool unroll = cfg.knob_int("unroll_win") != 0;
  std::vector<IterVar> outer(axes.begin(), axes.end() - 1);
  IterVar row_inner;
  // The grouped rows are unrolled together with the vectors of a row (a vector loop left rolled
  // turns its tail's mask into a run-time one, 2x slower at W=112): only for short rows, at most
  // 32 statements per group.
  const auto* row_len = as_const_int(axes.back()->dom->extent);
  if (!row_len || (*row_len + factor - 1) / factor * row_group > 32) row_group = 1;
  if (row_group > 1 && !outer.empty()) {
    auto [ro, ri] = st.split(outer.back(), Expr(static_cast<int>(row_group)));
    outer.back() = ro;
    row_inner = ri;
  }
  auto [io, ii] = st.split(axes.back(), Expr(static_cast<int>(factor)));
  std::vector<IterVar> order = outer;
  order.push_back(io);
  if (row_inner.defined()) order.push_back(row_inner);
  if (vec) {
    for (auto& r : raxes) order.push_back(r);
    order.push_back(ii);
  } else {
    order.push_back(ii);
    for (auto& r : raxes) order.push_back(r);
  }
  st.reorder(order);
  level = std::min<int>(level, static_cast<int>(outer.size()));
  IterVar innermost_outer = outer.empty() ? IterVar() : outer.back();
  if (parallel && level >= 1) {
    std::vector<IterVar> f(outer.begin(), outer.begin() + level);
    IterVar fused = f.size() == 1 ? f[0] : st.fuse(f);
    st.parallel(fused);
    if (level == static_cast<int>(outer.size())) innermost_outer = fused;
  }
  int64_t pf = cfg.has("prefetch") ? cfg.knob_int("prefetch") : 0;
  if (pf > 0 && innermost_outer.defined())
    for (auto& t : prefetch) st.prefetch(t, innermost_outer, Expr(static_cast<int>(pf)));
  if (unroll)
    for (auto& r : raxes) st.unroll(r);
  if (row_inner.defined()) {
    st.unroll(row_inner);
    st.unroll(io);
  }
  if (vec && factor > 1) st.vectorize(ii);
  return io;
}

// Rows unrolled together in a channels-first backward whose windows are disjoint: the rows of
// one window row read the same grad_output and indices row, so unrolling them next to each other
// lets LLVM load, clamp and spread those once per window row instead of once per input row.
int64_t backward_row_group(const PoolPlan& plan, PoolDirection dir) {
  if (dir != PoolDirection::Backward || plan.layout != PoolLayout::ChannelsFirst ||
      plan.spatial_rank() < 2 || !pool_windows_disjoint(plan))
    return 1;
  const PoolAxis& rows = plan.axes[plan.spatial_rank() - 2];
  if (rows.adaptive || rows.dilation != 1 || rows.stride < 2 || rows.stride > 4) return 1;
  return rows.stride;
}

}  // namespace

te::Schedule schedule_pool_cpu(const autotune::ConfigEntity& cfg, const PoolPlan& plan,
                               PoolDirection dir, const std::vector<te::Tensor>& outputs) {
  std::vector<te::Operation> ops;
  for (auto& t : outputs) ops.push_back(t.op());
  te::Schedule s = te::create_schedule(ops);
  te::Tensor out = outputs[0];
  // Inline padding; put helper reductions (avg sums) at the output's inner tile.
  te::Tensor sum, argmax_taps;
  for (auto& t : out.op().input_tensors()) {
    if (t.op().name() == "pool_sum") sum = t;
    if (t.op().name() == "pool_argmax_taps") argmax_taps = t;
  }
  for (auto& st : s.stages()) {
    if (st->op.name() == "pad_temp") te::Stage(st).compute_inline();
  }
  bool reduce_out = !out.op().reduce_axis().empty();
  // Prefetch (forward): the input placeholder, which the output's loops read (padding inlined, an
  // avg/lp sum attached inside them).
  std::vector<te::Tensor> prefetch;
  if (dir == PoolDirection::Forward) {
    std::vector<te::Tensor> todo = out.op().input_tensors();
    while (!todo.empty()) {
      te::Tensor t = todo.back();
      todo.pop_back();
      if (t.op().op_type() == te::OpType::Placeholder) {
        prefetch.push_back(t);
      } else if (t.op().name() == "pad_temp" || t.op().name() == "pool_sum" ||
                 t.op().name() == "pool_argmax_taps") {  // inlined / attached inside
        for (auto& u : t.op().input_tensors()) todo.push_back(u);
      }
    }
  }
  if (dir == PoolDirection::Backward && cfg.has("stream") && cfg.knob_int("stream") != 0 &&
      plan.layout == PoolLayout::ChannelsFirst && !reduce_out && !sum.defined()) {
    // Streaming stores (knob "stream"): each plane is computed as below into a buffer attached
    // at the plane loop, then copied to grad_input as whole vectors along the flattened plane,
    // under the "nontemporal_store" pragma (aligned vectors bypass the caches).
    te::Tensor plane_buf = s.cache_write(out, "global");
    tile_stage(s[plane_buf], plane_buf.op().axis(), plane_buf.op().reduce_axis(), cfg, false, {},
               backward_row_group(plan, dir));
    te::Stage so = s[out];
    const auto& ax = out.op().axis();  // batch, channel, spatial axes
    IterVar planes = so.fuse(std::vector<IterVar>{ax[0], ax[1]});
    IterVar flat = ax.size() == 3 ? ax[2] : so.fuse(std::vector<IterVar>(ax.begin() + 2, ax.end()));
    // Tasks of several planes (about 64 tasks): each task ends with a fence that waits for its
    // streaming stores (codegen_parallel.cc), which one fence per plane would do 8192 times.
    const int64_t planes_all = num_planes(plan);
    const int64_t per_task =
        detail::largest_divisor_at_most(planes_all, std::max<int64_t>(1, planes_all / 64));
    auto [tasks, plane] = so.split(planes, Expr(static_cast<int>(per_task)));
    auto [chunk, lanes] = so.split(flat, Expr(64 / plan.dtype.bytes()));
    so.parallel(tasks);
    so.vectorize(lanes);
    so.pragma(chunk, "nontemporal_store");
    s[plane_buf].compute_at(so, plane);
    return s;
  }
  // Knob "window_rows" (stages_window_rows): the input rows under one output tile are copied
  // into a local buffer at the tile (whole vectors of a row), and the taps read that buffer.
  // Each tap used to load its own strided span of the input (kernel_h x kernel_w overlapping
  // loads per tile); now each row is loaded once and LLVM, which keeps the small buffer in
  // registers, takes every tap of the row from it with a shuffle. The taps are still folded in
  // window order, so the NaN and tie rules are those of the plain reduction.
  te::Tensor rows;
  if (cfg.has("window_rows") && cfg.knob_int("window_rows") != 0 && vectorizes_tile(cfg) &&
      inner_length(plan, dir) % cfg.split("tile_inner").size.back() == 0 &&
      out.op()->tag == "pool_max" && prefetch.size() == 1)
    rows = s.cache_read(prefetch[0], "local", {out.op()});
  IterVar at = tile_stage(s[out], out.op().axis(), out.op().reduce_axis(), cfg, true, prefetch,
                          backward_row_group(plan, dir));
  if (rows.defined()) {
    s[rows].compute_at(s[out], at);
    const auto& ax = rows.op().axis();
    for (size_t i = 0; i + 1 < ax.size(); ++i) s[rows].unroll(ax[i]);
    s[rows].vectorize(ax.back());
  }
  // An attached reduction (avg/lp sum, the int32-lane argmax) covers one inner tile: reductions
  // outside its vectorized last axis.
  for (const te::Tensor& t : {sum, argmax_taps}) {
    if (!t.defined()) continue;
    s[t].compute_at(s[out], at);
    const auto& ax = t.op().axis();
    std::vector<IterVar> order(ax.begin(), ax.end() - 1);
    bool vec = cfg.knob_int("vec") != 0;
    if (!vec) order.push_back(ax.back());
    for (auto& r : t.op().reduce_axis()) order.push_back(r);
    if (vec) order.push_back(ax.back());
    s[t].reorder(order);
    if (cfg.knob_int("unroll_win"))
      for (auto& r : t.op().reduce_axis()) s[t].unroll(r);
    if (vectorizes_tile(cfg)) s[t].vectorize(ax.back());
  }
  // Remaining root stages (lp helpers of the backward): parallel over their outer axis.
  for (auto& st : s.stages()) {
    te::Stage stage(st);
    if (st->op.op_type() != te::OpType::Compute || st->attach_type != te::AttachType::GroupRoot)
      continue;
    if (st.get() == s[out].node() || (rows.defined() && st->op.same_as(rows.op())) ||
        (sum.defined() && st->op.same_as(sum.op())) ||
        (argmax_taps.defined() && st->op.same_as(argmax_taps.op())))
      continue;
    stage.parallel(st->op.axis()[0]);
  }
  (void)reduce_out;
  return s;
}

/** A plan made by hand (not by frontend::plan_*) is checked before any dispatch: every value that
 *  would give a negative size, a zero step or an empty window is named. */
static void validate_plan(const PoolPlan& plan) {
  const std::string op = plan.op.empty() ? "pool" : plan.op;
  MINITVM_USER_CHECK(plan.spatial_rank() >= 1 && plan.spatial_rank() <= 3)
      << op << ": " << plan.spatial_rank() << " spatial axes (pooling has 1, 2 or 3)";
  MINITVM_USER_CHECK(plan.batch >= 0) << op << ": batch " << plan.batch;
  MINITVM_USER_CHECK(plan.channels >= 0) << op << ": channels " << plan.channels;
  for (int a = 0; a < plan.spatial_rank(); ++a) {
    const PoolAxis& ax = plan.axes[a];
    MINITVM_USER_CHECK(ax.in >= 0) << op << ": axis " << a << " input length " << ax.in;
    MINITVM_USER_CHECK(ax.out >= 0) << op << ": axis " << a << " output length " << ax.out;
    if (ax.adaptive) continue;
    MINITVM_USER_CHECK(ax.kernel >= 1) << op << ": axis " << a << " kernel " << ax.kernel;
    MINITVM_USER_CHECK(ax.stride >= 1) << op << ": axis " << a << " stride " << ax.stride;
    MINITVM_USER_CHECK(ax.dilation >= 1) << op << ": axis " << a << " dilation " << ax.dilation;
    MINITVM_USER_CHECK(ax.pad_begin >= 0 && ax.pad_end >= 0)
        << op << ": axis " << a << " padding (" << ax.pad_begin << ", " << ax.pad_end << ")";
  }
}

PooledKernel lower_pool(const PoolPlan& plan, const std::string& target, PoolDirection dir,
                        const BuildPoolOptions& opt) {
  validate_plan(plan);
  PooledKernel k;
  autotune::Target tgt = autotune::parse_target(target);
  MINITVM_USER_CHECK(!(tgt.name == "llvm" && plan.dtype.is_floating() && plan.dtype.bits() == 16))
      << plan.op << ": " << plan.dtype.str() << " pooling is only compiled for CUDA";
  k.workload = pool_workload(plan, dir);
  k.func_name = !opt.func_name.empty()          ? opt.func_name
                : dir == PoolDirection::Forward ? "pool_fwd"
                                                : "pool_bwd";
  if (tgt.name == "llvm") {  // the config first: it decides the forward's argmax form
    if (opt.config) {
      k.config = *opt.config;
    } else {
      // Under the bare root context every plan would fall back (with one warning per plan); go
      // straight to the hand-picked fallback then. Entered contexts are queried as usual.
      autotune::DispatchContext& ctx = autotune::DispatchContext::current();
      bool bare =
          &ctx == static_cast<autotune::DispatchContext*>(&autotune::root_fallback_context());
      if (!bare) k.config = *ctx.query(tgt, k.workload);
      if (bare || k.config.is_fallback()) {
        autotune::FallbackConfigEntity fb;
        pool_cpu_fallback(fb, plan, dir);
        k.config = fb;
      }
    }
  }
  std::vector<te::Tensor> outputs;
  if (dir == PoolDirection::Forward) {
    bool idx = opt.with_indices && plan.mode == PoolMode::Max;
    te::Tensor x = te::placeholder(to_exprs(plan.batched_input_shape()), plan.dtype, "data");
    // The argmax in its own stage where the CPU schedule vectorizes the output tile (its
    // accumulators then stay in vector registers); a scalar tile keeps the single stage, which
    // ran 1.1-2.5x faster there (ResNet's padded 3x3 stride-2 pool).
    const bool in_lanes = tgt.name == "llvm" && vectorizes_tile(k.config);
    PoolForward f = pool_forward(plan, x, idx, /*argmax_in_lanes=*/in_lanes);
    outputs.push_back(f.output);
    if (idx) outputs.push_back(f.indices);
    k.args = {x, f.output};
    if (idx) k.args.push_back(f.indices);
    k.with_indices = idx;
  } else {
    PoolBackward b = pool_backward(plan);
    outputs.push_back(b.grad_input);
    k.args = b.args();
  }
  te::Schedule s;
  if (tgt.name == "llvm") {
    s = schedule_pool_cpu(k.config, plan, dir, outputs);
  } else {  // CUDA targets: the CUDA template (pool_schedule_cuda.cc)
    k.workload = pool_cuda_workload(plan, dir);
    k.config = opt.config ? *opt.config : pool_cuda_config(plan, dir, target);
    s = schedule_pool_cuda(k.config, plan, dir, outputs);
  }
  k.lowered = lower(s, k.args, k.func_name);
  return k;
}

PooledKernel build_pool(const PoolPlan& plan, const std::string& target, PoolDirection dir,
                        const BuildPoolOptions& opt) {
  PooledKernel k = lower_pool(plan, target, dir, opt);
  k.module = build(std::vector<ir::PrimFunc>{k.lowered}, target);
  return k;
}

void build_pool_batch(const std::vector<PooledKernel*>& kernels, const std::string& target) {
  if (kernels.empty()) return;
  std::vector<ir::PrimFunc> funcs;
  for (auto* k : kernels) funcs.push_back(k->lowered);
  runtime::Module m = build(funcs, target);
  for (auto* k : kernels) k->module = m;
}

}  // namespace minitvm::topi
