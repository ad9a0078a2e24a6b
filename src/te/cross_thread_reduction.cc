// Cross-thread reduction (TVM's MakeCrossThreadReduction): a reduction whose reduce leaves are
// bound to threads; each thread reduces its part, then tvm_thread_allreduce combines the parts.
#include "te/schedule_ops_internal.h"

#include <algorithm>
#include <vector>

namespace minitvm::te::detail {

using namespace ir;

namespace {
bool contains(const std::vector<IterVar>& v, const IterVar& x) {
  return std::any_of(v.begin(), v.end(), [&](const IterVar& y) { return y.same_as(x); });
}
}  // namespace

/**
 * A reduction with reduce leaves bound to threads (TVM's MakeCrossThreadReduction):
 *
 *   <data-parallel and thread-bound reduce loops, in leaf order>
 *     normal_reduce_temp = identity; <other reduce loops> normal_reduce_temp = op(.., source)
 *     // attr [combiner] reduce_scope
 *     tvm_thread_allreduce(size, normal_reduce_temp[0] (or the source), cond, reduce_temp, tx...)
 *     if (store_predicate) out[...] = reduce_temp[0]
 *
 * Bound guards and the reduction's condition apply to each thread's contribution (values that
 * are out of range contribute the identity), never around the all-reduce, whose barriers every
 * thread of the block must reach. lower_thread_allreduce turns the call into shared memory code.
 */
Stmt make_cross_thread_reduction(const StagePtr& s, NestBuilder& nest) {
  auto* c = s->op.as<ComputeOpNode>();
  const auto& leaves = s->leaf_iter_vars;
  auto* red = c->body[0].as<ReduceNode>();
  MINITVM_ICHECK(red) << "cross-thread reduction of a non-reduction";
  const CommReducer& comb = red->combiner;
  const size_t size = static_cast<size_t>(c->num_outputs());
  IndexMap vals = nest.index_values(s);
  std::vector<Expr> args;
  for (auto& iv : c->axis) args.push_back(vals.at(iv.get()));
  VarMap vm;
  for (auto& rv : root_vars(s)) vm[rv->var.get()] = vals.at(rv.get());

  std::vector<IterVar> normal;
  std::vector<Expr> thread_vars;
  for (auto& lv : leaves) {
    if (lv->iter_type != IterVarType::CommReduce) continue;
    if (IterVar t = bound_thread(s, lv); t.defined()) {
      thread_vars.push_back(t->var);
    } else {
      normal.push_back(lv);
    }
  }
  // Which threads contribute: in range (reduce and data-parallel guards) and the condition.
  Expr rpred = nest.bound_predicate(s, vals, true);
  Expr dpred = nest.bound_predicate(s, vals, false);
  Expr in_range;
  for (const Expr& p : {rpred, dpred})
    if (p.defined()) in_range = in_range.defined() ? (in_range && p) : p;
  if (in_range.defined()) in_range = simplify(in_range, nest.var_ranges());
  Expr cond = simplify(substitute(red->condition, vm), nest.var_ranges());
  std::vector<Expr> srcs;
  for (auto& src : red->source) srcs.push_back(substitute(src, vm));

  std::vector<Stmt> seq;
  std::vector<Var> normal_bufs, result_bufs;
  std::vector<Expr> values;
  Expr contrib = make_const(DataType::Bool(), int64_t{1});
  if (!normal.empty()) {
    // Each thread first reduces its own part (the unbound reduce loops) into a local.
    std::vector<Stmt> init, upd;
    std::vector<Expr> old_vals;
    for (size_t i = 0; i < size; ++i) {
      DataType t = c->output_dtype(static_cast<int>(i));
      normal_bufs.push_back(Var::buffer("normal_reduce_temp" + std::to_string(i), t));
      init.push_back(
          StoreNode::make(normal_bufs[i], comb->identity[i], make_zero(DataType::Int(32))));
      old_vals.push_back(LoadNode::make(t, normal_bufs[i], make_zero(DataType::Int(32))));
      values.push_back(old_vals.back());
    }
    std::vector<Expr> combined = comb->combine(old_vals, srcs);
    std::vector<Var> tmps;
    for (size_t i = 0; i < size; ++i) {
      if (size > 1)
        tmps.push_back(Var(s->op.name() + ".v" + std::to_string(i), combined[i].dtype()));
      upd.push_back(StoreNode::make(normal_bufs[i], size > 1 ? Expr(tmps[i]) : combined[i],
                                    make_zero(DataType::Int(32))));
    }
    Stmt update = BlockNode::make(upd);
    for (size_t i = tmps.size(); i-- > 0;) update = LetStmtNode::make(tmps[i], combined[i], update);
    if (!is_one(cond)) update = IfThenElseNode::make(cond, update);
    update = nest.guard(in_range, update);
    for (size_t i = leaves.size(); i-- > 0;) {
      if (!contains(normal, leaves[i])) continue;
      update = nest.attach_children(s, leaves[i], update);
      update = nest.loop_wrapper(s, leaves[i], leaves[i]->var)(update);
    }
    seq.push_back(BlockNode::make(init));
    seq.push_back(update);
  } else {
    values = srcs;
    if (in_range.defined() && !is_one(in_range)) contrib = in_range;
    if (!is_one(cond)) contrib = is_one(contrib) ? cond : (contrib && cond);
  }
  std::vector<Expr> call_args{make_const(DataType::UInt(32), static_cast<int64_t>(size))};
  for (auto& v : values) call_args.push_back(v);
  call_args.push_back(contrib);
  for (size_t i = 0; i < size; ++i) {
    result_bufs.push_back(
        Var::buffer("reduce_temp" + std::to_string(i), c->output_dtype(static_cast<int>(i))));
    call_args.push_back(result_bufs[i]);
  }
  for (auto& tv : thread_vars) call_args.push_back(tv);
  Stmt allreduce =
      EvaluateNode::make(CallNode::make(DataType::Handle(), Intrinsic::ThreadAllreduce, call_args));
  seq.push_back(
      AttrStmtNode::make(comb, AttrKind::ReduceScope, make_zero(DataType::Int(32)), allreduce));
  // Write back (every thread holds the result; the store predicate picks the writers).
  std::vector<Stmt> assigns;
  for (size_t i = 0; i < size; ++i) {
    DataType t = c->output_dtype(static_cast<int>(i));
    assigns.push_back(
        ProvideNode::make(s->op, static_cast<int>(i),
                          LoadNode::make(t, result_bufs[i], make_zero(DataType::Int(32))), args));
  }
  seq.push_back(NestBuilder::store_guard(s, nest.guard(dpred, BlockNode::make(assigns))));
  Stmt body = BlockNode::make(seq);
  for (size_t i = size; i-- > 0;) {
    DataType t = c->output_dtype(static_cast<int>(i));
    body = AllocateNode::make(result_bufs[i], t, {make_const(DataType::Int(32), int64_t{1})},
                              StorageScope::Local, Expr(), body);
    if (!normal_bufs.empty())
      body = AllocateNode::make(normal_bufs[i], t, {make_const(DataType::Int(32), int64_t{1})},
                                StorageScope::Local, Expr(), body);
  }
  for (size_t i = leaves.size(); i-- > 0;) {
    if (contains(normal, leaves[i])) continue;
    body = nest.attach_children(s, leaves[i], body);
    body = nest.loop_wrapper(s, leaves[i], leaves[i]->var)(body);
  }
  return ProducerConsumerNode::make(s->op, true, body);
}

}  // namespace minitvm::te::detail
