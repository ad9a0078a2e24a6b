// Kernel launches on the emulator: blocks in order, threads of a block as fibers so that
// __syncthreads() is a real barrier; checked buffers, per-block shared memory with shadow state for
// race detection, barrier divergence checks, and faults turned into errors.
//
// The fibers themselves (the context switch, ASan's fiber protocol, the stack pool) are fiber.h.
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <csetjmp>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>

#include "runtime/emulator/abi.h"
#include "runtime/emulator/fiber.h"

namespace minitvm::runtime::emulator {
namespace {

using detail::Buf;
using detail::Rt;
using detail::Shadow;
using fiber::asan_switch_begin;
using fiber::asan_switch_end;
using fiber::asan_unpoison;
using fiber::Fiber;
using fiber::kStackBytes;
using fiber::StackPool;
#if MINITVM_EMU_ASM_FIBERS
using fiber::make_fiber_context;
using fiber::minitvm_emu_switch;
#endif

constexpr int64_t kMaxStaticShared = 48 * 1024;
constexpr int64_t kMaxShared = 227 * 1024;
constexpr unsigned char kSharedPoison = 0xff;  // float NaN, integer -1

constexpr std::align_val_t kSharedAlign{64};

/** Frees what `::operator new[](bytes, kSharedAlign)` allocated (a plain delete[] would not match).
 */
struct AlignedDelete {
  void operator()(char* p) const { ::operator delete[](p, kSharedAlign); }
};

/** Matches the prelude's __emu_scalar_arg layout. */
struct ScalarArg {
  double f;
  int64_t i;
  int32_t is_float;
};

struct SharedArray {
  std::string name;
  int64_t count = 0, elem_bytes = 0;
  std::unique_ptr<char[], AlignedDelete> data;
  std::unique_ptr<Shadow[]> shadow;
  Buf buf{};
};

using fiber::Status;

struct LaunchState {
  const CompiledKernels* ck = nullptr;
  const KernelInfo* ki = nullptr;
  Rt* rt = nullptr;
  detail::StubFn stub = nullptr;
  Dim3 grid{}, block{};
  int nthreads = 0;
  std::vector<Buf> params;
  std::vector<ScalarArg> scalars;
  std::vector<void*> argv;
  std::vector<std::unique_ptr<SharedArray>> shared;
  int64_t dynamic_shared_bytes = 0;
  int64_t static_shared_bytes = 0;
  uint32_t epoch = 0;
  int barrier_count = 0;
  int last_barrier_line = 0;
  bool use_fibers = false;
  std::vector<Fiber> fibers;
#if MINITVM_EMU_ASM_FIBERS
  void* sched_sp = nullptr;
#else
  ucontext_t sched{};
#endif
  // The scheduler's stack and fake stack, for the ASan switch announcements.
  const void* sched_bottom = nullptr;
  size_t sched_size = 0;
  void* sched_fake = nullptr;
  bool in_fiber = false;  ///< a fiber (not the scheduler) is running
  int cur = 0;
  std::exception_ptr error;
  // fault handling
  sigjmp_buf jb;
  volatile sig_atomic_t fault_sig = 0;
  void* volatile fault_addr = nullptr;
  volatile bool in_kernel = false;
};

thread_local LaunchState* t_state = nullptr;

std::string dim_str(detail::U3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

detail::U3 thread_of(const LaunchState& st, int64_t t) {
  const auto bx = static_cast<int64_t>(st.block[0]), by = static_cast<int64_t>(st.block[1]);
  return {static_cast<uint32_t>(t % bx), static_cast<uint32_t>((t / bx) % by),
          static_cast<uint32_t>(t / (bx * by))};
}

std::string where(const LaunchState& st) {
  return "kernel '" + st.ki->name + "', block " + dim_str(st.rt->blockIdx) + ", thread " +
         dim_str(thread_of(st, st.cur));
}

std::string interval(const LaunchState& st) {
  if (st.barrier_count == 0) return "since the start of the block";
  return "after barrier #" + std::to_string(st.barrier_count) + " (__syncthreads() at line " +
         std::to_string(st.last_barrier_line) + ")";
}

[[noreturn]] void cb_fail(void* host, int kind, const Buf* b, int64_t index, int64_t other) {
  auto& st = *static_cast<LaunchState*>(host);
  std::ostringstream os;
  os << "CUDA emulator: " << where(st) << ": ";
  const char* space = b->kind == detail::kShared ? "shared array" : "global buffer";
  const int64_t count = b->bytes / b->elem_bytes;
  switch (kind) {
    case detail::kOobAccess:
    case detail::kOobRead:
    case detail::kOobWrite:
      os << "out-of-bounds "
         << (kind == detail::kOobRead    ? "read of "
             : kind == detail::kOobWrite ? "write to "
                                         : "access to ")
         << space << " '" << b->name << "' at index " << index << " (" << b->name << " has "
         << count << " elements of " << b->elem_bytes << " bytes";
      if (other != b->elem_bytes) os << "; the access is " << other << " bytes wide";
      os << ")";
      break;
    case detail::kMisaligned:
      os << "misaligned vector access to " << space << " '" << b->name << "' at index " << index
         << " (needs " << other << "-byte alignment)";
      break;
    case detail::kVectorTooWide:
      os << "vector access of " << other << " bytes to '" << b->name
         << "' is wider than the emulator supports (64)";
      break;
    case detail::kRaceReadAfterWrite:
    case detail::kRaceWriteAfterRead:
    case detail::kRaceWriteWrite: {
      const std::string me = "thread " + dim_str(thread_of(st, st.cur));
      const std::string them = "thread " + dim_str(thread_of(st, other));
      os << "data race on shared memory '" << b->name << "[" << index << "]' in block "
         << dim_str(st.rt->blockIdx) << ": ";
      if (kind == detail::kRaceReadAfterWrite)
        os << them << " wrote it and " << me << " reads it";
      else if (kind == detail::kRaceWriteAfterRead)
        os << them << " read it and " << me << " writes it";
      else
        os << them << " and " << me << " both write it";
      os << " with no __syncthreads() in between (barrier interval " << interval(st) << ")";
      break;
    }
    default:
      os << "unknown failure " << kind;
  }
  throw EmulatorError(os.str());
}

[[noreturn]] void cb_fail_local(void* host, const char* name, int64_t index, int64_t extent) {
  auto& st = *static_cast<LaunchState*>(host);
  throw EmulatorError("CUDA emulator: " + where(st) + ": out-of-bounds access to local array '" +
                      name + "' at index " + std::to_string(index) + " (" + name + " has " +
                      std::to_string(extent) + " elements)");
}

Buf* cb_shared(void* host, int id, int64_t count, int64_t elem_bytes, const char* name) {
  auto& st = *static_cast<LaunchState*>(host);
  if (id < static_cast<int>(st.shared.size()) && st.shared[id]) return &st.shared[id]->buf;
  if (id >= static_cast<int>(st.shared.size())) st.shared.resize(id + 1);
  auto a = std::make_unique<SharedArray>();
  a->name = name;
  a->elem_bytes = elem_bytes;
  if (count < 0) {
    if (st.dynamic_shared_bytes % elem_bytes != 0)
      throw EmulatorError("CUDA emulator: " + where(st) + ": dynamic shared memory of " +
                          std::to_string(st.dynamic_shared_bytes) +
                          " bytes is not a whole number of '" + name + "' elements");
    count = st.dynamic_shared_bytes / elem_bytes;
  } else {
    st.static_shared_bytes += count * elem_bytes;
    if (st.static_shared_bytes > kMaxStaticShared)
      throw EmulatorError("CUDA emulator: kernel '" + st.ki->name + "' declares " +
                          std::to_string(st.static_shared_bytes) +
                          " bytes of static __shared__ memory (with '" + name +
                          "'); CUDA allows at most 48 KiB");
  }
  if (st.static_shared_bytes + st.dynamic_shared_bytes > kMaxShared)
    throw EmulatorError("CUDA emulator: kernel '" + st.ki->name +
                        "' uses more than 227 KiB of shared memory");
  a->count = count;
  const size_t bytes = static_cast<size_t>(std::max<int64_t>(count * elem_bytes, 1));
  a->data.reset(static_cast<char*>(::operator new[](bytes, kSharedAlign)));
  std::memset(a->data.get(), kSharedPoison, bytes);
  a->shadow.reset(new Shadow[static_cast<size_t>(std::max<int64_t>(count, 1))]());
  a->buf = Buf{a->data.get(),  count * elem_bytes, elem_bytes, a->name.c_str(), detail::kShared, 0,
               a->shadow.get()};
  st.shared[id] = std::move(a);
  return &st.shared[id]->buf;
}

void cb_sync(void* host, int line) {
  auto& st = *static_cast<LaunchState*>(host);
  if (!st.use_fibers && st.nthreads == 1) return;  // a block of one thread has no one to wait for
  if (!st.use_fibers)
    throw EmulatorError("CUDA emulator: " + where(st) +
                        ": __syncthreads() reached in a kernel source the emulator "
                        "did not see use it (is it hidden behind a macro?)");
  Fiber& f = st.fibers[st.cur];
  f.status = Status::AtBarrier;
  f.line = line;
  asan_switch_begin(&f.asan_fake, st.sched_bottom, st.sched_size);
#if MINITVM_EMU_ASM_FIBERS
  minitvm_emu_switch(&f.sp, st.sched_sp);
#else
  swapcontext(&f.ctx, &st.sched);
#endif
  asan_switch_end(f.asan_fake, &st.sched_bottom, &st.sched_size);
}

void fiber_main() {
  LaunchState* st = t_state;
  asan_switch_end(nullptr, &st->sched_bottom, &st->sched_size);
  const int me = st->cur;
  try {
    st->stub(st->argv.data());
    st->fibers[me].status = Status::Done;
  } catch (...) {
    st->error = std::current_exception();
    st->fibers[me].status = Status::Failed;
  }
  asan_switch_begin(nullptr, st->sched_bottom, st->sched_size);  // this fiber is done for good
#if MINITVM_EMU_ASM_FIBERS
  void* dead = nullptr;
  minitvm_emu_switch(&dead, st->sched_sp);  // never resumed
  __builtin_unreachable();
#else
  setcontext(&st->sched);
#endif
}

// ---- faults ------------------------------------------------------------------------------
struct sigaction g_old_actions[NSIG];
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

void fault_handler(int sig, siginfo_t* info, void* uctx) {
  LaunchState* st = t_state;
  if (st && st->in_kernel) {
    st->in_kernel = false;
    if (st->in_fiber)
      asan_switch_begin(nullptr, st->sched_bottom, st->sched_size);  // jumps back for good
    st->fault_sig = sig;
    st->fault_addr = info ? info->si_addr : nullptr;
    siglongjmp(st->jb, 1);
  }
  // Not ours: hand over to the previous disposition.
  const struct sigaction& old = g_old_actions[sig];
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) {
    old.sa_sigaction(sig, info, uctx);
  } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN && old.sa_handler) {
    old.sa_handler(sig);
  } else {
    sigaction(sig, &old, nullptr);  // return re-executes the faulting instruction
  }
}

void install_fault_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int s : kFaultSignals) sigaction(s, &sa, &g_old_actions[s]);
  });
  // An alternate signal stack for this thread, so that a fiber stack overflow can be reported.
  thread_local std::unique_ptr<char[]> alt;
  if (!alt) {
    stack_t old{};
    sigaltstack(nullptr, &old);
    if (old.ss_flags & SS_DISABLE) {
      alt.reset(new char[64 * 1024]);
      stack_t ss{};
      ss.ss_sp = alt.get();
      ss.ss_size = 64 * 1024;
      sigaltstack(&ss, nullptr);
    } else {
      alt.reset(new char[1]);
    }
  }
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV (invalid memory access; e.g. through a pointer the emulator does not check)";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE (integer division by zero?)";
    case SIGILL:
      return "SIGILL";
    default:
      return "signal " + std::to_string(sig);
  }
}

