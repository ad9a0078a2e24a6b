// CUDA templates: conv2d direct and depthwise conv2d (TVM v0.6
// topi/cuda/conv2d_direct.py, depthwise_conv2d.py).
#include "minitvm/autotune/fallback.h"
#include "minitvm/autotune/tophub.h"
#include "minitvm/topi/cuda_schedule.h"
#include "topi/cuda/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cuda {

using namespace detail;
using autotune::SplitEntity;

namespace {

void reference_fallback(ConfigEntity& cfg, const Target& target, const std::string& wname) {
  auto refs = autotune::tophub::load_reference_log(target.name, target.model(), wname, "direct");
  autotune::fallback_with_reference_log(cfg, refs);
}

// Cooperative fetch: nparts splits from the outside (conv2d direct).
void coop_fetch_nparts(te::Schedule& s, const te::Tensor& load, int64_t nz, int64_t ny,
                       int64_t nx) {
  te::Stage st = s[load];
  std::vector<IterVar> all = st.leaf_iter_vars();
  IterVar fused = st.fuse(all);
  auto [tz, r1] = st.split_nparts(fused, I(nz));
  auto [ty, r2] = st.split_nparts(r1, I(ny));
  auto [tx, r3] = st.split_nparts(r2, I(nx));
  (void)r3;
  st.bind(tz, te::thread_axis("threadIdx.z"));
  st.bind(ty, te::thread_axis("threadIdx.y"));
  st.bind(tx, te::thread_axis("threadIdx.x"));
}

}  // namespace

// Factor splits from the inside (depthwise, winograd).
void tile_conv_reduction(te::Schedule& s, te::Stage ol, const te::Tensor& AA, const te::Tensor& WW,
                         const ConfigEntity& cfg) {
  auto lax = ol.leaf_iter_vars();  // n, f, y, x, rc, ry, rx
  MINITVM_ICHECK(lax.size() == 7);
  auto RC = apply_split(ol, lax[4], cfg.split("tile_rc"));
  auto RY = apply_split(ol, lax[5], cfg.split("tile_ry"));
  auto RX = apply_split(ol, lax[6], cfg.split("tile_rx"));
  ol.reorder({RC[0], RY[0], RX[0], RC[1], RY[1], RX[1], lax[0], lax[1], lax[2], lax[3]});
  s[AA].compute_at(ol, RX[0]);
  s[WW].compute_at(ol, RX[0]);
}

void coop_fetch_factor(te::Schedule& s, const te::Tensor& load, int64_t nz, int64_t ny,
                       int64_t nx) {
  te::Stage st = s[load];
  std::vector<IterVar> all = st.leaf_iter_vars();
  IterVar fused = st.fuse(all);
  auto [r1, tx] = st.split(fused, I(nx));
  auto [r2, ty] = st.split(r1, I(ny));
  auto [r3, tz] = st.split(r2, I(nz));
  (void)r3;
  st.bind(tz, te::thread_axis("threadIdx.z"));
  st.bind(ty, te::thread_axis("threadIdx.y"));
  st.bind(tx, te::thread_axis("threadIdx.x"));
}

// Binds and reorders the output stage; returns {kernel_scope, tx}.
std::pair<IterVar, IterVar> bind_output_tiles(te::Stage os, const ConfigEntity& cfg,
                                              bool scope_first) {
  auto ax = os.leaf_iter_vars();
  IterVar n = ax[0], f = ax[1], y = ax[2], x = ax[3];
  IterVar kernel_scope;
  if (scope_first) {
    auto [ks, nn] = os.split_nparts(n, I(1));
    kernel_scope = ks;
    n = nn;
  }
  auto F = apply_split(os, f, cfg.split("tile_f"));
  auto Y = apply_split(os, y, cfg.split("tile_y"));
  auto X = apply_split(os, x, cfg.split("tile_x"));
  if (!scope_first) {
    auto [ks, nn] = os.split_nparts(n, I(1));
    kernel_scope = ks;
    n = nn;
  }
  IterVar bf = os.fuse(n, F[0]);
  os.bind(bf, te::thread_axis("blockIdx.z"));
  os.bind(Y[0], te::thread_axis("blockIdx.y"));
  os.bind(X[0], te::thread_axis("blockIdx.x"));
  os.bind(F[1], te::thread_axis("vthread"));
  os.bind(Y[1], te::thread_axis("vthread"));
  os.bind(X[1], te::thread_axis("vthread"));
  os.bind(F[2], te::thread_axis("threadIdx.z"));
  os.bind(Y[2], te::thread_axis("threadIdx.y"));
  os.bind(X[2], te::thread_axis("threadIdx.x"));
  os.reorder({bf, Y[0], X[0], F[1], Y[1], X[1], F[2], Y[2], X[2], F[3], Y[3], X[3]});
  return {kernel_scope, X[2]};
}

void unroll_pragmas(te::Stage os, const IterVar& scope, const ConfigEntity& cfg) {
  os.pragma(scope, "auto_unroll_max_step", I(knob_int(cfg, "auto_unroll_max_step")));
  os.pragma(scope, "unroll_explicit", I(knob_int(cfg, "unroll_explicit")));
}

