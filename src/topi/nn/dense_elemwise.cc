// dense and the elementwise / normalisation ops around convolutions.
#include "topi/nn/common.h"
#include "topi/schedule_util.h"

#include "minitvm/topi/nn.h"

namespace minitvm::topi::nn {

using namespace detail;

Tensor dense(const Tensor& data, const Tensor& weight, const Tensor& bias, DataType out_dtype) {
  auto ds = const_shape(data), ws = const_shape(weight);
  MINITVM_USER_CHECK(ds.size() == 2)
      << "dense: data must be 2-D (batch, in_dim), got " << ds.size() << "-D";
  MINITVM_USER_CHECK(ws.size() == 2)
      << "dense: weight must be 2-D (out_dim, in_dim), got " << ws.size() << "-D";
  MINITVM_USER_CHECK(ds[1] == ws[1])
      << "dense: data has in_dim " << ds[1] << " but weight has " << ws[1];
  IterVar k = te::reduce_axis({0, I(ds[1])}, "k");
  Tensor mm = named_compute(
      {ds[0], ws[0]}, {"i", "j"},
      [&](const std::vector<Var>& v) {
        return te::sum(cast_to(out_dtype, data(v[0], k)) * cast_to(out_dtype, weight(v[1], k)),
                       {k});
      },
      "T_dense", "dense");
  if (!bias.defined()) return mm;
  auto bs = const_shape(bias);
  MINITVM_USER_CHECK(bs.size() == 1 && bs[0] == ws[0])
      << "dense: bias must have shape (" << ws[0] << "), got " << bs.size() << "-D";
  return named_compute(
      {ds[0], ws[0]}, {"i", "j"},
      [&](const std::vector<Var>& v) { return mm(v[0], v[1]) + cast_to(out_dtype, bias(v[1])); },
      "T_add", "broadcast");
}

namespace {
// 0 (automatic): pad the rows to a multiple of 8 only when no register tile of 4 to 8 rows
// divides them (the CPU schedules tile by the largest divisor up to 8).
int64_t resolve_row_tile(int64_t rows, int64_t row_tile) {
  if (row_tile != 0) return row_tile;
  return topi::detail::largest_divisor_at_most(rows, 8) >= 4 ? 1 : 8;
}
}  // namespace

Tensor dense_pack(const Tensor& data, const Tensor& weight, int64_t row_tile) {
  auto ds = const_shape(data), ws = const_shape(weight);
  MINITVM_USER_CHECK(ds.size() == 2)
      << "dense_pack: data must be 2-D (batch, in_dim), got " << ds.size() << "-D";
  MINITVM_USER_CHECK(ws.size() == 3)
      << "dense_pack: weight must be 3-D (out_dim / b, in_dim, b), got " << ws.size() << "-D";
  MINITVM_USER_CHECK(ds[1] == ws[1])
      << "dense_pack: data has in_dim " << ds[1] << " but weight has " << ws[1];
  MINITVM_USER_CHECK(row_tile >= 0) << "dense_pack: row_tile must be >= 0, got " << row_tile;
  const int64_t M = ds[0], K = ds[1], b = ws[2], N = ws[0] * ws[2];
  row_tile = resolve_row_tile(M, row_tile);
  const int64_t Mp = (M + row_tile - 1) / row_tile * row_tile;
  Tensor x = data;
  if (Mp != M)
    x = named_compute(
        {Mp, K}, {"i", "k"},
        [&](const std::vector<Var>& v) {
          // the clamp keeps the load in bounds where both sides of the select are evaluated
          return ir::select(v[0] < I(M), data(ir::min(v[0], I(M - 1)), v[1]),
                            ir::make_const(data->dtype, 0.0));
        },
        "T_dense_pack_rows", "injective");
  IterVar k = te::reduce_axis({0, I(K)}, "k");
  Tensor mm = named_compute(
      {Mp, N}, {"i", "j"},
      [&](const std::vector<Var>& v) {
        return te::sum(x(v[0], k) * weight(ir::floordiv(v[1], I(b)), k, ir::floormod(v[1], I(b))),
                       {k});
      },
      "T_dense_pack", "dense_pack");
  if (Mp == M) return mm;
  return named_compute(
      {M, N}, {"i", "j"}, [&](const std::vector<Var>& v) { return mm(v[0], v[1]); },
      "T_dense_pack_unpad", "injective");
}

Tensor batch_matmul_pack(const Tensor& x, const Tensor& y, int64_t row_tile, int64_t col_tile) {
  auto xs = const_shape(x), ys = const_shape(y);
  MINITVM_USER_CHECK(xs.size() == 3 && ys.size() == 3)
      << "batch_matmul_pack: x and y must be 3-D, got " << xs.size() << "-D and " << ys.size()
      << "-D";
  MINITVM_USER_CHECK(xs[2] == ys[2])
      << "batch_matmul_pack: x has K = " << xs[2] << " but y has " << ys[2];
  MINITVM_USER_CHECK(xs[0] == ys[0] || xs[0] == 1 || ys[0] == 1)
      << "batch_matmul_pack: batches " << xs[0] << " and " << ys[0] << " differ";
  MINITVM_USER_CHECK(row_tile >= 0 && col_tile >= 1)
      << "batch_matmul_pack: row_tile must be >= 0 and col_tile >= 1";
  const int64_t B = std::max(xs[0], ys[0]), M = xs[1], K = xs[2], N = ys[1];
  row_tile = resolve_row_tile(M, row_tile);
  const int64_t Mp = (M + row_tile - 1) / row_tile * row_tile;
  const int64_t Np = (N + col_tile - 1) / col_tile * col_tile;
  auto bx = [&](const Var& b) { return xs[0] == 1 ? I(0) : Expr(b); };
  auto by = [&](const Var& b) { return ys[0] == 1 ? I(0) : Expr(b); };
  const Expr zero = ir::make_const(x->dtype, 0.0);
  Tensor xp = x;
  if (Mp != M)
    xp = named_compute(
        {xs[0], Mp, K}, {"b", "i", "k"},
        [&](const std::vector<Var>& v) {
          return ir::select(v[1] < I(M), x(v[0], ir::min(v[1], I(M - 1)), v[2]), zero);
        },
        "T_batch_matmul_rows", "injective");
  Tensor yt = named_compute(
      {ys[0], K, Np}, {"b", "k", "j"},
      [&](const std::vector<Var>& v) {
        Expr val = y(v[0], ir::min(v[2], I(N - 1)), v[1]);
        return Np == N ? val : ir::select(v[2] < I(N), val, zero);
      },
      "T_batch_matmul_yT", "batch_matmul_pack");
  IterVar k = te::reduce_axis({0, I(K)}, "k");
  Tensor mm = named_compute(
      {B, Mp, Np}, {"b", "i", "j"},
      [&](const std::vector<Var>& v) {
        return te::sum(xp(bx(v[0]), v[1], k->var) * yt(by(v[0]), k->var, v[2]), {k});
      },
      "T_batch_matmul", "batch_matmul");
  if (Mp == M && Np == N) return mm;
  return named_compute(
      {B, M, N}, {"b", "i", "j"}, [&](const std::vector<Var>& v) { return mm(v[0], v[1], v[2]); },
      "T_batch_matmul_unpad", "injective");
}

Tensor bias_add(const Tensor& x, const Tensor& bias, int axis) {
  auto xs = const_shape(x), bs = const_shape(bias);
  if (axis < 0) axis += static_cast<int>(xs.size());
  MINITVM_USER_CHECK(axis >= 0 && axis < static_cast<int>(xs.size()))
      << "bias_add: axis out of range";
  MINITVM_USER_CHECK(bs.size() == 1 && bs[0] == xs[axis])
      << "bias_add: bias must have shape (" << xs[axis] << ") for axis " << axis << " of "
      << x.name();
  MINITVM_USER_CHECK(x.dtype() == bias.dtype()) << "bias_add: dtype mismatch";
  return named_compute(
      xs, ax_names(xs.size()),
      [&](const std::vector<Var>& v) { return x.read(as_exprs(v)) + bias(v[axis]); }, "T_add",
      "broadcast");
}

Tensor relu(const Tensor& x) {
  auto xs = const_shape(x);
  return named_compute(
      xs, ax_names(xs.size()),
      [&](const std::vector<Var>& v) {
        return ir::max(x.read(as_exprs(v)), ir::make_zero(x.dtype()));
      },
      "T_relu", "elemwise");
}

Tensor add(const Tensor& a, const Tensor& b) {
  auto as = const_shape(a), bs = const_shape(b);
  MINITVM_USER_CHECK(as == bs) << "add: shapes of " << a.name() << " and " << b.name() << " differ";
  MINITVM_USER_CHECK(a.dtype() == b.dtype()) << "add: dtype mismatch";
  return named_compute(
      as, ax_names(as.size()),
      [&](const std::vector<Var>& v) { return a.read(as_exprs(v)) + b.read(as_exprs(v)); }, "T_add",
      "elemwise");
}

Tensor batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                            const Tensor& mean, const Tensor& var, double epsilon) {
  auto xs = const_shape(x);
  MINITVM_USER_CHECK(xs.size() >= 2) << "batch_norm: input must have a channel axis (>= 2-D)";
  for (const Tensor* t : {&gamma, &beta, &mean, &var}) {
    auto s = const_shape(*t);
    MINITVM_USER_CHECK(s.size() == 1 && s[0] == xs[1])
        << "batch_norm: " << t->name() << " must have shape (" << xs[1] << ")";
  }
  DataType dt = x.dtype();
  return named_compute(
      xs, ax_names(xs.size()),
      [&](const std::vector<Var>& v) {
        Expr c = v[1];
        Expr inv = ir::make_const(dt, 1.0) / ir::sqrt(var(c) + ir::make_const(dt, epsilon));
        return (x.read(as_exprs(v)) - mean(c)) * inv * gamma(c) + beta(c);
      },
      "T_batch_norm", "broadcast");
}

