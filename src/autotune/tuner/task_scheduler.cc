// Network tuning: the task scheduler of task_scheduler.h.
#include "minitvm/autotune/task_scheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <ostream>
#include <random>
#include <sstream>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/tuner.h"
#include "minitvm/autotune/tuner_log.h"
#include "minitvm/autotune/tuner_model.h"
#include "minitvm/autotune/tuner_session.h"
#include "minitvm/support/error.h"

namespace minitvm::autotune {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Cost used in the gradient for a task with no successful trial yet (Ansor's 1e10).
constexpr double kNoCost = 1e10;

double work_of(const Task& t) {
  return t.flop() > 0 ? t.flop() : t.bytes();
}

// Tasks whose measurements can train each other's model: same template and the same knobs.
std::string similarity_key(const Task& t) {
  std::string k = t.name() + "|" + t.target_str();
  for (const auto& knob : t.config_space().knobs()) k += "|" + knob.name + ":" + knob.kind;
  return k;
}

std::string ms(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  std::ostringstream os;
  os << std::fixed << std::setprecision(seconds < 1e-3 ? 4 : 3) << seconds * 1e3;
  return os.str();
}

struct TaskRun {
  std::unique_ptr<Tuner> tuner;
  std::unique_ptr<Measurer> measurer;
  TuneCallback log;                // appends records of this task (null without a log)
  std::vector<double> round_best;  // best cost after each round of this call
  std::string group;
};

}  // namespace

double estimated_latency(const std::vector<WeightedTask>& tasks, const std::vector<double>& costs) {
  MINITVM_ICHECK(tasks.size() == costs.size())
      << "estimated_latency: " << tasks.size() << " tasks, " << costs.size() << " costs";
  double sum = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!std::isfinite(costs[i])) return kInf;
    sum += tasks[i].weight * costs[i];
  }
  return sum;
}

