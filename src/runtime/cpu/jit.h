/** \file
 * Internal: the process-wide LLVM ORC LLJIT used by the CPU backend, and the "llvm" runtime module.
 *
 * One LLJIT instance per process (created on first use; native target initialised once):
 * - target machine for the host CPU with its features (AVX2/AVX-512/NEON...), opt level Aggressive;
 * - an IR transform layer runs the new-pass-manager O3 pipeline with the target's cost model, so
 *   loops are vectorized for the host;
 * - every compiled module gets its own JITDylib and ResourceTracker, so two modules may define the
 *   same function name; both are released when the last JitModule handle dies;
 * - symbols resolve against the runtime helpers registered explicitly as absolute symbols
 *   (minitvm_parallel_for, the libm functions lowered code uses), then the whole process
 *   (DynamicLibrarySearchGenerator).
 * llvm::Expected never leaves jit.cc: failures become CompileError (bad IR, missing symbols at
 * link time) or RuntimeError.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "minitvm/runtime/module.h"

namespace llvm {
class Module;
class LLVMContext;
}  // namespace llvm

namespace minitvm::runtime::cpu {

/** A compiled module inside the JIT; its code is freed when the last handle is destroyed. */
class JitModule {
 public:
  virtual ~JitModule() = default;
  /** Address of a defined symbol (materialising it); nullptr if the module has no such symbol. */
  virtual void* lookup(const std::string& name) = 0;
};

/**
 * Optimise (O3, host CPU) and compile `module`. The module's target triple and data layout are set
 * to the host's. Throws CompileError when LLVM rejects the module (verifier errors included).
 */
std::shared_ptr<JitModule> jit_compile(std::unique_ptr<llvm::Module> module,
                                       std::unique_ptr<llvm::LLVMContext> context);

/** Parse textual LLVM IR and compile it; CompileError carries the parser diagnostic. */
std::shared_ptr<JitModule> jit_compile_ir(const std::string& llvm_ir_text,
                                          const std::string& module_name = "minitvm");

/**
 * Make `name` resolve to `address` in every module compiled afterwards (e.g. a runtime helper the
 * code generator calls). Throws CompileError if the name is already defined.
 */
void jit_define_symbol(const std::string& name, void* address);

/** Number of compiled modules whose code is currently held by the JIT (released ones excluded). */
int64_t jit_live_modules();

/** The IR after the JIT's optimisation pipeline (O3 for the host CPU), for inspection and tests. */
std::string jit_optimized_ir(const std::string& llvm_ir_text);

/** The target triple and CPU name of the JIT ("x86_64-pc-linux-gnu", "znver3"). */
std::string jit_target_description();

/**
 * A runtime::Module ("llvm") over compiled code. Each signature's function must be defined in `jit`
 * with the calling convention of module.h: `void NAME(void* const* args)`. get_source("") / "ll" /
 * "llvm" returns `llvm_ir_text`; save(path) writes it.
 */
Module make_llvm_module(std::shared_ptr<JitModule> jit, std::vector<FunctionSignature> functions,
                        std::string llvm_ir_text);

}  // namespace minitvm::runtime::cpu
