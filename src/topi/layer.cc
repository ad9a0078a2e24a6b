// One-call layer builds for llvm and CUDA targets under the current dispatch context.
#include "minitvm/topi/layer.h"

#include <sstream>

#include "minitvm/autotune/target.h"
#include "minitvm/codegen/build.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/cuda_schedule.h"
#include "minitvm/topi/dispatch.h"
#include "minitvm/topi/template_spaces.h"
#include "minitvm/transform/lower.h"

namespace minitvm::topi {

namespace {

std::vector<Expr> shape_exprs(const std::vector<int64_t>& s) {
  std::vector<Expr> r;
  for (int64_t v : s) r.push_back(Expr(static_cast<int>(v)));
  return r;
}

std::string dims_str(const std::vector<int64_t>& v, const char* sep = "x") {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

void check_dims(const char* op, const char* what, const std::vector<int64_t>& s, size_t rank,
                const char* layout) {
  MINITVM_USER_CHECK(s.size() == rank) << op << ": " << what << " shape " << dims_str(s)
                                       << " must be " << rank << "-D (" << layout << ")";
  for (size_t i = 0; i < s.size(); ++i)
    MINITVM_USER_CHECK(s[i] >= 1 && s[i] <= INT32_MAX)
        << op << ": " << what << " dimension " << i << " is " << s[i] << " (shape " << dims_str(s)
        << ")";
}

std::pair<int64_t, int64_t> check_pair(const char* op, const char* what,
                                       const std::vector<int64_t>& v) {
  MINITVM_USER_CHECK(v.size() == 1 || v.size() == 2)
      << op << ": " << what << " must have 1 or 2 values, got " << v.size();
  for (int64_t x : v)
    MINITVM_USER_CHECK(x >= 1) << op << ": " << what << " " << x << " (must be >= 1; " << what
                               << " (" << dims_str(v, ", ") << "))";
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

/** Shapes and attributes of a conv2d / depthwise conv2d layer, checked before any dispatch (so a
 *  bad workload never prints a fallback warning first), naming the wrong value. */
void validate_conv(const char* op, const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                   const nn::Conv2dAttrs& a, bool depthwise) {
  check_dims(op, "data", ds, 4, "N, C, H, W");
  check_dims(op, "kernel", ks, 4, depthwise ? "C, M, KH, KW" : "CO, CI, KH, KW");
  if (depthwise)
    MINITVM_USER_CHECK(ds[1] == ks[0])
        << op << ": data has " << ds[1] << " channels but the kernel has " << ks[0];
  else
    MINITVM_USER_CHECK(ds[1] == ks[1])
        << op << ": data has " << ds[1] << " input channels but the kernel expects " << ks[1];
  auto [sh, sw] = check_pair(op, "stride", a.stride);
  auto [dh, dw] = check_pair(op, "dilation", a.dilation);
  (void)sh;
  (void)sw;
  MINITVM_USER_CHECK(a.padding.size() == 1 || a.padding.size() == 2 || a.padding.size() == 4)
      << op << ": padding must have 1, 2 or 4 values, got " << a.padding.size();
  for (int64_t p : a.padding)
    MINITVM_USER_CHECK(p >= 0) << op << ": padding " << p << " (must be >= 0; padding ("
                               << dims_str(a.padding, ", ") << "))";
  auto p = nn::get_pad_tuple(a.padding);
  int64_t ph = ds[2] + p[0] + p[2], pw = ds[3] + p[1] + p[3];
  int64_t kh = (ks[2] - 1) * dh + 1, kw = (ks[3] - 1) * dw + 1;
  bool dilated = dh > 1 || dw > 1;
  MINITVM_USER_CHECK(kh <= ph && kw <= pw)
      << op << ": " << (dilated ? "dilated kernel " : "kernel ") << kh << "x" << kw
      << (dilated ? " (kernel " + std::to_string(ks[2]) + "x" + std::to_string(ks[3]) +
                        ", dilation " + std::to_string(dh) + "x" + std::to_string(dw) + ")"
                  : std::string())
      << " larger than padded input " << ph << "x" << pw;
}

/** TVM's winograd conv2d (and ours) computes a stride-1, undilated convolution with a 3x3 kernel.
 */
void validate_winograd(const std::vector<int64_t>& ks, const nn::Conv2dAttrs& a) {
  auto [sh, sw] = check_pair("conv2d", "stride", a.stride);
  auto [dh, dw] = check_pair("conv2d", "dilation", a.dilation);
  MINITVM_USER_CHECK(sh == 1 && sw == 1 && dh == 1 && dw == 1 && ks[2] == 3 && ks[3] == 3)
      << "conv2d: the winograd template needs stride 1, dilation 1 and a 3x3 kernel; got stride "
      << sh << "x" << sw << ", dilation " << dh << "x" << dw << ", kernel " << ks[2] << "x"
      << ks[3];
}

bool is_cuda(const autotune::Target& t) {
  return t.name == "cuda" || t.name == "nvptx";
}

void finish(LayerBuild& L, te::Schedule s, const std::string& target, const LayerOptions& opt,
            std::vector<ir::PrimFunc> extra = {}) {
  L.func_name = opt.name;
  ir::PrimFunc f = lower(s, L.args, opt.name);
  std::ostringstream os;
  os << f;
  L.ir = os.str();
  if (opt.lower_only) return;
  extra.insert(extra.begin(), f);
  L.module = build(extra, target);
  try {
    L.source = L.module.get_source("");
  } catch (const Error&) {
    L.source = "";
  }
}

void take_config(LayerBuild& L, const Dispatched& d) {
  L.config = *d.cfg;
  L.is_fallback = d.cfg->is_fallback();
  L.workload = d.workload;
  L.template_key = d.template_key;
}

}  // namespace

LayerBuild build_conv2d(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                        const nn::Conv2dAttrs& attrs, const std::string& target,
                        const LayerOptions& opt) {
  autotune::Target t = autotune::parse_target(target);
  validate_conv("conv2d", ds, ks, attrs, false);
  MINITVM_USER_CHECK(opt.force_template.empty() || opt.force_template == "direct" ||
                     opt.force_template == "winograd")
      << "conv2d: unknown template '" << opt.force_template
      << "' (force_template is \"direct\" or \"winograd\")";
  MINITVM_USER_CHECK(is_cuda(t) || opt.force_template != "winograd")
      << "conv2d: the winograd template is a CUDA template; " << target
      << " conv2d uses conv2d_NCHWc.x86";
  if (opt.force_template == "winograd") validate_winograd(ks, attrs);
  LayerBuild L;
  te::Tensor data = te::placeholder(shape_exprs(ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(shape_exprs(ks), DataType::Float(32), "placeholder");
  if (!is_cuda(t)) {
    cpu::NCHWcChoice choice = cpu::conv2d_nchwc_config(t, ds, ks, attrs);
    const autotune::ConfigEntity& cfg = choice.cfg;
    int64_t ic_bn = choice.ic_bn, oc_bn = choice.oc_bn;
    cpu::Conv2dNCHWc c;
    if (opt.nchwc_blocked) {
      data = te::placeholder(shape_exprs({ds[0], ds[1] / ic_bn, ds[2], ds[3], ic_bn}),
                             DataType::Float(32), "data");
      kernel =
          te::placeholder(shape_exprs({ks[0] / oc_bn, ks[1] / ic_bn, ks[2], ks[3], ic_bn, oc_bn}),
                          DataType::Float(32), "kernel");
      c = cpu::conv2d_nchwc_blocked(data, kernel, attrs);
    } else {
      c = cpu::conv2d_nchwc(data, kernel, attrs, ic_bn, oc_bn);
    }
    L.args = {data, kernel, c.output};
    L.config = cfg;
    L.is_fallback = cfg.is_fallback();
    L.workload = choice.workload;
    L.template_key = "conv2d_NCHWc.x86";
    std::vector<ir::PrimFunc> transforms;
    if (opt.nchwc_blocked)  // <name>_pack_data, <name>_pack_kernel, <name>_unpack_output
      for (auto& tr : cpu::conv2d_nchwc_transforms(ds, ks, attrs, ic_bn, oc_bn))
        transforms.push_back(lower(tr.schedule, tr.args, opt.name + "_" + tr.name));
    finish(L, cpu::schedule_conv2d_nchwc(cfg, c), target, opt, transforms);
    return L;
  }
  auto wl = cuda::conv2d_workloads(ds, ks, attrs);
  auto d = cuda::dispatch(t, wl);
  auto g = topi::conv_geometry(wl.v01);
  MINITVM_USER_CHECK(g.has_value()) << "conv2d: workload out of range";
  std::string tk = opt.force_template.empty() ? d.template_key : opt.force_template;
  te::Schedule s;
  if (tk == "winograd") {
    validate_winograd(ks, attrs);  // also when a (hand-written) record picks winograd
    auto w = nn::conv2d_winograd_nchw(data, kernel, attrs.padding, attrs.out_dtype);
    L.args = {data, kernel, w.output};
    s = cuda::schedule_conv2d_winograd(w, {w.output}, *d.cfg, *g, t);
  } else {
    te::Tensor out = nn::conv2d_nchw(data, kernel, attrs);
    L.args = {data, kernel, out};
    s = cuda::schedule_conv2d_nchw_direct({out}, *d.cfg, *g, t);
  }
  take_config(L, d);
  L.template_key = tk;
  finish(L, s, target, opt);
  return L;
}

LayerBuild build_depthwise_conv2d(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks,
                                  const nn::Conv2dAttrs& attrs, const std::string& target,
                                  const LayerOptions& opt) {
  autotune::Target t = autotune::parse_target(target);
  validate_conv("depthwise_conv2d", ds, ks, attrs, true);
  LayerBuild L;
  te::Tensor data = te::placeholder(shape_exprs(ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(shape_exprs(ks), DataType::Float(32), "placeholder");
  te::Tensor out = nn::depthwise_conv2d_nchw(data, kernel, attrs.stride, attrs.padding,
                                             attrs.dilation, attrs.out_dtype);
  L.args = {data, kernel, out};
  if (!is_cuda(t)) {
    finish(L, cpu::schedule_depthwise_conv2d_nchw({out}), target, opt);
    return L;
  }
  auto wl = cuda::depthwise_workloads(ds, ks, attrs);
  auto d = cuda::dispatch(t, wl);
  auto g = topi::conv_geometry(wl.v01);
  MINITVM_USER_CHECK(g.has_value()) << "depthwise_conv2d: workload out of range";
  te::Schedule s = cuda::schedule_depthwise_conv2d_nchw({out}, *d.cfg, *g, t);
  take_config(L, d);
  finish(L, s, target, opt);
  return L;
}

LayerBuild build_dense(int64_t batch, int64_t in_dim, int64_t out_dim, bool bias,
                       const std::string& target, const LayerOptions& opt) {
  autotune::Target t = autotune::parse_target(target);
  for (auto [what, v] :
       {std::pair<const char*, int64_t>{"batch", batch}, {"in_dim", in_dim}, {"out_dim", out_dim}})
    MINITVM_USER_CHECK(v >= 1 && v <= INT32_MAX)
        << "dense: " << what << " " << v << " (must be >= 1)";
  LayerBuild L;
  DataType f32 = DataType::Float(32);
  te::Tensor data = te::placeholder(shape_exprs({batch, in_dim}), f32, "data");
  te::Tensor weight = te::placeholder(shape_exprs({out_dim, in_dim}), f32, "placeholder");
  te::Tensor b = bias ? te::placeholder(shape_exprs({out_dim}), f32, "bias") : te::Tensor();
  te::Tensor out = nn::dense(data, weight, b);
  L.args = bias ? std::vector<te::Tensor>{data, weight, b, out}
                : std::vector<te::Tensor>{data, weight, out};
  if (!is_cuda(t)) {
    finish(L, cpu::schedule_dense({out}), target, opt);
    return L;
  }
  auto wl = cuda::dense_workloads(batch, in_dim, out_dim, bias);
  auto d = cuda::dispatch(t, wl);
  topi::DenseGeometry g{batch, in_dim, out_dim};
  te::Schedule s = cuda::schedule_dense({out}, *d.cfg, g, t);
  take_config(L, d);
  finish(L, s, target, opt);
  return L;
}

}  // namespace minitvm::topi
