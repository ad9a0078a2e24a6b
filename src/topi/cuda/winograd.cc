// CUDA template: conv2d winograd (TVM v0.6 topi/cuda/conv2d_winograd.py), the kernel transform
// computed in the same function or, after relay's alter layout, done at build time (pre_computed:
// the kernel arrives transformed).
#include "topi/cuda/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cuda {

using namespace detail;

te::Schedule schedule_conv2d_winograd(const nn::WinogradTensors& w,
                                      const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                                      const topi::ConvGeometry& g, const Target& target) {
  std::vector<te::Operation> ops;
  for (auto& t : outs) ops.push_back(t.op());
  MINITVM_USER_CHECK(!ops.empty()) << "winograd template: no outputs";
  te::Schedule s = te::create_schedule(ops);
  traverse_inline(s, ops[0], [](const te::Operation&) {});

  // data transform
  s[w.B.op()].compute_inline();
  te::Tensor data_l = s.cache_write(w.data_pack, "local");
  {
    te::Stage dl = s[data_l];
    auto ax = dl.leaf_iter_vars();  // eps, nu, c, p, r_a, r_b
    for (int i : {0, 1, 4, 5}) dl.unroll(ax[i]);
  }
  te::Stage dp = s[w.data_pack];
  {
    auto ax = dp.leaf_iter_vars();  // eps, nu, c, p
    auto [p, pi] = dp.split(ax[3], I(1));
    IterVar fused = dp.fuse(ax[2], p);
    auto [bb, tt] = dp.split(fused, I(128));
    dp.reorder({bb, tt, pi, ax[0], ax[1]});
    dp.unroll(ax[0]);
    dp.unroll(ax[1]);
    dp.bind(bb, te::thread_axis("blockIdx.x"));
    dp.bind(tt, te::thread_axis("threadIdx.x"));
    s[data_l].compute_at(dp, pi);
    // TVM infers the storage scope of a stage without one from its attach path (InferStorageScope:
    // under threadIdx -> local). Our bound inference treats it as global and relaxes it over all
    // threads (d becomes the whole tensor in every thread), so say "local" explicitly.
    s[w.d.op()].set_scope("local");
    s[w.d.op()].compute_at(dp, pi);
    s[w.data_pad.op()].compute_inline();
  }
  // kernel transform (none when it was done at build time: TVM's pre_computed)
  if (!w.pre_computed) {
    s[w.G.op()].compute_inline();
    te::Stage kp = s[w.kernel_pack];
    auto ax = kp.leaf_iter_vars();  // eps, nu, ci, co, r_kh, r_kw
    for (int i : {0, 1, 4, 5}) kp.unroll(ax[i]);
    IterVar fused = kp.fuse(ax[2], ax[3]);
    auto [bb, tt] = kp.split(fused, I(128));
    kp.reorder({bb, tt, ax[0], ax[1], ax[4], ax[5]});
    kp.bind(bb, te::thread_axis("blockIdx.x"));
    kp.bind(tt, te::thread_axis("threadIdx.x"));
  }
  // batched gemm: the tuned part
  topi::define_conv2d_winograd_space(cfg, g, target);
  require_fits(
      cfg, [&](autotune::SpaceDefiner& sp) { topi::define_conv2d_winograd_space(sp, g, target); },
      "conv2d_nchw_winograd.cuda");
  te::Tensor C = w.bgemm;
  te::Tensor OL = s.cache_write(C, "local");
  te::Tensor AA = s.cache_read(w.kernel_pack, "shared", {OL.op()});
  te::Tensor BB = s.cache_read(w.data_pack, "shared", {OL.op()});
  te::Stage cs = s[C];
  auto cax = cs.leaf_iter_vars();  // b1, b2, y, x
  IterVar b = cs.fuse(cax[0], cax[1]);
  auto [bgemm_scope, b_in] = cs.split_nparts(b, I(1));
  auto Z = apply_split(cs, b_in, cfg.split("tile_b"));
  auto Y = apply_split(cs, cax[2], cfg.split("tile_y"));
  auto X = apply_split(cs, cax[3], cfg.split("tile_x"));
  cs.bind(Z[0], te::thread_axis("blockIdx.z"));
  cs.bind(Y[0], te::thread_axis("blockIdx.y"));
  cs.bind(X[0], te::thread_axis("blockIdx.x"));
  cs.bind(Z[1], te::thread_axis("vthread"));
  cs.bind(Y[1], te::thread_axis("vthread"));
  cs.bind(X[1], te::thread_axis("vthread"));
  cs.bind(Z[2], te::thread_axis("threadIdx.z"));
  cs.bind(Y[2], te::thread_axis("threadIdx.y"));
  cs.bind(X[2], te::thread_axis("threadIdx.x"));
  cs.reorder({bgemm_scope, Z[0], Y[0], X[0], Z[1], Y[1], X[1], Z[2], Y[2], X[2], Z[3], Y[3], X[3]});
  s[OL].compute_at(cs, X[2]);
  te::Stage ol = s[OL];
  auto lax = ol.leaf_iter_vars();  // b1, b2, y, x, rc
  IterVar lb = ol.fuse(lax[0], lax[1]);
  auto RC = apply_split(ol, lax[4], cfg.split("tile_rc"));
  ol.reorder({RC[0], RC[1], lb, lax[2], lax[3]});
  s[AA].compute_at(ol, RC[0]);
  s[BB].compute_at(ol, RC[0]);
  for (auto& load : {AA, BB})
    coop_fetch_factor(s, load, cfg.split("tile_b").size[2], cfg.split("tile_y").size[2],
                      cfg.split("tile_x").size[2]);
  unroll_pragmas(cs, bgemm_scope, cfg);

  // inverse transform and output
  te::Operation output = w.output.op();
  te::Operation OLo;
  if (!is_output(s, output)) {
    s[output].set_scope("local");
    OLo = output;
    output = ops[0];
  }
  te::Stage os = s[output];
  auto oax = os.leaf_iter_vars();  // n, co, h, w
  auto t = os.tile(oax[2], oax[3], I(w.m), I(w.m));
  auto [inverse_scope, n] = os.split_nparts(oax[0], I(1));
  (void)inverse_scope;
  IterVar fused = os.fuse(std::vector<IterVar>{n, oax[1], t[0], t[1]});
  auto [bb, tt] = os.split(fused, I(128));
  os.bind(bb, te::thread_axis("blockIdx.x"));
  os.bind(tt, te::thread_axis("threadIdx.x"));
  if (OLo.defined()) s[OLo].compute_at(os, tt);
  s[w.A.op()].compute_inline();
  te::Stage inv = s[w.inverse];
  auto iax = inv.leaf_iter_vars();  // co, p, vh, vw, r_a, r_b
  for (int i : {2, 3, 4, 5}) inv.unroll(iax[i]);
  inv.set_scope("local");  // what TVM infers under threadIdx (see d above)
  inv.compute_at(os, tt);
  return s;
}

}  // namespace minitvm::topi::cuda