std::optional<int64_t> fallback_config_index(const Task& task) {
  try {
    FallbackContext fb;
    fb.silent = true;
    DispatchScope scope(fb);
    AppliedTemplate a = apply_template(task.name(), task.args(), task.target_str());
    return task.config_space().index_of(a.config);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string NetworkTuneSummary::table(const std::vector<WeightedTask>& wt) const {
  std::ostringstream os;
  os << std::left << std::setw(4) << "#" << std::setw(7) << "weight" << std::setw(8) << "trials"
     << std::right << std::setw(13) << "fallback ms" << std::setw(11) << "best ms" << std::setw(10)
     << "speedup" << std::setw(12) << "throughput" << std::setw(8) << "share"
     << "  task\n";
  for (size_t i = 0; i < tasks.size() && i < wt.size(); ++i) {
    const TaskTuneState& s = tasks[i];
    const Task& t = wt[i].task;
    std::ostringstream thr, sp, share;
    if (std::isfinite(s.best_cost)) {
      thr << std::fixed << std::setprecision(1) << t.throughput(s.best_cost)
          << (t.flop() > 0 ? " GF/s" : " GB/s");
      if (s.fallback_cost > 0)
        sp << std::fixed << std::setprecision(2) << s.fallback_cost / s.best_cost << "x";
      if (std::isfinite(estimate) && estimate > 0)
        share << std::fixed << std::setprecision(1) << 100.0 * wt[i].weight * s.best_cost / estimate
              << "%";
    }
    os << std::left << std::setw(4) << i << std::setw(7) << wt[i].weight << std::setw(8) << s.trials
       << std::right << std::setw(13) << (s.fallback_cost > 0 ? ms(s.fallback_cost) : "-")
       << std::setw(11) << ms(s.best_cost) << std::setw(10) << sp.str() << std::setw(12)
       << thr.str() << std::setw(8) << share.str() << "  "
       << (wt[i].label.empty() ? t.workload_key() : wt[i].label) << "\n";
  }
  os << "estimated network latency (tuned kernels): fallback "
     << (fallback_estimate > 0 ? ms(fallback_estimate) : "n/a") << " ms, now " << ms(estimate)
     << " ms; " << resumed << " trials resumed, " << measured << " measured (" << failed
     << " failed) in " << std::fixed << std::setprecision(1) << seconds << " s\n";
  return os.str();
}

NetworkTuneSummary tune_tasks(const std::vector<WeightedTask>& tasks, const SchedulerOptions& opt,
                              const MeasurerFactory& make_measurer) {
  MINITVM_USER_CHECK(opt.strategy == "gradient" || opt.strategy == "round-robin" ||
                     opt.strategy == "sequential")
      << "task scheduler: unknown strategy '" << opt.strategy
      << "' (expected gradient, round-robin or sequential)";
  MINITVM_USER_CHECK(opt.round_trials >= 1)
      << "task scheduler: round_trials must be >= 1, got " << opt.round_trials;
  MINITVM_USER_CHECK(opt.n_trial >= 0)
      << "task scheduler: n_trial must be >= 0, got " << opt.n_trial;
  MINITVM_USER_CHECK(opt.backward_window >= 1) << "task scheduler: backward_window must be >= 1";
  MINITVM_USER_CHECK(opt.log_version == 0.1 || opt.log_version == 0.2)
      << "task scheduler: log version must be 0.1 or 0.2";
  for (const auto& t : tasks) {
    MINITVM_USER_CHECK(t.weight > 0 && std::isfinite(t.weight))
        << "task scheduler: task " << t.task.workload_key() << " has weight " << t.weight
        << " (must be > 0)";
    check_tuning_target(t.task.target_str());
  }
  auto t_start = std::chrono::steady_clock::now();
  const size_t n = tasks.size();
  NetworkTuneSummary sum;
  sum.tasks.resize(n);
  std::vector<TaskRun> runs(n);
  std::mt19937_64 rng(opt.seed * 7919 + 17);
  int total = 0;  // trials over all tasks, resumed included

  for (size_t i = 0; i < n; ++i) {
    const Task& t = tasks[i].task;
    TaskRun& r = runs[i];
    r.tuner = make_tuner(opt.tuner, t.config_space(), opt.seed + i);
    r.group = similarity_key(t);
    TaskTuneState& s = sum.tasks[i];
    s.fallback_index = opt.measure_fallback ? fallback_config_index(t) : std::nullopt;
    if (!opt.log_file.empty() && opt.resume) {
      auto hist = history_from_log(t, opt.log_file);
      r.tuner->load_history(hist);
      s.resumed = r.tuner->trials();
      for (const auto& [idx, res] : hist)
        if (s.fallback_index && idx == *s.fallback_index && res.error_no == 0)
          s.fallback_cost = res.mean_cost();
    }
    s.trials = r.tuner->trials();
    total += s.trials;
    sum.resumed += s.resumed;
  }
  // Records go to the log through one callback per task (created lazily: a run with nothing left
  // to measure does not touch the log).
  auto logger = [&](size_t i) -> TuneCallback& {
    if (!runs[i].log && !opt.log_file.empty())
      runs[i].log = log_to_file(tasks[i].task, opt.log_file, opt.log_version);
    return runs[i].log;
  };
  // Measures configs of task i (as a batch); logs each outcome once, as soon as it is known.
  size_t hooked = 0;
  auto measurer_of = [&](size_t i) -> Measurer& {
    TaskRun& r = runs[i];
    if (!r.measurer) {
      r.measurer = make_measurer(tasks[i].task);
      MINITVM_ICHECK(r.measurer) << "measurer factory returned null for "
                                 << tasks[i].task.workload_key();
      r.measurer->on_outcome = [&, i](const MeasureOutcome& o) {
        ++hooked;
        if (auto& cb = logger(i)) cb(*runs[i].tuner, {o});
      };
    }
    return *r.measurer;
  };
  auto account = [&](size_t i, const std::vector<MeasureOutcome>& outs) {
    TaskTuneState& s = sum.tasks[i];
    for (const auto& o : outs) {
      ++s.measured;
      ++sum.measured;
      if (o.result.error_no != 0) {
        ++s.failed;
        ++sum.failed;
      }
    }
    if (hooked == 0 && !outs.empty())
      if (auto& cb = logger(i)) cb(*runs[i].tuner, outs);
    hooked = 0;
  };
  auto refresh = [&](size_t i) {
    TaskTuneState& s = sum.tasks[i];
    const Tuner& tu = *runs[i].tuner;
    s.trials = tu.trials();
    s.best_cost = tu.best_index() >= 0 ? tu.best_cost() : kInf;
    s.best_index = tu.best_index();
    bool stalled = opt.early_stopping > 0 && tu.best_trial() > 0 &&
                   tu.trials() - tu.best_trial() >= opt.early_stopping;
    s.done = !tu.has_next() || stalled;
  };
  auto estimate_now = [&]() {
    std::vector<double> c;
    for (const auto& s : sum.tasks) c.push_back(s.best_cost);
    return estimated_latency(tasks, c);
  };
  auto add_point = [&]() {
    double e = estimate_now();
    if (std::isfinite(e)) sum.curve.push_back({total, e});
  };
  for (size_t i = 0; i < n; ++i) refresh(i);
  add_point();

  // The fallback round: each task's fallback config, unless already measured.
  for (size_t i = 0; i < n && total < opt.n_trial; ++i) {
    TaskTuneState& s = sum.tasks[i];
    if (!s.fallback_index || runs[i].tuner->visited(*s.fallback_index)) continue;
    Measurer& m = measurer_of(i);
    std::vector<MeasureOutcome> outs = m.measure({tasks[i].task.config(*s.fallback_index)});
    MINITVM_ICHECK(outs.size() == 1)
        << "measurer returned " << outs.size() << " results for 1 config";
    runs[i].tuner->load_history({{*s.fallback_index, outs[0].result}});
    if (outs[0].result.error_no == 0) s.fallback_cost = outs[0].result.mean_cost();
    account(i, outs);
    ++total;
    refresh(i);
    if (opt.progress)
      *opt.progress << "[fallback] task " << i + 1 << "/" << n << " "
                    << (tasks[i].label.empty() ? tasks[i].task.workload_key() : tasks[i].label)
                    << ": " << (s.fallback_cost > 0 ? ms(s.fallback_cost) + " ms" : "failed")
                    << "\n";
  }
  add_point();
  bool all_fallbacks = n > 0;
  for (const auto& s : sum.tasks) all_fallbacks &= s.fallback_cost > 0;
  if (all_fallbacks) {
    std::vector<double> c;
    for (const auto& s : sum.tasks) c.push_back(s.fallback_cost);
    sum.fallback_estimate = estimated_latency(tasks, c);
  }

  // Sequential shares: an equal part of the budget per task (earlier tasks take the remainder).
  std::vector<int> share(n, 0);
  for (size_t i = 0; i < n; ++i)
    share[i] =
        opt.n_trial / static_cast<int>(std::max<size_t>(1, n)) +
        (static_cast<int>(i) < opt.n_trial % static_cast<int>(std::max<size_t>(1, n)) ? 1 : 0);
  size_t rr_next = 0;

  auto gradient_of = [&](size_t i) {
    const TaskTuneState& s = sum.tasks[i];
    const TaskRun& r = runs[i];
    const double best = std::isfinite(s.best_cost) ? s.best_cost : kNoCost;
    const double chain = tasks[i].weight;  // d f / d best_i
    double backward = 0;
    const int rounds = static_cast<int>(r.round_best.size());
    if (rounds - 1 - opt.backward_window >= 0) {
      auto at = [&](int k) { return std::isfinite(r.round_best[k]) ? r.round_best[k] : kNoCost; };
      backward = (at(rounds - 1) - at(rounds - 1 - opt.backward_window)) / opt.backward_window;
    }
    double g1 = best - best / std::max(1, rounds);
    double g2 = opt.beta * 1e30;
    double best_rate = 0;
    int siblings = 0;
    for (size_t j = 0; j < n; ++j) {
      if (runs[j].group != r.group) continue;
      ++siblings;
      if (std::isfinite(sum.tasks[j].best_cost) && sum.tasks[j].best_cost > 0)
        best_rate = std::max(best_rate, work_of(tasks[j].task) / sum.tasks[j].best_cost);
    }
    if (siblings > 1 && best_rate > 0) g2 = opt.beta * work_of(tasks[i].task) / best_rate;
    double forward = std::min(g1, g2) - best;
    return chain * (opt.alpha * backward + (1 - opt.alpha) * forward);
  };

  auto pick = [&]() -> int {
    std::vector<size_t> alive;
    for (size_t i = 0; i < n; ++i)
      if (!sum.tasks[i].done) alive.push_back(i);
    if (alive.empty()) return -1;
    if (opt.strategy == "sequential") {
      for (size_t i : alive)
        if (sum.tasks[i].trials < share[i]) return static_cast<int>(i);
      return static_cast<int>(alive.front());  // shares spent but budget left (tasks that ran out)
    }
    if (opt.strategy == "round-robin") {
      for (size_t k = 0; k < n; ++k) {
        size_t i = (rr_next + k) % n;
        if (!sum.tasks[i].done) {
          rr_next = i + 1;
          return static_cast<int>(i);
        }
      }
      return -1;
    }
    // Warm-up: one round each, the tasks that weigh most in the estimate first (a budget smaller
    // than one round per task goes where the time is).
    int warm = -1;
    double warm_share = -1;
    for (size_t i : alive) {
      if (!runs[i].round_best.empty()) continue;
      const double c = std::isfinite(sum.tasks[i].best_cost) ? sum.tasks[i].best_cost : kNoCost;
      if (tasks[i].weight * c > warm_share) {
        warm_share = tasks[i].weight * c;
        warm = static_cast<int>(i);
      }
    }
    if (warm >= 0) return warm;
    if (std::uniform_real_distribution<double>(0, 1)(rng) < opt.eps_random)
      return static_cast<int>(
          alive[std::uniform_int_distribution<size_t>(0, alive.size() - 1)(rng)]);
    std::vector<double> g;
    for (size_t i : alive) g.push_back(gradient_of(i));
    auto [lo, hi] = std::minmax_element(g.begin(), g.end());
    if (*lo == *hi)
      return static_cast<int>(
          alive[std::uniform_int_distribution<size_t>(0, alive.size() - 1)(rng)]);
    return static_cast<int>(alive[static_cast<size_t>(lo - g.begin())]);
  };

  while (total < opt.n_trial) {
    int pi = pick();
    if (pi < 0) break;
    const size_t i = static_cast<size_t>(pi);
    TaskRun& r = runs[i];
    int k = std::min(opt.round_trials, opt.n_trial - total);
    if (opt.strategy == "sequential") k = std::min(k, std::max(1, share[i] - sum.tasks[i].trials));
    if (opt.transfer) {
      if (auto* mt = dynamic_cast<ModelTuner*>(r.tuner.get())) {
        std::vector<std::vector<double>> xs;
        std::vector<double> ys;
        for (size_t j = 0; j < n; ++j) {
          if (j == i || runs[j].group != r.group) continue;
          if (auto* other = dynamic_cast<ModelTuner*>(runs[j].tuner.get()))
            other->transfer_rows(xs, ys);
        }
        constexpr size_t kMaxTransfer = 512;  // the newest rows; fitting cost grows with rows
        if (xs.size() > kMaxTransfer) {
          xs.erase(xs.begin(), xs.end() - kMaxTransfer);
          ys.erase(ys.begin(), ys.end() - kMaxTransfer);
        }
        if (!xs.empty()) mt->set_transfer_data(std::move(xs), std::move(ys));
      }
    }
    Measurer& m = measurer_of(i);
    TuneOptions to;
    to.n_trial = r.tuner->trials() + k;
    to.batch_size = k;
    const int before = r.tuner->trials();
    r.tuner->tune(m, to, {[&, i](const Tuner&, const std::vector<MeasureOutcome>& outs) {
                    account(i, outs);
                  }});
    const int done_now = r.tuner->trials() - before;
    total += done_now;
    refresh(i);
    if (done_now == 0) sum.tasks[i].done = true;  // nothing left to propose
    ++sum.tasks[i].rounds;
    r.round_best.push_back(sum.tasks[i].best_cost);
    sum.round_tasks.push_back(pi);
    add_point();
    if (opt.progress) {
      const TaskTuneState& s = sum.tasks[i];
      const Task& t = tasks[i].task;
      *opt.progress << "[" << total << "/" << opt.n_trial << "] task " << i + 1 << "/" << n << " "
                    << (tasks[i].label.empty() ? t.workload_key() : tasks[i].label) << ": trials "
                    << s.trials << ", best ";
      if (std::isfinite(s.best_cost))
        *opt.progress << std::fixed << std::setprecision(2) << t.throughput(s.best_cost) << " "
                      << t.throughput_unit() << " (" << ms(s.best_cost) << " ms)";
      else
        *opt.progress << "n/a";
      *opt.progress << ", est. network " << ms(estimate_now()) << " ms\n" << std::defaultfloat;
    }
  }
  for (size_t i = 0; i < n; ++i) refresh(i);
  sum.estimate = estimate_now();
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return sum;
}

NetworkTuneSummary tune_tasks(const std::vector<WeightedTask>& tasks, const SchedulerOptions& opt,
                              const MeasureOption& measure) {
  return tune_tasks(
      tasks, opt, [measure](const Task& t) { return std::make_unique<LocalMeasurer>(t, measure); });
}

}  // namespace minitvm::autotune
