// eliminate_common_subexpr (TVM EliminateCommonSubexpr). Contract: transform.h.
#include <map>
#include <string>

#include "minitvm/relay/transform.h"
#include "relay/transform/rewrite.h"

namespace minitvm::relay::transform {

Function eliminate_common_subexpr(const Function& f) {
  // Key: the node's kind, operator, field index, attributes and the identities of its (already
  // deduplicated) arguments. The map holds the first node of each key, so the pointers in the
  // keys stay valid while the pass runs.
  std::map<std::string, Expr> first;
  return detail::rewrite(f, [&](const Expr&, const Expr& e) -> Expr {
    if (e->kind != ExprKind::Call && e->kind != ExprKind::Tuple &&
        e->kind != ExprKind::TupleGetItem)
      return e;
    std::string key = std::to_string(static_cast<int>(e->kind)) + '|' + e->name + '|' +
                      std::to_string(e->index) + '|' + e->attrs.dump();
    for (const Expr& a : e->args) key += '|' + std::to_string(reinterpret_cast<uintptr_t>(a.get()));
    auto [it, inserted] = first.emplace(std::move(key), e);
    return inserted ? e : it->second;
  });
}

}  // namespace minitvm::relay::transform
