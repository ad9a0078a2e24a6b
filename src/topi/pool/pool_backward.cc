// Backward pool computes as gathers: grad_input[q] sums, over the windows o that contain q (in
// ascending output order, the order PyTorch's scatter adds them), the contribution of o:
//  - max: grad_output[o] when the per-plane index of o names q,
//  - avg: grad_output[o] / divisor(o) (adaptive: divided by each axis' window length in turn),
//  - lp:  outer(o) * d|x|^p/dx at q, outer(o) = grad_output[o] * S(o)^(1/p-1) * scale(o).
// Per axis the candidate windows are o in [o_lo(q), o_hi(q)]; a reduction axis j walks them.
// When windows are disjoint there is at most one candidate per axis and no reduction at all: the
// element is 0 outside every window (if_then_else, so that o is only read inside one).
#include <limits>

#include "minitvm/topi/pool.h"
#include "pool_util.h"

namespace minitvm::topi {

using namespace detail;

std::vector<te::Tensor> PoolBackward::args() const {
  std::vector<te::Tensor> a{grad_output};
  if (input.defined()) a.push_back(input);
  if (indices.defined()) a.push_back(indices);
  a.push_back(grad_input);
  return a;
}

namespace {

// Candidate windows of input position q on one axis: first window and the number of slots.
Expr first_window(const PoolAxis& ax, Expr q) {
  if (ax.adaptive) return truncdiv(q * ci(ax.out), ci(ax.in));
  Expr t = q + ci(ax.pad_begin);
  return max(floordiv(t - ci(ax.effective_kernel() - 1) + ci(ax.stride - 1), ci(ax.stride)), ci(0));
}
Expr last_window(const PoolAxis& ax, Expr q) {
  if (ax.adaptive) return truncdiv((q + 1) * ci(ax.out) - 1, ci(ax.in));
  return min(floordiv(q + ci(ax.pad_begin), ci(ax.stride)), ci(ax.out - 1));
}
int64_t window_slots(const PoolAxis& ax) {
  if (ax.adaptive) {
    int64_t m = 0;
    for (int64_t q = 0; q < ax.in; ++q)
      m = std::max(m, ((q + 1) * ax.out - 1) / ax.in - (q * ax.out) / ax.in + 1);
    return std::max<int64_t>(m, 1);
  }
  int64_t ke = ax.effective_kernel();
  return std::max<int64_t>(1, std::min(ax.out, (ke + ax.stride - 1) / ax.stride));
}

}  // namespace

PoolBackward pool_backward(const PoolPlan& plan) {
  DataType T = plan.dtype;
  MINITVM_USER_CHECK(T.is_floating()) << plan.op << ": no gradient for " << T.str() << " input";
  // float16/bfloat16: gradients are accumulated and divided in float32 and rounded once.
  bool half = T.bits() == 16;
  DataType A = half ? DataType::Float(32) : T;
  auto widen = [&](Expr e) { return e.dtype() == A ? e : cast(A, e); };
  PoolBackward b;
  int R = plan.spatial_rank();
  std::vector<int64_t> ishape = plan.batched_input_shape(), oshape = plan.batched_output_shape();
  b.grad_output = te::placeholder(to_exprs(oshape), T, "grad_output");
  const bool window_tap = plan.mode == PoolMode::Max && plan.index_base == IndexBase::WindowTap;
  check_window_tap(plan);
  if (plan.mode == PoolMode::Max)
    b.indices = te::placeholder(to_exprs(oshape), pool_index_dtype(plan), "indices");
  if (plan.mode == PoolMode::Lp) b.input = te::placeholder(to_exprs(ishape), T, "data");
  for (auto& ax : plan.axes)
    if (ax.out == 0) {
      b.grad_input = te::compute(
          to_exprs(ishape), [&](const std::vector<Var>&) { return make_zero(T); }, "grad_input");
      return b;
    }

  // Lp: per-window factor outer(o), computed once per output.
  te::Tensor outer;
  if (plan.mode == PoolMode::Lp) {
    bool onnx = plan.lp_rule == LpRule::Onnx;
    double pn = plan.lp_norm;
    std::vector<te::IterVar> r;
    for (int a = 0; a < R; ++a)
      r.push_back(te::reduce_axis({0, ci(plan.axes[a].kernel)}, "rv" + std::to_string(a)));
    auto in_range_sum = [&](const std::vector<Var>& v) {
      std::vector<Expr> pos;
      Expr cond;
      for (int a = 0; a < R; ++a) {
        const PoolAxis& ax = plan.axes[a];
        Expr p = Expr(v[spatial_pos(plan, a)]) * ci(ax.stride) - ci(ax.pad_begin) +
                 Expr(r[a]->var) * ci(ax.dilation);
        Expr c = p >= 0 && p < ci(ax.in);
        cond = cond.defined() ? (cond && c) : c;
        pos.push_back(min(max(p, ci(0)), ci(ax.in - 1)));
      }
      Expr x = widen(b.input.read(layout_index(plan, v[0], v[channel_pos(plan)], pos)));
      Expr t = onnx ? pow(abs(x), make_const(A, pn)) : pow(x, make_const(A, pn));
      return te::sum(t, r, cond);
    };
    te::Tensor S = te::compute(to_exprs(oshape), in_range_sum, "lp_sum");
    outer = te::compute(
        to_exprs(oshape),
        [&](const std::vector<Var>& v) {
          Expr scale = make_const(A, 1.0);
          if (!onnx) {
            double area = 1;
            for (auto& ax : plan.axes) area *= static_cast<double>(ax.kernel);
            Expr d;
            for (int a = 0; a < R; ++a) {
              Expr k = pool_count_expr(plan.axes[a], v[spatial_pos(plan, a)]);
              d = d.defined() ? d * k : k;
            }
            scale = make_const(A, area) / cast(A, d);
          }
          Expr s = S.read(std::vector<Expr>(v.begin(), v.end())) * scale;
          Expr e = make_const(A, 1.0) / make_const(A, pn) - make_const(A, 1.0);
          return widen(b.grad_output.read(std::vector<Expr>(v.begin(), v.end()))) * pow(s, e) *
                 scale;
        },
        "lp_outer");
  }

  std::vector<te::IterVar> j;
  bool disjoint = pool_windows_disjoint(plan);
  for (int a = 0; a < R && !disjoint; ++a)
    j.push_back(te::reduce_axis({0, ci(window_slots(plan.axes[a]))}, "j" + std::to_string(a)));

  auto body = [&](const std::vector<Var>& v) -> Expr {
    Expr n = v[0], c = v[channel_pos(plan)];
    std::vector<Expr> q, o;
    Expr valid;   // the reduction condition / the max-index match
    Expr inside;  // disjoint: q lies in a window (only then are the reads at o evaluated)
    auto add = [&](Expr e) { valid = valid.defined() ? (valid && e) : e; };
    auto add_inside = [&](Expr e) { inside = inside.defined() ? (inside && e) : e; };
    for (int a = 0; a < R; ++a) {
      const PoolAxis& ax = plan.axes[a];
      Expr qa = v[spatial_pos(plan, a)];
      q.push_back(qa);
      Expr oa;
      if (disjoint) {
        Expr t = qa + ci(ax.pad_begin);
        // t >= 0; floordiv lets a vectorized q read o = q/stride as repeated lanes of one dense
        // load
        oa = floordiv(t, ci(ax.stride));
        Expr tap = t - oa * ci(ax.stride);
        if (ax.effective_kernel() < ax.stride) add_inside(tap < ci(ax.effective_kernel()));
        if (ax.dilation > 1) add_inside(truncmod(tap, ci(ax.dilation)) == 0);
        // oa < out, without a division: t < out * stride
        if ((ax.in - 1 + ax.pad_begin) / ax.stride >= ax.out)
          add_inside(t < ci(ax.out * ax.stride));
      } else {
        oa = first_window(ax, qa) + j[a]->var;
        add(oa <= last_window(ax, qa));
        if (!ax.adaptive && ax.dilation > 1)
          add(truncmod(qa + ci(ax.pad_begin) - oa * ci(ax.stride), ci(ax.dilation)) == 0);
      }
      o.push_back(oa);
    }
    // disjoint: the reads at o sit under if_then_else(inside, ...), evaluated only inside a window.
    // Otherwise the reads are at o clamped to the last window: a slot past it is outside `valid`,
    // but the index compared in `valid` is read whatever the other terms (vector code evaluates
    // every term of the condition), and must not be read past the end of the indices.
    std::vector<Expr> oc = o;
    if (!disjoint)
      for (int a = 0; a < R; ++a) oc[a] = min(o[a], ci(plan.axes[a].out - 1));
    std::vector<Expr> oidx = layout_index(plan, n, c, oc);
    Expr contrib;
    if (plan.mode == PoolMode::Max) {
      DataType i64 = DataType::Int(64), i32 = DataType::Int(32);
      int64_t plane = 1;
      for (int a = 0; a < R; ++a) plane *= plan.axes[a].in;
      Expr idx = b.indices.read(oidx);
      if (window_tap) {
        // q's tap in window o, row-major over the kernel (q is on a tap: dilation checked above),
        // compared in int32 with the byte (255, no tap, matches no q).
        Expr tap = make_const(i32, 0);
        for (int a = 0; a < R; ++a) {
          const PoolAxis& ax = plan.axes[a];
          Expr off = q[a] + ci(ax.pad_begin) - o[a] * ci(ax.stride);
          if (ax.dilation > 1) off = truncdiv(off, ci(ax.dilation));
          tap = tap * ci(ax.kernel) + off;
        }
        add(cast(i32, idx) == tap);
      } else if (plane < std::numeric_limits<int32_t>::max()) {
        // Positions fit int32: compare in int32 (half the vector compares of int64). The index is
        // clamped to int32's range first, so that an out-of-range int64 never wraps onto a
        // position (saturated values are no position: 0 <= flat < plane < INT32_MAX).
        Expr flat = make_const(i32, 0);
        for (int a = 0; a < R; ++a) flat = flat * make_const(i32, plan.axes[a].in) + q[a];
        Expr lo = make_const(i64, std::numeric_limits<int32_t>::min()),
             hi = make_const(i64, std::numeric_limits<int32_t>::max());
        add(cast(i32, max(min(idx, hi), lo)) == flat);
      } else {
        Expr flat = make_const(i64, int64_t{0});
        for (int a = 0; a < R; ++a)
          flat = flat * make_const(i64, plan.axes[a].in) + cast(i64, q[a]);
        add(idx == flat);
      }
      contrib = widen(b.grad_output.read(oidx));
    } else if (plan.mode == PoolMode::Avg) {
      Expr go = widen(b.grad_output.read(oidx));
      if (plan.divisor_rule == DivisorRule::AdaptiveEachAxis) {
        for (int a = 0; a < R; ++a) go = go / cast(A, pool_count_expr(plan.axes[a], oc[a]));
      } else if (plan.divisor_rule == DivisorRule::Override) {
        go = go / make_const(A, static_cast<double>(plan.divisor_override));
      } else {
        Expr d;
        for (int a = 0; a < R; ++a) {
          Expr k = plan.divisor_rule == DivisorRule::CountIncludePad
                       ? pool_count_expr(plan.axes[a], oc[a])
                       : real_count_expr(plan.axes[a], oc[a]);
          d = d.defined() ? d * k : k;
        }
        go = go / cast(A, d);
      }
      contrib = go;
    } else {
      Expr x = widen(b.input.read(layout_index(plan, n, c, q)));
      double pn = plan.lp_norm;
      Expr dx = plan.lp_rule == LpRule::Onnx
                    ? pow(abs(x), make_const(A, pn - 1.0)) *
                          select(x < make_zero(A), make_const(A, -1.0), make_const(A, 1.0))
                    : pow(x, make_const(A, pn) - make_const(A, 1.0));
      contrib = outer.read(oidx) * dx;
    }
    if (disjoint) {
      Expr g = valid.defined() ? select(valid, contrib, make_zero(A)) : contrib;
      if (inside.defined()) g = if_then_else(inside, g, make_zero(A));
      return half ? cast(T, g) : g;
    }
    return te::sum(contrib, j, valid);
  };
  if (half && !disjoint) {
    // the float32 gather, then one rounding (schedules attach grad_acc to grad_input)
    te::Tensor acc = te::compute(to_exprs(ishape), body, "grad_acc", "pool_grad_acc");
    b.grad_input = te::compute(
        to_exprs(ishape),
        [&](const std::vector<Var>& v) {
          return cast(T, acc.read(std::vector<Expr>(v.begin(), v.end())));
        },
        "grad_input", "pool_grad");
    return b;
  }
  b.grad_input = te::compute(to_exprs(ishape), body, "grad_input", "pool_grad");
  return b;
}

}  // namespace minitvm::topi
