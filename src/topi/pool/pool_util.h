// Helpers shared by the pool computes and schedules: layout positions of N, C and the spatial axes,
// and the per-axis window expressions (start, in-range taps, divisor counts) as index arithmetic.
#pragma once

#include <cstdint>
#include <vector>

#include "minitvm/te/tensor.h"
#include "minitvm/topi/pool_plan.h"

namespace minitvm::topi::detail {

using namespace minitvm::ir;

/** Position of the channel axis and of spatial axis a in a batched tensor of the plan's layout. */
inline int channel_pos(const PoolPlan& p) {
  return p.layout == PoolLayout::ChannelsFirst ? 1 : 1 + p.spatial_rank();
}
inline int spatial_pos(const PoolPlan& p, int a) {
  return p.layout == PoolLayout::ChannelsFirst ? 2 + a : 1 + a;
}

/** Build an index list in layout order from n, c and spatial indices. */
inline std::vector<Expr> layout_index(const PoolPlan& p, Expr n, Expr c,
                                      const std::vector<Expr>& sp) {
  std::vector<Expr> r{n};
  if (p.layout == PoolLayout::ChannelsFirst) r.push_back(c);
  for (auto& e : sp) r.push_back(e);
  if (p.layout == PoolLayout::ChannelsLast) r.push_back(c);
  return r;
}

inline Expr ci(int64_t v) {
  return Expr(static_cast<int>(v));
}

inline std::vector<Expr> to_exprs(const std::vector<int64_t>& v) {
  std::vector<Expr> r;
  for (auto x : v) r.push_back(ci(x));
  return r;
}

/** Largest window (taps) of an axis over all outputs: kernel, or the biggest adaptive window. */
inline int64_t max_window(const PoolAxis& ax) {
  if (!ax.adaptive) return ax.kernel;
  int64_t m = 0;
  for (int64_t o = 0; o < ax.out; ++o)
    m = std::max(m, adaptive_end(o, ax.in, ax.out) - adaptive_start(o, ax.in, ax.out));
  return m;
}

/** Window start (position of tap 0) of output o. */
inline Expr window_start(const PoolAxis& ax, Expr o) {
  if (ax.adaptive) return truncdiv(o * ci(ax.in), ci(ax.out));
  return o * ci(ax.stride) - ci(ax.pad_begin);
}
/** Adaptive window end (exclusive). */
inline Expr adaptive_end_expr(const PoolAxis& ax, Expr o) {
  return truncdiv((o + 1) * ci(ax.in) + ci(ax.out - 1), ci(ax.out));
}
inline bool adaptive_uniform(const PoolAxis& ax) {
  return ax.adaptive && ax.out > 0 && ax.in % ax.out == 0;
}

/** Whether some window of a fixed axis has a tap below 0 / at or above `in`. */
inline bool needs_low_check(const PoolAxis& ax) {
  return !ax.adaptive && ax.pad_begin > 0;
}
inline bool needs_high_check(const PoolAxis& ax) {
  return !ax.adaptive && ax.out > 0 &&
         (ax.out - 1) * ax.stride - ax.pad_begin + (ax.kernel - 1) * ax.dilation >= ax.in;
}

/** Number of taps before in + pad_end (count_include_pad), as an expression of o. */
inline Expr pool_count_expr(const PoolAxis& ax, Expr o) {
  if (ax.adaptive) return adaptive_end_expr(ax, o) - window_start(ax, o);
  Expr start = window_start(ax, o);
  Expr lim = truncdiv(ci(ax.in + ax.pad_end + ax.dilation - 1) - start, ci(ax.dilation));
  return min(ci(ax.kernel), max(lim, ci(0)));
}
/** Number of in-range taps, as an expression of o. */
inline Expr real_count_expr(const PoolAxis& ax, Expr o) {
  if (ax.adaptive) return pool_count_expr(ax, o);
  Expr start = window_start(ax, o);
  Expr tb = max(truncdiv(ci(ax.dilation - 1) - start, ci(ax.dilation)), ci(0));
  Expr te_ = min(ci(ax.kernel),
                 max(truncdiv(ci(ax.in + ax.dilation - 1) - start, ci(ax.dilation)), ci(0)));
  return max(te_ - tb, ci(0));
}

}  // namespace minitvm::topi::detail
