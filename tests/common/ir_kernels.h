/** \file
 * Lowered-style GPU functions built by hand with the IR constructors, as the lowering pipeline
 * would hand them to the CUDA backend (thread_extent attrs, flat Store/Load, hoisted Allocate).
 */
#pragma once

#include <cstdint>
#include <vector>

#include "minitvm/ir/expr.h"
#include "minitvm/ir/stmt.h"

namespace minitvm::testing {

/** A placeholder-like buffer parameter. */
struct Param {
  ir::Buffer buf;
  ir::Var var() const { return buf->data; }
};
Param make_param(const char* name, DataType t, std::vector<int64_t> shape);
ir::PrimFunc make_func(const char* name, const std::vector<Param>& params, ir::Stmt body);
ir::IterVar thread_axis(const char* tag, int64_t extent);
ir::Stmt bind(const ir::IterVar& iv, ir::Stmt body);

/** add(A, B, C): C[i] = A[i] + B[i], n = 1000, blocks of 64 with an `if (likely(i < 1000))` guard.
 */
ir::PrimFunc vector_add();
constexpr int64_t kAddN = 1000;

/**
 * matmul(A, B, C): C = A x B for 64x64 float32 with 16x16 tiles: A.shared/B.shared tiles loaded
 * cooperatively per k-tile, C.local accumulator, an Unrolled inner loop. No barriers (thread_sync
 * must add them).
 */
ir::PrimFunc tiled_matmul();
constexpr int64_t kMM = 64, kTile = 16;

/** copy4(A, B): B[4t .. 4t+3] = A[4t .. 4t+3] * 2 as float4 accesses, n = 1024, 64 threads. */
ir::PrimFunc float4_scale();
constexpr int64_t kCopyN = 1024;

/**
 * half_ew(A, B, C, D): C[i] = max(A[i] * B[i] + 1, 0) in float16; D[i] = float(max(A[i], -inf))
 * + float(A[i]) in float32 (n = 512, one block of 128 threads, a serial loop of 4 per thread).
 */
ir::PrimFunc half_elementwise();
constexpr int64_t kHalfN = 512;

/** pool(A, B): B[i] = max(max(A[2i], A[2i+1]), -inf), n = 256 outputs; NaN must propagate. */
ir::PrimFunc max_pairs();
constexpr int64_t kPoolN = 256;

/** Two kernels in one function: T[i] = A[i] * 3 (kernel 0), B[i] = T[i] + A[i] (kernel 1). */
ir::PrimFunc two_kernels();

/**
 * gmatmul(A, B, C): 50x50 matmul with 16x16 tiles (imperfect): shared loads guarded by
 * `if (likely(...))` (A) and `tvm_if_then_else(..., B[..], 0)` (B), guarded compute and store.
 */
ir::PrimFunc guarded_matmul();
constexpr int64_t kGM = 50;

/** half2(A, B, C): B = A * A and C = A with half2 accesses (n = 256, 128 threads x 2 lanes). */
ir::PrimFunc half2_square();
constexpr int64_t kHalf2N = 256;

/**
 * rev4(A, B): 64 threads copy A into S.shared with float4 stores, then B[i] = S[255 - i] read as
 * scalars (one block, n = 256): needs a RAW barrier and an aligned shared array.
 */
ir::PrimFunc shared_float4_reverse();

/**
 * bf16_ew(A, B, I, F, C, D, E, G) in bfloat16 (n = 512, one block of 128 threads, a serial loop of
 * 4): C[i] = max(A[i] * B[i] + 1, 0) computed in bfloat16; D[i] = float(max(A[i], -inf)) +
 * float(A[i]) in float32; E[i] = A[i] < B[i] ? bfloat16(I[i]) : bfloat16(F[i]) (int32 and float64
 * sources); G[i] = isnan(A[i]) ? 3 : min(A[i], +inf).
 */
ir::PrimFunc bf16_elementwise();
constexpr int64_t kBf16N = 512;

/** bf162(A, B, C): B = A * A and C = A with __nv_bfloat162 accesses (n = 256, 128 threads x 2). */
ir::PrimFunc bf162_square();
constexpr int64_t kBf162N = 256;

/** The functions above, for "every kernel compiles" checks. */
std::vector<ir::PrimFunc> all_test_functions();

}  // namespace minitvm::testing
