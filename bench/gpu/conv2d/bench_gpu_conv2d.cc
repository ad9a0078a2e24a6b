// minitvm-bench-gpu-conv2d: every workload of the TopHub seed logs (tophub/seed/*.log: conv2d
// direct and winograd, depthwise, dense; batch 1, 8 and 128; `cuda -model=unknown`) built with our
// CUDA templates and the best record's config, run on the GPU, checked and timed.
//
// Phase 1: every layer is built for "cuda" on a pool of builder threads (the sweep's
// build_with_best_record, the code path of `minitvm tophub check`) and its PTX loaded on the GPU
// there (the driver's JIT), so nothing compiles while kernels are timed. Phase 2, per workload: run
// once on fresh inputs (uniform [-1, 1); output pre-filled with NaN bytes), timed with
// time_evaluator, compared with a reference: cuDNN's CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM
// output (FMA math, no TF32) for conv2d and depthwise, cuBLAS SGEMM (+ bias on the host) for
// dense, or, without those libraries, the sweep's naive CPU loops when the layer has at most
// --max-check-macs multiply-accumulates (else "not checked"). Tolerance: the sweep's
// (max |a-b| / max(1, |b|) <= 1e-3; winograd 5e-3). Printed next to our time: the time the log
// recorded for the record (mean of its costs, measured by TVM in 2019 on an unknown GPU) and the
// time of cuDNN (the algorithm its heuristics rank first) or cuBLAS for the same layer. Times are
// time_evaluator medians (one warm-up call, then --repeat repeats of >= --min-repeat-ms each).
// Rows not started within --time-budget seconds are reported as not run. --filter (repeatable)
// selects the workloads whose "<description> <log file>:<line> <template>" contains one of them.
//
//   minitvm-bench-gpu-conv2d [LOG_OR_DIR...] [--filter SUBSTR] [--limit N] [--jobs N] [--repeat N]
//                            [--min-repeat-ms MS] [--max-check-macs N] [--time-budget S]
//                            [--dry-run [--build-all] | --emulate]
//
// --dry-run does everything but the GPU part (no GPU needed): decodes every workload, checks the
// cuDNN descriptor parameters of each conv layer against our output shape and against
// cudnnGetConvolution2dForwardOutputDim, and builds one layer per (operator, template, batch) for
// "cuda" (all with --build-all): NVRTC, ptxas, argument shapes, launch dimensions.
// --emulate runs phase 1 and 2 on the CUDA emulator (CPU; CPU loops as the reference): slow, for
// testing this program without a GPU on a few small layers (--filter / --limit).
// Without a GPU (and neither mode) it prints SKIP and exits 0. Exit status 1 when a row failed or
// did not run.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "cli.h"
#include "host_checks.h"
#include "minitvm/autotune/record.h"
#include "minitvm/devtools/sweep.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/ptxas.h"
#include "minitvm/runtime/time_evaluator.h"
#include "minitvm/support/logging.h"
#include "vendor.h"

#ifndef MINITVM_SOURCE_DIR
#define MINITVM_SOURCE_DIR "."
#endif

using namespace minitvm;
namespace sweep = minitvm::topi::sweep;
using sweep::OpKind;
using namespace minitvm::bench;  // host_checks.h

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Options {
  std::vector<std::string> logs;
  std::vector<std::string> filters;  // a workload is selected when it matches any of them
  int limit = -1;
  int jobs = 0;
  bench::Timing timing;
  int64_t max_check_macs = 2'000'000'000;
  size_t max_workspace = size_t{8} << 30;
  double time_budget_s = 150;
  bool dry_run = false, build_all = false, emulate = false;
};

const char* kUsage =
    "usage: minitvm-bench-gpu-conv2d [LOG_OR_DIR...] [--filter SUBSTR] [--limit N] [--jobs N]\n"
    "         [--repeat N] [--min-repeat-ms MS] [--max-check-macs N] [--time-budget S]\n"
    "         [--dry-run [--build-all] | --emulate]";

