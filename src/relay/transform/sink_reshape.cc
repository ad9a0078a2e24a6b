// sink_reshape: elementwise ops and per-last-axis broadcasts moved before a reshape that keeps
// the last axis, so that they fuse as the epilogue of the op the reshape follows. Contract:
// transform.h.
#include <algorithm>

#include "minitvm/relay/transform.h"
#include "relay/transform/rewrite.h"

namespace minitvm::relay::transform {

namespace {

using Shape = std::vector<int64_t>;

const Shape& shape_of(const Expr& e) {
  return e->types.at(0).shape;
}

// A constant that broadcasts along the last axis only: a scalar, or (1, ..., 1, n) / (..., 1)
// with n the last axis.
bool per_last_axis(const Expr& c, int64_t last) {
  if (c->kind != ExprKind::Constant || c->types.size() != 1) return false;
  const Shape& s = shape_of(c);
  if (s.empty()) return true;
  if (s.back() != 1 && s.back() != last) return false;
  return std::all_of(s.begin(), s.end() - 1, [](int64_t d) { return d == 1; });
}

// reshape(reshape(x)) -> reshape(x), and a reshape to x's own shape -> x.
Expr collapse(const Expr& e) {
  if (!e->is_call("reshape")) return e;
  Expr x = e->args[0];
  while (x->is_call("reshape")) x = x->args[0];
  if (shape_of(x) == shape_of(e)) return x;
  return x == e->args[0] ? e : reshape(x, shape_of(e));
}

Expr sink(const Expr& e) {
  if (e->is_call("reshape")) return collapse(e);
  if (e->kind != ExprKind::Call || e->types.size() != 1 || e->args.empty() ||
      op_pattern(e->name) > OpPattern::kBroadcast)
    return e;
  const Shape& rs = shape_of(e);
  if (rs.empty()) return e;
  // The reshapes among the arguments give the result its shape, from one shape xs with the
  // same last axis (elementwise in xs as in rs).
  const Shape* xs = nullptr;
  auto sinkable = [&](const Expr& a) {
    if (!a->is_call("reshape") || a->types.size() != 1 || shape_of(a) != rs) return false;
    const Expr& x = a->args[0];
    if (x->types.size() != 1 || x->types[0].dtype != a->types[0].dtype) return false;
    if (shape_of(x).empty() || shape_of(x).back() != rs.back()) return false;
    if (xs && *xs != shape_of(x)) return false;
    xs = &shape_of(x);
    return true;
  };
  std::vector<Expr> args;
  for (const Expr& a : e->args) {
    if (sinkable(a)) {
      args.push_back(a->args[0]);
    } else if (per_last_axis(a, rs.back())) {
      const Shape& s = shape_of(a);
      args.push_back(s.size() <= 1 ? a : reshape(a, {s.back()}));
    } else {
      return e;
    }
  }
  if (!xs) return e;
  Expr moved = call(e->name, args, e->attrs);
  if (moved->types.size() != 1 || shape_of(moved) != *xs) return e;
  return collapse(reshape(moved, rs));
}

}  // namespace

Function sink_reshape(const Function& f) {
  return detail::rewrite(f, [](const Expr&, const Expr& e) { return sink(e); });
}

}  // namespace minitvm::relay::transform
