// Drop statements that do nothing.
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {
class NoOpRemover : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const ForNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto* f = r.as<ForNode>();
    if (is_nop(f->body) || is_zero(f->extent)) return make_nop();
    return r;
  }
  Stmt visit(const IfThenElseNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto* f = r.as<IfThenElseNode>();
    bool then_nop = is_nop(f->then_case),
         else_nop = !f->else_case.defined() || is_nop(f->else_case);
    if (then_nop && else_nop) return make_nop();
    if (!else_nop || !f->else_case.defined()) return r;
    return IfThenElseNode::make(f->condition, f->then_case);
  }
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    return is_nop(r.as<AttrStmtNode>()->body) ? make_nop() : r;
  }
  Stmt visit(const AllocateNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    return is_nop(r.as<AllocateNode>()->body) ? make_nop() : r;
  }
  Stmt visit(const LetStmtNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    return is_nop(r.as<LetStmtNode>()->body) ? make_nop() : r;
  }
  Stmt visit(const BlockNode* op, const Stmt& self) override {
    std::vector<Stmt> kept;
    bool changed = false;
    for (auto& s : op->stmts) {
      Stmt m = mutate(s);
      changed |= !m.same_as(s);
      if (is_nop(m)) {
        changed = true;
        continue;
      }
      kept.push_back(m);
    }
    if (!changed) return self;
    return BlockNode::make(kept);
  }
};
}  // namespace

Stmt remove_no_op(const Stmt& s) {
  return NoOpRemover().mutate(s);
}

}  // namespace minitvm::transform
