// `minitvm tophub check`: every workload of the given logs through check_workload (CUDA records)
// or check_llvm_record (llvm records), with a summary. Malformed lines are counted on their own.
#include <iomanip>
#include <iostream>
#include <map>
#include <set>

#include "minitvm/autotune/target.h"
#include "minitvm/devtools/sweep.h"
#include "minitvm/support/logging.h"

namespace minitvm::topi::sweep {

namespace {

// The llvm records: the best of each distinct workload (ApplyHistoryBest, target llvm), checked
// through the registered template; a workload whose records were all rejected is malformed.
void run_llvm(const std::vector<autotune::Record>& records, const SweepOptions& opt, int& n,
              SweepSummary& sum, std::map<std::string, int>& skipped_by_reason, std::ostream& out) {
  autotune::ApplyHistoryBest best;
  {
    WarningCapture quiet;  // records ApplyHistoryBest skips are reported below, per workload
    best.load(records);
  }
  std::set<std::string> seen;
  for (const auto& r : records) {
    std::string key = autotune::workload_key(r.input.workload);
    if (!seen.insert(key).second) continue;
    if (opt.limit >= 0 && n >= opt.limit) break;
    std::string what = r.input.task_name + " " + r.input.args.dump();
    const autotune::Record* b = nullptr;
    std::vector<std::string> rejected;
    {
      WarningCapture quiet;
      b = best.best_record(r.input.target, r.input.workload);
      rejected = quiet.messages();
    }
    if (!b && !rejected.empty()) {  // dispatch rejected the workload's records: say why
      ++sum.malformed;
      out << "MALFORMED " << r.source << ":" << r.line << ": " << first_line(rejected.front())
          << "\n";
      continue;
    }
    if (!b) {  // e.g. only failed measurements (error_no != 0): nothing dispatch would apply
      ++sum.skipped;
      ++skipped_by_reason["llvm workload without an error-free record"];
      if (opt.verbose) out << "SKIP " << what << ": no error-free record\n";
      continue;
    }
    LlvmCheckResult c = check_llvm_record(*b);
    std::string where = b->source + ":" + std::to_string(b->line);
    if (c.skipped) {
      ++sum.skipped;
      ++skipped_by_reason[c.reason];
      if (opt.verbose) out << "SKIP " << what << ": " << c.reason << "\n";
      continue;
    }
    ++n;
    if (c.stage == "config") {
      ++sum.malformed;
      out << "MALFORMED " << where << ": " << c.reason << "\n";
    } else if (!c.passed) {
      ++sum.failed;
      out << "FAIL " << what << " [llvm, " << where << "] " << c.stage << ": " << c.reason << "\n";
    } else {
      ++sum.passed;
      if (opt.verbose)
        out << "PASS " << what << " [llvm] " << std::fixed << std::setprecision(1) << c.seconds
            << "s" << std::defaultfloat << "\n";
    }
    out.flush();
  }
}

}  // namespace

SweepSummary run_sweep(const std::vector<std::string>& files, const SweepOptions& opt,
                       std::ostream& out) {
  SweepSummary sum;
  std::vector<autotune::Record> records, llvm_records;
  for (const auto& f : files) {
    autotune::LoadReport rep;
    std::vector<autotune::Record> r;
    {
      WarningCapture quiet;  // each skipped line is reported once, below
      r = autotune::load_records(f, {}, &rep);
    }
    for (const auto& s : rep.skipped) {
      ++sum.malformed;
      out << "MALFORMED " << s.file << ":" << s.line << ": " << s.reason << "\n";
    }
    for (auto& rec : r) (is_llvm_record(rec) ? llvm_records : records).push_back(std::move(rec));
  }
  autotune::ApplyHistoryBest best(records);
  CollectedWorkloads ws = collect_workloads(records);
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
    if (r.stage == "config") {
      ++sum.malformed;
      out << "MALFORMED " << w.source << ": " << r.reason << "\n";
    } else if (!r.passed) {
      ++sum.failed;
      out << "FAIL " << w.describe() << " [" << w.task_name << ", " << w.source << "] " << r.stage
          << ": " << r.reason << "\n";
    } else {
      ++sum.passed;
      if (r.emulated)
        ++sum.emulated;
      else if (opt.check.emulate)
        ++sum.not_emulated;
      if (opt.verbose) {
        out << "PASS " << w.describe() << " [" << w.task_name << "] " << r.template_key << " regs "
            << r.registers << " smem " << r.shared_bytes;
        if (r.emulated)
          out << " emulated batch " << r.emulated_batch << " err " << std::setprecision(2)
              << r.max_rel_error;
        else if (opt.check.emulate)
          out << " (not emulated: over the work limit)";
        out << " " << std::fixed << std::setprecision(1) << r.seconds << "s" << std::defaultfloat
            << "\n";
      }
    }
    out.flush();
  }
  run_llvm(llvm_records, opt, n, sum, skipped_by_reason, out);
  for (const auto& [why, count] : skipped_by_reason)
    out << "skipped " << count << " workload(s): " << why << "\n";
  if (opt.check.emulate)
    out << sum.emulated << " emulated, " << sum.not_emulated
        << " built only (over the emulation work limit), " << sum.skipped
        << " skipped (unsupported)\n";
  else
    out << sum.skipped << " skipped (unsupported)\n";
  out << sum.passed << " passed, " << sum.failed << " failed";
  if (sum.malformed) out << ", " << sum.malformed << " malformed";
  out << "\n";
  return sum;
}

}  // namespace minitvm::topi::sweep
