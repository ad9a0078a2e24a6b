/** \file
 * Tuning tasks and the template registry (TVM `autotvm.task.Task`, `@autotvm.template`).
 *
 * A template is a function of a config and the task arguments that returns a schedule, the
 * tensors to pass to the compiled function, and the work it does (flop or bytes). Templates
 * register under a name, by convention `<op>.<target kind>` ("matmul.llvm", "pool.llvm"):
 *
 *   MINITVM_REGISTER_TEMPLATE("matmul.llvm", [](ConfigEntity& cfg, const Json& args) {
 *     ... cfg.define_split("tile_x", n, {.num_outputs = 2}); ...
 *     auto [xo, xi] = s[C].split(C.op().axis()[1], cfg.split("tile_x").size[1]);
 *     return TemplateResult{s, {A, B, C}, 2.0 * m * n * k};
 *   });
 *
 * While the space is being built the template receives a FallbackConfigEntity: define_* calls
 * collect the knobs and every knob reads as its first candidate. For a candidate it receives a
 * plain ConfigEntity (define_* are no-ops, reads return the candidate's values). A template may
 * throw InvalidConfig (MINITVM_CONFIG_CHECK) to reject a config; the tuner records that as a failed
 * measurement (error 1, INSTANTIATION_ERROR).
 *
 * A Task is (template name, args, target): its workload is TVM 0.2's `(name,) + args`, so the
 * records it produces dispatch like TVM v0.7 records.
 */
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/autotune/space.h"
#include "minitvm/autotune/target.h"
#include "minitvm/runtime/ndarray.h"
#include "minitvm/te/schedule.h"
#include "minitvm/transform/lower.h"

namespace minitvm::autotune {

/** What a template returns for one config. */
struct TemplateResult {
  te::Schedule schedule;
  /** Arguments of the compiled function, inputs first, outputs last (see num_outputs). */
  std::vector<te::Tensor> args;
  /** Floating-point operations of one call (0 when the op is memory bound; then `bytes`). */
  double flop = 0;
  /** Bytes moved by one call (used for GB/s when flop is 0). */
  double bytes = 0;
  /** How many trailing entries of `args` are outputs (checked for correctness). */
  int num_outputs = 1;
  /** Options for lower() (unroll settings picked by knobs, ...). */
  LowerOptions lower_options{};
  /** Optional host reference: fills the outputs from the inputs (all CPU arrays, in `args`
   *  order). When absent, the reference is the fallback config compiled for llvm. */
  std::function<void(std::vector<runtime::NDArray>&)> reference;
};

/** A template function; see the file comment. */
using TemplateFn = std::function<TemplateResult(ConfigEntity& cfg, const Json& args)>;
/** A template written as in TVM: it takes only the arguments and reads its config with
 *  get_config() (see the example below). */
using ArgsTemplateFn = std::function<TemplateResult(const Json& args)>;

/** Register a template; re-registering a name replaces it (returns true, for static init). */
bool register_template(const std::string& name, TemplateFn fn);
/**
 * Register a TVM-style template (`@autotvm.template` + `cfg = autotvm.get_config()`):
 *
 *   MINITVM_REGISTER_TEMPLATE("mm.llvm", [](const Json& args) {
 *     ConfigEntity& cfg = get_config();
 *     ... te::Schedule s = te::create_schedule({C.op()});
 *     auto y = C.op().axis()[0], x = C.op().axis()[1];
 *     cfg.define_split("tile_y", y);                       // the axis' extent; factors policy
 *     cfg.define_split("tile_x", x);
 *     auto [yo, yi] = cfg["tile_y"].apply<2>(s, C, y);
 *     auto [xo, xi] = cfg["tile_x"].apply<2>(s, C, x);
 *     s[C].reorder({yo, xo, yi, xi});
 *     return TemplateResult{s, {A, B, C}, 2.0 * m * n * k};
 *   });
 */
bool register_template(const std::string& name, ArgsTemplateFn fn);

/** The config of the template call running on this thread (TVM `autotvm.get_config()`): while a
 *  Task builds its space, the FallbackConfigEntity that collects the knobs (TVM's ConfigSpace); for
 *  a tuning candidate, the candidate; under apply_template, the dispatched config. Throws
 *  CompileError outside a template call. */
ConfigEntity& get_config();
/** The target of the template call running on this thread (TVM `tvm.target.Target.current()`):
 *  the Task's, or apply_template's. Throws CompileError outside a template call. */
const Target& template_target();

/** What apply_template ran. */
struct AppliedTemplate {
  TemplateResult result;
  ConfigEntity config;  ///< the config the template ran with (knobs as read)
  bool is_fallback = false;
  Json workload;  ///< (name,) + args: the key that was queried
};

/**
 * Call a registered template as TVM users call a template function under `with target:` and a
 * dispatch context: the workload (name,) + args is queried from DispatchContext::current() for the
 * target, and the template runs with the answer (a record of ApplyHistoryBest, the config of
 * ApplyConfig, or a fresh fallback: every knob its first candidate). A config that does not fit
 * the template's space (check_config) throws InvalidConfig naming the knob. Unknown template:
 * CompileError.
 */
AppliedTemplate apply_template(const std::string& name, const Json& args,
                               const std::string& target);
/** The template registered under name, or nullptr. */
const TemplateFn* find_template(const std::string& name);
/** Names of all registered templates, sorted. */
std::vector<std::string> template_names();

/** A template instance: template name, arguments and target. */
class Task {
 public:
  Task() = default;
  /** Build the task and its config space by running the template once with a fallback config
   *  (nothing is lowered or compiled). Throws CompileError for an unknown template. */
  Task(std::string name, Json args, const std::string& target);

