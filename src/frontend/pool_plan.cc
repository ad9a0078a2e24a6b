// The frontend's checks of a PoolPlan: error kinds, the throwing output-size formula, the size
// limits every planner applies, and layout parsing. The plan's geometry is topi/pool_plan.h.
#include "minitvm/frontend/pool_plan.h"

#include <algorithm>

#include "minitvm/support/checked_math.h"

namespace minitvm {
namespace frontend {

using topi::PoolAxis;
using topi::PoolLayout;
using topi::PoolPlan;

const char* error_kind_name(PoolErrorKind kind) {
  switch (kind) {
    case PoolErrorKind::PadGtHalfKernel:
      return "pad_gt_half_kernel";
    case PoolErrorKind::PadNegative:
      return "pad_negative";
    case PoolErrorKind::StrideZero:
      return "stride_zero";
    case PoolErrorKind::StrideNonpositive:
      return "stride_nonpositive";
    case PoolErrorKind::KernelNonpositive:
      return "kernel_nonpositive";
    case PoolErrorKind::DilationNonpositive:
      return "dilation_nonpositive";
    case PoolErrorKind::OutputTooSmall:
      return "output_too_small";
    case PoolErrorKind::DivisorZero:
      return "divisor_zero";
    case PoolErrorKind::InputSmallerThanKernel:
      return "input_smaller_than_kernel";
    case PoolErrorKind::EmptyInput:
      return "empty_input";
    case PoolErrorKind::BadInputRank:
      return "bad_input_rank";
    case PoolErrorKind::BadArgArity:
      return "bad_arg_arity";
    case PoolErrorKind::OutputSizeNegative:
      return "output_size_negative";
    case PoolErrorKind::EmptyWindow:
      return "empty_window";
    case PoolErrorKind::TooLarge:
      return "too_large";
    case PoolErrorKind::Unsupported:
      return "unsupported";
    case PoolErrorKind::Other:
      return "other";
  }
  return "other";
}

int64_t pool_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin,
                         int64_t pad_end, int64_t dilation, bool ceil_mode) {
  std::optional<int64_t> out =
      topi::checked_pool_output_size(in, kernel, stride, pad_begin, pad_end, dilation, ceil_mode);
  if (!out)
    throw PoolParamError(PoolErrorKind::TooLarge,
                         "pooling: the output length for input " + std::to_string(in) +
                             ", kernel " + std::to_string(kernel) + ", stride " +
                             std::to_string(stride) + ", padding " + std::to_string(pad_begin) +
                             "/" + std::to_string(pad_end) + ", dilation " +
                             std::to_string(dilation) + " overflows int64");
  return *out;
}

void check_plan_limits(const PoolPlan& plan, const std::string& where) {
  auto fail = [&](const std::string& msg) {
    throw PoolParamError(PoolErrorKind::TooLarge, where + ": " + msg);
  };
  auto dim = [&](const char* what, int a, int64_t v) {
    if (v < 0 || v > kPoolMaxDim)
      fail(std::string(what) + " " + std::to_string(v) + " of spatial axis " + std::to_string(a) +
           " is outside [0, " + std::to_string(kPoolMaxDim) + "]");
  };
  if (plan.batch < 0 || plan.batch > kPoolMaxDim)
    fail("batch size " + std::to_string(plan.batch) + " is outside [0, " +
         std::to_string(kPoolMaxDim) + "]");
  if (plan.channels < 0 || plan.channels > kPoolMaxDim)
    fail("channel count " + std::to_string(plan.channels) + " is outside [0, " +
         std::to_string(kPoolMaxDim) + "]");
  for (int a = 0; a < plan.spatial_rank(); ++a) {
    const PoolAxis& ax = plan.axes[a];
    dim("input length", a, ax.in);
    dim("output length", a, ax.out);
    if (ax.out > kPoolMaxAxisOutput)
      fail("output length " + std::to_string(ax.out) + " of spatial axis " + std::to_string(a) +
           " exceeds " + std::to_string(kPoolMaxAxisOutput));
    if (ax.adaptive) continue;
    dim("kernel", a, ax.kernel);
    dim("stride", a, ax.stride);
    dim("begin padding", a, ax.pad_begin);
    dim("end padding", a, ax.pad_end);
    dim("dilation", a, ax.dilation);
  }
  // All values are now below 2^31: the products below cannot overflow before they are compared.
  auto elements = [&](const std::vector<int64_t>& shape, const char* what) {
    std::optional<int64_t> n = checked_product(shape);
    if (!n || *n > kPoolMaxElements)
      fail(std::string("the ") + what + " has more than " + std::to_string(kPoolMaxElements) +
           " elements");
    return *n;
  };
  const int64_t in_n = elements(plan.input_shape(), "input");
  const int64_t out_n = elements(plan.output_shape(), "output");
  if (out_n > pool_output_allowance(in_n))
    fail("the output would hold " + std::to_string(out_n) + " elements for an input of " +
         std::to_string(in_n) + " (at most " + std::to_string(kPoolOutputRatio) +
         " times the input, or " + std::to_string(kPoolOutputBudget) + ")");
  // Work: planes x output positions x taps, each factor at least 1 (window geometry is computed
  // per output position even when the batch is empty).
  int64_t work = std::max<int64_t>(1, plan.batch * plan.channels);
  auto mul = [&](int64_t f) {
    std::optional<int64_t> w = checked_mul(work, std::max<int64_t>(1, f));
    work = w && *w <= kPoolMaxWork ? *w : kPoolMaxWork + 1;
  };
  int64_t taps = 1;
  for (const PoolAxis& ax : plan.axes) {
    mul(ax.out);
    if (ax.adaptive)
      taps = ax.out > 0 ? std::min(ax.in, (ax.in + ax.out - 1) / ax.out + 1) : 1;
    else
      taps = ax.kernel;
    mul(taps);
  }
  if (work > kPoolMaxWork)
    fail("the work (output positions x window taps) exceeds " + std::to_string(kPoolMaxWork) +
         " (docs/POOLING.md, size limits)");
}

PoolLayout parse_layout(const std::string& name, int spatial_rank) {
  if (name == topi::layout_name(PoolLayout::ChannelsFirst, spatial_rank) ||
      (spatial_rank == 1 && name == "NCW"))
    return PoolLayout::ChannelsFirst;
  if (name == topi::layout_name(PoolLayout::ChannelsLast, spatial_rank) ||
      (spatial_rank == 1 && name == "NWC"))
    return PoolLayout::ChannelsLast;
  throw PoolParamError(PoolErrorKind::Unsupported,
                       "pooling: layout '" + name + "' is not supported for " +
                           std::to_string(spatial_rank) + "-d pooling (use " +
                           topi::layout_name(PoolLayout::ChannelsFirst, spatial_rank) + " or " +
                           topi::layout_name(PoolLayout::ChannelsLast, spatial_rank) + ")");
}

}  // namespace frontend
}  // namespace minitvm
