// TVM's CUDA templates registered with the tuner under their v0.7 task names, with TVM's task
// arguments (the tail of the 0.2 workloads that topi/dispatch.h queries, so tuned records dispatch
// in build_conv2d / build_depthwise_conv2d / build_dense):
//
//   conv2d_nchw.cuda, conv2d_nchw_winograd.cuda, depthwise_conv2d_nchw.cuda:
//       [["TENSOR", data shape, dtype], ["TENSOR", kernel shape, dtype], strides, padding (4
//       values),
//        dilation, out_dtype]
//   group_conv2d_nchw.cuda:
//       [["TENSOR", data shape, dtype], ["TENSOR", kernel shape, dtype], strides, padding (4
//       values),
//        dilation, groups, out_dtype]
//   dense_small_batch.cuda, dense_large_batch.cuda:
//       [["TENSOR", [B, K], dtype], ["TENSOR", [N, K], dtype], ["TENSOR", [N], dtype] | null,
//       out_dtype]
//
// Each defines the template's knobs on the candidate config and schedules with the same function
// the layer builds use (cuda_schedule.h). The host reference for correctness checks is the same
// compute under a default schedule compiled for llvm (plain loops).
#include "minitvm/autotune/task.h"
#include "minitvm/codegen/build.h"
#include "minitvm/topi/cuda_schedule.h"
#include "topi/cuda/common.h"
#include "topi/schedule_util.h"

