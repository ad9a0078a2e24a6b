// Text of the math part of the emulator prelude (CUDA device math and integer intrinsics on the
// host) and of the stand-in headers <cuda_fp16.h>, <math_constants.h>, ... that emitted CUDA C
// may include. See docs/EMULATOR.md.
#include "runtime/emulator/prelude.h"

namespace minitvm::runtime::emulator::detail {

const char* const kPreludeMath = R"EMU_PRELUDE(
/* ---- min / max: CUDA's overload set ----------------------------------------------------- */
#define EMU_MINMAX(A, B, R)                                              \
  static inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }    \
  static inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }
EMU_MINMAX(int, int, int)
EMU_MINMAX(unsigned int, unsigned int, unsigned int)
EMU_MINMAX(int, unsigned int, unsigned int)
EMU_MINMAX(unsigned int, int, unsigned int)
EMU_MINMAX(long, long, long)
EMU_MINMAX(unsigned long, unsigned long, unsigned long)
EMU_MINMAX(long long, long long, long long)
EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
EMU_MINMAX(long long, unsigned long long, unsigned long long)
EMU_MINMAX(unsigned long long, long long, unsigned long long)
#undef EMU_MINMAX
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline float min(float a, float b) { return fminf(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(float a, double b) { return fmax(a, b); }
static inline double min(float a, double b) { return fmin(a, b); }
static inline double max(double a, float b) { return fmax(a, b); }
static inline double min(double a, float b) { return fmin(a, b); }

/* ---- fast and extra float math ---------------------------------------------------------- */
/* glibc already declares __expf & co. as aliases of expf & co.; map them explicitly. */
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __powf(x, y) powf(x, y)
#define __exp10f(x) exp10f(x)
static inline float __fdividef(float x, float y) { return x / y; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x != x ? 0.0f : x)); }
static inline float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
static inline int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
static inline float __uint_as_float(unsigned int x) { float r; memcpy(&r, &x, 4); return r; }
static inline unsigned int __float_as_uint(float x) { unsigned int r; memcpy(&r, &x, 4); return r; }
static inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }
static inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline float __int2float_rn(int x) { return (float)x; }

/* ---- integer intrinsics ----------------------------------------------------------------- */
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0; for (int i = 0; i < 32; ++i) if (x & (1u << i)) r |= 1u << (31 - i); return r; }
static inline int __mul24(int a, int b) { return (int)(((long long)(a << 8 >> 8)) * (b << 8 >> 8)); }
static inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffff) * (b & 0xffffff); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned int __umulhi(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a * b) >> 32); }
static inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i) c += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
  return c; }

/* ---- atomics: blocks and threads run one at a time, so plain updates are atomic ----------- */
template <class T> static inline T atomicAdd(T* p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static inline T atomicSub(T* p, T v) { T o = *p; *p = o - v; return o; }
template <class T> static inline T atomicMax(T* p, T v) { T o = *p; *p = o > v ? o : v; return o; }
template <class T> static inline T atomicMin(T* p, T v) { T o = *p; *p = o < v ? o : v; return o; }
template <class T> static inline T atomicExch(T* p, T v) { T o = *p; *p = v; return o; }
template <class T> static inline T atomicCAS(T* p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }
template <class T> static inline T __ldg(const T* p) { return *p; }
)EMU_PRELUDE";

const char* const kMathConstantsHeader = R"EMU_PRELUDE(
#pragma once
/* minitvm CUDA emulator stand-in for <math_constants.h> */
#define CUDART_INF_F __builtin_huge_valf()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_INF __builtin_huge_val()
#define CUDART_NAN __builtin_nan("")
#define CUDART_MAX_NORMAL_F 3.402823466e+38f
#define CUDART_MIN_DENORM_F 1.40129846e-45f
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_L2E_F 1.442695041f
#define CUDART_LN2_F 0.693147181f
)EMU_PRELUDE";

