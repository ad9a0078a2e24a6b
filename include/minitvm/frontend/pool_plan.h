/** \file
 * The semantic layer of the pooling frontend: parameter structs mirroring PyTorch 1.13's pooling
 * functions, their validation, and the resolved PoolPlan that every executor (the naive reference,
 * the compiled kernels) consumes.
 *
 * A PoolPlan is fully resolved: per spatial axis it holds the input and output length, kernel,
 * stride, begin/end padding and dilation (or the adaptive rule), plus the reduction mode, divisor
 * rule, index convention and layout. Nothing in it depends on defaults any more, so a kernel never
 * has to re-derive PyTorch's or ONNX's rules. The ONNX attribute mapping is in onnx_pool_attrs.h.
 *
 * Window geometry for output position o on a fixed-window axis: taps at o*stride - pad_begin +
 * i*dilation for i in [0, kernel); taps outside [0, in) are padding. On an adaptive axis the window
 * is [floor(o*in/out), ceil((o+1)*in/out)). See docs/POOLING.md.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "minitvm/ir/dtype.h"
#include "minitvm/support/error.h"

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

/** The reduction computed over each window. */
enum class PoolMode { Max, Avg, Lp };

/** Where the channel axis is. ChannelsFirst: (N,)C,spatial... ; ChannelsLast: (N,)spatial...,C. */
enum class PoolLayout { ChannelsFirst, ChannelsLast };

/** How an average window's sum is divided. */
enum class DivisorRule {
  CountIncludePad,   ///< taps inside [-pad_begin, in + pad_end) (PyTorch clips ceil windows at L+p)
  CountExcludePad,   ///< taps inside [0, in)
  Override,          ///< PyTorch divisor_override, any non-zero value
  AdaptiveEachAxis,  ///< adaptive avg: sum / k_0 / k_1 / ... (one division per axis, PyTorch CPU)
  Mean,              ///< one division by the window volume (mean() path, ONNX GlobalAveragePool)
};

/** How max-pool indices are encoded. */
enum class IndexBase {
  PerPlane,        ///< PyTorch: flat offset inside one (n, c) plane, row-major (d*H*W + h*W + w)
  GlobalRowMajor,  ///< ONNX storage_order=0: offset into the whole NC... input
  GlobalColMajor,  ///< ONNX storage_order=1: (n*C + c)*plane + h + w*H (+ d*H*W)
};

/** How an Lp window is reduced. */
enum class LpRule {
  Torch,  ///< PyTorch 1.13: y = (sign(A)*relu(|A|)*K)^(1/p), A = avg(x^p) (no abs, full-area scale)
  Onnx,   ///< ONNX LpPool: y = (sum |x|^p)^(1/p) over in-range taps
};

/** One spatial axis of a resolved plan. */
struct PoolAxis {
  int64_t in = 0;   ///< input length
  int64_t out = 0;  ///< output length
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t pad_begin = 0;
  int64_t pad_end = 0;
  int64_t dilation = 1;
  bool adaptive = false;  ///< window is [floor(o*in/out), ceil((o+1)*in/out)); kernel etc. unused

  /** Effective kernel extent dilation*(kernel-1)+1. */
  int64_t effective_kernel() const { return dilation * (kernel - 1) + 1; }
};

/** The window of one output position along one axis: tap i is at position start + i*step, the
 * in-range taps are i in [tap_begin, tap_end) (empty when tap_begin >= tap_end), and pool_count
 * is the number of taps counted with count_include_pad. */
struct AxisWindow {
  int64_t start = 0;
  int64_t step = 1;
  int64_t tap_begin = 0;
  int64_t tap_end = 0;
  int64_t pool_count = 0;
  int64_t real_count() const { return tap_end > tap_begin ? tap_end - tap_begin : 0; }
};

/** A fully resolved pooling operation. */
struct PoolPlan {
  std::string op;  ///< "max_pool2d", "onnx.MaxPool", ... (for messages)
  PoolMode mode = PoolMode::Max;
  DataType dtype = DataType::Float(32);
  PoolLayout layout = PoolLayout::ChannelsFirst;
  bool batched = true;  ///< false: the input has no N axis (N is then 1 in `batch`)
  int64_t batch = 1;
  int64_t channels = 1;
  std::vector<PoolAxis> axes;  ///< spatial axes, outermost first (D, H, W)

  // Max pooling.
  bool return_indices = false;
  IndexBase index_base = IndexBase::PerPlane;
  // Avg pooling.
  DivisorRule divisor_rule = DivisorRule::CountIncludePad;
  int64_t divisor_override = 0;  ///< used with DivisorRule::Override
  // Lp pooling.
  LpRule lp_rule = LpRule::Torch;
  double lp_norm = 2.0;