Tensor softmax(const Tensor& x) {
  auto xs = const_shape(x);
  MINITVM_USER_CHECK(xs.size() == 2)
      << "softmax: input must be 2-D (batch, classes), got " << xs.size() << "-D";
  IterVar k1 = te::reduce_axis({0, I(xs[1])}, "k");
  Tensor maxelem = named_compute(
      {xs[0]}, {"i"}, [&](const std::vector<Var>& v) { return te::max(x(v[0], k1), {k1}); },
      "T_softmax_maxelem", "softmax_maxelem");
  Tensor ex = named_compute(
      xs, {"i", "j"},
      [&](const std::vector<Var>& v) { return ir::exp(x(v[0], v[1]) - maxelem(v[0])); },
      "T_softmax_exp", "softmax_exp");
  IterVar k2 = te::reduce_axis({0, I(xs[1])}, "k");
  Tensor sum = named_compute(
      {xs[0]}, {"i"}, [&](const std::vector<Var>& v) { return te::sum(ex(v[0], k2), {k2}); },
      "T_softmax_expsum", "softmax_expsum");
  return named_compute(
      xs, {"i", "j"}, [&](const std::vector<Var>& v) { return ex(v[0], v[1]) / sum(v[0]); },
      "T_softmax_norm", "softmax_output");
}

