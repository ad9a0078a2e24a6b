// One-call layer builds for llvm and CUDA targets under the current dispatch context.
#include "minitvm/topi/layer.h"

#include <sstream>

#include "minitvm/autotune/target.h"
#include "minitvm/autotune/template_spaces.h"
#include "minitvm/codegen/build.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/cuda_schedule.h"
#include "minitvm/topi/dispatch.h"
#include "minitvm/transform/lower.h"

namespace minitvm::topi {

namespace {

std::vector<Expr> shape_exprs(const std::vector<int64_t>& s) {
  std::vector<Expr> r;
  for (int64_t v : s) r.push_back(Expr(static_cast<int>(v)));
  return r;
}

bool is_cuda(const autotune::Target& t) { return t.name == "cuda" || t.name == "nvptx"; }

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

LayerBuild build_conv2d(const std::vector<int64_t>& ds, const std::vector<int64_t>& ks, const nn::Conv2dAttrs& attrs,
                        const std::string& target, const LayerOptions& opt) {
  autotune::Target t = autotune::parse_target(target);
  LayerBuild L;
  te::Tensor data = te::placeholder(shape_exprs(ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(shape_exprs(ks), DataType::Float(32), "placeholder");
  if (!is_cuda(t)) {
    // TVM's x86 template: 0.1 logs key it as ("conv2d", ...) (task topi_x86_conv2d), 0.2 logs as
    // conv2d_NCHWc.x86; the innermost context with a record for either answers.
    Workloads wl = conv2d_workloads(ds, ks, attrs);
    wl.v02 = {cpu::conv2d_nchwc_workload(ds, ks, attrs)};
    auto d = dispatch(t, wl);
    autotune::ConfigEntity cfg;
    if (d.cfg && !d.cfg->is_fallback()) {
      cfg = *d.cfg;
    } else {
      autotune::FallbackConfigEntity fb;
      cpu::conv2d_nchwc_fallback(fb, ds, ks, attrs);
      cfg = fb;
    }
    int64_t ic_bn = cfg.split("tile_ic").size.back(), oc_bn = cfg.split("tile_oc").size.back();
    cpu::Conv2dNCHWc c;
    if (opt.nchwc_blocked) {
      MINITVM_USER_CHECK(ds[1] % ic_bn == 0 && ks[0] % oc_bn == 0) << "conv2d: bad channel blocks in the config";
      data = te::placeholder(shape_exprs({ds[0], ds[1] / ic_bn, ds[2], ds[3], ic_bn}), DataType::Float(32), "data");
      kernel = te::placeholder(shape_exprs({ks[0] / oc_bn, ks[1] / ic_bn, ks[2], ks[3], ic_bn, oc_bn}),
                               DataType::Float(32), "kernel");
      c = cpu::conv2d_nchwc_blocked(data, kernel, attrs);
    } else {
      c = cpu::conv2d_nchwc(data, kernel, attrs, ic_bn, oc_bn);
    }
    L.args = {data, kernel, c.output};
    L.config = cfg;
    L.is_fallback = cfg.is_fallback();
    L.workload = d.workload;
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
  auto g = autotune::conv_geometry(wl.v01);
  MINITVM_USER_CHECK(g.has_value()) << "conv2d: workload out of range";
  std::string tk = opt.force_template.empty() ? d.template_key : opt.force_template;
  te::Schedule s;
  if (tk == "winograd") {
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
                                  const nn::Conv2dAttrs& attrs, const std::string& target, const LayerOptions& opt) {
  autotune::Target t = autotune::parse_target(target);
  LayerBuild L;
  te::Tensor data = te::placeholder(shape_exprs(ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(shape_exprs(ks), DataType::Float(32), "placeholder");
  te::Tensor out = nn::depthwise_conv2d_nchw(data, kernel, attrs.stride, attrs.padding, attrs.dilation, attrs.out_dtype);
  L.args = {data, kernel, out};
  if (!is_cuda(t)) {
    finish(L, cpu::schedule_depthwise_conv2d_nchw({out}), target, opt);
    return L;
  }
  auto wl = cuda::depthwise_workloads(ds, ks, attrs);
  auto d = cuda::dispatch(t, wl);
  auto g = autotune::conv_geometry(wl.v01);
  MINITVM_USER_CHECK(g.has_value()) << "depthwise_conv2d: workload out of range";
  te::Schedule s = cuda::schedule_depthwise_conv2d_nchw({out}, *d.cfg, *g, t);
  take_config(L, d);
  finish(L, s, target, opt);
  return L;
}

LayerBuild build_dense(int64_t batch, int64_t in_dim, int64_t out_dim, bool bias, const std::string& target,
                       const LayerOptions& opt) {
  autotune::Target t = autotune::parse_target(target);
  LayerBuild L;
  DataType f32 = DataType::Float(32);
  te::Tensor data = te::placeholder(shape_exprs({batch, in_dim}), f32, "data");
  te::Tensor weight = te::placeholder(shape_exprs({out_dim, in_dim}), f32, "placeholder");
  te::Tensor b = bias ? te::placeholder(shape_exprs({out_dim}), f32, "bias") : te::Tensor();
  te::Tensor out = nn::dense(data, weight, b);
  L.args = bias ? std::vector<te::Tensor>{data, weight, b, out} : std::vector<te::Tensor>{data, weight, out};
  if (!is_cuda(t)) {
    finish(L, cpu::schedule_dense({out}), target, opt);
    return L;
  }
  auto wl = cuda::dense_workloads(batch, in_dim, out_dim, bias);
  auto d = cuda::dispatch(t, wl);
  autotune::DenseGeometry g{batch, in_dim, out_dim};
  te::Schedule s = cuda::schedule_dense({out}, *d.cfg, g, t);
  take_config(L, d);
  finish(L, s, target, opt);
  return L;
}

}  // namespace minitvm::topi