// ---- the launch -----------------------------------------------------------------------------
void set_thread(LaunchState& st, int t) {
  st.cur = t;
  st.rt->tlin = t;
  st.rt->threadIdx = thread_of(st, t);
}

void check_barrier(LaunchState& st) {
  int at = 0, done = 0, first_at = -1, first_done = -1, other_line = -1;
  for (int t = 0; t < st.nthreads; ++t) {
    const Fiber& f = st.fibers[t];
    if (f.status == Status::AtBarrier) {
      ++at;
      if (first_at < 0)
        first_at = t;
      else if (f.line != st.fibers[first_at].line && other_line < 0)
        other_line = t;
    } else {
      ++done;
      if (first_done < 0) first_done = t;
    }
  }
  const std::string head =
      "CUDA emulator: kernel '" + st.ki->name + "', block " + dim_str(st.rt->blockIdx) + ": ";
  if (done > 0) {
    throw EmulatorError(
        head + "__syncthreads() at line " + std::to_string(st.fibers[first_at].line) +
        " is not reached by all threads of the block: " + std::to_string(at) +
        " threads (e.g. thread " + dim_str(thread_of(st, first_at)) + ") wait at it, " +
        std::to_string(done) + " threads (e.g. thread " + dim_str(thread_of(st, first_done)) +
        ") exited (barrier interval " + interval(st) + ")");
  }
  if (other_line >= 0) {
    throw EmulatorError(
        head + "threads wait at different __syncthreads() calls: thread " +
        dim_str(thread_of(st, first_at)) + " at line " + std::to_string(st.fibers[first_at].line) +
        ", thread " + dim_str(thread_of(st, other_line)) + " at line " +
        std::to_string(st.fibers[other_line].line) + " (barrier interval " + interval(st) + ")");
  }
}

