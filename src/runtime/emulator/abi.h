/** \file
 * Private interface between the emulator runtime and the compiled kernel objects: the C layout
 * of the structures declared by the prelude (prelude_core.cc) and the compiled-object handle.
 * Any change here must be mirrored in the prelude and bump kAbiVersion.
 */
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "minitvm/runtime/cuda_emulator.h"

namespace minitvm::runtime::emulator {

namespace detail {

constexpr int kAbiVersion = 1;

/** Shadow entry of one shared-memory element: who wrote/read it in barrier interval `epoch`. */
struct Shadow {
  uint32_t epoch;
  int32_t writer, r0, r1;
};

/** A checked memory object (kernel buffer parameter or shared array); prelude `__emu_buf`. */
struct Buf {
  char* base;
  int64_t bytes;
  int64_t elem_bytes;
  const char* name;
  int32_t kind;  ///< kGlobal or kShared
  int32_t pad;
  Shadow* shadow;
};
constexpr int32_t kGlobal = 0, kShared = 1;

/** Failure kinds passed to Rt::fail; prelude enum `__EMU_*`. */
enum FailKind : int {
  kOobAccess = 1,
  kOobRead = 2,
  kOobWrite = 3,
  kMisaligned = 4,
  kRaceReadAfterWrite = 5,
  kRaceWriteAfterRead = 6,
  kRaceWriteWrite = 7,
  kVectorTooWide = 8
};

struct U3 {
  uint32_t x, y, z;
};

/** Per-object runtime state (the prelude's `__emu_rt`), set by the launcher at each switch. */
struct Rt {
  U3 threadIdx, blockIdx, blockDim, gridDim;
  int32_t tlin;
  uint32_t epoch;
  void* host;
  void (*sync)(void* host, int line);
  void (*fail)(void* host, int kind, const Buf* buf, int64_t index, int64_t other);
  Buf* (*shared)(void* host, int id, int64_t count, int64_t elem_bytes, const char* name);
  void (*fail_local)(void* host, const char* name, int64_t index, int64_t extent);
};

using StubFn = void (*)(void* const* args);

}  // namespace detail

/** A compiled CUDA source: the dlopen'ed object and what the launcher needs from it. */
class CompiledKernels {
 public:
  struct Entry {
    detail::StubFn stub = nullptr;
    const long long* param_elem_bytes =
        nullptr;  ///< per parameter: sizeof(T) for T*, 0 for scalars
  };
  ~CompiledKernels();

  std::string source;
  RewrittenSource rewritten;
  void* handle = nullptr;
  detail::Rt* rt = nullptr;
  std::vector<Entry> entries;  ///< parallel to rewritten.kernels
  /** The object's runtime state is global, so launches of one object are serialized. */
  mutable std::mutex launch_mutex;
};

}  // namespace minitvm::runtime::emulator
