// CUDA schedule template of the pool computes (an AutoTVM template, task
// "poolNd_<layout>_<dir>.cuda").
//
// Pooling is memory bound: each output (forward) or input gradient (backward) is independent, so
// the template is one flat index space over the output's data axes, in memory order:
//
//   fused = bx * (threads * per_thread) + v * threads + tx
//
// bx -> blockIdx.x, tx -> threadIdx.x, v a serial (unrolled) loop inside the thread. Consecutive
// threads always handle consecutive elements, so loads along the innermost axis and all stores are
// coalesced whatever per_thread is. Knobs, in definition order (threads is the least significant
// digit of the flat config index):
//   threads     threads per block: 64, 128, 256, 512, 1024
//   per_thread  elements per thread: 1, 2, 4, 8
//   unroll_win  unroll the window (reduction) loops: 0, 1
// Reductions are accumulated in a register per element and stored once: window sums (avg/lp
// forward: pool_sum; float16/bfloat16 overlapping backward: grad_acc, float32) are attached at v
// in local scope, and an output that is itself a reduction (max/argmax forward, overlapping
// backward) is cache_write'n to local scope and attached there too. The lp backward
// helpers (lp_sum, lp_outer) are separate kernels with one thread per element.
#include "minitvm/autotune/target.h"
#include "minitvm/topi/pool.h"
#include "pool_util.h"
#include "topi/schedule_util.h"

