// LocalMeasurer: parallel builds with deadlines, serial timed runs, optional correctness checks.
#include "minitvm/autotune/measure.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "minitvm/codegen/build.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/runtime/time_evaluator.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::autotune {
namespace {

using Clock = std::chrono::steady_clock;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/** Result of one build, shared with its (possibly abandoned) worker thread. */
struct BuildState {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  runtime::Module mod;
  runtime::PackedFunc func;
  int num_outputs = 1;
  std::string func_name;
  int error_no = 0;
  std::string error;
  double seconds = 0;
};

const char* kFuncName = "tune_kernel";

/** A function name no other candidate uses: JIT symbols of concurrently built modules must not
 *  collide. */
// flock on a file for as long as it lives (MeasureOption::run_lock_file): exclusive while timing,
// shared while building when builds must not overlap timings. Waits at most `wait_s` seconds
// (polling, so that a lock another process never releases cannot block for ever); held() tells.
class DeviceLock {
 public:
  DeviceLock(const std::string& path, bool exclusive, double wait_s) {
    if (path.empty()) return;
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    MINITVM_USER_CHECK(fd_ >= 0) << "measure: cannot open the device lock file '" << path << "'";
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(wait_s));
    for (;;) {
      if (::flock(fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) return;
      if (errno != EWOULDBLOCK && errno != EINTR) break;
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ::close(fd_);
    fd_ = -2;  // not held
  }
  ~DeviceLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  bool held() const { return fd_ != -2; }
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

 private:
  int fd_ = -1;
};

// How long a measurement waits for the device lock before it is recorded as a RUN_TIMEOUT.
double lock_wait_s(const MeasureOption& o) {
  return 2 * (o.build_timeout_s + o.run_timeout_s) + 30;
}

std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t c = line.find(':');
    if (c == std::string::npos) break;
    size_t b = line.find_first_not_of(" \t", c + 1);
    return b == std::string::npos ? std::string() : line.substr(b);
  }
  return {};
}

std::string unique_func_name() {
  static std::atomic<uint64_t> counter{0};
  return std::string(kFuncName) + "_" + std::to_string(counter.fetch_add(1));
}

void run_build(const Task& task, ConfigEntity cfg, const std::shared_ptr<BuildState>& st) {
  auto t0 = Clock::now();
  const std::string fname = unique_func_name();
  int err = 0;
  std::string msg;
  runtime::Module mod;
  runtime::PackedFunc func;
  int num_outputs = 1;
  TemplateResult tr;
  bool instantiated = false;
  try {
    tr = task.instantiate(cfg);
    instantiated = true;
    num_outputs = tr.num_outputs;
    ir::PrimFunc f = lower(tr.schedule, tr.args, fname, tr.lower_options);
    tr = TemplateResult();
    mod = build(std::vector<ir::PrimFunc>{f}, task.target_str());
    func = mod.get_function(fname);
  } catch (const std::exception& e) {
    err = static_cast<int>(classify_build_error(e, !instantiated));
    if (err == static_cast<int>(MeasureErrorNo::CompileHost) && instantiated &&
        task.target().name == "cuda" && !dynamic_cast<const CompileError*>(&e) &&
        !dynamic_cast<const InternalError*>(&e))
      err = static_cast<int>(MeasureErrorNo::CompileDevice);
    msg = e.what();
  }
  std::lock_guard<std::mutex> lock(st->mu);
  st->mod = mod;
  st->func = func;
  st->num_outputs = num_outputs;
  st->error_no = err;
  st->error = msg;
  st->seconds = seconds_since(t0);
  st->done = true;
  st->cv.notify_all();
}

/** Deterministic inputs: uniform in [-1, 1] for floats, small integers otherwise. */
runtime::NDArray make_input(const runtime::ArgSpec& spec, uint32_t seed) {
  runtime::NDArray a = runtime::NDArray::empty(spec.shape, spec.dtype, Device::cpu());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int64_t n = a.size();
  DataType dt = spec.dtype;
  if (dt.is_float() && dt.bits() == 32) {
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(u(rng));
    a.copy_from_bytes(v.data(), v.size() * sizeof(float));
  } else if (dt.is_float() && dt.bits() == 64) {
    std::vector<double> v(n);
    for (auto& x : v) x = u(rng);
    a.copy_from_bytes(v.data(), v.size() * sizeof(double));
  } else {
    std::vector<uint8_t> bytes(static_cast<size_t>(a.nbytes()));
    for (auto& b : bytes) b = static_cast<uint8_t>(rng() % 4);
    a.copy_from_bytes(bytes.data(), bytes.size());
  }
  return a;
}

