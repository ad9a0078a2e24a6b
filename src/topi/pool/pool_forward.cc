// Forward pool computes from a PoolPlan: one reduction over the window axes per output element.
//  - max: a two-value reducer (value, index) taking the new tap when `v > best || isnan(v) ||
//    index < 0`: NaN wins (the last NaN), ties keep the first maximum, and the first in-range tap
//    is the initial index (even when every value is -inf). Out-of-range taps are excluded by the
//    reduction condition, so a window without in-range taps gives (lowest, -1).
//  - avg/lp: sums over `pad_temp` (if_then_else of a clamped read, 0 outside), then the plan's
//    divisor rule; int64 sums in int64 and divides truncating; the mean path accumulates in
//    float64 and divides once.
#include <cmath>

#include "minitvm/topi/pool.h"
#include "pool_util.h"

namespace minitvm::topi {

using namespace detail;

namespace {

// Window description for one output element: tap positions and in-range conditions per axis.
struct WindowExprs {
  std::vector<Expr> pos;  // tap position per axis (in input coordinates)
  Expr cond;              // all taps in range (undefined: always)
};

WindowExprs window_exprs(const PoolPlan& plan, const std::vector<Expr>& o,
                         const std::vector<te::IterVar>& r) {
  WindowExprs w;
  for (int a = 0; a < plan.spatial_rank(); ++a) {
    const PoolAxis& ax = plan.axes[a];
    Expr start = window_start(ax, o[a]);
    Expr rv = r[a]->var;
    Expr p = ax.adaptive ? start + rv : start + rv * ci(ax.dilation);
    w.pos.push_back(p);
    std::vector<Expr> conds;
    if (ax.adaptive && !adaptive_uniform(ax))
      conds.push_back(rv < adaptive_end_expr(ax, o[a]) - start);
    if (needs_low_check(ax)) conds.push_back(p >= 0);
    if (needs_high_check(ax)) conds.push_back(p < ci(ax.in));
    for (auto& c : conds) w.cond = w.cond.defined() ? (w.cond && c) : c;
  }
  return w;
}

// Flat index of the tap in the plan's index convention (int64).
Expr encode_index(const PoolPlan& plan, Expr n, Expr c, const std::vector<Expr>& pos) {
  DataType i64 = DataType::Int(64);
  int rank = plan.spatial_rank();
  Expr flat = make_const(i64, int64_t{0});
  if (plan.index_base == IndexBase::GlobalColMajor && rank >= 2) {
    // h + w*H (+ d*H*W): axes (D,)H,W -> weights H,W order swapped
    int64_t H = plan.axes[rank - 2].in;
    flat = cast(i64, pos[rank - 2]) + cast(i64, pos[rank - 1]) * make_const(i64, H);
    if (rank == 3) flat = flat + cast(i64, pos[0]) * make_const(i64, H * plan.axes[2].in);
  } else {
    for (int a = 0; a < rank; ++a)
      flat = flat * make_const(i64, plan.axes[a].in) + cast(i64, pos[a]);
  }
  if (plan.index_base != IndexBase::PerPlane) {
    Expr plane = cast(i64, n) * make_const(i64, plan.channels) + cast(i64, c);
    int64_t plane_size = 1;
    for (auto& ax : plan.axes) plane_size *= ax.in;
    flat = plane * make_const(i64, plane_size) + flat;
  }
  return flat;
}

// Padded read of the input for sums: 0 outside [0, in) (the index is clamped so that the read
// itself is always in bounds, whatever the lowering does with the condition).
Expr padded_read(const PoolPlan& plan, const te::Tensor& x, Expr n, Expr c,
                 const std::vector<Expr>& pos, DataType acc) {
  std::vector<Expr> idx;
  Expr cond;
  for (int a = 0; a < plan.spatial_rank(); ++a) {
    const PoolAxis& ax = plan.axes[a];
    Expr p = pos[a];
    std::vector<Expr> conds;
    if (needs_low_check(ax)) conds.push_back(p >= 0);
    if (needs_high_check(ax)) conds.push_back(p < ci(ax.in));
    if (!conds.empty()) p = min(max(p, ci(0)), ci(ax.in - 1));
    for (auto& e : conds) cond = cond.defined() ? (cond && e) : e;
    idx.push_back(p);
  }
  Expr v = x.read(layout_index(plan, n, c, idx));
  if (v.dtype() != acc) v = cast(acc, v);
  if (!cond.defined()) return v;
  return if_then_else(cond, v, make_zero(acc));
}

Expr divisor_expr(const PoolPlan& plan, const std::vector<Expr>& o) {
  if (plan.divisor_rule == DivisorRule::Override) return ci(plan.divisor_override);
  Expr d;
  for (int a = 0; a < plan.spatial_rank(); ++a) {
    Expr k = plan.divisor_rule == DivisorRule::CountIncludePad
                 ? pool_count_expr(plan.axes[a], o[a])
                 : real_count_expr(plan.axes[a], o[a]);
    d = d.defined() ? d * k : k;
  }
  return d;
}

// Decompose output axis vars into (n, c, spatial outputs).
void split_vars(const PoolPlan& plan, const std::vector<Var>& v, Expr& n, Expr& c,
                std::vector<Expr>& o) {
  n = v[0];
  c = v[channel_pos(plan)];
  for (int a = 0; a < plan.spatial_rank(); ++a) o.push_back(v[spatial_pos(plan, a)]);
}

std::vector<te::IterVar> window_axes(const PoolPlan& plan) {
  static const char* names[3] = {"rv0", "rv1", "rv2"};
  std::vector<te::IterVar> r;
  for (int a = 0; a < plan.spatial_rank(); ++a)
    r.push_back(te::reduce_axis({0, ci(max_window(plan.axes[a]))}, names[a]));
  return r;
}

Expr pow_const(Expr x, double p) {
  return pow(x, make_const(x.dtype(), p));
}

}  // namespace

bool pool_windows_disjoint(const PoolPlan& plan) {
  for (auto& ax : plan.axes)
    if (ax.adaptive || ax.stride < ax.effective_kernel()) return false;
  return true;
}

PoolForward pool_forward(const PoolPlan& plan, const te::Tensor& input, bool with_indices,
                         bool argmax_in_lanes) {
  MINITVM_USER_CHECK(plan.spatial_rank() >= 1 && plan.spatial_rank() <= 3)
      << "pool: spatial rank " << plan.spatial_rank() << " is not supported";
  if (with_indices) check_window_tap(plan);
  PoolForward r;
  r.input = input;
  DataType T = plan.dtype;
  std::vector<Expr> oshape = to_exprs(plan.batched_output_shape());
  for (auto& ax : plan.axes)
    if (ax.out == 0 || max_window(ax) == 0) {  // empty output: nothing to reduce
      r.output = te::compute(
          oshape, [&](const std::vector<Var>&) { return make_zero(T); }, "tensor", "pool");
      if (with_indices)
        r.indices = te::compute(
            oshape,
            [&](const std::vector<Var>&) {
              return plan.index_base == IndexBase::WindowTap
                         ? make_const(DataType::UInt(8), kWindowTapNone)
                         : make_const(DataType::Int(64), int64_t{-1});
            },
            "indices", "pool");
      return r;
    }

  if (plan.mode == PoolMode::Max) {
    auto r_axes = window_axes(plan);
    bool floating = T.is_floating();
    if (!with_indices) {
      auto comb = te::comm_reducer(
          [&](const std::vector<Var>& x, const std::vector<Var>& y) {
            // max(new, best) keeps `best` on ties and when `best` is NaN (x86 maxps order);
            // only a NaN `new` needs the select. Same result as `new > best || isnan(new)`.
            Expr m = max(Expr(y[0]), Expr(x[0]));
            if (floating) m = select(isnan(y[0]), y[0], m);
            return std::vector<Expr>{m};
          },
          {min_value(T)}, "max_nan");
      r.output = te::compute(
          oshape,
          [&](const std::vector<Var>& v) {
            Expr n, c;
            std::vector<Expr> o;
            split_vars(plan, v, n, c, o);
            WindowExprs w = window_exprs(plan, o, r_axes);
            return te::reduce(comb, input.read(layout_index(plan, n, c, w.pos)), r_axes, w.cond);
          },
          "tensor", "pool_max");
      return r;
    }
    // The index slot starts at "none" (-1, or 255 for window taps): the first in-range tap is
    // taken whatever its value. With `argmax_in_lanes` the reduction is a stage of its own
    // ("pool_argmax_taps", window taps carried in int32) and a second stage writes the outputs.
    const bool window_tap = plan.index_base == IndexBase::WindowTap;
    DataType it = pool_index_dtype(plan);
    if (argmax_in_lanes && window_tap) it = DataType::Int(32);
    Expr none = window_tap ? make_const(it, kWindowTapNone) : make_const(it, int64_t{-1});
    auto comb = te::comm_reducer(
        [&](const std::vector<Var>& x, const std::vector<Var>& y) {
          Expr take = Expr(y[0]) > x[0] ||
                      (window_tap ? Expr(x[1]) == none : Expr(x[1]) < make_zero(it));
          if (floating) take = take || isnan(y[0]);
          return std::vector<Expr>{select(take, y[0], x[0]), select(take, y[1], x[1])};
        },
        {min_value(T), none}, "argmax_nan");
    auto outs = te::compute_multi(
        oshape,
        [&](const std::vector<Var>& v) {
          Expr n, c;
          std::vector<Expr> o;
          split_vars(plan, v, n, c, o);
          WindowExprs w = window_exprs(plan, o, r_axes);
          Expr index;
          if (window_tap) {  // the tap's number in the window, row-major over the kernel
            Expr t = make_const(DataType::Int(32), 0);
            for (int a = 0; a < plan.spatial_rank(); ++a)
              t = t * ci(plan.axes[a].kernel) + Expr(r_axes[a]->var);
            index = t.dtype() == it ? t : cast(it, t);
          } else {
            index = encode_index(plan, n, c, w.pos);
          }
          return te::reduce_multi(comb, {input.read(layout_index(plan, n, c, w.pos)), index},
                                  r_axes, w.cond);
        },
        argmax_in_lanes ? "pool_argmax_taps" : "tensor",
        argmax_in_lanes ? "pool_argmax_taps" : "pool_argmax");
    if (argmax_in_lanes) {
      const DataType out_it = pool_index_dtype(plan);
      outs = te::compute_multi(
          oshape,
          [&](const std::vector<Var>& v) {
            std::vector<Expr> at(v.begin(), v.end());
            Expr t = outs[1].read(at);
            return std::vector<Expr>{outs[0].read(at), t.dtype() == out_it ? t : cast(out_it, t)};
          },
          "tensor", "pool_argmax");
    }
    r.output = outs[0];
    r.indices = outs[1];
    return r;
  }

  // Sums: avg / lp.
  MINITVM_USER_CHECK(T.is_floating() || (plan.mode == PoolMode::Avg && T == DataType::Int(64)))
      << plan.op << ": " << T.str() << " input is only supported for max pooling (and int64 avg)";
  std::vector<int64_t> pshape = plan.batched_input_shape();
  bool any_pad = false;
  for (auto& ax : plan.axes) any_pad = any_pad || needs_low_check(ax) || needs_high_check(ax);
  bool mean = plan.mode == PoolMode::Avg && plan.divisor_rule == DivisorRule::Mean;
  // float16/bfloat16: sums, divisions and powers in float32, one rounding at the end.
  bool half = T.is_floating() && T.bits() == 16;
  DataType A = half ? DataType::Float(32) : T;
  DataType acc = mean ? DataType::Float(64) : A;
  // pad_temp: the input extended by the padding (inlined by the schedules).
  te::Tensor src = input;
  std::vector<int64_t> shift(plan.spatial_rank(), 0);
  if (any_pad) {
    std::vector<int64_t> padded = pshape;
    for (int a = 0; a < plan.spatial_rank(); ++a) {
      const PoolAxis& ax = plan.axes[a];
      shift[a] = ax.pad_begin;
      padded[spatial_pos(plan, a)] = std::max(ax.in + ax.pad_begin + ax.pad_end,
                                              (ax.out - 1) * ax.stride + ax.effective_kernel());
    }
    src = te::compute(
        to_exprs(padded),
        [&](const std::vector<Var>& v) {
          Expr n, c;
          std::vector<Expr> p;
          split_vars(plan, v, n, c, p);
          for (int a = 0; a < plan.spatial_rank(); ++a) p[a] = p[a] - ci(shift[a]);
          return padded_read(plan, input, n, c, p, T);
        },
        "pad_temp", "pad");
  }
  auto r_axes = window_axes(plan);
  double pn = plan.lp_norm;
  te::Tensor sum = te::compute(
      oshape,
      [&](const std::vector<Var>& v) {
        Expr n, c;
        std::vector<Expr> o;
        split_vars(plan, v, n, c, o);
        WindowExprs w = window_exprs(plan, o, r_axes);
        // padding taps read 0 from pad_temp; only the adaptive bound stays a condition
        Expr cond;
        for (int a = 0; a < plan.spatial_rank(); ++a)
          if (plan.axes[a].adaptive && !adaptive_uniform(plan.axes[a])) {
            Expr ca = Expr(r_axes[a]->var) <
                      adaptive_end_expr(plan.axes[a], o[a]) - window_start(plan.axes[a], o[a]);
            cond = cond.defined() ? (cond && ca) : ca;
          }
        std::vector<Expr> pos = w.pos;
        for (int a = 0; a < plan.spatial_rank(); ++a) pos[a] = pos[a] + ci(shift[a]);
        Expr x = src.read(layout_index(plan, n, c, pos));
        if (T.is_int()) x = cast(DataType::Int(64), x);
        if (mean || half) x = cast(acc, x);
        if (plan.mode == PoolMode::Lp)
          x = plan.lp_rule == LpRule::Onnx ? pow_const(abs(x), pn) : pow_const(x, pn);
        return te::sum(x, r_axes, cond);
      },
      "pool_sum", "pool_sum");
  r.output = te::compute(
      oshape,
      [&](const std::vector<Var>& v) {
        Expr n, c;
        std::vector<Expr> o;
        split_vars(plan, v, n, c, o);
        Expr s = sum.read(std::vector<Expr>(v.begin(), v.end()));
        auto out = [&](Expr e) { return half && e.dtype() != T ? cast(T, e) : e; };
        if (plan.mode == PoolMode::Lp) {
          if (plan.lp_rule == LpRule::Onnx)
            return out(pow(s, make_const(A, static_cast<double>(A == DataType::Float(32)
                                                                    ? 1.0f / static_cast<float>(pn)
                                                                    : 1.0 / pn))));
          double area = 1;
          for (auto& ax : plan.axes) area *= static_cast<double>(ax.kernel);
          Expr a = s / cast(A, divisor_expr(plan, o));
          a = select(a == make_zero(A), make_zero(A), a);
          double e = 1.0 / pn;
          return out(pow(a * make_const(A, area), make_const(A, e)));
        }
        if (plan.divisor_rule == DivisorRule::AdaptiveEachAxis) {
          for (int a = 0; a < plan.spatial_rank(); ++a)
            s = s / cast(A, pool_count_expr(plan.axes[a], o[a]));
          return out(s);
        }
        Expr d = divisor_expr(plan, o);
        Expr q;
        if (T.is_int())
          q = cast(T, truncdiv(s, cast(DataType::Int(64), d)));
        else if (mean)
          q = cast(T, s / cast(acc, d));
        else
          q = out(make_zero(A) + s / cast(A, d));
        if (plan.has_empty_window) q = select(d == ci(0), make_zero(T), q);
        return q;
      },
      "tensor", "pool_avg");
  return r;
}

}  // namespace minitvm::topi
