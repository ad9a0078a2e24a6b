// Message passing over a stage's split/fuse relations (TVM's schedule/message_passing): domains go
// down from the root axes to the leaves, index values go up from the leaves to the root axes, and
// the bound checks those values need. Used by bound inference (bound.cc), loop-nest construction
// (schedule_ops.cc), cross-thread reduction and rfactor.
#pragma once

#include <functional>
#include <unordered_map>

#include "minitvm/ir/arith.h"
#include "te/schedule_internal.h"

namespace minitvm::te::detail {

/** A range for each iteration variable (root axes absolute, split/fuse results from 0). */
using DomainMap = std::unordered_map<const ir::IterVarNode*, ir::Range>;
/** A value for each iteration variable of one stage. */
using IndexMap = std::unordered_map<const ir::IterVarNode*, ir::Expr>;

/**
 * Domain of the axes one split/fuse relation produces, from the domains of its inputs already in
 * `dom`: a split of extent e by factor f gives outer [0, ceil(e/f)) and inner [0, f) (by nparts n:
 * [0, n) and [0, ceil(e/n))); a fuse gives [0, outer * inner).
 */
void pass_down_domain(const IterVarRelation& r, DomainMap& dom);

/** The extent of `iv` in `dom` (an internal error when it has none). */
ir::Expr extent_of(const DomainMap& dom, const IterVar& iv);

/** The expression a leaf of s takes in generated code: its thread variable when bound, 0 for a loop
 *  of one iteration, else its own variable. */
ir::Expr leaf_value(const StagePtr& s, const IterVar& iv, const DomainMap& dom);

/**
 * Values of every axis of s from the values `leaf` gives its leaves, passing up through the
 * relations (a split's parent is outer * extent(inner) + inner; a fuse's outer and inner are the
 * floordiv/floormod of the fused value). Root axes come out absolute: their domain's min is added.
 */
IndexMap pass_up_index(const StagePtr& s, const DomainMap& dom,
                       const std::function<ir::Expr(const IterVar&)>& leaf);

/**
 * The condition under which the values `vals` (from pass_up_index) stay in range, or undefined
 * when nothing needs checking (what `var_ranges` proves is dropped): for the root axes (reduce
 * axes when `reduce_vars`, else data-parallel ones) their inferred range and, where that differs,
 * the tensor's own; and for intermediate axes split again, the parent's extent (TVM's
 * MakeBoundCheck / PassUpBoundCheck).
 */
ir::Expr make_bound_check(const StagePtr& s, const DomainMap& dom, const ir::RangeMap& var_ranges,
                          const IndexMap& vals, bool reduce_vars);

}  // namespace minitvm::te::detail
