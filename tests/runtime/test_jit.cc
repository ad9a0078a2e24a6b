// The LLVM JIT, driven by modules built by hand with IRBuilder in the calling convention of
// module.h: `void NAME(void* const* args)`.
#include <gtest/gtest.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cmath>

#include "minitvm/runtime/module.h"
#include "minitvm/runtime/thread_pool.h"
#include "minitvm/support/logging.h"
#include "runtime/cpu/jit.h"

using namespace minitvm;
using runtime::ArgSpec;
using runtime::FunctionSignature;
using runtime::NDArray;

namespace {

struct Built {
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> mod;
};

// void NAME(void* const* args): C[i] = A[i] + B[i] * scale for i < n, where args = {A, B, C, &n}
// (n int32) and scale is a compile-time constant (so two modules can differ).
Built build_vadd(const std::string& name, float scale) {
  Built b;
  b.ctx = std::make_unique<llvm::LLVMContext>();
  auto& C = *b.ctx;
  b.mod = std::make_unique<llvm::Module>(name + "_module", C);
  llvm::IRBuilder<> ir(C);
  auto* ptr = llvm::PointerType::getUnqual(C);
  auto* fty = llvm::FunctionType::get(ir.getVoidTy(), {ptr}, false);
  auto* f = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, b.mod.get());
  auto* entry = llvm::BasicBlock::Create(C, "entry", f);
  auto* loop = llvm::BasicBlock::Create(C, "loop", f);
  auto* exit = llvm::BasicBlock::Create(C, "exit", f);
  ir.SetInsertPoint(entry);
  llvm::Value* args = f->getArg(0);
  auto arg = [&](int i) { return ir.CreateLoad(ptr, ir.CreateConstGEP1_64(ptr, args, i)); };
  llvm::Value *A = arg(0), *B = arg(1), *Cp = arg(2);
  llvm::Value* n = ir.CreateSExt(ir.CreateLoad(ir.getInt32Ty(), arg(3)), ir.getInt64Ty());
  ir.CreateCondBr(ir.CreateICmpSGT(n, ir.getInt64(0)), loop, exit);
  ir.SetInsertPoint(loop);
  auto* i = ir.CreatePHI(ir.getInt64Ty(), 2);
  i->addIncoming(ir.getInt64(0), entry);
  auto* fty32 = ir.getFloatTy();
  llvm::Value* a = ir.CreateLoad(fty32, ir.CreateInBoundsGEP(fty32, A, i));
  llvm::Value* bv = ir.CreateLoad(fty32, ir.CreateInBoundsGEP(fty32, B, i));
  llvm::Value* sum = ir.CreateFAdd(a, ir.CreateFMul(bv, llvm::ConstantFP::get(fty32, scale)));
  ir.CreateStore(sum, ir.CreateInBoundsGEP(fty32, Cp, i));
  llvm::Value* next = ir.CreateAdd(i, ir.getInt64(1), "", true, true);
  i->addIncoming(next, loop);
  ir.CreateCondBr(ir.CreateICmpSLT(next, n), loop, exit);
  ir.SetInsertPoint(exit);
  ir.CreateRetVoid();
  return b;
}

FunctionSignature vadd_sig(const std::string& name, int64_t n) {
  DataType f32 = DataType::Float(32);
  return {name,
          {{"A", ArgSpec::Kind::Buffer, f32, {n}},
           {"B", ArgSpec::Kind::Buffer, f32, {n}},
           {"C", ArgSpec::Kind::Buffer, f32, {n}},
           {"n", ArgSpec::Kind::Scalar, DataType::Int(32), {}}}};
}

std::vector<float> iota_f(int n, float start, float step) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + step * i;
  return v;
}

}  // namespace

TEST(Jit, HandBuiltVectorAddThroughPackedFunc) {
  const int n = 1003;  // not a multiple of any vector width: exercises the epilogue
  auto b = build_vadd("vadd", 1.0f);
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    b.mod->print(os, nullptr);
  }
  auto jit = runtime::cpu::jit_compile(std::move(b.mod), std::move(b.ctx));
  runtime::Module m = runtime::cpu::make_llvm_module(jit, {vadd_sig("vadd", n)}, text);
  EXPECT_EQ(m.type_key(), "llvm");
  EXPECT_EQ(m.function_names(), std::vector<std::string>{"vadd"});
  EXPECT_NE(m.get_source().find("define void @vadd(ptr"), std::string::npos);
  auto av = iota_f(n, 0.5f, 0.25f), bv = iota_f(n, -3.0f, 1.5f);
  NDArray A = NDArray::from_vector(av, {n}), B = NDArray::from_vector(bv, {n});
  NDArray C = NDArray::empty({n}, DataType::Float(32));
  m.get_function("vadd")(A, B, C, n);
  auto out = C.to_vector<float>();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], av[i] + bv[i]) << i;
  // The scalar bound really reaches the code: n = 10 only touches the first 10 elements.
  NDArray D = NDArray::from_vector(std::vector<float>(n, -1.0f), {n});
  m.get_function("vadd")(A, B, D, 10);
  auto d = D.to_vector<float>();
  EXPECT_EQ(d[9], av[9] + bv[9]);
  EXPECT_EQ(d[10], -1.0f);
}

