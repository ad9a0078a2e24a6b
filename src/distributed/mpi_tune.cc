// Network tuning over MPI ranks: see minitvm/distributed/mpi_tune.h.
#include "minitvm/distributed/mpi_tune.h"

#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "minitvm/autotune/target.h"
#include "minitvm/runtime/cuda.h"
#include "minitvm/support/error.h"

namespace minitvm::distributed {

using autotune::Json;
using autotune::MeasureOutcome;
using Clock = std::chrono::steady_clock;

namespace {

enum Tag : int { kHello = 1, kJob = 2, kResult = 3, kStop = 4, kBye = 5 };

void send_json(int dest, int tag, const Json& j) {
  const std::string s = j.dump();
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

// Receive the message `st` announced (MPI_Probe / MPI_Iprobe).
Json recv_json(const MPI_Status& st) {
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string s(static_cast<size_t>(std::max(n, 0)), '\0');
  MPI_Recv(s.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return Json::parse(s);
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Test hooks (tests/distributed): MINITVM_MPI_TEST_FAULT="KIND:RANK:N" makes RANK, after N
// results, die (kill: SIGKILL), hang in its measurement (hang: the MPI thread goes on), or stop
// altogether (freeze: the MPI thread too); MINITVM_MPI_TEST_DEVICE="RANK:NAME" makes RANK report
// device NAME.
struct Fault {
  std::string kind;
  int rank = -1;
  int after = 0;
};
Fault fault_from_env() {
  Fault f;
  const char* e = std::getenv("MINITVM_MPI_TEST_FAULT");
  if (!e) return f;
  std::string s = e;
  size_t a = s.find(':'), b = a == std::string::npos ? a : s.find(':', a + 1);
  if (b == std::string::npos) return f;
  f.kind = s.substr(0, a);
  f.rank = std::atoi(s.substr(a + 1, b - a - 1).c_str());
  f.after = std::atoi(s.substr(b + 1).c_str());
  return f;
}
std::string device_override(int rank) {
  const char* e = std::getenv("MINITVM_MPI_TEST_DEVICE");
  if (!e) return "";
  std::string s = e;
  size_t c = s.find(':');
  if (c == std::string::npos || std::atoi(s.substr(0, c).c_str()) != rank) return "";
  return s.substr(c + 1);
}

Json result_json(const MeasureOutcome& o) {
  return {{"costs", o.result.costs},
          {"error_no", o.result.error_no},
          {"all_cost", o.result.all_cost},
          {"timestamp", o.result.timestamp},
          {"error", o.error},
          {"host", o.where.host},
          {"device", o.where.device}};
}

autotune::MeasureOption worker_measure_option(const autotune::MeasureOption& base, int local_size,
                                              const std::string& device) {
  autotune::MeasureOption m = base;
  if (m.n_parallel <= 0) {
    int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    m.n_parallel = std::max(1, hw / std::max(1, local_size));
  }
  if (m.run_lock_file.empty()) m.run_lock_file = device_lock_path(device);
  // On a CPU the builds of the other ranks would run on the cores a timing uses.
  m.builds_exclude_timing = device.rfind("cpu", 0) == 0;
  return m;
}

// ---- worker ranks -------------------------------------------------------------------------------

// A worker's main thread only talks MPI (MPI_THREAD_FUNNELED); one measuring thread runs the jobs.
// So a measurement that hangs (a kernel that never returns) leaves the rank able to answer: rank 0
// gives up on it after worker_timeout_s, and at the end of the job the rank still receives the
// stop, says goodbye and finalises, so the job ends with MPI_Finalize on every rank and exit 0.
class WorkerLoop {
 public:
  WorkerLoop(int rank, int local_size, const std::vector<autotune::WeightedTask>& tasks,
             const autotune::MeasureOption& measure, std::string device)
      : rank_(rank),
        tasks_(tasks),
        device_(std::move(device)),
        mo_(worker_measure_option(measure, local_size, device_)),
        fault_(fault_from_env()) {}

  // Returns when rank 0 says stop and the measuring thread is idle. A measuring thread that is
  // still busy a moment after the stop is stuck: the rank finalises MPI and ends its process (the
  // thread holds this call's data, so returning would free it under the thread).
  void run() {
    std::thread measuring([this] {
      try {
        measure_loop();
      } catch (...) {
        // An error in a measurement (LocalMeasurer reports build and run failures as results;
        // this is anything else) ends this rank the way an error on its main thread would.
        std::lock_guard<std::mutex> g(mu_);
        error_ = std::current_exception();
        exited_ = true;
        cv_out_.notify_one();
        cv_idle_.notify_all();
      }
    });
    for (;;) {
      flush_outbox();
      std::exception_ptr err;
      {
        std::lock_guard<std::mutex> g(mu_);
        err = error_;
      }
      if (err) {
        measuring.join();
        std::rethrow_exception(err);
      }
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
        Json msg = recv_json(st);
        if (st.MPI_TAG == kStop) break;
        if (st.MPI_TAG == kJob) {
          std::lock_guard<std::mutex> g(mu_);
          jobs_.push_back(std::move(msg));
          cv_jobs_.notify_one();
        }
        continue;
      }
      std::unique_lock<std::mutex> g(mu_);
      cv_out_.wait_for(g, std::chrono::milliseconds(2),
                       [&] { return !outbox_.empty() || error_ != nullptr; });
    }
    bool idle = false;
    {
      std::unique_lock<std::mutex> g(mu_);
      stopping_ = true;
      jobs_.clear();
      cv_jobs_.notify_one();
      idle = cv_idle_.wait_for(g, std::chrono::seconds(2), [&] { return exited_; });
    }
    send_json(0, kBye, {{"measuring_thread", idle ? "idle" : "stuck"}});
    if (idle) {
      measuring.join();
      return;
    }
    measuring.detach();
    std::cout.flush();
    std::cerr.flush();
    MPI_Finalize();
    std::_Exit(0);
  }

 private:
  void flush_outbox() {
    std::vector<Json> out;
    {
      std::lock_guard<std::mutex> g(mu_);
      out.swap(outbox_);
    }
    for (const Json& r : out) {
      send_json(0, kResult, r);
      ++sent_;
      if (fault_.rank != rank_ || sent_ < fault_.after) continue;
      if (fault_.kind == "kill") ::raise(SIGKILL);
      // "freeze": the whole rank stops answering, its MPI thread included.
      if (fault_.kind == "freeze")
        for (;;) ::pause();
    }
  }

  void measure_loop() {
    std::map<size_t, std::unique_ptr<autotune::LocalMeasurer>> measurers;
    int produced = 0;
    for (;;) {
      Json msg;
      {
        std::unique_lock<std::mutex> g(mu_);
        cv_jobs_.wait(g, [&] { return stopping_ || !jobs_.empty(); });
        if (stopping_) break;
        msg = std::move(jobs_.front());
        jobs_.pop_front();
      }
      const size_t ti = msg.at("task").get<size_t>();
      const int64_t job = msg.at("job").get<int64_t>();
      if (ti >= tasks_.size()) continue;  // cannot happen with identical task lists
      auto& m = measurers[ti];
      if (!m) m = std::make_unique<autotune::LocalMeasurer>(tasks_[ti].task, mo_);
      std::vector<autotune::ConfigEntity> cfgs;
      for (const Json& i : msg.at("configs"))
        cfgs.push_back(tasks_[ti].task.config(i.get<int64_t>()));
      m->on_outcome = [&](const MeasureOutcome& o) {
        MeasureOutcome w = o;
        w.where.device = device_;
        Json r = result_json(w);
        r["job"] = job;
        r["task"] = ti;
        r["index"] = o.config.index;
        {
          std::lock_guard<std::mutex> g(mu_);
          outbox_.push_back(std::move(r));
          cv_out_.notify_one();
        }
        ++produced;
        // "hang": the measurement never returns; the MPI thread goes on answering.
        if (fault_.kind == "hang" && fault_.rank == rank_ && produced >= fault_.after)
          for (;;) ::pause();
      };
      m->measure(cfgs);
    }
    std::lock_guard<std::mutex> g(mu_);
    exited_ = true;
    cv_idle_.notify_all();
  }

  const int rank_;
  const std::vector<autotune::WeightedTask>& tasks_;
  const std::string device_;
  const autotune::MeasureOption mo_;
  const Fault fault_;
  int sent_ = 0;
  std::mutex mu_;
  std::condition_variable cv_jobs_, cv_out_, cv_idle_;
  std::deque<Json> jobs_;
  std::vector<Json> outbox_;
  std::exception_ptr error_;
  bool stopping_ = false, exited_ = false;
};

void serve(int rank, int local_size, const std::vector<autotune::WeightedTask>& tasks,
           const autotune::MeasureOption& measure) {
  const std::string target = tasks.empty() ? "llvm" : tasks[0].task.target_str();
  const autotune::Target t = autotune::parse_target(target);
  std::string device = device_override(rank);
  if (device.empty()) device = autotune::local_device_name(t);
  bool ok = true;
  std::string reason;
  if (t.is_cuda() && !t.emulate && !runtime::cuda_available()) {
    ok = false;
    reason = "target '" + target + "' is timed on a GPU and this rank has none (" +
             runtime::cuda_unavailable_reason() + ")";
  }
  send_json(0, kHello,
            {{"host", autotune::host_name()}, {"device", device}, {"ok", ok}, {"reason", reason}});
  WorkerLoop(rank, local_size, tasks, measure, device).run();
}

// ---- rank 0 -------------------------------------------------------------------------------------

struct Worker {
  int rank = 0;
  std::string host, device;
  bool usable = false;  // accepted and not lost
  bool lost = false;
  int outstanding = 0;  // candidates sent and not answered
  Clock::time_point last_heard;
};

class Cluster {
 public:
  Cluster(const std::vector<autotune::WeightedTask>& tasks, const autotune::MeasureOption& measure,
          const MpiOptions& mpi, int size, int local_size)
      : tasks_(tasks), measure_(measure), mpi_(mpi), local_size_(local_size) {
    for (int r = 1; r < size; ++r) {
      Worker w;
      w.rank = r;
      workers_.push_back(w);
    }
    timeout_ = mpi.worker_timeout_s > 0
                   ? mpi.worker_timeout_s
                   : measure.build_timeout_s + (size + 1) * (measure.run_timeout_s + 2) + 10;
  }

  // Every worker says where it runs; refuse those that cannot time the target or differ.
  void handshake(std::vector<int>& refused) {
    std::string job_device;
    int pending = static_cast<int>(workers_.size());
    std::vector<Json> hello(workers_.size());
    while (pending > 0) {
      MPI_Status st;
      MPI_Probe(MPI_ANY_SOURCE, kHello, MPI_COMM_WORLD, &st);
      hello[static_cast<size_t>(st.MPI_SOURCE - 1)] = recv_json(st);
      --pending;
    }
    for (size_t k = 0; k < workers_.size(); ++k) {
      Worker& w = workers_[k];
      w.host = hello[k].value("host", "");
      w.device = hello[k].value("device", "");
      std::string reason = hello[k].value("reason", "");
      if (hello[k].value("ok", false) && job_device.empty()) job_device = w.device;
      if (hello[k].value("ok", false) && w.device != job_device)
        reason = "its device '" + w.device + "' differs from the job's '" + job_device +
                 "' (timings of different devices are not comparable in one search)";
      if (reason.empty()) {
        w.usable = true;
      } else {
        refused.push_back(w.rank);
        if (mpi_.log)
          *mpi_.log << "mpi: rank " << w.rank << " (" << w.host << ") refused: " << reason << "\n";
      }
    }
    if (mpi_.log) {
      int n = 0;
      for (auto& w : workers_) n += w.usable;
      *mpi_.log << "mpi: " << n << " worker rank(s) measuring on "
                << (job_device.empty() ? "-" : job_device)
                << "; rank 0 searches and writes the log\n";
    }
  }

  // Tell every worker to stop (lost ones too: a rank whose measurement hangs still answers) and
  // wait a little for each goodbye. Returns the ranks that did not say goodbye: they cannot take
  // part in MPI_Finalize, and the job has to end with MPI_Abort.
  std::vector<int> stop_all() {
    std::map<int, bool> waiting;
    for (auto& w : workers_) {
      send_json(w.rank, kStop, Json::object());
      waiting[w.rank] = true;
    }
    const double grace = std::clamp(timeout_, 2.0, 10.0);
    const Clock::time_point t0 = Clock::now();
    size_t left = waiting.size();
    while (left > 0 && seconds_since(t0) < grace) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      if (!flag) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      recv_json(st);  // late results of lost ranks are dropped
      if (st.MPI_TAG == kBye && waiting[st.MPI_SOURCE]) {
        waiting[st.MPI_SOURCE] = false;
        --left;
      }
    }
    std::vector<int> silent;
    for (auto& [r, w] : waiting)
      if (w) silent.push_back(r);
    // One write per line: MPI_Abort's banner (from mpirun, on the same stderr) follows at once and
    // would otherwise land inside the line.
    if (mpi_.log)
      for (int r : silent) {
        *mpi_.log << ("mpi: rank " + std::to_string(r) +
                      " did not answer the stop; the job ends with MPI_Abort\n");
        mpi_.log->flush();
      }
    return silent;
  }

  std::vector<int> lost() const {
    std::vector<int> r;
    for (auto& w : workers_)
      if (w.lost) r.push_back(w.rank);
    return r;
  }

  // Measure configs of task `ti` on the workers; each outcome goes to on_outcome when it arrives.
  std::vector<MeasureOutcome> measure(
      size_t ti, const std::vector<autotune::ConfigEntity>& cfgs,
      const std::function<void(const MeasureOutcome&)>& on_outcome) {
    struct Slot {
      std::optional<MeasureOutcome> out;
      int attempts = 0;
      int rank = -1;
      int64_t job = -1;
      std::vector<int> lost_on;
    };
    std::vector<Slot> slots(cfgs.size());
    std::deque<size_t> queue;
    for (size_t i = 0; i < cfgs.size(); ++i) queue.push_back(i);
    size_t resolved = 0;
    auto finish = [&](size_t i, MeasureOutcome o) {
      slots[i].out = std::move(o);
      ++resolved;
      if (on_outcome) on_outcome(*slots[i].out);
    };
    while (resolved < cfgs.size()) {
      std::vector<Worker*> idle;
      bool any_usable = false;
      for (auto& w : workers_) {
        any_usable |= w.usable;
        if (w.usable && w.outstanding == 0) idle.push_back(&w);
      }
      if (!any_usable) {
        // No worker left: rank 0 measures what is left itself.
        std::vector<size_t> rest(queue.begin(), queue.end());
        queue.clear();
        std::vector<autotune::ConfigEntity> rc;
        for (size_t i : rest) rc.push_back(cfgs[i]);
        if (!rest.empty()) {
          if (mpi_.log && !warned_local_)
            *mpi_.log << "mpi: no worker rank left; rank 0 measures\n";
          warned_local_ = true;
          std::vector<MeasureOutcome> outs = local(ti).measure(rc);
          for (size_t k = 0; k < rest.size(); ++k) finish(rest[k], outs[k]);
        }
        continue;
      }
      // Hand the queue out in equal chunks to the idle workers.
      if (!queue.empty() && !idle.empty()) {
        const size_t per = (queue.size() + idle.size() - 1) / idle.size();
        for (Worker* w : idle) {
          if (queue.empty()) break;
          Json idx = Json::array();
          const int64_t job = next_job_++;
          for (size_t k = 0; k < per && !queue.empty(); ++k) {
            size_t i = queue.front();
            queue.pop_front();
            slots[i].rank = w->rank;
            slots[i].job = job;
            ++slots[i].attempts;
            idx.push_back(cfgs[i].index);
            ++w->outstanding;
          }
          w->last_heard = Clock::now();
          send_json(w->rank, kJob, {{"job", job}, {"task", ti}, {"configs", idx}});
        }
      }
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &flag, &st);
      if (flag) {
        Json r = recv_json(st);
        Worker& w = workers_[static_cast<size_t>(st.MPI_SOURCE - 1)];
        if (w.lost) continue;  // a late answer of a rank already given up on
        w.last_heard = Clock::now();
        w.outstanding = std::max(0, w.outstanding - 1);
        const int64_t job = r.value("job", int64_t{-1}), index = r.value("index", int64_t{-1});
        for (size_t i = 0; i < slots.size(); ++i) {
          Slot& s = slots[i];
          if (s.out || s.job != job || s.rank != w.rank || cfgs[i].index != index) continue;
          MeasureOutcome o;
          o.config = cfgs[i];
          o.result.costs = r.at("costs").get<std::vector<double>>();
          o.result.error_no = r.value("error_no", 8);
          o.result.all_cost = r.value("all_cost", 0.0);
          o.result.timestamp = r.value("timestamp", 0.0);
          o.error = r.value("error", "");
          o.where = {r.value("host", w.host), r.value("device", w.device)};
          finish(i, std::move(o));
          break;
        }
        continue;
      }
      // Silent workers holding candidates are lost; their candidates go elsewhere (once).
      for (auto& w : workers_) {
        if (!w.usable || w.outstanding == 0 || seconds_since(w.last_heard) <= timeout_) continue;
        w.usable = false;
        w.lost = true;
        w.outstanding = 0;
        if (mpi_.log)
          *mpi_.log << "mpi: rank " << w.rank << " (" << w.host << ") sent nothing for " << timeout_
                    << " s; its candidates are re-queued and the search goes on without it\n";
        for (size_t i = 0; i < slots.size(); ++i) {
          Slot& s = slots[i];
          if (s.out || s.rank != w.rank) continue;
          s.lost_on.push_back(w.rank);
          s.rank = -1;
          if (s.attempts >= 2) {
            MeasureOutcome o;
            o.config = cfgs[i];
            o.result.costs = {1e9};
            o.result.error_no = static_cast<int>(autotune::MeasureErrorNo::RunTimeout);
            o.result.timestamp = static_cast<double>(std::time(nullptr));
            o.error = "measurement lost: ranks " + std::to_string(s.lost_on.front()) + " and " +
                      std::to_string(s.lost_on.back()) + " stopped answering while holding it";
            o.where = {w.host, w.device};
            finish(i, std::move(o));
          } else {
            queue.push_front(i);
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    std::vector<MeasureOutcome> outs;
    for (auto& s : slots) outs.push_back(std::move(*s.out));
    return outs;
  }

 private:
  autotune::LocalMeasurer& local(size_t ti) {
    auto& m = local_[ti];
    if (!m) {
      const std::string device = autotune::local_device_name(tasks_[ti].task.target());
      m = std::make_unique<autotune::LocalMeasurer>(
          tasks_[ti].task, worker_measure_option(measure_, local_size_, device));
    }
    return *m;
  }

  const std::vector<autotune::WeightedTask>& tasks_;
  autotune::MeasureOption measure_;
  MpiOptions mpi_;
  int local_size_;
  std::vector<Worker> workers_;
  double timeout_ = 60;
  int64_t next_job_ = 0;
  bool warned_local_ = false;
  std::map<size_t, std::unique_ptr<autotune::LocalMeasurer>> local_;
};

// The measurer of one task on rank 0: forwards batches to the cluster.
class RemoteMeasurer : public autotune::Measurer {
 public:
  RemoteMeasurer(Cluster& c, size_t ti) : c_(c), ti_(ti) {}
  std::vector<MeasureOutcome> measure(const std::vector<autotune::ConfigEntity>& configs) override {
    return c_.measure(ti_, configs, on_outcome);
  }

 private:
  Cluster& c_;
  size_t ti_;
};

}  // namespace

std::string device_lock_path(const std::string& device) {
  std::string s;
  for (char ch : device) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-';
  return "/tmp/minitvm-measure-" + (s.empty() ? std::string("device") : s) + ".lock";
}

MpiJob::MpiJob() {
  int inited = 0;
  MPI_Initialized(&inited);
  MINITVM_USER_CHECK(!inited) << "MpiJob: MPI is already initialised in this process";
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &local_size_);
  // Measuring ranks on this host: rank 0 (which only searches) does not count when it is here.
  int leader = rank_;
  MPI_Bcast(&leader, 1, MPI_INT, 0, local);  // world rank of this host's first rank
  local_workers_ = std::max(1, local_size_ - (leader == 0 && size_ > 1 ? 1 : 0));
  MPI_Comm_free(&local);
}

void MpiJob::abort(int code) {
  std::cout.flush();
  std::cerr.flush();
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; should it, do not finalise half a job
}

MpiJob::~MpiJob() {
  std::cout.flush();
  std::cerr.flush();
  if (rank_ == 0 && !unreachable_.empty()) {
    // A frozen rank never reaches MPI_Finalize; end the job (exit status 0: the log is complete).
    MPI_Abort(MPI_COMM_WORLD, 0);
  }
  MPI_Finalize();
}

std::optional<autotune::NetworkTuneSummary> MpiJob::tune(
    const std::vector<autotune::WeightedTask>& tasks, const autotune::SchedulerOptions& opt,
    const autotune::MeasureOption& measure, const MpiOptions& mpi) {
  if (rank_ != 0) {
    serve(rank_, local_workers_, tasks, measure);
    return std::nullopt;
  }
  lost_.clear();
  refused_.clear();
  unreachable_.clear();
  if (size_ == 1) {
    // One rank: it searches and measures (builds on all of this host's threads).
    if (mpi.log) *mpi.log << "mpi: 1 rank: rank 0 searches and measures\n";
    const autotune::Target t =
        tasks.empty() ? autotune::parse_target("llvm") : tasks[0].task.target();
    return autotune::tune_tasks(tasks, opt,
                                worker_measure_option(measure, 1, autotune::local_device_name(t)));
  }
  Cluster cluster(tasks, measure, mpi, size_, local_workers_);
  cluster.handshake(refused_);
  autotune::NetworkTuneSummary s;
  try {
    s = autotune::tune_tasks(tasks, opt,
                             [&](const autotune::Task& t) -> std::unique_ptr<autotune::Measurer> {
                               for (size_t i = 0; i < tasks.size(); ++i)
                                 if (&tasks[i].task == &t)
                                   return std::make_unique<RemoteMeasurer>(cluster, i);
                               MINITVM_ICHECK(false) << "mpi: task not in the list";
                               return nullptr;
                             });
  } catch (...) {
    lost_ = cluster.lost();
    unreachable_ = cluster.stop_all();
    throw;
  }
  lost_ = cluster.lost();
  unreachable_ = cluster.stop_all();
  return s;
}

}  // namespace minitvm::distributed
