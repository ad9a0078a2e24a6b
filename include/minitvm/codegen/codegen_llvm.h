/** \file
 * The LLVM CPU code generator: lowered, flattened PrimFuncs -> one llvm::Module -> JIT-compiled
 * runtime::Module ("llvm").
 *
 * Input contract (what the lowering pipeline hands over): flat buffers only (Allocate, Load, Store
 * with one index; no Provide/Realize/ProducerLoad/Reduce), buffer parameters described by
 * `buffer_map` with constant shapes, scalar parameters as plain int/uint/float/bool Vars.
 *
 * Every PrimFunc becomes `extern "C" void NAME(void* const* args)` (see runtime/module.h): args[i]
 * is the data pointer of buffer parameter i, or points to scalar parameter i stored in its dtype.
 * The body lives in an internal function whose buffer parameters are `noalias` (callers must not
 * pass overlapping buffers), which the entry inlines.
 *
 * Semantics the generated code commits to (fast-math is off; results are bit-exact with C):
 * - Div/Mod on ints truncate (sdiv/srem, udiv/urem); FloorDiv/FloorMod round toward -inf. Float
 *   Mod is fmod; float FloorDiv is floor(a / b), FloorMod is a - floor(a / b) * b.
 * - Min(a, b) = a < b ? a : b and Max(a, b) = a > b ? a : b (TVM's LLVM lowering): with a NaN
 *   operand the result is `b`, so a NaN survives a max/min chain only when it is the last operand.
 * - Float comparisons are ordered (false on NaN) except NE, which is true on NaN (C's `!=`).
 * - Casts follow C: float->int truncates toward zero (out of range is undefined), ->bool is `!= 0`.
 * - float16 values are LLVM `half` (every operation rounds to half, like numpy float16); math
 *   intrinsics on half compute in float and round once. bfloat16 is stored as 16 bits and held in
 *   registers as float rounded to bfloat16 precision (round to nearest even) after every operation.
 * - bool is i1 in registers and one byte in memory.
 * - Round is round-half-away-from-zero (std::round, CUDA round()); Erf/Tanh call libm.
 * - A vector Load whose index is base + lane (a stride-1 Ramp, also written as ramp + broadcast)
 *   is one vector load, a broadcast index one scalar load, other vector indices gather; a
 *   non-constant predicate makes the access masked. Vector `if_then_else` whose true branch is a
 *   Load becomes a masked load (no out-of-bounds read); other vector `if_then_else` is a select.
 * - Parallel For: the body is outlined into `void body(int64_t task, void* closure)` and run by
 *   minitvm_parallel_for(extent, body, closure); the closure holds every variable the body uses.
 *   A Parallel loop nested inside another runs serially. Vectorized/Unrolled loops that reach the
 *   code generator run as serial loops carrying llvm.loop.vectorize.enable / unroll.full hints
 *   (LLVM's O3 pipeline in the JIT vectorizes and unrolls plain loops anyway).
 * - Signed integer add/sub/mul are `nsw` (overflow is undefined, as in TVM), which lets LLVM
 *   widen int32 index arithmetic.
 * - Allocate: constant size up to 64 KiB is a 64-byte aligned stack slot in the function's entry
 *   block; otherwise aligned_alloc/free around the body.
 * - AssertStmt and AttrStmt are not checked on the CPU: only their body is emitted.
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/codegen/func_info.h"  // signature_of
#include "minitvm/ir/stmt.h"
#include "minitvm/runtime/module.h"
#include "minitvm/support/target.h"

namespace minitvm::codegen {

/** Textual LLVM IR (before optimisation) of the module generated for `funcs`. */
std::string emit_llvm_ir(const std::vector<ir::PrimFunc>& funcs);

/**
 * Generate code for `funcs` and compile it with the JIT (O3 for the host CPU). The functions'
 * runtime signatures are derived with signature_of. get_source() of the result is the
 * unoptimised LLVM IR. Throws CompileError for IR the generator does not support.
 */
runtime::Module build_llvm(const std::vector<ir::PrimFunc>& funcs);

/** As above for a parsed "llvm" target: `-mcpu` / `-mattr` become the functions' target-cpu and
 *  target-features (what the JIT compiles for); a CPU or feature this host lacks is a CompileError
 *  naming it, since the code runs here. */
runtime::Module build_llvm(const std::vector<ir::PrimFunc>& funcs, const Target& target);

/** As above with explicit signatures (one per function, same order and names as `funcs`). */
runtime::Module build_llvm(const std::vector<ir::PrimFunc>& funcs,
                           const std::vector<runtime::FunctionSignature>& sigs);

}  // namespace minitvm::codegen
