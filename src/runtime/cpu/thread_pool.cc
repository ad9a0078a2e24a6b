// A persistent pool of worker threads behind the C entry point minitvm_parallel_for.
#include "minitvm/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace minitvm::runtime {
namespace {

// True on pool workers, and on a caller while it runs tasks: a parallel_for from there is nested.
thread_local bool t_inside_pool = false;

class ThreadPool {
 public:
  explicit ThreadPool(int nthreads) : nthreads_(std::max(1, nthreads)), ranges_(nthreads_) {
    for (int i = 1; i < nthreads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
  }

  int size() const { return nthreads_; }

  int32_t run(int64_t num_tasks, minitvm_parallel_body body, void* closure) {
    if (num_tasks < 0) return -2;
    if (num_tasks == 0) return 0;
    std::unique_lock<std::mutex> busy(run_mu_, std::defer_lock);
    if (t_inside_pool || nthreads_ == 1 || num_tasks == 1 || !busy.try_lock())
      return run_serial(num_tasks, body, closure);
    {
      std::lock_guard<std::mutex> lock(mu_);
      body_ = body;
      closure_ = closure;
      num_tasks_ = num_tasks;
      // Thread t owns the t-th contiguous share of the tasks, taken in chunks of an eighth of it;
      // a thread done with its share takes chunks from the others' (work stealing).
      chunk_ = std::max<int64_t>(1, num_tasks / (int64_t(nthreads_) * 8));
      for (int t = 0; t < nthreads_; ++t) {
        ranges_[t].next.store(num_tasks * t / nthreads_, std::memory_order_relaxed);
        ranges_[t].end = num_tasks * (t + 1) / nthreads_;
      }
      failed_.store(false);
      active_.store(static_cast<int>(workers_.size()));
      ++generation_;
      published_.store(generation_, std::memory_order_release);
    }
    work_cv_.notify_all();
    t_inside_pool = true;
    run_chunks(0);
    t_inside_pool = false;
    // Spin for the workers' last chunks before blocking: a futex sleep here and the wake-up of a
    // halted vCPU (an IPI and a VM entry under KVM) cost tens to hundreds of microseconds per
    // parallel loop, and a network runs hundreds of them back to back.
    for (int spin = 0; spin < kSpinIterations && active_.load(std::memory_order_acquire) != 0;
         ++spin)
      cpu_relax();
    if (active_.load(std::memory_order_acquire) != 0) {
      std::unique_lock<std::mutex> lock(mu_);
      done_cv_.wait(lock, [this] { return active_.load(std::memory_order_acquire) == 0; });
    }
    return failed_.load() ? -1 : 0;
  }

 private:
  static int32_t run_serial(int64_t num_tasks, minitvm_parallel_body body, void* closure) {
    bool failed = false;
    for (int64_t t = 0; t < num_tasks; ++t) {
      try {
        body(t, closure);
      } catch (...) {
        failed = true;
      }
    }
    return failed ? -1 : 0;
  }

  // Runs thread `tid`'s share, then helps the others with theirs. A network's consecutive
  // kernels split their output rows the same way, so a thread mostly reads the rows it wrote a
  // kernel earlier, from its own L2 (MobileNetV2 3.72 -> 3.36 ms on the 2-core Xeon against a
  // shared queue of chunks).
  void run_chunks(int tid) {
    for (int k = 0; k < nthreads_; ++k) {
      Range& r = ranges_[(tid + k) % nthreads_];
      for (;;) {
        const int64_t begin = r.next.fetch_add(chunk_, std::memory_order_relaxed);
        if (begin >= r.end) break;
        const int64_t end = std::min(r.end, begin + chunk_);
        for (int64_t t = begin; t < end; ++t) {
          try {
            body_(t, closure_);
          } catch (...) {
            failed_.store(true);
          }
        }
      }
    }
  }

  void worker_loop(int tid) {
    t_inside_pool = true;
    uint64_t seen = 0;
    for (;;) {
      // Spin a little before blocking (as TVM's and OpenMP's pools do): back-to-back parallel
      // loops, the common case in a network or a benchmark, then start without a futex wake-up.
      for (int spin = 0;
           spin < kSpinIterations && published_.load(std::memory_order_acquire) == seen; ++spin)
        cpu_relax();
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
      }
      run_chunks(tid);
      if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(
            mu_);  // the caller checks active_ under mu_ before it sleeps
        done_cv_.notify_one();
      }
    }
  }

  const int nthreads_;
  std::vector<std::thread> workers_;
  std::mutex run_mu_;  // held by the thread whose job the pool is running
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  uint64_t generation_ = 0;
  std::atomic<uint64_t> published_{
      0};  ///< generation_, readable without the lock (spinning workers)
  /** 2^16 pause instructions: about 1-2 ms (x86 pause takes tens of cycles). Long enough to
   *  bridge the serial code between the parallel loops of a network's kernels (OpenMP spins for
   *  200 ms by default, ONNX Runtime's pool spins too); a worker idle longer sleeps. */
  static constexpr int kSpinIterations = 1 << 16;
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  std::atomic<int> active_{0};  ///< workers still running the current job
  minitvm_parallel_body body_ = nullptr;
  void* closure_ = nullptr;
  int64_t num_tasks_ = 0;
  int64_t chunk_ = 1;
  struct alignas(64) Range {
    std::atomic<int64_t> next{0};  ///< the next task of this share not yet taken
    int64_t end = 0;
  };
  std::vector<Range> ranges_;  ///< one share per thread (index 0: the caller)
  std::atomic<bool> failed_{false};
};

ThreadPool& pool() {
  // Never destroyed: workers block on a condition variable until the process exits, so there is
  // no shutdown ordering problem with static destructors that might still run parallel loops.
  static ThreadPool* p = new ThreadPool(configured_thread_count());
  return *p;
}

}  // namespace

int configured_thread_count() {
  static const int n = [] {
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const char* env = std::getenv("TVM_NUM_THREADS");
    if (!env || !*env) return hw;
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(env, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > 4096) {
      std::fprintf(stderr,
                   "[minitvm] warning: TVM_NUM_THREADS='%s' is not a thread count from 1 to 4096; "
                   "using %d (the hardware threads)\n",
                   env, hw);
      return hw;
    }
    return static_cast<int>(v);
  }();
  return n;
}

int thread_pool_size() {
  return pool().size();
}

void parallel_memcpy(void* dst, const void* src, size_t bytes) {
  struct Job {
    char* dst;
    const char* src;
    size_t bytes, chunk;
  };
  const size_t n = static_cast<size_t>(std::max(1, thread_pool_size()));
  Job job{static_cast<char*>(dst), static_cast<const char*>(src), bytes, (bytes + n - 1) / n};
  minitvm_parallel_for(
      static_cast<int64_t>(n),
      [](int64_t t, void* c) {
        auto* j = static_cast<Job*>(c);
        const size_t begin = std::min(j->bytes, static_cast<size_t>(t) * j->chunk);
        const size_t end = std::min(j->bytes, begin + j->chunk);
        if (end > begin) std::memcpy(j->dst + begin, j->src + begin, end - begin);
      },
      &job);
}

}  // namespace minitvm::runtime

extern "C" int32_t minitvm_parallel_for(int64_t num_tasks, minitvm_parallel_body body,
                                        void* closure) {
  if (!body) return -2;
  return minitvm::runtime::pool().run(num_tasks, body, closure);
}
