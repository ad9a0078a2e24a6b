/** \file
 * Internal: LLVM IR to a host object file, for export_library (src/runtime/graph/export.cc).
 */
#pragma once

#include <string>

namespace minitvm::runtime::cpu {

/**
 * Compile textual LLVM IR to a relocatable ELF object for the host (the JIT's triple, CPU and
 * features, the same O3 pipeline, position-independent code), e.g. to link into a shared object.
 * CompileError on IR LLVM rejects.
 */
std::string jit_emit_object(const std::string& llvm_ir_text);

}  // namespace minitvm::runtime::cpu
