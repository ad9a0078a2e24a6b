// Public entry points of the LLVM CPU backend: signatures, IR text, JIT-compiled modules.
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <memory>
#include <set>

#include "codegen/llvm/codegen_llvm.h"
#include "minitvm/codegen/codegen_llvm.h"
#include "minitvm/codegen/func_info.h"
#include "minitvm/support/error.h"
#include "minitvm/support/target.h"
#include "runtime/cpu/jit.h"

namespace minitvm::codegen {

using namespace ir;

namespace {
/** Whether this host has AVX-512F (the JIT compiles for the host). */
bool host_avx512f() {
  static const bool yes = [] {
    const auto f = llvm::sys::getHostCPUFeatures();
    auto it = f.find("avx512f");
    return it != f.end() && it->second;
  }();
  return yes;
}

// masked_tails: vectors of a lane count that is not a power of two are loaded and stored as the
// next power of two under a constant mask (CodeGenLLVM::set_masked_tails): with AVX-512, on the
// host's features (no -mcpu, no -mattr=-avx512f).
std::unique_ptr<llvm::Module> generate(const std::vector<PrimFunc>& funcs, llvm::LLVMContext& ctx,
                                       bool masked_tails = host_avx512f()) {
  auto module = std::make_unique<llvm::Module>("minitvm", ctx);
  CodeGenLLVM cg(ctx, *module);
  cg.set_masked_tails(masked_tails);
  for (const PrimFunc& f : funcs) cg.add_function(f);
  return module;
}

std::string print(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return os.str();
}
}  // namespace

std::string emit_llvm_ir(const std::vector<PrimFunc>& funcs) {
  llvm::LLVMContext ctx;
  return print(*generate(funcs, ctx));
}

runtime::Module build_llvm(const std::vector<PrimFunc>& funcs) {
  std::vector<runtime::FunctionSignature> sigs;
  for (const PrimFunc& f : funcs) sigs.push_back(signature_of(f));
  return build_llvm(funcs, sigs);
}

namespace {
/**
 * The function attributes that make LLVM compile for `-mcpu` / `-mattr` ("target-cpu",
 * "target-features"; the JIT's target machine reads them per function). The code runs on this
 * host, so a CPU or feature the host lacks is a CompileError naming it (not a SIGILL later).
 */
/** Whether generated code can contain instructions of `feature` (ISA extensions the vectorizer
 *  and instruction selection use). System features such as mwaitx or rdpru, which a virtual
 *  machine often hides, are never emitted for tensor code and do not make a CPU unusable here. */
bool codegen_feature(const std::string& triple, const std::string& f) {
  if (llvm::Triple(triple).getArch() != llvm::Triple::x86_64) return true;
  for (const char* p : {"sse",        "ssse",  "avx", "fma",  "f16c", "bmi",     "lzcnt",
                        "popcnt",     "movbe", "amx", "xop",  "tbm",  "aes",     "pclmul",
                        "vpclmulqdq", "gfni",  "sha", "cx16", "adx",  "evex512", "prfchw"})
    if (f.rfind(p, 0) == 0) return true;
  return false;
}

struct CpuAttrs {
  std::string cpu, features;
  bool set_cpu = false, set_features = false;
};
CpuAttrs cpu_attributes(const Target& t) {
  CpuAttrs a;
  if (t.mcpu.empty() && t.mattr.empty() && t.mtriple.empty()) return a;
  llvm::InitializeNativeTarget();
  const std::string triple = llvm::sys::getProcessTriple();
  const std::string host_cpu = llvm::sys::getHostCPUName().str();
  MINITVM_USER_CHECK(t.mtriple.empty() || t.mtriple == triple ||
                     llvm::Triple(t.mtriple).getArch() == llvm::Triple(triple).getArch())
      << "build: target '" << t.str() << "': -mtriple=" << t.mtriple
      << " is not this host's triple (" << triple
      << "); the llvm target JIT-compiles for the host and cannot cross-compile";
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  MINITVM_ICHECK(target) << "LLVM has no target for the host triple " << triple << ": " << err;
  // A generic subtarget answers which CPU names and features exist (an unknown CPU given to
  // createMCSubtargetInfo would only be warned about on stderr).
  std::unique_ptr<llvm::MCSubtargetInfo> generic(target->createMCSubtargetInfo(triple, "", ""));
  MINITVM_ICHECK(generic) << "LLVM cannot describe the host triple " << triple;
  MINITVM_USER_CHECK(t.mcpu.empty() || generic->isCPUStringValid(t.mcpu))
      << "build: target '" << t.str() << "': -mcpu=" << t.mcpu << " is not a CPU LLVM knows for "
      << triple << " (this host's CPU is " << host_cpu << ")";
  const std::string cpu = t.mcpu.empty() ? host_cpu : t.mcpu;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, cpu, ""));
  MINITVM_ICHECK(sti) << "LLVM cannot describe CPU " << cpu;
  std::set<std::string> known;
  for (const auto& kv : generic->getAllProcessorFeatures()) known.insert(kv.Key);
  const auto host = llvm::sys::getHostCPUFeatures();
  if (!t.mcpu.empty()) {
    std::string missing;
    for (const auto& kv : host)
      if (!kv.second && known.count(kv.first().str()) &&
          codegen_feature(triple, kv.first().str()) && sti->checkFeatures("+" + kv.first().str()))
        missing += (missing.empty() ? "" : ", ") + kv.first().str();
    MINITVM_USER_CHECK(missing.empty())
        << "build: target '" << t.str() << "': -mcpu=" << t.mcpu
        << " needs CPU features this host (" << host_cpu << ") lacks: " << missing
        << "; the llvm target runs the code it compiles on this host";
    a.cpu = t.mcpu;
    a.set_cpu = true;
    a.set_features =
        true;  // the CPU's own features, not the host's (an explicit list overrides the CPU)
  }
  for (const auto& f : t.mattr) {
    const std::string name = f.substr(1);
    MINITVM_USER_CHECK(known.count(name)) << "build: target '" << t.str() << "': -mattr feature '"
                                          << name << "' is not a feature LLVM knows for " << triple;
    auto it = host.find(name);
    MINITVM_USER_CHECK(f[0] == '-' || it == host.end() || it->second)
        << "build: target '" << t.str() << "': -mattr=" << f << " enables a feature this host ("
        << host_cpu << ") lacks; the llvm target runs the code it compiles on this host";
    a.features += (a.features.empty() ? "" : ",") + f;
    a.set_features = true;
  }
  if (a.set_features && !a.set_cpu) {
    // Features on top of the host's: the host's list first, the user's flags after it win.
    std::string base;
    for (const auto& kv : host)
      base += (base.empty() ? "" : ",") + std::string(kv.second ? "+" : "-") + kv.first().str();
    a.features = base + (a.features.empty() ? "" : "," + a.features);
  }
  return a;
}
}  // namespace

