// Helpers shared by the schedule primitives (schedule.cc) and rfactor (rfactor.cc).
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
void replace_dataflow(ScheduleNode* sch, const std::unordered_map<const ir::OperationNode*, Operation>& initial,
                      const std::set<const ir::OperationNode*>& readers);

}  // namespace minitvm::te::detail
