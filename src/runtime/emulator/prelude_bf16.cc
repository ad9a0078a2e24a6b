// Text of the emulator's stand-in for <cuda_bf16.h>: a host __nv_bfloat16 / __nv_bfloat162 with the
// CUDA functions emitted code (and hand-written kernels) use. See docs/EMULATOR.md.
#include "runtime/emulator/prelude.h"

namespace minitvm::runtime::emulator::detail {

const char* const kBf16Header = R"EMU_PRELUDE(
#pragma once
/* minitvm CUDA emulator stand-in for <cuda_bf16.h>: bfloat16 is stored as the high 16 bits of a
   float. Arithmetic is done in float and rounded to nearest even; for + - * / that is the correctly
   rounded bfloat16 result (float has more than 2 * 8 + 2 significant bits), as sm_80+ computes it.
   Every conversion into bfloat16 rounds once, NaN becomes CUDA's canonical NaN 0x7FFF. */
static inline unsigned short __emu_f2bf(float f) {
  uint32_t x; memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)0x7fffu;
  x += 0x7fffu + ((x >> 16) & 1u);  /* nearest, ties to even; a carry into the exponent gives inf */
  return (unsigned short)(x >> 16);
}
static inline float __emu_bf2f(unsigned short b) {
  const uint32_t x = (uint32_t)b << 16;
  float f; memcpy(&f, &x, 4); return f;
}
/* float with round-to-odd (truncated toward zero, last bit set when inexact): rounding that float
   to bfloat16 is the single correct rounding of the exact value. */
static inline float __emu_odd(float truncated, bool inexact) {
  if (!inexact) return truncated;
  uint32_t x; memcpy(&x, &truncated, 4);
  x |= 1u;
  float r; memcpy(&r, &x, 4); return r;
}
static inline unsigned short __emu_d2bf(double d) {
  if (d != d) return (unsigned short)0x7fffu;
  float f = (float)d;
  if (f - f == 0.0f && (double)f != d) {  /* finite and inexact: step back toward zero if rounded up */
    uint32_t x; memcpy(&x, &f, 4);
    if (fabs((double)f) > fabs(d)) --x;
    memcpy(&f, &x, 4);
    f = __emu_odd(f, true);
  }
  return __emu_f2bf(f);
}
static inline unsigned short __emu_u2bf(unsigned long long m, bool neg) {
  float f;
  if (m >> 24) {  /* keep 24 significant bits, the dropped ones as a sticky last bit */
    const int shift = 40 - __builtin_clzll(m);
    const unsigned long long kept = m >> shift;
    f = ldexpf(__emu_odd((float)kept, (m & ((1ull << shift) - 1ull)) != 0), shift);
  } else {
    f = (float)m;
  }
  return __emu_f2bf(neg ? -f : f);
}
static inline unsigned short __emu_i2bf(long long v) {
  return v < 0 ? __emu_u2bf(0ull - (unsigned long long)v, true) : __emu_u2bf((unsigned long long)v, false);
}
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(__emu_f2bf(f)) {}
  __nv_bfloat16(double d) : __x(__emu_d2bf(d)) {}
  __nv_bfloat16(short v) : __x(__emu_i2bf(v)) {}
  __nv_bfloat16(unsigned short v) : __x(__emu_u2bf(v, false)) {}
  __nv_bfloat16(int v) : __x(__emu_i2bf(v)) {}
  __nv_bfloat16(unsigned int v) : __x(__emu_u2bf(v, false)) {}
  __nv_bfloat16(long v) : __x(__emu_i2bf(v)) {}
  __nv_bfloat16(unsigned long v) : __x(__emu_u2bf(v, false)) {}
  __nv_bfloat16(long long v) : __x(__emu_i2bf(v)) {}
  __nv_bfloat16(unsigned long long v) : __x(__emu_u2bf(v, false)) {}
  operator float() const { return __emu_bf2f(__x); }
};
typedef __nv_bfloat16 nv_bfloat16;
static inline __nv_bfloat16 __emu_bfbits(unsigned short b) { __nv_bfloat16 h; h.__x = b; return h; }
#define EMU_BFOP(OP)                                                                                  \
  static inline __nv_bfloat16 operator OP(const __nv_bfloat16& a, const __nv_bfloat16& b) {          \
    return __nv_bfloat16((float)a OP (float)b); }                                                     \
  static inline __nv_bfloat16& operator OP##=(__nv_bfloat16& a, const __nv_bfloat16& b) { a = a OP b; return a; }