const char* const kFp16Header = R"EMU_PRELUDE(
#pragma once
/* minitvm CUDA emulator stand-in for <cuda_fp16.h>: IEEE binary16 storage, arithmetic done in
   float and rounded to nearest even (exact for + - * / sqrt, as on sm_53+). */
static inline unsigned short __emu_f2h(float f) {
  uint32_t x; memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (unsigned short)(ax > 0x7f800000u ? 0x7fffu : (sign | 0x7c00u));
  if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    if (ax <= 0x33000000u) return (unsigned short)sign;
    const uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t s = 126u - e;
    uint32_t r = m >> s;
    const uint32_t rem = m & ((1u << s) - 1u), halfway = 1u << (s - 1u);
    if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
    return (unsigned short)(sign | r);
  }
  uint32_t r = (ax - 0x38000000u) >> 13;
  const uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return (unsigned short)(sign | r);
}
/* double -> binary16 with one rounding: round to odd at float precision first (exact information
   kept in the sticky last bit; float has more than 11 + 2 bits), then to nearest even. */
static inline unsigned short __emu_d2h(double d) {
  if (d != d) return 0x7fffu;
  float t = (float)d;
  if ((double)t != d && t == t) {
    if (fabs((double)t) > fabs(d)) t = nextafterf(t, 0.0f);
    uint32_t u; memcpy(&u, &t, 4); u |= 1u; memcpy(&t, &u, 4);
  }
  return __emu_f2h(t);
}
static inline float __emu_h2f(unsigned short h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t bits;
  if (e == 0) {
    const float v = ldexpf((float)m, -24);
    return sign ? -v : v;
  } else if (e == 31) {
    bits = sign | 0x7f800000u | (m << 13);
  } else {
    bits = sign | ((e + 112u) << 23) | (m << 13);
  }
  float r; memcpy(&r, &bits, 4); return r;
}
struct __half {
  unsigned short __x;
  __half() = default;
  __half(float f) : __x(__emu_f2h(f)) {}
  /* One rounding from double and integers (64-bit integers that double would round are beyond
     the largest half anyway, so they become inf either way). */
  __half(double d) : __x(__emu_d2h(d)) {}
  __half(int v) : __x(__emu_d2h((double)v)) {}
  __half(unsigned int v) : __x(__emu_d2h((double)v)) {}
  __half(short v) : __x(__emu_f2h((float)v)) {}
  __half(unsigned short v) : __x(__emu_f2h((float)v)) {}
  __half(long v) : __x(__emu_d2h((double)v)) {}
  __half(unsigned long v) : __x(__emu_d2h((double)v)) {}
  __half(long long v) : __x(__emu_d2h((double)v)) {}
  __half(unsigned long long v) : __x(__emu_d2h((double)v)) {}
  operator float() const { return __emu_h2f(__x); }
};
typedef __half half;
static inline __half __emu_hbits(unsigned short b) { __half h; h.__x = b; return h; }
#define EMU_HOP(OP) \
  static inline __half operator OP(const __half& a, const __half& b) { return __half((float)a OP (float)b); } \
  static inline __half& operator OP##=(__half& a, const __half& b) { a = a OP b; return a; }
EMU_HOP(+) EMU_HOP(-) EMU_HOP(*) EMU_HOP(/)
#undef EMU_HOP
#define EMU_HCMP(OP) \
  static inline bool operator OP(const __half& a, const __half& b) { return (float)a OP (float)b; }