namespace minitvm::topi::cuda {

namespace {

using autotune::TemplateResult;

std::vector<int64_t> tensor_shape(const Json& t, const std::string& task, const char* what) {
  MINITVM_USER_CHECK(t.is_array() && t.size() == 3 && t[0] == "TENSOR" && t[1].is_array() &&
                     t[2].is_string())
      << task << ": " << what << " must be [\"TENSOR\", shape, dtype], got " << t.dump();
  MINITVM_USER_CHECK(t[2] == "float32")
      << task << ": " << what << " must be float32, got " << t[2].dump();
  std::vector<int64_t> s;
  for (const auto& d : t[1]) {
    MINITVM_USER_CHECK(d.is_number_integer() && d.get<int64_t>() > 0 &&
                       d.get<int64_t>() <= INT32_MAX)
        << task << ": " << what << " has a bad extent in " << t.dump();
    s.push_back(d.get<int64_t>());
  }
  return s;
}

std::vector<int64_t> int_list(const Json& v, const std::string& task, const char* what) {
  std::vector<int64_t> out;
  if (v.is_number_integer()) return {v.get<int64_t>()};
  MINITVM_USER_CHECK(v.is_array())
      << task << ": " << what << " must be an integer or a list, got " << v.dump();
  for (const auto& x : v) {
    MINITVM_USER_CHECK(x.is_number_integer())
        << task << ": " << what << " must hold integers, got " << v.dump();
    out.push_back(x.get<int64_t>());
  }
  return out;
}

std::vector<Expr> exprs(const std::vector<int64_t>& s) {
  std::vector<Expr> r;
  for (int64_t v : s) r.push_back(Expr(static_cast<int>(v)));
  return r;
}

/** Reference: run `make(inputs...)` under a default schedule, compiled for llvm. */
std::function<void(std::vector<runtime::NDArray>&)> llvm_reference(
    std::vector<std::vector<int64_t>> input_shapes,
    std::function<te::Tensor(const std::vector<te::Tensor>&)> make) {
  return [input_shapes, make](std::vector<runtime::NDArray>& arrays) {
    std::vector<te::Tensor> ins;
    for (size_t i = 0; i < input_shapes.size(); ++i)
      ins.push_back(
          te::placeholder(exprs(input_shapes[i]), DataType::Float(32), "in" + std::to_string(i)));
    te::Tensor out = make(ins);
    te::Schedule s = te::create_schedule({out.op()});
    std::vector<te::Tensor> args = ins;
    args.push_back(out);
    runtime::Module m = build(s, args, "llvm", "tune_reference");
    std::vector<runtime::ArgValue> call(arrays.begin(), arrays.end());
    m.get_function("tune_reference").call(call);
  };
}

struct ConvArgs {
  std::vector<int64_t> ds, ks;
  nn::Conv2dAttrs attrs;
  topi::ConvGeometry g;
};

ConvArgs conv_args(const std::string& task, const Json& args) {
  MINITVM_USER_CHECK(args.is_array() && args.size() == 6)
      << task << " takes (data, kernel, strides, padding, dilation, out_dtype), got "
      << args.dump();
  ConvArgs c;
  c.ds = tensor_shape(args[0], task, "data");
  c.ks = tensor_shape(args[1], task, "kernel");
  MINITVM_USER_CHECK(c.ds.size() == 4 && c.ks.size() == 4)
      << task << ": data and kernel must be 4-d";
  c.attrs.stride = int_list(args[2], task, "strides");
  c.attrs.padding = int_list(args[3], task, "padding");
  c.attrs.dilation = int_list(args[4], task, "dilation");
  MINITVM_USER_CHECK(args[5] == "float32")
      << task << ": out_dtype must be float32, got " << args[5].dump();
  auto g = topi::conv_geometry(autotune::workload_v02(task, args));
  MINITVM_USER_CHECK(g.has_value())
      << task << ": the arguments do not describe a valid convolution: " << args.dump();
  c.g = *g;
  return c;
}

double conv_flop(const topi::ConvGeometry& g, int64_t ci_per_group) {
  return 2.0 * double(g.n) * double(g.co) * double(g.oh) * double(g.ow) * double(ci_per_group) *
         double(g.kh) * double(g.kw);
}

TemplateResult conv2d_direct_tpl(autotune::ConfigEntity& cfg, const Json& args) {
  const std::string task = "conv2d_nchw.cuda";
  ConvArgs c = conv_args(task, args);
  MINITVM_USER_CHECK(c.ds[1] == c.ks[1])
      << task << ": data has " << c.ds[1] << " channels, the kernel " << c.ks[1];
  te::Tensor data = te::placeholder(exprs(c.ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(exprs(c.ks), DataType::Float(32), "placeholder");
  te::Tensor out = nn::conv2d_nchw(data, kernel, c.attrs);
  TemplateResult r;
  r.schedule = schedule_conv2d_nchw_direct({out}, cfg, c.g, autotune::template_target());
  r.args = {data, kernel, out};
  r.flop = conv_flop(c.g, c.g.ci);
  nn::Conv2dAttrs a = c.attrs;
  r.reference = llvm_reference({c.ds, c.ks}, [a](const std::vector<te::Tensor>& in) {
    return nn::conv2d_nchw(in[0], in[1], a);
  });
  return r;
}

TemplateResult conv2d_winograd_tpl(autotune::ConfigEntity& cfg, const Json& args) {
  const std::string task = "conv2d_nchw_winograd.cuda";
  ConvArgs c = conv_args(task, args);
  MINITVM_USER_CHECK(c.g.kh == c.g.kw && c.g.stride_h == 1 && c.g.stride_w == 1 && c.g.dil_h == 1 &&
                     c.g.dil_w == 1)
      << task << ": needs a square kernel, stride 1 and dilation 1, got " << args.dump();
  MINITVM_USER_CHECK(c.g.pad_top == c.g.pad_bottom && c.g.pad_left == c.g.pad_right)
      << task << ": needs symmetric padding, got " << args[3].dump();
  te::Tensor data = te::placeholder(exprs(c.ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(exprs(c.ks), DataType::Float(32), "placeholder");
  nn::WinogradTensors w =
      nn::conv2d_winograd_nchw(data, kernel, c.attrs.padding, c.attrs.out_dtype);
  TemplateResult r;
  r.schedule = schedule_conv2d_winograd(w, {w.output}, cfg, c.g, autotune::template_target());
  r.args = {data, kernel, w.output};
  r.flop = conv_flop(c.g, c.g.ci);  // TVM counts the direct convolution's work
  nn::Conv2dAttrs a = c.attrs;
  r.reference = llvm_reference({c.ds, c.ks}, [a](const std::vector<te::Tensor>& in) {
    return nn::conv2d_nchw(in[0], in[1], a);
  });
  return r;
}

TemplateResult depthwise_tpl(autotune::ConfigEntity& cfg, const Json& args) {
  const std::string task = "depthwise_conv2d_nchw.cuda";
  ConvArgs c = conv_args(task, args);
  MINITVM_USER_CHECK(c.ds[1] == c.ks[0])
      << task << ": data has " << c.ds[1] << " channels, the kernel " << c.ks[0];
  te::Tensor data = te::placeholder(exprs(c.ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(exprs(c.ks), DataType::Float(32), "placeholder");
  nn::Conv2dAttrs a = c.attrs;
  te::Tensor out =
      nn::depthwise_conv2d_nchw(data, kernel, a.stride, a.padding, a.dilation, a.out_dtype);
  TemplateResult r;
  r.schedule = schedule_depthwise_conv2d_nchw({out}, cfg, c.g, autotune::template_target());
  r.args = {data, kernel, out};
  r.flop = conv_flop(c.g, 1);
  r.reference = llvm_reference({c.ds, c.ks}, [a](const std::vector<te::Tensor>& in) {
    return nn::depthwise_conv2d_nchw(in[0], in[1], a.stride, a.padding, a.dilation, a.out_dtype);
  });
  return r;
}

TemplateResult group_conv2d_tpl(autotune::ConfigEntity& cfg, const Json& args) {
  const std::string task = "group_conv2d_nchw.cuda";
  MINITVM_USER_CHECK(args.is_array() && args.size() == 7)
      << task << " takes (data, kernel, strides, padding, dilation, groups, out_dtype), got "
      << args.dump();
  std::vector<int64_t> ds = tensor_shape(args[0], task, "data"),
                       ks = tensor_shape(args[1], task, "kernel");
  MINITVM_USER_CHECK(ds.size() == 4 && ks.size() == 4) << task << ": data and kernel must be 4-d";
  MINITVM_USER_CHECK(args[5].is_number_integer())
      << task << ": groups must be an integer, got " << args[5].dump();
  int64_t groups = args[5].get<int64_t>();
  nn::Conv2dAttrs a;
  a.stride = int_list(args[2], task, "strides");
  a.padding = int_list(args[3], task, "padding");
  a.dilation = int_list(args[4], task, "dilation");
  MINITVM_USER_CHECK(args[6] == "float32")
      << task << ": out_dtype must be float32, got " << args[6].dump();
  te::Tensor data = te::placeholder(exprs(ds), DataType::Float(32), "data");
  te::Tensor kernel = te::placeholder(exprs(ks), DataType::Float(32), "placeholder");
  // The compute checks groups against the shapes (CompileError naming the value).
  te::Tensor out =
      nn::group_conv2d_nchw(data, kernel, a.stride, a.padding, a.dilation, groups, a.out_dtype);
  auto g = topi::conv_geometry(autotune::workload_v02(task, args));
  MINITVM_USER_CHECK(g.has_value())
      << task << ": the arguments do not describe a valid convolution: " << args.dump();
  TemplateResult r;
  r.schedule = schedule_group_conv2d_nchw({out}, cfg, *g, autotune::template_target());
  r.args = {data, kernel, out};
  r.flop = conv_flop(*g, ks[1]);
  r.reference = llvm_reference({ds, ks}, [a, groups](const std::vector<te::Tensor>& in) {
    return nn::group_conv2d_nchw(in[0], in[1], a.stride, a.padding, a.dilation, groups,
                                 a.out_dtype);
  });
  return r;
}

TemplateResult dense_tpl(bool small, autotune::ConfigEntity& cfg, const Json& args) {
  const std::string task = small ? "dense_small_batch.cuda" : "dense_large_batch.cuda";
  MINITVM_USER_CHECK(args.is_array() && args.size() == 4)
      << task << " takes (data, weight, bias or null, out_dtype), got " << args.dump();
  std::vector<int64_t> ds = tensor_shape(args[0], task, "data"),
                       ws = tensor_shape(args[1], task, "weight");
  MINITVM_USER_CHECK(ds.size() == 2 && ws.size() == 2 && ds[1] == ws[1])
      << task << ": data (B, K) and weight (N, K) must share K, got " << args[0].dump() << " and "
      << args[1].dump();
  bool bias = !args[2].is_null();
  if (bias) {
    std::vector<int64_t> bs = tensor_shape(args[2], task, "bias");
    MINITVM_USER_CHECK(bs.size() == 1 && bs[0] == ws[0])
        << task << ": bias must have shape [" << ws[0] << "]";
  }
  MINITVM_USER_CHECK(args[3] == "float32")
      << task << ": out_dtype must be float32, got " << args[3].dump();
  te::Tensor data = te::placeholder(exprs(ds), DataType::Float(32), "data");
  te::Tensor weight = te::placeholder(exprs(ws), DataType::Float(32), "placeholder");
  te::Tensor b = bias ? te::placeholder(exprs({ws[0]}), DataType::Float(32), "bias") : te::Tensor();
  te::Tensor out = nn::dense(data, weight, b);
  topi::DenseGeometry g{ds[0], ds[1], ws[0]};
  TemplateResult r;
  r.schedule = schedule_dense({out}, cfg, g, autotune::template_target(), small);
  r.args = bias ? std::vector<te::Tensor>{data, weight, b, out}
                : std::vector<te::Tensor>{data, weight, out};
  r.flop = 2.0 * double(g.batch) * double(g.in_dim) * double(g.out_dim);
  std::vector<std::vector<int64_t>> shapes{ds, ws};
  if (bias) shapes.push_back({ws[0]});
  r.reference = llvm_reference(shapes, [bias](const std::vector<te::Tensor>& in) {
    return nn::dense(in[0], in[1], bias ? in[2] : te::Tensor());
  });
  return r;
}

const bool registered = [] {
  autotune::register_template("conv2d_nchw.cuda", conv2d_direct_tpl);
  autotune::register_template("conv2d_nchw_winograd.cuda", conv2d_winograd_tpl);
  autotune::register_template("depthwise_conv2d_nchw.cuda", depthwise_tpl);
  autotune::register_template("group_conv2d_nchw.cuda", group_conv2d_tpl);
  autotune::register_template(
      "dense_small_batch.cuda",
      [](autotune::ConfigEntity& cfg, const Json& a) { return dense_tpl(true, cfg, a); });
  autotune::register_template(
      "dense_large_batch.cuda",
      [](autotune::ConfigEntity& cfg, const Json& a) { return dense_tpl(false, cfg, a); });
  return true;
}();

}  // namespace

}  // namespace minitvm::topi::cuda