  /** Some window has no in-range tap (dilation/padding quirk). Max writes -inf there with index
   * -1; avg/lp never see this through the PyTorch checks. */
  bool has_empty_window = false;

  int spatial_rank() const { return static_cast<int>(axes.size()); }
  /** Input shape in the plan's layout, without N when !batched. */
  std::vector<int64_t> input_shape() const;
  /** Output (and indices) shape in the plan's layout, without N when !batched. */
  std::vector<int64_t> output_shape() const;
  int64_t input_plane_size() const;   ///< product of spatial input lengths
  int64_t output_plane_size() const;  ///< product of spatial output lengths
  /** The window of output position o along axis a. */
  AxisWindow window(int a, int64_t o) const;
  /** The first output position of fixed-window axis a whose window has no in-range tap, or -1.
   * Looks only at the positions that can be empty (windows starting in the padding), so it costs
   * O(1) unless dilation > input length. */
  int64_t first_empty_window(int a) const;
  /** One-line description, e.g. "max_pool2d float32 NCHW in [1,3,8,8] out [1,3,4,4] k=[2,2] ...".
   */
  std::string str() const;
};

/** PyTorch's pooling output length (pooling_output_shape_pad_lr): floor division rounding toward
 * -inf, ceil_mode, and the rule that a last window starting at or beyond in+pad_begin is dropped.
 * stride must be non-zero. Throws PoolParamError (TooLarge) when the arithmetic overflows int64. */
int64_t pool_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin,
                         int64_t pad_end, int64_t dilation, bool ceil_mode);
/** pool_output_size, or nullopt when its arithmetic overflows int64. */
std::optional<int64_t> checked_pool_output_size(int64_t in, int64_t kernel, int64_t stride,
                                                int64_t pad_begin, int64_t pad_end,
                                                int64_t dilation, bool ceil_mode);

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
void check_plan_limits(const PoolPlan& plan, const std::string& where);

/** Adaptive window bounds [start, end) of output o (PyTorch AdaptivePooling.h, integer form). */
int64_t adaptive_start(int64_t o, int64_t in, int64_t out);
int64_t adaptive_end(int64_t o, int64_t in, int64_t out);

/** Name of a layout for a spatial rank: NCL/NLC (1), NCHW/NHWC (2), NCDHW/NDHWC (3). */
std::string layout_name(PoolLayout layout, int spatial_rank);
/** Parse "NCHW", "NHWC", "NCL", "NCW", "NLC", "NWC", "NCDHW", "NDHWC" for the given rank; throws
 * CompileError on anything else. */
PoolLayout parse_layout(const std::string& name, int spatial_rank);

// ---- PyTorch parameters ----------------------------------------------------------------------
// Every list argument may hold one value (broadcast to all spatial axes, like an int in PyTorch) or
// one value per spatial axis. An empty stride means "not given" (defaults to kernel_size).

/** The input tensor a plan is made for. `shape` is in `layout` order and may be unbatched. */
struct PoolInput {
  std::vector<int64_t> shape;
  DataType dtype = DataType::Float(32);
  PoolLayout layout = PoolLayout::ChannelsFirst;
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
PoolPlan plan_max_pool(int rank, const PoolInput& input, const MaxPoolParams& params);
/** Plan avg_pool{rank}d; throws PoolParamError where PyTorch 1.13 rejects. */
PoolPlan plan_avg_pool(int rank, const PoolInput& input, const AvgPoolParams& params);
/** Plan adaptive_avg_pool{rank}d. Output 1 on every axis takes PyTorch's mean() path. */
PoolPlan plan_adaptive_avg_pool(int rank, const PoolInput& input, const AdaptivePoolParams& params);
/** Plan adaptive_max_pool{rank}d. */
PoolPlan plan_adaptive_max_pool(int rank, const PoolInput& input, const AdaptivePoolParams& params);
/** Plan lp_pool{1,2}d (PyTorch's signed, full-area-scaled definition). */
PoolPlan plan_lp_pool(int rank, const PoolInput& input, const LpPoolParams& params);
/** Global max/avg pooling over all spatial axes (adaptive pooling to 1, avg via the mean path). */
PoolPlan plan_global_pool(PoolMode mode, int rank, const PoolInput& input);

/** Throws PoolParamError where PyTorch rejects the backward of a valid forward: adaptive pooling
 * with a zero-sized output axis ("Expected grad_output to have non-zero size..."). */
void check_backward(const PoolPlan& plan);

}  // namespace frontend
}  // namespace minitvm
