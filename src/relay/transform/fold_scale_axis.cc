// fold_scale_axis: the net effect of TVM's backward FoldScaleAxis on conv nets.
// Contract: transform.h.
#include <unordered_map>

#include "minitvm/relay/transform.h"
#include "relay/transform/rewrite.h"

namespace minitvm::relay::transform {

namespace {

// The channel scale of `s` for a conv output of `channels` channels, as a (C, 1, 1, 1) tensor
// expression usable against OIHW weights, or nullptr when `s` does not broadcast along axis 1 only.
Expr weight_scale(const Expr& s, int64_t channels) {
  if (s->kind != ExprKind::Constant || s->tuple_typed) return nullptr;
  const auto& sh = s->types[0].shape;
  int64_t n = s->types[0].numel();
  if (n == 1) return s;  // scalar-like: broadcasts against the weight as is
  // Accept (C, 1, 1), (1, C, 1, 1) and (C, 1, ..., 1) right-aligned against NCHW.
  if (sh.size() > 4 || n != channels) return nullptr;
  size_t axis = 4 - sh.size();  // NCHW axis of sh[0]
  for (size_t i = 0; i < sh.size(); ++i) {
    bool is_c = axis + i == 1;
    if (is_c ? sh[i] != channels : sh[i] != 1) return nullptr;
  }
  return reshape(s, {channels, 1, 1, 1});
}

}  // namespace

Function fold_scale_axis(const Function& f) {
  // Uses of every node in the original graph (a folded conv must have exactly one user).
  std::unordered_map<const ExprNode*, int> uses;
  for (const Expr& e : post_order(f.body))
    for (auto& a : e->args) uses[a.get()]++;
  uses[f.body.get()]++;
  return detail::rewrite(f, [&](const Expr& orig, const Expr& e) -> Expr {
    if (!e->is_call("multiply")) return e;
    for (int side = 0; side < 2; ++side) {
      const Expr& conv = e->args[side];
      const Expr& s = e->args[1 - side];
      if (!conv->is_call("nn.conv2d") || uses[orig->args[side].get()] != 1) continue;
      if (conv->args[1]->kind != ExprKind::Constant) continue;
      // Output channel o of an OIHW conv reads only weight[o] whatever the group count (grouped
      // and depthwise convs included: the groups partition the input channels, not the rows of
      // the weight), so a per-output-channel scale folds into weight[o]. TVM folds only groups 1
      // and depthwise.
      const auto& ws = conv->args[1]->types[0].shape;
      if (conv->attrs.value("kernel_layout", std::string("OIHW")) != "OIHW") continue;
      if (e->types[0] != conv->types[0]) continue;  // the scale must not broadcast the conv output
      Expr ws_expr = weight_scale(s, ws[0]);
      if (!ws_expr) continue;
      Expr w = multiply(conv->args[1], ws_expr);
      return call("nn.conv2d", {conv->args[0], w}, conv->attrs);
    }
    return e;
  });
}

}  // namespace minitvm::relay::transform
