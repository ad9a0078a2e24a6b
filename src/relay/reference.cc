// Naive reference implementations of the graph operators (the test oracle).
#include "minitvm/relay/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "minitvm/support/error.h"
#include "minitvm/topi/nn.h"
#include "relay/attr_util.h"
#include "relay/layout.h"

namespace minitvm::relay {

namespace {

using runtime::NDArray;
using Shape = std::vector<int64_t>;

struct Buf {
  Shape shape;
  std::vector<float> v;
  int64_t size() const { return static_cast<int64_t>(v.size()); }
};

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Shape strides_of(const Shape& s) {
  Shape st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

Buf buf(const NDArray& a, const std::string& op) {
  MINITVM_USER_CHECK(a.dtype() == DataType::Float(32))
      << "reference executor: " << op << " supports float32 only, got " << a.dtype().str();
  return Buf{a.shape(), a.to_vector<float>()};
}

NDArray out(const Buf& b) {
  return NDArray::from_vector(b.v, b.shape);
}

std::vector<int64_t> ints(const Json& j) {
  return detail::attr_ints(j);
}

// Index of `o` (output multi-index of shape `os`) in an input of shape `is` broadcast to `os`.
int64_t bcast_index(const Shape& oidx, const Shape& is) {
  size_t off = oidx.size() - is.size();
  int64_t idx = 0;
  for (size_t i = 0; i < is.size(); ++i) idx = idx * is[i] + (is[i] == 1 ? 0 : oidx[off + i]);
  return idx;
}

void unravel(int64_t flat, const Shape& s, Shape& idx) {
  idx.resize(s.size());
  for (int i = static_cast<int>(s.size()) - 1; i >= 0; --i) {
    idx[i] = flat % s[i];
    flat /= s[i];
  }
}

Buf binary(const Buf& a, const Buf& b, const Shape& os, float (*f)(float, float)) {
  Buf r{os, std::vector<float>(numel(os))};
  Shape idx;
  for (int64_t i = 0; i < r.size(); ++i) {
    unravel(i, os, idx);
    r.v[i] = f(a.v[bcast_index(idx, a.shape)], b.v[bcast_index(idx, b.shape)]);
  }
  return r;
}

Buf conv2d(const Buf& d, const Buf& w, const Json& at, const Shape& os) {
  auto st = ints(at.at("strides")), pad = ints(at.at("padding")), dil = ints(at.at("dilation"));
  int64_t groups = at.at("groups").get<int64_t>();
  int64_t N = d.shape[0], C = d.shape[1], H = d.shape[2], W = d.shape[3];
  int64_t O = w.shape[0], CG = w.shape[1], KH = w.shape[2], KW = w.shape[3];
  int64_t OH = os[2], OW = os[3], OG = O / groups;
  Buf r{os, std::vector<float>(numel(os))};
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o) {
      int64_t g = o / OG;
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x) {
          double acc = 0;
          for (int64_t c = 0; c < CG; ++c)
            for (int64_t ky = 0; ky < KH; ++ky) {
              int64_t iy = y * st[0] - pad[0] + ky * dil[0];
              if (iy < 0 || iy >= H) continue;
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t ix = x * st[1] - pad[1] + kx * dil[1];
                if (ix < 0 || ix >= W) continue;
                acc += static_cast<double>(d.v[((n * C + g * CG + c) * H + iy) * W + ix]) *
                       w.v[((o * CG + c) * KH + ky) * KW + kx];
              }
            }
          r.v[((n * O + o) * OH + y) * OW + x] = static_cast<float>(acc);
        }
    }
  return r;
}

