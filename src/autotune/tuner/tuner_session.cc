// tune_task: tuner + measurer + log + resume + progress.
#include "minitvm/autotune/tuner_session.h"

#include <iostream>

#include "minitvm/autotune/tuner_log.h"
#include "minitvm/support/error.h"

namespace minitvm::autotune {

TuneSummary tune_task(const Task& task, const TuneSessionOptions& opt, Measurer& measurer) {
  TuneSummary sum;
  sum.unit = task.throughput_unit();
  std::unique_ptr<Tuner> tuner = make_tuner(opt.tuner, task.config_space(), opt.seed);
  if (!opt.log_file.empty() && opt.resume) {
    auto hist = history_from_log(task, opt.log_file);
    tuner->load_history(hist);
    sum.resumed = tuner->trials();
  }
  std::vector<TuneCallback> cbs;
  if (!opt.log_file.empty()) cbs.push_back(log_to_file(task, opt.log_file, opt.log_version));
  int failed = 0;
  cbs.push_back([&failed](const Tuner&, const std::vector<MeasureOutcome>& outs) {
    for (const auto& o : outs) failed += o.result.error_no != 0;
  });
  ProgressBar bar(std::cerr, opt.progress && stderr_is_tty(), [&task](double c) { return task.throughput(c); },
                  sum.unit);
  cbs.push_back(bar.callback());
  TuneOptions to;
  to.n_trial = opt.n_trial;
  to.early_stopping = opt.early_stopping;
  to.batch_size = opt.batch_size;
  sum.measured = tuner->tune(measurer, to, cbs);
  bar.finish(*tuner);
  sum.failed = failed;
  if (tuner->best_index() >= 0) {
    sum.best_cost = tuner->best_cost();
    sum.best_throughput = task.throughput(sum.best_cost);
    sum.best_config = task.config_space().get(tuner->best_index());
  }
  sum.best_curve = tuner->best_curve();
  return sum;
}

TuneSummary tune_task(const Task& task, const TuneSessionOptions& opt) {
  LocalMeasurer m(task, opt.measure);
  return tune_task(task, opt, m);
}

}  // namespace minitvm::autotune
