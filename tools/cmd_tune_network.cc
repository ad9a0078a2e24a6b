// `minitvm tune MODEL ...`: tune a whole network's tasks with the task scheduler
// (minitvm/autotune/task_scheduler.h), on this machine or over MPI ranks (`mpirun -n K ... --mpi`).
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <set>

#include "cli.h"
#include "minitvm/autotune/task_scheduler.h"
#include "minitvm/autotune/tuner_session.h"
#include "minitvm/devtools/tuner_plot.h"
#include "minitvm/relay/build.h"
#include "minitvm/runtime/cuda.h"
#include "network_model.h"
#ifdef MINITVM_WITH_MPI
#include "minitvm/distributed/mpi_tune.h"
#endif

using namespace minitvm;
namespace at = minitvm::autotune;

namespace minitvm::tools {

namespace {

const char* kUsage =
    "usage: minitvm tune MODEL --target T --trials N --log FILE [--tuner xgb|ga|random|grid]\n"
    "                    [--strategy gradient|round-robin|sequential] [--round-trials N]\n"
    "                    [--model-batch N] [--input-shapes NAME:[...]]... [--early-stopping N]\n"
    "                    [--no-transfer] [--no-resume] [--seed N] [--parallel N] [--number N]\n"
    "                    [--repeat N] [--min-repeat-ms MS] [--build-timeout S] [--run-timeout S]\n"
    "                    [--check] [--plot FILE.svg] [--list-tasks] [--disable-winograd] [--mpi]\n"
    "                    [--mpi-timeout S] [--quiet]\n"
    "  MODEL: an .onnx file or a zoo name (resnet50, mobilenet_v2, vgg16, ...).\n"
    "  The trial budget N is over all tasks (resumed trials count); the log is TVM's record "
    "format,\n"
    "  which `minitvm compile MODEL --log FILE` and relay::build apply.\n"
    "  example: minitvm tune resnet50 --target llvm --trials 400 --log resnet50.log\n"
    "           mpirun -n 3 minitvm tune resnet50 --target llvm --trials 400 --log r50.log --mpi\n";

// The estimate after each trial, in ms (0 before it is defined), for the SVG.
at::TuningCurve estimate_curve(const at::NetworkTuneSummary& s) {
  at::TuningCurve c;
  c.label = "estimated network latency (tuned kernels)";
  int last = 0;
  for (const auto& p : s.curve) last = std::max(last, p.trials);
  last = std::max(last, 1);
  c.best.assign(static_cast<size_t>(last), 0.0);
  size_t k = 0;
  double v = 0;
  for (size_t t = 1; t <= c.best.size(); ++t) {
    while (k < s.curve.size() && s.curve[k].trials <= static_cast<int>(t))
      v = s.curve[k++].estimate * 1e3;
    c.best[t - 1] = v;
  }
  return c;
}

}  // namespace

int run_tune_network(const std::vector<std::string>& args) {
  auto app = cli::make_app("minitvm tune", "Tune all tasks of a network together (task scheduler).",
                           kUsage);
  std::string model, target = "llvm", plot, log_version = "0.2";
  at::SchedulerOptions so;
  at::MeasureOption mo;
  int64_t batch = 0;
  std::vector<std::string> shapes;
  bool no_resume = false, no_transfer = false, quiet = false, list = false, use_mpi = false,
       no_winograd = false;
  double mpi_timeout = 0;
  so.n_trial = 200;
  app->add_option("model", model, "an .onnx file or a zoo name")->required();
  app->add_option("--target", target, "llvm, cuda or \"cuda -emulate\" (default llvm)")
      ->check(cli::BuildTarget());
  app->add_option("--trials", so.n_trial,
                  "trials over all tasks, resumed ones included (default 200)")
      ->check(cli::Integer(0));
  app->add_option("--tuner", so.tuner, "xgb, ga, random or grid (default xgb)")
      ->check(CLI::IsMember({"xgb", "model", "ga", "random", "grid", "gridsearch"}));
  app->add_option("--strategy", so.strategy,
                  "gradient (default), round-robin or sequential (TVM's one task after another)")
      ->check(CLI::IsMember({"gradient", "round-robin", "sequential"}));
  app->add_option("--round-trials", so.round_trials, "trials per scheduling round (default 8)")
      ->check(cli::Integer(1));
  app->add_option("--log", so.log_file, "append records to FILE; its records are resumed");
  app->add_option("--log-version", log_version, "record format (default 0.2)")
      ->check(CLI::IsMember({"0.1", "0.2"}));
  app->add_option("--model-batch", batch, "batch size of the network input")
      ->check(cli::Integer(1));
  app->add_option("--input-shapes", shapes, "ONNX input shapes NAME:[1,3,224,224]; repeatable");
  app->add_option("--early-stopping", so.early_stopping,
                  "a task stops after N trials without improvement")
      ->check(cli::Integer(-1));
  app->add_flag("--no-transfer", no_transfer, "do not share measurements between similar tasks");
  app->add_flag("--no-resume", no_resume, "do not read the log's records back");
  app->add_option("--seed", so.seed, "random seed")->check(cli::Integer(0));
  app->add_option("--parallel", mo.n_parallel,
                  "build threads (0: hardware threads / ranks on the host)")
      ->check(cli::Integer(0));
  app->add_option("--number", mo.number, "calls per timed repeat")->check(cli::Integer(1));
  app->add_option("--repeat", mo.repeat, "timed repeats")->check(cli::Integer(1));
  app->add_option("--min-repeat-ms", mo.min_repeat_ms, "grow --number until a repeat takes MS")
      ->check(cli::Number(0));
  app->add_option("--build-timeout", mo.build_timeout_s, "seconds per build")
      ->check(cli::Number(0));
  app->add_option("--run-timeout", mo.run_timeout_s, "seconds per run")->check(cli::Number(0));
  app->add_flag("--check", mo.check_correctness, "compare outputs with the reference");
  app->add_option("--plot", plot, "write an SVG of the estimated network latency over trials");
  app->add_flag("--list-tasks", list, "print the tasks and their weights, then exit");
  app->add_flag("--disable-winograd", no_winograd,
                "llvm: also tune the 3x3 layers that run by Winograd without a log (a record for "
                "one makes it a direct conv; compile with --disable-winograd too)");
  app->add_flag(
      "--mpi", use_mpi,
      "run as one rank of an MPI job (mpirun -n K ...): rank 0 searches, the others measure");
  app->add_option("--mpi-timeout", mpi_timeout,
                  "seconds a measuring rank may stay silent before it is given up on")
      ->check(cli::Number(0));
  app->add_flag("--quiet", quiet, "no progress lines");
  if (auto rc = cli::parse(*app, args)) return *rc;
  so.log_version = log_version == "0.1" ? 0.1 : 0.2;
  so.resume = !no_resume;
  so.transfer = !no_transfer;

#ifdef MINITVM_WITH_MPI
  std::unique_ptr<distributed::MpiJob> job;
  if (use_mpi) job = std::make_unique<distributed::MpiJob>();
  const bool lead = !job || job->rank() == 0;
#else
  if (use_mpi) {
    std::cerr << "minitvm tune: --mpi: this minitvm was built without MPI (install libopenmpi-dev "
                 "and rebuild)\n";
    return 2;
  }
  const bool lead = true;
#endif
  try {
    at::check_tuning_target(target);
    at::Target t = at::parse_target(target);
    if (t.is_cuda() && !t.emulate && !runtime::cuda_available() && !list)
      throw CompileError(
          "tune: timing '" + target + "' candidates needs a GPU and this machine has none (" +
          runtime::cuda_unavailable_reason() +
          "); use \"cuda -emulate\" to check candidates for correctness without timings");
    if (so.log_file.empty() && !list)
      throw CompileError("tune: a network run needs --log FILE (the records are the result)");
    auto net = import_network(model, batch, shapes);
    std::vector<std::string> untunable;
    std::vector<at::WeightedTask> tasks =
        relay::extract_tasks(net.mod, target, net.params, &untunable);
    // llvm: layers that run by Winograd without a log are not tuned. Their conv2d_NCHWc task
    // measures direct kernels only, and a record for it would make the layer a direct conv
    // (1.8-2.8x slower than its Winograd kernel on ResNet-50's 3x3 layers on Zen 4).
    std::vector<std::string> winograd;
    if (t.name == "llvm" && !no_winograd) {
      std::vector<std::string> keys = relay::llvm_winograd_workloads(net.mod, tasks, net.params);
      std::set<std::string> w(keys.begin(), keys.end());
      std::vector<at::WeightedTask> kept;
      for (auto& task : tasks) {
        if (w.count(task.task.workload_key()))
          winograd.push_back(task.task.workload_key());
        else
          kept.push_back(std::move(task));
      }
      tasks = std::move(kept);
    }
    if (lead && (!quiet || list)) {
      std::cerr << model << " on " << target << ": " << tasks.size() << " tuning task(s)";
      if (!untunable.empty())
        std::cerr << ", " << untunable.size() << " kernel(s) without a tuning template";
      if (!winograd.empty())
        std::cerr << ", " << winograd.size()
                  << " task(s) of layers that run by Winograd left out (--disable-winograd tunes "
                     "their direct kernels)";
      std::cerr << "\n";
    }
    if (list) {
      if (lead) {
        for (size_t i = 0; i < tasks.size(); ++i)
          std::cout << std::left << std::setw(4) << i << std::setw(4) << tasks[i].weight
                    << tasks[i].task.workload_key() << "  (" << tasks[i].task.config_space().size()
                    << " configs)\n";
        for (const auto& u : untunable) std::cout << "untunable: " << u << "\n";
        for (const auto& k : winograd)
          std::cout << "winograd: " << k << "  (not tuned; --disable-winograd)\n";
      }
      return 0;
    }
    if (tasks.empty()) throw CompileError("tune: " + model + " has no tunable task on " + target);
    so.progress = quiet ? nullptr : &std::cerr;
    at::NetworkTuneSummary s;
#ifdef MINITVM_WITH_MPI
    if (job) {
      distributed::MpiOptions mp;
      mp.worker_timeout_s = mpi_timeout;
      mp.log = &std::cerr;
      if (!lead) so.progress = nullptr;
      auto r = job->tune(tasks, so, mo, mp);
      if (!r) return 0;  // a measuring rank
      s = *r;
    } else {
      s = at::tune_tasks(tasks, so, mo);
    }
#else
    s = at::tune_tasks(tasks, so, mo);
#endif
    std::cout << s.table(tasks);
    if (!plot.empty()) {
      std::ofstream f(plot);
      f << at::tuning_curves_svg({estimate_curve(s)}, model + " on " + target,
                                 "estimated latency of the tuned kernels, ms");
      if (!f.good()) throw RuntimeError("tune: cannot write " + plot);
    }
    return std::isfinite(s.estimate) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "minitvm tune: " << e.what() << '\n';
#ifdef MINITVM_WITH_MPI
    // The other ranks may be waiting for this one (a model missing on one host): end the job.
    if (job) job->abort(1);
#endif
    return 1;
  }
}

}  // namespace minitvm::tools
