// Tuning templates of the pool CPU schedule: one per task name that topi::pool_task_name can
// produce ("pool{1,2,3}d_{ncl,nlc,nchw,nhwc,ncdhw,ndhwc}_{fwd,bwd}.llvm"), and their CUDA twins
// (topi::pool_cuda_task_name: "....cuda", the CUDA template's knobs and schedule).
//
// Their arguments are exactly the tail of topi::pool_workload(plan, dir) (TVM 0.2: workload =
// (task name,) + args), so a Task built from a plan's workload writes records whose workload is
// the one build_pool queries under ApplyHistoryBest:
//
//   Json w = topi::pool_workload(plan, dir);
//   autotune::Task task(w[0], Json(w.begin() + 1, w.end()), "llvm");
//
// Arguments: [["TENSOR", batched input shape, dtype], mode ("max"|"avg"|"lp"), kernel, stride,
// pad_begin, pad_end, dilation, output lengths (lists, one entry per spatial axis; kernel/stride 0
// on an adaptive axis), rule string ("div<r>[=<override>][,lp<r>=<p>][,idx<b>]")]. The template
// rebuilds the PoolPlan from them, defines define_pool_cpu_space's knobs and schedules with
// schedule_pool_cpu, so a tuned config is the same config build_pool applies. Work is reported as
// bytes moved (inputs + outputs of one call), i.e. throughput in GB/s. The host reference is
// ReferencePoolExecutor for every forward and for avg/lp backward; max backward (whose indices
// input the tuner fills with arbitrary bytes) uses the fallback config compiled for llvm. The
// templates live in the frontend because their references are the frontend's executor; they
// register with the tuner at static initialisation, as topi's templates do.
#include <sstream>

#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/frontend/pool_executor.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/support/error.h"
#include "minitvm/topi/pool.h"