// Returns the options, or the exit code to stop with (--help: 0, a usage error: 2).
std::variant<Options, int> parse(int argc, char** argv) {
  Options o;
  auto app = minitvm::cli::make_app("minitvm-bench-gpu-conv2d",
                                    "Every distinct workload of the seed logs built with its best "
                                    "record, run on the GPU, checked against "
                                    "cuDNN / cuBLAS / CPU loops and timed next to the logged time "
                                    "and cuDNN's (docs/PERFORMANCE.md).",
                                    kUsage);
  using minitvm::cli::Integer;
  using minitvm::cli::Number;
  app->add_option("logs", o.logs, "tuning logs or folders (default tophub/seed)");
  app->add_option("--filter", o.filters,
                  "only workloads whose description contains SUBSTR (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--limit", o.limit, "only the first N workloads")->check(Integer(0));
  app->add_option("--jobs", o.jobs, "builder threads (default: hardware threads)")
      ->check(Integer(0));
  app->add_option("--repeat", o.timing.repeat, "timed repeats")->check(Integer(1));
  app->add_option("--min-repeat-ms", o.timing.min_repeat_ms, "minimum time of one repeat")
      ->check(Number(0));
  app->add_option("--max-check-macs", o.max_check_macs, "larger layers are not checked on the CPU")
      ->check(Integer(0));
  app->add_option("--time-budget", o.time_budget_s, "seconds for the whole run")->check(Number(0));
  app->add_flag("--dry-run", o.dry_run, "build, NVRTC and ptxas only; no GPU needed");
  app->add_flag("--build-all", o.build_all, "with --dry-run: build every workload");
  app->add_flag("--emulate", o.emulate, "run on the CUDA emulator instead of a GPU");
  if (auto rc = minitvm::cli::parse(*app, argc, argv)) return *rc;
  if (o.logs.empty()) o.logs.push_back(std::string(MINITVM_SOURCE_DIR) + "/tophub/seed");
  if (o.jobs <= 0) o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return o;
}

// Every *.log of the given files and directories, sorted per directory.
std::vector<autotune::Record> load_logs(const std::vector<std::string>& paths) {
  std::vector<autotune::Record> records;
  for (const auto& p : paths) {
    std::vector<std::string> files;
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.path().extension() == ".log") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      if (files.empty()) throw std::runtime_error("no *.log file in " + p);
    } else {
      files.push_back(p);
    }
    for (const auto& f : files) {
      autotune::LoadReport rep;
      auto r = autotune::load_records(f, {}, &rep);
      for (const auto& s : rep.skipped)
        std::printf("NOTE %s:%d: skipped: %s\n", s.file.c_str(), s.line, s.reason.c_str());
      records.insert(records.end(), r.begin(), r.end());
    }
  }
  return records;
}

// One built layer, filled in by a builder thread.
struct Slot {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  sweep::BestBuild build;
  double seconds = 0;
};

// Builds the selected workloads for `target` on `jobs` threads, in order of index; with
// `preload`, a built "cuda" module is also loaded on that device there (the driver's PTX JIT).
class Builder {
 public:
  Builder(const std::vector<const sweep::SweepWorkload*>& ws,
          const autotune::ApplyHistoryBest& best, int jobs, std::string target,
          std::optional<Device> preload = std::nullopt)
      : ws_(ws), best_(best), target_(std::move(target)), preload_(preload) {
    for (size_t i = 0; i < ws.size(); ++i) slots_.push_back(std::make_unique<Slot>());
    int n = std::min<int>(jobs, static_cast<int>(ws.size()));
    for (int t = 0; t < n; ++t) threads_.emplace_back([this] { work(); });
  }
  ~Builder() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }
  Slot& wait(size_t i) {
    Slot& s = *slots_[i];
    std::unique_lock<std::mutex> lock(s.mu);
    s.cv.wait(lock, [&] { return s.done; });
    return s;
  }

 private:
  void work() {
    for (size_t i; !stop_ && (i = next_++) < ws_.size();) {
      Slot& s = *slots_[i];
      auto t0 = Clock::now();
      sweep::BestBuild b;
      try {
        b = sweep::build_with_best_record(*ws_[i], best_, target_);
      } catch (const std::exception& e) {  // build_with_best_record does not throw; bad_alloc might
        b.stage = "build";
        b.reason = e.what();
      }
      if (b.ok() && preload_) {
        try {
          runtime::cuda_module_load(b.layer.module, *preload_);
        } catch (const std::exception& e) {
          b.stage = "load";
          b.reason = sweep::first_line(e.what());
        }
      }
      std::lock_guard<std::mutex> lock(s.mu);
      s.build = std::move(b);
      s.seconds = since(t0);
      s.done = true;
      s.cv.notify_all();
    }
  }
  const std::vector<const sweep::SweepWorkload*>& ws_;
  const autotune::ApplyHistoryBest& best_;
  std::string target_;
  std::optional<Device> preload_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

