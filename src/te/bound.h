// Bound inference (TVM's InferBound): the range of every iteration variable of a schedule, and the
// storage scope of every stage, which loop-nest construction (schedule_ops.cc) then only reads.
#pragma once

#include <unordered_map>

#include "minitvm/ir/arith.h"
#include "te/message_passing.h"

namespace minitvm::te::detail {

/** What bound inference hands to loop-nest construction. */
struct BoundMap {
  /** Every iteration variable of every live stage (is_live): root axes their inferred range
   *  (absolute; an output's is its full domain, a reduce axis its own domain), split/fuse results
   *  [0, extent). */
  DomainMap ranges;
  /** The loop variable of every leaf, and the thread variable it is bound to: [0, extent). What
   *  guards are simplified and proved against. */
  ir::RangeMap var_ranges;
  /** The storage scope of every live stage: its own (set_scope, cache_read/cache_write) or the one
   *  its enclosing thread axes imply. */
  std::unordered_map<const StageNode*, ir::StorageScope> scopes;

  /** The extent of `iv` (an internal error when it has no range). */
  ir::Expr extent(const IterVar& iv) const { return extent_of(ranges, iv); }
  ir::StorageScope scope(const StagePtr& s) const { return scopes.at(s.get()); }
};

/**
 * Infer the bounds of `sch`, consumers first: an output stage covers its whole domain; any other
 * stage the union of what its consumers read, where the loops enclosing the stage's attach point
 * stay fixed except thread axes its storage scope is shared across, and the loops enclosing each
 * consumer but not the stage are relaxed over their range. Reads are clamped to the tensor's
 * domain. Stages marked compute_inline must have been inlined already (schedule_to_stmt does that
 * first); they and placeholders get no ranges.
 */
BoundMap infer_bound(const Schedule& sch);

}  // namespace minitvm::te::detail
