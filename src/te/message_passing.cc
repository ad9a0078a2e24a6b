// Domains down and index values up a stage's split/fuse relations, and the bound checks the values
// need (TVM's PassDownDomain, PassUpIndex, MakeBoundCheck).
#include "te/message_passing.h"

#include <unordered_set>
#include <vector>

namespace minitvm::te::detail {

using namespace ir;

void pass_down_domain(const IterVarRelation& r, DomainMap& dom) {
  if (r.kind == IterVarRelation::Kind::Split) {
    Expr e = dom.at(r.parent.get()).extent();
    Expr f, n;
    if (r.factor.defined()) {
      f = r.factor;
      n = simplify(floordiv(e + f - 1, f));
    } else {
      n = r.nparts;
      f = simplify(floordiv(e + n - 1, n));
    }
    dom[r.outer.get()] = Range(make_zero(e.dtype()), n);
    dom[r.inner.get()] = Range(make_zero(e.dtype()), f);
  } else if (r.kind == IterVarRelation::Kind::Fuse) {
    Expr e = simplify(dom.at(r.outer.get()).extent() * dom.at(r.inner.get()).extent());
    dom[r.fused.get()] = Range(make_zero(e.dtype()), e);
  }
}

Expr extent_of(const DomainMap& dom, const IterVar& iv) {
  auto it = dom.find(iv.get());
  MINITVM_ICHECK(it != dom.end()) << "no bound for " << iv->var->name_hint;
  return it->second.extent();
}

Expr leaf_value(const StagePtr& s, const IterVar& iv, const DomainMap& dom) {
  if (IterVar t = bound_thread(s, iv); t.defined()) return t->var;
  if (is_one(extent_of(dom, iv))) return make_zero(iv->var.dtype());
  return iv->var;
}

IndexMap pass_up_index(const StagePtr& s, const DomainMap& dom,
                       const std::function<Expr(const IterVar&)>& leaf) {
  IndexMap v;
  for (auto& iv : s->leaf_iter_vars) v[iv.get()] = leaf(iv);
  for (auto it = s->relations.rbegin(); it != s->relations.rend(); ++it) {
    auto& r = *it;
    if (r.kind == IterVarRelation::Kind::Split) {
      Expr f = extent_of(dom, r.inner);
      v[r.parent.get()] = v.at(r.outer.get()) * f + v.at(r.inner.get());
    } else if (r.kind == IterVarRelation::Kind::Fuse) {
      Expr ie = extent_of(dom, r.inner);
      Expr fv = v.at(r.fused.get());
      v[r.outer.get()] = is_one(ie) ? fv : floordiv(fv, ie);
      v[r.inner.get()] = is_one(ie) ? make_zero(fv.dtype()) : floormod(fv, ie);
    }
  }
  for (auto& iv : root_vars(s)) {
    Expr off = v.count(iv.get()) ? v.at(iv.get()) : make_zero(iv->var.dtype());
    v[iv.get()] = simplify(dom.at(iv.get()).min() + off);
  }
  return v;
}

Expr make_bound_check(const StagePtr& s, const DomainMap& dom, const RangeMap& var_ranges,
                      const IndexMap& vals, bool reduce_vars) {
  Expr pred;
  std::vector<Expr> seen;
  auto add = [&](Expr p) {
    if (can_prove(p, var_ranges)) return;
    for (auto& q : seen)
      if (structural_equal(q, p)) return;
    seen.push_back(p);
    pred = pred.defined() ? (pred && p) : p;
  };
  auto check_range = [&](const Expr& v, const Range& r) {
    add(v < simplify(r.min() + r.extent()));
    add(v >= r.min());
  };
  auto* c = s->op.as<ComputeOpNode>();
  // Root axes: within the inferred range and within the tensor.
  for (auto& iv : reduce_vars ? c->reduce_axis : c->axis) {
    Expr v = vals.at(iv.get());
    const Range& inferred = dom.at(iv.get());
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
    add(vals.at(r.parent.get()) < dom.at(r.parent.get()).extent());
  }
  return pred;
}

}  // namespace minitvm::te::detail
