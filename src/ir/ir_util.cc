// Substitution, variable-use queries and structural equality.
#include "minitvm/ir/ir_util.h"

#include <functional>

namespace minitvm::ir {
namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& m) : m_(m) {}
  using IRMutator::mutate;

 protected:
  Expr visit(const VarNode* op, const Expr& self) override {
    auto it = m_.find(op);
    return it == m_.end() ? self : it->second;
  }
  Expr visit(const LoadNode* op, const Expr& self) override {
    Expr r = IRMutator::visit(op, self);
    auto it = m_.find(op->buffer_var.get());
    if (it == m_.end()) return r;
    auto* l = r.as<LoadNode>();
    return LoadNode::make(l->dtype,
                          Var(Ref<VarNode>(static_cast<const VarNode*>(it->second.get()))),
                          l->index, l->predicate);
  }
  Stmt visit(const StoreNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);
    auto it = m_.find(op->buffer_var.get());
    if (it == m_.end()) return r;
    auto* s = r.as<StoreNode>();
    return StoreNode::make(Var(Ref<VarNode>(static_cast<const VarNode*>(it->second.get()))),
                           s->value, s->index, s->predicate);
  }

 private:
  const VarMap& m_;
};

class VarUse : public IRVisitor {
 public:
  explicit VarUse(const std::function<bool(const VarNode*)>& p) : p_(p) {}
  bool found = false;
  void visit_expr(const Expr& e) override {
    if (!found) IRVisitor::visit_expr(e);
  }
  void visit_stmt(const Stmt& s) override {
    if (!found) IRVisitor::visit_stmt(s);
  }
  void visit(const VarNode* op) override {
    if (p_(op)) found = true;
  }
  void visit(const StoreNode* op) override {
    if (p_(op->buffer_var.get())) found = true;
    IRVisitor::visit(op);
  }
  void visit(const ForNode* op) override {
    if (p_(op->loop_var.get())) found = true;
    IRVisitor::visit(op);
  }
  void visit(const AttrStmtNode* op) override {
    if (auto* iv = op->node.as<IterVarNode>()) {
      if (p_(iv->var.get())) found = true;
    }
    IRVisitor::visit(op);
  }

 private:
  const std::function<bool(const VarNode*)>& p_;
};

// ---- structural equality ----
class Equal {
 public:
  explicit Equal(bool map_vars) : map_(map_vars) {}

