/** \file
 * From a schedule to a loop nest (TVM's InferBound + ScheduleOps).
 *
 * `schedule_to_stmt` inlines `compute_inline` stages, infers the range of every iteration
 * variable (consumers first; a stage attached with compute_at needs only the region its consumer
 * reads in one iteration of the enclosing loops, relaxed over thread axes as its storage scope
 * requires), and builds the statement: one `produce` per stage, `For` loops / thread-extent
 * attributes for the leaf axes, `Realize` for intermediate tensors, `likely` guards where a split
 * does not divide or a region exceeds the tensor.
 */
#pragma once

#include <unordered_map>

#include "minitvm/ir/arith.h"
#include "minitvm/te/schedule.h"

namespace minitvm::te {

struct ScheduleLowering {
  ir::Stmt body;
  /** Ranges of every iteration variable (root: absolute, leaf: [0, extent)). */
  std::unordered_map<const ir::IterVarNode*, Range> bounds;
};

ScheduleLowering schedule_to_stmt(Schedule sch);

}  // namespace minitvm::te
