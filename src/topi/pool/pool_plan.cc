// PoolPlan geometry shared by the frontend's planners and by every executor and kernel: the
// output-size formula, adaptive bounds, per-output windows, shapes and layout names.
#include "minitvm/topi/pool_plan.h"

#include <algorithm>
#include <sstream>

#include "minitvm/support/checked_math.h"
#include "minitvm/support/error.h"

namespace minitvm::topi {

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

std::vector<int64_t> PoolPlan::batched_input_shape() const {
  std::vector<int64_t> s = input_shape();
  if (!batched) s.insert(s.begin(), 1);
  return s;
}

std::vector<int64_t> PoolPlan::batched_output_shape() const {
  std::vector<int64_t> s = output_shape();
  if (!batched) s.insert(s.begin(), 1);
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

DataType pool_index_dtype(const PoolPlan& plan) {
  return plan.index_base == IndexBase::WindowTap ? DataType::UInt(8) : DataType::Int(64);
}

void check_window_tap(const PoolPlan& plan) {
  if (plan.index_base != IndexBase::WindowTap) return;
  MINITVM_USER_CHECK(plan.mode == PoolMode::Max)
      << plan.op << ": window-tap indices are for max pooling only (" << plan.str() << ")";
  int64_t taps = 1;
  for (const PoolAxis& ax : plan.axes) {
    MINITVM_USER_CHECK(!ax.adaptive)
        << plan.op << ": window-tap indices need fixed windows, not adaptive ones (" << plan.str()
        << ")";
    taps *= ax.kernel;
    // taps 0..254, and 255 for "none"
    MINITVM_USER_CHECK(taps <= kWindowTapNone)
        << plan.op << ": window-tap indices are one byte; a window of more than "
        << kWindowTapNone << " taps needs flat indices (" << plan.str() << ")";
  }
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
      if (index_base == IndexBase::WindowTap) os << " window_tap";
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

}  // namespace minitvm::topi