EMU_BFOP(+) EMU_BFOP(-) EMU_BFOP(*) EMU_BFOP(/)
#undef EMU_BFOP
#define EMU_BFCMP(OP) \
  static inline bool operator OP(const __nv_bfloat16& a, const __nv_bfloat16& b) { return (float)a OP (float)b; }
EMU_BFCMP(==) EMU_BFCMP(!=) EMU_BFCMP(<) EMU_BFCMP(>) EMU_BFCMP(<=) EMU_BFCMP(>=)
#undef EMU_BFCMP
static inline __nv_bfloat16 operator-(const __nv_bfloat16& a) { return __emu_bfbits((unsigned short)(a.__x ^ 0x8000u)); }
static inline __nv_bfloat16 operator+(const __nv_bfloat16& a) { return a; }

/* conversions */
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
static inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
static inline __nv_bfloat16 __short2bfloat16_rn(short v) { return __nv_bfloat16(v); }
static inline __nv_bfloat16 __ushort2bfloat16_rn(unsigned short v) { return __nv_bfloat16(v); }
static inline __nv_bfloat16 __int2bfloat16_rn(int v) { return __nv_bfloat16(v); }
static inline __nv_bfloat16 __uint2bfloat16_rn(unsigned int v) { return __nv_bfloat16(v); }
static inline __nv_bfloat16 __ll2bfloat16_rn(long long v) { return __nv_bfloat16(v); }
static inline __nv_bfloat16 __ull2bfloat16_rn(unsigned long long v) { return __nv_bfloat16(v); }
static inline int __bfloat162int_rn(__nv_bfloat16 h) { return (int)nearbyintf((float)h); }
static inline int __bfloat162int_rz(__nv_bfloat16 h) { return (int)(float)h; }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) { return __emu_bfbits(b); }
static inline short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
static inline __nv_bfloat16 __short_as_bfloat16(short b) { return __emu_bfbits((unsigned short)b); }

/* arithmetic, comparisons, classification */
static inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
static inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return a - b; }
static inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
static inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return a / b; }
static inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return -a; }
static inline __nv_bfloat16 __habs(__nv_bfloat16 a) { return __emu_bfbits((unsigned short)(a.__x & 0x7fffu)); }
static inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  /* a * b is exact in double (16 significant bits, no overflow); the sum rounds to 53 bits, far
     more than 2 * 16 + 2, so the final rounding to bfloat16 is the correct one */
  return __nv_bfloat16((double)(float)a * (double)(float)b + (double)(float)c); }
static inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return a == b; }
static inline bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) { return a != b; }
static inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return a < b; }
static inline bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return a <= b; }
static inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return a > b; }
static inline bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return a >= b; }
static inline bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
static inline int __hisinf(__nv_bfloat16 a) { return (a.__x & 0x7fffu) == 0x7f80u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
/* __hmax/__hmin ignore a NaN operand (canonical NaN when both are), +0 > -0; the _nan variants
   return the canonical NaN when either operand is NaN (PTX max.bf16 / max.NaN.bf16). */
static inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) {
  if (__hisnan(a) && __hisnan(b)) return __emu_bfbits(0x7fffu);
  if (__hisnan(a)) return b;
  if (__hisnan(b)) return a;
  if (a == b) return (a.__x & 0x8000u) ? b : a;
  return a > b ? a : b;
}
static inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) {
  if (__hisnan(a) && __hisnan(b)) return __emu_bfbits(0x7fffu);
  if (__hisnan(a)) return b;
  if (__hisnan(b)) return a;
  if (a == b) return (a.__x & 0x8000u) ? a : b;
  return a < b ? a : b;
}
static inline __nv_bfloat16 __hmax_nan(__nv_bfloat16 a, __nv_bfloat16 b) {
  return (__hisnan(a) || __hisnan(b)) ? __emu_bfbits(0x7fffu) : __hmax(a, b); }
