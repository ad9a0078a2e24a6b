// plan_memory: TVM's GraphPlanMemory on the fused graph. Contract: transform.h.
#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "minitvm/relay/transform.h"

namespace minitvm::relay::transform {

namespace {

struct Token {
  int64_t max_bytes = 0;
  int ref = 0;
  int storage_id = -1;
};

class Planner {
 public:
  MemoryPlan plan;

  Token* alloc(int64_t bytes, bool is_param) {
    tokens_.push_back(std::make_unique<Token>());
    Token* t = tokens_.back().get();
    t->max_bytes = bytes;
    t->storage_id = static_cast<int>(plan.storage_bytes.size());
    plan.storage_bytes.push_back(bytes);
    plan.storage_is_param.push_back(is_param);
    return t;
  }
  // Smallest free block >= size within [size, 16 size), else the largest below size down to
  // size/16.
  Token* request(int64_t size, int ref) {
    const int64_t match = 16;
    auto take = [&](std::multimap<int64_t, Token*>::iterator it) {
      Token* t = it->second;
      free_.erase(it);
      t->max_bytes = std::max(t->max_bytes, size);
      plan.storage_bytes[t->storage_id] = t->max_bytes;
      t->ref = ref;
      return t;
    };
    auto begin = free_.lower_bound(size / match);
    auto mid = free_.lower_bound(size);
    auto end = free_.upper_bound(size * match);
    for (auto it = mid; it != end; ++it) return take(it);
    for (auto it = mid; it != begin;) {
      --it;
      return take(it);
    }
    Token* t = alloc(size, false);
    t->ref = ref;
    return t;
  }
  void release(Token* t) {
    if (plan.storage_is_param[t->storage_id]) return;
    free_.insert({t->max_bytes, t});
  }

 private:
  std::vector<std::unique_ptr<Token>> tokens_;
  std::multimap<int64_t, Token*> free_;
};

}  // namespace

MemoryPlan plan_memory(const FusedGraph& g) {
  Planner P;
  const Function& f = g.func;
  // Values of the fused graph in order: params, then constants / kernel roots / tuples as visited.
  std::vector<Expr> order = post_order(f.body);
  auto is_kernel = [&](const Expr& e) {
    return e->kind == ExprKind::Call && g.groups[g.group_of.at(e.get())].root == e;
  };
  // Init pass: reference counts per (value, field) = uses as a kernel argument (+1 for outputs).
  std::unordered_map<const ExprNode*, std::vector<int>> refs;
  auto fields_of = [&](const Expr& e) -> std::vector<std::pair<const ExprNode*, int>> {
    // The (value, field) entries an expression stands for.
    if (e->kind == ExprKind::TupleGetItem) {
      const Expr& t = e->args[0];
      if (t->kind == ExprKind::Tuple) return {{t->args[e->index].get(), 0}};
      return {{t.get(), e->index}};
    }
    if (e->kind == ExprKind::Tuple) {
      std::vector<std::pair<const ExprNode*, int>> r;
      for (auto& a : e->args) r.push_back({a.get(), 0});
      return r;
    }
    return {{e.get(), 0}};
  };
  for (auto& e : order) refs[e.get()].assign(e->tuple_typed ? e->types.size() : 1, 0);
  for (auto& e : order)
    if (is_kernel(e))
      for (auto& in : g.groups[g.group_of.at(e.get())].inputs)
        for (auto& [n, i] : fields_of(in)) refs[n][i]++;
  for (auto& [n, i] : fields_of(f.body)) refs[n][i]++;

  std::unordered_map<const ExprNode*, std::vector<Token*>> tok;
  for (auto& p : f.params) {
    tok[p.get()] = {P.alloc(p->types[0].nbytes(), true)};
    P.plan.param_bytes += p->types[0].nbytes();
  }
  for (auto& e : order) {
    if (tok.count(e.get())) continue;
    if (e->kind == ExprKind::Constant) {
      tok[e.get()] = {P.alloc(e->types[0].nbytes(), true)};
      P.plan.param_bytes += e->types[0].nbytes();
      continue;
    }
    if (!is_kernel(e)) continue;  // inner calls of a group, tuples and projections own no storage
    auto& outs = tok[e.get()];
    for (size_t i = 0; i < e->types.size(); ++i) {
      outs.push_back(P.request(e->types[i].nbytes(), refs[e.get()][i]));
      P.plan.intermediate_bytes += e->types[i].nbytes();
    }
    for (auto* t : outs)
      if (t->ref == 0) P.release(t);
    for (auto& in : g.groups[g.group_of.at(e.get())].inputs)
      for (auto& [n, i] : fields_of(in)) {
        Token* t = tok.at(n).at(i);
        if (--t->ref == 0) P.release(t);
      }
  }
  for (auto& [n, ts] : tok)
    for (auto* t : ts) P.plan.storage_ids[n].push_back(t->storage_id);
  for (size_t s = 0; s < P.plan.storage_bytes.size(); ++s)
    if (!P.plan.storage_is_param[s]) P.plan.planned_bytes += P.plan.storage_bytes[s];
  return P.plan;
}

}  // namespace minitvm::relay::transform