TEST(Jit, ArgumentMismatchIsAnErrorNotACrash) {
  auto b = build_vadd("vadd", 1.0f);
  auto jit = runtime::cpu::jit_compile(std::move(b.mod), std::move(b.ctx));
  runtime::Module m = runtime::cpu::make_llvm_module(jit, {vadd_sig("vadd", 16)}, "");
  NDArray A = NDArray::empty({16}, DataType::Float(32));
  NDArray Bad = NDArray::empty({16}, DataType::Float(64));
  try {
    m.get_function("vadd")(A, A, Bad, 16);
    FAIL() << "no throw";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(),
                 "vadd: argument 2 'C' expects float32[16] on cpu(0), got float64[16] on cpu(0)");
  }
}

TEST(Jit, ModulesAreIsolatedAndOutliveTheirHandles) {
  const int n = 8;
  auto b1 = build_vadd("same_name", 1.0f);
  auto b2 = build_vadd("same_name", 10.0f);  // same symbol in a second module
  runtime::PackedFunc f1, f2;
  {
    runtime::Module m1 = runtime::cpu::make_llvm_module(
        runtime::cpu::jit_compile(std::move(b1.mod), std::move(b1.ctx)), {vadd_sig("same_name", n)},
        "");
    runtime::Module m2 = runtime::cpu::make_llvm_module(
        runtime::cpu::jit_compile(std::move(b2.mod), std::move(b2.ctx)), {vadd_sig("same_name", n)},
        "");
    f1 = m1.get_function("same_name");
    f2 = m2.get_function("same_name");
  }  // modules gone; the PackedFuncs keep their code alive
  NDArray A = NDArray::from_vector(std::vector<float>(n, 1.0f), {n});
  NDArray B = NDArray::from_vector(std::vector<float>(n, 2.0f), {n});
  NDArray C = NDArray::empty({n}, DataType::Float(32));
  f1(A, B, C, n);
  EXPECT_EQ(C.to_vector<float>()[n - 1], 3.0f);
  f2(A, B, C, n);
  EXPECT_EQ(C.to_vector<float>()[n - 1], 21.0f);
}

TEST(Jit, ManyModulesCompileAndRelease) {
  // Each module's code is released with its last handle; compiling many in a row must not fail.
  WarningCapture warnings;
  const int64_t baseline = runtime::cpu::jit_live_modules();
  for (int k = 0; k < 20; ++k) {
    auto b = build_vadd("loop_fn", float(k));
    auto jit = runtime::cpu::jit_compile(std::move(b.mod), std::move(b.ctx));
    auto* fn = reinterpret_cast<void (*)(void* const*)>(jit->lookup("loop_fn"));
    ASSERT_NE(fn, nullptr);
    float a = 1, bb = 2, c = 0;
    int32_t n = 1;
    void* args[] = {&a, &bb, &c, &n};
    fn(args);
    EXPECT_EQ(c, 1 + 2 * float(k));
    EXPECT_EQ(jit->lookup("not_defined"), nullptr);
    EXPECT_EQ(runtime::cpu::jit_live_modules(), baseline + 1);
  }
  EXPECT_EQ(runtime::cpu::jit_live_modules(), baseline);
  EXPECT_TRUE(warnings.messages().empty());
}

namespace {
extern "C" int32_t test_helper_triple(int32_t x) {
  return 3 * x;
}
}  // namespace

TEST(Jit, DefinedSymbolsResolveInLaterModules) {
  runtime::cpu::jit_define_symbol("minitvm_test_triple",
                                  reinterpret_cast<void*>(&test_helper_triple));
  EXPECT_THROW(runtime::cpu::jit_define_symbol("minitvm_test_triple", nullptr), CompileError);
  const std::string ir =
      "declare i32 @minitvm_test_triple(i32)\n"
      "define void @use_helper(ptr %args) {\n"
      "  %p = load ptr, ptr %args\n  %x = load i32, ptr %p\n"
      "  %y = call i32 @minitvm_test_triple(i32 %x)\n  store i32 %y, ptr %p\n  ret void\n}\n";
  FunctionSignature sig{"use_helper", {{"X", ArgSpec::Kind::Buffer, DataType::Int(32), {1}}}};
  runtime::Module m = runtime::cpu::make_llvm_module(runtime::cpu::jit_compile_ir(ir), {sig}, ir);
  NDArray X = NDArray::from_vector(std::vector<int32_t>{14}, {1});
  m.get_function("use_helper")(X);
  EXPECT_EQ(X.to_vector<int32_t>()[0], 42);
}

