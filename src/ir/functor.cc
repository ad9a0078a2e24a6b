#include "minitvm/ir/functor.h"

namespace minitvm::ir {

// ---- visitor -----------------------------------------------------------------------------------
void IRVisitor::visit_expr(const Expr& e) {
  if (!e.defined()) return;
  switch (e->kind()) {
#define MINITVM_CASE(N) \
  case NodeKind::N:     \
    return visit(static_cast<const N##Node*>(e.get()));
    MINITVM_FOR_EACH_EXPR(MINITVM_CASE)
#undef MINITVM_CASE
    default:
      MINITVM_INTERNAL_ERROR << "visit_expr on a non-expression";
  }
}
void IRVisitor::visit_stmt(const Stmt& s) {
  if (!s.defined()) return;
  switch (s->kind()) {
#define MINITVM_CASE(N) \
  case NodeKind::N:     \
    return visit(static_cast<const N##Node*>(s.get()));
    MINITVM_FOR_EACH_STMT(MINITVM_CASE)
#undef MINITVM_CASE
    default:
      MINITVM_INTERNAL_ERROR << "visit_stmt on a non-statement";
  }
}

void IRVisitor::visit(const IntImmNode*) {}
void IRVisitor::visit(const FloatImmNode*) {}
void IRVisitor::visit(const StringImmNode*) {}
void IRVisitor::visit(const VarNode*) {}
void IRVisitor::visit(const CastNode* op) {
  visit_expr(op->value);
}
#define MINITVM_BIN(N)                       \
  void IRVisitor::visit(const N##Node* op) { \
    visit_expr(op->a);                       \
    visit_expr(op->b);                       \
  }
MINITVM_FOR_EACH_BINARY(MINITVM_BIN)
#undef MINITVM_BIN
void IRVisitor::visit(const NotNode* op) {
  visit_expr(op->a);
}
void IRVisitor::visit(const SelectNode* op) {
  visit_expr(op->condition);
  visit_expr(op->true_value);
  visit_expr(op->false_value);
}
void IRVisitor::visit(const LoadNode* op) {
  visit_expr(op->buffer_var);
  visit_expr(op->index);
  visit_expr(op->predicate);
}
void IRVisitor::visit(const RampNode* op) {
  visit_expr(op->base);
  visit_expr(op->stride);
}
void IRVisitor::visit(const BroadcastNode* op) {
  visit_expr(op->value);
}
void IRVisitor::visit(const LetNode* op) {
  visit_expr(op->value);
  visit_expr(op->body);
}
void IRVisitor::visit(const CallNode* op) {
  for (auto& a : op->args) visit_expr(a);
}
void IRVisitor::visit(const ReduceNode* op) {
  for (auto& a : op->source) visit_expr(a);
  visit_expr(op->condition);
}
void IRVisitor::visit(const ProducerLoadNode* op) {
  for (auto& a : op->indices) visit_expr(a);
}

void IRVisitor::visit(const LetStmtNode* op) {
  visit_expr(op->value);
  visit_stmt(op->body);
}
void IRVisitor::visit(const AttrStmtNode* op) {
  visit_expr(op->value);
  visit_stmt(op->body);
}
void IRVisitor::visit(const AssertStmtNode* op) {
  visit_expr(op->condition);
  visit_stmt(op->body);
}
void IRVisitor::visit(const StoreNode* op) {
  visit_expr(op->buffer_var);
  visit_expr(op->value);
  visit_expr(op->index);
  visit_expr(op->predicate);
}
void IRVisitor::visit(const ProvideNode* op) {
  visit_expr(op->value);
  for (auto& a : op->args) visit_expr(a);
}
void IRVisitor::visit(const AllocateNode* op) {
  for (auto& e : op->extents) visit_expr(e);
  visit_expr(op->condition);
  visit_stmt(op->body);
}
void IRVisitor::visit(const RealizeNode* op) {
  for (auto& r : op->bounds) {
    visit_expr(r.min());
    visit_expr(r.extent());
  }
  visit_expr(op->condition);
  visit_stmt(op->body);
}
void IRVisitor::visit(const ProducerConsumerNode* op) {
  visit_stmt(op->body);
}
void IRVisitor::visit(const BlockNode* op) {
  for (auto& s : op->stmts) visit_stmt(s);
}
void IRVisitor::visit(const IfThenElseNode* op) {
  visit_expr(op->condition);
  visit_stmt(op->then_case);
  visit_stmt(op->else_case);
}
void IRVisitor::visit(const EvaluateNode* op) {
  visit_expr(op->value);
}
void IRVisitor::visit(const ForNode* op) {
  visit_expr(op->min);
  visit_expr(op->extent);
  visit_stmt(op->body);
}

// ---- mutator -----------------------------------------------------------------------------------
Expr IRMutator::mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e->kind()) {
#define MINITVM_CASE(N) \
  case NodeKind::N:     \
    return visit(static_cast<const N##Node*>(e.get()), e);
    MINITVM_FOR_EACH_EXPR(MINITVM_CASE)
#undef MINITVM_CASE
    default:
      MINITVM_INTERNAL_ERROR << "mutate on a non-expression";
  }
  return e;
}
Stmt IRMutator::mutate(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s->kind()) {
#define MINITVM_CASE(N) \
  case NodeKind::N:     \
    return visit(static_cast<const N##Node*>(s.get()), s);
    MINITVM_FOR_EACH_STMT(MINITVM_CASE)
#undef MINITVM_CASE
    default:
      MINITVM_INTERNAL_ERROR << "mutate on a non-statement";
  }
  return s;
}

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& v, bool* changed) {
  std::vector<Expr> out;
  out.reserve(v.size());
  for (auto& e : v) {
    out.push_back(mutate(e));
    if (!out.back().same_as(e)) *changed = true;
  }
  return out;
}

Expr IRMutator::visit(const IntImmNode*, const Expr& self) {
  return self;
}
Expr IRMutator::visit(const FloatImmNode*, const Expr& self) {
  return self;
}
Expr IRMutator::visit(const StringImmNode*, const Expr& self) {
  return self;
}
Expr IRMutator::visit(const VarNode*, const Expr& self) {
  return self;
}
Expr IRMutator::visit(const CastNode* op, const Expr& self) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return self;
  return cast(op->dtype, v);
}
#define MINITVM_BIN(N)                                         \
  Expr IRMutator::visit(const N##Node* op, const Expr& self) { \
    Expr a = mutate(op->a), b = mutate(op->b);                 \
    if (a.same_as(op->a) && b.same_as(op->b)) return self;     \
    if (a.dtype() != b.dtype()) match_types(a, b);             \
    return N##Node::make(a, b);                                \
  }