void run_block(LaunchState& st, StackPool& pool) {
  Rt& rt = *st.rt;
  rt.epoch = ++st.epoch;
  st.barrier_count = 0;
  st.last_barrier_line = 0;
  for (auto& a : st.shared)
    if (a) std::memset(a->data.get(), kSharedPoison, static_cast<size_t>(a->count * a->elem_bytes));
  if (!st.use_fibers) {
    for (int t = 0; t < st.nthreads; ++t) {
      set_thread(st, t);
      st.stub(st.argv.data());
    }
    return;
  }
  for (int t = 0; t < st.nthreads; ++t) {
    Fiber& f = st.fibers[t];
    f.status = Status::Ready;
    f.stack = pool.stack(t);
    f.asan_fake = nullptr;
    asan_unpoison(f.stack + kStackBytes - 16 * 1024,
                  16 * 1024);  // fiber_main's frame of the last block
#if MINITVM_EMU_ASM_FIBERS
    f.sp = make_fiber_context(pool.stack(t), kStackBytes, fiber_main);
#else
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = pool.stack(t);
    f.ctx.uc_stack.ss_size = kStackBytes;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, fiber_main, 0);
#endif
  }
  for (;;) {
    for (int t = 0; t < st.nthreads; ++t) {
      if (st.fibers[t].status != Status::Ready) continue;
      set_thread(st, t);
      asan_switch_begin(&st.sched_fake, st.fibers[t].stack, kStackBytes);
      st.in_fiber = true;
#if MINITVM_EMU_ASM_FIBERS
      minitvm_emu_switch(&st.sched_sp, st.fibers[t].sp);
#else
      swapcontext(&st.sched, &st.fibers[t].ctx);
#endif
      st.in_fiber = false;
      asan_switch_end(st.sched_fake, nullptr, nullptr);
      if (st.fibers[t].status == Status::Failed) std::rethrow_exception(st.error);
    }
    if (st.fibers[0].status == Status::Done) {
      bool all = true;
      for (const Fiber& f : st.fibers) all &= f.status == Status::Done;
      if (all) return;
    }
    check_barrier(st);
    st.last_barrier_line = st.fibers[0].line;
    ++st.barrier_count;
    rt.epoch = ++st.epoch;
    for (Fiber& f : st.fibers) f.status = Status::Ready;
  }
}

