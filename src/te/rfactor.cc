// Schedule::rfactor: factor a reduction over one of its reduce leaves into a new stage (TVM's
// s.rfactor, with the same shapes, axis order and guards; see include/minitvm/te/schedule.h).
//
// The reduce leaves connected to `axis` through split/fuse relations (its "component") are
// replaced by fresh variables of the new stage: `axis` becomes a data-parallel axis of the factored
// tensor, the other leaves of the component its reduce axes, and the root reduce axes of the
// component are rebuilt from them by the relations (outer * inner_extent + inner, fused / inner,
// fused % inner). Where a split does not divide, the rebuilt root can overrun its range; such
// elements are excluded by a `likely` guard in the new reduction's condition.
#include <algorithm>
#include <set>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/te/schedule.h"
#include "te/message_passing.h"

namespace minitvm::te {

using namespace ir;

namespace {
std::string iv_name(const IterVar& iv) {
  return iv.defined() ? iv->var->name_hint : "<undefined>";
}

bool contains(const std::vector<IterVar>& v, const IterVar& x) {
  return std::any_of(v.begin(), v.end(), [&](const IterVar& y) { return y.same_as(x); });
}

/** The variables a relation connects. */
std::vector<IterVar> relation_vars(const IterVarRelation& r) {
  std::vector<IterVar> out;
  for (const IterVar* v : {&r.parent, &r.outer, &r.inner, &r.fused})
    if (v->defined()) out.push_back(*v);
  return out;
}
}  // namespace

std::vector<Tensor> Schedule::rfactor(const Tensor& t, const IterVar& axis, int factor_axis) {
  MINITVM_USER_CHECK(t.defined()) << "rfactor: undefined tensor";
  auto st = find_stage(t.op());
  MINITVM_USER_CHECK(st) << "rfactor: tensor " << t.name() << " is not part of this schedule";
  const std::string where = "In schedule for " + st->op.name() + ": ";
  auto* c = st->op.as<ComputeOpNode>();
  MINITVM_USER_CHECK(c && !c->reduce_axis.empty() && c->body[0].as<ReduceNode>())
      << where << "cannot rfactor " << st->op.name()
      << ": it is not a reduction (rfactor needs a compute whose "
      << "body is te::sum/max/min/prod or a comm_reducer)";
  Stage stage(st);
  stage.check_leaf(axis, "rfactor");
  MINITVM_USER_CHECK(axis->iter_type == IterVarType::CommReduce)
      << where << "cannot rfactor axis `" << iv_name(axis)
      << "`: it is a data-parallel axis; rfactor factors "
      << "out a reduction axis (one of the stage's reduce axes or a split/fuse of them)";
  const int ndim = static_cast<int>(c->axis.size());
  MINITVM_USER_CHECK(factor_axis >= -(ndim + 1) && factor_axis <= ndim)
      << where << "rfactor factor_axis " << factor_axis << " is out of range for a " << ndim
      << "-dimensional reduction: the factored tensor has " << ndim + 1
      << " dimensions, so factor_axis must be in [" << -(ndim + 1) << ", " << ndim << "]";
  const size_t pos = static_cast<size_t>(factor_axis >= 0 ? factor_axis : ndim + 1 + factor_axis);

  // The component of `axis`: every variable connected to it through the relations.
  std::set<const IterVarNode*> touched{axis.get()};
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& r : st->relations) {
      auto vars = relation_vars(r);
      bool any = std::any_of(vars.begin(), vars.end(),
                             [&](const IterVar& v) { return touched.count(v.get()); });
      if (!any) continue;
      for (auto& v : vars) grew |= touched.insert(v.get()).second;
    }
  }
  // Loop structure that rfactor would silently drop: data-parallel splits/fuses, and stages
  // attached at leaves that disappear.
  for (auto& r : st->relations)
    for (auto& v : relation_vars(r))
      MINITVM_USER_CHECK(v->iter_type == IterVarType::CommReduce)
          << where << "cannot rfactor after data-parallel axis `" << iv_name(v)
          << "` was split or fused: rfactor rebuilds the stage's loops (call rfactor first, then "
             "schedule "
          << st->op.name() << ")";
  for (auto& other : n_->stages) {
    if (other == st || other->attach_type != AttachType::Scope || other->attach_stage != st)
      continue;
    MINITVM_USER_CHECK(contains(c->axis, other->attach_ivar))
        << where << "cannot rfactor while stage " << other->op.name()
        << " is computed at its axis `" << iv_name(other->attach_ivar)
        << "`, which rfactor removes (call rfactor before compute_at)";
  }

  // Ranges of the component (roots from their domains, then down the relations, in order).
  std::unordered_map<const IterVarNode*, Range> dom;
  for (auto& iv : c->reduce_axis)
    if (touched.count(iv.get())) dom[iv.get()] = iv->dom;
  for (auto& r : st->relations)
    if (touched.count(r.outer.get())) detail::pass_down_domain(r, dom);
  MINITVM_USER_CHECK(is_zero(simplify(dom.at(axis.get()).min())))
      << where << "cannot rfactor axis `" << iv_name(axis) << "`: its range starts at "
      << dom.at(axis.get()).min()
      << ", and rfactor needs a reduction range starting at 0 (split the axis and rfactor a part "
         "of it)";

  // Fresh variables for the component's leaves: `axis` becomes data-parallel, the rest stay
  // reductions of the new stage.
  std::unordered_map<const IterVarNode*, IterVar> fresh;
  std::unordered_map<const IterVarNode*, Expr> val;  // component var -> value in fresh variables
  RangeMap leaf_ranges;
  std::vector<IterVar> touched_leaves;
  for (auto& lv : st->leaf_iter_vars) {
    if (!touched.count(lv.get())) continue;
    const Range& r = dom.at(lv.get());
    IterVarType type = lv.same_as(axis) ? IterVarType::DataPar : IterVarType::CommReduce;
    IterVar n(r, Var(lv->var->name_hint, lv->var.dtype()), type);
    fresh[lv.get()] = n;
    val[lv.get()] = n->var;
    leaf_ranges[n->var.get()] = r;
    touched_leaves.push_back(lv);
  }
  // Up the relations (parents are relative to 0 except roots that are leaves themselves).
  std::vector<Expr> guards;
  for (auto it = st->relations.rbegin(); it != st->relations.rend(); ++it) {
    auto& r = *it;
    if (!touched.count(r.outer.get())) continue;
    if (r.kind == IterVarRelation::Kind::Split) {
      Expr v = val.at(r.outer.get()) * dom.at(r.inner.get()).extent() + val.at(r.inner.get());
      val[r.parent.get()] = v;
      Expr guard = v < dom.at(r.parent.get()).extent();
      if (!can_prove(guard, leaf_ranges)) guards.push_back(guard);
    } else if (r.kind == IterVarRelation::Kind::Fuse) {
      Expr fv = val.at(r.fused.get());
      Expr ie = dom.at(r.inner.get()).extent();
      val[r.outer.get()] = floordiv(fv, ie);
      val[r.inner.get()] = floormod(fv, ie);
    }
  }
  VarMap vsub;
  for (auto& iv : c->reduce_axis) {
    if (!touched.count(iv.get())) continue;
    bool is_leaf = contains(st->leaf_iter_vars, iv);
    vsub[iv->var.get()] = is_leaf ? val.at(iv.get()) : simplify(iv->dom.min() + val.at(iv.get()));
  }

  // The factored operation: the axes of t with `axis` inserted at `pos`; reduce axes: the unrelated
  // reduce axes of t, then the component's other leaves.
  std::vector<IterVar> rf_axes;
  for (auto& iv : c->axis) {
    IterVar n(iv->dom, Var(iv->var->name_hint, iv->var.dtype()), IterVarType::DataPar);
    vsub[iv->var.get()] = n->var;
    rf_axes.push_back(n);
  }
  rf_axes.insert(rf_axes.begin() + static_cast<std::ptrdiff_t>(pos), fresh.at(axis.get()));
  std::vector<IterVar> rf_reduce;
  for (auto& iv : c->reduce_axis)
    if (!touched.count(iv.get())) rf_reduce.push_back(iv);
  for (auto& lv : touched_leaves)
    if (!lv.same_as(axis)) rf_reduce.push_back(fresh.at(lv.get()));
  MINITVM_USER_CHECK(!rf_reduce.empty()) << where << "rfactor of axis `" << iv_name(axis)
                                         << "` leaves no reduction for the factored stage: split `"
                                         << iv_name(axis) << "` first and rfactor one of its parts";

  const int value_index = t.value_index();
  auto* red = c->body[value_index].as<ReduceNode>();
  std::vector<Expr> sources;
  for (auto& src : red->source) sources.push_back(substitute(src, vsub));
  Expr cond = substitute(red->condition, vsub);
  if (!guards.empty()) {
    Expr g = guards[0];
    for (size_t i = 1; i < guards.size(); ++i) g = g && guards[i];
    g = likely(substitute(g, vsub));
    cond = is_one(cond) ? g : (g && cond);
  }
  std::vector<Expr> rf_body;
  for (size_t i = 0; i < sources.size(); ++i)
    rf_body.push_back(
        ReduceNode::make(red->combiner, sources, rf_reduce, cond, static_cast<int>(i)));
  Operation rf_op = make_compute_op(c->name + ".rf", "", rf_axes, rf_body);

  // The reduction now sums the factored tensor over `<axis>.v`, keeping t's axes (user handles to
  // them stay valid) and name.
  IterVar rv(dom.at(axis.get()), Var(axis->var->name_hint + ".v", axis->var.dtype()),
             IterVarType::CommReduce);
  std::vector<Expr> idx;
  for (auto& iv : c->axis) idx.push_back(iv->var);
  idx.insert(idx.begin() + static_cast<std::ptrdiff_t>(pos), rv->var);
  std::vector<Expr> rf_values;
  for (int i = 0; i < rf_op.num_outputs(); ++i) rf_values.push_back(rf_op.output(i).read(idx));
  std::vector<Expr> repl_body;
  for (size_t i = 0; i < rf_values.size(); ++i)
    repl_body.push_back(
        ReduceNode::make(red->combiner, rf_values, {rv}, Expr(), static_cast<int>(i)));
  Operation old_op = st->op;
  Operation repl_op = make_compute_op(c->name, c->tag, c->axis, repl_body);

  // The factored stage: unrelated reduce axes keep their splits, order and attributes.
  auto rs = detail::make_stage(rf_op);
  rs->schedule = n_.get();
  for (auto& r : st->relations) {
    if (touched.count(r.outer.get())) continue;
    rs->relations.push_back(r);
    for (auto& v : relation_vars(r))
      if (!contains(rs->all_iter_vars, v)) rs->all_iter_vars.push_back(v);
  }
  rs->leaf_iter_vars = rf_axes;
  for (auto& lv : st->leaf_iter_vars) {
    if (touched.count(lv.get())) continue;
    if (lv->iter_type != IterVarType::CommReduce) continue;
    rs->leaf_iter_vars.push_back(lv);
    auto a = st->iter_var_attrs.find(lv.get());
    if (a != st->iter_var_attrs.end()) rs->iter_var_attrs[lv.get()] = a->second;
  }
  for (auto& lv : touched_leaves)
    if (!lv.same_as(axis)) rs->leaf_iter_vars.push_back(fresh.at(lv.get()));

  // The reduction stage: its axes (with their attributes) and the new reduce axis.
  st->op = repl_op;
  st->all_iter_vars = c->axis;
  st->all_iter_vars.push_back(rv);
  st->leaf_iter_vars = st->all_iter_vars;
  st->relations.clear();
  std::map<const IterVarNode*, IterVarAttr> kept;
  for (auto& iv : c->axis) {
    auto a = st->iter_var_attrs.find(iv.get());
    if (a != st->iter_var_attrs.end()) kept[iv.get()] = a->second;
  }
  st->iter_var_attrs = std::move(kept);

  std::set<const OperationNode*> readers;
  for (auto& s : n_->stages)
    if (s != st) readers.insert(s->op.get());
  detail::replace_dataflow(n_.get(), {{old_op.get(), repl_op}}, readers);
  n_->stages.insert(std::find(n_->stages.begin(), n_->stages.end(), st), rs);

  std::vector<Tensor> out;
  for (int i = 0; i < rf_op.num_outputs(); ++i) out.push_back(rf_op.output(i));
  return out;
}

}  // namespace minitvm::te
