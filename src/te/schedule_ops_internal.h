// Loop-nest construction, shared by schedule_ops.cc (stages, loops, guards, realize, attach) and
// cross_thread_reduction.cc. It reads the bounds bound inference produced (bound.h) and the
// schedule; it writes neither.
#pragma once

#include <functional>

#include "minitvm/ir/stmt.h"
#include "te/bound.h"

namespace minitvm::te::detail {

class NestBuilder {
 public:
  NestBuilder(const Schedule& sch, BoundMap bounds)
      : sch_(sch), bounds_(std::move(bounds)), var_ranges_(bounds_.var_ranges) {}

  /** The statement of the whole schedule: every root stage's produce, realized unless it is an
   *  output, producers outermost. */
  ir::Stmt build_root();
  /** The produce statement of s, with the stages attached at its loops. */
  ir::Stmt produce(const StagePtr& s);
  /** Statements of stages attached at (s, iv), each realized around `rest`. */
  ir::Stmt attach_children(const StagePtr& s, const IterVar& iv, ir::Stmt rest);
  /** Wraps a body in the loop of `iv` (or its thread attribute), its pragmas and, unless
   *  `with_prefetch` is false (reduction init loops), its prefetch_scope attributes. */
  std::function<ir::Stmt(ir::Stmt)> loop_wrapper(const StagePtr& s, const IterVar& iv,
                                                 const ir::Var& loop_var,
                                                 bool with_prefetch = true) const;
  /** Guards for root vars of s whose values may leave their inferred range or the tensor. */
  ir::Expr bound_predicate(const StagePtr& s, const IndexMap& vals, bool reduce_vars) const {
    return make_bound_check(s, bounds_.ranges, var_ranges_, vals, reduce_vars);
  }
  /** `body` under `likely(pred)`, unless pred is undefined or simplifies to true. */
  ir::Stmt guard(ir::Expr pred, ir::Stmt body) const;
  /** The stage's store predicate (set_store_predicate) around its store. */
  static ir::Stmt store_guard(const StagePtr& s, ir::Stmt body);
  /** Values of the axes of s in generated code (leaves: leaf_value). */
  IndexMap index_values(const StagePtr& s) const;

  const BoundMap& bounds() const { return bounds_; }
  /** The bounds' variable ranges plus the loop variables nest building introduces. */
  const ir::RangeMap& var_ranges() const { return var_ranges_; }

 private:
  ir::Stmt realize(const StagePtr& s, ir::Stmt body) const;

  const Schedule& sch_;
  const BoundMap bounds_;
  ir::RangeMap var_ranges_;
};

/**
 * A reduction with reduce leaves bound to threads (TVM's MakeCrossThreadReduction): each thread
 * reduces its part, then tvm_thread_allreduce combines the parts across the bound threads.
 */
ir::Stmt make_cross_thread_reduction(const StagePtr& s, NestBuilder& nest);

}  // namespace minitvm::te::detail
