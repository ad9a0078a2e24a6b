// Log callbacks, resume, pick_best and the progress bar.
#include "minitvm/autotune/tuner_log.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <unordered_set>

#include "minitvm/autotune/measure.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::autotune {

TuneCallback log_to_file(const Task& task, const std::string& path, double version) {
  // A run killed while writing leaves its last line without the newline; appending straight onto
  // it would merge the next record into that line. Start on a new line and say which one was cut
  // (it stays in the file; loading skips it with the same file:line).
  bool cut = false;
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!text.empty() && text.back() != '\n') {
        cut = true;
        size_t line = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
        log_warning(
            "tuning log " + path + ":" + std::to_string(line) +
            ": the last line has no newline (cut by an interrupted run?); new records start on the "
            "next line");
      }
    }
  }
  auto out = std::make_shared<std::ofstream>(path, std::ios::app);
  MINITVM_USER_CHECK(out->good()) << "cannot open tuning log '" << path << "' for appending";
  if (cut) *out << '\n';
  return [task, out, path, version](const Tuner&, const std::vector<MeasureOutcome>& outs) {
    for (const auto& o : outs) {
      *out << encode_record(make_record(task, o.config, o.result, version, o.where)) << '\n';
      out->flush();  // one line at a time: a killed run keeps everything measured so far
    }
    MINITVM_RUNTIME_CHECK(out->good()) << "writing tuning log '" << path << "' failed";
  };
}

std::vector<std::pair<int64_t, MeasureResult>> history_from_log(const Task& task,
                                                                const std::string& path) {
  std::vector<std::pair<int64_t, MeasureResult>> hist;
  if (!std::ifstream(path).good()) return hist;
  LoadOptions lo;
  lo.check_index = false;
  std::vector<Record> recs = load_records(path, lo);
  std::unordered_set<int64_t> seen;
  for (const Record& r : recs) {
    if (r.input.task_name != task.name() || r.input.args != task.args() ||
        r.input.target_str != task.target_str())
      continue;
    std::optional<int64_t> idx = task.config_space().index_of(r.input.config);
    if (!idx || seen.count(*idx)) continue;
    seen.insert(*idx);
    hist.push_back({*idx, r.result});
  }
  return hist;
}

std::vector<Record> pick_best(const std::vector<Record>& records) {
  std::map<std::string, size_t> best;  // key -> position in out
  std::vector<Record> out;
  for (const Record& r : records) {
    if (r.result.error_no != 0 || r.result.costs.empty()) continue;
    std::string key = r.input.target_str + "|" + workload_key(r.input.workload);
    auto it = best.find(key);
    if (it == best.end()) {
      best[key] = out.size();
      out.push_back(r);
    } else if (r.result.mean_cost() < out[it->second].result.mean_cost()) {
      out[it->second] = r;
    }
  }
  return out;
}

size_t pick_best(const std::string& in_path, const std::string& out_path) {
  LoadOptions lo;
  lo.check_index = false;
  std::vector<Record> best = pick_best(load_records(in_path, lo));
  save_records(out_path, best, /*append=*/false);
  return best.size();
}

bool stderr_is_tty() {
  return isatty(fileno(stderr)) != 0;
}

namespace {
double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
std::string clock_text(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  long t = static_cast<long>(s + 0.5);
  char buf[32];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}
}  // namespace

ProgressBar::ProgressBar(std::ostream& os, bool enabled, std::function<double(double)> unit_scale,
                         std::string unit)
    : os_(os),
      enabled_(enabled),
      scale_(std::move(unit_scale)),
      unit_(std::move(unit)),
      start_(now_s()) {}

std::string ProgressBar::render(int done, int total, double best_cost, double elapsed_s) const {
  const int width = 30;
  int filled = total > 0 ? static_cast<int>(static_cast<double>(width) * done / total) : 0;
  filled = std::min(filled, width);
  std::ostringstream s;
  s << '[' << std::string(filled, '=') << (filled < width ? ">" : "")
    << std::string(width - filled - (filled < width ? 1 : 0), ' ') << "] " << done << '/' << total;
  if (std::isfinite(best_cost) && best_cost > 0 && best_cost < 1e9)
    s << "  best " << std::fixed << std::setprecision(2)
      << (scale_ ? scale_(best_cost) : 1.0 / best_cost) << ' ' << unit_;
  else
    s << "  best -";
  s << "  elapsed " << clock_text(elapsed_s);
  if (done > 0 && total > done) s << "  ETA " << clock_text(elapsed_s / done * (total - done));
  return s.str();
}

TuneCallback ProgressBar::callback() {
  return [this](const Tuner& t, const std::vector<MeasureOutcome>&) {
    if (!enabled_) return;
    os_ << '\r' << render(t.trials(), t.planned_trials(), t.best_cost(), now_s() - start_)
        << "\x1b[K" << std::flush;
    drawn_ = true;
  };
}

void ProgressBar::finish(const Tuner& t) {
  if (!enabled_) return;
  os_ << '\r'
      << render(t.trials(), std::max(t.trials(), t.planned_trials()), t.best_cost(),
                now_s() - start_)
      << "\x1b[K\n"
      << std::flush;
}

}  // namespace minitvm::autotune
