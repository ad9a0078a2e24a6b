// The naive reference executor: plain loop nests over a PoolPlan, following PyTorch 1.13 CPU:
//  - max: start at -inf with the index of the first in-range tap, scan taps in row-major window
//    order, take a tap when `val > max || isnan(val)` (NaN wins, the last NaN's index; ties keep
//    the first maximum); padding taps are skipped; a window without any in-range tap gives -inf
//    and index -1 (PyTorch writes garbage there).
//  - avg: sum in the input dtype in window order, one division by the divisor (int64: truncating
//    integer division), added to 0 as the CPU kernel does; adaptive avg divides once per axis.
//  - backward: max scatters grad_output to the argmax (accumulating), avg adds grad/divisor to
//    every in-range cell of the window.
// The computation runs in channels-first order; channels-last data is transposed around it.
#include <cmath>
#include <limits>
#include <type_traits>

#include "frontend/host_dtype.h"
#include "minitvm/frontend/pool_executor.h"

namespace minitvm {
namespace frontend {

using topi::AxisWindow;
using topi::DivisorRule;
using topi::IndexBase;
using topi::LpRule;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;

namespace {

// The plan's spatial axes padded in front to three (dummy axes have one tap at position 0).
// The innermost axis's windows are tabulated (one entry per output position, at most
// kPoolMaxAxisOutput) and only when there is output to compute; the outer axes' windows are
// computed per output row (PoolPlan::window is O(1)).
struct Geometry {
  const PoolPlan* plan = nullptr;
  int rank = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  std::vector<AxisWindow> inner;  ///< windows of axis 2
  int64_t in_plane = 1, out_plane = 1;

  AxisWindow window(int a, int64_t o) const {
    int off = 3 - rank;
    if (a >= off) return plan->window(a - off, o);
    AxisWindow w;
    w.tap_end = 1;
    w.pool_count = 1;
    return w;
  }
};

Geometry make_geometry(const PoolPlan& plan) {
  Geometry g;
  g.plan = &plan;
  g.rank = plan.spatial_rank();
  MINITVM_ICHECK(g.rank >= 1 && g.rank <= 3) << "pool plan with spatial rank " << g.rank;
  int off = 3 - g.rank;
  for (int a = off; a < 3; ++a) {
    g.in[a] = plan.axes[a - off].in;
    g.out[a] = plan.axes[a - off].out;
  }
  g.in_plane = g.in[0] * g.in[1] * g.in[2];
  g.out_plane = g.out[0] * g.out[1] * g.out[2];
  if (g.out_plane > 0 && plan.batch * plan.channels > 0) {
    g.inner.reserve(static_cast<size_t>(g.out[2]));
    for (int64_t o = 0; o < g.out[2]; ++o) g.inner.push_back(g.window(2, o));
  }
  return g;
}

// Calls f(flat_in_plane, p0, p1, p2) for every in-range tap of the window, in row-major order.
template <typename F>
void for_each_tap(const Geometry& g, const AxisWindow& w0, const AxisWindow& w1,
                  const AxisWindow& w2, F&& f) {
  for (int64_t i0 = w0.tap_begin; i0 < w0.tap_end; ++i0) {
    int64_t p0 = w0.start + i0 * w0.step;
    for (int64_t i1 = w1.tap_begin; i1 < w1.tap_end; ++i1) {
      int64_t p1 = w1.start + i1 * w1.step;
      for (int64_t i2 = w2.tap_begin; i2 < w2.tap_end; ++i2) {
        int64_t p2 = w2.start + i2 * w2.step;
        f((p0 * g.in[1] + p1) * g.in[2] + p2);
      }
    }
  }
}

// Calls f(o_flat, w0, w1, w2) for every output position of a plane.
template <typename F>
void for_each_output(const Geometry& g, F&& f) {
  int64_t o = 0;
  for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
    const AxisWindow w0 = g.window(0, o0);
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
      const AxisWindow w1 = g.window(1, o1);
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2) f(o++, w0, w1, g.inner[o2]);
    }
  }
}

// Encodes a within-plane row-major offset in the plan's index convention.
int64_t encode_index(const PoolPlan& plan, const Geometry& g, int64_t plane_id, int64_t flat) {
  // WindowTap: per-plane here, turned into taps once the window is known (window_tap_of)
  if (flat < 0 || plan.index_base == IndexBase::PerPlane ||
      plan.index_base == IndexBase::WindowTap)
    return flat;
  int64_t base = plane_id * g.in_plane;
  if (plan.index_base == IndexBase::GlobalRowMajor) return base + flat;
  // Column-major spatial part (ONNX storage_order=1): h + w*H, and + d*H*W in 3-d.
  int64_t p2 = flat % g.in[2], p1 = (flat / g.in[2]) % g.in[1], p0 = flat / (g.in[1] * g.in[2]);
  if (g.rank == 1) return base + p2;
  return base + p1 + p2 * g.in[1] + p0 * g.in[1] * g.in[2];
}