static inline __nv_bfloat16 __hmin_nan(__nv_bfloat16 a, __nv_bfloat16 b) {
  return (__hisnan(a) || __hisnan(b)) ? __emu_bfbits(0x7fffu) : __hmin(a, b); }
#define EMU_BFMATH(N, F) static inline __nv_bfloat16 N(__nv_bfloat16 a) { return __nv_bfloat16(F((float)a)); }
EMU_BFMATH(hexp, expf) EMU_BFMATH(hexp2, exp2f) EMU_BFMATH(hlog, logf) EMU_BFMATH(hlog2, log2f)
EMU_BFMATH(hlog10, log10f) EMU_BFMATH(hsqrt, sqrtf) EMU_BFMATH(hsin, sinf) EMU_BFMATH(hcos, cosf)
EMU_BFMATH(hfloor, floorf) EMU_BFMATH(hceil, ceilf) EMU_BFMATH(htrunc, truncf) EMU_BFMATH(hrint, nearbyintf)
EMU_BFMATH(htanh, tanhf)
#undef EMU_BFMATH
static inline __nv_bfloat16 hrsqrt(__nv_bfloat16 a) { return __nv_bfloat16(1.0f / sqrtf((float)a)); }
static inline __nv_bfloat16 hrcp(__nv_bfloat16 a) { return __nv_bfloat16(1.0f / (float)a); }
static inline __nv_bfloat16 hexp10(__nv_bfloat16 a) { return __nv_bfloat16(powf(10.0f, (float)a)); }

/* two lanes */
struct alignas(4) __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat162 nv_bfloat162;
static inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { __nv_bfloat162 r; r.x = x; r.y = y; return r; }
static inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return make_bfloat162(x, y); }
static inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 x) { return make_bfloat162(x, x); }
static inline __nv_bfloat162 __float2bfloat162_rn(float f) { return make_bfloat162(__nv_bfloat16(f), __nv_bfloat16(f)); }
static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return make_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b)); }
static inline float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2((float)h.x, (float)h.y); }
static inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return make_bfloat162(__nv_bfloat16(f.x), __nv_bfloat16(f.y)); }
static inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
static inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
static inline float __low2float(__nv_bfloat162 h) { return (float)h.x; }
static inline float __high2float(__nv_bfloat162 h) { return (float)h.y; }
static inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return make_bfloat162(a.x + b.x, a.y + b.y); }
static inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return make_bfloat162(a.x - b.x, a.y - b.y); }
static inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return make_bfloat162(a.x * b.x, a.y * b.y); }
static inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return make_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
static inline __nv_bfloat162 __hmax2(__nv_bfloat162 a, __nv_bfloat162 b) { return make_bfloat162(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
static inline __nv_bfloat162 __hmin2(__nv_bfloat162 a, __nv_bfloat162 b) { return make_bfloat162(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
static inline __nv_bfloat162 __hmax2_nan(__nv_bfloat162 a, __nv_bfloat162 b) {
  return make_bfloat162(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y)); }
static inline __nv_bfloat162 __hmin2_nan(__nv_bfloat162 a, __nv_bfloat162 b) {
  return make_bfloat162(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y)); }
#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
)EMU_PRELUDE";

}  // namespace minitvm::runtime::emulator::detail