ConvStages prepare_conv_stages(const std::vector<te::Tensor>& outs, const char* tag,
                               const char* template_name) {
  ConvStages c;
  auto ops = ops_of(outs);
  c.s = te::create_schedule(ops);
  c.conv = find_op_by_tag(ops[0], tag);
  MINITVM_USER_CHECK(c.conv.defined())
      << template_name << " template: no " << tag << " op in the graph";
  traverse_inline(c.s, ops[0], [](const te::Operation&) {});
  c.pad_data = c.conv.input_tensors()[0];
  c.kernel = c.conv.input_tensors()[1];
  if (c.pad_data.op().op_type() == te::OpType::Compute) c.s[c.pad_data.op()].compute_inline();
  if (is_output(c.s, c.conv)) {
    c.output = c.conv;
    c.OL = c.s.cache_write(c.conv.output(0), "local");
  } else {
    c.output = ops[0];
    c.s[c.conv].set_scope("local");
    c.OL = c.conv.output(0);
  }
  return c;
}

te::Schedule schedule_conv2d_nchw_direct(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                         const topi::ConvGeometry& g, const Target& target) {
  topi::define_conv2d_direct_space(cfg, g, target);
  require_fits(
      cfg, [&](autotune::SpaceDefiner& sp) { topi::define_conv2d_direct_space(sp, g, target); },
      "conv2d_nchw.cuda");
  if (cfg.is_fallback()) reference_fallback(cfg, target, "conv2d");
  ConvStages cs = prepare_conv_stages(outs, "conv2d_nchw", "conv2d direct");
  te::Schedule s = cs.s;
  te::Tensor pad_data = cs.pad_data, kernel = cs.kernel, OL = cs.OL;
  te::Operation output = cs.output;
  te::Tensor AA = s.cache_read(pad_data, "shared", {OL.op()});
  te::Tensor WW = s.cache_read(kernel, "shared", {OL.op()});
  te::Stage os = s[output];
  auto [kernel_scope, tx] = bind_output_tiles(os, cfg, true);
  s[OL].compute_at(os, tx);
  te::Stage ol = s[OL];
  tile_conv_reduction(s, ol, AA, WW, cfg);
  const auto& tf = cfg.split("tile_f").size;
  const auto& ty = cfg.split("tile_y").size;
  const auto& txs = cfg.split("tile_x").size;
  for (auto& load : {AA, WW}) coop_fetch_nparts(s, load, tf[2], ty[2], txs[2]);
  unroll_pragmas(os, kernel_scope, cfg);
  return s;
}

te::Schedule schedule_depthwise_conv2d_nchw(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                            const topi::ConvGeometry& g, const Target& target) {
  topi::define_depthwise_space(cfg, g, target);
  require_fits(
      cfg, [&](autotune::SpaceDefiner& sp) { topi::define_depthwise_space(sp, g, target); },
      "depthwise_conv2d_nchw.cuda");
  if (cfg.is_fallback()) {
    reference_fallback(cfg, target, "depthwise_conv2d_nchw");
    cfg.set("unroll_explicit", autotune::OtherOptionEntity{0});
  }
  ConvStages cs = prepare_conv_stages(outs, "depthwise_conv2d_nchw", "depthwise");
  te::Schedule s = cs.s;
  te::Tensor pad_data = cs.pad_data, kernel = cs.kernel, OL = cs.OL;
  te::Operation output = cs.output;
  te::Tensor AA = s.cache_read(pad_data, "shared", {OL.op()});
  te::Tensor WW = s.cache_read(kernel, "shared", {OL.op()});
  te::Tensor AL = s.cache_read(AA, "local", {OL.op()});
  te::Tensor WL = s.cache_read(WW, "local", {OL.op()});
  te::Stage os = s[output];
  auto [kernel_scope, tx] = bind_output_tiles(os, cfg, false);
  // AA/WW at bx: the leaf right after the blockIdx axes.
  IterVar bx;
  for (auto& iv : os.leaf_iter_vars()) {
    auto it = os.node()->iter_var_attrs.find(iv.get());
    if (it != os.node()->iter_var_attrs.end() && it->second.bind_thread.defined() &&
        it->second.bind_thread->thread_tag == "blockIdx.x")
      bx = iv;
  }
  MINITVM_ICHECK(bx.defined());
  s[OL].compute_at(os, tx);
  s[AA].compute_at(os, bx);
  s[WW].compute_at(os, bx);
  s[AL].compute_at(os, tx);
  s[WL].compute_at(os, tx);
  const auto& tf = cfg.split("tile_f").size;
  const auto& ty = cfg.split("tile_y").size;
  const auto& txs = cfg.split("tile_x").size;
  for (auto& load : {AA, WW}) coop_fetch_factor(s, load, tf[2], ty[2], txs[2]);
  unroll_pragmas(os, kernel_scope, cfg);
  return s;
}

}  // namespace minitvm::topi::cuda
