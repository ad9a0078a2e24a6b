// `minitvm tune`, `minitvm tune-plot`, `minitvm tune-best`, `minitvm tune-tasks`: the tuner from
// the command line (C++ API: minitvm/autotune/tuner_session.h).
#include <cctype>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "minitvm/autotune/measure.h"
#include "minitvm/autotune/record.h"
#include "minitvm/autotune/task.h"
#include "minitvm/autotune/tuner_log.h"
#include "minitvm/autotune/tuner_session.h"
#include "minitvm/devtools/tuner_plot.h"
#include "network_model.h"

namespace at = minitvm::autotune;

namespace {

const char* kTuneUsage =
    "usage: minitvm tune TEMPLATE ARGS... [--target T] [--trials N] [--tuner xgb|ga|random|grid]\n"
    "                    [--log FILE] [--log-version 0.1|0.2] [--no-resume] [--early-stopping N]\n"
    "                    [--batch N] [--seed N] [--parallel N] [--number N] [--repeat N]\n"
    "                    [--min-repeat-ms MS] [--build-timeout S] [--run-timeout S] [--check]\n"
    "                    [--plot FILE.svg] [--list] [--quiet] [--verbose]\n"
    "  ARGS are JSON values (512, [1,2], \"float32\"; bare words are strings).\n"
    "  example: minitvm tune matmul.llvm 512 512 512 --trials 60 --tuner xgb --log matmul.log\n"
    "  a whole network: minitvm tune MODEL --target T --trials N --log FILE ... (minitvm tune "
    "MODEL --help)\n";

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  return f.good();
}

std::string plot_logs(const std::vector<std::string>& logs, const std::string& out,
                      const std::string& title) {
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
    std::string base =
        log.substr(log.find_last_of('/') == std::string::npos ? 0 : log.find_last_of('/') + 1);
    for (size_t g = 0; g < groups.size(); ++g)
      curves.push_back(at::curve_from_records(
          groups[g], groups.size() > 1 ? base + " " + keys[g] : base, &unit));
  }
  if (!write_text(out, at::tuning_curves_svg(curves, title, "best " + unit)))
    return "cannot write " + out;
  return "";
}

