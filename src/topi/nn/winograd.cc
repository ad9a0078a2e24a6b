// Winograd F(m, r) conv2d compute and the Cook-Toom transform matrices (TVM v0.6
// topi/nn/winograd_util.py).
#include "topi/nn/common.h"

#include <cmath>

#include "minitvm/topi/nn.h"
#include "minitvm/topi/template_spaces.h"

namespace minitvm::topi::nn {

using namespace detail;
using Mat = std::vector<std::vector<double>>;

namespace {

// Interpolation points by polynomial degree (number of finite points), Barabasz et al.'s table.
std::vector<double> interpolation_points(int degree) {
  static const std::vector<std::vector<double>> table = {
      {0, -1, 1},
      {0, -1, 1, 0.5},
      {0, -1, 1, 0.5, -2},
      {0, -1, 1, 0.5, -2, -0.5},
      {0, -1, 1, 0.5, -0.5, 2, -2},
      {0, -1, 1, 0.5, -0.5, 2, -2, -0.25},
      {0, -1, 1, 0.5, -0.5, 2, -2, -0.25, 4},
  };
  MINITVM_USER_CHECK(degree >= 3 && degree <= 9)
      << "winograd: m + r - 2 = " << degree << " is not supported (3..9)";
  return table[degree - 3];
}

Mat zeros(int r, int c) {
  return Mat(r, std::vector<double>(c, 0.0));
}

}  // namespace

WinogradMatrices winograd_transform_matrices(int m, int r) {
  MINITVM_USER_CHECK(m > 1 && m < 9) << "winograd: tile size m must be in (1, 9), got " << m;
  MINITVM_USER_CHECK(r > 2 && r < 8) << "winograd: kernel size r must be in (2, 8), got " << r;
  int alpha = m + r - 1;
  std::vector<double> a = interpolation_points(alpha - 1);
  int n = alpha - 1;  // finite points
  std::vector<double> F(n), f(alpha, 1.0);
  for (int i = 0; i < n; ++i) {
    double p = 1;
    for (int k = 0; k < n; ++k)
      if (k != i) p *= a[i] - a[k];
    F[i] = p;
    f[i] = p;
  }
  if (f[0] < 0) f[0] = -f[0];
  WinogradMatrices w;
  w.m = m;
  w.r = r;
  w.alpha = alpha;
  w.A = zeros(alpha, m);
  w.G = zeros(alpha, r);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) w.A[i][j] = std::pow(a[i], j);
    for (int j = 0; j < r; ++j) w.G[i][j] = std::pow(a[i], j) / f[i];
  }
  w.A[alpha - 1][m - 1] = 1;
  w.G[alpha - 1][r - 1] = 1;
  // Lagrange basis coefficients c[i][j] of x^j in L_i(x) = prod_{k != i} (x - a_k) / F_i.
  Mat c = zeros(n, n);
  for (int i = 0; i < n; ++i) {
    std::vector<double> poly{1.0};
    for (int k = 0; k < n; ++k) {
      if (k == i) continue;
      std::vector<double> next(poly.size() + 1, 0.0);
      for (size_t j = 0; j < poly.size(); ++j) {
        next[j + 1] += poly[j];
        next[j] -= a[k] * poly[j];
      }
      poly = next;
    }
    for (int j = 0; j < n; ++j) c[i][j] = poly[j] / F[i];
  }
  // B0 = C^T [I | t], t_i = -a_i^(alpha-1); last row e_{alpha-1}; B = B0 * diag(f).
  Mat b0 = zeros(alpha, alpha);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) b0[j][i] = c[i][j];
    double s = 0;
    for (int i = 0; i < n; ++i) s += c[i][j] * -std::pow(a[i], alpha - 1);
    b0[j][alpha - 1] = s;
  }
  b0[alpha - 1][alpha - 1] = 1;
  w.B = zeros(alpha, alpha);
  for (int i = 0; i < alpha; ++i)
    for (int j = 0; j < alpha; ++j) w.B[i][j] = b0[i][j] * f[j];
  return w;
}

Tensor const_matrix(const Mat& mat, DataType dtype, const std::string& name) {
  int64_t rows = static_cast<int64_t>(mat.size()), cols = static_cast<int64_t>(mat.at(0).size());
  return named_compute(
      {rows, cols}, {"i", "j"},
      [&](const std::vector<Var>& v) {
        Expr now = ir::make_const(dtype, 0.0);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            now = ir::select(
                ir::floormod(v[0], I(rows)) == I(i) && ir::floormod(v[1], I(cols)) == I(j),
                ir::make_const(dtype, mat[i][j]), now);
        return now;
      },
      name, "const_matrix");
}

