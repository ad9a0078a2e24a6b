// simplify_inference (TVM SimplifyInference). Contract: transform.h.
#include "minitvm/relay/transform.h"
#include "relay/transform/rewrite.h"

namespace minitvm::relay::transform {

namespace {

// (C,) -> (C, 1, ..., 1) for axis `axis` of an ndim-D value (TVM ExpandBiasToMatchAxis).
Expr expand_to_axis(const Expr& v, int64_t ndim, int64_t axis) {
  int64_t k = ndim - axis - 1;
  return k > 0 ? expand_dims(v, 1, static_cast<int>(k)) : v;
}

Expr lower_batch_norm(const Expr& bn) {
  const Expr& x = bn->args[0];
  const Json& at = bn->attrs;
  int64_t axis = at.at("axis").get<int64_t>();
  DataType dt = x->type().dtype;
  MINITVM_USER_CHECK(dt == DataType::Float(32))
      << "simplify_inference: nn.batch_norm on " << dt.str() << " is not supported (float32 only)";
  Expr eps = scalar(at.at("epsilon").get<double>());
  Expr scale = divide(scalar(1.0), sqrt(add(bn->args[4], eps)));
  if (at.at("scale").get<bool>()) scale = multiply(scale, bn->args[1]);
  Expr shift = multiply(negative(bn->args[3]), scale);
  if (at.at("center").get<bool>()) shift = add(shift, bn->args[2]);
  int64_t ndim = static_cast<int64_t>(x->type().shape.size());
  return add(multiply(x, expand_to_axis(scale, ndim, axis)), expand_to_axis(shift, ndim, axis));
}

}  // namespace

Function simplify_inference(const Function& f) {
  return detail::rewrite(f, [](const Expr&, const Expr& e) -> Expr {
    if (e->kind != ExprKind::TupleGetItem || e->index != 0) return e;
    const Expr& t = e->args[0];
    if (t->is_call("nn.batch_norm")) return lower_batch_norm(t);
    if (t->is_call("nn.dropout")) return t->args[0];
    return e;
  });
}

}  // namespace minitvm::relay::transform