std::string dims(const Dim3& d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

void validate(const KernelInfo& ki, const Dim3& grid, const Dim3& block,
              const std::vector<EmuArg>& args) {
  const std::string head = "CUDA emulator: launch of kernel '" + ki.name + "' with grid " +
                           dims(grid) + " and block " + dims(block) + ": ";
  for (int i = 0; i < 3; ++i)
    if (grid[i] < 1 || block[i] < 1) throw EmulatorError(head + "dimensions must be positive");
  if (block[0] > 1024 || block[1] > 1024 || block[2] > 64 || block[0] * block[1] * block[2] > 1024)
    throw EmulatorError(head + "invalid block size (at most 1024 threads; x, y <= 1024, z <= 64)");
  if (grid[0] > 2147483647 || grid[1] > 65535 || grid[2] > 65535)
    throw EmulatorError(head + "invalid grid size (x < 2^31, y and z <= 65535)");
  if (ki.launch_bounds > 0 && block[0] * block[1] * block[2] > ki.launch_bounds)
    throw EmulatorError(head + "the block has more threads than __launch_bounds__(" +
                        std::to_string(ki.launch_bounds) + ") allows");
  if (args.size() != ki.params.size())
    throw EmulatorError(head + "expected " + std::to_string(ki.params.size()) + " arguments, got " +
                        std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelParam& p = ki.params[i];
    const bool is_buf = args[i].kind == EmuArg::Kind::Buffer;
    if (is_buf != p.is_pointer)
      throw EmulatorError(head + "argument " + std::to_string(i) + " ('" + p.name +
                          "') must be a " + (p.is_pointer ? "buffer" : "scalar"));
    if (is_buf && (args[i].nbytes < 0 || (!args[i].data && args[i].nbytes > 0)))
      throw EmulatorError(head + "argument " + std::to_string(i) + " ('" + p.name +
                          "') is not a valid buffer");
  }
}

}  // namespace

