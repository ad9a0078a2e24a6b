// Helpers shared by the schedule primitives (schedule.cc), rfactor (rfactor.cc) and lowering
// (schedule_ops.cc).
#pragma once

#include <memory>
#include <set>
#include <unordered_map>

#include "minitvm/te/schedule.h"

namespace minitvm::te::detail {

/** A root stage for `op`: its axes, then its reduce axes, as leaves. */
std::shared_ptr<StageNode> make_stage(const Operation& op);

/** Replace reads in every stage (in topological order), cascading new ops to their consumers.
 *  `initial` (old op -> new op) applies to the stages whose op is in `readers`; the ops those
 *  rewrites create replace their old selves everywhere. */
void replace_dataflow(ScheduleNode* sch,
                      const std::unordered_map<const ir::OperationNode*, Operation>& initial,
                      const std::set<const ir::OperationNode*>& readers);

/**
 * Domain of the axes one split/fuse relation produces, from the domains of its inputs already in
 * `dom`: a split of extent e by factor f gives outer [0, ceil(e/f)) and inner [0, f) (by nparts n:
 * [0, n) and [0, ceil(e/n))); a fuse gives [0, outer * inner).
 */
void pass_down_domain(const IterVarRelation& r,
                      std::unordered_map<const ir::IterVarNode*, ir::Range>& dom);

}  // namespace minitvm::te::detail
