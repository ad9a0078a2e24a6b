// TVM's HoistIfThenElse, opt-in per loop nest (pragma "hoist_if_then_else"): a loop whose body is a
// chain of else-less ifs gives the conditions that do not use its variable to the loop's outside.
#include <vector>

#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {

// A condition that may move: no memory read, no call (likely() guards stay with their loop, where
// loop_partition looks for them).
bool movable(const Expr& c) {
  bool ok = true;
  post_order_visit(c, [&](const Ref<Object>& n) {
    NodeKind k = n->kind();
    ok = ok && k != NodeKind::Load && k != NodeKind::ProducerLoad && k != NodeKind::Call;
  });
  return ok;
}

// The conjuncts of an else-less if chain `if (a && b) if (c) body`: {a, b, c} and body.
void unchain(Stmt s, std::vector<Expr>* conds, Stmt* body) {
  while (auto* i = s.as<IfThenElseNode>()) {
    if (i->else_case.defined()) break;
    std::vector<Expr> stack{i->condition};
    while (!stack.empty()) {
      Expr c = stack.back();
      stack.pop_back();
      if (auto* a = c.as<AndNode>()) {
        stack.push_back(a->b);
        stack.push_back(a->a);
      } else {
        conds->push_back(c);
      }
    }
    s = i->then_case;
  }
  *body = s;
}

Stmt chain(const std::vector<Expr>& conds, Stmt body) {
  for (size_t i = conds.size(); i-- > 0;) body = IfThenElseNode::make(conds[i], body);
  return body;
}

class Hoister : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  // Only the loops under the pragma: elsewhere (pooling windows) the conditions stay where the
  // schedule put them, and LLVM's loop vectorizer has been seen to take minutes over hoisted ones.
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    if (op->attr_kind != AttrKind::Pragma || op->pragma_key != "hoist_if_then_else")
      return IRMutator::visit(op, self);
    ++depth_;
    Stmt body = mutate(op->body);
    --depth_;
    return body;
  }
  Stmt visit(const ForNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    if (depth_ == 0) return r;
    auto* f = r.as<ForNode>();
    std::vector<Expr> conds;
    Stmt body;
    unchain(f->body, &conds, &body);
    std::vector<Expr> out, in;
    for (const Expr& c : conds)
      (movable(c) && !uses_var(c, f->loop_var.get()) ? out : in).push_back(c);
    if (out.empty()) return r;
    // for (i) if (a(i) && b) S  ->  if (b) for (i) if (a(i)) S: b holds or fails for every i.
    return chain(out, ForNode::make(f->loop_var, f->min, f->extent, f->for_kind, chain(in, body)));
  }

 private:
  int depth_ = 0;
};

}  // namespace

Stmt hoist_if_then_else(const Stmt& s) {
  return Hoister().mutate(s);
}

}  // namespace minitvm::transform