EMU_HCMP(==) EMU_HCMP(!=) EMU_HCMP(<) EMU_HCMP(>) EMU_HCMP(<=) EMU_HCMP(>=)
#undef EMU_HCMP
static inline __half operator-(const __half& a) { return __emu_hbits((unsigned short)(a.__x ^ 0x8000u)); }
static inline __half operator+(const __half& a) { return a; }
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline __half __double2half(double d) { return __half(d); }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int v) { return __half(v); }
static inline __half __uint2half_rn(unsigned int v) { return __half(v); }
static inline __half __ll2half_rn(long long v) { return __half(v); }
static inline __half __ull2half_rn(unsigned long long v) { return __half(v); }
static inline int __half2int_rn(__half h) { return (int)nearbyintf((float)h); }
static inline int __half2int_rz(__half h) { return (int)(float)h; }
static inline unsigned short __half_as_ushort(__half h) { return h.__x; }
static inline __half __ushort_as_half(unsigned short b) { return __emu_hbits(b); }
static inline short __half_as_short(__half h) { return (short)h.__x; }
static inline __half __short_as_half(short b) { return __emu_hbits((unsigned short)b); }
static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hneg(__half a) { return -a; }
static inline __half __habs(__half a) { return __emu_hbits((unsigned short)(a.__x & 0x7fffu)); }
static inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf((float)a, (float)b, (float)c)); }
static inline bool __heq(__half a, __half b) { return a == b; }
static inline bool __hne(__half a, __half b) { return a != b; }
static inline bool __hlt(__half a, __half b) { return a < b; }
static inline bool __hle(__half a, __half b) { return a <= b; }
static inline bool __hgt(__half a, __half b) { return a > b; }
static inline bool __hge(__half a, __half b) { return a >= b; }
static inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
static inline int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
static inline __half __hmax(__half a, __half b) { return __hisnan(a) ? b : (__hisnan(b) ? a : (a > b ? a : b)); }
static inline __half __hmin(__half a, __half b) { return __hisnan(a) ? b : (__hisnan(b) ? a : (a < b ? a : b)); }
#define EMU_HMATH(N, F) static inline __half N(__half a) { return __half(F((float)a)); }
EMU_HMATH(hexp, expf) EMU_HMATH(hexp2, exp2f) EMU_HMATH(hlog, logf) EMU_HMATH(hlog2, log2f)
EMU_HMATH(hlog10, log10f) EMU_HMATH(hsqrt, sqrtf) EMU_HMATH(hsin, sinf) EMU_HMATH(hcos, cosf)
EMU_HMATH(hfloor, floorf) EMU_HMATH(hceil, ceilf) EMU_HMATH(htrunc, truncf) EMU_HMATH(hrint, nearbyintf)
EMU_HMATH(htanh, tanhf)
#undef EMU_HMATH
static inline __half hrsqrt(__half a) { return __half(1.0f / sqrtf((float)a)); }
static inline __half hrcp(__half a) { return __half(1.0f / (float)a); }
static inline __half hexp10(__half a) { return __half(powf(10.0f, (float)a)); }
struct alignas(4) __half2 { __half x, y; };
typedef __half2 half2;
static inline __half2 make_half2(__half x, __half y) { __half2 r; r.x = x; r.y = y; return r; }
static inline __half2 __halves2half2(__half x, __half y) { return make_half2(x, y); }
static inline __half2 __half2half2(__half x) { return make_half2(x, x); }
static inline __half2 __float2half2_rn(float f) { return make_half2(__half(f), __half(f)); }
static inline __half2 __floats2half2_rn(float a, float b) { return make_half2(__half(a), __half(b)); }
static inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
static inline __half2 __float22half2_rn(float2 f) { return make_half2(__half(f.x), __half(f.y)); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return make_half2(a.x + b.x, a.y + b.y); }
static inline __half2 __hsub2(__half2 a, __half2 b) { return make_half2(a.x - b.x, a.y - b.y); }
static inline __half2 __hmul2(__half2 a, __half2 b) { return make_half2(a.x * b.x, a.y * b.y); }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return make_half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
static inline __half2 __hmax2(__half2 a, __half2 b) { return make_half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
static inline __half2 __hmin2(__half2 a, __half2 b) { return make_half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
)EMU_PRELUDE";

}  // namespace minitvm::runtime::emulator::detail
