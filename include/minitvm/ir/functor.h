/** \file
 * The one IR visitor and the one IR mutator (generated from node_list.h).
 *
 * IRVisitor walks every child by default; override `visit(const XNode*)` for the nodes you care
 * about and call the base to keep walking. IRMutator returns the node unchanged (same object)
 * when no child changed, so `same_as` tells a pass whether it did anything.
 */
#pragma once

#include <functional>

#include "minitvm/ir/expr.h"
#include "minitvm/ir/stmt.h"

namespace minitvm::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void visit_expr(const Expr& e);
  virtual void visit_stmt(const Stmt& s);
#define MINITVM_VISIT_DECL(N) virtual void visit(const N##Node* op);
  MINITVM_FOR_EACH_EXPR(MINITVM_VISIT_DECL)
  MINITVM_FOR_EACH_STMT(MINITVM_VISIT_DECL)
#undef MINITVM_VISIT_DECL
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);
  Stmt operator()(const Stmt& s) { return mutate(s); }
  Expr operator()(const Expr& e) { return mutate(e); }

 protected:
  // `self` is the handle of `op`, to return unchanged.
#define MINITVM_MUTATE_DECL(N) virtual Expr visit(const N##Node* op, const Expr& self);
  MINITVM_FOR_EACH_EXPR(MINITVM_MUTATE_DECL)
#undef MINITVM_MUTATE_DECL
#define MINITVM_MUTATE_DECL(N) virtual Stmt visit(const N##Node* op, const Stmt& self);
  MINITVM_FOR_EACH_STMT(MINITVM_MUTATE_DECL)
#undef MINITVM_MUTATE_DECL
  std::vector<Expr> mutate_all(const std::vector<Expr>& v, bool* changed);
};

/** Call f on every node, children before parents (post-order), expressions and statements. */
void post_order_visit(const Stmt& s, const std::function<void(const Ref<Object>&)>& f);
void post_order_visit(const Expr& e, const std::function<void(const Ref<Object>&)>& f);

}  // namespace minitvm::ir
