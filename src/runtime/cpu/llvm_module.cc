// The "llvm" runtime module: PackedFuncs over JIT-compiled functions `void NAME(void* const*
// args)`.
#include <fstream>
#include <map>

#include "minitvm/support/error.h"
#include "runtime/cpu/jit.h"
#include "runtime/prepared_call.h"

namespace minitvm::runtime::cpu {

namespace {

using CompiledFn = void (*)(void* const*);

class LlvmModuleNode final : public ModuleNode, public PreparedCallProvider {
 public:
  LlvmModuleNode(std::shared_ptr<JitModule> jit, std::vector<FunctionSignature> functions,
                 std::string ir)
      : jit_(std::move(jit)), ir_(std::move(ir)) {
    for (auto& sig : functions) {
      // Materialise now so that link errors surface at build time, not at the first call.
      void* fn = jit_->lookup(sig.name);
      MINITVM_ICHECK(fn) << "JIT module does not define function '" << sig.name
                         << "' of its signature";
      const std::string name = sig.name;
      names_.push_back(name);
      entries_[name] = Entry{std::move(sig), reinterpret_cast<CompiledFn>(fn)};
    }
  }

  std::string type_key() const override { return "llvm"; }

  PackedFunc get_function(const std::string& name) override {
    auto it = entries_.find(name);
    if (it == entries_.end()) return {};
    const FunctionSignature& sig = it->second.sig;
    CompiledFn fn = it->second.fn;
    std::shared_ptr<JitModule> keep = jit_;  // the PackedFunc keeps the code alive
    return PackedFunc(
        [sig, fn, keep](const std::vector<ArgValue>& args) {
          check_arguments(sig, args, Device::cpu());
          const size_t n = args.size();
          std::vector<void*> ptrs(n);
          std::vector<uint64_t> slots(n);  // 8-byte aligned scalar storage
          for (size_t i = 0; i < n; ++i) {
            if (sig.args[i].kind == ArgSpec::Kind::Buffer) {
              ptrs[i] = std::get<NDArray>(args[i]).data();
            } else {
              encode_scalar(sig.args[i], args[i], &slots[i]);
              ptrs[i] = &slots[i];
            }
          }
          fn(ptrs.data());
        },
        sig);
  }

  std::function<void()> prepare_call(const std::string& name,
                                     const std::vector<ArgValue>& args) override {
    auto it = entries_.find(name);
    if (it == entries_.end()) return {};
    const FunctionSignature& sig = it->second.sig;
    check_arguments(sig, args, Device::cpu());
    // The pointers, the scalar slots they may point into and the arrays live in one block that
    // the closure shares, so copying the closure never invalidates them.
    struct Bound {
      std::vector<ArgValue> args;
      std::vector<void*> ptrs;
      std::vector<uint64_t> slots;
      std::shared_ptr<JitModule> keep;
    };
    auto b = std::make_shared<Bound>();
    b->args = args;
    b->ptrs.resize(args.size());
    b->slots.resize(args.size());
    b->keep = jit_;
    for (size_t i = 0; i < args.size(); ++i) {
      if (sig.args[i].kind == ArgSpec::Kind::Buffer) {
        b->ptrs[i] = std::get<NDArray>(args[i]).data();
      } else {
        encode_scalar(sig.args[i], args[i], &b->slots[i]);
        b->ptrs[i] = &b->slots[i];
      }
    }
    CompiledFn fn = it->second.fn;
    return [fn, b] { fn(b->ptrs.data()); };
  }

  std::string get_source(const std::string& format) const override {
    MINITVM_RUNTIME_CHECK(format.empty() || format == "ll" || format == "llvm")
        << "llvm module: unknown source format '" << format << "' (use \"ll\")";
    return ir_;
  }

  std::vector<std::string> function_names() const override { return names_; }

  void save(const std::string& path) const override {
    std::ofstream out(path, std::ios::binary);
    MINITVM_RUNTIME_CHECK(out) << "cannot write " << path;
    out << ir_;
    MINITVM_RUNTIME_CHECK(out.good()) << "error writing " << path;
  }

 private:
  struct Entry {
    FunctionSignature sig;
    CompiledFn fn = nullptr;
  };
  std::shared_ptr<JitModule> jit_;
  std::string ir_;
  std::vector<std::string> names_;
  std::map<std::string, Entry> entries_;
};

}  // namespace

Module make_llvm_module(std::shared_ptr<JitModule> jit, std::vector<FunctionSignature> functions,
                        std::string llvm_ir_text) {
  MINITVM_ICHECK(jit) << "make_llvm_module: null JIT module";
  return Module(std::make_shared<LlvmModuleNode>(std::move(jit), std::move(functions),
                                                 std::move(llvm_ir_text)));
}

}  // namespace minitvm::runtime::cpu