  bool var(const VarNode* a, const VarNode* b) {
    if (a == b) return true;
    if (!map_) return false;
    auto it = vmap_.find(a);
    if (it != vmap_.end()) return it->second == b;
    if (a->dtype != b->dtype) return false;
    vmap_[a] = b;
    return true;
  }
  bool var(const Var& a, const Var& b) {
    if (!a.defined() || !b.defined()) return a.defined() == b.defined();
    return var(a.get(), b.get());
  }
  bool exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!expr(a[i], b[i])) return false;
    return true;
  }
  bool node_ref(const Ref<Object>& a, const Ref<Object>& b) {
    if (a.same_as(b)) return true;
    if (!a.defined() || !b.defined() || a->kind() != b->kind()) return false;
    if (auto* x = a.as<IterVarNode>()) {
      auto* y = b.as<IterVarNode>();
      return var(x->var, y->var) && x->thread_tag == y->thread_tag;
    }
    if (a->kind() == NodeKind::Var)
      return var(static_cast<const VarNode*>(a.get()), static_cast<const VarNode*>(b.get()));
    return false;
  }

  bool expr(const Expr& a, const Expr& b) {
    if (a.same_as(b)) return true;
    if (!a.defined() || !b.defined()) return false;
    if (a->kind() != b->kind() || a.dtype() != b.dtype()) return false;
    switch (a->kind()) {
      case NodeKind::IntImm:
        return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
      case NodeKind::FloatImm:
        return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value;
      case NodeKind::StringImm:
        return a.as<StringImmNode>()->value == b.as<StringImmNode>()->value;
      case NodeKind::Var:
        return var(static_cast<const VarNode*>(a.get()), static_cast<const VarNode*>(b.get()));
      case NodeKind::Cast:
        return expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
#define MINITVM_BIN(N)                               \
  case NodeKind::N: {                                \
    auto *x = a.as<N##Node>(), *y = b.as<N##Node>(); \
    return expr(x->a, y->a) && expr(x->b, y->b);     \
  }
        MINITVM_FOR_EACH_BINARY(MINITVM_BIN)
#undef MINITVM_BIN
      case NodeKind::Not:
        return expr(a.as<NotNode>()->a, b.as<NotNode>()->a);
      case NodeKind::Select: {
        auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
        return expr(x->condition, y->condition) && expr(x->true_value, y->true_value) &&
               expr(x->false_value, y->false_value);
      }
      case NodeKind::Load: {
        auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
        return var(x->buffer_var, y->buffer_var) && expr(x->index, y->index) &&
               expr(x->predicate, y->predicate);
      }
      case NodeKind::Ramp: {
        auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
        return x->lanes == y->lanes && expr(x->base, y->base) && expr(x->stride, y->stride);
      }
      case NodeKind::Broadcast: {
        auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
        return x->lanes == y->lanes && expr(x->value, y->value);
      }
      case NodeKind::Let: {
        auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
        return expr(x->value, y->value) && var(x->var, y->var) && expr(x->body, y->body);
      }
      case NodeKind::Call: {
        auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
        return x->op == y->op && x->name == y->name && exprs(x->args, y->args);
      }
      case NodeKind::Reduce: {
        auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
        if (x->axis.size() != y->axis.size() || x->value_index != y->value_index) return false;
        if (x->combiner->name != y->combiner->name) return false;
        for (size_t i = 0; i < x->axis.size(); ++i)
          if (!var(x->axis[i]->var, y->axis[i]->var)) return false;
        return exprs(x->source, y->source) && expr(x->condition, y->condition);
      }
      case NodeKind::ProducerLoad: {
        auto *x = a.as<ProducerLoadNode>(), *y = b.as<ProducerLoadNode>();
        return x->op.same_as(y->op) && x->value_index == y->value_index &&
               exprs(x->indices, y->indices);
      }
      default:
        return false;
    }
  }

  bool stmt(const Stmt& a, const Stmt& b) {
    if (a.same_as(b)) return true;
    if (!a.defined() || !b.defined()) return false;
    if (a->kind() != b->kind()) return false;
    switch (a->kind()) {
      case NodeKind::LetStmt: {
        auto *x = a.as<LetStmtNode>(), *y = b.as<LetStmtNode>();
        return expr(x->value, y->value) && var(x->var, y->var) && stmt(x->body, y->body);
      }
      case NodeKind::AttrStmt: {
        auto *x = a.as<AttrStmtNode>(), *y = b.as<AttrStmtNode>();
        return x->attr_kind == y->attr_kind && x->pragma_key == y->pragma_key &&
               node_ref(x->node, y->node) && expr(x->value, y->value) && stmt(x->body, y->body);
      }
      case NodeKind::AssertStmt: {
        auto *x = a.as<AssertStmtNode>(), *y = b.as<AssertStmtNode>();
        return expr(x->condition, y->condition) && x->message == y->message &&
               stmt(x->body, y->body);
      }
      case NodeKind::Store: {
        auto *x = a.as<StoreNode>(), *y = b.as<StoreNode>();
        return var(x->buffer_var, y->buffer_var) && expr(x->value, y->value) &&
               expr(x->index, y->index) && expr(x->predicate, y->predicate);
      }
      case NodeKind::Provide: {
        auto *x = a.as<ProvideNode>(), *y = b.as<ProvideNode>();
        return x->op.same_as(y->op) && x->value_index == y->value_index &&
               expr(x->value, y->value) && exprs(x->args, y->args);
      }
      case NodeKind::Allocate: {
        auto *x = a.as<AllocateNode>(), *y = b.as<AllocateNode>();
        return x->dtype == y->dtype && x->scope == y->scope && var(x->buffer_var, y->buffer_var) &&
               exprs(x->extents, y->extents) && expr(x->condition, y->condition) &&
               stmt(x->body, y->body);
      }
      case NodeKind::Realize: {
        auto *x = a.as<RealizeNode>(), *y = b.as<RealizeNode>();
        if (!x->op.same_as(y->op) || x->bounds.size() != y->bounds.size()) return false;
        for (size_t i = 0; i < x->bounds.size(); ++i)
          if (!expr(x->bounds[i].min(), y->bounds[i].min()) ||
              !expr(x->bounds[i].extent(), y->bounds[i].extent()))
            return false;
        return stmt(x->body, y->body);
      }
      case NodeKind::ProducerConsumer: {
        auto *x = a.as<ProducerConsumerNode>(), *y = b.as<ProducerConsumerNode>();
        return x->op.same_as(y->op) && x->is_producer == y->is_producer && stmt(x->body, y->body);
      }
      case NodeKind::Block: {
        auto *x = a.as<BlockNode>(), *y = b.as<BlockNode>();
        if (x->stmts.size() != y->stmts.size()) return false;
        for (size_t i = 0; i < x->stmts.size(); ++i)
          if (!stmt(x->stmts[i], y->stmts[i])) return false;
        return true;
      }
      case NodeKind::IfThenElse: {
        auto *x = a.as<IfThenElseNode>(), *y = b.as<IfThenElseNode>();
        return expr(x->condition, y->condition) && stmt(x->then_case, y->then_case) &&
               (x->else_case.defined() == y->else_case.defined()) &&
               (!x->else_case.defined() || stmt(x->else_case, y->else_case));
      }
      case NodeKind::Evaluate:
        return expr(a.as<EvaluateNode>()->value, b.as<EvaluateNode>()->value);
      case NodeKind::For: {
        auto *x = a.as<ForNode>(), *y = b.as<ForNode>();
        return x->for_kind == y->for_kind && expr(x->min, y->min) && expr(x->extent, y->extent) &&
               var(x->loop_var, y->loop_var) && stmt(x->body, y->body);
      }
      default:
        return false;
    }
  }

 private:
  bool map_;
  std::unordered_map<const VarNode*, const VarNode*> vmap_;
};

}  // namespace

Expr substitute(const Expr& e, const VarMap& vmap) {
  if (vmap.empty()) return e;
  return Substituter(vmap).mutate(e);
}
Stmt substitute(const Stmt& s, const VarMap& vmap) {
  if (vmap.empty()) return s;
  return Substituter(vmap).mutate(s);
}
bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& pred) {
  VarUse v(pred);
  v.visit_expr(e);
  return v.found;
}
bool uses_var(const Stmt& s, const std::function<bool(const VarNode*)>& pred) {
  VarUse v(pred);
  v.visit_stmt(s);
  return v.found;
}
bool structural_equal(const Expr& a, const Expr& b, bool map_free_vars) {
  return Equal(map_free_vars).expr(a, b);
}
bool structural_equal(const Stmt& a, const Stmt& b, bool map_free_vars) {
  return Equal(map_free_vars).stmt(a, b);
}

}  // namespace minitvm::ir
