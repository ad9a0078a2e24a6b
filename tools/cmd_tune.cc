// `minitvm tune`, `minitvm tune-plot`, `minitvm tune-best`, `minitvm tune-tasks`: the tuner from the
// command line (C++ API: minitvm/autotune/tuner_session.h).
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/autotune/tuner_log.h"
#include "minitvm/autotune/tuner_plot.h"
#include "minitvm/autotune/tuner_session.h"

namespace at = minitvm::autotune;

namespace {

const char* kTuneUsage =
    "usage: minitvm tune TEMPLATE ARGS... [--target T] [--trials N] [--tuner xgb|ga|random|grid]\n"
    "                    [--log FILE] [--log-version 0.1|0.2] [--no-resume] [--early-stopping N]\n"
    "                    [--batch N] [--seed N] [--parallel N] [--number N] [--repeat N]\n"
    "                    [--min-repeat-ms MS] [--build-timeout S] [--run-timeout S] [--check]\n"
    "                    [--plot FILE.svg] [--list] [--quiet]\n"
    "  ARGS are JSON values (512, [1,2], \"float32\"; bare words are strings).\n"
    "  example: minitvm tune matmul.llvm 512 512 512 --trials 60 --tuner xgb --log matmul.log\n";

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  return f.good();
}

std::string plot_logs(const std::vector<std::string>& logs, const std::string& out, const std::string& title) {
  std::vector<at::TuningCurve> curves;
  std::string unit = "1/s";
  at::LoadOptions lo;
  lo.check_index = false;
  for (const auto& log : logs) {
    std::vector<at::Record> recs = at::load_records(log, lo);
    // One curve per (log, task): label by file name, plus the task when a log holds several.
    std::vector<std::string> keys;
    std::vector<std::vector<at::Record>> groups;
    for (const auto& r : recs) {
      std::string k = r.input.task_name + " " + r.input.args.dump();
      size_t i = 0;
      while (i < keys.size() && keys[i] != k) ++i;
      if (i == keys.size()) {
        keys.push_back(k);
        groups.emplace_back();
      }
      groups[i].push_back(r);
    }
    std::string base = log.substr(log.find_last_of('/') == std::string::npos ? 0 : log.find_last_of('/') + 1);
    for (size_t g = 0; g < groups.size(); ++g)
      curves.push_back(at::curve_from_records(groups[g], groups.size() > 1 ? base + " " + keys[g] : base, &unit));
  }
  if (!write_text(out, at::tuning_curves_svg(curves, title, "best " + unit))) return "cannot write " + out;
  return "";
}

