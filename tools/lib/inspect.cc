// `minitvm tophub inspect`: log summaries and best-config listings.
#include "minitvm/devtools/inspect.h"

#include <filesystem>
#include <map>
#include <ostream>
#include <set>

#include "minitvm/autotune/dispatch.h"
#include "minitvm/autotune/json_text.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::autotune {

namespace {

// Counts in first-seen order.
struct Tally {
  std::vector<std::pair<std::string, int>> items;
  void add(const std::string& k) {
    for (auto& [n, c] : items)
      if (n == k) {
        ++c;
        return;
      }
    items.emplace_back(k, 1);
  }
  std::string str() const {
    std::string s;
    for (auto& [n, c] : items) s += (s.empty() ? "" : ", ") + n + " (" + std::to_string(c) + ")";
    return s.empty() ? "-" : s;
  }
};

std::vector<std::string> expand(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(path, ec))
    if (e.is_regular_file() && e.path().extension() == ".log") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

int usage(std::ostream& err) {
  err << "usage: minitvm tophub inspect FILE_OR_DIR... [--best TARGET [--json]] [--strict]\n";
  return 2;
}

}  // namespace

int tophub_inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> paths;
  std::string best_target;
  bool json = false, strict = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--best") {
      if (i + 1 >= args.size()) return usage(err);
      best_target = args[++i];
    } else if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--strict") {
      strict = true;
    } else if (args[i] == "-h" || args[i] == "--help") {
      usage(out);
      return 0;
    } else if (!args[i].empty() && args[i][0] == '-') {
      err << "unknown option " << args[i] << "\n";
      return usage(err);
    } else {
      paths.push_back(args[i]);
    }
  }
  if (paths.empty() || (json && best_target.empty())) return usage(err);

  LoadOptions lo;
  lo.strict = strict;
  std::vector<Record> all;
  int status = 0;
  for (const auto& p : paths) {
    for (const auto& f : expand(p)) {
      LoadReport rep;
      std::vector<Record> recs;
      {
        WarningCapture quiet;  // skipped lines are listed in the report below
        try {
          recs = load_records(f, lo, &rep);
        } catch (const CompileError& e) {
          err << e.what() << "\n";
          status = 1;
          continue;
        }
      }
      std::set<std::string> versions, workloads;
      Tally targets, models, tasks;
      for (const auto& r : recs) {
        versions.insert(r.version < 0.15 ? "0.1" : "0.2");
        targets.add(r.input.target_str);
        models.add(r.input.target.model());
        tasks.add(r.input.task_name +
                  (r.input.config.template_key.empty() ? "" : "/" + r.input.config.template_key));
        workloads.insert(workload_key(r.input.workload));
      }
      if (!json) {
        std::string ver;
        for (auto& v : versions) ver += (ver.empty() ? "" : "+") + v;
        out << f << "\n"
            << "  records: " << rep.records << " (lines " << rep.lines << ", comments "
            << rep.comments << ", blank " << rep.blank << ", skipped " << rep.skipped.size()
            << ")\n"
            << "  format: " << (ver.empty() ? "-" : ver) << "\n"
            << "  targets: " << targets.str() << "\n"
            << "  models: " << models.str() << "\n"
            << "  tasks: " << tasks.str() << "\n"
            << "  distinct workloads: " << workloads.size() << "\n";
        for (const auto& s : rep.skipped)
          out << "  skipped " << s.file << ":" << s.line << ": " << s.reason << "\n";
      }
      for (auto& r : recs) all.push_back(std::move(r));
    }
  }
  if (best_target.empty()) return status;

  Target target = parse_target(best_target);
  ApplyHistoryBest best(all);
  std::vector<std::pair<std::string, const Json*>> order;  // distinct workloads, first-seen
  std::set<std::string> seen;
  for (const auto& r : all) {
    auto k = workload_key(r.input.workload);
    if (seen.insert(k).second) order.emplace_back(k, &r.input.workload);
  }
  int found = 0;
  if (!json) out << "best configs for target " << target.str() << ":\n";
  for (const auto& [k, w] : order) {
    const Record* r = best.best_record(target, *w);
    if (!r) continue;
    ++found;
    const ConfigEntity& c = r->input.config;
    if (json) {
      Json o = Json::object();
      o["task"] = r->input.task_name;
      o["workload"] = r->input.workload;
      o["model"] = r->input.target.model();
      o["config_index"] = c.index;
      o["template"] = c.template_key.empty() ? Json(nullptr) : Json(c.template_key);
      o["entity"] = c.entity_json();
      o["mean_cost"] = r->result.mean_cost();
      out << py_json_dumps(o) << "\n";
    } else {
      out << "  " << k << "\n    -> model " << r->input.target.model() << ", " << r->input.task_name
          << ", mean " << py_float_repr(r->result.mean_cost()) << " s, " << r->source << ":"
          << r->line << "\n    " << c.str() << "\n";
    }
  }
  if (!json) out << found << " of " << order.size() << " workloads have a record for this target\n";
  return status;
}

}  // namespace minitvm::autotune