MINITVM_FOR_EACH_BINARY(MINITVM_BIN)
#undef MINITVM_BIN
Expr IRMutator::visit(const NotNode* op, const Expr& self) {
  Expr a = mutate(op->a);
  return a.same_as(op->a) ? self : NotNode::make(a);
}
Expr IRMutator::visit(const SelectNode* op, const Expr& self) {
  Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
    return self;
  return SelectNode::make(c, t, f);
}
Expr IRMutator::visit(const LoadNode* op, const Expr& self) {
  Expr i = mutate(op->index), p = mutate(op->predicate);
  if (i.same_as(op->index) && p.same_as(op->predicate)) return self;
  return LoadNode::make(op->dtype.with_lanes(i.dtype().lanes()), op->buffer_var, i, p);
}
Expr IRMutator::visit(const RampNode* op, const Expr& self) {
  Expr b = mutate(op->base), s = mutate(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return self;
  return RampNode::make(b, s, op->lanes);
}
Expr IRMutator::visit(const BroadcastNode* op, const Expr& self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : BroadcastNode::make(v, op->lanes);
}
Expr IRMutator::visit(const LetNode* op, const Expr& self) {
  Expr v = mutate(op->value), b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return LetNode::make(op->var, v, b);
}
Expr IRMutator::visit(const CallNode* op, const Expr& self) {
  bool changed = false;
  auto args = mutate_all(op->args, &changed);
  if (!changed) return self;
  return make_object<CallNode>(op->dtype, op->op, op->name, std::move(args));
}
Expr IRMutator::visit(const ReduceNode* op, const Expr& self) {
  bool changed = false;
  auto src = mutate_all(op->source, &changed);
  Expr c = mutate(op->condition);
  if (!changed && c.same_as(op->condition)) return self;
  return ReduceNode::make(op->combiner, src, op->axis, c, op->value_index);
}
Expr IRMutator::visit(const ProducerLoadNode* op, const Expr& self) {
  bool changed = false;
  auto idx = mutate_all(op->indices, &changed);
  if (!changed) return self;
  return ProducerLoadNode::make(op->dtype, op->op, op->value_index, idx);
}

Stmt IRMutator::visit(const LetStmtNode* op, const Stmt& self) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return LetStmtNode::make(op->var, v, b);
}
Stmt IRMutator::visit(const AttrStmtNode* op, const Stmt& self) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return AttrStmtNode::make(op->node, op->attr_kind, v, b, op->pragma_key);
}
Stmt IRMutator::visit(const AssertStmtNode* op, const Stmt& self) {
  Expr c = mutate(op->condition);
  Stmt b = mutate(op->body);
  if (c.same_as(op->condition) && b.same_as(op->body)) return self;
  return AssertStmtNode::make(c, op->message, b);
}
Stmt IRMutator::visit(const StoreNode* op, const Stmt& self) {
  Expr v = mutate(op->value), i = mutate(op->index), p = mutate(op->predicate);
  if (v.same_as(op->value) && i.same_as(op->index) && p.same_as(op->predicate)) return self;
  return StoreNode::make(op->buffer_var, v, i, p);
}
Stmt IRMutator::visit(const ProvideNode* op, const Stmt& self) {
  Expr v = mutate(op->value);
  bool changed = !v.same_as(op->value);
  auto args = mutate_all(op->args, &changed);
  if (!changed) return self;
  return ProvideNode::make(op->op, op->value_index, v, args);
}
Stmt IRMutator::visit(const AllocateNode* op, const Stmt& self) {
  bool changed = false;
  auto ext = mutate_all(op->extents, &changed);
  Expr c = mutate(op->condition);
  Stmt b = mutate(op->body);
  if (!changed && c.same_as(op->condition) && b.same_as(op->body)) return self;
  return AllocateNode::make(op->buffer_var, op->dtype, ext, op->scope, c, b);
}
Stmt IRMutator::visit(const RealizeNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Range> bounds;
  for (auto& r : op->bounds) {
    Expr mn = mutate(r.min()), ex = mutate(r.extent());
    if (!mn.same_as(r.min()) || !ex.same_as(r.extent())) changed = true;
    bounds.push_back(Range(mn, ex));
  }
  Expr c = mutate(op->condition);
  Stmt b = mutate(op->body);
  if (!changed && c.same_as(op->condition) && b.same_as(op->body)) return self;
  return RealizeNode::make(op->op, op->value_index, op->dtype, changed ? bounds : op->bounds,
                           op->scope, c, b);
}
Stmt IRMutator::visit(const ProducerConsumerNode* op, const Stmt& self) {
  Stmt b = mutate(op->body);
  if (b.same_as(op->body)) return self;
  return ProducerConsumerNode::make(op->op, op->is_producer, b);
}
Stmt IRMutator::visit(const BlockNode* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> out;
  for (auto& s : op->stmts) {
    out.push_back(mutate(s));
    if (!out.back().same_as(s)) changed = true;
  }
  if (!changed) return self;
  return BlockNode::make(out);
}
Stmt IRMutator::visit(const IfThenElseNode* op, const Stmt& self) {
  Expr c = mutate(op->condition);
  Stmt t = mutate(op->then_case);
  Stmt e = mutate(op->else_case);
  if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return IfThenElseNode::make(c, t, e);
}
Stmt IRMutator::visit(const EvaluateNode* op, const Stmt& self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : EvaluateNode::make(v);
}
Stmt IRMutator::visit(const ForNode* op, const Stmt& self) {
  Expr mn = mutate(op->min), ex = mutate(op->extent);
  Stmt b = mutate(op->body);
  if (mn.same_as(op->min) && ex.same_as(op->extent) && b.same_as(op->body)) return self;
  return ForNode::make(op->loop_var, mn, ex, op->for_kind, b);
}

// ---- generic walks -----------------------------------------------------------------------------
namespace {
class FnVisitor : public IRVisitor {
 public:
  explicit FnVisitor(const std::function<void(const Ref<Object>&)>& f) : f_(f) {}
  void visit_expr(const Expr& e) override {
    if (!e.defined()) return;
    IRVisitor::visit_expr(e);
    f_(Ref<Object>(e.get()));
  }
  void visit_stmt(const Stmt& s) override {
    if (!s.defined()) return;
    IRVisitor::visit_stmt(s);
    f_(Ref<Object>(s.get()));
  }

 private:
  const std::function<void(const Ref<Object>&)>& f_;
};
}  // namespace

void post_order_visit(const Stmt& s, const std::function<void(const Ref<Object>&)>& f) {
  FnVisitor v(f);
  v.visit_stmt(s);
}
void post_order_visit(const Expr& e, const std::function<void(const Ref<Object>&)>& f) {
  FnVisitor v(f);
  v.visit_expr(e);
}

}  // namespace minitvm::ir