struct Geo {
  double log_sum = 0;
  int n = 0;
  void add(double v) {
    if (v > 0 && std::isfinite(v)) log_sum += std::log(v), ++n;
  }
  std::string str() const {
    if (!n) return "-";
    char b[64];
    std::snprintf(b, sizeof b, "%.3f (%d)", std::exp(log_sum / n), n);
    return b;
  }
};

enum class Outcome { Passed, Failed, NotChecked };

// CUDA errors after which the context is unusable: every later call fails with them too.
bool context_lost(const std::string& message) {
  for (const char* e :
       {"CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_MISALIGNED_ADDRESS",
        "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_HARDWARE_STACK_ERROR",
        "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_ASSERT",
        "CUDA_ERROR_ECC_UNCORRECTABLE"})
    if (message.find(e) != std::string::npos) return true;
  return false;
}

struct Row {
  bool context_lost = false;  // a CUDA error made the context unusable
  Outcome outcome = Outcome::Failed;
  double ours = NAN, log = NAN, vendor = NAN;
  std::string vendor_name;  // "cudnn" / "cublas" / ""
};

struct Vendors {
  bench::CudnnConv cudnn;
  bench::CublasDense cublas;
};

std::string ms(double s) {
  if (!std::isfinite(s)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.4f", s * 1e3);
  return b;
}
std::string ratio(double a, double b) {
  if (!(a > 0 && b > 0 && std::isfinite(a) && std::isfinite(b))) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", a / b);
  return buf;
}

std::string row_prefix(const sweep::SweepWorkload& w, const sweep::BestBuild& b) {
  std::string layer = w.describe();
  std::replace(layer.begin(), layer.end(), ' ', '_');
  std::string src = std::filesystem::path(w.source).filename().string();
  return "layer=" + layer + " tmpl=" + (b.template_key.empty() ? "-" : b.template_key) +
         " N=" + std::to_string(batch_of(w)) + " src=" + src;
}

runtime::NDArray upload(const std::vector<float>& v, const std::vector<int64_t>& shape,
                        Device dev) {
  auto a = runtime::NDArray::empty(shape, DataType::Float(32), dev);
  a.copy_from_bytes(v.data(), v.size() * sizeof(float));
  return a;
}
std::vector<float> download(const runtime::NDArray& a) {
  std::vector<float> v(static_cast<size_t>(a.size()));
  a.copy_to_bytes(v.data(), v.size() * sizeof(float));
  return v;
}
// An output array pre-filled with NaN bytes, so that elements a kernel misses cannot pass.
runtime::NDArray nan_output(const std::vector<int64_t>& shape, Device dev) {
  size_t n = 1;
  for (auto d : shape) n *= static_cast<size_t>(d);
  std::unique_ptr<float[]> fill(new float[n]);
  parallel_chunks(
      n, [&](size_t b, size_t e) { std::memset(fill.get() + b, 0xff, (e - b) * sizeof(float)); });
  auto a = runtime::NDArray::empty(shape, DataType::Float(32), dev);
  a.copy_from_bytes(fill.get(), n * sizeof(float));
  return a;
}

Row run_row(const sweep::SweepWorkload& w, const sweep::BestBuild& b, const Options& opt,
            const Vendors& v, Device dev) {
  Row row;
  std::string line = "BENCH " + row_prefix(w, b);
  auto emit = [&](Outcome o, const std::string& tail) {
    row.outcome = o;
    line += " ours_ms=" + ms(row.ours) + " log_ms=" + ms(row.log) +
            " ours/log=" + ratio(row.ours, row.log);
    if (!row.vendor_name.empty())
      line += " " + row.vendor_name + "_ms=" + ms(row.vendor) + " " + row.vendor_name +
              "/ours=" + ratio(row.vendor, row.ours);
    line += " " + tail;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    return row;
  };
  if (b.record) row.log = b.record->result.mean_cost();
  if (!b.ok()) return emit(Outcome::Failed, "FAIL " + b.stage + ": " + b.reason);
  const topi::LayerBuild& L = b.layer;
  std::string stage = "shapes";
  try {
    if (std::string e = check_arg_shapes(w, L); !e.empty())
      return emit(Outcome::Failed, "FAIL shapes: " + e);
    // inputs, uploaded
    stage = "inputs";
    std::vector<std::vector<float>> host;
    std::vector<runtime::NDArray> dev_in;
    std::vector<runtime::ArgValue> args;
    for (size_t i = 0; i + 1 < L.args.size(); ++i) {
      auto shape = topi::nn::const_shape(L.args[i]);
      size_t n = 1;
      for (auto d : shape) n *= static_cast<size_t>(d);
      host.push_back(uniform(n, i + 1));
      dev_in.push_back(upload(host.back(), shape, dev));
      args.emplace_back(dev_in.back());
    }
    auto out_shape = topi::nn::const_shape(L.args.back());
    runtime::NDArray out = nan_output(out_shape, dev);
    args.emplace_back(out);
    // The library's output starts as NaN too (a device copy, before our kernel writes `out`).
    bool use_cudnn = w.op != OpKind::Dense && v.cudnn.ready(),
         use_cublas = w.op == OpKind::Dense && v.cublas.ready();
    runtime::NDArray y;
    if (use_cudnn || use_cublas) {
      y = runtime::NDArray::empty(out_shape, DataType::Float(32), dev);
      y.copy_from(out);
    }
    // ours: one checked call, then timed
    stage = "run";
    runtime::PackedFunc f = L.module.get_function(L.func_name);
    f.call(args);
    if (dev.is_cuda()) runtime::cuda_synchronize(dev);
    std::vector<float> got = download(out);
    stage = "time";
    row.ours = runtime::time_evaluator(f, dev, opt.timing.number, opt.timing.repeat,
                                       opt.timing.min_repeat_ms)
                   .call(args)
                   .median;
    // the reference
    std::vector<float> ref;
    std::string ref_name, note, algo;  // note: why a library gave no reference
    // A library failure is not our failure: it leaves the row without that reference (and time).
    row.vendor_name = w.op == OpKind::Dense ? "cublas" : "cudnn";
    try {
      if (use_cublas) {
        bench::VendorRun r =
            v.cublas.run(w.batch, w.in_dim, w.out_dim, dev_in[0], dev_in[1], y, dev, opt.timing);
        if (r.ran) {
          row.vendor = r.seconds;
          ref = download(y);
          if (w.bias)
            for (size_t i = 0; i < ref.size(); ++i)
              ref[i] += host[2][i % static_cast<size_t>(w.out_dim)];
          ref_name = "cublas_sgemm+bias";
        } else {
          note = " (cublas: " + r.error + ")";
        }
      } else if (use_cudnn) {
        bench::VendorRun r = v.cudnn.run(bench::conv_params(w), dev_in[0], dev_in[1], y, dev,
                                         opt.timing, opt.max_workspace);
        if (r.ran) {
          row.vendor = r.seconds;
          ref = download(y);
          ref_name = "cudnn_" + r.reference;
          algo = " cudnn_algo=" + r.algo;
        } else {
          note = " (cudnn: " + r.error + ")";
        }
      }
    } catch (const std::exception& e) {
      if (context_lost(e.what())) throw;
      row.vendor = NAN;
      ref.clear();
      note = " (" + row.vendor_name + ": " + sweep::first_line(e.what()) + ")";
    }
    y = runtime::NDArray();
    if (ref.empty()) {
      int64_t macs = w.macs();
      if (macs > opt.max_check_macs)
        return emit(Outcome::NotChecked, "NOT_CHECKED (no vendor reference, " +
                                             std::to_string(macs) +
                                             " MACs > --max-check-macs for the CPU loops)" + note);
      stage = "naive reference";
      ref = naive_reference(w, batch_of(w), host, got.size());
      ref_name = "naive";
    }
    double err = max_rel_error(got, ref);
    sweep::CheckOptions tol;
    double tolerance = b.template_key == "winograd" ? tol.winograd_tolerance : tol.tolerance;
    char e[64];
    std::snprintf(e, sizeof e, "%.2e", err);
    std::string tail = "ref=" + ref_name + " max_rel=" + e + algo;
    if (!(err <= tolerance))
      return emit(Outcome::Failed, tail + " FAIL compare: above the tolerance" + note);
    return emit(Outcome::Passed, tail + " ok" + note);
  } catch (const std::exception& e) {
    row.context_lost = context_lost(e.what());
    return emit(Outcome::Failed, "FAIL " + stage + ": " + sweep::first_line(e.what()));
  }
}

// ---- the modes ------------------------------------------------------------------------------

// The benchmark proper: on cuda(0), or with --emulate on the CUDA emulator (CPU arrays, no
// libraries, CPU loops as the reference; for testing this program without a GPU).
int run_rows(const Options& opt, const std::vector<const sweep::SweepWorkload*>& sel,
             const autotune::ApplyHistoryBest& best) {
  auto t0 = Clock::now();
  Device dev = opt.emulate ? Device::cpu() : Device::cuda(0);
  Vendors v;
  if (!opt.emulate) {
    runtime::NDArray::empty({1}, DataType::Float(32),
                            dev);  // the context exists before cuDNN/cuBLAS start
    if (v.cudnn.load()) v.cudnn.create_handle();
    if (v.cublas.load()) v.cublas.create_handle();
    std::printf("NOTE cuDNN: %s\n", v.cudnn.describe().c_str());
    std::printf("NOTE cuBLAS: %s\n", v.cublas.describe().c_str());
  } else {
    std::printf(
        "NOTE --emulate: layers built for \"cuda -emulate\" and run on the CPU; no cuDNN/cuBLAS\n");
  }
  std::printf(
      "NOTE timing: time_evaluator median of %d repeats (one warm-up call; a repeat repeats the "
      "call "
      "until it takes >= %.1f ms), ours and the library alike; log_ms: mean of the record's costs "
      "(TVM, "
      "2019, GPU unknown)\n",
      opt.timing.repeat, opt.timing.min_repeat_ms);
  std::printf(
      "NOTE reference: cuDNN IMPLICIT_GEMM (FMA math) for conv2d/depthwise, cuBLAS SGEMM + bias "
      "for "
      "dense, else CPU loops up to %lld MACs; tolerance max|a-b|/max(1,|b|) <= %.0e (winograd "
      "%.0e)\n",
      static_cast<long long>(opt.max_check_macs), sweep::CheckOptions{}.tolerance,
      sweep::CheckOptions{}.winograd_tolerance);
  std::fflush(stdout);
  // Phase 1: every layer built (and its PTX loaded on the GPU) on the builder threads, so that no
  // build or driver JIT runs while kernels are timed.
  Builder builder(sel, best, opt.jobs, opt.emulate ? "cuda -emulate" : "cuda",
                  opt.emulate ? std::nullopt : std::optional<Device>(dev));
  double build_s = 0;
  for (size_t i = 0; i < sel.size(); ++i) build_s += builder.wait(i).seconds;
  double phase1 = since(t0);
  std::printf("NOTE built%s %zu layers in %.1f s on %d threads (%.1f s of builds)\n",
              opt.emulate ? "" : " and loaded", sel.size(), phase1, opt.jobs, build_s);
  std::fflush(stdout);
  // Phase 2: the rows, one at a time.
  int passed = 0, failed = 0, unchecked = 0, not_run = 0;
  Geo g_log, g_cudnn, g_cublas;
  std::map<int64_t, std::pair<Geo, Geo>> by_batch;  // batch -> (ours/log, vendor/ours)
  std::string lost;  // the row after which the CUDA context was unusable
  for (size_t i = 0; i < sel.size(); ++i) {
    Slot& s = builder.wait(i);
    if (!lost.empty() || since(t0) > opt.time_budget_s) {
      ++not_run;
      std::printf("BENCH %s NOT_RUN (%s)\n", row_prefix(*sel[i], s.build).c_str(),
                  lost.empty() ? ("over --time-budget " +
                                  std::to_string(static_cast<int>(opt.time_budget_s)) + " s")
                                     .c_str()
                               : ("the CUDA context was lost at " + lost).c_str());
      s.build = sweep::BestBuild{};
      continue;
    }
    Row r = run_row(*sel[i], s.build, opt, v, dev);
    if (r.context_lost) {
      lost = row_prefix(*sel[i], s.build);
      // Freeing modules and buffers in a lost context warns once each: say it once instead.
      std::printf(
          "NOTE the CUDA context is unusable after this row; the remaining rows are not run\n");
      set_warning_sink([](const std::string&) {});
    }
    s.build = sweep::BestBuild{};  // frees the module and its device temporaries
    (r.outcome == Outcome::Passed ? passed : r.outcome == Outcome::Failed ? failed : unchecked)++;
    g_log.add(r.ours / r.log);
    (r.vendor_name == "cudnn" ? g_cudnn : g_cublas).add(r.vendor / r.ours);
    auto& gb = by_batch[batch_of(*sel[i])];
    gb.first.add(r.ours / r.log);
    gb.second.add(r.vendor / r.ours);
  }
  std::printf("GEOMEAN ours/log=%s cudnn/ours=%s cublas/ours=%s\n", g_log.str().c_str(),
              g_cudnn.str().c_str(), g_cublas.str().c_str());
  for (const auto& [batch, g] : by_batch)
    std::printf("GEOMEAN N=%lld ours/log=%s vendor/ours=%s\n", static_cast<long long>(batch),
                g.first.str().c_str(), g.second.str().c_str());
  std::printf(
      "(geomean (rows); ours/log < 1: faster than the time in the log; vendor/ours > 1: faster "
      "than "
      "cuDNN/cuBLAS)\n");
  std::printf("SUMMARY %zu workloads in %.1f s (phase 1, builds%s: %.1f s)\n", sel.size(),
              since(t0), opt.emulate ? "" : " + PTX loads", phase1);
  std::printf("%d passed, %d failed, %d not checked", passed, failed, unchecked);
  if (not_run)
    std::printf(", %d not run (%s)", not_run, lost.empty() ? "time budget" : "CUDA context lost");
  std::printf("\n");
  return failed || not_run ? 1 : 0;
}

int run_dry(const Options& opt, const std::vector<const sweep::SweepWorkload*>& sel,
            const autotune::ApplyHistoryBest& best) {
  auto t0 = Clock::now();
  Vendors v;
  v.cudnn.load();
  v.cublas.load();
  std::printf("NOTE cuDNN: %s\n", v.cudnn.describe().c_str());
  std::printf("NOTE cuBLAS: %s\n", v.cublas.describe().c_str());
  int failed = 0, cudnn_checked = 0, unsupported = 0;
  // 1. cuDNN parameters of every conv layer: our output shape vs cuDNN's.
  for (const auto* w : sel) {
    if (w->op == OpKind::Dense) continue;
    std::string err;
    try {
      bench::ConvParams p = bench::conv_params(*w);
      if (!p.unsupported.empty()) {
        ++unsupported;
        std::printf("NOTE %s: cuDNN cannot run it: %s\n", w->describe().c_str(),
                    p.unsupported.c_str());
        continue;
      }
      std::array<int64_t, 4> dims{};
      if (v.cudnn.loaded()) {
        if (!v.cudnn.output_dims(p, &dims, &err))
          err = "cuDNN rejects " + p.str() + ": " + err;
        else if (dims != p.out)
          err = "cuDNN's output " + shape_str({dims.begin(), dims.end()}) +
                " differs from ours for " + p.str();
        else
          ++cudnn_checked;
      }
    } catch (const std::exception& e) {
      err = e.what();
    }
    if (!err.empty()) {
      ++failed;
      std::printf("FAIL %s: %s\n", w->describe().c_str(), err.c_str());
    }
  }
  // 2. builds: one per (operator, template, batch) unless --build-all, the smallest layer of each.
  std::vector<const sweep::SweepWorkload*> to_build;
  if (opt.build_all) {
    to_build = sel;
  } else {
    std::map<std::string, const sweep::SweepWorkload*> pick;
    for (const auto* w : sel) {
      const autotune::Record* rec = best.best_record(autotune::parse_target("cuda"), w->workload);
      std::string kind = std::to_string(static_cast<int>(w->op)) + "/" +
                         (rec ? sweep::record_template(*rec) : "?") + "/" +
                         std::to_string(batch_of(*w));
      auto& p = pick[kind];
      if (!p || w->macs() < p->macs()) p = w;
    }
    for (const auto& [k, w] : pick) to_build.push_back(w);
  }
  bool ptxas = !runtime::find_ptxas().empty();
  Builder builder(to_build, best, opt.jobs, "cuda");
  int built = 0;
  for (size_t i = 0; i < to_build.size(); ++i) {
    const auto& w = *to_build[i];
    Slot& s = builder.wait(i);
    const sweep::BestBuild& b = s.build;
    std::string err, info;
    double ptxas_s = 0;
    if (!b.ok()) {
      err = b.stage + ": " + b.reason;
    } else if (std::string e = check_arg_shapes(w, b.layer); !e.empty()) {
      err = "shapes: " + e;
    } else if (b.layer.module.type_key() != "cuda" || b.layer.module.get_source("ptx").empty()) {
      err = "not a cuda module with PTX";
    } else if (std::string e2 = check_launches(b.layer.module, std::to_string(i)); !e2.empty()) {
      err = "launches: " + e2;
    } else if (ptxas) {
      try {
        auto tp = Clock::now();  // ptxas's time is about what the driver's PTX JIT will take
        auto rep = runtime::ptxas_check(b.layer.module.get_source("ptx"), "sm_90");
        ptxas_s = since(tp);
        int regs = 0;
        int64_t smem = 0;
        for (const auto& k : rep.kernels)
          regs = std::max(regs, k.registers), smem = std::max(smem, k.shared_bytes);
        info = " kernels=" + std::to_string(rep.kernels.size()) + " regs=" + std::to_string(regs) +
               " smem=" + std::to_string(smem);
        char pt[32];
        std::snprintf(pt, sizeof pt, " ptxas_s=%.2f", ptxas_s);
        info += pt;
        if (smem > 48 * 1024)
          err = "ptxas: static shared memory " + std::to_string(smem) + " > 48 KiB";
      } catch (const std::exception& e) {
        err = std::string("ptxas: ") + sweep::first_line(e.what());
      }
    }
    char t[64];
    // The CUDA source's hash: builds on several threads must give what a serial build gives.
    std::snprintf(t, sizeof t, " cuda_src=%016zx build_s=%.1f",
                  b.ok() ? std::hash<std::string>{}(b.layer.source) : 0, s.seconds);
    if (err.empty()) {
      ++built;
      std::printf("DRYRUN %s built%s%s ok\n", row_prefix(w, b).c_str(), info.c_str(), t);
    } else {
      ++failed;
      std::printf("DRYRUN %s%s FAIL %s\n", row_prefix(w, b).c_str(), t, err.c_str());
    }
    s.build = sweep::BestBuild{};
    std::fflush(stdout);
  }
  std::printf(
      "dry run: %zu workloads decoded, %d conv descriptor sets checked against cuDNN, %d not "
      "runnable by "
      "cuDNN, %d of %zu layers built for cuda%s, %.1f s\n",
      sel.size(), cudnn_checked, unsupported, built, to_build.size(),
      ptxas ? " (NVRTC + ptxas sm_90)" : " (NVRTC; ptxas not found)", since(t0));
  std::printf("%d passed, %d failed\n", cudnn_checked + built, failed);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = parse(argc, argv);
  if (auto* rc = std::get_if<int>(&parsed)) return *rc;
  Options opt = std::get<Options>(std::move(parsed));
  if (!opt.dry_run && !opt.emulate && !runtime::cuda_available()) {
    std::printf(
        "SKIP minitvm-bench-gpu-conv2d: no CUDA GPU (%s); --dry-run runs everything but the GPU "
        "part\n",
        runtime::cuda_unavailable_reason().c_str());
    return 0;
  }
  try {
    std::vector<autotune::Record> records = load_logs(opt.logs);
    autotune::ApplyHistoryBest best(records);
    sweep::CollectedWorkloads ws = sweep::collect_workloads(records);
    std::vector<const sweep::SweepWorkload*> sel;
    for (const auto& w : ws.supported) {
      if (opt.limit >= 0 && static_cast<int>(sel.size()) >= opt.limit) break;
      const autotune::Record* rec = best.best_record(autotune::parse_target("cuda"), w.workload);
      std::string text =
          w.describe() + " " + w.source + " " + (rec ? sweep::record_template(*rec) : "");
      bool match = opt.filters.empty();
      for (const auto& f : opt.filters) match = match || text.find(f) != std::string::npos;
      if (!match) continue;
      sel.push_back(&w);
    }
    std::printf(
        "NOTE %zu records, %zu distinct workloads (%zu skipped as unsupported), %zu selected\n",
        records.size(), ws.supported.size() + ws.skipped.size(), ws.skipped.size(), sel.size());
    for (const auto& [what, why] : ws.skipped)
      std::printf("NOTE skipped %s: %s\n", what.c_str(), why.c_str());
    std::fflush(stdout);
    return opt.dry_run ? run_dry(opt, sel, best) : run_rows(opt, sel, best);
  } catch (const std::exception& e) {
    std::printf("FAIL minitvm-bench-gpu-conv2d: %s\n", e.what());
    return 1;
  }
}
