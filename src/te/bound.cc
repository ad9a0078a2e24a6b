// Bound inference (TVM's InferBound, simplified): consumers first, each stage gets the region its
// consumers read, with the loops enclosing it fixed and the other loops relaxed.
#include "te/bound.h"

#include <algorithm>
#include <set>
#include <vector>

namespace minitvm::te::detail {

using namespace ir;

namespace {

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

/** The storage scope of a stage: its own, or (as TVM infers it) local when it is computed inside
 * a threadIdx/vthread loop, shared inside only blockIdx loops, else global. */
StorageScope effective_scope(const StagePtr& s) {
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

class BoundInferer {
 public:
  explicit BoundInferer(const Schedule& sch) : sch_(sch) {}

  BoundMap run() {
    for (auto& s : sch_.stages())
      if (is_live(s)) out_.scopes[s.get()] = effective_scope(s);
    for (auto it = sch_.stages().rbegin(); it != sch_.stages().rend(); ++it) infer_stage(*it);
    return std::move(out_);
  }

 private:
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
      int rank = scope_rank(out_.scope(s));
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
          Expr val = leaf_value(st, iv, out_.ranges);
          if (auto* v = val.as<VarNode>()) {
            Expr ext = out_.extent(iv);
            leaf_dom[v] = {make_zero(ext.dtype()), simplify(ext - 1)};
          }
        }
        for (auto& lv : cons->leaf_iter_vars) {
          Expr val = leaf_value(cons, lv, out_.ranges);
          if (fixed.count(lv.get())) {
            leaf_dom[lv->var.get()] = IntervalSet::point(val);
          } else {
            Expr ext = out_.extent(lv);
            leaf_dom[lv->var.get()] = {make_zero(ext.dtype()), simplify(ext - 1)};
          }
        }
        // Values of the consumer's root vars in terms of its leaf vars (not thread vars, so that
        // relaxed leaf vars can be bounded).
        auto vals = pass_up_index(cons, out_.ranges, [&](const IterVar& lv) -> Expr {
          if (is_one(out_.extent(lv))) return make_zero(lv->var.dtype());
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
          if (const_upper_bound(ext, out_.var_ranges, &ub) && ub < type_max)
            ext = make_const(ext.dtype(), ub);
        }
        r = Range(mn, ext);
      }
      out_.ranges[c->axis[i].get()] = r;
    }
    for (auto& iv : c->reduce_axis) out_.ranges[iv.get()] = iv->dom;
    pass_down(s);
  }

  /** A consumer's read of a producer dimension, intersected with the producer's own domain where
   *  that is provably tighter (TVM's PropBoundToInputs): the consumer's loops may overrun the
   * tensor (oversized or non-dividing split factors, guarded by `likely`), but the producer never
   * needs to compute or hold more than its shape. */
  IntervalSet clamp_to_domain(IntervalSet is, const Range& dom) const {
    Expr lo = dom.min();
    Expr hi = simplify(dom.min() + dom.extent() - 1);
    if (!is.min.defined() || can_prove(lo >= is.min, out_.var_ranges)) is.min = lo;
    if (!is.max.defined() || can_prove(hi <= is.max, out_.var_ranges)) is.max = hi;
    return is;
  }

  /** The ranges of the axes the relations of s derive, and of its leaves' loop and thread vars. */
  void pass_down(const StagePtr& s) {
    for (auto& r : s->relations) pass_down_domain(r, out_.ranges);
    for (auto& lv : s->leaf_iter_vars) {
      Expr ext = out_.ranges.at(lv.get()).extent();
      out_.var_ranges[lv->var.get()] = Range(make_zero(ext.dtype()), ext);
      if (IterVar t = bound_thread(s, lv); t.defined())
        out_.var_ranges[t->var.get()] = Range(make_zero(ext.dtype()), ext);
    }
  }

  const Schedule& sch_;
  BoundMap out_;
};

}  // namespace

BoundMap infer_bound(const Schedule& sch) {
  return BoundInferer(sch).run();
}

}  // namespace minitvm::te::detail