// The kernel length of padded axis a (1 for the dummy axes in front).
int64_t axis_kernel(const Geometry& g, int a) {
  int off = 3 - g.rank;
  return a >= off ? g.plan->axes[a - off].kernel : 1;
}

// IndexBase::WindowTap: the tap number (row-major over the kernel) of in-plane offset `flat` in
// the window (w0, w1, w2), or kWindowTapNone for -1 (no in-range tap).
int64_t window_tap_of(const Geometry& g, const AxisWindow& w0, const AxisWindow& w1,
                      const AxisWindow& w2, int64_t flat) {
  if (flat < 0) return topi::kWindowTapNone;
  const int64_t p[3] = {flat / (g.in[1] * g.in[2]), (flat / g.in[2]) % g.in[1], flat % g.in[2]};
  const AxisWindow* w[3] = {&w0, &w1, &w2};
  int64_t tap = 0;
  for (int a = 0; a < 3; ++a) tap = tap * axis_kernel(g, a) + (p[a] - w[a]->start) / w[a]->step;
  return tap;
}

// The in-plane offset a WindowTap index names in the window (w0, w1, w2), or -1 when it names no
// in-range tap (kWindowTapNone, a padded tap, or a value past the kernel).
int64_t window_tap_position(const Geometry& g, const AxisWindow& w0, const AxisWindow& w1,
                            const AxisWindow& w2, int64_t tap) {
  if (tap < 0) return -1;
  const AxisWindow* w[3] = {&w0, &w1, &w2};
  int64_t pos[3];
  for (int a = 2; a >= 0; --a) {
    const int64_t k = axis_kernel(g, a), i = tap % k;
    tap /= k;
    if (i < w[a]->tap_begin || i >= w[a]->tap_end) return -1;
    pos[a] = w[a]->start + i * w[a]->step;
  }
  if (tap != 0) return -1;
  return (pos[0] * g.in[1] + pos[1]) * g.in[2] + pos[2];
}

template <typename T>
constexpr T lowest_value() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return -std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::lowest();
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// Max over one window of one plane: value and within-plane flat index (-1 for an empty window).
template <typename T>
std::pair<T, int64_t> window_max(const Geometry& g, const T* x, const AxisWindow& w0,
                                 const AxisWindow& w1, const AxisWindow& w2) {
  T best = lowest_value<T>();
  int64_t best_idx = -1;
  for_each_tap(g, w0, w1, w2, [&](int64_t f) {
    T v = x[f];
    if (best_idx < 0) best_idx = f;  // the first in-range tap is the initial index
    if (v > best || is_nan(v)) {
      best = v;
      best_idx = f;
    }
  });
  return {best, best_idx};
}

// Divisor of an average window for the Override / CountIncludePad / CountExcludePad / Mean rules.
int64_t window_divisor(const PoolPlan& plan, const AxisWindow& w0, const AxisWindow& w1,
                       const AxisWindow& w2) {
  switch (plan.divisor_rule) {
    case DivisorRule::Override:
      return plan.divisor_override;
    case DivisorRule::CountIncludePad:
      return w0.pool_count * w1.pool_count * w2.pool_count;
    default:
      return w0.real_count() * w1.real_count() * w2.real_count();
  }
}

template <typename T>
T divide_window(const PoolPlan& plan, const Geometry& g, T v, const AxisWindow* w[3]) {
  if (plan.divisor_rule == DivisorRule::AdaptiveEachAxis) {
    for (int a = 3 - g.rank; a < 3; ++a) v = v / static_cast<T>(w[a]->pool_count);
    return v;
  }
  return v / static_cast<T>(window_divisor(plan, *w[0], *w[1], *w[2]));
}

