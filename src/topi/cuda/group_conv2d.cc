// CUDA template: grouped conv2d NCHW (TVM v0.7 group_conv2d_nchw.cuda, direct).
//
// The output channel axis is split into (group, channel in group) so blocks and vthreads tile
// whole groups (tile_g) and the channels of a group (tile_f); the shared stages then hold only the
// input channels of the groups a block computes. Deviation from TVM: tile_ry / tile_rx split ry /
// rx (TVM applies tile_rx to ry and tile_ry to rx; the same for square kernels).
#include "minitvm/autotune/fallback.h"
#include "topi/cuda/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cuda {

using namespace detail;
using autotune::OtherOptionEntity;
using autotune::SplitEntity;

namespace {

void group_conv2d_fallback(ConfigEntity& cfg, const topi::ConvGeometry& g, const Target& target) {
  auto fit = [&](const char* name, int64_t length, std::vector<int64_t> bounds) {
    cfg.set(name, SplitEntity{autotune::fallback_split(length, bounds)});
  };
  fit("tile_n", g.n, {-1, 1, 1, 1});
  fit("tile_g", g.groups, {-1, 1});
  fit("tile_f", g.co / g.groups, {-1, 1, 8, 2});
  fit("tile_y", g.oh, {-1, 1, 4, 1});
  fit("tile_x", g.ow, {-1, 1, 16, 1});
  fit("tile_rc", g.ci / g.groups, {-1, 8});
  fit("tile_ry", g.kh, {-1, g.kh});
  fit("tile_rx", g.kw, {-1, g.kw});
  cfg.set("auto_unroll_max_step", OtherOptionEntity{512});
  cfg.set("unroll_explicit", OtherOptionEntity{topi::unroll_explicit_candidates(target).front()});
  cfg.set("fuse_yx", OtherOptionEntity{0});
}

}  // namespace

te::Schedule schedule_group_conv2d_nchw(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                        const topi::ConvGeometry& g, const Target& target) {
  topi::define_group_conv2d_space(cfg, g, target);
  require_fits(
      cfg, [&](autotune::SpaceDefiner& sp) { topi::define_group_conv2d_space(sp, g, target); },
      "group_conv2d_nchw.cuda");
  if (cfg.is_fallback()) group_conv2d_fallback(cfg, g, target);
  ConvStages cs = prepare_conv_stages(outs, "group_conv2d_nchw", "group_conv2d_nchw.cuda");
  te::Schedule s = cs.s;
  te::Tensor OL = cs.OL;
  te::Tensor AA = s.cache_read(cs.pad_data, "shared", {OL.op()});
  te::Tensor WW = s.cache_read(cs.kernel, "shared", {OL.op()});

  te::Stage os = s[cs.output];
  auto ax = os.leaf_iter_vars();
  MINITVM_ICHECK(ax.size() == 4);
  auto [kernel_scope, n] = os.split_nparts(ax[0], I(1));
  auto [gr, f] = os.split_nparts(ax[1], I(g.groups));
  auto N = apply_split(os, n, cfg.split("tile_n"));
  auto G = apply_split(os, gr, cfg.split("tile_g"));
  auto F = apply_split(os, f, cfg.split("tile_f"));
  auto Y = apply_split(os, ax[2], cfg.split("tile_y"));
  auto X = apply_split(os, ax[3], cfg.split("tile_x"));
  os.reorder({N[0], G[0], F[0], Y[0], X[0], N[1], G[1], F[1], Y[1], X[1], N[2], F[2], Y[2], X[2],
              N[3], F[3], Y[3], X[3]});
  os.bind(N[0], te::thread_axis("blockIdx.z"));
  os.bind(os.fuse(G[0], F[0]), te::thread_axis("blockIdx.y"));
  os.bind(os.fuse(Y[0], X[0]), te::thread_axis("blockIdx.x"));
  for (const IterVar& v : {N[1], G[1], F[1], Y[1], X[1]}) os.bind(v, te::thread_axis("vthread"));

  const auto& tn = cfg.split("tile_n").size;
  const auto& tf = cfg.split("tile_f").size;
  const auto& ty = cfg.split("tile_y").size;
  const auto& tx = cfg.split("tile_x").size;
  int64_t n_tz, n_ty, n_tx;
  if (knob_int(cfg, "fuse_yx")) {
    os.bind(N[2], te::thread_axis("threadIdx.z"));
    os.bind(F[2], te::thread_axis("threadIdx.y"));
    IterVar tyx = os.fuse(Y[2], X[2]);
    os.bind(tyx, te::thread_axis("threadIdx.x"));
    s[OL].compute_at(os, tyx);
    n_tz = tn[2];
    n_ty = tf[2];
    n_tx = ty[2] * tx[2];
  } else {
    os.bind(os.fuse(N[2], F[2]), te::thread_axis("threadIdx.z"));
    os.bind(Y[2], te::thread_axis("threadIdx.y"));
    os.bind(X[2], te::thread_axis("threadIdx.x"));
    s[OL].compute_at(os, X[2]);
    n_tz = tn[2] * tf[2];
    n_ty = ty[2];
    n_tx = tx[2];
  }

  te::Stage ol = s[OL];
  tile_conv_reduction(s, ol, AA, WW, cfg);
  for (auto& load : {AA, WW}) coop_fetch_factor(s, load, n_tz, n_ty, n_tx);
  unroll_pragmas(os, kernel_scope, cfg);
  return s;
}

}  // namespace minitvm::topi::cuda