namespace minitvm::topi {

using namespace detail;
using autotune::Json;

namespace {

// Elements of the scheduled stage: outputs (forward) or input gradients (backward).
int64_t work_items(const PoolPlan& plan, PoolDirection dir) {
  return num_elements(dir == PoolDirection::Forward ? plan.batched_output_shape()
                                                    : plan.batched_input_shape());
}

// Taps of the window loops of one element.
int64_t window_taps(const PoolPlan& plan, PoolDirection dir) {
  int64_t t = 1;
  for (auto& ax : plan.axes) {
    if (dir == PoolDirection::Forward) {
      t *= std::max<int64_t>(1, max_window(ax));
    } else {
      int64_t ke = ax.adaptive ? max_window(ax) : ax.effective_kernel();
      int64_t st = ax.adaptive ? 1 : std::max<int64_t>(1, ax.stride);
      t *= std::max<int64_t>(1, (ke + st - 1) / st + 1);
    }
  }
  return t;
}

// One thread per element for a helper root stage.
void bind_flat(te::Stage st, const std::vector<IterVar>& axes, int threads) {
  IterVar f = axes.size() == 1 ? axes[0] : st.fuse(axes);
  auto [bx, tx] = st.split(f, Expr(threads));
  st.bind(bx, te::thread_axis("blockIdx.x"));
  st.bind(tx, te::thread_axis("threadIdx.x"));
}

}  // namespace

std::string pool_cuda_task_name(const PoolPlan& plan, PoolDirection dir) {
  std::string n = pool_task_name(plan, dir);
  return n.substr(0, n.rfind('.')) + ".cuda";
}

Json pool_cuda_workload(const PoolPlan& plan, PoolDirection dir) {
  Json w = pool_workload(plan, dir);
  w[0] = pool_cuda_task_name(plan, dir);
  return w;
}

void define_pool_cuda_space(autotune::SpaceDefiner& cfg, const PoolPlan&, PoolDirection) {
  cfg.define_knob("threads", {64, 128, 256, 512, 1024});
  cfg.define_knob("per_thread", {1, 2, 4, 8});
  cfg.define_knob("unroll_win", {0, 1});
}

void pool_cuda_fallback(autotune::ConfigEntity& cfg, const PoolPlan& plan, PoolDirection dir) {
  define_pool_cuda_space(cfg, plan, dir);
  const int threads = 256;
  // Enough blocks to fill a large GPU several times over (132 SMs x 8 resident blocks), then
  // amortise index arithmetic over up to 4 elements per thread.
  int64_t items = work_items(plan, dir);
  int per = 1;
  for (int p : {2, 4})
    if (items / (static_cast<int64_t>(threads) * p) >= 1024) per = p;
  cfg.set("threads", autotune::OtherOptionEntity{threads});
  cfg.set("per_thread", autotune::OtherOptionEntity{per});
  cfg.set("unroll_win", autotune::OtherOptionEntity{window_taps(plan, dir) <= 64 ? 1 : 0});
}

autotune::ConfigEntity pool_cuda_config(const PoolPlan& plan, PoolDirection dir,
                                        const std::string& target) {
  autotune::Target tgt = autotune::parse_target(target);
  autotune::DispatchContext& ctx = autotune::DispatchContext::current();
  bool bare = &ctx == static_cast<autotune::DispatchContext*>(&autotune::root_fallback_context());
  autotune::ConfigEntity cfg;
  if (!bare) cfg = *ctx.query(tgt, pool_cuda_workload(plan, dir));
  if (bare || cfg.is_fallback()) {
    autotune::FallbackConfigEntity fb;
    pool_cuda_fallback(fb, plan, dir);
    cfg = fb;
  }
  return cfg;
}

te::Schedule schedule_pool_cuda(const autotune::ConfigEntity& cfg, const PoolPlan& plan,
                                PoolDirection dir, const std::vector<te::Tensor>& outputs) {
  (void)plan;
  (void)dir;
  int threads = static_cast<int>(cfg.knob_int("threads"));
  int per = static_cast<int>(cfg.knob_int("per_thread"));
  bool unroll = cfg.knob_int("unroll_win") != 0;
  MINITVM_CONFIG_CHECK(threads >= 1 && threads <= 1024 && per >= 1) << "pool cuda: bad config";

  std::vector<te::Operation> ops;
  for (auto& t : outputs) ops.push_back(t.op());
  te::Schedule s = te::create_schedule(ops);
  te::Tensor out = outputs[0];
  for (auto& st : s.stages())
    if (st->op.name() == "pad_temp") te::Stage(st).compute_inline();

  // The per-element accumulator stage, when the output reads one.
  te::Tensor acc;
  for (auto& t : out.op().input_tensors())
    if (t.op().name() == "pool_sum" || t.op().name() == "grad_acc") acc = t;

  // A reduction that is the output itself (max, overlapping backward) is computed into a local
  // cache (a register per element) and stored once.
  te::Tensor red;
  if (!out.op().reduce_axis().empty()) red = s.cache_write(out, "local");

  te::Stage so = s[out];
  std::shared_ptr<te::StageNode> out_stage = s.find_stage(out.op());
  const std::vector<IterVar> axes = out_stage->op.axis();
  IterVar fused = axes.size() == 1 ? axes[0] : so.fuse(axes);
  auto [bx, inner] = so.split(fused, Expr(threads * per));
  auto [v, tx] = so.split(inner, Expr(threads));
  so.reorder({bx, tx, v});
  so.bind(bx, te::thread_axis("blockIdx.x"));
  so.bind(tx, te::thread_axis("threadIdx.x"));
  if (per > 1) so.unroll(v);
  if (red.defined()) {
    te::Stage sr = s[red];
    sr.compute_at(so, v);
    if (unroll)
      for (auto& r : red.op().reduce_axis()) sr.unroll(r);
  }

  if (acc.defined()) {
    te::Stage sa = s[acc];
    sa.set_scope("local");
    sa.compute_at(so, v);
    if (unroll)
      for (auto& r : acc.op().reduce_axis()) sa.unroll(r);
  }
  // Remaining root stages (lp backward helpers): one thread per element.
  for (auto& st : s.stages()) {
    if (st->op.op_type() != te::OpType::Compute || st->attach_type != te::AttachType::GroupRoot)
      continue;
    if (st == out_stage) continue;  // acc and red are attached, not roots
    bind_flat(te::Stage(st), st->op.axis(), 256);
  }
  return s;
}

}  // namespace minitvm::topi
