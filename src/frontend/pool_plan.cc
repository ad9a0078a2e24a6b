// PoolPlan geometry shared by the PyTorch and ONNX planners and by every executor: output-size
// formula, adaptive bounds, per-output windows, shapes and layouts.
#include "minitvm/frontend/pool_plan.h"

#include <algorithm>
#include <sstream>

#include "minitvm/support/checked_math.h"

namespace minitvm {
namespace frontend {

namespace {

// Division rounding toward -inf (PyTorch's div_rtn); b != 0.
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}

// ceil(a / b) for b > 0.
int64_t ceil_div_pos(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

void append_list(std::ostringstream& os, const std::vector<int64_t>& v) {
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "]";
}

}  // namespace

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

std::optional<int64_t> checked_pool_output_size(int64_t in, int64_t kernel, int64_t stride,
                                                int64_t pad_begin, int64_t pad_end,
                                                int64_t dilation, bool ceil_mode) {
  MINITVM_ICHECK(stride != 0) << "pool_output_size called with stride 0";
  // num = in + pad_begin + pad_end - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0)
  std::optional<int64_t> km1 = checked_sub(kernel, 1);
  std::optional<int64_t> span = km1 ? checked_mul(dilation, *km1) : std::nullopt;
  std::optional<int64_t> padded = checked_sum({in, pad_begin, pad_end});
  std::optional<int64_t> sm1 = checked_sub(stride, 1);
  if (!span || !padded || !sm1) return std::nullopt;
  std::optional<int64_t> num = checked_sub(*padded, *span);
  if (num) num = checked_sub(*num, 1);
  if (num && ceil_mode) num = checked_add(*num, *sm1);
  if (!num || (*num == INT64_MIN && stride == -1)) return std::nullopt;
  std::optional<int64_t> out = checked_add(floor_div(*num, stride), 1);
  if (!out) return std::nullopt;
  // A ceil-mode window must start inside the input or the left padding.
  if (ceil_mode) {
    std::optional<int64_t> last = checked_mul(*out - 1, stride);
    std::optional<int64_t> limit = checked_add(in, pad_begin);
    if (!last || !limit) return std::nullopt;
    if (*last >= *limit) --*out;
  }
  return out;
}

int64_t pool_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad_begin,
                         int64_t pad_end, int64_t dilation, bool ceil_mode) {
  std::optional<int64_t> out =
      checked_pool_output_size(in, kernel, stride, pad_begin, pad_end, dilation, ceil_mode);
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

int64_t adaptive_start(int64_t o, int64_t in, int64_t out) {
  return (o * in) / out;
}
int64_t adaptive_end(int64_t o, int64_t in, int64_t out) {
  return ((o + 1) * in + out - 1) / out;
}

std::string layout_name(PoolLayout layout, int spatial_rank) {
  static const char* first[] = {"NC", "NCL", "NCHW", "NCDHW"};
  static const char* last[] = {"NC", "NLC", "NHWC", "NDHWC"};
  int r = std::clamp(spatial_rank, 0, 3);
  return layout == PoolLayout::ChannelsFirst ? first[r] : last[r];
}

PoolLayout parse_layout(const std::string& name, int spatial_rank) {
  if (name == layout_name(PoolLayout::ChannelsFirst, spatial_rank) ||
      (spatial_rank == 1 && name == "NCW"))
    return PoolLayout::ChannelsFirst;
  if (name == layout_name(PoolLayout::ChannelsLast, spatial_rank) ||
      (spatial_rank == 1 && name == "NWC"))
    return PoolLayout::ChannelsLast;
  throw PoolParamError(PoolErrorKind::Unsupported,
                       "pooling: layout '" + name + "' is not supported for " +
                           std::to_string(spatial_rank) + "-d pooling (use " +
                           layout_name(PoolLayout::ChannelsFirst, spatial_rank) + " or " +
                           layout_name(PoolLayout::ChannelsLast, spatial_rank) + ")");
}

std::vector<int64_t> PoolPlan::input_shape() const {
  std::vector<int64_t> s;
  if (batched) s.push_back(batch);
  if (layout == PoolLayout::ChannelsFirst) s.push_back(channels);
  for (const auto& a : axes) s.push_back(a.in);
  if (layout == PoolLayout::ChannelsLast) s.push_back(channels);
  return s;
}

std::vector<int64_t> PoolPlan::output_shape() const {
  std::vector<int64_t> s;
  if (batched) s.push_back(batch);
  if (layout == PoolLayout::ChannelsFirst) s.push_back(channels);
  for (const auto& a : axes) s.push_back(a.out);
  if (layout == PoolLayout::ChannelsLast) s.push_back(channels);
  return s;
}

int64_t PoolPlan::input_plane_size() const {
  int64_t n = 1;
  for (const auto& a : axes) n *= a.in;
  return n;
}

int64_t PoolPlan::output_plane_size() const {
  int64_t n = 1;
  for (const auto& a : axes) n *= a.out;
  return n;
}

AxisWindow PoolPlan::window(int a, int64_t o) const {
  const PoolAxis& ax = axes.at(a);
  AxisWindow w;
  if (ax.adaptive) {
    w.start = adaptive_start(o, ax.in, ax.out);
    int64_t end = adaptive_end(o, ax.in, ax.out);
    w.step = 1;
    w.tap_begin = 0;
    w.tap_end = end - w.start;
    w.pool_count = end - w.start;
    return w;
  }
  w.start = o * ax.stride - ax.pad_begin;
  w.step = ax.dilation;
  w.tap_begin = w.start >= 0 ? 0 : ceil_div_pos(-w.start, ax.dilation);
  w.tap_end = std::min(ax.kernel, std::max<int64_t>(0, ceil_div_pos(ax.in - w.start, ax.dilation)));
  // Taps counted with count_include_pad: those before in + pad_end (a ceil-mode window may run
  // past the end padding; that part never counts).
  w.pool_count = std::min(
      ax.kernel, std::max<int64_t>(0, ceil_div_pos(ax.in + ax.pad_end - w.start, ax.dilation)));
  return w;
}

int64_t PoolPlan::first_empty_window(int a) const {
  const PoolAxis& ax = axes.at(a);
  if (ax.adaptive || ax.out <= 0) return -1;
  auto empty = [&](int64_t o) { return window(a, o).real_count() == 0; };
  // Windows starting at or after 0 are empty exactly when they start at or beyond `in`; windows
  // starting in the begin padding (o < n_neg) are empty when the first non-negative tap is past
  // the kernel (worst at o = 0, as later windows start further right) or lands at or beyond `in`
  // (possible only when dilation > in; then each such window is tested).
  const int64_t n_neg = std::min(ax.out, ceil_div_pos(ax.pad_begin, ax.stride));
  if (n_neg > 0) {
    if (empty(0)) return 0;
    if (ax.in < ax.dilation)
      for (int64_t o = 1; o < n_neg; ++o)
        if (empty(o)) return o;
  }
  const int64_t o_hi = std::max(n_neg, ceil_div_pos(ax.in + ax.pad_begin, ax.stride));
  return o_hi < ax.out ? o_hi : -1;
}

std::string PoolPlan::str() const {
  std::ostringstream os;
  os << op << " " << dtype.str() << " " << layout_name(layout, spatial_rank()) << " in ";
  append_list(os, input_shape());
  os << " out ";
  append_list(os, output_shape());
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto& a = axes[i];
    os << (i ? "; " : " axes: ");
    if (a.adaptive) {
      os << "adaptive " << a.in << "->" << a.out;
    } else {
      os << "k=" << a.kernel << " s=" << a.stride << " p=" << a.pad_begin << "/" << a.pad_end
         << " d=" << a.dilation;
    }
  }
  switch (mode) {
    case PoolMode::Max:
      if (return_indices) os << " indices";
      break;
    case PoolMode::Avg:
      switch (divisor_rule) {
        case DivisorRule::CountIncludePad:
          os << " count_include_pad";
          break;
        case DivisorRule::CountExcludePad:
          os << " count_exclude_pad";
          break;
        case DivisorRule::Override:
          os << " divisor=" << divisor_override;
          break;
        case DivisorRule::AdaptiveEachAxis:
          os << " divide_per_axis";
          break;
        case DivisorRule::Mean:
          os << " mean";
          break;
      }
      break;
    case PoolMode::Lp:
      os << " p=" << lp_norm << (lp_rule == LpRule::Torch ? " torch" : " onnx");
      break;
  }
  if (has_empty_window) os << " has_empty_window";
  return os.str();
}

}  // namespace frontend
}  // namespace minitvm