// Winograd F(m, r) by its definition, in double: per output tile Y = A^T [sum_ci U(ci, co) .*
// (B^T d B)] A, with d the alpha x alpha input patch (zero outside the data) and U the transformed
// kernel (alpha, alpha, CI / groups, CO): output channel co reads its group's input channels.
Buf winograd_conv2d(const Buf& d, const Buf& u, const Json& at, const Shape& os) {
  const int64_t m = at.at("tile_size").get<int64_t>(), alpha = u.shape[0], r = alpha - m + 1;
  auto pad = ints(at.at("padding"));
  const topi::nn::WinogradMatrices wm =
      topi::nn::winograd_transform_matrices(static_cast<int>(m), static_cast<int>(r));
  const int64_t N = d.shape[0], C = d.shape[1], H = d.shape[2], W = d.shape[3], O = u.shape[3];
  const int64_t G = at.contains("groups") ? at.at("groups").get<int64_t>() : 1, CG = C / G;
  const int64_t OH = os[2], OW = os[3];
  Buf res{os, std::vector<float>(numel(os))};
  std::vector<double> v(static_cast<size_t>(C * alpha * alpha)), acc(alpha * alpha),
      t(alpha * alpha);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ty = 0; ty * m < OH; ++ty)
      for (int64_t tx = 0; tx * m < OW; ++tx) {
        for (int64_t c = 0; c < C; ++c) {  // V = B^T d B
          auto px = [&](int64_t a, int64_t b) {
            int64_t iy = ty * m - pad[0] + a, ix = tx * m - pad[1] + b;
            return iy < 0 || iy >= H || ix < 0 || ix >= W
                       ? 0.0
                       : static_cast<double>(d.v[((n * C + c) * H + iy) * W + ix]);
          };
          for (int64_t e = 0; e < alpha; ++e)
            for (int64_t b = 0; b < alpha; ++b) {
              double x = 0;
              for (int64_t a = 0; a < alpha; ++a) x += wm.B[a][e] * px(a, b);
              t[e * alpha + b] = x;
            }
          for (int64_t e = 0; e < alpha; ++e)
            for (int64_t f = 0; f < alpha; ++f) {
              double x = 0;
              for (int64_t b = 0; b < alpha; ++b) x += t[e * alpha + b] * wm.B[b][f];
              v[(c * alpha + e) * alpha + f] = x;
            }
        }
        for (int64_t o = 0; o < O; ++o) {
          const int64_t c0 = o / (O / G) * CG;  // the group's first input channel
          for (int64_t k = 0; k < alpha * alpha; ++k) {
            double x = 0;
            for (int64_t c = 0; c < CG; ++c)
              x += u.v[(k * CG + c) * O + o] * v[(c0 + c) * alpha * alpha + k];
            acc[k] = x;
          }
          for (int64_t i = 0; i < m; ++i)  // Y = A^T M A
            for (int64_t j = 0; j < m; ++j) {
              int64_t y = ty * m + i, x = tx * m + j;
              if (y >= OH || x >= OW) continue;
              double sum = 0;
              for (int64_t a = 0; a < alpha; ++a)
                for (int64_t b = 0; b < alpha; ++b)
                  sum += wm.A[a][i] * acc[a * alpha + b] * wm.A[b][j];
              res.v[((n * O + o) * OH + y) * OW + x] = static_cast<float>(sum);
            }
        }
      }
  return res;
}

// U = G k G^T for every (co, ci): (CO, CI, r, r) -> (alpha, alpha, CO, CI).
Buf winograd_weight_transform(const Buf& k, int64_t m) {
  const int64_t CO = k.shape[0], CI = k.shape[1], r = k.shape[2], alpha = m + r - 1;
  const topi::nn::WinogradMatrices wm =
      topi::nn::winograd_transform_matrices(static_cast<int>(m), static_cast<int>(r));
  Buf u{{alpha, alpha, CO, CI}, std::vector<float>(static_cast<size_t>(alpha * alpha * CO * CI))};
  for (int64_t e = 0; e < alpha; ++e)
    for (int64_t f = 0; f < alpha; ++f)
      for (int64_t o = 0; o < CO; ++o)
        for (int64_t c = 0; c < CI; ++c) {
          double x = 0;
          for (int64_t a = 0; a < r; ++a)
            for (int64_t b = 0; b < r; ++b)
              x += wm.G[e][a] * k.v[((o * CI + c) * r + a) * r + b] * wm.G[f][b];
          u.v[((e * alpha + f) * CO + o) * CI + c] = static_cast<float>(x);
        }
  return u;
}

Buf pool(const Buf& d, const Json& at, const Shape& os, bool is_max) {
  auto k = ints(at.at("pool_size")), st = ints(at.at("strides")), pad = ints(at.at("padding"));
  bool include_pad = !is_max && at.at("count_include_pad").get<bool>();
  int64_t NC = d.shape[0] * d.shape[1], H = d.shape[2], W = d.shape[3], OH = os[2], OW = os[3];
  Buf r{os, std::vector<float>(numel(os))};
  for (int64_t p = 0; p < NC; ++p)
    for (int64_t y = 0; y < OH; ++y)
      for (int64_t x = 0; x < OW; ++x) {
        int64_t h0 = y * st[0] - pad[0], w0 = x * st[1] - pad[1];
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t iy = std::max<int64_t>(h0, 0); iy < std::min(h0 + k[0], H); ++iy)
          for (int64_t ix = std::max<int64_t>(w0, 0); ix < std::min(w0 + k[1], W); ++ix) {
            double v = d.v[(p * H + iy) * W + ix];
            acc = is_max ? std::max(acc, v) : acc + v;
          }
        if (!is_max) {
          // TVM topi pool: count_include_pad divides by the full window; otherwise by the window
          // clipped to the input (at least 1).
          int64_t div = include_pad ? k[0] * k[1]
                                    : std::max<int64_t>(
                                          (std::min(h0 + k[0], H) - std::max<int64_t>(h0, 0)) *
                                              (std::min(w0 + k[1], W) - std::max<int64_t>(w0, 0)),
                                          1);
          acc /= static_cast<double>(div);
        }
        r.v[(p * OH + y) * OW + x] = static_cast<float>(acc);
      }
  return r;
}

