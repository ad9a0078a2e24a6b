// relay::build: passes, fusion, kernel lowering under the dispatch context, graph JSON.
#include "minitvm/relay/build.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "minitvm/autotune/target.h"
#include "minitvm/autotune/task.h"
#include "minitvm/codegen/build.h"
#include "minitvm/support/logging.h"
#include "minitvm/topi/cpu_schedule.h"
#include "minitvm/topi/cuda_schedule.h"
#include "minitvm/topi/dispatch.h"
#include "minitvm/topi/template_spaces.h"
#include "minitvm/transform/lower.h"
#include "relay/lower_ops.h"
#include "relay/transform/rewrite.h"
#include "topi/schedule_util.h"

namespace minitvm::relay {

namespace {

using transform::FusedGraph;
using transform::FusedGroup;

class PassLogger {
 public:
  explicit PassLogger(std::ostream* os) : os_(os) {
    if (!os_ && std::getenv("MINITVM_PRINT_IR")) os_ = &std::cerr;
  }
  Function run(const std::string& name, const Function& in,
               const std::function<Function(const Function&)>& pass) {
    Function out = pass(in);
    if (os_) {
      bool same = out.body == in.body && out.params == in.params;
      *os_ << "// ---- after " << name << (same ? " (unchanged)" : "") << " ----\n";
      if (!same) *os_ << out;
    }
    return out;
  }
  void print(const std::string& name, const std::string& text) {
    if (os_) *os_ << "// ---- after " << name << " ----\n" << text;
  }

