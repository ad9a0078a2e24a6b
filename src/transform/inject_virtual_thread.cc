// Virtual threads (TVM's InjectVirtualThread). For each `virtual_thread` attribute
// (innermost first) with variable v of extent n:
//  - buffers whose stores depend on v (directly or through other such buffers) are private per
//    virtual thread: their allocation grows by a factor n and every access is offset by v * size;
//  - v is injected as low as possible: statements that do not use v are left alone (e.g. the
//    cooperative shared-memory loads, so they run once for all virtual threads), loops whose bounds
//    do not use v stay outside, and the first statement that uses v is duplicated n times with v =
//    0..n-1 (no loop inside and n < 16) or wrapped in a serial loop `v.s`.
// Virtual threads are independent by contract, so moving their loop inward keeps results.
#include <unordered_set>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/passes.h"

namespace minitvm::transform {

using namespace ir;

namespace {

/** Buffers (and let variables) whose contents depend on v. */
std::unordered_set<const VarNode*> touched_vars(const Stmt& body, const VarNode* v) {
  std::unordered_set<const VarNode*> touched{v};
  auto depends = [&](const Expr& e) {
    if (uses_var(e, [&](const VarNode* x) { return touched.count(x) > 0; })) return true;
    bool found = false;  // loads of touched buffers
    post_order_visit(e, [&](const Ref<Object>& n) {
      if (auto* l = n.as<LoadNode>()) found |= touched.count(l->buffer_var.get()) > 0;
    });
    return found;
  };
  for (bool changed = true; changed;) {
    changed = false;
    post_order_visit(body, [&](const Ref<Object>& n) {
      if (auto* s = n.as<StoreNode>()) {
        if (!touched.count(s->buffer_var.get()) && (depends(s->value) || depends(s->index))) {
          touched.insert(s->buffer_var.get());
          changed = true;
        }
      } else if (auto* l = n.as<LetStmtNode>()) {
        if (!touched.count(l->var.get()) && depends(l->value)) {
          touched.insert(l->var.get());
          changed = true;
        }
      }
    });
  }
  touched.erase(v);
  return touched;
}

bool contains_loop(const Stmt& s) {
  bool found = false;
  post_order_visit(s, [&](const Ref<Object>& n) { found |= n->kind() == NodeKind::For; });
  return found;
}

class VTInjector : public IRMutator {
 public:
  VTInjector(Var v, int64_t n, std::unordered_set<const VarNode*> touched)
      : v_(std::move(v)), n_(n), touched_(std::move(touched)) {}
  using IRMutator::mutate;

 protected:
  // Accesses of expanded buffers get the per-thread offset.
  Expr visit(const LoadNode* op, const Expr& self) override {
    Expr r = IRMutator::visit(op, self);
    auto it = expanded_.find(op->buffer_var.get());
    if (it == expanded_.end()) return r;
    auto* l = r.as<LoadNode>();
    return LoadNode::make(l->dtype, l->buffer_var, offset(l->index, it->second), l->predicate);
  }
  Stmt visit(const StoreNode* op, const Stmt& self) override {
    Expr value = mutate(op->value), index = mutate(op->index);
    auto it = expanded_.find(op->buffer_var.get());
    if (it != expanded_.end()) index = offset(index, it->second);
    return inject(StoreNode::make(op->buffer_var, value, index, op->predicate));
  }
  Stmt visit(const EvaluateNode* op, const Stmt& self) override {
    return inject(IRMutator::visit(op, self));
  }
  Stmt visit(const AllocateNode* op, const Stmt& self) override {
    int64_t size = op->constant_size();
    if (touched_.count(op->buffer_var.get()) && size > 0) {
      expanded_[op->buffer_var.get()] = size;
      Stmt body = mutate(op->body);
      expanded_.erase(op->buffer_var.get());
      return AllocateNode::make(op->buffer_var, op->dtype,
                                {make_const(DataType::Int(32), n_ * size)}, op->scope,
                                op->condition, body);
    }
    return IRMutator::visit(op, self);
  }
  Stmt visit(const ForNode* op, const Stmt& self) override {
    if (uses_v(op->min) || uses_v(op->extent)) return inject_whole(self);
    Stmt body = mutate(op->body);
    if (body.same_as(op->body)) return self;
    return ForNode::make(op->loop_var, op->min, op->extent, op->for_kind, body);
  }
  Stmt visit(const IfThenElseNode* op, const Stmt& self) override {
    if (uses_v(op->condition)) return inject_whole(self);
    return IRMutator::visit(op, self);
  }
  Stmt visit(const LetStmtNode* op, const Stmt& self) override {
    if (uses_v(op->value)) return inject_whole(self);
    return IRMutator::visit(op, self);
  }

