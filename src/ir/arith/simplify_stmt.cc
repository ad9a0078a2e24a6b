// Statement rules of the simplifier: loop and thread ranges in scope, dead branches, trivial loops
// and lets.
#include "ir/arith/arith_internal.h"

namespace minitvm::ir::arith {

void Simplifier::push_range(const VarNode* v, const Range& r) {
  std::optional<Range> prev;
  if (auto it = ranges_.find(v); it != ranges_.end()) prev = it->second;
  saved_.emplace_back(v, prev);
  ranges_[v] = r;
  bounds_.clear_memo();
}

void Simplifier::pop_range(const VarNode* v) {
  MINITVM_ICHECK(!saved_.empty() && saved_.back().first == v)
      << "unbalanced range scopes in simplify";
  if (saved_.back().second)
    ranges_[v] = *saved_.back().second;
  else
    ranges_.erase(v);
  saved_.pop_back();
  bounds_.clear_memo();
}

std::vector<std::pair<const VarNode*, std::optional<ConstBound>>> Simplifier::assume(
    const Expr& cond) {
  std::vector<std::pair<const VarNode*, std::optional<ConstBound>>> saved;
  std::vector<Expr> work{cond};
  auto tighten = [&](const Expr& v, int64_t lo, int64_t hi) {
    auto* var = v.as<VarNode>();
    if (!var || !var->dtype.is_integral()) return;
    ConstBound cur = bound(v);
    ConstBound nb{std::max(cur.lo, lo), std::min(cur.hi, hi)};
    saved.emplace_back(var, bounds_.set(var, nb));
  };
  while (!work.empty()) {
    Expr c = work.back();
    work.pop_back();
    if (auto* call = c.as<CallNode>();
        call && call->op == Intrinsic::Likely && call->args.size() == 1) {
      work.push_back(call->args[0]);
    } else if (auto* a = c.as<AndNode>()) {
      work.push_back(a->a);
      work.push_back(a->b);
    } else if (auto* lt = c.as<LTNode>()) {
      if (auto* k = as_const_int(lt->b)) tighten(lt->a, kNegInf, *k - 1);
      if (auto* k = as_const_int(lt->a)) tighten(lt->b, *k + 1, kPosInf);
    } else if (auto* le = c.as<LENode>()) {
      if (auto* k = as_const_int(le->b)) tighten(le->a, kNegInf, *k);
      if (auto* k = as_const_int(le->a)) tighten(le->b, *k, kPosInf);
    } else if (auto* eq = c.as<EQNode>()) {
      if (auto* k = as_const_int(eq->b)) tighten(eq->a, *k, *k);
    }
  }
  return saved;
}

void Simplifier::unassume(
    const std::vector<std::pair<const VarNode*, std::optional<ConstBound>>>& saved) {
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) bounds_.restore(it->first, it->second);
}

Stmt Simplifier::visit(const ForNode* op, const Stmt& self) {
  Expr mn = mutate(op->min), ex = mutate(op->extent);
  if (auto* n = as_const_int(ex)) {
    if (*n <= 0) return make_nop();
    if (*n == 1) return mutate(substitute(op->body, {{op->loop_var.get(), mn}}));
  }
  push_range(op->loop_var.get(), Range(mn, ex));
  Stmt body = mutate(op->body);
  pop_range(op->loop_var.get());
  if (is_nop(body)) return make_nop();
  if (mn.same_as(op->min) && ex.same_as(op->extent) && body.same_as(op->body)) return self;
  return ForNode::make(op->loop_var, mn, ex, op->for_kind, body);
}

Stmt Simplifier::visit(const AttrStmtNode* op, const Stmt& self) {
  auto* iv = op->node.as<IterVarNode>();
  bool thread = op->attr_kind == AttrKind::ThreadExtent || op->attr_kind == AttrKind::VirtualThread;
  if (!iv || !thread) return IRMutator::visit(op, self);
  Expr v = mutate(op->value);
  push_range(iv->var.get(), Range(make_zero(iv->var.dtype()), v));
  Stmt body = mutate(op->body);
  pop_range(iv->var.get());
  if (v.same_as(op->value) && body.same_as(op->body)) return self;
  return AttrStmtNode::make(op->node, op->attr_kind, v, body, op->pragma_key);
}

Stmt Simplifier::visit(const LetStmtNode* op, const Stmt& self) {
  Expr v = mutate(op->value);
  if (is_const(v) || v.as<VarNode>()) return mutate(substitute(op->body, {{op->var.get(), v}}));
  auto prev = bounds_.set(op->var.get(), bound(v));
  Stmt body = mutate(op->body);
  bounds_.restore(op->var.get(), prev);
  if (v.same_as(op->value) && body.same_as(op->body)) return self;
  return LetStmtNode::make(op->var, v, body);
}

Stmt Simplifier::visit(const IfThenElseNode* op, const Stmt& self) {
  Expr c = mutate(op->condition);
  if (auto* i = as_const_int(c)) {
    if (*i) return mutate(op->then_case);
    return op->else_case.defined() ? mutate(op->else_case) : make_nop();
  }
  auto facts = assume(c);
  Stmt t = mutate(op->then_case);
  unassume(facts);
  Stmt e = mutate(op->else_case);
  if (e.defined() && is_nop(e)) e = Stmt();
  if (is_nop(t) && !e.defined()) return make_nop();
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return IfThenElseNode::make(c, t, e);
}

Stmt Simplifier::visit(const AssertStmtNode* op, const Stmt& self) {
  Expr c = mutate(op->condition);
  if (auto* i = as_const_int(c); i && *i) return mutate(op->body);
  Stmt body = mutate(op->body);
  if (c.same_as(op->condition) && body.same_as(op->body)) return self;
  return AssertStmtNode::make(c, op->message, body);
}

Stmt Simplifier::visit(const BlockNode* op, const Stmt& self) {
  std::vector<Stmt> out;
  bool changed = false;
  for (auto& s : op->stmts) {
    Stmt r = mutate(s);
    if (!r.same_as(s)) changed = true;
    if (is_nop(r)) {
      changed = true;
      continue;
    }
    out.push_back(r);
  }
  if (!changed) return self;
  if (out.empty()) return make_nop();
  return BlockNode::make(std::move(out));
}

}  // namespace minitvm::ir::arith