 private:
  std::ostream* os_;
};

// Rank-0 constants become shape (1,) (same broadcasting) so every kernel argument has a dimension.
Function scalars_to_1d(const Function& f) {
  return detail::rewrite(f, [](const Expr&, const Expr& e) -> Expr {
    if (e->kind != ExprKind::Call) return e;
    std::vector<Expr> args = e->args;
    bool changed = false;
    for (auto& a : args)
      if (a->kind == ExprKind::Constant && a->data.ndim() == 0) {
        MINITVM_USER_CHECK(a->data.dtype() == DataType::Float(32))
            << "relay::build: " << e->name << ": scalar constant of " << a->data.dtype().str()
            << " (float32 graphs only)";
        a = constant(runtime::NDArray::from_vector(a->data.to_vector<float>(), {1}));
        changed = true;
      }
    return changed ? call(e->name, args, e->attrs) : e;
  });
}

bool is_cuda(const autotune::Target& t) {
  return t.name == "cuda" || t.name == "nvptx";
}

std::vector<ir::Expr> shape_exprs(const std::vector<int64_t>& s) {
  std::vector<ir::Expr> r;
  for (int64_t v : s) r.push_back(topi::detail::I(v));
  return r;
}

topi::nn::Conv2dAttrs conv_attrs(const ExprNode& c) {
  topi::nn::Conv2dAttrs a;
  auto get = [&](const char* k) {
    std::vector<int64_t> r;
    for (auto& v : c.attrs.at(k)) r.push_back(v.get<int64_t>());
    return r;
  };
  a.stride = get("strides");
  a.padding = get("padding");
  a.dilation = get("dilation");
  return a;
}

// NCHW data and OIHW kernel shapes of an nn.contrib_conv2d_NCHWc call.
std::pair<std::vector<int64_t>, std::vector<int64_t>> unblocked_conv_shapes(const ExprNode& c) {
  const auto& d = c.args[0]->types[0].shape;
  const auto& k = c.args[1]->types[0].shape;
  return {{d[0], d[1] * d[4], d[2], d[3]}, {k[0] * k[5], k[1] * k[4], k[2], k[3]}};
}

std::string shape_json(const std::vector<int64_t>& s);

constexpr const char* kWinogradConv = "nn.contrib_conv2d_winograd_without_weight_transform";

// NCHW data and OIHW kernel shapes of the conv2d an nn.contrib_conv2d_winograd_without_weight_
// transform call was made from (its weight is (alpha, alpha, CI, CO)).
std::pair<std::vector<int64_t>, std::vector<int64_t>> winograd_conv_shapes(const ExprNode& c) {
  const auto& d = c.args[0]->types[0].shape;
  const auto& u = c.args[1]->types[0].shape;
  const int64_t r = u[0] - c.attrs.at("tile_size").get<int64_t>() + 1;
  return {d, {u[3], u[2], r, r}};
}

// The dispatch decision for a group's master op (CUDA templates; conv2d_NCHWc.x86 on llvm).
struct Decision {
  KernelInfo info;
  topi::Dispatched d;
  Json v01;            // the 0.1 key (geometry)
  bool tuned = false;  // a template with a config
};

// The decision for one op (the master of a group, or a conv2d alter_op_layout asks about).
Decision decide_op(const ExprNode& m, const autotune::Target& t) {
  Decision r;
  r.info.master_op = m.name;
  r.info.template_key = "simple";
  if (m.name == "nn.contrib_conv2d_NCHWc") {
    // The config alter_op_layout chose the blocks with (the same dispatch query), for the rest of
    // the schedule; the graph's blocks win should they differ (a hand-built graph).
    auto [ds, ks] = unblocked_conv_shapes(m);
    // Grouped (alter_op_layout's blocked grouped conv): the config of one group's input channels
    // against all output channels; there is no tuning task for it (TVM tunes grouped convs as
    // group_conv2d_nchw, which this build does not dispatch to on llvm).
    const int64_t groups = m.attrs.value("groups", int64_t{1});
    const int64_t ib = m.args[0]->types[0].shape[4], ob = m.args[1]->types[0].shape[5];
    topi::cpu::NCHWcChoice c;
    if (groups == 1) {
      c = topi::cpu::conv2d_nchwc_config(t, ds, ks, conv_attrs(m));
      // alter_op_layout changes a fallback's blocks to fit a neighbour (a grouped conv reading
      // the output wants its groups' block): the fallback's tiles were chosen for the config's
      // blocks (register columns per block, output-channel chunks per tile), so they are chosen
      // again for the graph's.
      if (c.is_fallback && (c.ic_bn != ib || c.oc_bn != ob)) {
        autotune::FallbackConfigEntity fb;
        const topi::cpu::GroupedBlocks blocks{1, ib, ob};
        topi::cpu::conv2d_nchwc_fallback(fb, ds, ks, conv_attrs(m), &blocks);
        c.cfg = fb;
      }
    } else {
      ds[1] /= groups;
      autotune::FallbackConfigEntity fb;
      const topi::cpu::GroupedBlocks blocks{groups, ib, ob};
      topi::cpu::conv2d_nchwc_fallback(fb, ds, ks, conv_attrs(m), &blocks);
      c.cfg = fb;
      c.is_fallback = true;
    }
    c.cfg.set("tile_ic", autotune::SplitEntity{{ds[1] / ib, ib}});
    c.cfg.set("tile_oc", autotune::SplitEntity{{ks[0] / ob, ob}});
    r.d.cfg = std::make_shared<autotune::ConfigEntity>(c.cfg);
    r.d.workload = c.workload;
    r.tuned = true;
    r.info.workload = c.workload;
    r.info.template_key = groups == 1 ? "conv2d_NCHWc.x86" : "conv2d_NCHWc.x86 (grouped)";
    r.info.is_fallback = c.is_fallback;
    r.info.config_index = c.is_fallback ? -1 : c.cfg.index;
    if (groups == 1)
      r.info.tuning_workloads = {
          topi::cpu::conv2d_nchwc_workload(ds, ks, conv_attrs(m))};  // the 0.2 task key
    return r;
  }
  if (m.name == "nn.contrib_depthwise_conv2d_NCHWc") {
    r.info.template_key = "cpu";
    return r;
  }
  if (m.name == "nn.contrib_conv2d_winograd_NCHWc") {
    r.info.template_key = "winograd_NCHWc";  // no config
    return r;
  }
  if (m.name == kWinogradConv && !is_cuda(t)) {
    r.info.template_key = "winograd";  // the CPU winograd schedule, no config
    return r;
  }
  if (m.name == kWinogradConv) {
    // The conv2d this op was made from (TVM keeps its config under a new workload; the record's
    // workload is the conv2d's, and so is the key reported). Should the context not give a
    // winograd config for it (a hand-built graph), the winograd template's own key is queried.
    auto [ds, ks] = winograd_conv_shapes(m);
    topi::Workloads wl = topi::conv2d_workloads(ds, ks, conv_attrs(m));
    r.d = topi::dispatch(t, wl);
    if (r.d.template_key != "winograd") {
      topi::Workloads only;
      only.v01 = wl.v02.at(1);
      r.d = topi::dispatch(t, only);
    }
    r.v01 = wl.v01;
    r.tuned = true;
    r.info.workload = r.d.workload;
    r.info.template_key = "winograd";
    r.info.is_fallback = r.d.cfg->is_fallback();
    r.info.config_index = r.info.is_fallback ? -1 : r.d.cfg->index;
    r.info.tuning_workloads = {wl.v02.at(1)};
    return r;
  }
  bool conv = m.name == "nn.conv2d", dense = m.name == "nn.dense";
  if (!conv && !dense) return r;
  if (!is_cuda(t)) {
    r.info.template_key = "cpu";
    return r;
  }
  topi::Workloads wl;
  if (conv) {
    const auto& ds = m.args[0]->types[0].shape;
    const auto& ks = m.args[1]->types[0].shape;
    if (detail::is_depthwise(m))
      wl = topi::depthwise_workloads(ds, ks, conv_attrs(m));
    else if (detail::is_grouped(m))
      wl = topi::group_conv2d_workloads(ds, ks, conv_attrs(m), m.attrs.at("groups").get<int64_t>());
    else
      wl = topi::conv2d_workloads(ds, ks, conv_attrs(m));
  } else {
    const auto& ds = m.args[0]->types[0].shape;
    const auto& ws = m.args[1]->types[0].shape;
    wl = topi::dense_workloads(ds[0], ds[1], ws[0], false);
  }
  r.d = topi::dispatch(t, wl);
  r.v01 = wl.v01;
  // TVM's CUDA strategy offers winograd for 3x3, stride 1, dilation 1 layers only.
  bool winograd_ok = false;
  if (conv && !detail::is_depthwise(m) && !detail::is_grouped(m)) {
    const auto& ks = m.args[1]->types[0].shape;
    topi::nn::Conv2dAttrs a = conv_attrs(m);
    winograd_ok = ks.size() == 4 && ks[2] == 3 && ks[3] == 3;
    for (int64_t s : a.stride) winograd_ok &= s == 1;
    for (int64_t d : a.dilation) winograd_ok &= d == 1;
    MINITVM_USER_CHECK(winograd_ok || r.d.template_key != "winograd")
        << "relay::build: the dispatch context gives a winograd config for the conv2d with weight "
        << shape_json(ks) << ", strides " << shape_json(a.stride) << ", dilation "
        << shape_json(a.dilation) << " (workload " << r.d.workload.dump()
        << "); winograd computes 3x3 convs of stride 1 and dilation 1 only";
  }
  for (const Json& k : wl.v02) {
    const std::string task = k.at(0).get<std::string>();
    if (!autotune::find_template(task)) continue;
    if (task.find("winograd") != std::string::npos && !winograd_ok) continue;
    r.info.tuning_workloads.push_back(k);
  }
  r.tuned = true;
  r.info.workload = r.d.workload;
  r.info.template_key = r.d.template_key;
  r.info.is_fallback = r.d.cfg->is_fallback();
  r.info.config_index = r.info.is_fallback ? -1 : r.d.cfg->index;
  return r;
}

Decision decide(const FusedGroup& g, const autotune::Target& t) {
  Decision r = decide_op(*g.master, t);
  if (r.tuned && r.d.cfg) r.info.config = r.d.cfg->str();
  r.info.func_name = g.func_name;
  for (auto& n : g.nodes) r.info.ops.push_back(n->name);
  return r;
}

// Simple schedule: inline injective stages, then every remaining compute stage at root with its
// data axes fused (CUDA: split over blockIdx.x/threadIdx.x; llvm: parallel).
te::Schedule simple_schedule(const std::vector<te::Tensor>& outs, bool cuda) {
  std::vector<te::Operation> ops;
  for (auto& o : outs) ops.push_back(o.op());
  te::Schedule s = te::create_schedule(ops);
  for (auto& op : ops) topi::detail::traverse_inline(s, op, [](const te::Operation&) {});
  for (auto& st : s.stages()) {
    if (st->attach_type != te::AttachType::GroupRoot || st->op.op_type() != te::OpType::Compute)
      continue;
    te::Stage stage(st);
    std::vector<IterVar> axes = st->op.axis();
    if (axes.empty()) continue;
    const int64_t* inner = ir::as_const_int(axes.back()->dom.extent());
    if (!cuda && axes.size() >= 2 && inner) {
      // Parallel over the outer axes, the innermost axis as the vector after the window's
      // reduction (when there is one). Blocked pools (NCHW[x]c): the whole channel block (one or
      // more registers: 32- and 64-blocks too). NCHW pools: the innermost axis split by up to 16
      // lanes; one scalar per parallel iteration made GoogLeNet's 14x14 pool 10x slower than the
      // bytes it moves. (Injective groups, multi-output splits too, take schedule_injective.)
      IterVar par = stage.fuse(std::vector<IterVar>(axes.begin(), axes.end() - 1));
      const bool block = axes.size() == 5 && *inner % 4 == 0 && *inner <= 64;
      const int64_t v = block ? *inner : topi::detail::largest_divisor_at_most(*inner, 16);
      if (v >= 4) {
        std::vector<IterVar> order{par};
        IterVar vec = axes.back();
        if (v < *inner) {
          auto [xo, xi] = stage.split(axes.back(), ir::Expr(static_cast<int>(v)));
          order.push_back(xo);
          vec = xi;
        }
        for (auto& r : st->op.reduce_axis()) order.push_back(r);
        order.push_back(vec);
        stage.reorder(order);
        stage.vectorize(vec);
      }
      stage.parallel(par);
      continue;
    }
    IterVar f = axes.size() == 1 ? axes[0] : stage.fuse(axes);
    if (cuda) {
      auto [bx, tx] = stage.split(f, ir::Expr(256));
      stage.bind(bx, te::thread_axis("blockIdx.x"));
      stage.bind(tx, te::thread_axis("threadIdx.x"));
    } else {
      stage.parallel(f);
    }
  }
  return s;
}

// A 1x1, stride-1, unpadded conv whose fallback output block fills at most half a vector stays
// NCHW without a tuned config when its input is NCHW: the NCHW schedule vectorizes the output
// width and tiles channels and rows (ShuffleNetV2 4.42 -> 4.13 ms, 2-core Xeon, 2026-12-04,
// before its 58/116/232 channels were padded to vector multiples by alter_op_layout; now for
// counts too far from one, such as 34). On a blocked input it is blocked too: MnasNet-0.5's
// 16 -> 8 layer at 112x112 took 23 us blocked, against 31 us NCHW plus 41 + 23 us of re-blocking
// around it (Zen 4, 2026-12-06).
bool keeps_nchw(const ExprNode& c, const std::vector<int64_t>& ws, int64_t oc_bn) {
  const topi::nn::Conv2dAttrs a = conv_attrs(c);
  auto all = [](const std::vector<int64_t>& v, int64_t x) {
    return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == x; });
  };
  return ws.size() == 4 && ws[2] == 1 && ws[3] == 1 && all(a.stride, 1) && all(a.padding, 0) &&
         all(a.dilation, 1) && 2 * oc_bn <= topi::cpu::fp32_lanes();
}

