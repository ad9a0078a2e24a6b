// The lowering pipeline: the order of passes is this code.
#include "minitvm/transform/lower.h"

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <set>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/te/schedule_ops.h"

namespace minitvm {

using namespace ir;

namespace {
/** Prints the IR after each pass (when asked) and times passes. */
class LoweringLogger {
 public:
  explicit LoweringLogger(std::ostream* os) : os_(os) {
    if (!os_ && std::getenv("MINITVM_PRINT_IR")) os_ = &std::cerr;
    const char* t = std::getenv("MINITVM_TIME_PASSES");
    time_ = t && std::string(t) != "0";
  }
  ~LoweringLogger() {
    if (!time_) return;
    std::cerr << "minitvm lowering pass times:\n";
    for (auto& [n, ms] : times_)
      std::cerr << "  " << std::setw(24) << std::left << n << ms << " ms\n";
  }
  template <typename F>
  Stmt run(const std::string& name, const Stmt& in, F&& pass) {
    auto t0 = std::chrono::steady_clock::now();
    Stmt out = pass(in);
    auto t1 = std::chrono::steady_clock::now();
    times_.push_back({name, std::chrono::duration<double, std::milli>(t1 - t0).count()});
    if (os_) {
      *os_ << "// ---- after " << name;
      if (out.same_as(in)) *os_ << " (unchanged)";
      *os_ << " ----\n";
      if (!out.same_as(in)) *os_ << out;
    }
    return out;
  }

 private:
  std::ostream* os_;
  bool time_ = false;
  std::vector<std::pair<std::string, double>> times_;
};
}  // namespace

std::vector<std::string> lower_pass_names() {
  return {"schedule_ops",           "storage_flatten",       "simplify",
          "vectorize_loop",         "inject_virtual_thread", "inject_double_buffer",
          "lower_thread_allreduce", "storage_rewrite",       "unroll_loop",
          "simplify_final",         "remove_no_op"};
}

PrimFunc lower(te::Schedule sch, const std::vector<te::Tensor>& args, const std::string& name,
               const LowerOptions& opt) {
  MINITVM_USER_CHECK(!name.empty()) << "lower: the function needs a name";
  // Loop nests first: inlining may replace the operations of consumer stages, and the argument
  // buffers are keyed by the final operations.
  for (auto& t : args)
    MINITVM_USER_CHECK(t.defined())
        << "lower " << name << ": undefined tensor in the argument list";
  Stmt scheduled = te::schedule_to_stmt(sch).body;
  // Arguments -> buffers. Outputs of the schedule are written to their argument buffers.
  std::map<std::pair<const OperationNode*, int>, Buffer> binds;
  std::vector<Var> params;
  std::map<const VarNode*, Buffer> buffer_map;
  for (auto& t : args) {
    auto st = sch.find_stage(t.op());
    MINITVM_USER_CHECK(st) << "lower " << name << ": argument " << t.name()
                           << " is not part of the schedule";
    MINITVM_USER_CHECK(st->op.op_type() == te::OpType::Placeholder || st->is_output)
        << "lower " << name << ": argument " << t.name()
        << " is an intermediate tensor computed inside the function; pass placeholders and outputs";
    std::string bname = t.name();
    if (st->op.num_outputs() > 1) bname += ".v" + std::to_string(t.value_index());
    Buffer b = Buffer::make(bname, t.dtype(), t.shape());
    binds[{st->op.get(), t.value_index()}] = b;
    params.push_back(b->data);
    buffer_map[b->data.get()] = b;
  }
  for (auto& out : sch.outputs()) {
    auto st = sch.find_stage(out);
    for (int i = 0; i < st->op.num_outputs(); ++i)
      MINITVM_USER_CHECK(binds.count({st->op.get(), i}))
          << "lower " << name << ": output " << out.name() << " is missing from the argument list";
  }

  LoweringLogger log(opt.print_after_each_pass);
  Stmt s = log.run("schedule_ops", Stmt(), [&](const Stmt&) { return scheduled; });
  s = log.run("storage_flatten", s,
              [&](const Stmt& x) { return transform::storage_flatten(x, binds); });
  s = log.run("simplify", s, [](const Stmt& x) { return simplify(x); });
  s = log.run("vectorize_loop", s, [&](const Stmt& x) {
    if (!opt.disable_vectorize) return transform::vectorize_loop(x);
    return x;
  });
  s = log.run("inject_virtual_thread", s,
              [](const Stmt& x) { return transform::inject_virtual_thread(x); });
  s = log.run("inject_double_buffer", s, [&](const Stmt& x) {
    return transform::inject_double_buffer(x, opt.double_buffer_split_loop);
  });
  s = log.run("lower_thread_allreduce", s,
              [](const Stmt& x) { return transform::lower_thread_allreduce(x); });
  s = log.run("storage_rewrite", s, [](const Stmt& x) { return transform::storage_rewrite(x); });
  s = log.run("unroll_loop", s,
              [&](const Stmt& x) { return transform::unroll_loop(x, opt.unroll); });
  s = log.run("simplify_final", s, [](const Stmt& x) { return simplify(x); });
  s = log.run("remove_no_op", s, [](const Stmt& x) { return transform::remove_no_op(x); });
  for (auto& [pname, pass] : opt.custom_passes) s = log.run(pname, s, pass);
  return PrimFunc::make(name, params, buffer_map, s);
}

}  // namespace minitvm