Tensor reduce_last_axis(const Tensor& x, const std::string& kind, int64_t lanes, bool keepdims,
                        const std::string& name, const std::string& tag) {
  const std::vector<int64_t> xs = const_shape(x);
  MINITVM_USER_CHECK(!xs.empty()) << "reduce_last_axis: x must have an axis";
  MINITVM_USER_CHECK(lanes >= 1) << "reduce_last_axis: lanes must be >= 1, got " << lanes;
  MINITVM_USER_CHECK(kind == "sum" || kind == "max" || kind == "min")
      << "reduce_last_axis: kind must be sum, max or min, got '" << kind << "'";
  const int64_t n = xs.back();
  std::vector<int64_t> rs(xs.begin(), xs.end() - 1), ps = rs;
  ps.push_back(lanes);
  if (keepdims) rs.push_back(1);
  auto red = [&](const Expr& e, const IterVar& k) {
    return kind == "max" ? te::max(e, {k}) : kind == "min" ? te::min(e, {k}) : te::sum(e, {k});
  };
  // x's index of row `v` (an output index; its kept axis dropped) and column j
  auto at = [&](const std::vector<Var>& v, Expr j) {
    std::vector<Expr> idx(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(xs.size() - 1));
    idx.push_back(std::move(j));
    return idx;
  };
  if (n < 2 * lanes) {
    IterVar k = te::reduce_axis({0, I(n)}, "k");
    return named_compute(
        rs, ax_names(rs.size()),
        [&](const std::vector<Var>& v) { return red(x.read(at(v, k->var)), k); }, name, tag);
  }
  const int64_t base = n / lanes * lanes;
  IterVar ko = te::reduce_axis({0, I(n / lanes)}, "ko");
  Tensor part = named_compute(
      ps, ax_names(ps.size()),
      [&](const std::vector<Var>& v) {
        return red(x.read(at(v, ko->var * I(lanes) + v.back())), ko);
      },
      name + "_part", tag);
  // the partials and the tail in one reduction: r < lanes reads partial r, else element
  // base + r - lanes (both sides clamped in bounds)
  IterVar r = te::reduce_axis({0, I(lanes + n - base)}, "r");
  return named_compute(
      rs, ax_names(rs.size()),
      [&](const std::vector<Var>& v) {
        std::vector<Expr> pidx(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(xs.size() - 1));
        pidx.push_back(ir::min(r->var, I(lanes - 1)));
        Expr from_tail = x.read(at(v, ir::max(r->var + I(base - lanes), I(0))));
        return red(ir::select(r->var < I(lanes), part.read(pidx), from_tail), r);
      },
      name, tag);
}

