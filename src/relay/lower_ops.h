// relay::build internals: the te computes of graph ops.
#pragma once

#include <vector>

#include "minitvm/relay/expr.h"
#include "minitvm/te/tensor.h"

namespace minitvm::relay::detail {

/** The te compute(s) of one call on tensors of its argument types (multi-output ops: one tensor per
 *  field). Elementwise / broadcast / injective ops carry TOPI's tags so schedules inline them.
 *  conv2d and dense go through topi (nn.h); CompileError for ops relay::build cannot lower. */
std::vector<te::Tensor> lower_op(const ExprNode& call, const std::vector<te::Tensor>& args);

/** A CPU form of sum / mean / max / min over the last axis alone (exclude off):
 *  topi::nn::reduce_last_axis with `lanes` partials, the mean then divided (T_divide); an
 *  undefined tensor for any other call, which lower_op then lowers. */
te::Tensor lower_reduce_last_axis(const ExprNode& call, const te::Tensor& x, int64_t lanes);

/** Whether a conv2d call is depthwise with multiplier 1 (groups == input channels == output
 *  channels): lowered by topi's depthwise_conv2d_nchw. */
bool is_depthwise(const ExprNode& conv);
/** Whether a conv2d call is grouped but not is_depthwise (lowered by group_conv2d_nchw). */
bool is_grouped(const ExprNode& conv);

}  // namespace minitvm::relay::detail