runtime::Module build_llvm(const std::vector<PrimFunc>& funcs, const Target& target) {
  CpuAttrs attrs = cpu_attributes(target);
  std::vector<runtime::FunctionSignature> sigs;
  for (const PrimFunc& f : funcs) sigs.push_back(signature_of(f));
  auto ctx = std::make_unique<llvm::LLVMContext>();
  const bool masked_tails =
      host_avx512f() && !attrs.set_cpu && attrs.features.find("-avx512f") == std::string::npos;
  std::unique_ptr<llvm::Module> module = generate(funcs, *ctx, masked_tails);
  for (llvm::Function& fn : *module) {
    if (fn.isDeclaration()) continue;
    if (attrs.set_cpu) fn.addFnAttr("target-cpu", attrs.cpu);
    if (attrs.set_features) fn.addFnAttr("target-features", attrs.features);
  }
  std::string text = print(*module);
  auto jit = runtime::cpu::jit_compile(std::move(module), std::move(ctx));
  return runtime::cpu::make_llvm_module(std::move(jit), sigs, std::move(text));
}

runtime::Module build_llvm(const std::vector<PrimFunc>& funcs,
                           const std::vector<runtime::FunctionSignature>& sigs) {
  MINITVM_ICHECK(funcs.size() == sigs.size())
      << "build_llvm: " << funcs.size() << " functions but " << sigs.size() << " signatures";
  for (size_t i = 0; i < funcs.size(); ++i) {
    MINITVM_ICHECK(funcs[i]->name == sigs[i].name && funcs[i]->params.size() == sigs[i].args.size())
        << "build_llvm: signature " << i << " ('" << sigs[i].name << "') does not match function '"
        << funcs[i]->name << "'";
  }
  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = generate(funcs, *ctx);
  std::string text = print(*module);
  auto jit = runtime::cpu::jit_compile(std::move(module), std::move(ctx));
  return runtime::cpu::make_llvm_module(std::move(jit), sigs, std::move(text));
}

}  // namespace minitvm::codegen