void launch(const CompiledKernels& ck, const std::string& kernel, Dim3 grid, Dim3 block,
            const std::vector<EmuArg>& args, const LaunchOptions& options) {
  size_t index = ck.rewritten.kernels.size();
  for (size_t i = 0; i < ck.rewritten.kernels.size(); ++i)
    if (ck.rewritten.kernels[i].name == kernel) index = i;
  if (index == ck.rewritten.kernels.size()) {
    std::string names;
    for (const auto& k : ck.rewritten.kernels) names += (names.empty() ? "" : ", ") + k.name;
    throw EmulatorError("CUDA emulator: no kernel '" + kernel +
                        "' in the source (it has: " + names + ")");
  }
  const KernelInfo& ki = ck.rewritten.kernels[index];
  validate(ki, grid, block, args);

  auto st_owner = std::make_unique<LaunchState>();
  LaunchState& st = *st_owner;
  st.ck = &ck;
  st.ki = &ki;
  st.rt = ck.rt;
  st.stub = ck.entries[index].stub;
  st.grid = grid;
  st.block = block;
  st.nthreads = static_cast<int>(block[0] * block[1] * block[2]);
  st.dynamic_shared_bytes = options.dynamic_shared_bytes;
  st.use_fibers = ck.rewritten.uses_barrier && st.nthreads > 1;
  st.params.resize(args.size());
  st.scalars.resize(args.size());
  st.argv.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const EmuArg& a = args[i];
    if (a.kind == EmuArg::Kind::Buffer) {
      const long long eb = ck.entries[index].param_elem_bytes[i];
      st.params[i] = Buf{static_cast<char*>(a.data),
                         a.nbytes,
                         eb > 0 ? eb : 1,
                         ki.params[i].name.c_str(),
                         detail::kGlobal,
                         0,
                         nullptr};
      st.argv[i] = &st.params[i];
    } else {
      st.scalars[i] = ScalarArg{a.f, a.i, a.kind == EmuArg::Kind::Float ? 1 : 0};
      st.argv[i] = &st.scalars[i];
    }
  }

  std::lock_guard<std::mutex> lock(ck.launch_mutex);
  thread_local StackPool pool;
  if (st.use_fibers) {
    pool.reserve(static_cast<size_t>(st.nthreads));
    st.fibers.resize(static_cast<size_t>(st.nthreads));
    if (pool.abandoned)
      for (size_t t = 0; t < pool.count; ++t) asan_unpoison(pool.stack(t), kStackBytes);
    pool.abandoned = true;  // until the launch completes
  }
  install_fault_handlers();
  Rt& rt = *ck.rt;
  rt.host = &st;
  rt.sync = cb_sync;
  rt.fail = cb_fail;
  rt.shared = cb_shared;
  rt.fail_local = cb_fail_local;
  rt.gridDim = {static_cast<uint32_t>(grid[0]), static_cast<uint32_t>(grid[1]),
                static_cast<uint32_t>(grid[2])};
  rt.blockDim = {static_cast<uint32_t>(block[0]), static_cast<uint32_t>(block[1]),
                 static_cast<uint32_t>(block[2])};

  LaunchState* const saved = t_state;
  t_state = &st;
  struct Restore {
    LaunchState* saved;
    LaunchState* st;
    ~Restore() {
      st->in_kernel = false;
      t_state = saved;
    }
  } restore{saved, &st};

  if (sigsetjmp(st.jb, 1) != 0) {
    if (st.in_fiber) {  // the fault handler left a fiber for the scheduler's stack
      st.in_fiber = false;
      asan_switch_end(st.sched_fake, nullptr, nullptr);
    }
    const int sig = st.fault_sig;
    std::ostringstream os;
    os << "CUDA emulator: " << where(st) << ": fault " << signal_name(sig) << " at address "
       << st.fault_addr << " in kernel code";
    throw EmulatorError(os.str());
  }
  st.in_kernel = true;
  for (int64_t bz = 0; bz < grid[2]; ++bz)
    for (int64_t by = 0; by < grid[1]; ++by)
      for (int64_t bx = 0; bx < grid[0]; ++bx) {
        rt.blockIdx = {static_cast<uint32_t>(bx), static_cast<uint32_t>(by),
                       static_cast<uint32_t>(bz)};
        run_block(st, pool);
      }
  st.in_kernel = false;
  pool.abandoned = false;
}

}  // namespace minitvm::runtime::emulator
