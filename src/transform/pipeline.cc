// Pass logging and the device pipeline (see include/minitvm/transform/pipeline.h).
#include "minitvm/transform/pipeline.h"

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "minitvm/ir/ir_util.h"
#include "minitvm/transform/thread_sync.h"

namespace minitvm::transform {

using namespace ir;

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

PassLogger::PassLogger(std::ostream* os) : os_(os) {
  if (!os_ && std::getenv("MINITVM_PRINT_IR")) os_ = &std::cerr;
  const char* t = std::getenv("MINITVM_TIME_PASSES");
  time_ = t && std::string(t) != "0";
}

PassLogger::~PassLogger() {
  if (!time_ || times_.empty()) return;
  std::cerr << "minitvm lowering pass times:\n";
  for (auto& [n, ms] : times_)
    std::cerr << "  " << std::setw(24) << std::left << n << ms << " ms\n";
}

void PassLogger::record(const std::string& name, double ms) {
  times_.push_back({name, ms});
}

Stmt PassLogger::run(const NamedPass& pass, const Stmt& in) {
  auto t0 = std::chrono::steady_clock::now();
  Stmt out = pass.run(in);
  record(pass.name, ms_since(t0));
  if (os_) {
    *os_ << "// ---- after " << pass.name;
    if (out.same_as(in)) *os_ << " (unchanged)";
    *os_ << " ----\n";
    if (!out.same_as(in)) *os_ << out;
  }
  return out;
}

PrimFunc PassLogger::run(const std::string& name, const PrimFunc& in,
                         const std::function<PrimFunc(const PrimFunc&)>& pass) {
  auto t0 = std::chrono::steady_clock::now();
  PrimFunc out = pass(in);
  record(name, ms_since(t0));
  if (os_) {
    const bool same = out->body.same_as(in->body);
    *os_ << "// ---- after " << name << " (" << in->name << ")" << (same ? " (unchanged)" : "")
         << " ----\n";
    if (!same) *os_ << out->body;
  }
  return out;
}

HostDeviceSplit PassLogger::run_split(const PrimFunc& in) {
  auto t0 = std::chrono::steady_clock::now();
  HostDeviceSplit out = split_host_device(in);
  record("split_host_device", ms_since(t0));
  if (os_) {
    *os_ << "// ---- after split_host_device (" << in->name << "): host ----\n" << out.host->body;
    for (const PrimFunc& k : out.kernels)
      *os_ << "// ---- after split_host_device: kernel " << k->name << " ----\n" << k;
  }
  return out;
}

std::vector<std::pair<std::string, std::function<PrimFunc(const PrimFunc&)>>> device_passes() {
  return {{"thread_sync", [](const PrimFunc& f) { return thread_sync(f, StorageScope::Shared); }}};
}

HostDeviceSplit lower_device(const PrimFunc& lowered, PassLogger& log) {
  PrimFunc f = lowered;
  for (auto& [name, pass] : device_passes()) f = log.run(name, f, pass);
  return log.run_split(f);
}

std::vector<std::string> device_pass_names() {
  std::vector<std::string> names;
  for (auto& p : device_passes()) names.push_back(p.first);
  names.push_back("split_host_device");
  return names;
}

}  // namespace minitvm::transform