int run_tune(const std::vector<std::string>& args) {
  // A network (an .onnx file or a zoo name) instead of a template: the task scheduler.
  if (!args.empty() && !args[0].empty() && args[0][0] != '-' && !at::find_template(args[0]) &&
      minitvm::tools::is_network_model(args[0]))
    return minitvm::tools::run_tune_network(args);
  auto app = minitvm::cli::make_app(
      "minitvm tune", "Tune a template's config space and log TVM records.", kTuneUsage);
  std::string tpl, target = "llvm", plot, log_version = "0.2";
  std::vector<std::string> targ_text;
  at::TuneSessionOptions o;
  o.n_trial = 100;
  bool quiet = false, list = false, no_resume = false, verbose = false;
  using minitvm::cli::Integer;
  using minitvm::cli::Number;
  app->add_option("template", tpl, "registered template, e.g. matmul.llvm (see --list)");
  // The template arguments are what CLI11 leaves over (allow_extras): a positional option would
  // split a bracketed value such as [1,1] into its items. Unknown options are rejected below.
  app->allow_extras();
  app->add_flag("--list", list, "list the registered templates and exit");
  app->add_option("--target", target, "llvm, cuda or \"cuda -emulate\" (default llvm)")
      ->check(minitvm::cli::BuildTarget());
  app->add_option("--trials", o.n_trial, "trials to measure (default 100)")->check(Integer(0));
  app->add_option("--tuner", o.tuner, "xgb, ga, random or grid (default xgb)")
      ->check(CLI::IsMember({"xgb", "model", "ga", "random", "grid", "gridsearch"}));
  app->add_option("--log", o.log_file,
                  "append records to FILE; its records of the task are resumed");
  app->add_option("--log-version", log_version, "record format (default 0.2)")
      ->check(CLI::IsMember({"0.1", "0.2"}));
  app->add_flag("--no-resume", no_resume, "do not read the log's records back");
  app->add_option("--early-stopping", o.early_stopping, "stop after N trials without improvement")
      ->check(Integer(-1));
  app->add_option("--batch", o.batch_size, "candidates per batch (0: the tuner's)")
      ->check(Integer(0));
  app->add_option("--seed", o.seed, "random seed")->check(Integer(0));
  app->add_option("--parallel", o.measure.n_parallel, "build threads (0: hardware threads)")
      ->check(Integer(0));
  app->add_option("--number", o.measure.number, "calls per timed repeat")->check(Integer(1));
  app->add_option("--repeat", o.measure.repeat, "timed repeats")->check(Integer(1));
  app->add_option("--min-repeat-ms", o.measure.min_repeat_ms,
                  "grow --number until a repeat takes MS")
      ->check(Number(0));
  app->add_option("--build-timeout", o.measure.build_timeout_s, "seconds per build")
      ->check(Number(0));
  app->add_option("--run-timeout", o.measure.run_timeout_s, "seconds per run")->check(Number(0));
  app->add_flag("--check", o.measure.check_correctness, "compare outputs with the reference");
  app->add_option("--plot", plot, "write an SVG of the tuning curve (needs --log)");
  app->add_flag("--quiet", quiet, "no progress bar and no task line");
  app->add_flag("-v,--verbose", verbose, "print each failed candidate with its error");
  if (args.empty()) {
    std::cerr << app->help();
    return 2;
  }
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  for (const auto& a : app->remaining()) {
    if (a.size() > 1 && a[0] == '-' &&
        !(std::isdigit(static_cast<unsigned char>(a[1])) || a[1] == '.')) {
      std::cerr << "minitvm tune: unknown option " << a
                << "\nrun 'minitvm tune --help' for the usage\n";
      return 2;
    }
    targ_text.push_back(a);
  }
  if (list) {
    for (const auto& n : at::template_names()) std::cout << n << '\n';
    return 0;
  }
  if (tpl.empty()) {
    std::cerr << "minitvm tune: a TEMPLATE is required\nrun 'minitvm tune --help' for the usage\n";
    return 2;
  }
  if (!plot.empty() && o.log_file.empty()) {
    std::cerr << "minitvm tune: --plot needs --log\n";
    return 2;
  }
  o.log_version = log_version == "0.1" ? 0.1 : 0.2;
  o.resume = !no_resume;
  at::Json targs = at::Json::array();
  for (const auto& a : targ_text) targs.push_back(at::parse_cli_arg(a));
  if (quiet) o.progress = false;
  try {
    at::Task task(tpl, targs, target);
    if (!quiet)
      std::cerr << "task " << task.name() << " " << task.args().dump() << " on "
                << task.target_str() << ": " << task.config_space().size() << " configs, tuner "
                << o.tuner << ", " << o.n_trial << " trials\n";
    o.verbose = verbose;
    at::TuneSummary s = at::tune_task(task, o);
    std::cout << "resumed " << s.resumed << ", measured " << s.measured << " (" << s.failed
              << " failed)\n";
    if (s.best_config) {
      std::cout << "best " << std::fixed << std::setprecision(2) << s.best_throughput << ' '
                << s.unit << " (" << std::setprecision(6) << s.best_cost * 1e3 << " ms) config #"
                << s.best_config->index << ' ' << s.best_config->str() << '\n';
    } else {
      std::cout << "no successful measurement\n";
    }
    if (!s.first_errors.empty()) std::cout << "failures by kind:\n" << s.error_summary();
    if (!plot.empty()) {
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
  auto app = minitvm::cli::make_app("minitvm tune-plot",
                                    "SVG of tuning curves: one curve (best so far) per log.",
                                    "usage: minitvm tune-plot LOG... -o FILE.svg [--title TEXT]");
  std::vector<std::string> logs;
  std::string out, title = "tuning curves";
  app->add_option("logs", logs, "tuning logs")->required();
  app->add_option("-o", out, "SVG file to write")->required();
  app->add_option("--title", title, "title of the plot");
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
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
  auto app = minitvm::cli::make_app(
      "minitvm tune-best", "Reduce a tuning log to the best record per target and workload.",
      "usage: minitvm tune-best LOG -o OUT.log");
  std::string in, out;
  app->add_option("log", in, "tuning log")->required();
  app->add_option("-o", out, "log to write")->required();
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  try {
    size_t n = at::pick_best(in, out);
    std::cout << n << " record(s) written to " << out << '\n';
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune-best: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

int run_tune_tasks(const std::vector<std::string>& args) {
  auto app = minitvm::cli::make_app("minitvm tune-tasks",
                                    "List the tuning tasks of a network description (JSON).",
                                    "usage: minitvm tune-tasks NETWORK.json [--target T]");
  std::string net_file, target = "llvm";
  app->add_option("network", net_file, "network description (JSON)")->required();
  app->add_option("--target", target, "llvm, cuda or \"cuda -emulate\" (default llvm)")
      ->check(minitvm::cli::BuildTarget());
  if (auto rc = minitvm::cli::parse(*app, args)) return *rc;
  try {
    std::ifstream f(net_file);
    if (!f) throw std::runtime_error("cannot read " + net_file);
    at::Json net = at::Json::parse(f);
    for (const auto& t : at::extract_tasks(net, target))
      std::cout << t.name() << ' ' << t.args().dump() << "  space " << t.config_space().size()
                << "  " << t.workload_key() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune-tasks: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace

MINITVM_COMMAND("tune", "tune a template's config space and log TVM records", run_tune);
MINITVM_COMMAND("tune-plot", "SVG of tuning curves (best so far vs trial) from logs",
                run_tune_plot);
MINITVM_COMMAND("tune-best", "reduce a tuning log to the best record per workload", run_tune_best);
MINITVM_COMMAND("tune-tasks", "list the tuning tasks of a network description (JSON)",
                run_tune_tasks);
