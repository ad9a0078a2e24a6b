/** \file
 * The resolved pooling plan that every pooling kernel (topi/pool.h) and executor (the frontend's
 * naive reference and compiled executors) consumes, and its pure geometry: per-axis windows,
 * adaptive bounds, shapes, output lengths and layout names.
 *
 * A PoolPlan is fully resolved: per spatial axis it holds the input and output length, kernel,
 * stride, begin/end padding and dilation (or the adaptive rule), plus the reduction mode, divisor
 * rule, index convention and layout. Nothing in it depends on defaults any more, so a kernel never
 * has to re-derive PyTorch's or ONNX's rules. Plans are made (and validated) by the frontend's
 * planners (frontend/pool_plan.h, frontend/onnx_pool_attrs.h).
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

namespace minitvm::topi {

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
  /** A compact workspace for a forward/backward pair, as oneDNN keeps for max pooling: the tap
   * inside the window, row-major over the kernel (i_d*kH*kW + i_h*kW + i_w), uint8, 255 for a
   * window without in-range taps. Fixed (not adaptive) axes with at most 255 taps; 1 byte per
   * output where the others take 8. */
  WindowTap,
};

/** kWindowTapNone: the WindowTap index of a window without in-range taps. */
inline constexpr int64_t kWindowTapNone = 255;

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
  /** input_shape() / output_shape() with N, 1 when !batched: the shapes of the compiled kernels'
   * tensors, which are always batched (the memory layout is the same). */
  std::vector<int64_t> batched_input_shape() const;
  std::vector<int64_t> batched_output_shape() const;
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
 * stride must be non-zero. nullopt when the arithmetic overflows int64 (the frontend's
 * pool_output_size reports that as a parameter error). */
std::optional<int64_t> checked_pool_output_size(int64_t in, int64_t kernel, int64_t stride,
                                                int64_t pad_begin, int64_t pad_end,
                                                int64_t dilation, bool ceil_mode);

/** The dtype of a max plan's indices: uint8 for IndexBase::WindowTap, int64 for the others. */
DataType pool_index_dtype(const PoolPlan& plan);
/** Throws CompileError naming the plan when it uses IndexBase::WindowTap but cannot: not a max
 * mode, an adaptive axis, or more than 255 taps in a window. */
void check_window_tap(const PoolPlan& plan);

/** Adaptive window bounds [start, end) of output o (PyTorch AdaptivePooling.h, integer form). */
int64_t adaptive_start(int64_t o, int64_t in, int64_t out);
int64_t adaptive_end(int64_t o, int64_t in, int64_t out);

/** Name of a layout for a spatial rank: NCL/NLC (1), NCHW/NHWC (2), NCDHW/NDHWC (3). */
std::string layout_name(PoolLayout layout, int spatial_rank);

}  // namespace minitvm::topi