bool all_injective(const FusedGroup& g) {
  for (auto& n : g.nodes)
    if (static_cast<int>(op_pattern(n->name)) > static_cast<int>(OpPattern::kInjective))
      return false;
  return true;
}

// Lower one group to a PrimFunc (arguments: inputs, then outputs).
ir::PrimFunc lower_group(const FusedGroup& g, const Decision& dec, const autotune::Target& t,
                         std::ostream* print_ir) {
  std::unordered_map<const ExprNode*, std::vector<te::Tensor>> val;
  std::vector<te::Tensor> args;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const TensorType& tt = g.inputs[i]->type();
    te::Tensor p = te::placeholder(shape_exprs(tt.shape), tt.dtype, "p" + std::to_string(i));
    val[g.inputs[i].get()] = {p};
    args.push_back(p);
  }
  bool cuda = is_cuda(t);
  std::optional<topi::nn::WinogradTensors> wino;
  for (auto& n : g.nodes) {
    std::vector<te::Tensor> in;
    for (auto& a : n->args) in.push_back(val.at(a.get()).at(0));
    if (n == g.master && n->name == kWinogradConv) {
      wino = topi::nn::conv2d_winograd_nchw_without_weight_transform(
          in[0], in[1], conv_attrs(*n).padding, n->attrs.at("tile_size").get<int64_t>());
      val[n.get()] = {wino->output};
    } else if (cuda && n == g.master && dec.tuned && dec.info.template_key == "winograd") {
      wino = topi::nn::conv2d_winograd_nchw(in[0], in[1], conv_attrs(*n).padding);
      val[n.get()] = {wino->output};
    } else if (!cuda && n->name == "nn.contrib_dense_pack") {
      // rows padded to the schedule's register tile for this block unless it divides them
      const int64_t b = topi::nn::const_shape(in[1]).at(2);
      const int64_t M = topi::nn::const_shape(in[0]).at(0);
      val[n.get()] = {topi::nn::dense_pack(in[0], in[1], topi::cpu::dense_pack_row_padding(M, b))};
    } else if (!cuda && n->name == "nn.softmax" && g.nodes.size() == 1 &&
               n->types[0].shape.size() >= 2 &&
               n->attrs.at("axis").get<int64_t>() + 1 == int64_t(n->types[0].shape.size())) {
      // max and sum reduced in vectors first (schedule_softmax_last_axis)
      val[n.get()] = {topi::nn::softmax_last_axis(in[0], topi::cpu::fp32_lanes())};
    } else if (te::Tensor r;
               !cuda && (r = detail::lower_reduce_last_axis(*n, in.at(0), topi::cpu::fp32_lanes()))
                            .defined()) {
      // sum / mean / max / min of rows (LayerNorm's means): in vector partials first
      val[n.get()] = {r};
    } else if (!cuda && n->name == "nn.batch_matmul") {
      // The CPU's packed form: y transposed per call, its columns padded to the column tile;
      // rows padded to the register tile's unless it divides them.
      const int64_t N = topi::nn::const_shape(in[1]).at(1), M = topi::nn::const_shape(in[0]).at(1);
      const int64_t ct = topi::cpu::batch_matmul_column_tile(N);
      const int64_t Np = (N + ct - 1) / ct * ct;
      const int64_t pad =
          topi::cpu::dense_pack_row_padding(M, topi::cpu::batch_matmul_column_block(Np));
      val[n.get()] = {topi::nn::batch_matmul_pack(in[0], in[1], pad, ct)};
    } else {
      val[n.get()] = detail::lower_op(*n, in);
    }
  }
  std::vector<te::Tensor> outs = val.at(g.root.get());
  args.insert(args.end(), outs.begin(), outs.end());
  const ExprNode& m = *g.master;
  te::Schedule s;
  if (dec.tuned && cuda) {
    if (m.name == "nn.dense") {
      const auto& ds = m.args[0]->types[0].shape;
      topi::DenseGeometry geo{ds[0], ds[1], m.args[1]->types[0].shape[0]};
      s = topi::cuda::schedule_dense(outs, *dec.d.cfg, geo, t);
    } else {
      auto geo = topi::conv_geometry(dec.v01);
      MINITVM_USER_CHECK(geo.has_value()) << g.func_name << ": conv2d workload out of range";
      if (detail::is_depthwise(m))
        s = topi::cuda::schedule_depthwise_conv2d_nchw(outs, *dec.d.cfg, *geo, t);
      else if (detail::is_grouped(m))
        s = topi::cuda::schedule_group_conv2d_nchw(outs, *dec.d.cfg, *geo, t);
      else if (wino)
        s = topi::cuda::schedule_conv2d_winograd(*wino, outs, *dec.d.cfg, *geo, t);
      else
        s = topi::cuda::schedule_conv2d_nchw_direct(outs, *dec.d.cfg, *geo, t);
    }
  } else if (!cuda && wino) {
    s = topi::cpu::schedule_conv2d_winograd(*wino, outs);
  } else if (!cuda && m.name == "nn.contrib_conv2d_NCHWc") {
    s = topi::cpu::schedule_conv2d_nchwc_fused(*dec.d.cfg, outs);
  } else if (!cuda && m.name == "nn.contrib_conv2d_winograd_NCHWc") {
    s = topi::cpu::schedule_conv2d_winograd_nchwc_fused(outs);
  } else if (!cuda && m.name == "nn.contrib_depthwise_conv2d_NCHWc") {
    s = topi::cpu::schedule_depthwise_conv2d_nchwc(outs);
  } else if (!cuda && m.name == "nn.conv2d") {
    s = detail::is_depthwise(m) ? topi::cpu::schedule_depthwise_conv2d_nchw(outs)
        : detail::is_grouped(m) ? topi::cpu::schedule_group_conv2d_nchw(outs)
                                : topi::cpu::schedule_conv2d_nchw(outs);
  } else if (!cuda && m.name == "nn.dense") {
    s = topi::cpu::schedule_dense(outs);
  } else if (!cuda && m.name == "nn.contrib_dense_pack") {
    s = topi::cpu::schedule_dense_pack(outs);
  } else if (!cuda && m.name == "nn.batch_matmul") {
    s = topi::cpu::schedule_batch_matmul_pack(outs);
  } else if (!cuda && m.name == "nn.softmax" && g.nodes.size() == 1 &&
             m.types[0].shape.size() >= 2 &&
             m.attrs.at("axis").get<int64_t>() + 1 == int64_t(m.types[0].shape.size())) {
    s = topi::cpu::schedule_softmax_last_axis(outs);
  } else if (!cuda && all_injective(g)) {
    s = topi::cpu::schedule_injective(outs);
  } else {
    s = simple_schedule(outs, cuda);
  }
  LowerOptions lo;
  lo.print_after_each_pass = print_ir;
  return lower(s, args, g.func_name, lo);
}

