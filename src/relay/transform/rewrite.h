// Shared helper of the graph passes: a memoised post-order rewrite.
#pragma once

#include <functional>
#include <unordered_map>

#include "minitvm/relay/expr.h"
#include "minitvm/relay/op.h"

namespace minitvm::relay::detail {

/** `e` with new arguments (the same object when they are the same). */
inline Expr with_args(const Expr& e, const std::vector<Expr>& args) {
  bool same = args.size() == e->args.size();
  for (size_t i = 0; same && i < args.size(); ++i) same = args[i] == e->args[i];
  if (same) return e;
  switch (e->kind) {
    case ExprKind::Call:
      return call(e->name, args, e->attrs);
    case ExprKind::Tuple:
      return tuple(args);
    case ExprKind::TupleGetItem:
      return tuple_get_item(args[0], e->index);
    default:
      return e;
  }
}

/** Rewrite bottom-up: `fn(original, rebuilt)` sees each node rebuilt over rewritten arguments
 *  and returns its replacement (return `rebuilt` to keep it). Parameters are kept. */
inline Function rewrite(const Function& f,
                        const std::function<Expr(const Expr&, const Expr&)>& fn) {
  std::unordered_map<const ExprNode*, Expr> memo;
  for (const Expr& e : post_order(f.body)) {
    std::vector<Expr> args;
    for (auto& a : e->args) args.push_back(memo.at(a.get()));
    Expr rebuilt = with_args(e, args);
    memo[e.get()] = fn(e, rebuilt);
  }
  Expr body = memo.at(f.body.get());
  if (body == f.body) return f;
  return Function(f.params, body);
}

}  // namespace minitvm::relay::detail
