/** \file
 * Texts written next to every CUDA source the emulator compiles: the prelude (force-included)
 * and stand-ins for the CUDA headers that emitted code may include. Private to the emulator.
 */
#pragma once

namespace minitvm::runtime::emulator::detail {

/** Keywords, built-in variables, vector types, checked pointers, barrier (prelude_core.cc). */
extern const char* const kPreludeCore;
/** min/max, fast math, integer intrinsics, atomics (prelude_math.cc). */
extern const char* const kPreludeMath;
/** Stand-in for <cuda_fp16.h>: a host __half/__half2 with CUDA's functions. */
extern const char* const kFp16Header;
/** Stand-in for <cuda_bf16.h>: a host __nv_bfloat16/__nv_bfloat162 with CUDA's functions
 * (prelude_bf16.cc). */
extern const char* const kBf16Header;
/** Stand-in for <math_constants.h>. */
extern const char* const kMathConstantsHeader;

}  // namespace minitvm::runtime::emulator::detail
