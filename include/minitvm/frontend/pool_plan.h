/** \file
 * The semantic layer of the pooling frontend: parameter structs mirroring PyTorch 1.13's pooling
 * functions, their validation and size limits, and the planners that resolve them into the
 * topi::PoolPlan (topi/pool_plan.h) that every executor (the naive reference, the compiled
 * kernels) consumes. The ONNX attribute mapping is in onnx_pool_attrs.h.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/dtype.h"
#include "minitvm/support/error.h"
#include "minitvm/topi/pool_plan.h"

namespace minitvm {
namespace frontend {

/** What kind of parameter error PyTorch (or ONNX) would report; the names follow the golden data's
 * `error_kind` field. */
enum class PoolErrorKind {
  PadGtHalfKernel,
  PadNegative,
  StrideZero,
  StrideNonpositive,
  KernelNonpositive,
  DilationNonpositive,
  OutputTooSmall,
  DivisorZero,
  InputSmallerThanKernel,
  EmptyInput,
  BadInputRank,
  BadArgArity,
  OutputSizeNegative,
  EmptyWindow,  ///< ONNX only: a window lies entirely in padding (PyTorch keeps its quirk)
  TooLarge,     ///< beyond the frontend's size limits (kPoolMaxDim, kPoolMaxElements, kPoolMaxWork)
  Unsupported,  ///< a valid attribute or dtype this frontend does not implement
  Other,
};

/** Golden-data spelling of a kind ("pad_gt_half_kernel", ...). */
const char* error_kind_name(PoolErrorKind kind);

/** A pooling parameter rejected where PyTorch/ONNX reject it. The message follows PyTorch 1.13's
 * first line where there is one; kind() says which check failed. */
class PoolParamError : public CompileError {
 public:
  PoolParamError(PoolErrorKind kind, const std::string& msg) : CompileError(msg), kind_(kind) {}
  PoolErrorKind kind() const { return kind_; }

 private:
  PoolErrorKind kind_;
};

/** topi::checked_pool_output_size (PyTorch's pooling output length); throws PoolParamError
 * (TooLarge) when the arithmetic overflows int64. stride must be non-zero. */
int64_t pool_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin,
                         int64_t pad_end, int64_t dilation, bool ceil_mode);

/** Size limits of every plan (docs/POOLING.md, "Size limits"). Each input length, kernel, stride,
 * padding and dilation is at most kPoolMaxDim (the compiled kernels index with int32); each output
 * length at most kPoolMaxAxisOutput (planners and the reference evaluate the window geometry per
 * output position of an axis); the input and the output hold at most kPoolMaxElements elements
 * each; and the work, output positions times taps per window (kernel volume; for adaptive axes the
 * longest window), counted with at least one (N, C) plane, is at most kPoolMaxWork. */
inline constexpr int64_t kPoolMaxDim = INT32_MAX;
inline constexpr int64_t kPoolMaxAxisOutput = int64_t{1} << 24;
inline constexpr int64_t kPoolMaxElements = INT32_MAX;
inline constexpr int64_t kPoolMaxWork = int64_t{1} << 32;
/** An output (or a MaxUnpool result) holds at most kPoolOutputRatio times the input's elements,
 * or kPoolOutputBudget elements if that is more: attributes alone cannot make the frontend
 * allocate gigabytes for a small input. */
inline constexpr int64_t kPoolOutputRatio = 64;
inline constexpr int64_t kPoolOutputBudget = int64_t{1} << 24;
/** The most elements an output computed from an input of `input_elements` may hold. */
inline int64_t pool_output_allowance(int64_t input_elements) {
  return input_elements > kPoolMaxElements / kPoolOutputRatio
             ? kPoolMaxElements
             : (input_elements * kPoolOutputRatio > kPoolOutputBudget
                    ? input_elements * kPoolOutputRatio
                    : kPoolOutputBudget);
}
/** Throws PoolParamError (TooLarge) naming `where` (an op or node) and the exceeded limit; every
 * planner calls it before it looks at a window. */
void check_plan_limits(const topi::PoolPlan& plan, const std::string& where);

/** Parse "NCHW", "NHWC", "NCL", "NCW", "NLC", "NWC", "NCDHW", "NDHWC" for the given rank; throws
 * CompileError on anything else. */
topi::PoolLayout parse_layout(const std::string& name, int spatial_rank);

// ---- PyTorch parameters ----------------------------------------------------------------------
// Every list argument may hold one value (broadcast to all spatial axes, like an int in PyTorch) or
// one value per spatial axis. An empty stride means "not given" (defaults to kernel_size).

/** The input tensor a plan is made for. `shape` is in `layout` order and may be unbatched. */
struct PoolInput {
  std::vector<int64_t> shape;
  DataType dtype = DataType::Float(32);
  topi::PoolLayout layout = topi::PoolLayout::ChannelsFirst;
};

/** torch.nn.functional.max_pool{1,2,3}d */
struct MaxPoolParams {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;  ///< empty: kernel_size
  std::vector<int64_t> padding{0};
  std::vector<int64_t> dilation{1};
  bool ceil_mode = false;
  bool return_indices = false;
};

/** torch.nn.functional.avg_pool{1,2,3}d (divisor_override only for 2d/3d) */
struct AvgPoolParams {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;  ///< empty: kernel_size
  std::vector<int64_t> padding{0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;
};

/** torch.nn.functional.adaptive_{avg,max}_pool{1,2,3}d; nullopt entries keep the input size. */
struct AdaptivePoolParams {
  std::vector<std::optional<int64_t>> output_size;
  bool return_indices = false;  ///< max only
};

/** torch.nn.functional.lp_pool{1,2}d (no padding argument) */
struct LpPoolParams {
  double norm_type = 2.0;
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;  ///< empty: kernel_size
  bool ceil_mode = false;
};

/** Plan max_pool{rank}d; throws PoolParamError where PyTorch 1.13 (with-indices path) rejects. */
topi::PoolPlan plan_max_pool(int rank, const PoolInput& input, const MaxPoolParams& params);
/** Plan avg_pool{rank}d; throws PoolParamError where PyTorch 1.13 rejects. */
topi::PoolPlan plan_avg_pool(int rank, const PoolInput& input, const AvgPoolParams& params);
/** Plan adaptive_avg_pool{rank}d. Output 1 on every axis takes PyTorch's mean() path. */
topi::PoolPlan plan_adaptive_avg_pool(int rank, const PoolInput& input,
                                      const AdaptivePoolParams& params);
/** Plan adaptive_max_pool{rank}d. */
topi::PoolPlan plan_adaptive_max_pool(int rank, const PoolInput& input,
                                      const AdaptivePoolParams& params);
/** Plan lp_pool{1,2}d (PyTorch's signed, full-area-scaled definition). */
topi::PoolPlan plan_lp_pool(int rank, const PoolInput& input, const LpPoolParams& params);
/** Global max/avg pooling over all spatial axes (adaptive pooling to 1, avg via the mean path). */
topi::PoolPlan plan_global_pool(topi::PoolMode mode, int rank, const PoolInput& input);

/** Throws PoolParamError where PyTorch rejects the backward of a valid forward: adaptive pooling
 * with a zero-sized output axis ("Expected grad_output to have non-zero size..."). */
void check_backward(const topi::PoolPlan& plan);

}  // namespace frontend
}  // namespace minitvm
