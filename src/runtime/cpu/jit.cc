// The process-wide LLJIT: setup, optimisation pipeline, per-module JITDylibs and resource trackers.
// Follows the shape of LLVM's LLJITWithOptimizingIRTransform example; llvm::Expected and
// llvm::Error are handled here and never escape.
#include "runtime/cpu/jit.h"
#include "runtime/cpu/jit_object.h"

// LLVM 19 headers trip -Wredundant-move with GCC 12; they are not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wredundant-move"
#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/IRTransformLayer.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#pragma GCC diagnostic pop

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <set>

#include "minitvm/runtime/thread_pool.h"
#include "minitvm/runtime/workspace.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

namespace minitvm::runtime::cpu {

namespace {

std::string to_string(llvm::Error err) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << err;  // consumes the error
  return s;
}

/** The code generator's settings, for the JIT and for exported objects alike: full backend
 *  optimisation, and a separate multiply and add may become one fused multiply-add, as TVM's llvm
 *  target sets it (AllowFPOpFusion::Fast). One rounding instead of two: results move by at most an
 *  ulp per contracted pair. On cores whose adds share the FMA ports (Intel's AVX-512 parts) this
 *  halves the instructions of a convolution's inner loop (ResNet-50 on a 2-core Xeon: 52 -> 39.5
 *  ms; docs/PERFORMANCE.md). */
void configure_codegen(llvm::orc::JITTargetMachineBuilder& jtmb) {
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
}

// Runtime helpers and libm functions lowered code may call, registered as absolute symbols so JIT
// code finds them even when the process was linked statically or with hidden visibility.
struct HelperSymbol {
  const char* name;
  void* addr;
};

#define MINITVM_F1(fn) \
  { #fn, reinterpret_cast < void*>(static_cast <float (*)(float)>(&::fn)) }
#define MINITVM_D1(fn) \
  { #fn, reinterpret_cast < void*>(static_cast <double (*)(double)>(&::fn)) }
#define MINITVM_F2(fn) \
  { #fn, reinterpret_cast < void*>(static_cast <float (*)(float, float)>(&::fn)) }
#define MINITVM_D2(fn) \
  { #fn, reinterpret_cast < void*>(static_cast <double (*)(double, double)>(&::fn)) }

std::vector<HelperSymbol> helper_symbols() {
  return {
      {"minitvm_parallel_for", reinterpret_cast<void*>(&minitvm_parallel_for)},
      {"minitvm_workspace_alloc", reinterpret_cast<void*>(&minitvm_workspace_alloc)},
      {"minitvm_workspace_free", reinterpret_cast<void*>(&minitvm_workspace_free)},
      {"memcpy", reinterpret_cast<void*>(&::memcpy)},
      {"memmove", reinterpret_cast<void*>(&::memmove)},
      {"memset", reinterpret_cast<void*>(&::memset)},
      MINITVM_F1(expf),
      MINITVM_F1(exp2f),
      MINITVM_F1(logf),
      MINITVM_F1(log2f),
      MINITVM_F1(log10f),
      MINITVM_F1(sqrtf),
      MINITVM_F1(tanhf),
      MINITVM_F1(erff),
      MINITVM_F1(fabsf),
      MINITVM_F1(floorf),
      MINITVM_F1(ceilf),
      MINITVM_F1(roundf),
      MINITVM_F1(truncf),
      MINITVM_F1(sinf),
      MINITVM_F1(cosf),
      MINITVM_F1(tanf),
      MINITVM_F1(atanf),
      MINITVM_F1(sinhf),
      MINITVM_F1(coshf),
      MINITVM_F1(expm1f),
      MINITVM_F1(log1pf),
      MINITVM_F1(nearbyintf),
      MINITVM_F1(rintf),
      MINITVM_D1(exp),
      MINITVM_D1(exp2),
      MINITVM_D1(log),
      MINITVM_D1(log2),
      MINITVM_D1(log10),
      MINITVM_D1(sqrt),
      MINITVM_D1(tanh),
      MINITVM_D1(erf),
      MINITVM_D1(fabs),
      MINITVM_D1(floor),
      MINITVM_D1(ceil),
      MINITVM_D1(round),
      MINITVM_D1(trunc),
      MINITVM_D1(sin),
      MINITVM_D1(cos),
      MINITVM_D1(tan),
      MINITVM_D1(atan),
      MINITVM_D1(sinh),
      MINITVM_D1(cosh),
      MINITVM_D1(expm1),
      MINITVM_D1(log1p),
      MINITVM_D1(nearbyint),
      MINITVM_D1(rint),
      MINITVM_F2(powf),
      MINITVM_F2(fmodf),
      MINITVM_F2(atan2f),
      MINITVM_F2(fminf),
      MINITVM_F2(fmaxf),
      MINITVM_D2(pow),
      MINITVM_D2(fmod),
      MINITVM_D2(atan2),
      MINITVM_D2(fmin),
      MINITVM_D2(fmax),
  };
}

class Jit {
 public:
  static Jit& get() {
    static std::once_flag once;
    static Jit* instance = nullptr;
    static std::string failure;
    std::call_once(once, [] {
      try {
        instance = new Jit();  // process lifetime: compiled code may run during static destruction
      } catch (const std::exception& e) {
        failure = e.what();
      }
    });
    if (!instance) throw RuntimeError("LLVM JIT initialisation failed: " + failure);
    return *instance;
  }

  llvm::orc::LLJIT& lljit() { return *lljit_; }
  std::string description() const { return triple_ + " (" + cpu_ + ")"; }
  uint64_t next_id() { return counter_.fetch_add(1); }

  // O3 with the host target's cost model (TargetTransformInfo), hence loop and SLP vectorization
  // at the host's vector width.
  void optimize(llvm::Module& m) {
    std::lock_guard<std::mutex> lock(opt_mu_);
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    pto.LoopUnrolling = true;
    llvm::PassBuilder pb(tm_.get(), pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(m, mam);
  }

 private:
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();  // host CPU name and features
    if (!jtmb) throw RuntimeError(to_string(jtmb.takeError()));
    configure_codegen(*jtmb);
    triple_ = jtmb->getTargetTriple().str();
    cpu_ = jtmb->getCPU();
    auto tm = jtmb->createTargetMachine();
    if (!tm) throw RuntimeError(to_string(tm.takeError()));
    tm_ = std::move(*tm);
    // Modules are materialised on first lookup, in whichever thread asks (the tuner builds on
    // several threads). The default compiler shares one TargetMachine, whose MC state is not thread
    // safe; ConcurrentIRCompiler makes a TargetMachine per compilation.
    auto jit =
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(std::move(*jtmb))
            .setCompileFunctionCreator(
                [](llvm::orc::JITTargetMachineBuilder jtmb)
                    -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                  return std::make_unique<llvm::orc::ConcurrentIRCompiler>(std::move(jtmb));
                })
            .create();
    if (!jit) throw RuntimeError(to_string(jit.takeError()));
    lljit_ = std::move(*jit);

    lljit_->getIRTransformLayer().setTransform(
        [this](llvm::orc::ThreadSafeModule tsm, const llvm::orc::MaterializationResponsibility&)
            -> llvm::Expected<llvm::orc::ThreadSafeModule> {
          tsm.withModuleDo([this](llvm::Module& m) { optimize(m); });
          return tsm;
        });

    // Failures also reach the caller through lookup()'s Expected; only print them when debugging.
    lljit_->getExecutionSession().setErrorReporter([](llvm::Error err) {
      std::string msg = to_string(std::move(err));
      if (debug_level() > 0) log_warning("JIT session error: " + msg);
    });

    auto& main = lljit_->getMainJITDylib();
    llvm::orc::SymbolMap symbols;
    for (const auto& h : helper_symbols()) {
      symbols[lljit_->mangleAndIntern(h.name)] = llvm::orc::ExecutorSymbolDef(
          llvm::orc::ExecutorAddr::fromPtr(h.addr),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
    }
    if (auto err = main.define(llvm::orc::absoluteSymbols(std::move(symbols))))
      throw RuntimeError(to_string(std::move(err)));
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        lljit_->getDataLayout().getGlobalPrefix());
    if (!gen) throw RuntimeError(to_string(gen.takeError()));
    main.addGenerator(std::move(*gen));
  }

  std::unique_ptr<llvm::orc::LLJIT> lljit_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  std::mutex opt_mu_;
  std::atomic<uint64_t> counter_{0};
  std::string triple_, cpu_;
};

std::atomic<int64_t> g_live_modules{0};

class JitModuleImpl final : public JitModule {
 public:
  JitModuleImpl(llvm::orc::JITDylib* jd, llvm::orc::ResourceTrackerSP rt,
                std::set<std::string> defined)
      : jd_(jd), rt_(std::move(rt)), defined_(std::move(defined)) {
    g_live_modules.fetch_add(1);
  }

  ~JitModuleImpl() override {
    bool ok = true;
    if (auto err = rt_->remove()) {
      ok = false;
      log_warning("JIT: releasing module code failed: " + to_string(std::move(err)));
    }
    if (auto err = Jit::get().lljit().getExecutionSession().removeJITDylib(*jd_)) {
      ok = false;
      log_warning("JIT: removing module dylib failed: " + to_string(std::move(err)));
    }
    if (ok) g_live_modules.fetch_sub(1);
  }

  void* lookup(const std::string& name) override {
    if (!defined_.count(name)) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    auto addr = Jit::get().lljit().lookup(*jd_, name);
    if (!addr)
      throw CompileError("JIT: cannot materialise '" + name + "': " + to_string(addr.takeError()));
    return addr->toPtr<void*>();
  }

 private:
  llvm::orc::JITDylib* jd_;
  llvm::orc::ResourceTrackerSP rt_;
  std::set<std::string> defined_;
  std::mutex mu_;
};

}  // namespace

std::shared_ptr<JitModule> jit_compile(std::unique_ptr<llvm::Module> module,
                                       std::unique_ptr<llvm::LLVMContext> context) {
  MINITVM_ICHECK(module && context) << "jit_compile: null module or context";
  // On an error the module must die before its context: the parameters are destroyed in an
  // unspecified order after the throw (AddressSanitizer caught ~Module on a freed context).
  struct ModuleFirst {
    std::unique_ptr<llvm::Module>& m;
    ~ModuleFirst() { m.reset(); }
  } module_first{module};
  Jit& jit = Jit::get();
  auto& lljit = jit.lljit();
  module->setDataLayout(lljit.getDataLayout());
  module->setTargetTriple(lljit.getTargetTriple().str());
  {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    if (llvm::verifyModule(*module, &os))
      throw CompileError("LLVM module '" + module->getName().str() + "' is invalid:\n" + os.str());
  }
  std::set<std::string> defined;
  for (const llvm::Function& f : *module)
    if (!f.isDeclaration() && !f.hasLocalLinkage()) defined.insert(f.getName().str());

  auto jd = lljit.createJITDylib("minitvm_module_" + std::to_string(jit.next_id()));
  if (!jd) throw RuntimeError("JIT: " + to_string(jd.takeError()));
  jd->addToLinkOrder(lljit.getMainJITDylib());
  auto rt = jd->createResourceTracker();
  if (auto err =
          lljit.addIRModule(rt, llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    throw CompileError("JIT: adding module failed: " + to_string(std::move(err)));
  return std::make_shared<JitModuleImpl>(&*jd, std::move(rt), std::move(defined));
}

namespace {
std::unique_ptr<llvm::Module> parse_ir(const std::string& text, const std::string& name,
                                       llvm::LLVMContext& ctx) {
  Jit::get();  // initialise targets before parsing
  llvm::SMDiagnostic diag;
  auto mod = llvm::parseAssembly(llvm::MemoryBufferRef(text, name), diag, ctx);
  if (!mod) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print(nullptr, os, /*ShowColors=*/false);
    throw CompileError("cannot parse LLVM IR: " + os.str());
  }
  mod->setModuleIdentifier(name);
  return mod;
}
}  // namespace

std::shared_ptr<JitModule> jit_compile_ir(const std::string& llvm_ir_text,
                                          const std::string& module_name) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto mod = parse_ir(llvm_ir_text, module_name, *ctx);
  return jit_compile(std::move(mod), std::move(ctx));
}

std::string jit_optimized_ir(const std::string& llvm_ir_text) {
  llvm::LLVMContext ctx;
  auto mod = parse_ir(llvm_ir_text, "minitvm", ctx);
  auto& lljit = Jit::get().lljit();
  mod->setDataLayout(lljit.getDataLayout());
  mod->setTargetTriple(lljit.getTargetTriple().str());
  Jit::get().optimize(*mod);
  std::string out;
  llvm::raw_string_ostream os(out);
  mod->print(os, nullptr);
  return os.str();
}

std::string jit_emit_object(const std::string& llvm_ir_text) {
  llvm::LLVMContext ctx;
  auto mod = parse_ir(llvm_ir_text, "minitvm", ctx);
  Jit& jit = Jit::get();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) throw RuntimeError("jit_emit_object: " + to_string(jtmb.takeError()));
  configure_codegen(*jtmb);
  jtmb->setRelocationModel(llvm::Reloc::PIC_);
  auto tm = jtmb->createTargetMachine();
  if (!tm) throw RuntimeError("jit_emit_object: " + to_string(tm.takeError()));
  mod->setDataLayout((*tm)->createDataLayout());
  mod->setTargetTriple(jtmb->getTargetTriple().str());
  {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    if (llvm::verifyModule(*mod, &os)) throw CompileError("LLVM module is invalid:\n" + os.str());
  }
  jit.optimize(*mod);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    throw RuntimeError("jit_emit_object: the host target cannot emit object files");
  pm.run(*mod);
  return std::string(buffer.data(), buffer.size());
}

void jit_define_symbol(const std::string& name, void* address) {
  auto& lljit = Jit::get().lljit();
  llvm::orc::SymbolMap symbols;
  symbols[lljit.mangleAndIntern(name)] =
      llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(address),
                                   llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  if (auto err = lljit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))))
    throw CompileError("JIT: cannot define symbol '" + name + "': " + to_string(std::move(err)));
}

int64_t jit_live_modules() {
  return g_live_modules.load();
}

std::string jit_target_description() {
  return Jit::get().description();
}

}  // namespace minitvm::runtime::cpu