// Gather: out[i] = in[map(out index)] for injective ops.
template <typename F>
Buf gather(const Buf& in, const Shape& os, F src) {
  Buf r{os, std::vector<float>(numel(os))};
  Shape idx;
  Shape ist = strides_of(in.shape);
  for (int64_t i = 0; i < r.size(); ++i) {
    unravel(i, os, idx);
    int64_t s = src(idx, ist);
    r.v[i] = s < 0 ? 0.0f : in.v[s];
  }
  return r;
}

// image.resize2d the way ONNX's reference implementation resizes one axis: the input coordinate
// of output index x, the n taps nearest to it in the edge-padded axis, and their weights.
std::vector<std::pair<int64_t, double>> resize_weights(const Json& at, int64_t x, int64_t in,
                                                       int64_t out, double scale) {
  const std::string mode = at.at("coordinate_transformation_mode").get<std::string>();
  const std::string method = at.at("method").get<std::string>();
  const double s = scale > 0 ? scale : double(out) / double(in), xr = double(x);
  double xo;
  if (mode == "half_pixel") {
    xo = (xr + 0.5) / s - 0.5;
  } else if (mode == "pytorch_half_pixel") {
    xo = out > 1 ? (xr + 0.5) / s - 0.5 : 0.0;
  } else if (mode == "align_corners") {
    double len_resized = scale > 0 ? double(in) * scale : double(out);
    xo = out > 1 ? xr * double(in - 1) / (len_resized - 1.0) : 0.0;
  } else if (mode == "asymmetric") {
    xo = xr / s;
  } else if (mode == "tf_half_pixel_for_nn") {
    xo = (xr + 0.5) / s;
  } else {  // half_pixel_symmetric
    double adj = double(out) / (s * double(in));
    xo = double(in) / 2.0 * (1.0 - adj) + ((xr + 0.5) / s - 0.5);
  }
  auto clampi = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), in - 1); };
  std::string rnd = at.at("rounding_method").get<std::string>();
  if (method == "nearest_neighbor" && rnd == "simple") {  // ONNX Runtime's opset-10 rule
    int64_t i = static_cast<int64_t>(s < 1.0 ? std::ceil(xo) : std::floor(xo));
    return {{clampi(i), 1.0}};
  }
  double fl = std::floor(xo);
  double ratio = xo == fl ? 1.0 : xo - fl;
  std::vector<double> c;
  if (method == "nearest_neighbor") {
    bool second = ratio == 1.0                  ? true
                  : rnd == "round_prefer_floor" ? ratio > 0.5
                  : rnd == "round_prefer_ceil"  ? ratio >= 0.5
                                                : rnd == "ceil";
    c = {second ? 0.0 : 1.0, second ? 1.0 : 0.0};
  } else if (method == "linear") {
    c = {1 - ratio, ratio};
  } else {
    double A = at.at("cubic_alpha").get<double>(), r = ratio;
    c = {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
         ((A + 2) * r - (A + 3)) * r * r + 1, ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
         ((A * (2 - r) - 5 * A) * (2 - r) + 8 * A) * (2 - r) - 4 * A};
  }
  // The n indices of the padded axis nearest to the padded coordinate (ties: the lower index),
  // in increasing order; back in input indices they may lie outside [0, in).
  const int64_t n = static_cast<int64_t>(c.size()), pad = (n + 1) / 2, plen = in + 2 * pad;
  const double xp = xo + double(pad);
  std::vector<int64_t> cand(plen);
  for (int64_t i = 0; i < plen; ++i) cand[i] = i;
  std::stable_sort(cand.begin(), cand.end(), [&](int64_t a, int64_t b) {
    double da = std::fabs(xp - double(a)), db = std::fabs(xp - double(b));
    return da < db || (da == db && a < b);
  });
  cand.resize(std::min<int64_t>(n, plen));
  std::sort(cand.begin(), cand.end());
  std::vector<std::pair<int64_t, double>> w;
  double sum = 0;
  bool exclude = method == "cubic" && at.at("cubic_exclude").get<bool>();
  for (int64_t k = 0; k < static_cast<int64_t>(cand.size()); ++k) {
    int64_t i = cand[k] - pad;
    double wk = c[k];
    if (exclude && (i < 0 || i >= in)) wk = 0;
    sum += wk;
    w.push_back({clampi(i), wk});
  }
  if (exclude)
    for (auto& p : w) p.second /= sum;
  return w;
}

