// Helpers shared by the topi schedules: graph traversal, op lookup, applying split entities.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "minitvm/autotune/space.h"
#include "minitvm/te/schedule.h"
#include "minitvm/topi/nn.h"

namespace minitvm::topi::detail {

/** An int32 constant when it fits (schedule factors and extents, as TVM's). */
inline Expr I(int64_t v) {
  return (v >= INT32_MIN && v <= INT32_MAX) ? Expr(static_cast<int>(v)) : Expr(v);
}

/** The operations of a schedule's output tensors (CompileError when there are none). */
std::vector<te::Operation> ops_of(const std::vector<te::Tensor>& outs);

/** TVM traverse_inline: DFS from `out`; non-output injective compute ops are inlined; `cb` sees
 *  every compute op (after its inputs). */
void traverse_inline(te::Schedule& s, const te::Operation& out,
                     const std::function<void(const te::Operation&)>& cb);

/** Inline the non-output injective stages between `out` and the first op tagged `stop`, and
 *  return that op (TVM's traverse_inline, which does not look behind the convolution: its padding
 *  stays a root stage). CompileError when there is none. */
te::Operation inline_epilogue(te::Schedule& s, const te::Operation& out, const std::string& stop);

/** First op with this tag reachable from `out` (DFS), or an undefined Operation. */
te::Operation find_op_by_tag(const te::Operation& out, const std::string& tag);

/** Whether `op` is one of the schedule outputs. */
bool is_output(const te::Schedule& s, const te::Operation& op);

/** Apply a SplitEntity as TVM does (size[0] ignored; later sizes as factors). Returns the
 *  size().size() resulting axes, outermost first. */
std::vector<IterVar> apply_split(te::Stage st, IterVar axis, const autotune::SplitEntity& e);

/** A tuned (non-fallback) config must fit the template's space before any knob is applied:
 *  `define` defines the template's knobs on a fresh ConfigSpace; InvalidConfig "<where>: ..."
 * naming the knob otherwise (a record with a 2-part tile_f must not reach a 4-way bind). */
void require_fits(const autotune::ConfigEntity& cfg,
                  const std::function<void(autotune::SpaceDefiner&)>& define,
                  const std::string& where);

/** Integer value of an other-option knob. */
int64_t knob_int(const autotune::ConfigEntity& cfg, const std::string& name);

/** The largest divisor of n that is <= cap. */
int64_t largest_divisor_at_most(int64_t n, int64_t cap);

/** Number of elements of a shape (the product of its dimensions; 1 for a scalar). */
int64_t num_elements(const std::vector<int64_t>& shape);

}  // namespace minitvm::topi::detail