namespace minitvm::frontend {
namespace {

using autotune::Json;
using topi::BuildPoolOptions;
using topi::PoolAxis;
using topi::PoolBackward;
using topi::PoolDirection;
using topi::PooledKernel;
using topi::PoolForward;
using topi::PoolLayout;
using topi::PoolMode;
using topi::PoolPlan;

std::vector<ir::Expr> to_exprs(const std::vector<int64_t>& v) {
  std::vector<ir::Expr> r;
  for (int64_t x : v) r.push_back(ir::Expr(static_cast<int>(x)));
  return r;
}

std::vector<int64_t> int_list(const Json& j, const char* what) {
  MINITVM_USER_CHECK(j.is_array())
      << "pool template: " << what << " must be a list, got " << j.dump();
  std::vector<int64_t> v;
  for (const auto& x : j) {
    MINITVM_USER_CHECK(x.is_number_integer())
        << "pool template: " << what << " must hold integers, got " << j.dump();
    v.push_back(x.get<int64_t>());
  }
  return v;
}

// Parse "div<r>[=<override>][,lp<r>=<p>][,idx<b>]" (pool_schedule.cc rule_string) into the plan.
void parse_rule(const std::string& rule, PoolPlan& plan) {
  std::stringstream ss(rule);
  std::string part;
  while (std::getline(ss, part, ',')) {
    auto num_after = [&](size_t pos) {
      MINITVM_USER_CHECK(pos < part.size()) << "pool template: malformed rule '" << rule << "'";
      return std::stoll(part.substr(pos));
    };
    if (part.rfind("div", 0) == 0) {
      plan.divisor_rule = static_cast<topi::DivisorRule>(num_after(3));
      if (auto eq = part.find('='); eq != std::string::npos)
        plan.divisor_override = num_after(eq + 1);
    } else if (part.rfind("lp", 0) == 0) {
      plan.lp_rule = static_cast<topi::LpRule>(num_after(2));
      auto eq = part.find('=');
      MINITVM_USER_CHECK(eq != std::string::npos)
          << "pool template: malformed rule '" << rule << "'";
      plan.lp_norm = std::stod(part.substr(eq + 1));
    } else if (part.rfind("idx", 0) == 0) {
      const int64_t b = num_after(3);
      MINITVM_USER_CHECK(b >= 0 && b <= static_cast<int64_t>(topi::IndexBase::WindowTap))
          << "pool template: unknown index numbering " << b << " in rule '" << rule << "'";
      plan.index_base = static_cast<topi::IndexBase>(b);
    } else {
      MINITVM_USER_CHECK(false) << "pool template: unknown rule part '" << part << "' in '" << rule
                                << "'";
    }
  }
}

// The plan a pool workload describes (args = workload without its task name).
PoolPlan plan_from_args(int rank, PoolLayout layout, const Json& args) {
  MINITVM_USER_CHECK(args.is_array() && args.size() == 9)
      << "pool template: args are [[\"TENSOR\", shape, dtype], mode, kernel, stride, pad_begin, "
         "pad_end, "
         "dilation, output, rule] (topi::pool_workload without the task name), got "
      << args.dump();
  const Json& t = args[0];
  MINITVM_USER_CHECK(t.is_array() && t.size() == 3 && t[0] == "TENSOR" && t[2].is_string())
      << "pool template: first argument must be [\"TENSOR\", shape, dtype], got " << t.dump();
  std::vector<int64_t> shape = int_list(t[1], "input shape");
  MINITVM_USER_CHECK(static_cast<int>(shape.size()) == rank + 2)
      << "pool template: input shape " << t[1].dump() << " must have rank " << rank + 2;
  PoolPlan plan;
  plan.dtype = DataType::parse(t[2].get<std::string>());
  MINITVM_USER_CHECK(args[1].is_string()) << "pool template: mode must be a string";
  std::string mode = args[1].get<std::string>();
  MINITVM_USER_CHECK(mode == "max" || mode == "avg" || mode == "lp")
      << "pool template: unknown mode " << mode;
  plan.mode = mode == "max" ? PoolMode::Max : mode == "avg" ? PoolMode::Avg : PoolMode::Lp;
  plan.op = mode + "_pool" + std::to_string(rank) + "d";
  plan.layout = layout;
  plan.batched = true;
  plan.batch = shape[0];
  bool cf = layout == PoolLayout::ChannelsFirst;
  plan.channels = cf ? shape[1] : shape.back();
  std::vector<int64_t> k = int_list(args[2], "kernel"), s = int_list(args[3], "stride"),
                       pb = int_list(args[4], "pad_begin"), pe = int_list(args[5], "pad_end"),
                       d = int_list(args[6], "dilation"), o = int_list(args[7], "output");
  for (auto* v : {&k, &s, &pb, &pe, &d, &o})
    MINITVM_USER_CHECK(static_cast<int>(v->size()) == rank)
        << "pool template: every list needs " << rank << " entries";
  for (int i = 0; i < rank; ++i) {
    PoolAxis ax;
    ax.in = shape[static_cast<size_t>(cf ? 2 + i : 1 + i)];
    ax.out = o[i];
    ax.adaptive = k[i] == 0;
    ax.kernel = ax.adaptive ? 1 : k[i];
    ax.stride = ax.adaptive ? 1 : s[i];
    ax.pad_begin = pb[i];
    ax.pad_end = pe[i];
    ax.dilation = d[i];
    MINITVM_USER_CHECK(ax.in > 0 && ax.out > 0 && ax.kernel > 0 && ax.stride > 0 && ax.dilation > 0)
        << "pool template: bad geometry on axis " << i << " in " << args.dump();
    plan.axes.push_back(ax);
  }
  MINITVM_USER_CHECK(args[8].is_string()) << "pool template: rule must be a string";
  parse_rule(args[8].get<std::string>(), plan);
  for (int i = 0; i < rank && !plan.has_empty_window; ++i)
    for (int64_t x = 0; x < plan.axes[static_cast<size_t>(i)].out; ++x)
      if (plan.window(i, x).real_count() == 0) {
        plan.has_empty_window = true;
        break;
      }
  return plan;
}

HostArray to_host(const runtime::NDArray& a) {
  HostArray h(a.dtype(), a.shape());
  a.copy_to_bytes(h.raw(), h.nbytes());
  return h;
}

void from_host(runtime::NDArray& a, const HostArray& h) {
  MINITVM_ICHECK(static_cast<size_t>(a.nbytes()) == h.nbytes())
      << "pool template: reference size mismatch";
  a.copy_from_bytes(h.raw(), h.nbytes());
}

double tensor_bytes(const te::Tensor& t) {
  double n = t.dtype().bytes();
  for (const auto& e : t.shape()) {
    const int64_t* c = as_const_int(e);
    MINITVM_ICHECK(c) << "pool template: symbolic shape";
    n *= static_cast<double>(*c);
  }
  return n;
}

autotune::TemplateResult pool_template(int rank, PoolLayout layout, PoolDirection dir,
                                       autotune::ConfigEntity& cfg, const Json& args,
                                       bool cpu = true) {
  PoolPlan plan = plan_from_args(rank, layout, args);
  if (cpu) topi::define_pool_cpu_space(cfg, plan, dir);
  std::vector<te::Tensor> outputs, fargs;
  if (dir == PoolDirection::Forward) {
    te::Tensor x = te::placeholder(to_exprs(plan.batched_input_shape()), plan.dtype, "data");
    PoolForward f = topi::pool_forward(plan, x, false);
    outputs = {f.output};
    fargs = {x, f.output};
  } else {
    PoolBackward b = topi::pool_backward(plan);
    outputs = {b.grad_input};
    fargs = b.args();
  }
  autotune::TemplateResult r;
  r.schedule = cpu ? topi::schedule_pool_cpu(cfg, plan, dir, outputs)
                   : topi::schedule_pool_cuda(cfg, plan, dir, outputs);
  r.args = fargs;
  for (const auto& t : fargs) r.bytes += tensor_bytes(t);
  r.num_outputs = 1;
  if (dir == PoolDirection::Forward) {
    r.reference = [plan](std::vector<runtime::NDArray>& a) {
      ReferencePoolExecutor ref;
      PoolForwardResult out = ref.forward(plan, to_host(a.at(0)));
      from_host(a.at(1), out.output);
    };
  } else if (plan.mode != PoolMode::Max) {
    r.reference = [plan](std::vector<runtime::NDArray>& a) {
      ReferencePoolExecutor ref;
      HostArray go = to_host(a.at(0));
      // Avg ignores the input; lp reads it (args: grad_output, input, grad_input).
      HostArray in = plan.mode == PoolMode::Lp ? to_host(a.at(1))
                                               : HostArray(plan.dtype, plan.batched_input_shape());
      from_host(a.back(), ref.backward(plan, in, go, nullptr));
    };
  }
  return r;
}

// The CUDA twin ("pool{R}d_<layout>_{fwd|bwd}.cuda"): same arguments and computes, the CUDA
// template's knobs and schedule (pool_schedule_cuda.cc), so its records are what build_pool queries
// for CUDA targets. Reference: as for llvm; max backward compiles the CPU fallback for llvm.
autotune::TemplateResult pool_cuda_template(int rank, PoolLayout layout, PoolDirection dir,
                                            autotune::ConfigEntity& cfg, const Json& args) {
  PoolPlan plan = plan_from_args(rank, layout, args);
  if (cfg.is_fallback()) {
    topi::pool_cuda_fallback(cfg, plan, dir);
  } else {
    autotune::ConfigSpace space;
    topi::define_pool_cuda_space(space, plan, dir);
    autotune::require_config_fits(cfg, space, topi::pool_cuda_task_name(plan, dir));
  }
  autotune::TemplateResult r = pool_template(rank, layout, dir, cfg, args, /*cpu=*/false);
  if (dir == PoolDirection::Backward && plan.mode == PoolMode::Max) {
    r.reference = [plan](std::vector<runtime::NDArray>& a) {
      autotune::FallbackConfigEntity fb;
      topi::pool_cpu_fallback(fb, plan, PoolDirection::Backward);
      BuildPoolOptions o;
      o.config = &fb;
      PooledKernel k = topi::build_pool(plan, "llvm", PoolDirection::Backward, o);
      std::vector<runtime::ArgValue> call(a.begin(), a.end());
      k.module.get_function(k.func_name).call(call);
    };
  }
  return r;
}

bool register_all() {
  for (int rank = 1; rank <= 3; ++rank)
    for (auto layout : {PoolLayout::ChannelsFirst, PoolLayout::ChannelsLast})
      for (auto dir : {PoolDirection::Forward, PoolDirection::Backward}) {
        PoolPlan probe;
        probe.layout = layout;
        probe.axes.resize(static_cast<size_t>(rank));
        autotune::register_template(
            topi::pool_task_name(probe, dir),
            [rank, layout, dir](autotune::ConfigEntity& cfg, const Json& args) {
              return pool_template(rank, layout, dir, cfg, args);
            });
        autotune::register_template(
            topi::pool_cuda_task_name(probe, dir),
            [rank, layout, dir](autotune::ConfigEntity& cfg, const Json& args) {
              return pool_cuda_template(rank, layout, dir, cfg, args);
            });
      }
  return true;
}

const bool registered = register_all();

}  // namespace
}  // namespace minitvm::frontend
