// Helpers shared by the schedule primitives (schedule.cc), rfactor (rfactor.cc) and lowering
// (bound.cc, schedule_ops.cc, cross_thread_reduction.cc).
#pragma once

#include <memory>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

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

// ---- stage queries (bound inference, loop nests, cross-thread reduction)
// ---------------------------

using StagePtr = std::shared_ptr<StageNode>;

/** The root axes of a stage: its op's axes, then its reduce axes. */
std::vector<IterVar> root_vars(const StagePtr& s);
/** The attributes of `iv` in s, or nullptr when it has none. */
const IterVarAttr* attr_of(const StagePtr& s, const IterVar& iv);
/** The thread axis `iv` is bound to in s (undefined: not bound). */
IterVar bound_thread(const StagePtr& s, const IterVar& iv);
/** Whether s is computed by lowering: a compute stage that is not inlined. */
bool is_live(const StagePtr& s);
/** Whether a reduce leaf of s is bound to a thread (a cross-thread reduction). */
bool is_cross_thread(const StagePtr& s);
/** Loops enclosing the attach point of s: (stage, leaf iter var) pairs, innermost last. */
std::vector<std::pair<StagePtr, IterVar>> enclosing_loops(const StagePtr& s);

}  // namespace minitvm::te::detail