Buf resize2d(const Buf& d, const Json& at, const Shape& os) {
  const Shape& is = d.shape;
  const Json& sc = at.at("scale");
  Buf r{os, std::vector<float>(numel(os))};
  std::vector<std::vector<std::pair<int64_t, double>>> wy(os[2]), wx(os[3]);
  for (int64_t y = 0; y < os[2]; ++y)
    wy[y] = resize_weights(at, y, is[2], os[2], sc[0].get<double>());
  for (int64_t x = 0; x < os[3]; ++x)
    wx[x] = resize_weights(at, x, is[3], os[3], sc[1].get<double>());
  for (int64_t p = 0; p < os[0] * os[1]; ++p)
    for (int64_t y = 0; y < os[2]; ++y)
      for (int64_t x = 0; x < os[3]; ++x) {
        double acc = 0;
        for (auto [iy, fy] : wy[y])
          for (auto [ix, fx] : wx[x]) acc += fy * fx * d.v[(p * is[2] + iy) * is[3] + ix];
        r.v[(p * os[2] + y) * os[3] + x] = static_cast<float>(acc);
      }
  return r;
}

// The NCHW form of a blocked pool call (arguments and types unblocked, layout NCHW).
ExprNode c_nchw(const ExprNode& c) {
  ExprNode r = c;
  auto unblock = [](const Shape& s) { return Shape{s[0], s[1] * s[4], s[2], s[3]}; };
  auto arg = std::make_shared<ExprNode>(*c.args[0]);
  arg->types = {TensorType{unblock(c.args[0]->types[0].shape), c.args[0]->types[0].dtype}};
  r.args = {arg};
  r.types = {TensorType{unblock(c.types[0].shape), c.types[0].dtype}};
  r.attrs["layout"] = "NCHW";
  return r;
}

// `in` (layout src) in layout dst.
Buf relayout(const Buf& in, const std::string& src_name, const std::string& dst_name) {
  detail::Layout src = detail::Layout::parse(src_name), dst = detail::Layout::parse(dst_name);
  Shape os = dst.shape_of(src.full_extents(in.shape), "layout_transform");
  return gather(in, os, [&](const Shape& idx, const Shape& ist) {
    Shape si = detail::layout_source_index<int64_t>(
        src, dst, idx, [](int64_t f) { return f; }, [](int64_t x, int64_t y) { return x / y; },
        [](int64_t x, int64_t y) { return x % y; });
    int64_t off = 0;
    for (size_t i = 0; i < si.size(); ++i) off += si[i] * ist[i];
    return off;
  });
}

std::string layout_of(const Json& at, const char* key) {
  return at.at(key).get<std::string>();
}

}  // namespace