namespace {

Tensor kernel_transform(const Tensor& kernel, const Tensor& G, int64_t alpha, bool co_first,
                        DataType out_dtype, const std::string& name) {
  auto ks = const_shape(kernel);
  const int64_t CO = ks[0], CI = ks[1], r = ks[2];
  IterVar r_kh = te::reduce_axis({0, I(r)}, "r_kh"), r_kw = te::reduce_axis({0, I(r)}, "r_kw");
  return named_compute(
      co_first ? std::vector<int64_t>{alpha, alpha, CO, CI}
               : std::vector<int64_t>{alpha, alpha, CI, CO},
      co_first ? std::vector<std::string>{"eps", "nu", "co", "ci"}
               : std::vector<std::string>{"eps", "nu", "ci", "co"},
      [&](const std::vector<Var>& v) {
        Expr co = co_first ? v[2] : v[3], ci = co_first ? v[3] : v[2];
        return te::sum(
            cast_to(out_dtype, kernel(co, ci, r_kh, r_kw)) * G(v[0], r_kh) * G(v[1], r_kw),
            {r_kh, r_kw});
      },
      name, "");
}

void check_kernel(const std::vector<int64_t>& ks, const char* what) {
  MINITVM_USER_CHECK(ks.size() == 4) << what << ": kernel must be 4-D OIHW";
  MINITVM_USER_CHECK(ks[2] == ks[3])
      << what << ": only square kernels are supported (got " << ks[2] << "x" << ks[3] << ")";
}

// The data transform, batched gemm and inverse transform around a transformed kernel
// (alpha, alpha, CI, CO) of a kernel of size r.
WinogradTensors winograd_body(const Tensor& data, WinogradTensors w, int64_t r,
                              const std::vector<int64_t>& padding, DataType out_dtype, int64_t m,
                              const char* what) {
  auto ds = const_shape(data), kp = const_shape(w.kernel_pack);
  MINITVM_USER_CHECK(ds.size() == 4) << what << ": data must be 4-D NCHW";
  MINITVM_USER_CHECK(ds[1] == kp[2])
      << what << ": data has " << ds[1] << " input channels but kernel expects " << kp[2];
  auto p = get_pad_tuple(padding);
  MINITVM_USER_CHECK(p[0] == p[2] && p[1] == p[3]) << what << ": padding must be symmetric";
  int64_t N = ds[0], CI = ds[1], H = ds[2], W = ds[3], CO = kp[3];
  WinogradMatrices mats = winograd_transform_matrices(static_cast<int>(m), static_cast<int>(r));
  int64_t alpha = mats.alpha;
  MINITVM_USER_CHECK(kp[0] == alpha && kp[1] == alpha)
      << what << ": transformed kernel is " << kp[0] << "x" << kp[1] << " but F(" << m << ", " << r
      << ") needs " << alpha << "x" << alpha;
  int64_t OH = H + 2 * p[0] - r + 1, OW = W + 2 * p[1] - r + 1;
  MINITVM_USER_CHECK(OH >= 1 && OW >= 1) << what << ": output would be empty";
  int64_t nH = (OH + m - 1) / m, nW = (OW + m - 1) / m, P = N * nH * nW;
  w.m = m;
  w.alpha = alpha;
  w.P = P;
  w.nH = nH;
  w.nW = nW;
  w.data_pad = pad(data, {0, 0, p[0], p[1]}, {0, 0, p[0], p[1]}, 0.0, "data_pad");
  w.A = const_matrix(mats.A, out_dtype, "A");
  w.B = const_matrix(mats.B, out_dtype, "B");
  w.d = named_compute(
      {CI, P, alpha, alpha}, {"c", "p", "eps", "nu"},
      [&](const std::vector<Var>& v) {
        Expr b = ir::floordiv(v[1], I(nH * nW));
        Expr y = ir::floormod(ir::floordiv(v[1], I(nW)), I(nH)) * I(m) + v[2];
        Expr x = ir::floormod(v[1], I(nW)) * I(m) + v[3];
        // The last tiles may reach past the padded input (OH not a multiple of m): read zeros
        // there.
        int64_t hp = H + 2 * p[0], wp = W + 2 * p[1];
        Expr cond;
        if ((nH - 1) * m + alpha > hp) cond = y < I(hp);
        if ((nW - 1) * m + alpha > wp) cond = cond.defined() ? (cond && x < I(wp)) : (x < I(wp));
        Expr v0 = w.data_pad(b, v[0], y, x);
        return cond.defined() ? ir::if_then_else(cond, v0, ir::make_zero(v0.dtype())) : v0;
      },
      "d", "");
  IterVar ra = te::reduce_axis({0, I(alpha)}, "r_a"), rb = te::reduce_axis({0, I(alpha)}, "r_b");
  w.data_pack = named_compute(
      {alpha, alpha, CI, P}, {"eps", "nu", "ci", "p"},
      [&](const std::vector<Var>& v) {
        return te::sum(cast_to(out_dtype, w.d(v[2], v[3], ra, rb)) * w.B(ra, v[0]) * w.B(rb, v[1]),
                       {ra, rb});
      },
      "data_pack", "");
  IterVar ci = te::reduce_axis({0, I(CI)}, "ci");
  w.bgemm = named_compute(
      {alpha, alpha, CO, P}, {"eps", "nu", "co", "p"},
      [&](const std::vector<Var>& v) {
        return te::sum(w.kernel_pack(v[0], v[1], ci, v[2]) * w.data_pack(v[0], v[1], ci, v[3]),
                       {ci});
      },
      "bgemm", "");
  IterVar ia = te::reduce_axis({0, I(alpha)}, "r_a"), ib = te::reduce_axis({0, I(alpha)}, "r_b");
  w.inverse = named_compute(
      {CO, P, m, m}, {"co", "p", "vh", "vw"},
      [&](const std::vector<Var>& v) {
        return te::sum(w.bgemm(ia, ib, v[0], v[1]) * w.A(ia, v[2]) * w.A(ib, v[3]), {ia, ib});
      },
      "inverse", "");
  w.output = named_compute(
      {N, CO, OH, OW}, {"n", "co", "h", "w"},
      [&](const std::vector<Var>& v) {
        Expr pidx = v[0] * I(nH * nW) + ir::floordiv(v[2], I(m)) * I(nW) + ir::floordiv(v[3], I(m));
        return w.inverse(v[1], pidx, ir::floormod(v[2], I(m)), ir::floormod(v[3], I(m)));
      },
      "output", "conv2d_nchw_winograd");
  return w;
}

}  // namespace

