// CUDA template: dense (TVM v0.6 topi/cuda/dense.py), small batch (tile_k) and large batch (tile_x,
// tile_y, tile_k).
#include "topi/cuda/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cuda {

using namespace detail;
using autotune::SplitEntity;

namespace {

te::Schedule small_batch(te::Schedule s, const te::Operation& dense_op, const te::Operation& out,
                         ConfigEntity& cfg, const topi::DenseGeometry& g) {
  topi::define_dense_small_batch_space(cfg, g);
  require_fits(
      cfg, [&](autotune::SpaceDefiner& sp) { topi::define_dense_small_batch_space(sp, g); },
      "dense_small_batch.cuda");
  if (cfg.is_fallback()) cfg.set("tile_k", SplitEntity{{g.in_dim > 64 ? -1 : 1, 64}});
  // TVM's _schedule_dense_small_batch: the reduction is split by tile_k and its inner part
  // factored out (CF[i, j, kf] sums over k.outer); the kf partial sums of one output are then
  // reduced across the kf threads of a block (tvm_thread_allreduce), one block per output, and
  // thread 0 stores the result.
  te::Tensor C = dense_op.output(0);
  auto K = apply_split(s[C], s[C].op().reduce_axis()[0], cfg.split("tile_k"));
  te::Tensor CF = s.rfactor(C, K.back())[0];
  te::Operation o = C.op();
  if (!is_output(s, C.op())) {
    o = out;
    s[C].compute_at(s[o], s[o].op().axis()[1]);
  }
  te::Stage so = s[o];
  so.bind(so.op().axis()[0], te::thread_axis("blockIdx.y"));
  so.bind(so.op().axis()[1], te::thread_axis("blockIdx.x"));
  te::IterVar tx = s[C].op().reduce_axis()[0];
  te::IterVar thread_x = te::thread_axis("threadIdx.x");
  s[C].bind(tx, thread_x);
  s[CF].compute_at(s[C], tx);
  s[C].set_store_predicate(thread_x->var == 0);
  so.set_store_predicate(thread_x->var == 0);
  return s;
}

}  // namespace

te::Schedule schedule_dense(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                            const topi::DenseGeometry& g, const Target& target) {
  return schedule_dense(outs, cfg, g, target, g.batch < 32);
}

te::Schedule schedule_dense(const std::vector<te::Tensor>& outs, ConfigEntity& cfg,
                            const topi::DenseGeometry& g, const Target& target,
                            bool small_batch_template) {
  (void)target;
  std::vector<te::Operation> ops;
  for (auto& t : outs) ops.push_back(t.op());
  MINITVM_USER_CHECK(!ops.empty()) << "dense template: no outputs";
  te::Schedule s = te::create_schedule(ops);
  te::Operation d = find_op_by_tag(ops[0], "dense");
  MINITVM_USER_CHECK(d.defined()) << "dense template: no dense op in the graph";
  traverse_inline(s, ops[0], [](const te::Operation&) {});
  if (small_batch_template) return small_batch(s, d, ops[0], cfg, g);

  topi::define_dense_large_batch_space(cfg, g);
  require_fits(
      cfg, [&](autotune::SpaceDefiner& sp) { topi::define_dense_large_batch_space(sp, g); },
      "dense_large_batch.cuda");
  if (cfg.is_fallback()) {
    cfg.set("tile_x", SplitEntity{g.batch > 1 ? std::vector<int64_t>{-1, 2, 16, 2}
                                              : std::vector<int64_t>{1, 1, 1, 1}});
    cfg.set("tile_y", SplitEntity{g.out_dim > 1 ? std::vector<int64_t>{-1, 2, 16, 2}
                                                : std::vector<int64_t>{1, 1, 1, 1}});
    cfg.set("tile_k", SplitEntity{g.in_dim > 8 ? std::vector<int64_t>{-1, 8, 1}
                                               : std::vector<int64_t>{-1, 1, 1}});
  }
  te::Tensor C = d.output(0);
  te::Tensor A = d.input_tensors()[0], B = d.input_tensors()[1];
  te::Tensor AA = s.cache_read(A, "shared", {C.op()});
  te::Tensor BB = s.cache_read(B, "shared", {C.op()});
  te::Tensor AL = s.cache_read(AA, "local", {C.op()});
  te::Tensor BL = s.cache_read(BB, "local", {C.op()});
  te::Tensor CC = s.cache_write(C, "local");
  te::Operation out = C.op();
  if (!is_output(s, C.op())) {
    s[C.op()].compute_inline();
    out = ops[0];
  }
  te::Stage cs = s[out];
  auto ax = cs.leaf_iter_vars();
  auto X = apply_split(cs, ax[0], cfg.split("tile_x"));
  auto Y = apply_split(cs, ax[1], cfg.split("tile_y"));
  cs.reorder({Y[0], X[0], Y[1], X[1], Y[2], X[2], Y[3], X[3]});
  s[CC].compute_at(cs, X[2]);
  cs.bind(Y[0], te::thread_axis("blockIdx.y"));
  cs.bind(X[0], te::thread_axis("blockIdx.x"));
  cs.bind(Y[1], te::thread_axis("vthread"));
  cs.bind(X[1], te::thread_axis("vthread"));
  cs.bind(Y[2], te::thread_axis("threadIdx.y"));
  cs.bind(X[2], te::thread_axis("threadIdx.x"));
  te::Stage cc = s[CC];
  auto cax = cc.leaf_iter_vars();  // i, j, k
  auto K = apply_split(cc, cax[2], cfg.split("tile_k"));
  cc.reorder({K[0], K[1], K[2], cax[0], cax[1]});
  s[AA].compute_at(cc, K[0]);
  s[BB].compute_at(cc, K[0]);
  cc.unroll(K[1]);
  s[AL].compute_at(cc, K[1]);
  s[BL].compute_at(cc, K[1]);
  for (auto [load, n] :
       {std::pair{AA, cfg.split("tile_x").size[2]}, std::pair{BB, cfg.split("tile_y").size[2]}}) {
    te::Stage st = s[load];
    auto lax = st.leaf_iter_vars();
    auto [ty, r0] = st.split_nparts(lax[0], I(n));
    (void)r0;
    auto [r1, xi] = st.split(lax[1], I(n * 4));
    (void)r1;
    auto [tx, xi2] = st.split_nparts(xi, I(n));
    (void)xi2;
    st.bind(ty, te::thread_axis("threadIdx.y"));
    st.bind(tx, te::thread_axis("threadIdx.x"));
    st.double_buffer();
  }
  return s;
}

}  // namespace minitvm::topi::cuda