std::vector<NDArray> reference_eval(const ExprNode& c, const std::vector<NDArray>& args) {
  MINITVM_USER_CHECK(c.kind == ExprKind::Call) << "reference_eval: not a call";
  const std::string& op = c.name;
  const Json& at = c.attrs;
  std::vector<Buf> a;
  for (auto& x : args) a.push_back(buf(x, op));
  MINITVM_USER_CHECK(a.size() == c.args.size()) << "reference_eval: " << op << " got " << a.size()
                                                << " values for " << c.args.size() << " arguments";
  for (size_t i = 0; i < a.size(); ++i)
    MINITVM_USER_CHECK(c.args[i]->tuple_typed || a[i].shape == c.args[i]->types[0].shape)
        << "reference_eval: " << op << ": argument " << i << " has the wrong shape";
  const Shape os = c.types[0].shape;
  auto unary = [&](auto f) {
    Buf r = a[0];
    for (auto& v : r.v) v = f(v);
    return std::vector<NDArray>{out(r)};
  };
  if (op == "nn.conv2d") return {out(conv2d(a[0], a[1], at, os))};
  if (op == "nn.relu") return unary([](float v) { return v > 0 ? v : 0.0f; });
  if (op == "sigmoid")
    return unary([](float v) { return static_cast<float>(1.0 / (1.0 + std::exp(-double(v)))); });
  if (op == "sqrt") return unary([](float v) { return static_cast<float>(std::sqrt(double(v))); });
  if (op == "negative") return unary([](float v) { return -v; });
  if (op == "tanh") return unary([](float v) { return static_cast<float>(std::tanh(double(v))); });
  if (op == "exp") return unary([](float v) { return static_cast<float>(std::exp(double(v))); });
  if (op == "log") return unary([](float v) { return static_cast<float>(std::log(double(v))); });
  if (op == "erf") return unary([](float v) { return static_cast<float>(std::erf(double(v))); });
  if (op == "abs") return unary([](float v) { return std::fabs(v); });
  if (op == "floor") return unary([](float v) { return std::floor(v); });
  if (op == "ceil") return unary([](float v) { return std::ceil(v); });
  if (op == "nn.leaky_relu") {
    float alpha = at.at("alpha").get<float>();
    return unary([=](float v) { return v > 0 ? v : alpha * v; });
  }
  if (op == "maximum")
    return {out(binary(a[0], a[1], os, [](float x, float y) { return std::max(x, y); }))};
  if (op == "minimum")
    return {out(binary(a[0], a[1], os, [](float x, float y) { return std::min(x, y); }))};
  if (op == "power")
    return {out(binary(a[0], a[1], os, [](float x, float y) {
      return static_cast<float>(std::pow(double(x), double(y)));
    }))};
  if (op == "clip") {
    float lo = at.at("a_min").get<float>(), hi = at.at("a_max").get<float>();
    return unary([=](float v) { return std::min(std::max(v, lo), hi); });
  }
  if (op == "add") return {out(binary(a[0], a[1], os, [](float x, float y) { return x + y; }))};
  if (op == "subtract")
    return {out(binary(a[0], a[1], os, [](float x, float y) { return x - y; }))};
  if (op == "multiply")
    return {out(binary(a[0], a[1], os, [](float x, float y) { return x * y; }))};
  if (op == "divide") return {out(binary(a[0], a[1], os, [](float x, float y) { return x / y; }))};
  if (op == "nn.bias_add") {
    int64_t ax = at.at("axis").get<int64_t>();
    Shape bs(os.size(), 1);
    bs[ax] = os[ax];
    Buf b{bs, a[1].v};
    return {out(binary(a[0], b, os, [](float x, float y) { return x + y; }))};
  }
  if (op == "nn.batch_norm") {
    int64_t ax = at.at("axis").get<int64_t>();
    double eps = at.at("epsilon").get<double>();
    bool center = at.at("center").get<bool>(), scale = at.at("scale").get<bool>();
    Buf r = a[0];
    Shape idx;
    for (int64_t i = 0; i < r.size(); ++i) {
      unravel(i, os, idx);
      int64_t ch = idx[ax];
      double v = (a[0].v[i] - double(a[3].v[ch])) / std::sqrt(double(a[4].v[ch]) + eps);
      if (scale) v *= a[1].v[ch];
      if (center) v += a[2].v[ch];
      r.v[i] = static_cast<float>(v);
    }
    return {out(r), out(a[3]), out(a[4])};
  }
  if (op == "nn.dropout") {
    Buf ones{a[0].shape, std::vector<float>(a[0].v.size(), 1.0f)};
    return {out(a[0]), out(ones)};
  }
  if (op == "layout_transform")
    return {out(relayout(a[0], layout_of(at, "src_layout"), layout_of(at, "dst_layout")))};
  if (op == "nn.contrib_conv2d_winograd_weight_transform")
    return {out(winograd_weight_transform(a[0], at.at("tile_size").get<int64_t>()))};
  if (op == "nn.contrib_conv2d_winograd_without_weight_transform")
    return {out(winograd_conv2d(a[0], a[1], at, os))};
  if (op == "nn.contrib_conv2d_winograd_NCHWc_weight_transform") {
    // The NCHW op's (alpha, alpha, CO, CI), blocked.
    Buf u = winograd_weight_transform(a[0], at.at("tile_size").get<int64_t>());
    const int64_t ib = os[4], ob = os[5], A2 = os[0] * os[1], CO = u.shape[2], CI = u.shape[3];
    Buf r{os, std::vector<float>(u.v.size())};
    for (int64_t k = 0; k < A2; ++k)
      for (int64_t o = 0; o < CO; ++o)
        for (int64_t c = 0; c < CI; ++c)
          r.v[((((k * (CO / ob) + o / ob) * (CI / ib) + c / ib) * ib + c % ib) * ob) + o % ob] =
              u.v[(k * CO + o) * CI + c];
    return {out(r)};
  }
  if (op == "nn.contrib_conv2d_winograd_NCHWc") {
    // The NCHW Winograd convolution between layout transforms; the weight unblocked to
    // (alpha, alpha, CI, CO).
    const Shape& us = a[1].shape;  // alpha, alpha, O/ob, I/ib, ib, ob
    const int64_t A2 = us[0] * us[1], ib = us[4], ob = us[5], CO = us[2] * ob, CI = us[3] * ib;
    Buf u{{us[0], us[1], CI, CO}, std::vector<float>(a[1].v.size())};
    for (int64_t k = 0; k < A2; ++k)
      for (int64_t c = 0; c < CI; ++c)
        for (int64_t o = 0; o < CO; ++o)
          u.v[(k * CI + c) * CO + o] =
              a[1].v[((((k * us[2] + o / ob) * us[3] + c / ib) * ib + c % ib) * ob) + o % ob];
    Buf d = relayout(a[0], layout_of(at, "data_layout"), "NCHW");
    Shape nchw_os{os[0], os[1] * os[4], os[2], os[3]};
    return {out(relayout(winograd_conv2d(d, u, at, nchw_os), "NCHW", layout_of(at, "out_layout")))};
  }
  if (op == "nn.contrib_conv2d_NCHWc" || op == "nn.contrib_depthwise_conv2d_NCHWc") {
    // The blocked convolution is the NCHW one between layout transforms.
    Buf d = relayout(a[0], layout_of(at, "data_layout"), "NCHW");
    Buf w = relayout(a[1], layout_of(at, "kernel_layout"), "OIHW");
    std::string ol = layout_of(at, "out_layout");
    Shape nchw_os{os[0], os[1] * os[4], os[2], os[3]};
    return {out(relayout(conv2d(d, w, at, nchw_os), "NCHW", ol))};
  }
  if ((op == "nn.max_pool2d" || op == "nn.avg_pool2d" || op == "nn.global_avg_pool2d") &&
      a[0].shape.size() == 5) {
    // A blocked pool is the NCHW one between layout transforms.
    std::string l = layout_of(at, "layout");
    ExprNode plain = c_nchw(c);
    return {out(relayout(buf(reference_eval(plain, {out(relayout(a[0], l, "NCHW"))}).at(0), op),
                         "NCHW", l))};
  }
  if (op == "nn.max_pool2d") return {out(pool(a[0], at, os, true))};
  if (op == "nn.avg_pool2d") return {out(pool(a[0], at, os, false))};
  if (op == "nn.global_avg_pool2d") {
    int64_t NC = os[0] * os[1], HW = a[0].shape[2] * a[0].shape[3];
    Buf r{os, std::vector<float>(NC)};
    for (int64_t p = 0; p < NC; ++p) {
      double s = 0;
      for (int64_t i = 0; i < HW; ++i) s += a[0].v[p * HW + i];
      r.v[p] = static_cast<float>(s / static_cast<double>(HW));
    }
    return {out(r)};
  }
  if (op == "nn.dense") {
    int64_t B = os[0], N = os[1], K = a[0].shape[1];
    Buf r{os, std::vector<float>(B * N)};
    for (int64_t b = 0; b < B; ++b)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += double(a[0].v[b * K + k]) * a[1].v[n * K + k];
        r.v[b * N + n] = static_cast<float>(s);
      }
    return {out(r)};
  }
  if (op == "nn.contrib_dense_pack") {
    const int64_t B = os[0], N = os[1], K = a[0].shape[1], b = a[1].shape[2];
    Buf r{os, std::vector<float>(B * N)};
    for (int64_t i = 0; i < B; ++i)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k)
          s += double(a[0].v[i * K + k]) * a[1].v[((n / b) * K + k) * b + n % b];
        r.v[i * N + n] = static_cast<float>(s);
      }
    return {out(r)};
  }
  if (op == "nn.batch_matmul") {
    const int64_t B = os[0], M = os[1], N = os[2], K = a[0].shape[2];
    const int64_t bx = a[0].shape[0] == 1 ? 0 : 1, by = a[1].shape[0] == 1 ? 0 : 1;
    Buf r{os, std::vector<float>(B * M * N)};
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k)
            s += double(a[0].v[(b * bx * M + i) * K + k]) * a[1].v[(b * by * N + j) * K + k];
          r.v[(b * M + i) * N + j] = static_cast<float>(s);
        }
    return {out(r)};
  }
  if (op == "nn.softmax") {
    int64_t ax = at.at("axis").get<int64_t>();
    int64_t outer = 1, len = os[ax], inner = 1;
    for (int64_t i = 0; i < ax; ++i) outer *= os[i];
    for (size_t i = ax + 1; i < os.size(); ++i) inner *= os[i];
    Buf r = a[0];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        auto at_ = [&](int64_t k) -> float& { return r.v[(o * len + k) * inner + in]; };
        double m = -std::numeric_limits<double>::infinity(), s = 0;
        for (int64_t k = 0; k < len; ++k) m = std::max(m, double(at_(k)));
        for (int64_t k = 0; k < len; ++k) s += std::exp(double(at_(k)) - m);
        for (int64_t k = 0; k < len; ++k)
          at_(k) = static_cast<float>(std::exp(double(at_(k)) - m) / s);
      }
    return {out(r)};
  }
  if (op == "nn.lrn") {
    int64_t ax = at.at("axis").get<int64_t>(), size = at.at("size").get<int64_t>();
    double bias = at.at("bias").get<double>(), alpha = at.at("alpha").get<double>(),
           beta = at.at("beta").get<double>();
    int64_t outer = 1, len = os[ax], inner = 1;
    for (int64_t i = 0; i < ax; ++i) outer *= os[i];
    for (size_t i = ax + 1; i < os.size(); ++i) inner *= os[i];
    int64_t lo = (size - 1) / 2,
            hi = size - 1 - lo;  // ONNX: [c - floor((size-1)/2), c + ceil((size-1)/2)]
    Buf r{os, std::vector<float>(a[0].v.size())};
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < len; ++c)
        for (int64_t in = 0; in < inner; ++in) {
          double s = 0;
          for (int64_t j = std::max<int64_t>(0, c - lo); j <= std::min(len - 1, c + hi); ++j) {
            double v = a[0].v[(o * len + j) * inner + in];
            s += v * v;
          }
          int64_t k = (o * len + c) * inner + in;
          r.v[k] = static_cast<float>(a[0].v[k] / std::pow(bias + alpha / double(size) * s, beta));
        }
    return {out(r)};
  }
  if (op == "nn.batch_flatten" || op == "reshape" || op == "squeeze" || op == "expand_dims")
    return {out(Buf{os, a[0].v})};
  if (op == "image.resize2d") return {out(resize2d(a[0], at, os))};
  if (op == "tile") {
    return {out(gather(a[0], os, [&](const Shape& idx, const Shape& ist) {
      int64_t s = 0;
      for (size_t i = 0; i < idx.size(); ++i) s += (idx[i] % a[0].shape[i]) * ist[i];
      return s;
    }))};
  }
  if (op == "nn.pad" && at.value("pad_mode", std::string("constant")) != "constant") {
    const Json& pw = at.at("pad_width");
    const bool edge = at.at("pad_mode") == "edge";
    return {out(gather(a[0], os, [&](const Shape& idx, const Shape& ist) {
      int64_t s = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        int64_t n = a[0].shape[i], j = idx[i] - pw[i][0].get<int64_t>();
        if (edge) {
          j = std::min(std::max<int64_t>(j, 0), n - 1);
        } else {  // reflect, one bounce (each pad is less than the extent)
          if (j < 0) j = -j;
          if (j > n - 1) j = 2 * (n - 1) - j;
        }
        s += j * ist[i];
      }
      return s;
    }))};
  }
  if (op == "nn.pad") {
    const Json& pw = at.at("pad_width");
    float pv = at.at("pad_value").get<float>();
    Buf r = gather(a[0], os, [&](const Shape& idx, const Shape& ist) -> int64_t {
      int64_t s = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        int64_t j = idx[i] - pw[i][0].get<int64_t>();
        if (j < 0 || j >= a[0].shape[i]) return -1;
        s += j * ist[i];
      }
      return s;
    });
    // Positions outside the input get the pad value.
    Shape idx;
    for (int64_t i = 0; i < r.size(); ++i) {
      unravel(i, os, idx);
      for (size_t d = 0; d < idx.size(); ++d) {
        int64_t j = idx[d] - pw[d][0].get<int64_t>();
        if (j < 0 || j >= a[0].shape[d]) {
          r.v[i] = pv;
          break;
        }
      }
    }
    return {out(r)};
  }
  if (op == "reverse") {
    size_t ax = static_cast<size_t>(at.at("axis").get<int64_t>());
    return {out(gather(a[0], os, [&](const Shape& idx, const Shape& ist) {
      int64_t s = 0;
      for (size_t i = 0; i < idx.size(); ++i) s += (i == ax ? os[i] - 1 - idx[i] : idx[i]) * ist[i];
      return s;
    }))};
  }
  if (op == "nn.dilate") {
    auto st = ints(at.at("strides"));
    Buf r{os, std::vector<float>(numel(os), at.at("dilation_value").get<float>())};
    Shape idx;
    for (int64_t i = 0; i < a[0].size(); ++i) {
      unravel(i, a[0].shape, idx);
      int64_t o = 0;
      for (size_t d = 0; d < idx.size(); ++d) o = o * os[d] + idx[d] * st[d];
      r.v[o] = a[0].v[i];
    }
    return {out(r)};
  }
  if (op == "strided_slice") {
    Shape b = ints(at.at("begin")), st = ints(at.at("strides"));
    return {out(gather(a[0], os, [&](const Shape& idx, const Shape& ist) {
      int64_t s = 0;
      for (size_t i = 0; i < idx.size(); ++i) s += (b[i] + idx[i] * st[i]) * ist[i];
      return s;
    }))};
  }
  if (op == "transpose") {
    auto axes = ints(at.at("axes"));
    return {out(gather(a[0], os, [&](const Shape& idx, const Shape& ist) {
      int64_t s = 0;
      for (size_t i = 0; i < idx.size(); ++i) s += idx[i] * ist[axes[i]];
      return s;
    }))};
  }
  if (op == "concatenate") {
    int64_t ax = at.at("axis").get<int64_t>();
    Buf r{os, std::vector<float>(numel(os))};
    Shape idx;
    for (int64_t i = 0; i < r.size(); ++i) {
      unravel(i, os, idx);
      int64_t k = idx[ax];
      size_t which = 0;
      while (k >= a[which].shape[ax]) k -= a[which++].shape[ax];
      Shape j = idx;
      j[ax] = k;
      int64_t s = 0;
      for (size_t d = 0; d < j.size(); ++d) s = s * a[which].shape[d] + j[d];
      r.v[i] = a[which].v[s];
    }
    return {out(r)};
  }
  if (op == "split") {
    int64_t ax = at.at("axis").get<int64_t>(), begin = 0;
    std::vector<NDArray> res;
    for (auto& t : c.types) {
      res.push_back(out(gather(a[0], t.shape, [&](const Shape& idx, const Shape& ist) {
        int64_t s = 0;
        for (size_t i = 0; i < idx.size(); ++i)
          s += (idx[i] + (static_cast<int64_t>(i) == ax ? begin : 0)) * ist[i];
        return s;
      })));
      begin += t.shape[ax];
    }
    return res;
  }
  if (op == "mean" || op == "sum" || op == "max" || op == "min" || op == "prod") {
    const Shape& is = a[0].shape;
    std::vector<bool> red(is.size(), at.at("axis").is_null());
    for (int64_t v : ints(at.at("axis"))) red[v] = true;
    if (at.at("exclude").get<bool>())
      for (size_t i = 0; i < red.size(); ++i) red[i] = !red[i];
    const double init = op == "max"    ? -std::numeric_limits<double>::infinity()
                        : op == "min"  ? std::numeric_limits<double>::infinity()
                        : op == "prod" ? 1.0
                                       : 0.0;
    std::vector<double> acc(numel(os), init);
    int64_t count = 1;
    for (size_t i = 0; i < is.size(); ++i)
      if (red[i]) count *= is[i];
    Shape idx;
    for (int64_t i = 0; i < a[0].size(); ++i) {
      unravel(i, is, idx);
      int64_t o = 0;
      for (size_t d = 0; d < is.size(); ++d) {
        if (!red[d]) o = o * is[d] + idx[d];
      }
      const double v = a[0].v[i];
      acc[o] = op == "max"    ? std::max(acc[o], v)
               : op == "min"  ? std::min(acc[o], v)
               : op == "prod" ? acc[o] * v
                              : acc[o] + v;
    }
    Buf r{os, std::vector<float>(acc.size())};
    const double div = op == "mean" ? static_cast<double>(count) : 1.0;
    for (size_t i = 0; i < acc.size(); ++i) r.v[i] = static_cast<float>(acc[i] / div);
    return {out(r)};
  }
  MINITVM_USER_ERROR << "reference executor: no implementation of " << op;
  return {};
}