std::vector<double> as_doubles(const runtime::NDArray& a) {
  DataType dt = a.dtype();
  std::vector<double> out;
  if (dt.is_float() && dt.bits() == 32) {
    for (float x : a.to_vector<float>()) out.push_back(x);
  } else if (dt.is_float() && dt.bits() == 64) {
    out = a.to_vector<double>();
  } else if (dt.is_int() && dt.bits() == 32) {
    for (int32_t x : a.to_vector<int32_t>()) out.push_back(x);
  } else if (dt.is_int() && dt.bits() == 64) {
    for (int64_t x : a.to_vector<int64_t>()) out.push_back(static_cast<double>(x));
  } else {
    std::vector<uint8_t> bytes(static_cast<size_t>(a.nbytes()));
    a.copy_to_bytes(bytes.data(), bytes.size());
    for (uint8_t b : bytes) out.push_back(b);
  }
  return out;
}

}  // namespace

MeasureErrorNo classify_build_error(const std::exception& e, bool in_template) {
  if (in_template) return MeasureErrorNo::InstantiationError;
  if (dynamic_cast<const InvalidConfig*>(&e)) return MeasureErrorNo::InstantiationError;
  return MeasureErrorNo::CompileHost;
}

struct LocalMeasurer::Impl {
  Task task;
  MeasureOption opt;
  bool emulate = false, cuda = false;
  Device dev = Device::cpu();
  // Inputs shared by the candidates whose arguments have the same shapes, and their reference
  // outputs (empty: no check possible). A template whose layouts follow the config
  // (conv2d_NCHWc.x86's channel blocks) has one set per layout.
  struct Prepared {
    std::vector<runtime::NDArray> host_args;
    std::vector<std::vector<double>> ref_outputs;
    bool ref_ready = false, ref_failed = false;
  };
  std::map<std::string, Prepared> prepared;

  Prepared& prepare_reference(const runtime::FunctionSignature& sig, int num_outputs,
                              const ConfigEntity& cfg);
  MeasureOutcome run_one(const ConfigEntity& cfg, const BuildState& b);
};

LocalMeasurer::LocalMeasurer(Task task, MeasureOption opt) : impl_(std::make_unique<Impl>()) {
  impl_->task = std::move(task);
  impl_->opt = opt;
  const Target& t = impl_->task.target();
  impl_->cuda = t.name == "cuda" || t.name == "nvptx";
  impl_->emulate =
      impl_->cuda && std::find(t.options.begin(), t.options.end(), "-emulate") != t.options.end();
  if (impl_->cuda && !impl_->emulate) {
    MINITVM_USER_CHECK(runtime::cuda_available())
        << "tuning " << impl_->task.name() << " for '" << t.str()
        << "': timing needs a GPU; cuda -emulate only checks correctness (no CUDA device here: "
        << runtime::cuda_unavailable_reason() << ")";
    impl_->dev = Device::cuda();
  }
  MINITVM_USER_CHECK(opt.number >= 1 && opt.repeat >= 1)
      << "measure option: number and repeat must be >= 1";
}

LocalMeasurer::~LocalMeasurer() = default;

bool LocalMeasurer::timed() const {
  return !impl_->emulate;
}

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

std::string local_device_name(const Target& target) {
  if (target.is_cuda()) return target.emulate ? "cuda-emulator" : "cuda:0";
  std::string model = cpu_model_name();
  return model.empty() ? "cpu" : "cpu " + model;
}

namespace {

std::string shape_key(const std::vector<std::pair<DataType, std::vector<int64_t>>>& args) {
  std::string k;
  for (const auto& [dt, shape] : args) {
    k += dt.str() + "[";
    for (int64_t d : shape) k += std::to_string(d) + ",";
    k += "]";
  }
  return k;
}

}  // namespace