TEST(Jit, TextIrCompilesAndCallsLibm) {
  const std::string ir = R"(
declare float @expf(float)
define void @apply_exp(ptr %args) {
entry:
  %p0 = load ptr, ptr %args
  %x = load float, ptr %p0
  %y = call float @expf(float %x)
  store float %y, ptr %p0
  ret void
}
)";
  FunctionSignature sig{"apply_exp", {{"X", ArgSpec::Kind::Buffer, DataType::Float(32), {1}}}};
  runtime::Module m = runtime::cpu::make_llvm_module(runtime::cpu::jit_compile_ir(ir), {sig}, ir);
  NDArray X = NDArray::from_vector(std::vector<float>{1.0f}, {1});
  m.get_function("apply_exp")(X);
  EXPECT_FLOAT_EQ(X.to_vector<float>()[0], std::exp(1.0f));
  EXPECT_EQ(m.get_source("ll"), ir);
  EXPECT_THROW(m.get_source("ptx"), RuntimeError);
}

TEST(Jit, BadIrIsACompileError) {
  try {
    runtime::cpu::jit_compile_ir("define void @f( {", "broken");
    FAIL() << "no throw";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot parse LLVM IR: broken:1:"), std::string::npos)
        << e.what();
  }
  // Verifier failure: a block without a terminator.
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto mod = std::make_unique<llvm::Module>("bad", *ctx);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(*ctx), false),
                                   llvm::Function::ExternalLinkage, "g", mod.get());
  llvm::BasicBlock::Create(*ctx, "entry", f);
  try {
    runtime::cpu::jit_compile(std::move(mod), std::move(ctx));
    FAIL() << "no throw";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("LLVM module 'bad' is invalid"), std::string::npos)
        << e.what();
  }
  // An unresolvable external symbol fails when the module is built, not when it is called.
  const std::string ir =
      "declare void @no_such_helper()\n"
      "define void @h(ptr %a) {\n  call void @no_such_helper()\n  ret void\n}\n";
  FunctionSignature sig{"h", {}};
  EXPECT_THROW(runtime::cpu::make_llvm_module(runtime::cpu::jit_compile_ir(ir), {sig}, ir),
               CompileError);
}

TEST(Jit, OptimisedLoopUsesVectorInstructions) {
  auto b = build_vadd("vec", 1.0f);
  std::string text;
  llvm::raw_string_ostream os(text);
  b.mod->print(os, nullptr);
  std::string opt = runtime::cpu::jit_optimized_ir(os.str());
  // Every x86-64/AArch64 host has at least 4 float lanes.
  EXPECT_TRUE(opt.find("x float>") != std::string::npos) << opt;
  EXPECT_FALSE(runtime::cpu::jit_target_description().empty());
}

namespace {
// void pfill(void* const* args): parallel over n tasks, X[t] = t * t via minitvm_parallel_for,
// where the body is a second function receiving `args` as its closure.
Built build_parallel_fill() {
  Built b;
  b.ctx = std::make_unique<llvm::LLVMContext>();
  auto& C = *b.ctx;
  b.mod = std::make_unique<llvm::Module>("pfill_module", C);
  llvm::IRBuilder<> ir(C);
  auto* ptr = llvm::PointerType::getUnqual(C);
  auto* body_ty = llvm::FunctionType::get(ir.getVoidTy(), {ir.getInt64Ty(), ptr}, false);
  auto* body =
      llvm::Function::Create(body_ty, llvm::Function::InternalLinkage, "pfill_body", b.mod.get());
  ir.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", body));
  llvm::Value* t = body->getArg(0);
  llvm::Value* X = ir.CreateLoad(ptr, body->getArg(1));
  llvm::Value* sq = ir.CreateMul(t, t);
  ir.CreateStore(sq, ir.CreateInBoundsGEP(ir.getInt64Ty(), X, t));
  ir.CreateRetVoid();

  auto* pf_ty = llvm::FunctionType::get(ir.getInt32Ty(), {ir.getInt64Ty(), ptr, ptr}, false);
  auto pf = b.mod->getOrInsertFunction("minitvm_parallel_for", pf_ty);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(ir.getVoidTy(), {ptr}, false),
                                   llvm::Function::ExternalLinkage, "pfill", b.mod.get());
  ir.SetInsertPoint(llvm::BasicBlock::Create(C, "entry", f));
  llvm::Value* args = f->getArg(0);
  llvm::Value* n =
      ir.CreateLoad(ir.getInt64Ty(), ir.CreateLoad(ptr, ir.CreateConstGEP1_64(ptr, args, 1)));
  ir.CreateCall(pf, {n, body, args});
  ir.CreateRetVoid();
  return b;
}
}  // namespace

TEST(Jit, ParallelLoopRunsOnThreadPool) {
  const int64_t n = 5000;
  auto b = build_parallel_fill();
  runtime::Module m =
      runtime::cpu::make_llvm_module(runtime::cpu::jit_compile(std::move(b.mod), std::move(b.ctx)),
                                     {{"pfill",
                                       {{"X", ArgSpec::Kind::Buffer, DataType::Int(64), {n}},
                                        {"n", ArgSpec::Kind::Scalar, DataType::Int(64), {}}}}},
                                     "");
  NDArray X = NDArray::from_vector(std::vector<int64_t>(n, -1), {n});
  m.get_function("pfill")(X, n);
  auto x = X.to_vector<int64_t>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(x[i], i * i) << i;
}