template <typename T>
void forward_typed(const PoolPlan& plan, const Geometry& g, const T* x, T* y, int64_t* idx) {
  int64_t planes = plan.batch * plan.channels;
  for (int64_t p = 0; p < planes; ++p) {
    const T* xp = x + p * g.in_plane;
    T* yp = y + p * g.out_plane;
    for_each_output(g, [&](int64_t o, const AxisWindow& w0, const AxisWindow& w1,
                           const AxisWindow& w2) {
      const AxisWindow* w[3] = {&w0, &w1, &w2};
      bool empty = w0.real_count() * w1.real_count() * w2.real_count() == 0;
      if (plan.mode == PoolMode::Max) {
        auto [v, f] = window_max(g, xp, w0, w1, w2);
        yp[o] = v;
        if (idx) idx[p * g.out_plane + o] = encode_index(plan, g, p, f);
        return;
      }
      if constexpr (std::is_integral_v<T>) {
        MINITVM_USER_CHECK(plan.mode == PoolMode::Avg &&
                           plan.divisor_rule != DivisorRule::AdaptiveEachAxis &&
                           plan.divisor_rule != DivisorRule::Mean)
            << plan.op << ": integer " << plan.dtype.str()
            << " input is only supported for avg pooling";
        int64_t sum = 0;
        for_each_tap(g, w0, w1, w2, [&](int64_t f) { sum += static_cast<int64_t>(xp[f]); });
        yp[o] = empty ? T(0) : static_cast<T>(sum / window_divisor(plan, w0, w1, w2));
      } else if (plan.mode == PoolMode::Avg) {
        if (empty) {  // the CPU kernel leaves such windows at 0
          yp[o] = T(0);
        } else if (plan.divisor_rule == DivisorRule::Mean) {
          double sum = 0;
          for_each_tap(g, w0, w1, w2, [&](int64_t f) { sum += static_cast<double>(xp[f]); });
          yp[o] = static_cast<T>(sum / static_cast<double>(window_divisor(plan, w0, w1, w2)));
        } else {
          T sum = 0;
          for_each_tap(g, w0, w1, w2, [&](int64_t f) { sum += xp[f]; });
          yp[o] = T(0) + divide_window(plan, g, sum, w);
        }
      } else {  // Lp
        T p_norm = static_cast<T>(plan.lp_norm);
        T sum = 0;
        if (plan.lp_rule == LpRule::Onnx) {
          for_each_tap(g, w0, w1, w2, [&](int64_t f) { sum += std::pow(std::abs(xp[f]), p_norm); });
          yp[o] = std::pow(sum, T(1) / p_norm);
        } else {
          for_each_tap(g, w0, w1, w2, [&](int64_t f) { sum += std::pow(xp[f], p_norm); });
          T a = sum / static_cast<T>(window_divisor(plan, w0, w1, w2));
          T area = 1;
          for (const auto& ax : plan.axes) area *= static_cast<T>(ax.kernel);
          // sign(a) * relu(|a|) is a except that -0 becomes 0
          T s = std::isnan(a) ? a : (a > 0 ? a : (a < 0 ? a : T(0)));
          yp[o] = std::pow(s * area, static_cast<T>(1.0 / plan.lp_norm));
        }
      }
    });
  }
}

template <typename T>
void backward_typed(const PoolPlan& plan, const Geometry& g, const T* x, const T* gy,
                    const HostArray* indices, T* gx) {
  int64_t planes = plan.batch * plan.channels;
  const bool taps = plan.index_base == IndexBase::WindowTap;
  bool use_indices =
      indices && indices->defined() && (plan.index_base == IndexBase::PerPlane || taps);
  for (int64_t p = 0; p < planes; ++p) {
    const T* xp = x + p * g.in_plane;
    const T* gyp = gy + p * g.out_plane;
    T* gxp = gx + p * g.in_plane;
    for_each_output(g, [&](int64_t o, const AxisWindow& w0, const AxisWindow& w1,
                           const AxisWindow& w2) {
      const AxisWindow* w[3] = {&w0, &w1, &w2};
      T go = gyp[o];
      if (plan.mode == PoolMode::Max) {
        int64_t f = !use_indices ? window_max(g, xp, w0, w1, w2).second
                    : taps ? window_tap_position(g, w0, w1, w2,
                                                 indices->get_int(p * g.out_plane + o))
                           : indices->get_int(p * g.out_plane + o);
        if (f >= 0 && f < g.in_plane) gxp[f] += go;
        return;
      }
      if (w0.real_count() * w1.real_count() * w2.real_count() == 0) return;
      if (plan.mode == PoolMode::Avg) {
        T d = plan.divisor_rule == DivisorRule::Mean
                  ? go / static_cast<T>(window_divisor(plan, w0, w1, w2))
                  : divide_window(plan, g, go, w);
        for_each_tap(g, w0, w1, w2, [&](int64_t f) { gxp[f] += d; });
        return;
      }
      // Lp: y = S'^(1/p) with S' = S*area/div (torch) or S = sum |x|^p (onnx).
      T pn = static_cast<T>(plan.lp_norm);
      T sum = 0;
      bool onnx = plan.lp_rule == LpRule::Onnx;
      for_each_tap(g, w0, w1, w2, [&](int64_t f) {
        sum += onnx ? std::pow(std::abs(xp[f]), pn) : std::pow(xp[f], pn);
      });
      T scale = 1;
      if (!onnx) {
        T area = 1;
        for (const auto& ax : plan.axes) area *= static_cast<T>(ax.kernel);
        scale = area / static_cast<T>(window_divisor(plan, w0, w1, w2));
      }
      T s = sum * scale;
      T outer = go * std::pow(s, T(1) / pn - T(1)) * scale;  // d(s^(1/p))/ds * ds/dsum, times 1/p*p
      for_each_tap(g, w0, w1, w2, [&](int64_t f) {
        T xv = xp[f];
        T dx = onnx ? std::pow(std::abs(xv), pn - T(1)) * (xv < 0 ? T(-1) : T(1))
                    : std::pow(xv, pn - T(1));
        gxp[f] += outer * dx;
      });
    });
  }
}