  const std::string& name() const { return name_; }
  const Json& args() const { return args_; }
  const std::string& target_str() const { return target_str_; }
  const Target& target() const { return target_; }
  /** `(name,) + args` as TVM 0.2 computes it. */
  const Json& workload() const { return workload_; }
  /** Python repr of the workload (TVM's dispatch key text). */
  std::string workload_key() const;
  const ConfigSpace& config_space() const { return space_; }
  /** flop (or bytes when flop is 0) of one call, from the fallback instantiation. */
  double flop() const { return flop_; }
  double bytes() const { return bytes_; }
  /** "GFLOP/s" or "GB/s": the unit in which throughput is reported. */
  std::string throughput_unit() const { return flop_ > 0 ? "GFLOP/s" : "GB/s"; }
  /** Work units per second / 1e9 for a cost in seconds (0 for a non-positive cost). */
  double throughput(double seconds) const;

  /** Run the template for a config (may throw InvalidConfig or CompileError). */
  TemplateResult instantiate(ConfigEntity& cfg) const;
  /** Config at a flat index of the space. */
  ConfigEntity config(int64_t index) const { return space_.get(index); }

 private:
  std::string name_;
  Json args_ = Json::array();
  std::string target_str_;
  Target target_;
  Json workload_ = Json::array();
  ConfigSpace space_;
  double flop_ = 0, bytes_ = 0;
  const TemplateFn* fn_ = nullptr;
};

/** An operator's strategy (TVM `relay.op.strategy`): the tasks, (template name, arguments) pairs in
 *  TVM's order, of a network layer `{"op": OP, "args": args}` for a target kind ("llvm", "cuda";
 *  nvptx counts as cuda). */
using OpStrategyFn = std::function<std::vector<std::pair<std::string, Json>>(
    const std::string& target_kind, const Json& args)>;
/** Register the strategy of an operator; re-registering replaces it (returns true, for static
 * init). topi registers conv2d, depthwise_conv2d(_nchw) and dense. */
bool register_op_strategy(const std::string& op, OpStrategyFn fn);
/** The canonical form of a template's task arguments (e.g. the layouts conv2d_NCHWc.x86's workload
 *  names, the padding TVM's CUDA conv tasks carry as four values). */
using TaskArgsFn = std::function<Json(const Json& args)>;
/** Register the argument rule of a template; extract_tasks applies it to every task of that
 *  template, explicit or from a strategy. Returns true, for static init. */
bool register_task_args(const std::string& template_name, TaskArgsFn fn);

/**
 * Tasks of a network description, without building anything. The description is a JSON object
 * `{"layers": [...]}` (or a bare array) whose entries are either `{"template": NAME, "args":
 * [...]}` or `{"op": OP, "args": [...]}`. An op layer's tasks come from the op's registered
 * strategy (register_op_strategy), else it is the one task `OP.<target kind>`; an explicit
 * "template" is taken as is. Each task's arguments then pass through its template's rule
 * (register_task_args). Identical (template, args) tasks become one. Tasks whose template is not
 * registered are skipped with a warning (their names are added to `skipped`).
 */
std::vector<Task> extract_tasks(const Json& network, const std::string& target,
                                std::vector<std::string>* skipped = nullptr);

/** Parse a command-line argument as JSON (`512`, `[1,2]`, `"x"`), falling back to a string. */
Json parse_cli_arg(const std::string& text);

}  // namespace minitvm::autotune

/** Register a template at static-initialisation time. */
#define MINITVM_REGISTER_TEMPLATE(name, fn)                               \
  static const bool MINITVM_TPL_CONCAT(minitvm_template_reg_, __LINE__) = \
      ::minitvm::autotune::register_template(name, fn)
#define MINITVM_TPL_CONCAT2(a, b) a##b
#define MINITVM_TPL_CONCAT(a, b) MINITVM_TPL_CONCAT2(a, b)

namespace minitvm {
/** TVM spelling: `autotvm::Task`, `autotvm::ConfigSpace`, ... */
namespace autotvm = autotune;
}  // namespace minitvm