LocalMeasurer::Impl::Prepared& LocalMeasurer::Impl::prepare_reference(
    const runtime::FunctionSignature& sig, int num_outputs, const ConfigEntity& cfg) {
  std::vector<std::pair<DataType, std::vector<int64_t>>> shapes;
  for (const auto& a : sig.args) shapes.emplace_back(a.dtype, a.shape);
  Prepared& p = prepared[shape_key(shapes)];
  if (p.ref_ready || p.ref_failed) return p;
  p.host_args.clear();
  for (size_t i = 0; i < sig.args.size(); ++i) {
    MINITVM_USER_CHECK(sig.args[i].kind == runtime::ArgSpec::Kind::Buffer)
        << "tuning: template " << task.name() << " has a scalar argument '" << sig.args[i].name
        << "'";
    p.host_args.push_back(make_input(sig.args[i], 1234u + static_cast<uint32_t>(i)));
  }
  if (!(opt.check_correctness || emulate)) {
    p.ref_ready = true;
    return p;
  }
  try {
    // The reference: the fallback instantiation when its arguments have these shapes; otherwise
    // the candidate's own compute under the default schedule (every stage at root, no
    // transformations: an independent naive loop nest).
    FallbackConfigEntity fb;
    TemplateResult tr = task.instantiate(fb);
    std::vector<std::pair<DataType, std::vector<int64_t>>> fb_shapes;
    for (const auto& t : tr.args) {
      std::vector<int64_t> sh;
      for (const auto& e : t.shape()) {
        const int64_t* v = ir::as_const_int(e);
        sh.push_back(v ? *v : -1);
      }
      fb_shapes.emplace_back(t.dtype(), sh);
    }
    if (shape_key(fb_shapes) != shape_key(shapes)) {
      ConfigEntity c = cfg;
      tr = task.instantiate(c);
      MINITVM_USER_CHECK(!tr.reference)
          << "template " << task.name()
          << ": a host reference cannot follow config-dependent layouts";
      std::vector<te::Operation> outs;
      for (size_t k = tr.args.size() - static_cast<size_t>(num_outputs); k < tr.args.size(); ++k)
        outs.push_back(tr.args[k].op());
      tr.schedule = te::create_schedule(outs);
    }
    std::vector<runtime::NDArray> arrs;
    for (const auto& a : p.host_args) arrs.push_back(a.copy_to(Device::cpu()));
    if (tr.reference) {
      tr.reference(arrs);
    } else {
      MINITVM_USER_CHECK(task.target().name == "llvm")
          << "template " << task.name() << " has no host reference for correctness checks";
      const std::string fname = unique_func_name();
      runtime::Module m = build(tr.schedule, tr.args, "llvm", fname, tr.lower_options);
      std::vector<runtime::ArgValue> call(arrs.begin(), arrs.end());
      m.get_function(fname).call(call);
    }
    for (size_t i = arrs.size() - static_cast<size_t>(num_outputs); i < arrs.size(); ++i)
      p.ref_outputs.push_back(as_doubles(arrs[i]));
    p.ref_ready = true;
  } catch (const std::exception& e) {
    log_warning(std::string("tuning: no reference for correctness checks of ") + task.name() +
                ": " + e.what());
    p.ref_failed = true;
  }
  return p;
}