Tensor softmax_last_axis(const Tensor& x, int64_t lanes) {
  const std::vector<int64_t> xs = const_shape(x);
  MINITVM_USER_CHECK(!xs.empty()) << "softmax_last_axis: x must have an axis";
  auto row_of = [](const std::vector<Var>& v) {
    return as_exprs(std::vector<Var>(v.begin(), v.end() - 1));
  };
  Tensor mx = reduce_last_axis(x, "max", lanes, false, "T_softmax_maxelem", "softmax");
  Tensor e = named_compute(
      xs, ax_names(xs.size()),
      [&](const std::vector<Var>& v) { return ir::exp(x.read(as_exprs(v)) - mx.read(row_of(v))); },
      "T_softmax_exp", "elemwise");
  Tensor sum = reduce_last_axis(e, "sum", lanes, false, "T_softmax_expsum", "softmax");
  return named_compute(
      xs, ax_names(xs.size()),
      // times the row's reciprocal (one scalar divide per vector, as ONNX Runtime's MLAS)
      [&](const std::vector<Var>& v) {
        return e.read(as_exprs(v)) * (ir::make_const(sum->dtype, 1.0) / sum.read(row_of(v)));
      },
      "T_softmax_norm", "softmax");
}

Tensor flatten(const Tensor& x) {
  auto xs = const_shape(x);
  MINITVM_USER_CHECK(xs.size() >= 2) << "flatten: input must be at least 2-D";
  int64_t inner = 1;
  for (size_t i = 1; i < xs.size(); ++i) inner *= xs[i];
  return named_compute(
      {xs[0], inner}, {"i", "j"},
      [&](const std::vector<Var>& v) {
        std::vector<Expr> idx{v[0]};
        Expr rest = v[1];
        std::vector<Expr> tail(xs.size() - 1);
        for (size_t d = xs.size() - 1; d >= 1; --d) {
          tail[d - 1] = d == 1 ? rest : ir::floormod(rest, I(xs[d]));
          if (d > 1) rest = ir::floordiv(rest, I(xs[d]));
        }
        idx.insert(idx.end(), tail.begin(), tail.end());
        return x.read(idx);
      },
      "T_flatten", "injective");
}

}  // namespace minitvm::topi::nn