template <typename F>
void dispatch(DataType dt, const std::string& op, F&& f) {
  detail::visit_host_dtype(dt, "reference pool executor: " + op, std::forward<F>(f));
}

HostArray channels_first_input(const PoolPlan& plan, const HostArray& a) {
  if (plan.layout == PoolLayout::ChannelsFirst) return a;
  return to_channels_first(a, plan.spatial_rank(), plan.batched);
}

void check_array(const PoolPlan& plan, const HostArray& a, const std::vector<int64_t>& shape,
                 const char* what) {
  MINITVM_USER_CHECK(a.dtype() == plan.dtype)
      << plan.op << ": " << what << " has dtype " << a.dtype().str() << ", the plan expects "
      << plan.dtype.str();
  MINITVM_USER_CHECK(a.shape() == shape)
      << plan.op << ": " << what << " shape does not match the plan (" << plan.str() << ")";
}

}  // namespace

PoolForwardResult ReferencePoolExecutor::forward(const PoolPlan& plan, const HostArray& input) {
  check_plan_limits(plan,
                    plan.op);  // plans may be built by hand: the planners' bounds hold here too
  check_array(plan, input, plan.input_shape(), "input");
  Geometry g = make_geometry(plan);
  HostArray x = channels_first_input(plan, input);
  std::vector<int64_t> out_cf = plan.output_shape();
  if (plan.layout == PoolLayout::ChannelsLast) {  // channels-first shape of the output
    PoolPlan cf = plan;
    cf.layout = PoolLayout::ChannelsFirst;
    out_cf = cf.output_shape();
  }
  PoolForwardResult r;
  r.output = HostArray(plan.dtype, out_cf);
  bool want_idx = plan.mode == PoolMode::Max && plan.return_indices;
  if (want_idx) {
    topi::check_window_tap(plan);
    r.indices = HostArray(DataType::Int(64), out_cf);
  }
  dispatch(plan.dtype, plan.op, [&](auto t) {
    using T = decltype(t);
    forward_typed<T>(plan, g, x.data<T>(), r.output.data<T>(),
                     want_idx ? r.indices.data<int64_t>() : nullptr);
  });
  if (want_idx && plan.index_base == IndexBase::WindowTap) {  // per-plane offsets -> taps
    HostArray taps(topi::pool_index_dtype(plan), out_cf);
    const int64_t* flat = r.indices.data<int64_t>();
    for (int64_t p = 0; p < plan.batch * plan.channels; ++p)
      for_each_output(g, [&](int64_t o, const AxisWindow& w0, const AxisWindow& w1,
                             const AxisWindow& w2) {
        const int64_t i = p * g.out_plane + o;
        taps.set_int(i, window_tap_of(g, w0, w1, w2, flat[i]));
      });
    r.indices = std::move(taps);
  }
  if (plan.layout == PoolLayout::ChannelsLast) {
    r.output = to_channels_last(r.output, plan.spatial_rank(), plan.batched);
    if (want_idx) r.indices = to_channels_last(r.indices, plan.spatial_rank(), plan.batched);
  }
  return r;
}

HostArray ReferencePoolExecutor::backward(const PoolPlan& plan, const HostArray& input,
                                          const HostArray& grad_output, const HostArray* indices) {
  check_backward(plan);
  check_plan_limits(plan, plan.op);
  topi::check_window_tap(plan);
  check_array(plan, input, plan.input_shape(), "input");
  check_array(plan, grad_output, plan.output_shape(), "grad_output");
  MINITVM_USER_CHECK(plan.dtype.is_floating())
      << plan.op << ": no gradient for " << plan.dtype.str() << " input";
  Geometry g = make_geometry(plan);
  HostArray x = channels_first_input(plan, input);
  HostArray gy = channels_first_input(plan, grad_output);
  HostArray idx;
  if (indices && indices->defined()) idx = channels_first_input(plan, *indices);
  HostArray gx(plan.dtype, x.shape());
  dispatch(plan.dtype, plan.op, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T>)
      backward_typed<T>(plan, g, x.data<T>(), gy.data<T>(), idx.defined() ? &idx : nullptr,
                        gx.data<T>());
  });
  if (plan.layout == PoolLayout::ChannelsLast)
    gx = to_channels_last(gx, plan.spatial_rank(), plan.batched);
  return gx;
}

}  // namespace frontend
}  // namespace minitvm