std::vector<NDArray> reference_run(const Function& f, const Params& inputs, const Params& params) {
  std::unordered_map<const ExprNode*, std::vector<NDArray>> val;
  for (auto& p : f.params) {
    const NDArray* pv = nullptr;
    if (auto it = inputs.find(p->name); it != inputs.end())
      pv = &it->second;
    else if (auto jt = params.find(p->name); jt != params.end())
      pv = &jt->second;
    MINITVM_USER_CHECK(pv != nullptr) << "reference_run: no value for input %" << p->name;
    const NDArray& v = *pv;
    MINITVM_USER_CHECK(v.shape() == p->types[0].shape && v.dtype() == p->types[0].dtype)
        << "reference_run: input %" << p->name << " must be " << p->types[0].str() << ", got "
        << TensorType{v.shape(), v.dtype()}.str();
    val[p.get()] = {v};
  }
  for (const Expr& e : post_order(f.body)) {
    if (val.count(e.get())) continue;
    switch (e->kind) {
      case ExprKind::Var:
        MINITVM_USER_ERROR << "reference_run: %" << e->name << " is not a function parameter";
        break;
      case ExprKind::Constant:
        val[e.get()] = {e->data};
        break;
      case ExprKind::Tuple: {
        std::vector<NDArray> fs;
        for (auto& a : e->args) fs.push_back(val.at(a.get()).at(0));
        val[e.get()] = fs;
        break;
      }
      case ExprKind::TupleGetItem:
        val[e.get()] = {val.at(e->args[0].get()).at(e->index)};
        break;
      case ExprKind::Call: {
        std::vector<NDArray> as;
        for (auto& a : e->args) as.push_back(val.at(a.get()).at(0));
        val[e.get()] = reference_eval(*e, as);
        break;
      }
    }
  }
  return val.at(f.body.get());
}

}  // namespace minitvm::relay
