// `minitvm tophub check` for llvm records: the record's config applied to its registered tuning
// template (conv2d_NCHWc.x86, pool{R}d_{layout}_{fwd|bwd}.llvm, matmul.llvm), built for llvm, run
// and compared with the template's reference, through the tuner's own measurer.
#include <chrono>

#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/task.h"
#include "minitvm/devtools/sweep.h"
#include "minitvm/support/error.h"

namespace minitvm::topi::sweep {

bool is_llvm_record(const autotune::Record& r) {
  return r.input.target.name == "llvm";
}

LlvmCheckResult check_llvm_record(const autotune::Record& rec) {
  auto t0 = std::chrono::steady_clock::now();
  LlvmCheckResult res;
  auto finish = [&](std::string stage, const std::string& reason) {
    res.stage = std::move(stage);
    res.reason = first_line(reason);
    res.passed = res.stage.empty();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  if (!autotune::find_template(rec.input.task_name)) {
    res.skipped = true;
    return finish("skip", "task " + rec.input.task_name + " is not a registered template");
  }
  autotune::Task task;
  try {
    task = autotune::Task(rec.input.task_name, rec.input.args, "llvm");
  } catch (const std::exception& e) {
    // The template rejects the record's arguments: the line cannot be what the template wrote.
    return finish("config",
                  std::string("arguments rejected by ") + rec.input.task_name + ": " + e.what());
  }
  std::optional<int64_t> index = task.config_space().index_of(rec.input.config);
  if (!index)
    return finish("config", "config " + rec.input.config.str() + " is not in the space of " +
                                rec.input.task_name + " (" +
                                std::to_string(task.config_space().size()) + " configs)");
  autotune::MeasureOption mo;
  mo.check_correctness = true;
  // The CUDA path's tolerance (CheckOptions::tolerance: |got - ref| <= 1e-3 * max(1, |ref|)): the
  // measurer's default atol 1e-4 fails float32 sums over thousands of terms that differ only in
  // their order (measured: 1.1e-4 on a 512-channel 3x3 layer of llvm_v0.04.log).
  mo.rtol = 1e-3;
  mo.atol = 1e-3;
  mo.number = 1;
  mo.repeat = 1;
  mo.min_repeat_ms = 0;
  mo.n_parallel = 1;
  autotune::LocalMeasurer measurer(task, mo);
  auto outs = measurer.measure({task.config_space().get(*index)});
  MINITVM_ICHECK(outs.size() == 1)
      << "check_llvm_record: the measurer returned " << outs.size() << " results";
  const auto& o = outs[0];
  switch (static_cast<autotune::MeasureErrorNo>(o.result.error_no)) {
    case autotune::MeasureErrorNo::NoError:
      return finish("", "");
    case autotune::MeasureErrorNo::InstantiationError:
      return finish("instantiate", o.error);
    case autotune::MeasureErrorNo::CompileHost:
    case autotune::MeasureErrorNo::BuildTimeout:
      return finish("build", o.error);
    case autotune::MeasureErrorNo::WrongAnswer:
      return finish("compare", o.error);
    default:
      return finish("run",
                    o.error.empty() ? "error " + std::to_string(o.result.error_no) : o.error);
  }
}

}  // namespace minitvm::topi::sweep