MeasureOutcome LocalMeasurer::Impl::run_one(const ConfigEntity& cfg, const BuildState& b) {
  MeasureOutcome out;
  out.config = cfg;
  auto t0 = Clock::now();
  auto fail = [&](MeasureErrorNo no, std::string msg) {
    out.result.error_no = static_cast<int>(no);
    out.result.costs = {1e9};
    out.error = std::move(msg);
  };
  Prepared* prep = nullptr;
  try {
    prep = &prepare_reference(b.func.signature(), b.num_outputs, cfg);
  } catch (const std::exception& e) {
    fail(MeasureErrorNo::RuntimeDevice, e.what());
    return out;
  }
  const std::vector<runtime::NDArray>& host_args = prep->host_args;
  const std::vector<std::vector<double>>& ref_outputs = prep->ref_outputs;
  const bool ref_ready = prep->ref_ready;
  // Fresh outputs per candidate so that a stale result cannot pass the check.
  std::vector<runtime::NDArray> args;
  size_t first_out = host_args.size() - static_cast<size_t>(b.num_outputs);
  for (size_t i = 0; i < host_args.size(); ++i) {
    runtime::NDArray a = host_args[i];
    if (i >= first_out) {
      a = runtime::NDArray::empty(host_args[i].shape(), host_args[i].dtype(), Device::cpu());
      std::vector<uint8_t> zero(static_cast<size_t>(a.nbytes()), 0);
      a.copy_from_bytes(zero.data(), zero.size());
    }
    args.push_back(dev.is_cpu() ? a : a.copy_to(dev));
  }

  struct RunState {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    runtime::ProfileResult prof;
    std::string error;
  };
  auto rs = std::make_shared<RunState>();
  DeviceLock device_lock(emulate ? std::string() : opt.run_lock_file, /*exclusive=*/true,
                         lock_wait_s(opt));
  if (!device_lock.held()) {
    MeasureOutcome out;
    out.config = cfg;
    out.result.error_no = static_cast<int>(MeasureErrorNo::RunTimeout);
    out.result.costs = {1e9};
    out.error = "the device lock '" + opt.run_lock_file + "' was not free within " +
                std::to_string(static_cast<int>(lock_wait_s(opt))) +
                " s (another process holds it)";
    return out;
  }
  runtime::PackedFunc f = b.func;
  bool time_it = !emulate;
  MeasureOption o = opt;
  Device d = dev;
  std::thread worker([rs, f, args, time_it, o, d] {
    runtime::ProfileResult prof;
    std::string err;
    try {
      std::vector<runtime::ArgValue> call(args.begin(), args.end());
      f.call(call);  // first call: produces the outputs checked below
      if (time_it)
        prof = runtime::time_evaluator(f, d, o.number, o.repeat, o.min_repeat_ms).call(call);
    } catch (const std::exception& e) {
      err = e.what();
      if (err.empty()) err = "unknown error";
    }
    std::lock_guard<std::mutex> lock(rs->mu);
    rs->prof = prof;
    rs->error = err;
    rs->done = true;
    rs->cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(rs->mu);
    bool finished = rs->cv.wait_for(lock, std::chrono::duration<double>(opt.run_timeout_s),
                                    [&] { return rs->done; });
    if (!finished) {
      lock.unlock();
      worker.detach();
      fail(MeasureErrorNo::RunTimeout, "run exceeded " + std::to_string(opt.run_timeout_s) + " s");
      return out;
    }
  }
  worker.join();
  if (!rs->error.empty()) {
    fail(MeasureErrorNo::RuntimeDevice, rs->error);
    return out;
  }
  if (ref_ready && !ref_outputs.empty()) {
    for (size_t k = 0; k < ref_outputs.size(); ++k) {
      std::vector<double> got = as_doubles(args[first_out + k].copy_to(Device::cpu()));
      const auto& want = ref_outputs[k];
      for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
        if (!(std::abs(got[i] - want[i]) <= opt.atol + opt.rtol * std::abs(want[i]))) {
          fail(MeasureErrorNo::WrongAnswer,
               "output " + std::to_string(k) + " element " + std::to_string(i) + ": got " +
                   std::to_string(got[i]) + ", expected " + std::to_string(want[i]));
          return out;
        }
      }
    }
  }
  if (emulate) {
    out.result.costs = {kEmulatedCost};
  } else {
    std::vector<double> c = rs->prof.results;
    if (c.size() > 2) {  // TVM drops the largest and smallest repeat
      std::sort(c.begin(), c.end());
      c = std::vector<double>(c.begin() + 1, c.end() - 1);
    }
    out.result.costs = c;
  }
  out.result.all_cost = seconds_since(t0);
  return out;
}

