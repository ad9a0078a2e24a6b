// Text of the header that is force-included (g++ -include) before every CUDA source the emulator
// compiles: CUDA keywords, built-in variables, vector types, math functions, checked pointers,
// checked shared/local arrays and the __syncthreads() barrier. See docs/EMULATOR.md.
#include "runtime/emulator/prelude.h"

namespace minitvm::runtime::emulator::detail {

const char* const kPreludeCore = R"EMU_PRELUDE(
#pragma once
/* minitvm CUDA emulator prelude: makes emitted CUDA C compile as host C++17. */
#define __CUDA_ARCH__ 900
#define __CUDACC__ 1
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __inline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
/* Declarations with __shared__ are rewritten by the emulator; what remains are casts such as
   ((volatile __shared__ float*)red_buf0), where the qualifier has no host meaning. */
#define __shared__
#define warpSize 32

/* ---- vector types ------------------------------------------------------------------------ */
#define EMU_ALIGN4(T) alignas(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T))
#define EMU_VEC(B, T)                                                                          \
  struct B##1 { T x; };                                                                        \
  struct alignas(2 * sizeof(T)) B##2 { T x, y; };                                              \
  struct B##3 { T x, y, z; };                                                                  \
  struct EMU_ALIGN4(T) B##4 { T x, y, z, w; };                                                 \
  static inline B##1 make_##B##1(T x) { B##1 r; r.x = x; return r; }                           \
  static inline B##2 make_##B##2(T x, T y) { B##2 r; r.x = x; r.y = y; return r; }             \
  static inline B##3 make_##B##3(T x, T y, T z) { B##3 r; r.x = x; r.y = y; r.z = z; return r; } \
  static inline B##4 make_##B##4(T x, T y, T z, T w) {                                         \
    B##4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r; }
EMU_VEC(char, signed char)
EMU_VEC(uchar, unsigned char)
EMU_VEC(short, short)
EMU_VEC(ushort, unsigned short)
EMU_VEC(int, int)
EMU_VEC(uint, unsigned int)
EMU_VEC(long, long)
EMU_VEC(ulong, unsigned long)
EMU_VEC(longlong, long long)
EMU_VEC(ulonglong, unsigned long long)
EMU_VEC(float, float)
EMU_VEC(double, double)
#undef EMU_VEC
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

/* ---- runtime interface (layout shared with src/runtime/emulator/abi.h) ------------------- */
struct __emu_shadow { uint32_t epoch; int32_t writer, r0, r1; };
struct __emu_buf {
  char* base; int64_t bytes; int64_t elem_bytes; const char* name; int32_t kind; int32_t pad;
  __emu_shadow* shadow;
};
enum {
  __EMU_OOB_ACCESS = 1, __EMU_OOB_READ = 2, __EMU_OOB_WRITE = 3, __EMU_MISALIGNED = 4,
  __EMU_RACE_READ_AFTER_WRITE = 5, __EMU_RACE_WRITE_AFTER_READ = 6, __EMU_RACE_WRITE_WRITE = 7,
  __EMU_VECTOR_TOO_WIDE = 8
};
struct __emu_rt_t {
  uint3 threadIdx, blockIdx, blockDim, gridDim;
  int32_t tlin;
  uint32_t epoch;
  void* host;
  void (*sync)(void* host, int line);
  void (*fail)(void* host, int kind, const __emu_buf* buf, int64_t index, int64_t other);
  __emu_buf* (*shared)(void* host, int id, int64_t count, int64_t elem_bytes, const char* name);
  void (*fail_local)(void* host, const char* name, int64_t index, int64_t extent);
};
extern "C" {
__attribute__((visibility("default"))) __emu_rt_t __emu_rt;
__attribute__((visibility("default"))) extern const int __emu_abi_version = 1;
}
#define threadIdx (__emu_rt.threadIdx)
#define blockIdx (__emu_rt.blockIdx)
#define blockDim (__emu_rt.blockDim)
#define gridDim (__emu_rt.gridDim)

[[noreturn]] __attribute__((noinline, cold)) static void __emu_fail(int kind, const __emu_buf* b,
                                                                      int64_t index, int64_t other) {
  __emu_rt.fail(__emu_rt.host, kind, b, index, other);
  __builtin_unreachable();
}
[[noreturn]] __attribute__((noinline, cold)) static void __emu_fail_local(const char* name,
                                                                            int64_t index, int64_t n) {
  __emu_rt.fail_local(__emu_rt.host, name, index, n);
  __builtin_unreachable();
}

/* Race detection on shared memory: one shadow entry per element records, for the current barrier
   interval (epoch), the thread that wrote it and up to two threads that read it. */
static inline void __emu_on_read(const __emu_buf* b, int64_t e) {
  __emu_shadow& s = b->shadow[e];
  const int32_t t = __emu_rt.tlin;
  if (s.epoch != __emu_rt.epoch) { s.epoch = __emu_rt.epoch; s.writer = -1; s.r0 = t; s.r1 = -1; return; }
  if (s.writer >= 0 && s.writer != t) __emu_fail(__EMU_RACE_READ_AFTER_WRITE, b, e, s.writer);
  if (s.r0 < 0) s.r0 = t;
  else if (s.r0 != t && s.r1 < 0) s.r1 = t;
}
static inline void __emu_on_write(const __emu_buf* b, int64_t e) {
  __emu_shadow& s = b->shadow[e];
  const int32_t t = __emu_rt.tlin;
  if (s.epoch != __emu_rt.epoch) { s.epoch = __emu_rt.epoch; s.writer = t; s.r0 = -1; s.r1 = -1; return; }
  if (s.writer >= 0 && s.writer != t) __emu_fail(__EMU_RACE_WRITE_WRITE, b, e, s.writer);
  if (s.r0 >= 0 && s.r0 != t) __emu_fail(__EMU_RACE_WRITE_AFTER_READ, b, e, s.r0);
  if (s.r1 >= 0 && s.r1 != t) __emu_fail(__EMU_RACE_WRITE_AFTER_READ, b, e, s.r1);
  s.writer = t;
}

static inline void __emu_check_range(const __emu_buf* b, int64_t off, int64_t n, int kind) {
  if (__builtin_expect(off < 0 || off + n > b->bytes, 0))
    __emu_fail(kind, b, off >= 0 ? off / b->elem_bytes : -((-off + b->elem_bytes - 1) / b->elem_bytes), n);
}

/* ---- vector windows: casts of shared pointers to other pointer types --------------------- */
/* ((float4*)(A_shared + i))[0] must be race-checked, but a raw pointer cannot tell reads from
   writes. The cast therefore returns a pointer to a private copy (a window); at the next shared
   access, barrier or thread exit the window is compared with its snapshot: changed elements are
   written back and recorded as writes, the others as reads. */
struct __emu_win_slot {
  alignas(64) unsigned char data[64];
  unsigned char snap[64];
  const __emu_buf* b;
  int64_t off;
  int32_t n;
  int32_t pending;
};
struct __emu_win_state {
  __emu_win_slot slot[32];
  int32_t next;
  int32_t npending;
};
static __emu_win_state __emu_win;
__attribute__((noinline)) static void __emu_win_flush_slow() {
  for (int k = 0; k < 32; ++k) {
    __emu_win_slot& w = __emu_win.slot[k];
    if (!w.pending) continue;
    w.pending = 0;
    const int64_t eb = w.b->elem_bytes;
    const int64_t e0 = w.off / eb, e1 = (w.off + w.n - 1) / eb;
    bool any = false;
    for (int64_t e = e0; e <= e1; ++e) {
      const int64_t lo = e * eb > w.off ? e * eb - w.off : 0;
      const int64_t hi = (e + 1) * eb - w.off < w.n ? (e + 1) * eb - w.off : w.n;
      if (memcmp(w.data + lo, w.snap + lo, hi - lo) != 0) { __emu_on_write(w.b, e); any = true; }
      else __emu_on_read(w.b, e);
    }
    if (any) memcpy(w.b->base + w.off, w.data, w.n);
  }
  __emu_win.npending = 0;
}
static inline void __emu_win_flush() {
  if (__builtin_expect(__emu_win.npending != 0, 0)) __emu_win_flush_slow();
}
template <class U>
static U* __emu_win_open(const __emu_buf* b, int64_t off) {
  typedef typename std::remove_cv<U>::type V;
  const int64_t n = sizeof(V);
  if (n > 64) __emu_fail(__EMU_VECTOR_TOO_WIDE, b, off / b->elem_bytes, n);
  __emu_check_range(b, off, n, __EMU_OOB_ACCESS);
  if (off % alignof(V) != 0) __emu_fail(__EMU_MISALIGNED, b, off / b->elem_bytes, alignof(V));
  if (__emu_win.npending) {
    for (int k = 0; k < 32; ++k) {
      const __emu_win_slot& w = __emu_win.slot[k];
      if (w.pending && w.b == b && w.off < off + n && off < w.off + w.n) { __emu_win_flush_slow(); break; }
    }
  }
  __emu_win_slot& w = __emu_win.slot[__emu_win.next];
  if (w.pending) __emu_win_flush_slow();
  __emu_win.next = (__emu_win.next + 1) & 31;
  memcpy(w.data, b->base + off, n);
  memcpy(w.snap, w.data, n);
  w.b = b; w.off = off; w.n = (int32_t)n; w.pending = 1;
  ++__emu_win.npending;
  return (U*)(void*)w.data;
}

/* ---- checked pointers ------------------------------------------------------------------- */
#define EMU_INTEGRAL(I) typename = typename std::enable_if<std::is_integral<I>::value>::type
/* Global-memory pointer parameter: bounds-checked subscripts, pointer arithmetic, casts. */
template <class T>
struct __emu_gptr {
  const __emu_buf* b;
  int64_t off;  /* in elements of T */
  __emu_gptr() : b(nullptr), off(0) {}
  explicit __emu_gptr(const void* buf) : b((const __emu_buf*)buf), off(0) {}
  __emu_gptr(const __emu_buf* b_, int64_t o) : b(b_), off(o) {}
  T* __at(int64_t i) const {
    __emu_check_range(b, (off + i) * (int64_t)sizeof(T), sizeof(T), __EMU_OOB_ACCESS);
    return (T*)b->base + (off + i);
  }
  template <class I, EMU_INTEGRAL(I)> T& operator[](I i) const { return *__at((int64_t)i); }
  T& operator*() const { return *__at(0); }
  template <class I, EMU_INTEGRAL(I)> __emu_gptr operator+(I i) const { return __emu_gptr(b, off + (int64_t)i); }
  template <class I, EMU_INTEGRAL(I)> __emu_gptr operator-(I i) const { return __emu_gptr(b, off - (int64_t)i); }
  template <class I, EMU_INTEGRAL(I)> __emu_gptr& operator+=(I i) { off += (int64_t)i; return *this; }
  template <class I, EMU_INTEGRAL(I)> __emu_gptr& operator-=(I i) { off -= (int64_t)i; return *this; }
  template <class U>
  explicit operator U*() const {
    typedef typename std::remove_cv<U>::type V;
    const int64_t boff = off * (int64_t)sizeof(T);
    if constexpr (!std::is_void<V>::value) {
      __emu_check_range(b, boff, sizeof(V), __EMU_OOB_ACCESS);
      if ((uintptr_t)(b->base + boff) % alignof(V) != 0)
        __emu_fail(__EMU_MISALIGNED, b, off, alignof(V));
    }
    return (U*)(void*)(b->base + boff);
  }
};
template <class I, class T, EMU_INTEGRAL(I)>
static inline __emu_gptr<T> operator+(I i, const __emu_gptr<T>& p) { return p + i; }

/* An element of a shared array: reads and writes are race-checked when they happen. */
template <class T>
struct __emu_sref {
  T* p; const __emu_buf* b; int64_t e;
  T __get() const { __emu_on_read(b, e); return *p; }
  operator T() const { return __get(); }
  template <class U = T, class = typename std::enable_if<std::is_class<U>::value>::type>
  operator float() const { return (float)__get(); }
  __emu_sref& operator=(const T& v) { __emu_on_write(b, e); *p = v; return *this; }
  __emu_sref& operator=(const __emu_sref& o) { T v = o.__get(); return *this = v; }
#define EMU_COMPOUND(OP) \
  template <class V> __emu_sref& operator OP##=(const V& v) { T cur = __get(); cur OP##= v; return *this = cur; }
  EMU_COMPOUND(+) EMU_COMPOUND(-) EMU_COMPOUND(*) EMU_COMPOUND(/) EMU_COMPOUND(%)
  EMU_COMPOUND(&) EMU_COMPOUND(|) EMU_COMPOUND(^) EMU_COMPOUND(<<) EMU_COMPOUND(>>)
#undef EMU_COMPOUND
};
/* A __shared__ array (or a pointer into one). */
template <class T>
struct __emu_sptr {
  const __emu_buf* b;
  int64_t off;
  __emu_sptr() : b(nullptr), off(0) {}
  __emu_sptr(const __emu_buf* b_, int64_t o) : b(b_), off(o) {}
  __emu_sref<T> __at(int64_t i) const {
    __emu_win_flush();
    const int64_t e = off + i;
    __emu_check_range(b, e * (int64_t)sizeof(T), sizeof(T), __EMU_OOB_ACCESS);
    __emu_sref<T> r; r.p = (T*)b->base + e; r.b = b; r.e = e; return r;
  }
  template <class I, EMU_INTEGRAL(I)> __emu_sref<T> operator[](I i) const { return __at((int64_t)i); }
  __emu_sref<T> operator*() const { return __at(0); }
  template <class I, EMU_INTEGRAL(I)> __emu_sptr operator+(I i) const { return __emu_sptr(b, off + (int64_t)i); }
  template <class I, EMU_INTEGRAL(I)> __emu_sptr operator-(I i) const { return __emu_sptr(b, off - (int64_t)i); }
  /* Casts to another element type open a window; a cast to the same element type (e.g.
     `(volatile float*)red_buf`) may be subscripted freely, so it yields the raw address (those
     accesses are not checked). */
  template <class U>
  explicit operator U*() const {
    if constexpr (std::is_same<typename std::remove_cv<U>::type, typename std::remove_cv<T>::type>::value) {
      __emu_win_flush();
      return (U*)(void*)((T*)b->base + off);
    } else {
      return __emu_win_open<U>(b, off * (int64_t)sizeof(T));
    }
  }
};
template <class I, class T, EMU_INTEGRAL(I)>
static inline __emu_sptr<T> operator+(I i, const __emu_sptr<T>& p) { return p + i; }
template <class T>
static inline __emu_sptr<T> __emu_shared_decl(int id, int64_t count, const char* name) {
  return __emu_sptr<T>(__emu_rt.shared(__emu_rt.host, id, count, sizeof(T), name), 0);
}

/* A local (per-thread) array: bounds-checked subscripts. */
template <class T>
struct __emu_lptr {
  T* base; int64_t n; int64_t off; const char* name;
  T* __at(int64_t i) const {
    const int64_t e = off + i;
    if (__builtin_expect((uint64_t)e >= (uint64_t)n, 0)) __emu_fail_local(name, e, n);
    return base + e;
  }
  template <class I, EMU_INTEGRAL(I)> T& operator[](I i) const { return *__at((int64_t)i); }
  T& operator*() const { return *__at(0); }
  template <class I, EMU_INTEGRAL(I)> __emu_lptr operator+(I i) const { __emu_lptr r = *this; r.off += (int64_t)i; return r; }
  template <class I, EMU_INTEGRAL(I)> __emu_lptr operator-(I i) const { __emu_lptr r = *this; r.off -= (int64_t)i; return r; }
  template <class U>
  explicit operator U*() const {
    typedef typename std::remove_cv<U>::type V;
    if constexpr (!std::is_void<V>::value) {
      if (off < 0 || (off * (int64_t)sizeof(T) + (int64_t)sizeof(V)) > n * (int64_t)sizeof(T))
        __emu_fail_local(name, off, n);
    }
    return (U*)(void*)(base + off);
  }
};
template <class T, int64_t N>
struct __emu_local {
  T data[N];
  const char* name;
  explicit __emu_local(const char* n) : name(n) {}
  template <class I, EMU_INTEGRAL(I)> T& operator[](I i) {
    if (__builtin_expect((uint64_t)(int64_t)i >= (uint64_t)N, 0)) __emu_fail_local(name, (int64_t)i, N);
    return data[i];
  }
  __emu_lptr<T> __ptr(int64_t o) { __emu_lptr<T> r; r.base = data; r.n = N; r.off = o; r.name = name; return r; }
  template <class I, EMU_INTEGRAL(I)> __emu_lptr<T> operator+(I i) { return __ptr((int64_t)i); }
  template <class I, EMU_INTEGRAL(I)> __emu_lptr<T> operator-(I i) { return __ptr(-(int64_t)i); }
  template <class U> explicit operator U*() { return (U*)__ptr(0); }
};
#undef EMU_INTEGRAL

/* ---- barrier ----------------------------------------------------------------------------- */
#define __syncthreads() (__emu_win_flush(), __emu_rt.sync(__emu_rt.host, __LINE__))
static inline void __threadfence() {}
static inline void __threadfence_block() {}

template <class T>
struct __emu_scalar_arg { static T get(const void* p) {
  const double* f = (const double*)p; const int64_t* i = (const int64_t*)((const char*)p + 8);
  const int32_t is_float = *(const int32_t*)((const char*)p + 16);
  return is_float ? (T)(*f) : (T)(*i); } };
)EMU_PRELUDE";

}  // namespace minitvm::runtime::emulator::detail