std::string shape_json(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

struct GraphJson {
  std::string json;
  Params params;
  std::map<std::string, int> calls;  // func_name -> number of nodes
};

GraphJson graph_json(const FusedGraph& fg, const transform::MemoryPlan& plan) {
  const Function& f = fg.func;
  struct Node {
    std::string op, name, func;
    std::vector<std::array<int, 3>> inputs;
    int num_outputs = 1;
    std::string ops = {},
                op_type = {};  // tvm_op attrs for the profiler: the group's ops, its master op
  };
  std::vector<Node> nodes;
  std::vector<int> row_ptr{0};
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::string> dtypes;
  std::vector<int> sids;
  std::unordered_map<const ExprNode*, int> node_of;
  GraphJson out;
  auto add_node = [&](Node n, const ExprNode* e) {
    int id = static_cast<int>(nodes.size());
    for (int i = 0; i < n.num_outputs; ++i) {
      shapes.push_back(e->types[i].shape);
      dtypes.push_back(e->types[i].dtype.str());
      sids.push_back(plan.storage_ids.at(e)[i]);
    }
    row_ptr.push_back(row_ptr.back() + n.num_outputs);
    nodes.push_back(std::move(n));
    node_of[e] = id;
    return id;
  };
  // Entries of a value: (node, index) pairs.
  std::function<std::vector<std::array<int, 3>>(const Expr&)> entries = [&](const Expr& e) {
    std::vector<std::array<int, 3>> r;
    if (e->kind == ExprKind::Tuple) {
      for (auto& a : e->args)
        for (auto& x : entries(a)) r.push_back(x);
    } else if (e->kind == ExprKind::TupleGetItem) {
      auto inner = entries(e->args[0]);
      r.push_back(inner.at(e->index));
    } else {
      int id = node_of.at(e.get());
      for (int i = 0; i < nodes[id].num_outputs; ++i) r.push_back({id, i, 0});
    }
    return r;
  };
  for (auto& p : f.params) add_node(Node{"null", p->name, "", {}, 1}, p.get());
  std::map<std::string, int> name_count;
  std::set<std::string> used;
  for (const Expr& e : post_order(f.body)) {
    if (node_of.count(e.get())) continue;
    if (e->kind == ExprKind::Constant) {
      std::string name = "p" + std::to_string(out.params.size());
      out.params[name] = e->data;
      add_node(Node{"null", name, "", {}, 1}, e.get());
      continue;
    }
    if (e->kind != ExprKind::Call) continue;
    const FusedGroup& g = fg.groups[fg.group_of.at(e.get())];
    if (g.root != e) continue;
    Node n{"tvm_op", g.func_name, g.func_name, {}, static_cast<int>(e->types.size())};
    for (auto& c : g.nodes) n.ops += (n.ops.empty() ? "" : ",") + c->name;
    n.op_type = g.master ? g.master->name : g.root->name;
    // Node name: func_name, then func_name + "1", "2", ...
    if (used.count(n.name)) {
      int& k = name_count[g.func_name];
      std::string cand;
      do cand = g.func_name + std::to_string(++k);
      while (used.count(cand));
      n.name = cand;
    }
    used.insert(n.name);
    for (auto& in : g.inputs)
      for (auto& x : entries(in)) n.inputs.push_back(x);
    out.calls[g.func_name]++;
    add_node(std::move(n), e.get());
  }
  std::ostringstream os;
  os << "{\n  \"nodes\": [\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    os << "    {\"op\": \"" << n.op << "\", \"name\": \"" << n.name << "\", ";
    if (n.op == "tvm_op")
      os << "\"attrs\": {\"func_name\": \"" << n.func
         << "\", \"flatten_data\": \"0\", \"num_inputs\": \"" << n.inputs.size()
         << "\", \"num_outputs\": \"" << n.num_outputs << "\", \"ops\": \"" << n.ops
         << "\", \"op_type\": \"" << n.op_type << "\"}, ";
    os << "\"inputs\": [";
    for (size_t k = 0; k < n.inputs.size(); ++k)
      os << (k ? ", " : "") << "[" << n.inputs[k][0] << ", " << n.inputs[k][1] << ", "
         << n.inputs[k][2] << "]";
    os << "]}" << (i + 1 < nodes.size() ? "," : "") << "\n";
  }
  os << "  ],\n  \"arg_nodes\": [";
  bool first = true;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].op == "null") {
      os << (first ? "" : ", ") << i;
      first = false;
    }
  os << "],\n  \"heads\": [";
  auto heads = entries(f.body);
  for (size_t i = 0; i < heads.size(); ++i)
    os << (i ? ", " : "") << "[" << heads[i][0] << ", " << heads[i][1] << ", 0]";
  os << "],\n  \"attrs\": {\n    \"dltype\": [\"list_str\", [";
  for (size_t i = 0; i < dtypes.size(); ++i) os << (i ? ", " : "") << "\"" << dtypes[i] << "\"";
  os << "]],\n    \"storage_id\": [\"list_int\", [";
  for (size_t i = 0; i < sids.size(); ++i) os << (i ? ", " : "") << sids[i];
  os << "]],\n    \"shape\": [\"list_shape\", [";
  for (size_t i = 0; i < shapes.size(); ++i) os << (i ? ", " : "") << shape_json(shapes[i]);
  os << "]]\n  },\n  \"node_row_ptr\": [";
  for (size_t i = 0; i < row_ptr.size(); ++i) os << (i ? ", " : "") << row_ptr[i];
  os << "]\n}\n";
  out.json = os.str();
  return out;
}

}  // namespace

