/** \file
 * export_library / load_compiled_graph: one file holding a CompiledGraph — the graph JSON, the
 * params (TVM v0.6 params bytes) and the compiled code — that a program linked only against the
 * runtime (minitvm_runtime_lite: no LLVM, no NVRTC) loads and runs with GraphExecutor.
 *
 * File: "MTVMGLIB" (8 bytes), u32 version (1), u32 section count, then per section
 * u64 name length, name, u64 data length, data (little-endian). Sections: "target",
 * "graph_json", "params", optional "metadata" (CompiledGraph::metadata), "lib_type" ("llvm" |
 * "cuda"), and
 * - llvm: "lib_so" (a shared object: the module's code compiled to a host object file by LLVM —
 *   same O3 pipeline and host CPU features as the JIT — linked with `<cc> -shared -fPIC` together
 *   with a small stub that routes minitvm_parallel_for to the loading process's thread pool),
 *   "lib_functions" (the signatures, JSON) and "lib_ll" (the LLVM IR, for get_source);
 * - cuda: "cuda_ptx" and "cuda_json" (exactly what Module::save of a cuda module writes).
 * At load the shared object is written to a temporary file, dlopen'ed and the file removed; the
 * runtime pointers are installed through its `__minitvm_set_runtime` entry. The code is for the
 * exporting machine's CPU (like TVM's `-mcpu=native` builds).
 */
#pragma once

#include <string>
#include <vector>

#include "minitvm/runtime/graph.h"
#include "minitvm/runtime/module.h"

namespace minitvm::runtime {

struct ExportOptions {
  /** The C++ compiler that links the shared object (TVM's cc.create_shared uses g++). */
  std::string cc = "c++";
  /** Extra flags for the link command. */
  std::vector<std::string> flags;
};

/**
 * Write `g` to `path`. The module must be "llvm" or "cuda" (CompileError otherwise, e.g. for
 * "cuda-emulator"); RuntimeError when the compiler fails (its output is in the message) or the
 * file cannot be written.
 */
void export_library(const CompiledGraph& g, const std::string& path,
                    const ExportOptions& options = {});

/**
 * One Module over several (e.g. one module per fused kernel, as a graph's `lib`): get_function
 * finds each name in the module that defines it (a name defined twice is a CompileError), prepared
 * calls go to that module, get_source joins the parts'. type_key "multi". export_library accepts
 * it when every part is "llvm": their objects are linked into one shared object, which loads back
 * as one "llvm" module.
 */
Module combine_modules(const std::vector<Module>& modules);

/** Read a file written by export_library; RuntimeError naming the file and section when malformed.
 */
CompiledGraph load_compiled_graph(const std::string& path);

}  // namespace minitvm::runtime