std::vector<MeasureOutcome> LocalMeasurer::measure(const std::vector<ConfigEntity>& configs) {
  Impl& m = *impl_;
  int threads = m.opt.n_parallel > 0
                    ? m.opt.n_parallel
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::shared_ptr<BuildState>> states;
  std::vector<Clock::time_point> started(configs.size());
  std::vector<std::thread> workers(configs.size());
  std::vector<bool> abandoned(configs.size(), false);
  size_t next = 0, waiting = 0;
  for (size_t i = 0; i < configs.size(); ++i) states.push_back(std::make_shared<BuildState>());
  auto launch = [&](size_t i) {
    started[i] = Clock::now();
    auto st = states[i];
    Task task = m.task;
    ConfigEntity cfg = configs[i];
    workers[i] = std::thread([task, cfg, st] { run_build(task, cfg, st); });
  };
  // Builds of other processes on this host must not overlap their timings (CPU targets): the
  // build phase holds the device lock shared (timings hold it exclusively).
  std::optional<DeviceLock> build_lock;
  if (m.opt.builds_exclude_timing && !m.emulate && !m.opt.run_lock_file.empty())
    build_lock.emplace(m.opt.run_lock_file, /*exclusive=*/false, lock_wait_s(m.opt));
  // At most `threads` builds in flight; wait for them in order, each against its own deadline.
  for (; next < configs.size() && static_cast<int>(next) < threads; ++next) launch(next);
  for (waiting = 0; waiting < configs.size(); ++waiting) {
    auto& st = states[waiting];
    std::unique_lock<std::mutex> lock(st->mu);
    auto deadline = started[waiting] + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(m.opt.build_timeout_s));
    bool finished = st->cv.wait_until(lock, deadline, [&] { return st->done; });
    lock.unlock();
    if (finished) {
      workers[waiting].join();
    } else {
      workers[waiting].detach();
      abandoned[waiting] = true;
    }
    if (next < configs.size()) launch(next++);
  }

  build_lock.reset();
  std::vector<MeasureOutcome> outs;
  const MeasuredOn where{host_name(), local_device_name(m.task.target())};
  for (size_t i = 0; i < configs.size(); ++i) {
    BuildState& b = *states[i];
    MeasureOutcome o;
    o.config = configs[i];
    if (abandoned[i]) {
      o.result.error_no = static_cast<int>(MeasureErrorNo::BuildTimeout);
      o.result.costs = {1e9};
      o.result.all_cost = m.opt.build_timeout_s;
      o.error = "build exceeded " + std::to_string(m.opt.build_timeout_s) + " s";
    } else if (b.error_no != 0) {
      o.result.error_no = b.error_no;
      o.result.costs = {1e9};
      o.result.all_cost = b.seconds;
      o.error = b.error;
    } else {
      o = m.run_one(configs[i], b);
      o.result.all_cost += b.seconds;
      b.mod = runtime::Module();  // release the JIT code now
      b.func = runtime::PackedFunc();
    }
    o.result.timestamp = unix_now();
    o.where = where;
    if (on_outcome) on_outcome(o);
    outs.push_back(std::move(o));
  }
  return outs;
}

Record make_record(const Task& task, const ConfigEntity& cfg, const MeasureResult& result,
                   double version, const MeasuredOn& where) {
  MINITVM_USER_CHECK(version == 0.1 || version == 0.2) << "record version must be 0.1 or 0.2";
  Record r;
  r.version = version;
  r.input.target_str = task.target_str();
  r.input.target = task.target();
  r.input.task_name = task.name();
  r.input.args = task.args();
  r.input.kwargs = Json::object();
  r.input.config = cfg;
  r.input.config.code_hash.reset();
  if (version == 0.2) {
    r.input.workload = task.workload();
    r.input.config.template_key.clear();
    r.tvm_version = "0.7.dev1";
  } else {
    r.input.workload = workload_v01(task.name(), task.args());
    if (r.input.config.template_key.empty()) r.input.config.template_key = "direct";
  }
  r.result = result;
  if (r.result.error_no != 0) r.result.costs = {1e9};
  if (r.result.costs.empty()) r.result.costs = {1e9};
  if (!where.empty()) {
    // An extra key (TVM's decoder reads only the keys it knows): where the record was measured.
    r.extra["measured_on"] = Json::object({{"host", where.host}, {"device", where.device}});
    r.key_order = version == 0.2 ? std::vector<std::string>{"input",   "config",      "result",
                                                            "version", "tvm_version", "measured_on"}
                                 : std::vector<std::string>{"i", "r", "v", "measured_on"};
  }
  return r;
}

}  // namespace minitvm::autotune
