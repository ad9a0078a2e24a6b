// Bound inference and loop-nest construction (TVM's InferBound + ScheduleOps, simplified).
#include "minitvm/te/schedule_ops.h"

#include "te/schedule_internal.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_set>

namespace minitvm::te {

using namespace ir;

namespace {

using StagePtr = std::shared_ptr<StageNode>;

/** How widely a storage scope is shared: global 0, shared (a block) 1, warp 2, local (a thread)
 * 3. */
int scope_rank(StorageScope scope) {
  switch (scope) {
    case StorageScope::Global:
      return 0;
    case StorageScope::Shared:
      return 1;
    case StorageScope::Warp:
      return 2;
    case StorageScope::Local:
      return 3;
  }
  return 3;
}

class Lowerer {
 public:
  explicit Lowerer(Schedule sch) : sch_(std::move(sch)) {}

  ScheduleLowering run() {
    inline_stages();
    for (auto it = sch_.stages().rbegin(); it != sch_.stages().rend(); ++it) infer_stage(*it);
    ScheduleLowering out;
    out.body = build_root();
    out.bounds = dom_;
    return out;
  }

 private:
  // ---- inlining
  // ----------------------------------------------------------------------------------
  void inline_stages() {
    for (auto& s : sch_.stages()) {
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
      for (auto& other : sch_.stages()) {
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

  // ---- helpers
  // -----------------------------------------------------------------------------------
  static std::vector<IterVar> root_vars(const StagePtr& s) {
    std::vector<IterVar> r = s->op.axis();
    for (auto& iv : s->op.reduce_axis()) r.push_back(iv);
    return r;
  }
  const IterVarAttr* attr_of(const StagePtr& s, const IterVar& iv) const {
    auto it = s->iter_var_attrs.find(iv.get());
    return it == s->iter_var_attrs.end() ? nullptr : &it->second;
  }
  IterVar bound_thread(const StagePtr& s, const IterVar& iv) const {
    auto* a = attr_of(s, iv);
    return a ? a->bind_thread : IterVar();
  }
  Expr extent_of(const IterVar& iv) const {
    auto it = dom_.find(iv.get());
    MINITVM_ICHECK(it != dom_.end()) << "no bound for " << iv->var->name_hint;
    return it->second.extent();
  }
  bool is_live(const StagePtr& s) const {
    return s->op.op_type() == OpType::Compute && s->attach_type != AttachType::InlinedAlready &&
           s->attach_type != AttachType::Inline;
  }

  /** Whether a reduce leaf of s is bound to a thread (a cross-thread reduction). */
  bool is_cross_thread(const StagePtr& s) const {
    for (auto& lv : s->leaf_iter_vars)
      if (lv->iter_type == IterVarType::CommReduce && bound_thread(s, lv).defined()) return true;
    return false;
  }

  /** The expression each leaf var takes in generated code: its own var, its thread var, or 0. */
  Expr leaf_value(const StagePtr& s, const IterVar& iv) const {
    if (IterVar t = bound_thread(s, iv); t.defined()) return t->var;
    if (is_one(extent_of(iv))) return make_zero(iv->var.dtype());
    return iv->var;
  }

  /** Root-var values (absolute) in terms of leaf values, passing up through the relations. */
  std::unordered_map<const IterVarNode*, Expr> pass_up(
      const StagePtr& s, const std::function<Expr(const IterVar&)>& leaf) const {
    std::unordered_map<const IterVarNode*, Expr> v;
    for (auto& iv : s->leaf_iter_vars) v[iv.get()] = leaf(iv);
    for (auto it = s->relations.rbegin(); it != s->relations.rend(); ++it) {
      auto& r = *it;
      if (r.kind == IterVarRelation::Kind::Split) {
        Expr f = extent_of(r.inner);
        v[r.parent.get()] = v.at(r.outer.get()) * f + v.at(r.inner.get());
      } else if (r.kind == IterVarRelation::Kind::Fuse) {
        Expr ie = extent_of(r.inner);
        Expr fv = v.at(r.fused.get());
        v[r.outer.get()] = is_one(ie) ? fv : floordiv(fv, ie);
        v[r.inner.get()] = is_one(ie) ? make_zero(fv.dtype()) : floormod(fv, ie);
      }
    }
    for (auto& iv : root_vars(s)) {
      Expr off = v.count(iv.get()) ? v.at(iv.get()) : make_zero(iv->var.dtype());
      v[iv.get()] = simplify(dom_.at(iv.get()).min() + off);
    }
    return v;
  }

  /** The storage scope of a stage: its own, or (as TVM infers it) local when it is computed inside
   * a threadIdx/vthread loop, shared inside only blockIdx loops, else global. */
  StorageScope effective_scope(const StagePtr& s) const {
    if (s->scope) return *s->scope;
    int max_rank = -1;
    for (auto& [st, iv] : enclosing_loops(s)) {
      IterVar t = bound_thread(st, iv);
      if (t.defined()) max_rank = std::max(max_rank, thread_scope_of(t->thread_tag).first);
    }
    // A cross-thread reduction leaves its result in every thread (or the one its store predicate
    // picks), so inside a kernel it is per-thread data even when only blockIdx loops enclose it
    // (TVM's storage_flatten also makes it local there).
    if (max_rank == 0 && is_cross_thread(s)) return StorageScope::Local;
    if (max_rank >= 1) return StorageScope::Local;
    if (max_rank == 0) return StorageScope::Shared;
    return StorageScope::Global;
  }

  /** Loops enclosing the attach point of s: (stage, leaf iter var) pairs, innermost last. */
  std::vector<std::pair<StagePtr, IterVar>> enclosing_loops(const StagePtr& s) const {
    std::vector<std::pair<StagePtr, IterVar>> out;
    StagePtr cur = s;
    while (cur && cur->attach_type == AttachType::Scope) {
      StagePtr parent = cur->attach_stage;
      std::vector<std::pair<StagePtr, IterVar>> part;
      for (auto& iv : parent->leaf_iter_vars) {
        part.push_back({parent, iv});
        if (iv.same_as(cur->attach_ivar)) break;
      }
      out.insert(out.begin(), part.begin(), part.end());
      cur = parent;
    }
    return out;
  }

  // ---- bound inference
  // ---------------------------------------------------------------------------
  void infer_stage(const StagePtr& s) {
    if (!is_live(s)) return;
    auto* c = s->op.as<ComputeOpNode>();
    std::vector<IntervalSet> region(c->axis.size());
    std::vector<bool> touched(c->axis.size(), false);
    if (s->is_output) {
      for (size_t i = 0; i < c->axis.size(); ++i)
        region[i] = IntervalSet::from_range(c->axis[i]->dom);
      std::fill(touched.begin(), touched.end(), true);
    } else {
      // Loops enclosing s stay fixed when computing consumers' regions, except thread axes that the
      // storage scope of s is shared across.
      std::set<const IterVarNode*> fixed;
      int rank = scope_rank(effective_scope(s));
      for (auto& [st, iv] : enclosing_loops(s)) {
        IterVar t = bound_thread(st, iv);
        if (t.defined()) {
          auto [trank, dim] = thread_scope_of(t->thread_tag);
          if (rank <= trank) continue;  // relaxed
        }
        fixed.insert(iv.get());
      }
      for (auto& cons : sch_.stages()) {
        if (!is_live(cons) || cons == s) continue;
        bool reads = false;
        for (auto& t : cons->op.input_tensors()) reads |= t.op().same_as(s->op);
        if (!reads) continue;
        auto* cc = cons->op.as<ComputeOpNode>();
        IntervalMap leaf_dom;
        // Loops enclosing the consumer appear in its inferred ranges (through their loop or thread
        // variables); relax those that do not enclose s.
        for (auto& [st, iv] : enclosing_loops(cons)) {
          if (fixed.count(iv.get())) continue;
          Expr val = leaf_value(st, iv);
          if (auto* v = val.as<VarNode>()) {
            Expr ext = extent_of(iv);
            leaf_dom[v] = {make_zero(ext.dtype()), simplify(ext - 1)};
          }
        }
        for (auto& lv : cons->leaf_iter_vars) {
          Expr val = leaf_value(cons, lv);
          if (fixed.count(lv.get())) {
            leaf_dom[lv->var.get()] = IntervalSet::point(val);
          } else {
            Expr ext = extent_of(lv);
            leaf_dom[lv->var.get()] = {make_zero(ext.dtype()), simplify(ext - 1)};
          }
        }
        // Values of the consumer's root vars in terms of its leaf vars (not thread vars, so that
        // relaxed leaf vars can be bounded).
        auto vals = pass_up(cons, [&](const IterVar& lv) -> Expr {
          if (is_one(extent_of(lv))) return make_zero(lv->var.dtype());
          return lv->var;
        });
        VarMap vm;
        for (auto& rv : root_vars(cons)) vm[rv->var.get()] = vals.at(rv.get());
        auto visit_loads = [&](const Expr& e) {
          post_order_visit(e, [&](const Ref<Object>& n) {
            auto* p = n.as<ProducerLoadNode>();
            if (!p || p->op.get() != s->op.get()) return;
            for (size_t d = 0; d < p->indices.size(); ++d) {
              IntervalSet is = clamp_to_domain(
                  eval_interval(substitute(p->indices[d], vm), leaf_dom), c->axis[d]->dom);
              region[d] = touched[d] ? interval_union(region[d], is) : is;
              touched[d] = true;
            }
          });
        };
        for (auto& b : cc->body) {
          if (auto* r = b.as<ReduceNode>()) {
            for (auto& src : r->source) visit_loads(src);
            visit_loads(r->condition);
          } else {
            visit_loads(b);
          }
        }
      }
    }
    for (size_t i = 0; i < c->axis.size(); ++i) {
      const Range& full = c->axis[i]->dom;
      Range r = full;
      if (!s->is_output && touched[i] && region[i].is_bounded()) {
        Expr mn = simplify(region[i].min);
        Expr ext = simplify(region[i].max - region[i].min + 1);
        if (!as_const_int(ext)) {
          // A symbolic extent bounded by a constant (e.g. min(64, n - bx*64)) is sized by that
          // constant; one bounded only by its type (a symbolic shape `n`) stays symbolic.
          int64_t ub;
          const int bits = ext.dtype().bits();
          const int64_t type_max = bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
          if (const_upper_bound(ext, all_ranges_, &ub) && ub < type_max)
            ext = make_const(ext.dtype(), ub);
        }
        r = Range(mn, ext);
      }
      dom_[c->axis[i].get()] = r;
    }
    for (auto& iv : c->reduce_axis) dom_[iv.get()] = iv->dom;
    pass_down(s);
  }

  /** A consumer's read of a producer dimension, intersected with the producer's own domain where
   *  that is provably tighter (TVM's PropBoundToInputs): the consumer's loops may overrun the
   * tensor (oversized or non-dividing split factors, guarded by `likely`), but the producer never
   * needs to compute or hold more than its shape. */
  IntervalSet clamp_to_domain(IntervalSet is, const Range& dom) const {
    Expr lo = dom.min();
    Expr hi = simplify(dom.min() + dom.extent() - 1);
    if (!is.min.defined() || can_prove(lo >= is.min, all_ranges_)) is.min = lo;
    if (!is.max.defined() || can_prove(hi <= is.max, all_ranges_)) is.max = hi;
    return is;
  }

  void pass_down(const StagePtr& s) {
    for (auto& r : s->relations) detail::pass_down_domain(r, dom_);
    for (auto& lv : s->leaf_iter_vars) {
      Expr ext = dom_.at(lv.get()).extent();
      all_ranges_[lv->var.get()] = Range(make_zero(ext.dtype()), ext);
      if (IterVar t = bound_thread(s, lv); t.defined())
        all_ranges_[t->var.get()] = Range(make_zero(ext.dtype()), ext);
    }
  }

  // ---- loop nests
  // --------------------------------------------------------------------------------
  struct Loop {
    IterVar iv;
    std::function<Stmt(Stmt)> wrap;
  };

  /** Wraps a body in the loop of `iv` (or its thread attribute), its pragmas and, unless
   *  `with_prefetch` is false (reduction init loops), its prefetch_scope attributes. */
  std::function<Stmt(Stmt)> loop_wrapper(const StagePtr& s, const IterVar& iv, const Var& loop_var,
                                         bool with_prefetch = true) {
    Expr ext = extent_of(iv);
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

  /** Statements of stages attached at (s, iv), each realized around `rest`. */
  Stmt attach_children(const StagePtr& s, const IterVar& iv, Stmt rest) {
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

  Stmt realize(const StagePtr& s, Stmt body) {
    std::vector<Range> bounds;
    for (auto& iv : s->op.axis()) bounds.push_back(dom_.at(iv.get()));
    StorageScope scope = effective_scope(s);
    for (int i = s->op.num_outputs() - 1; i >= 0; --i)
      body = RealizeNode::make(s->op, i, s->op->output_dtype(i), bounds, scope, Expr(), body);
    return body;
  }

  /** Guards for root vars whose values may leave their inferred range or the tensor. */
  Expr bound_predicate(const StagePtr& s, const std::unordered_map<const IterVarNode*, Expr>& vals,
                       bool reduce_vars) {
    const RangeMap& ranges = all_ranges_;
    Expr pred;
    auto add = [&](Expr p) {
      if (can_prove(p, ranges)) return;
      for (auto& seen : preds_seen_)
        if (structural_equal(seen, p)) return;
      preds_seen_.push_back(p);
      pred = pred.defined() ? (pred && p) : p;
    };
    auto check_range = [&](const Expr& v, const Range& r) {
      add(v < simplify(r.min() + r.extent()));
      add(v >= r.min());
    };
    preds_seen_.clear();
    auto* c = s->op.as<ComputeOpNode>();
    // Root axes: within the inferred range and within the tensor.
    for (auto& iv : reduce_vars ? c->reduce_axis : c->axis) {
      Expr v = vals.at(iv.get());
      const Range& inferred = dom_.at(iv.get());
      check_range(v, inferred);
      if (!structural_equal(inferred.min(), iv->dom.min()) ||
          !structural_equal(inferred.extent(), iv->dom.extent()))
        check_range(v, iv->dom);
    }
    // Intermediate axes that were split again (e.g. a fused cooperative-fetch axis split by thread
    // counts): when the split does not divide, the leaf loops overrun the parent, which
    // floordiv/floormod would fold back onto valid (duplicate) elements. Guard the parent's offset,
    // as TVM's PassUpBoundCheck does.
    std::unordered_set<const IterVarNode*> roots;
    for (auto& iv : c->axis) roots.insert(iv.get());
    for (auto& iv : c->reduce_axis) roots.insert(iv.get());
    for (auto& r : s->relations) {
      if (r.kind != IterVarRelation::Kind::Split || roots.count(r.parent.get())) continue;
      if ((r.parent->iter_type == IterVarType::CommReduce) != reduce_vars) continue;
      add(vals.at(r.parent.get()) < dom_.at(r.parent.get()).extent());
    }
    return pred;
  }

  Stmt guard(Expr pred, Stmt body) {
    if (!pred.defined()) return body;
    pred = simplify(pred, all_ranges_);
    if (is_one(pred)) return body;
    return IfThenElseNode::make(likely(pred), body);
  }

  /** The stage's store predicate (set_store_predicate) around its store. */
  static Stmt store_guard(const StagePtr& s, Stmt body) {
    if (!s->store_predicate.defined()) return body;
    return IfThenElseNode::make(s->store_predicate, body);
  }

  Stmt produce(const StagePtr& s) {
    if (is_cross_thread(s)) return produce_cross_thread(s);
    auto* c = s->op.as<ComputeOpNode>();
    const auto& leaves = s->leaf_iter_vars;
    auto vals = pass_up(s, [&](const IterVar& lv) { return leaf_value(s, lv); });
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
        all_ranges_[nv.get()] = all_ranges_.at(leaves[i]->var.get());
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
  Stmt produce_cross_thread(const StagePtr& s) {
    auto* c = s->op.as<ComputeOpNode>();
    const auto& leaves = s->leaf_iter_vars;
    auto* red = c->body[0].as<ReduceNode>();
    MINITVM_ICHECK(red) << "cross-thread reduction of a non-reduction";
    const CommReducer& comb = red->combiner;
    const size_t size = static_cast<size_t>(c->num_outputs());
    auto vals = pass_up(s, [&](const IterVar& lv) { return leaf_value(s, lv); });
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
    Expr rpred = bound_predicate(s, vals, true);
    Expr dpred = bound_predicate(s, vals, false);
    Expr in_range;
    for (const Expr& p : {rpred, dpred})
      if (p.defined()) in_range = in_range.defined() ? (in_range && p) : p;
    if (in_range.defined()) in_range = simplify(in_range, all_ranges_);
    Expr cond = simplify(substitute(red->condition, vm), all_ranges_);
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
      for (size_t i = tmps.size(); i-- > 0;)
        update = LetStmtNode::make(tmps[i], combined[i], update);
      if (!is_one(cond)) update = IfThenElseNode::make(cond, update);
      update = guard(in_range, update);
      for (size_t i = leaves.size(); i-- > 0;) {
        if (!contains(normal, leaves[i])) continue;
        update = attach_children(s, leaves[i], update);
        update = loop_wrapper(s, leaves[i], leaves[i]->var)(update);
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
    Stmt allreduce = EvaluateNode::make(
        CallNode::make(DataType::Handle(), Intrinsic::ThreadAllreduce, call_args));
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
    seq.push_back(store_guard(s, guard(dpred, BlockNode::make(assigns))));
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
      body = attach_children(s, leaves[i], body);
      body = loop_wrapper(s, leaves[i], leaves[i]->var)(body);
    }
    return ProducerConsumerNode::make(s->op, true, body);
  }

  static bool contains(const std::vector<IterVar>& v, const IterVar& x) {
    return std::any_of(v.begin(), v.end(), [&](const IterVar& y) { return y.same_as(x); });
  }

  Stmt build_root() {
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

  Schedule sch_;
  std::vector<Expr> preds_seen_;
  std::unordered_map<const IterVarNode*, Range> dom_;
  RangeMap all_ranges_;
};

}  // namespace

ScheduleLowering schedule_to_stmt(Schedule sch) {
  // Validate attachments before doing anything: the attach target must still consume the stage.
  return Lowerer(std::move(sch)).run();
}

}  // namespace minitvm::te
