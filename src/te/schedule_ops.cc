// Lowering a schedule to a loop nest (TVM's ScheduleOps): inline compute_inline stages, infer
// bounds (bound.cc), then build one produce per stage with its loops, guards, realize and the
// stages attached inside it. Cross-thread reductions are built in cross_thread_reduction.cc.
#include "minitvm/te/schedule_ops.h"

#include "te/schedule_ops_internal.h"

#include <functional>
#include <unordered_map>
#include <vector>

namespace minitvm::te {

using namespace ir;

namespace detail {

namespace {

/** Substitute the body of every compute_inline stage into its readers (cascading the new ops to
 *  their own readers) and mark it InlinedAlready. */
void inline_stages(const Schedule& sch) {
  for (auto& s : sch.stages()) {
    if (s->attach_type != AttachType::Inline) continue;
    auto* c = s->op.as<ComputeOpNode>();
    MINITVM_ICHECK(c && c->body.size() == 1) << "inline of a non-simple compute";
    const OperationNode* target = s->op.get();
    std::vector<Var> args;
    for (auto& iv : c->axis) args.push_back(iv->var);
    Expr body = c->body[0];
    class Inliner : public IRMutator {
     public:
      const OperationNode* target;
      std::unordered_map<const OperationNode*, Operation>* cascade;
      std::vector<Var>* args;
      Expr* body;
      using IRMutator::mutate;

     protected:
      Expr visit(const ProducerLoadNode* op, const Expr& self) override {
        Expr r = IRMutator::visit(op, self);
        auto* p = r.as<ProducerLoadNode>();
        auto cit = cascade->find(op->op.get());
        if (cit != cascade->end())
          return ProducerLoadNode::make(p->dtype, cit->second, p->value_index, p->indices);
        if (op->op.get() != target) return r;
        VarMap vm;
        for (size_t i = 0; i < args->size(); ++i) vm[(*args)[i].get()] = p->indices[i];
        return substitute(*body, vm);
      }
    } inl;
    inl.target = target;
    inl.args = &args;
    inl.body = &body;
    std::unordered_map<const OperationNode*, Operation> cascade;
    inl.cascade = &cascade;
    for (auto& other : sch.stages()) {
      if (other == s) continue;
      auto* oc = other->op.as<ComputeOpNode>();
      if (!oc) continue;
      bool changed = false;
      std::vector<Expr> nb;
      for (auto& b : oc->body) {
        Expr x = inl.mutate(b);
        changed |= !x.same_as(b);
        nb.push_back(x);
      }
      if (!changed) continue;
      Operation nop = make_compute_op(oc->name, oc->tag, oc->axis, nb);
      cascade[other->op.get()] = nop;
      other->op = nop;
    }
    s->attach_type = AttachType::InlinedAlready;
  }
}

}  // namespace

IndexMap NestBuilder::index_values(const StagePtr& s) const {
  return pass_up_index(s, bounds_.ranges,
                       [&](const IterVar& lv) { return leaf_value(s, lv, bounds_.ranges); });
}

std::function<Stmt(Stmt)> NestBuilder::loop_wrapper(const StagePtr& s, const IterVar& iv,
                                                    const Var& loop_var, bool with_prefetch) const {
  Expr ext = bounds_.extent(iv);
  const IterVarAttr* a = attr_of(s, iv);
  IterVar t = a ? a->bind_thread : IterVar();
  std::vector<std::pair<std::string, Expr>> pragmas;
  if (a) pragmas = a->pragmas;
  ForKind kind = a ? a->for_kind : ForKind::Serial;
  std::vector<Tensor> pf_data;
  std::vector<Expr> pf_offset;
  if (a && with_prefetch && !a->prefetch_data.empty()) {
    MINITVM_USER_CHECK(!t.defined())
        << "In schedule for " << s->op.name() << ": prefetch at `" << iv->var->name_hint
        << "`, which is bound to " << t->thread_tag << " (prefetch needs a loop)";
    MINITVM_USER_CHECK(kind != ForKind::Vectorized)
        << "In schedule for " << s->op.name() << ": prefetch at the vectorized axis `"
        << iv->var->name_hint << "` (prefetch at an outer loop)";
    pf_data = a->prefetch_data;
    pf_offset = a->prefetch_offset;
  }
  return [=](Stmt body) -> Stmt {
    // A loop of one iteration has no next iteration to prefetch for.
    if (!t.defined() && !is_one(ext))
      for (size_t i = pf_data.size(); i-- > 0;)
        body = AttrStmtNode::make(pf_data[i].op(), AttrKind::PrefetchScope, pf_offset[i], body,
                                  std::to_string(pf_data[i]->value_index));
    Stmt out;
    if (t.defined()) {
      AttrKind k = (t->thread_tag == "vthread" || t->thread_tag == "cthread")
                       ? AttrKind::VirtualThread
                       : AttrKind::ThreadExtent;
      out = AttrStmtNode::make(t, k, ext, body);
    } else if (is_one(ext)) {
      out = body;
    } else {
      out = ForNode::make(loop_var, make_zero(ext.dtype()), ext, kind, body);
    }
    for (auto it = pragmas.rbegin(); it != pragmas.rend(); ++it) {
      AttrKind k = it->first == "auto_unroll_max_step" ? AttrKind::PragmaAutoUnrollMaxStep
                   : it->first == "unroll_explicit"    ? AttrKind::PragmaUnrollExplicit
                                                       : AttrKind::Pragma;
      out = AttrStmtNode::make(iv, k, it->second, out, it->first);
    }
    return out;
  };
}

Stmt NestBuilder::attach_children(const StagePtr& s, const IterVar& iv, Stmt rest) {
  std::vector<StagePtr> kids;
  for (auto& c : sch_.stages())
    if (is_live(c) && c->attach_type == AttachType::Scope && c->attach_stage == s &&
        c->attach_ivar.same_as(iv))
      kids.push_back(c);
  for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
    Stmt p = produce(*it);
    // double_buffer(): mark the producer; storage_flatten renames the node to the buffer and
    // inject_double_buffer splits the enclosing loop.
    if ((*it)->double_buffer)
      p = AttrStmtNode::make((*it)->op, AttrKind::DoubleBufferScope, Expr(1), p);
    rest = realize(*it, BlockNode::make({p, rest}));
  }
  return rest;
}

Stmt NestBuilder::realize(const StagePtr& s, Stmt body) const {
  std::vector<Range> bounds;
  for (auto& iv : s->op.axis()) bounds.push_back(bounds_.ranges.at(iv.get()));
  StorageScope scope = bounds_.scope(s);
  for (int i = s->op.num_outputs() - 1; i >= 0; --i)
    body = RealizeNode::make(s->op, i, s->op->output_dtype(i), bounds, scope, Expr(), body);
  return body;
}

Stmt NestBuilder::guard(Expr pred, Stmt body) const {
  if (!pred.defined()) return body;
  pred = simplify(pred, var_ranges_);
  if (is_one(pred)) return body;
  return IfThenElseNode::make(likely(pred), body);
}

Stmt NestBuilder::store_guard(const StagePtr& s, Stmt body) {
  if (!s->store_predicate.defined()) return body;
  return IfThenElseNode::make(s->store_predicate, body);
}

Stmt NestBuilder::produce(const StagePtr& s) {
  if (is_cross_thread(s)) return make_cross_thread_reduction(s, *this);
  auto* c = s->op.as<ComputeOpNode>();
  const auto& leaves = s->leaf_iter_vars;
  IndexMap vals = index_values(s);
  std::vector<Expr> args;
  for (auto& iv : c->axis) args.push_back(vals.at(iv.get()));
  VarMap vm;
  for (auto& rv : root_vars(s)) vm[rv->var.get()] = vals.at(rv.get());

  Stmt body;
  size_t first_red = leaves.size();
  bool is_reduce = !c->reduce_axis.empty();
  if (is_reduce) {
    for (size_t i = 0; i < leaves.size(); ++i)
      if (leaves[i]->iter_type == IterVarType::CommReduce) {
        first_red = i;
        break;
      }
    auto* red = c->body[0].as<ReduceNode>();
    // update
    std::vector<Expr> old_vals, srcs;
    for (int i = 0; i < c->num_outputs(); ++i)
      old_vals.push_back(ProducerLoadNode::make(c->output_dtype(i), s->op, i, args));
    for (auto& src : red->source) srcs.push_back(substitute(src, vm));
    std::vector<Expr> combined = red->combiner->combine(old_vals, srcs);
    Stmt update;
    if (combined.size() == 1) {
      update = ProvideNode::make(s->op, 0, combined[0], args);
    } else {
      std::vector<Var> tmps;
      std::vector<Stmt> provides;
      for (size_t i = 0; i < combined.size(); ++i) {
        tmps.push_back(Var(s->op.name() + ".v" + std::to_string(i), combined[i].dtype()));
        provides.push_back(ProvideNode::make(s->op, static_cast<int>(i), tmps.back(), args));
      }
      update = BlockNode::make(provides);
      for (size_t i = combined.size(); i-- > 0;)
        update = LetStmtNode::make(tmps[i], combined[i], update);
    }
    Expr cond = substitute(red->condition, vm);
    if (!is_one(cond)) update = IfThenElseNode::make(cond, update);
    Expr pred = bound_predicate(s, vals, true);
    Expr dpred = bound_predicate(s, vals, false);
    if (pred.defined() && dpred.defined())
      pred = pred && dpred;
    else if (dpred.defined())
      pred = dpred;
    update = guard(pred, update);
    update = store_guard(s, update);
    // loops from first_red inward
    for (size_t i = leaves.size(); i-- > first_red;) {
      update = attach_children(s, leaves[i], update);
      update = loop_wrapper(s, leaves[i], leaves[i]->var)(update);
    }
    // init: data-parallel leaves after first_red get fresh loop variables
    VarMap init_vm;
    std::vector<std::pair<IterVar, Var>> init_loops;
    for (size_t i = first_red; i < leaves.size(); ++i) {
      if (leaves[i]->iter_type == IterVarType::CommReduce) continue;
      Var nv(leaves[i]->var->name_hint + ".init", leaves[i]->var.dtype());
      init_vm[leaves[i]->var.get()] = nv;
      init_loops.push_back({leaves[i], nv});
      var_ranges_[nv.get()] = var_ranges_.at(leaves[i]->var.get());
    }
    std::vector<Expr> init_args;
    for (auto& a : args) init_args.push_back(substitute(a, init_vm));
    std::vector<Stmt> inits;
    for (int i = 0; i < c->num_outputs(); ++i)
      inits.push_back(ProvideNode::make(s->op, i, red->combiner->identity[i], init_args));
    Stmt init =
        guard(dpred.defined() ? substitute(dpred, init_vm) : Expr(), BlockNode::make(inits));
    for (auto it = init_loops.rbegin(); it != init_loops.rend(); ++it)
      init = loop_wrapper(s, it->first, it->second, false)(init);
    body = BlockNode::make({init, update});
  } else {
    std::vector<Stmt> provides;
    for (int i = 0; i < c->num_outputs(); ++i)
      provides.push_back(ProvideNode::make(s->op, i, substitute(c->body[i], vm), args));
    body = store_guard(s, guard(bound_predicate(s, vals, false), BlockNode::make(provides)));
  }
  for (size_t i = first_red; i-- > 0;) {
    body = attach_children(s, leaves[i], body);
    body = loop_wrapper(s, leaves[i], leaves[i]->var)(body);
  }
  return ProducerConsumerNode::make(s->op, true, body);
}

Stmt NestBuilder::build_root() {
  Stmt body;
  const auto& stages = sch_.stages();
  for (auto& s : stages) {
    if (!s->double_buffer) continue;
    MINITVM_USER_CHECK(s->attach_type != AttachType::Inline &&
                       s->attach_type != AttachType::InlinedAlready)
        << "In schedule for " << s->op.name()
        << ": the stage is double_buffer()ed but inlined (it has no buffer)";
    MINITVM_USER_CHECK(!s->is_output)
        << "In schedule for " << s->op.name() << ": cannot double_buffer an output stage";
    MINITVM_USER_CHECK(s->attach_type == AttachType::Scope)
        << "In schedule for " << s->op.name()
        << ": double_buffer needs the stage computed inside a loop (compute_at it at a loop axis "
           "of its "
           "consumer, e.g. the outer reduction loop); it is computed at the root";
  }
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const StagePtr& s = *it;
    if (!is_live(s) || s->attach_type == AttachType::Scope) continue;
    Stmt p = produce(s);
    Stmt seq = body.defined() ? BlockNode::make({p, body}) : p;
    body = s->is_output ? seq : realize(s, seq);
  }
  MINITVM_USER_CHECK(body.defined()) << "the schedule computes nothing (no compute stage)";
  return body;
}

}  // namespace detail

ScheduleLowering schedule_to_stmt(Schedule sch) {
  detail::inline_stages(sch);
  detail::NestBuilder nest(sch, detail::infer_bound(sch));
  ScheduleLowering out;
  out.body = nest.build_root();
  out.bounds = nest.bounds().ranges;
  return out;
}

}  // namespace minitvm::te