 private:
  Expr offset(const Expr& index, int64_t size) {
    Expr off = v_ * make_const(DataType::Int(32), size);
    if (index.dtype().is_vector()) off = BroadcastNode::make(off, index.dtype().lanes());
    return index + off;
  }
  bool uses_v(const Expr& e) const { return uses_var(e, v_.get()); }
  /** Rewrite accesses in a whole subtree (without injecting inside), then inject at its root. */
  Stmt inject_whole(const Stmt& s) {
    class Offsetter : public IRMutator {
     public:
      VTInjector* self;
      using IRMutator::mutate;

     protected:
      Expr visit(const LoadNode* op, const Expr& e) override { return self->visit(op, e); }
      Stmt visit(const StoreNode* op, const Stmt& st) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        auto it = self->expanded_.find(op->buffer_var.get());
        if (it != self->expanded_.end()) index = self->offset(index, it->second);
        return StoreNode::make(op->buffer_var, value, index, op->predicate);
      }
    } o;
    o.self = this;
    return inject(o.mutate(s));
  }
  /** Duplicate or loop the statement over the virtual threads, if it uses v. */
  Stmt inject(const Stmt& s) {
    if (!uses_var(s, v_.get())) return s;
    if (n_ < 16 && !contains_loop(s)) {
      std::vector<Stmt> copies;
      for (int64_t i = 0; i < n_; ++i)
        copies.push_back(substitute(s, VarMap{{v_.get(), make_const(v_.dtype(), i)}}));
      return BlockNode::make(copies);
    }
    Var loop(v_->name_hint + ".s", v_.dtype());
    return ForNode::make(loop, make_zero(loop.dtype()), make_const(loop.dtype(), n_),
                         ForKind::Serial, substitute(s, VarMap{{v_.get(), loop}}));
  }

  Var v_;
  int64_t n_;
  std::unordered_set<const VarNode*> touched_;
  std::unordered_map<const VarNode*, int64_t> expanded_;
};

class VThreadInjector : public IRMutator {
 public:
  using IRMutator::mutate;

 protected:
  Stmt visit(const AttrStmtNode* op, const Stmt& self) override {
    Stmt r = IRMutator::visit(op, self);  // inner virtual threads first
    auto* a = r.as<AttrStmtNode>();
    if (a->attr_kind != AttrKind::VirtualThread) return r;
    auto* iv = a->node.as<IterVarNode>();
    const int64_t* n = as_const_int(a->value);
    MINITVM_USER_CHECK(n) << "virtual thread " << iv->var->name_hint
                          << " needs a constant extent, got " << a->value;
    if (*n == 1) return substitute(a->body, VarMap{{iv->var.get(), make_zero(iv->var.dtype())}});
    auto touched = touched_vars(a->body, iv->var.get());
    return VTInjector(iv->var, *n, std::move(touched)).mutate(a->body);
  }
};
}  // namespace

Stmt inject_virtual_thread(const Stmt& s) {
  return VThreadInjector().mutate(s);
}

}  // namespace minitvm::transform