Tensor conv2d_winograd_weight_transform(const Tensor& kernel, int64_t tile_size,
                                        DataType out_dtype) {
  auto ks = const_shape(kernel);
  check_kernel(ks, "conv2d_winograd_weight_transform");
  WinogradMatrices mats =
      winograd_transform_matrices(static_cast<int>(tile_size), static_cast<int>(ks[2]));
  Tensor G = const_matrix(mats.G, out_dtype, "G");
  return kernel_transform(kernel, G, mats.alpha, /*co_first=*/true, out_dtype, "transform_weight");
}

WinogradTensors conv2d_winograd_nchw(const Tensor& data, const Tensor& kernel,
                                     const std::vector<int64_t>& padding, DataType out_dtype,
                                     int tile_size) {
  auto ds = const_shape(data), ks = const_shape(kernel);
  check_kernel(ks, "conv2d_winograd");
  MINITVM_USER_CHECK(ds.size() == 4) << "conv2d_winograd: data must be 4-D NCHW";
  MINITVM_USER_CHECK(ds[1] == ks[1])
      << "conv2d_winograd: data has " << ds[1] << " input channels but kernel expects " << ks[1];
  int64_t m = tile_size > 0 ? tile_size : topi::winograd_tile_size(ds[2]), r = ks[2];
  WinogradMatrices mats = winograd_transform_matrices(static_cast<int>(m), static_cast<int>(r));
  WinogradTensors w;
  w.G = const_matrix(mats.G, out_dtype, "G");
  w.kernel_pack = kernel_transform(kernel, w.G, mats.alpha, false, out_dtype, "kernel_pack");
  return winograd_body(data, w, r, padding, out_dtype, m, "conv2d_winograd");
}

WinogradTensors conv2d_winograd_nchw_without_weight_transform(const Tensor& data,
                                                              const Tensor& kernel,
                                                              const std::vector<int64_t>& padding,
                                                              int64_t tile_size,
                                                              DataType out_dtype) {
  const char* what = "conv2d_winograd_without_weight_transform";
  auto ks = const_shape(kernel);
  MINITVM_USER_CHECK(ks.size() == 4 && ks[0] == ks[1])
      << what << ": the transformed kernel must be (alpha, alpha, CI, CO)";
  MINITVM_USER_CHECK(tile_size > 1 && ks[0] - tile_size + 1 > 2)
      << what << ": tile size " << tile_size << " does not fit a transformed kernel of " << ks[0]
      << "x" << ks[0];
  WinogradTensors w;
  w.pre_computed = true;
  w.kernel_pack = kernel;
  return winograd_body(data, w, ks[0] - tile_size + 1, padding, out_dtype, tile_size, what);
}

}  // namespace minitvm::topi::nn
