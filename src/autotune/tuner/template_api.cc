// The TVM-style knob API of space.h that touches schedules: define_split on an axis, and
// Knob::apply for split, reorder and annotate entities (TVM autotvm/task/space.py semantics).
#include <climits>

#include "minitvm/autotune/space.h"
#include "minitvm/support/error.h"
#include "minitvm/te/schedule.h"
#include "minitvm/te/tensor.h"

namespace minitvm::autotune {

namespace {

Expr factor_expr(int64_t v) {
  return (v >= INT32_MIN && v <= INT32_MAX) ? Expr(static_cast<int>(v)) : Expr(v);
}

int64_t axis_extent(const std::string& name, const ir::IterVar& axis) {
  MINITVM_USER_CHECK(axis.defined()) << "define_split('" << name << "'): undefined axis";
  MINITVM_USER_CHECK(axis.dom().defined())
      << "define_split('" << name << "'): axis " << axis.var()->name_hint << " has no range";
  const int64_t* e = as_const_int(axis.dom().extent());
  MINITVM_USER_CHECK(e) << "define_split('" << name << "'): axis " << axis.var()->name_hint
                        << " has a symbolic extent (a knob needs a constant one)";
  return *e;
}

}  // namespace

void SpaceDefiner::define_split(const std::string& name, const ir::IterVar& axis,
                                const SplitOptions& opt) {
  define_split(name, axis_extent(name, axis), opt);
}

void SpaceDefiner::define_reorder(const std::string& name, const std::vector<ir::IterVar>& axes,
                                  const std::string& policy,
                                  const std::vector<std::vector<int64_t>>& candidate) {
  define_reorder(name, static_cast<int>(axes.size()), policy, candidate);
}

void SpaceDefiner::define_annotate(const std::string& name, const std::vector<ir::IterVar>& axes,
                                   const std::string& policy, int num_anchor) {
  define_annotate(name, static_cast<int>(axes.size()), policy, num_anchor);
}

std::vector<ir::IterVar> Knob::apply(te::Schedule& s, const te::Tensor& op,
                                     const ir::IterVar& axis) const {
  te::Stage st = s[op];
  return apply(st, axis);
}

std::vector<ir::IterVar> Knob::apply(te::Stage& stage, const ir::IterVar& axis) const {
  // `apply(s, C, {x})` lands here: a reorder / annotate of one axis.
  if (std::holds_alternative<ReorderEntity>(entity()) ||
      std::holds_alternative<AnnotateEntity>(entity()))
    return apply(stage, std::vector<ir::IterVar>{axis});
  const std::vector<int64_t>& sz = size();  // InvalidConfig unless a split
  (void)sz;
  std::vector<ir::IterVar> out;
  ir::IterVar cur = axis;
  for (int64_t f : split_factors(std::get<SplitEntity>(entity()))) {
    auto [o, i] = stage.split(cur, factor_expr(f));
    out.push_back(o);
    cur = i;
  }
  out.push_back(cur);
  return out;
}

std::vector<ir::IterVar> Knob::apply(te::Schedule& s, const te::Tensor& op,
                                     const std::vector<ir::IterVar>& axes) const {
  te::Stage st = s[op];
  return apply(st, axes);
}

std::vector<ir::IterVar> Knob::apply(te::Stage& stage, const std::vector<ir::IterVar>& axes) const {
  if (auto* r = std::get_if<ReorderEntity>(&entity())) {
    // TVM: all of perm when it has one entry per axis, else the entries that name an axis.
    std::vector<ir::IterVar> order;
    for (int64_t p : r->perm)
      if (p < static_cast<int64_t>(axes.size()))
        order.push_back(axes[static_cast<size_t>(p)]);
      else
        MINITVM_CONFIG_CHECK(r->perm.size() != axes.size())
            << "knob '" << name() << "' " << entity_value_str(entity()) << " names axis " << p
            << " of " << axes.size();
    stage.reorder(order);
    return order;
  }
  auto* a = std::get_if<AnnotateEntity>(&entity());
  MINITVM_CONFIG_CHECK(a) << "knob '" << name() << "' is " << entity_kind(entity()) << " "
                          << entity_value_str(entity())
                          << ", which applies to one axis, not a list of axes";
  MINITVM_CONFIG_CHECK(a->anns.size() <= axes.size())
      << "knob '" << name() << "' " << entity_value_str(entity()) << " annotates " << a->anns.size()
      << " axes, the template passed " << axes.size();
  std::vector<ir::IterVar> out = axes;
  for (size_t i = 0; i < a->anns.size(); ++i) {
    MINITVM_CONFIG_CHECK(a->anns[i].is_string())
        << "knob '" << name() << "' " << entity_value_str(entity())
        << " holds axis positions (a locate_cache knob), which apply() does not place";
    const std::string ann = a->anns[i].get<std::string>();
    if (ann == "none") continue;
    if (ann == "unroll") {
      stage.unroll(out[i]);
    } else if (ann == "vec") {
      stage.vectorize(out[i]);
    } else if (ann == "blockIdx.x" || ann == "blockIdx.y" || ann == "blockIdx.z" ||
               ann == "threadIdx.x" || ann == "threadIdx.y" || ann == "threadIdx.z" ||
               ann == "vthread") {
      stage.bind(out[i], te::thread_axis(ann));
    } else if (ann == "fuse") {
      MINITVM_CONFIG_CHECK(i + 1 < out.size())
          << "knob '" << name() << "': 'fuse' on the last axis (" << i
          << ") has no axis to fuse into";
      out[i + 1] = stage.fuse(out[i], out[i + 1]);
    } else {
      MINITVM_CONFIG_CHECK(false) << "knob '" << name() << "': unknown annotation '" << ann
                                  << "' on axis " << i;
    }
  }
  return out;
}

}  // namespace minitvm::autotune
