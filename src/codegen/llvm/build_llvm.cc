// Public entry points of the LLVM CPU backend: signatures, IR text, JIT-compiled modules.
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/llvm/codegen_llvm.h"
#include "minitvm/codegen/codegen_llvm.h"
#include "minitvm/support/error.h"
#include "runtime/cpu/jit.h"

namespace minitvm::codegen {

using namespace ir;

runtime::FunctionSignature signature_of(const PrimFunc& func) {
  runtime::FunctionSignature sig;
  sig.name = func->name;
  for (const Var& p : func->params) {
    runtime::ArgSpec spec;
    spec.name = p.name();
    auto it = func->buffer_map.find(p.get());
    if (it != func->buffer_map.end()) {
      const Buffer& buf = it->second;
      spec.kind = runtime::ArgSpec::Kind::Buffer;
      spec.dtype = buf->dtype;
      if (!buf->name.empty()) spec.name = buf->name;
      for (const Expr& e : buf->shape) {
        const int64_t* v = as_const_int(e);
        MINITVM_USER_CHECK(v) << "LLVM codegen: function '" << func->name << "': buffer '" << spec.name
                              << "' has a non-constant shape (" << to_string(e) << "); only static shapes are supported";
        spec.shape.push_back(*v);
      }
    } else {
      MINITVM_USER_CHECK(!p.dtype().is_handle()) << "LLVM codegen: function '" << func->name
                                                  << "': handle parameter '" << p.name() << "' has no buffer";
      spec.kind = runtime::ArgSpec::Kind::Scalar;
      spec.dtype = p.dtype();
    }
    sig.args.push_back(std::move(spec));
  }
  return sig;
}

namespace {
std::unique_ptr<llvm::Module> generate(const std::vector<PrimFunc>& funcs, llvm::LLVMContext& ctx) {
  auto module = std::make_unique<llvm::Module>("minitvm", ctx);
  CodeGenLLVM cg(ctx, *module);
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

runtime::Module build_llvm(const std::vector<PrimFunc>& funcs, const std::vector<runtime::FunctionSignature>& sigs) {
  MINITVM_ICHECK(funcs.size() == sigs.size()) << "build_llvm: " << funcs.size() << " functions but "
                                               << sigs.size() << " signatures";
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
