/** \file
 * The pass pipelines as data: each pipeline is one list of named passes, run through one
 * PassLogger, so that MINITVM_PRINT_IR shows the IR after every pass that runs (lowering and the
 * device passes alike) and the pass names are read off the list that runs (as Halide's lower_impl).
 *
 * - lowering (lower(), src/transform/lower.cc): schedule_ops ... remove_no_op, lower_pass_names();
 * - device (build_cuda): thread_sync(shared) on the lowered function, then split_host_device,
 *   device_pass_names().
 */
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "minitvm/ir/stmt.h"
#include "minitvm/transform/split_host_device.h"

namespace minitvm::transform {

/** One Stmt -> Stmt pass of a pipeline. */
struct NamedPass {
  std::string name;
  std::function<ir::Stmt(const ir::Stmt&)> run;
};

/**
 * Runs passes, prints the IR after each one to a stream (the one given, else stderr when
 * MINITVM_PRINT_IR is set; "(unchanged)" when a pass returned its input) and, with
 * MINITVM_TIME_PASSES=1, prints a table of pass times when it is destroyed.
 */
class PassLogger {
 public:
  explicit PassLogger(std::ostream* os = nullptr);
  ~PassLogger();
  PassLogger(const PassLogger&) = delete;
  PassLogger& operator=(const PassLogger&) = delete;

  ir::Stmt run(const NamedPass& pass, const ir::Stmt& in);
  /** A pass over a whole function (its body printed as run() does). */
  ir::PrimFunc run(const std::string& name, const ir::PrimFunc& in,
                   const std::function<ir::PrimFunc(const ir::PrimFunc&)>& pass);
  /** split_host_device under the logger: prints the host function and every kernel. */
  HostDeviceSplit run_split(const ir::PrimFunc& in);

 private:
  void record(const std::string& name, double ms);
  std::ostream* os_;
  bool time_ = false;
  std::vector<std::pair<std::string, double>> times_;
};

/** The device passes on a lowered function before it is split (thread_sync of shared memory). */
std::vector<std::pair<std::string, std::function<ir::PrimFunc(const ir::PrimFunc&)>>>
device_passes();

/** Runs device_passes() and then split_host_device on `lowered` through `log`. */
HostDeviceSplit lower_device(const ir::PrimFunc& lowered, PassLogger& log);

/** The names of the device pipeline in order: device_passes(), then "split_host_device". */
std::vector<std::string> device_pass_names();

}  // namespace minitvm::transform
