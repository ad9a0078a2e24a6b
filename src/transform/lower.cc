// The lowering pipeline: the order of passes is this code.
#include "minitvm/transform/lower.h"

#include <map>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/te/schedule_ops.h"
#include "minitvm/transform/pipeline.h"

namespace minitvm {

using namespace ir;

namespace {
using Binds = std::map<std::pair<const OperationNode*, int>, Buffer>;

/** The lowering pipeline after schedule_ops, in order. `binds` may be empty when only the names
 *  are wanted. */
std::vector<transform::NamedPass> lowering_passes(const LowerOptions& opt, const Binds& binds) {
  using transform::NamedPass;
  std::vector<NamedPass> p;
  p.push_back({"storage_flatten",
               [&binds](const Stmt& x) { return transform::storage_flatten(x, binds); }});
  p.push_back({"simplify", [](const Stmt& x) { return simplify(x); }});
  p.push_back(
      {"hoist_if_then_else", [](const Stmt& x) { return transform::hoist_if_then_else(x); }});
  const bool vectorize = !opt.disable_vectorize;
  p.push_back({"loop_partition", [vectorize](const Stmt& x) {
                 return vectorize ? transform::loop_partition(x) : x;
               }});
  p.push_back({"vectorize_loop", [vectorize](const Stmt& x) {
                 return vectorize ? transform::vectorize_loop(x) : x;
               }});
  p.push_back(
      {"inject_virtual_thread", [](const Stmt& x) { return transform::inject_virtual_thread(x); }});
  const int split_loop = opt.double_buffer_split_loop;
  p.push_back({"inject_double_buffer", [split_loop](const Stmt& x) {
                 return transform::inject_double_buffer(x, split_loop);
               }});
  p.push_back({"lower_thread_allreduce",
               [](const Stmt& x) { return transform::lower_thread_allreduce(x); }});
  p.push_back({"storage_rewrite", [](const Stmt& x) { return transform::storage_rewrite(x); }});
  const transform::UnrollOptions unroll = opt.unroll;
  p.push_back(
      {"unroll_loop", [unroll](const Stmt& x) { return transform::unroll_loop(x, unroll); }});
  p.push_back({"partition_guarded_tiles",
               [](const Stmt& x) { return transform::partition_guarded_tiles(x); }});
  p.push_back({"simplify_final", [](const Stmt& x) { return simplify(x); }});
  p.push_back({"remove_no_op", [](const Stmt& x) { return transform::remove_no_op(x); }});
  for (auto& [name, pass] : opt.custom_passes) p.push_back({name, pass});
  return p;
}
/** The first stage of the pipeline: te's loop nests (run before the passes, logged as a pass). */
constexpr const char* kScheduleOps = "schedule_ops";
}  // namespace

std::vector<std::string> lower_pass_names() {
  std::vector<std::string> names = {kScheduleOps};
  for (auto& p : lowering_passes(LowerOptions{}, Binds{})) names.push_back(p.name);
  return names;
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
  Binds binds;
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

  transform::PassLogger log(opt.print_after_each_pass);
  Stmt s = log.run({kScheduleOps, [&](const Stmt&) { return scheduled; }}, Stmt());
  for (const transform::NamedPass& pass : lowering_passes(opt, binds)) s = log.run(pass, s);
  return PrimFunc::make(name, params, buffer_map, s);
}

}  // namespace minitvm