Function optimize(const Function& f, const Params& params, const BuildOptions& opt) {
  PassLogger log(opt.print_after_each_pass);
  Function g = log.run("bind_params", f,
                       [&](const Function& x) { return transform::bind_params(x, params); });
  g = log.run("simplify_inference", g, transform::simplify_inference);
  if (opt.opt_level >= 2) {
    g = log.run("drop_padding_taps", g, transform::drop_padding_taps);
    g = log.run("fold_constant", g, transform::fold_constant);
    g = log.run("sink_reshape", g, transform::sink_reshape);
    g = log.run("fold_constant", g, transform::fold_constant);
  }
  if (opt.opt_level >= 3) {
    g = log.run("fold_scale_axis", g, transform::fold_scale_axis);
    g = log.run("fold_constant", g, transform::fold_constant);
    g = log.run("eliminate_common_subexpr", g, transform::eliminate_common_subexpr);
  }
  return g;
}

Built build(const Function& f, const std::string& target, const Params& params,
            const BuildOptions& opt) {
  MINITVM_USER_CHECK(f.body != nullptr) << "relay::build: the function has no body";
  autotune::Target t = autotune::parse_target(target);
  MINITVM_USER_CHECK(t.name == "llvm" || is_cuda(t))
      << "relay::build: unsupported target '" << target << "'";
  Built b;
  b.target = target;
  b.optimized = optimize(f, params, opt);
  if (!is_cuda(t) && opt.opt_level >= 3) {
    // TVM's AlterOpLayout on x86: conv2d_NCHWc with the blocks of the config the dispatch context
    // gives each layer (the same query decide() makes for its schedule); weights packed here.
    PassLogger alog(opt.print_after_each_pass);
    transform::AlterLayoutOptions ao;
    ao.conv_blocks = [&](const ExprNode& c) -> std::optional<transform::ConvBlocks> {
      const auto& ws = c.args[1]->types[0].shape;
      auto ch = topi::cpu::conv2d_nchwc_config(t, c.args[0]->types[0].shape, ws, conv_attrs(c));
      // Task extraction keeps such layers blocked, so that they can be tuned (a tuned config
      // then decides).
      return transform::ConvBlocks{
          ch.ic_bn, ch.oc_bn, !ch.is_fallback,
          ch.is_fallback && !opt.workloads_only && keeps_nchw(c, ws, ch.oc_bn)};
    };
    int displaced = 0;  // layers that a log's record keeps direct where Winograd would run
    ao.cpu_winograd_tile = [&](const ExprNode& c, const transform::ConvBlocks& cb) -> int64_t {
      // Task extraction keeps every layer a conv2d_NCHWc task; a tuned record keeps the tuned
      // direct kernel.
      if (!opt.winograd || (opt.workloads_only && !opt.workloads_with_winograd)) return 0;
      const auto& ws = c.args[1]->types[0].shape;
      const auto& os = c.types[0].shape;
      const topi::nn::Conv2dAttrs a = conv_attrs(c);
      auto all_one = [](const std::vector<int64_t>& v) {
        return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
      };
      if (ws[2] != 3 || ws[3] != 3 || !all_one(a.stride) || !all_one(a.dilation)) return 0;
      // A grouped conv here has whole channel blocks per group (alter_op_layout's group_block).
      if (c.attrs.at("groups").get<int64_t>() > 1)
        return topi::cpu::winograd_nchwc_group_tile(os[2], os[3], ws[1]);
      const int64_t m = topi::cpu::winograd_nchwc_conv_tile(os[2], os[3], ws[1], ws[0]);
      if (m > 0 && cb.from_log) {
        ++displaced;
        return 0;
      }
      return m;
    };
    ao.depthwise_block = topi::cpu::fp32_lanes();
    // Task extraction keeps grouped convs as they are (they have no conv2d_NCHWc task).
    ao.group_block = opt.workloads_only ? 0 : topi::cpu::fp32_lanes();
    ao.dense_pack_block = opt.workloads_only ? 0 : topi::cpu::dense_pack_block();
    ao.pad_channels = {topi::cpu::preferred_channel_block(), topi::cpu::fp32_lanes()};
    b.optimized = alog.run("alter_op_layout", b.optimized,
                           [&](const Function& x) { return transform::alter_op_layout(x, ao); });
    if (displaced > 0 && !opt.workloads_only)
      log_warning(std::to_string(displaced) +
                  " 3x3 stride-1 conv layer(s) run the tuning log's direct conv2d_NCHWc config "
                  "instead of Winograd, which a build without those records uses (ResNet-50's: "
                  "1.8-2.8x faster on Zen 4). Such records come from TVM's x86 logs (--tophub) or "
                  "from tuning with --disable-winograd; compile with --disable-winograd to mean "
                  "it, or leave them out");
    b.optimized = alog.run("fold_constant", b.optimized, transform::fold_constant);
    b.optimized =
        alog.run("eliminate_common_subexpr", b.optimized, transform::eliminate_common_subexpr);
  }
  if (is_cuda(t) && opt.opt_level >= 3) {
    // TVM's AlterOpLayout on cuda: a conv2d whose config is a winograd one takes its weight
    // transformed at build time (tile size 4 when H % 8 == 0, else 2, as the template's space).
    PassLogger alog(opt.print_after_each_pass);
    transform::AlterLayoutOptions ao;
    ao.depthwise_block = 0;
    ao.winograd_tile = [&](const ExprNode& c) -> int64_t {
      if (c.attrs.at("groups").get<int64_t>() != 1) return 0;
      const auto pad = conv_attrs(c).padding;  // normalised to 4 by the type rule
      if (pad.size() != 4 || pad[0] != pad[2] || pad[1] != pad[3]) return 0;
      // decide_op rejects a winograd config for a layer winograd cannot compute.
      if (decide_op(c, t).info.template_key != "winograd") return 0;
      return topi::winograd_tile_size(c.args[0]->types[0].shape[2]);
    };
    b.optimized = alog.run("alter_op_layout", b.optimized,
                           [&](const Function& x) { return transform::alter_op_layout(x, ao); });
    b.optimized = alog.run("fold_constant", b.optimized, transform::fold_constant);
  }
  Function g = scalars_to_1d(b.optimized);
  b.fused = transform::fuse_ops(g, opt.opt_level >= 1 ? 2 : 0);
  PassLogger log(opt.print_after_each_pass);
  log.print("fuse_ops", b.fused.str());
  b.memory = transform::plan_memory(b.fused);
  GraphJson gj = graph_json(b.fused, b.memory);
  b.graph_json = gj.json;
  b.params = gj.params;
  // One kernel per distinct function. The dispatch queries run on this thread (contexts are per
  // thread); lowering runs in parallel, each job with its own copy of its config.
  std::vector<std::pair<const FusedGroup*, Decision>> jobs;
  std::set<std::string> done;
  for (auto& grp : b.fused.groups) {
    if (done.count(grp.func_name) || !gj.calls.count(grp.func_name)) continue;
    done.insert(grp.func_name);
    Decision dec = decide(grp, t);
    dec.info.num_nodes = gj.calls.at(grp.func_name);
    if (dec.d.cfg) dec.d.cfg = std::make_shared<autotune::ConfigEntity>(*dec.d.cfg);
    b.kernels.push_back(dec.info);
    jobs.push_back({&grp, std::move(dec)});
  }
  b.metadata = b.report_json().dump();
  if (opt.workloads_only || jobs.empty()) return b;
  // A progress line when stderr is a terminal (tvmc prints none; TVM's build is silent too, but a
  // network takes a while here).
  const bool progress = isatty(STDERR_FILENO) != 0 && !std::getenv("MINITVM_NO_PROGRESS");
  std::atomic<size_t> lowered{0};
  std::mutex progress_mu;
  auto show = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(progress_mu);
    std::fprintf(stderr, "\r\033[Krelay::build %s: %s", target.c_str(), what.c_str());
    std::fflush(stderr);
  };
  std::vector<ir::PrimFunc> funcs(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      try {
        funcs[i] = lower_group(*jobs[i].first, jobs[i].second, t, opt.print_after_each_pass);
        if (progress)
          show("lowered " + std::to_string(++lowered) + "/" + std::to_string(jobs.size()) +
               " kernels");
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  size_t n = std::min<size_t>(jobs.size(), std::max(1u, std::thread::hardware_concurrency()));
  // MINITVM_PRINT_IR (or a print stream) prints each kernel's passes as they run: one kernel at
  // a time, readable.
  if (std::getenv("MINITVM_PRINT_IR") || opt.print_after_each_pass) n = 1;
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(worker);
  worker();
  for (auto& th : threads) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (progress) show("compiling " + std::to_string(funcs.size()) + " kernels");
  b.lib = minitvm::build(funcs, target);
  if (progress) std::fprintf(stderr, "\r\033[K");
  return b;
}

}  // namespace minitvm::relay
