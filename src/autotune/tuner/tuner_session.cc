// tune_task: tuner + measurer + log + resume + progress.
#include "minitvm/autotune/tuner_session.h"

#include <iostream>
#include <sstream>

#include "minitvm/autotune/tuner_log.h"
#include "minitvm/support/error.h"

namespace minitvm::autotune {

const char* measure_error_name(int error_no) {
  switch (static_cast<MeasureErrorNo>(error_no)) {
    case MeasureErrorNo::NoError:
      return "NO_ERROR";
    case MeasureErrorNo::InstantiationError:
      return "INSTANTIATION_ERROR";
    case MeasureErrorNo::CompileHost:
      return "COMPILE_HOST";
    case MeasureErrorNo::CompileDevice:
      return "COMPILE_DEVICE";
    case MeasureErrorNo::RuntimeDevice:
      return "RUNTIME_DEVICE";
    case MeasureErrorNo::WrongAnswer:
      return "WRONG_ANSWER";
    case MeasureErrorNo::BuildTimeout:
      return "BUILD_TIMEOUT";
    case MeasureErrorNo::RunTimeout:
      return "RUN_TIMEOUT";
    default:
      return "UNKNOWN_ERROR";
  }
}

std::string TuneSummary::error_summary() const {
  std::ostringstream os;
  for (const auto& [no, msg] : first_errors) {
    auto it = error_counts.find(no);
    os << (it == error_counts.end() ? 0 : it->second) << " x " << measure_error_name(no) << " ("
       << no << "): " << msg << "\n";
  }
  return os.str();
}

void check_tuning_target(const std::string& target) {
  Target t;
  try {
    t = parse_target(target);
  } catch (const CompileError& e) {
    MINITVM_USER_ERROR << "tuning target '" << target << "': " << e.what();
  }
  MINITVM_USER_CHECK(t.name == "llvm" || t.name == "cuda" || t.name == "nvptx")
      << "unknown tuning target '" << target << "' (kind '" << t.name
      << "'; expected llvm, cuda, nvptx or \"cuda -emulate\")";
}

TuneSummary tune_task(const Task& task, const TuneSessionOptions& opt, Measurer& measurer) {
  check_tuning_target(task.target_str());
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
  std::ostream& vout = opt.verbose_out ? *opt.verbose_out : std::cerr;
  cbs.push_back(
      [&failed, &sum, &opt, &vout](const Tuner& t, const std::vector<MeasureOutcome>& outs) {
        int trial = t.trials() - static_cast<int>(outs.size());
        for (const auto& o : outs) {
          ++trial;
          const int no = o.result.error_no;
          if (no == 0) continue;
          ++failed;
          ++sum.error_counts[no];
          std::string msg = o.error.empty() ? "(no message)" : o.error;
          sum.first_errors.emplace(no, msg);
          if (opt.verbose)
            vout << "trial " << trial << " config #" << o.config.index << " " << o.config.str()
                 << ": " << measure_error_name(no) << " (" << no << "): " << msg << "\n";
        }
      });
  ProgressBar bar(
      std::cerr, opt.progress && stderr_is_tty(), [&task](double c) { return task.throughput(c); },
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
  check_tuning_target(task.target_str());
  LocalMeasurer m(task, opt.measure);
  return tune_task(task, opt, m);
}

}  // namespace minitvm::autotune
