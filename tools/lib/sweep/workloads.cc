// Decoding tuning-log workloads (formats 0.1 and 0.2) into layer arguments for the TopHub sweep.
#include <set>
#include <sstream>

#include "minitvm/devtools/sweep.h"

namespace minitvm::topi::sweep {

namespace {

using autotune::Json;

struct TensorArg {
  std::vector<int64_t> shape;
  std::string dtype;
};

// ["TENSOR", [shape...], "dtype"]
std::optional<TensorArg> tensor_arg(const Json& j) {
  if (!j.is_array() || j.size() != 3 || !j[0].is_string() || j[0].get<std::string>() != "TENSOR")
    return std::nullopt;
  if (!j[1].is_array() || !j[2].is_string()) return std::nullopt;
  TensorArg t;
  for (const auto& v : j[1]) {
    if (!v.is_number_integer()) return std::nullopt;
    t.shape.push_back(v.get<int64_t>());
  }
  t.dtype = j[2].get<std::string>();
  return t;
}

std::optional<std::vector<int64_t>> int_list(const Json& j) {
  std::vector<int64_t> r;
  if (j.is_number_integer()) return std::vector<int64_t>{j.get<int64_t>()};
  if (!j.is_array()) return std::nullopt;
  for (const auto& v : j) {
    if (!v.is_number_integer()) return std::nullopt;
    r.push_back(v.get<int64_t>());
  }
  return r;
}

std::string join(const std::vector<int64_t>& v, const char* sep) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

bool is_conv_task(const std::string& t) {
  return t == "topi_nn_conv2d" || t == "conv2d_nchw.cuda" || t == "conv2d_nchw_winograd.cuda";
}
bool is_depthwise_task(const std::string& t) {
  return t == "topi_nn_depthwise_conv2d_nchw" || t == "depthwise_conv2d_nchw.cuda";
}
bool is_dense_task(const std::string& t) {
  return t == "topi_nn_dense" || t == "dense_small_batch.cuda" || t == "dense_large_batch.cuda" ||
         t == "dense.cuda";
}

}  // namespace

std::string SweepWorkload::describe() const {
  std::ostringstream os;
  if (op == OpKind::Dense) {
    os << "dense " << batch << "x" << in_dim << " -> " << out_dim << (bias ? " +bias" : "");
    return os.str();
  }
  os << (op == OpKind::Depthwise ? "depthwise_conv2d " : "conv2d ") << join(data_shape, "x") << " k"
     << join(kernel_shape, "x") << " s" << join(attrs.stride, ",") << " p"
     << join(attrs.padding, ",") << " d" << join(attrs.dilation, ",");
  return os.str();
}

int64_t SweepWorkload::macs(int64_t b) const {
  if (op == OpKind::Dense) return (b ? b : batch) * in_dim * out_dim;
  auto p = nn::get_pad_tuple(attrs.padding);
  int64_t sh = attrs.stride[0], sw = attrs.stride.size() > 1 ? attrs.stride[1] : sh;
  int64_t dh = attrs.dilation[0], dw = attrs.dilation.size() > 1 ? attrs.dilation[1] : dh;
  int64_t oh = nn::conv_out_size(data_shape[2], kernel_shape[2], sh, p[0], p[2], dh);
  int64_t ow = nn::conv_out_size(data_shape[3], kernel_shape[3], sw, p[1], p[3], dw);
  int64_t n = b ? b : data_shape[0];
  if (op == OpKind::Depthwise)
    return n * kernel_shape[0] * kernel_shape[1] * oh * ow * kernel_shape[2] * kernel_shape[3];
  return n * kernel_shape[0] * kernel_shape[1] * oh * ow * kernel_shape[2] * kernel_shape[3];
}

std::optional<SweepWorkload> decode_workload(const autotune::Record& r, std::string* why) {
  const std::string& task = r.input.task_name;
  const Json& a = r.input.args;
  auto fail = [&](const std::string& m) -> std::optional<SweepWorkload> {
    if (why) *why = m;
    return std::nullopt;
  };
  SweepWorkload w;
  w.task_name = task;
  w.workload = r.input.workload;
  w.source = r.source + ":" + std::to_string(r.line);
  if (is_conv_task(task) || is_depthwise_task(task)) {
    // 0.1 conv2d: data, kernel, strides, padding, dilation, layout, out_dtype;
    // 0.1 depthwise and 0.2 tasks: data, kernel, strides, padding, dilation, out_dtype.
    bool has_layout = task == "topi_nn_conv2d";
    if (!a.is_array() || a.size() != (has_layout ? 7u : 6u))
      return fail("unexpected argument list");
    auto d = tensor_arg(a[0]), k = tensor_arg(a[1]);
    auto s = int_list(a[2]), p = int_list(a[3]), dil = int_list(a[4]);
    if (!d || !k || !s || !p || !dil) return fail("unexpected argument list");
    if (has_layout && (!a[5].is_string() || a[5].get<std::string>() != "NCHW"))
      return fail("layout " + a[5].dump() + " not supported (NCHW only)");
    const Json& od = a[has_layout ? 6 : 5];
    std::string out_dtype = od.is_string() ? od.get<std::string>() : "";
    if (d->dtype != "float32" || k->dtype != "float32" || out_dtype != "float32")
      return fail("dtype " + d->dtype + "/" + out_dtype + " not supported (float32 only)");
    if (d->shape.size() != 4 || k->shape.size() != 4) return fail("not a 4-d NCHW workload");
    if (p->size() != 1 && p->size() != 2 && p->size() != 4) return fail("unexpected padding");
    w.op = is_conv_task(task) ? OpKind::Conv2d : OpKind::Depthwise;
    w.data_shape = d->shape;
    w.kernel_shape = k->shape;
    w.attrs.stride = *s;
    w.attrs.padding = *p;
    w.attrs.dilation = *dil;
    if (w.op == OpKind::Conv2d && d->shape[1] != k->shape[1])
      return fail("grouped conv2d (CI " + std::to_string(d->shape[1]) + " vs kernel " +
                  std::to_string(k->shape[1]) + ") not supported");
    return w;
  }
  if (is_dense_task(task)) {
    if (!a.is_array() || a.size() < 2 || a.size() > 4) return fail("unexpected argument list");
    auto d = tensor_arg(a[0]), wt = tensor_arg(a[1]);
    if (!d || !wt || d->shape.size() != 2 || wt->shape.size() != 2)
      return fail("unexpected argument list");
    std::string out_dtype = a.size() == 4 && a[3].is_string() ? a[3].get<std::string>() : "float32";
    if (d->dtype != "float32" || wt->dtype != "float32" || out_dtype != "float32")
      return fail("dtype " + d->dtype + "/" + out_dtype + " not supported (float32 only)");
    w.op = OpKind::Dense;
    w.batch = d->shape[0];
    w.in_dim = d->shape[1];
    w.out_dim = wt->shape[0];
    w.bias = a.size() >= 3 && !a[2].is_null();
    return w;
  }
  return fail("operator " + task + " not covered");
}

CollectedWorkloads collect_workloads(const std::vector<autotune::Record>& records) {
  CollectedWorkloads c;
  std::set<std::string> seen;
  for (const auto& r : records) {
    std::string key = autotune::workload_key(r.input.workload);
    if (!seen.insert(key).second) continue;
    std::string why;
    if (auto w = decode_workload(r, &why))
      c.supported.push_back(std::move(*w));
    else
      c.skipped.emplace_back(r.input.task_name + " " + r.input.args.dump(), why);
  }
  return c;
}

// ---- references ---------------------------------------------------------------------------

std::vector<float> reference_conv2d(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                                    const nn::Conv2dAttrs& attrs, bool depthwise,
                                    const std::vector<float>& x, const std::vector<float>& k) {
  auto p = nn::get_pad_tuple(attrs.padding);
  int64_t sh = attrs.stride[0], sw = attrs.stride.size() > 1 ? attrs.stride[1] : sh;
  int64_t dh = attrs.dilation[0], dw = attrs.dilation.size() > 1 ? attrs.dilation[1] : dh;
  int64_t N = ds[0], C = ds[1], H = ds[2], W = ds[3], KH = ks[2], KW = ks[3];
  int64_t OH = nn::conv_out_size(H, KH, sh, p[0], p[2], dh),
          OW = nn::conv_out_size(W, KW, sw, p[1], p[3], dw);
  int64_t mult = depthwise ? ks[1] : 0, CO = depthwise ? C * mult : ks[0];
  std::vector<float> out(static_cast<size_t>(N * CO * OH * OW));
  std::vector<double> acc(static_cast<size_t>(OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < CO; ++f)
      for (int64_t y = 0; y < OH; ++y) {
        std::fill(acc.begin(), acc.end(), 0.0);
        int64_t c0 = depthwise ? f / mult : 0, c1 = depthwise ? c0 + 1 : C;
        for (int64_t c = c0; c < c1; ++c)
          for (int64_t ry = 0; ry < KH; ++ry) {
            int64_t iy = y * sh + ry * dh - p[0];
            if (iy < 0 || iy >= H) continue;
            const float* row = &x[static_cast<size_t>(((n * C + c) * H + iy) * W)];
            for (int64_t rx = 0; rx < KW; ++rx) {
              float kv = depthwise
                             ? k[static_cast<size_t>(((c * mult + f % mult) * KH + ry) * KW + rx)]
                             : k[static_cast<size_t>(((f * C + c) * KH + ry) * KW + rx)];
              for (int64_t xo = 0; xo < OW; ++xo) {
                int64_t ix = xo * sw + rx * dw - p[1];
                if (ix >= 0 && ix < W)
                  acc[static_cast<size_t>(xo)] += static_cast<double>(row[ix]) * kv;
              }
            }
          }
        for (int64_t xo = 0; xo < OW; ++xo)
          out[static_cast<size_t>(((n * CO + f) * OH + y) * OW + xo)] =
              static_cast<float>(acc[static_cast<size_t>(xo)]);
      }
  return out;
}

std::vector<float> reference_dense(int64_t B, int64_t K, int64_t N, const std::vector<float>& x,
                                   const std::vector<float>& w, const std::vector<float>* bias) {
  std::vector<float> out(static_cast<size_t>(B * N));
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += static_cast<double>(x[static_cast<size_t>(i * K + k)]) *
               w[static_cast<size_t>(j * K + k)];
      out[static_cast<size_t>(i * N + j)] =
          static_cast<float>(acc) + (bias ? (*bias)[static_cast<size_t>(j)] : 0.f);
    }
  return out;
}

}  // namespace minitvm::topi::sweep