int run_tune(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::cerr << kTuneUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--list") {
    for (const auto& n : at::template_names()) std::cout << n << '\n';
    return 0;
  }
  std::string tpl = args[0], target = "llvm", plot;
  at::Json targs = at::Json::array();
  at::TuneSessionOptions o;
  o.n_trial = 100;
  bool quiet = false;
  try {
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto val = [&]() -> std::string {
        if (i + 1 >= args.size()) throw std::invalid_argument("missing value after " + a);
        return args[++i];
      };
      if (a == "--target") target = val();
      else if (a == "--trials") o.n_trial = std::stoi(val());
      else if (a == "--tuner") o.tuner = val();
      else if (a == "--log") o.log_file = val();
      else if (a == "--log-version") o.log_version = std::stod(val());
      else if (a == "--no-resume") o.resume = false;
      else if (a == "--early-stopping") o.early_stopping = std::stoi(val());
      else if (a == "--batch") o.batch_size = std::stoi(val());
      else if (a == "--seed") o.seed = std::stoull(val());
      else if (a == "--parallel") o.measure.n_parallel = std::stoi(val());
      else if (a == "--number") o.measure.number = std::stoi(val());
      else if (a == "--repeat") o.measure.repeat = std::stoi(val());
      else if (a == "--min-repeat-ms") o.measure.min_repeat_ms = std::stod(val());
      else if (a == "--build-timeout") o.measure.build_timeout_s = std::stod(val());
      else if (a == "--run-timeout") o.measure.run_timeout_s = std::stod(val());
      else if (a == "--check") o.measure.check_correctness = true;
      else if (a == "--plot") plot = val();
      else if (a == "--quiet") quiet = true;
      else if (a.size() > 2 && a.rfind("--", 0) == 0) throw std::invalid_argument("unknown option " + a);
      else targs.push_back(at::parse_cli_arg(a));
    }
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune: " << e.what() << "\n" << kTuneUsage;
    return 2;
  }
  if (quiet) o.progress = false;
  try {
    at::Task task(tpl, targs, target);
    if (!quiet)
      std::cerr << "task " << task.name() << " " << task.args().dump() << " on " << task.target_str() << ": "
                << task.config_space().size() << " configs, tuner " << o.tuner << ", " << o.n_trial << " trials\n";
    at::TuneSummary s = at::tune_task(task, o);
    std::cout << "resumed " << s.resumed << ", measured " << s.measured << " (" << s.failed << " failed)\n";
    if (s.best_config) {
      std::cout << "best " << std::fixed << std::setprecision(2) << s.best_throughput << ' ' << s.unit << " ("
                << std::setprecision(6) << s.best_cost * 1e3 << " ms) config #" << s.best_config->index << ' '
                << s.best_config->str() << '\n';
    } else {
      std::cout << "no successful measurement\n";
    }
    if (!plot.empty()) {
      if (o.log_file.empty()) {
        std::cerr << "minitvm tune: --plot needs --log\n";
        return 2;
      }
      std::string err = plot_logs({o.log_file}, plot, task.name() + " " + task.args().dump());
      if (!err.empty()) {
        std::cerr << "minitvm tune: " << err << '\n';
        return 1;
      }
    }
    return s.best_config ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune: " << e.what() << '\n';
    return 1;
  }
}

int run_tune_plot(const std::vector<std::string>& args) {
  std::vector<std::string> logs;
  std::string out, title = "tuning curves";
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "-o" || args[i] == "--title") && i + 1 < args.size()) {
      (args[i] == "-o" ? out : title) = args[i + 1];
      ++i;
    } else {
      logs.push_back(args[i]);
    }
  }
  if (logs.empty() || out.empty()) {
    std::cerr << "usage: minitvm tune-plot LOG... -o FILE.svg [--title TEXT]\n  one curve (best so far) per log\n";
    return 2;
  }
  try {
    std::string err = plot_logs(logs, out, title);
    if (!err.empty()) throw std::runtime_error(err);
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune-plot: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

int run_tune_best(const std::vector<std::string>& args) {
  if (args.size() != 3 || args[1] != "-o") {
    std::cerr << "usage: minitvm tune-best LOG -o OUT.log   (best record per target and workload)\n";
    return 2;
  }
  try {
    size_t n = at::pick_best(args[0], args[2]);
    std::cout << n << " record(s) written to " << args[2] << '\n';
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune-best: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

int run_tune_tasks(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << "usage: minitvm tune-tasks NETWORK.json [--target T]\n";
    return 2;
  }
  std::string target = "llvm";
  if (args.size() >= 3 && args[1] == "--target") target = args[2];
  try {
    std::ifstream f(args[0]);
    if (!f) throw std::runtime_error("cannot read " + args[0]);
    at::Json net = at::Json::parse(f);
    for (const auto& t : at::extract_tasks(net, target))
      std::cout << t.name() << ' ' << t.args().dump() << "  space " << t.config_space().size() << "  "
                << t.workload_key() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune-tasks: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace

MINITVM_COMMAND("tune", "tune a template's config space and log TVM records", run_tune);
MINITVM_COMMAND("tune-plot", "SVG of tuning curves (best so far vs trial) from logs", run_tune_plot);
MINITVM_COMMAND("tune-best", "reduce a tuning log to the best record per workload", run_tune_best);
MINITVM_COMMAND("tune-tasks", "list the tuning tasks of a network description (JSON)", run_tune_tasks);
