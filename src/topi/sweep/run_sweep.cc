// `minitvm tophub check`: every workload of the given logs through check_workload, with a summary.
#include <iomanip>
#include <iostream>
#include <map>

#include "minitvm/topi/sweep.h"

namespace minitvm::topi::sweep {

SweepSummary run_sweep(const std::vector<std::string>& files, const SweepOptions& opt, std::ostream& out) {
  std::vector<autotune::Record> records;
  for (const auto& f : files) {
    autotune::LoadReport rep;
    auto r = autotune::load_records(f, {}, &rep);
    for (const auto& s : rep.skipped) out << "warning: " << s.file << ":" << s.line << ": " << s.reason << "\n";
    records.insert(records.end(), r.begin(), r.end());
  }
  autotune::ApplyHistoryBest best(records);
  CollectedWorkloads ws = collect_workloads(records);
  SweepSummary sum;
  std::map<std::string, int> skipped_by_reason;
  for (const auto& [what, why] : ws.skipped) {
    ++skipped_by_reason[why];
    if (opt.verbose) out << "SKIP " << what << ": " << why << "\n";
  }
  sum.skipped = static_cast<int>(ws.skipped.size());
  int n = 0;
  for (const auto& w : ws.supported) {
    if (opt.limit >= 0 && n >= opt.limit) break;
    ++n;
    CheckResult r = check_workload(w, best, opt.check);
    if (!r.passed) {
      ++sum.failed;
      out << "FAIL " << w.describe() << " [" << w.task_name << ", " << w.source << "] " << r.stage << ": " << r.reason
          << "\n";
    } else {
      ++sum.passed;
      if (r.emulated) ++sum.emulated;
      else if (opt.check.emulate) ++sum.not_emulated;
      if (opt.verbose) {
        out << "PASS " << w.describe() << " [" << w.task_name << "] " << r.template_key << " regs " << r.registers
            << " smem " << r.shared_bytes;
        if (r.emulated) out << " emulated batch " << r.emulated_batch << " err " << std::setprecision(2) << r.max_rel_error;
        else if (opt.check.emulate) out << " (not emulated: over the work limit)";
        out << " " << std::fixed << std::setprecision(1) << r.seconds << "s" << std::defaultfloat << "\n";
      }
    }
    out.flush();
  }
  for (const auto& [why, count] : skipped_by_reason) out << "skipped " << count << " workload(s): " << why << "\n";
  if (opt.check.emulate)
    out << sum.emulated << " emulated, " << sum.not_emulated << " built only (over the emulation work limit), "
        << sum.skipped << " skipped (unsupported)\n";
  else
    out << sum.skipped << " skipped (unsupported)\n";
  out << sum.passed << " passed, " << sum.failed << " failed\n";
  return sum;
}

}  // namespace minitvm::topi::sweep
