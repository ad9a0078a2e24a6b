// CodeGenLLVM: calls (intrinsics, math functions, conditional evaluation, extern C functions).
#include <llvm/IR/Intrinsics.h>

#include <limits>

#include "codegen/llvm/codegen_llvm.h"
#include "minitvm/support/error.h"

namespace minitvm::codegen {

using namespace ir;

llvm::Value* CodeGenLLVM::emit_node(const CallNode* op) {
  auto arg = [&](size_t i) {
    MINITVM_ICHECK(i < op->args.size())
        << "LLVM codegen: " << op->name << " needs " << i + 1 << " arguments";
    return emit(op->args[i]);
  };
  switch (op->op) {
    case Intrinsic::Extern:
      return emit_extern(op);
    case Intrinsic::Likely:
      return arg(0);
    case Intrinsic::IfThenElse:
      return emit_if_then_else(op);
    case Intrinsic::Exp:
    case Intrinsic::Log:
    case Intrinsic::Sqrt:
    case Intrinsic::Tanh:
    case Intrinsic::Fabs:
    case Intrinsic::Floor:
    case Intrinsic::Ceil:
    case Intrinsic::Round:
    case Intrinsic::Trunc:
    case Intrinsic::Pow:
    case Intrinsic::Erf:
    case Intrinsic::Sigmoid:
    case Intrinsic::Exp2:
    case Intrinsic::Log2:
    case Intrinsic::Rsqrt:
      return emit_math(op);
    case Intrinsic::IsNan: {
      llvm::Value* x = arg(0);
      if (!op->args[0].dtype().is_floating())
        return llvm::Constant::getNullValue(llvm_type(op->dtype));
      return builder_->CreateFCmpUNO(x, x);
    }
    case Intrinsic::IsInf: {
      llvm::Value* x = arg(0);
      if (!op->args[0].dtype().is_floating())
        return llvm::Constant::getNullValue(llvm_type(op->dtype));
      llvm::Value* ax = builder_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      return builder_->CreateFCmpOEQ(ax, llvm::ConstantFP::getInfinity(x->getType()));
    }
    case Intrinsic::Reinterpret: {
      DataType from = op->args[0].dtype(), to = op->dtype;
      llvm::Value* x = arg(0);
      MINITVM_USER_CHECK(from.bits() * from.lanes() == to.bits() * to.lanes())
          << "LLVM codegen: reinterpret " << from << " as " << to << " changes the size";
      if (from.is_bfloat()) x = bf16_to_bits(x);
      if (to.is_bfloat()) {
        x = builder_->CreateBitCast(x, storage_type(to));
        return bf16_from_bits(x);
      }
      if (from.is_handle()) return builder_->CreatePtrToInt(x, llvm_type(to));
      if (to.is_handle()) return builder_->CreateIntToPtr(x, llvm_type(to));
      return builder_->CreateBitCast(x, llvm_type(to));
    }
    case Intrinsic::BitwiseAnd:
      return builder_->CreateAnd(arg(0), arg(1));
    case Intrinsic::BitwiseOr:
      return builder_->CreateOr(arg(0), arg(1));
    case Intrinsic::BitwiseXor:
      return builder_->CreateXor(arg(0), arg(1));
    case Intrinsic::BitwiseNot:
      return builder_->CreateNot(arg(0));
    case Intrinsic::ShiftLeft:
      return builder_->CreateShl(arg(0), arg(1));
    case Intrinsic::ShiftRight:
      return op->dtype.is_int() ? builder_->CreateAShr(arg(0), arg(1))
                                : builder_->CreateLShr(arg(0), arg(1));
    case Intrinsic::StorageSync:
      // No shared memory between CPU threads of one task: nothing to synchronise.
      return llvm::ConstantInt::get(i32_, 0);
    case Intrinsic::ThreadAllreduce:
      MINITVM_INTERNAL_ERROR
          << "tvm_thread_allreduce reached code generation (lower_thread_allreduce lowers it)";
      return nullptr;
    case Intrinsic::AddressOf: {
      auto* l = op->args.at(0).as<LoadNode>();
      MINITVM_ICHECK(l && l->dtype.is_scalar() && l->index.dtype().is_scalar())
          << "LLVM codegen: address_of needs a scalar load, got " << op->args.at(0);
      // index a + b: two GEPs, so that a loop-invariant a is computed once and unrolled constant
      // b's become addressing offsets (one GEP of a + b would make LLVM hoist buf + b for every b).
      if (auto* add = l->index.as<AddNode>())
        return element_address(element_address(buffer_ptr(l->buffer_var), l->dtype, add->a),
                               l->dtype, add->b);
      return element_address(buffer_ptr(l->buffer_var), l->dtype, l->index);
    }
    case Intrinsic::Prefetch: {
      // llvm.prefetch(ptr, rw, locality, cache type): a hint, it never faults.
      MINITVM_ICHECK(op->args.size() == 4) << "LLVM codegen: prefetch takes 4 arguments";
      llvm::Value* ptr = arg(0);
      std::vector<llvm::Value*> ops{ptr};
      for (size_t i = 1; i < 4; ++i) {
        auto* c = op->args[i].as<IntImmNode>();
        MINITVM_ICHECK(c) << "LLVM codegen: prefetch operand " << i << " must be a constant";
        ops.push_back(llvm::ConstantInt::get(i32_, c->value));
      }
      llvm::Function* f =
          llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::prefetch, {ptr->getType()});
      builder_->CreateCall(f, ops);
      return llvm::ConstantInt::get(i32_, 0);
    }
  }
  MINITVM_INTERNAL_ERROR << "LLVM codegen: unhandled intrinsic " << op->name;
  return nullptr;
}

llvm::Value* CodeGenLLVM::call_libm(const std::string& name, DataType t,
                                    std::vector<llvm::Value*> args) {
  // t is the compute type: float32 or float64 (scalar or vector); vectors call per lane.
  llvm::Type* et = llvm_type(t.element_of());
  std::string fname = t.bits() == 32 ? name + "f" : name;
  std::vector<llvm::Type*> ats(args.size(), et);
  auto callee = module_.getOrInsertFunction(fname, llvm::FunctionType::get(et, ats, false));
  if (t.is_scalar()) return builder_->CreateCall(callee, args);
  llvm::Value* out = llvm::PoisonValue::get(llvm_type(t));
  for (int i = 0; i < t.lanes(); ++i) {
    std::vector<llvm::Value*> lane;
    for (llvm::Value* a : args)
      lane.push_back(builder_->CreateExtractElement(a, static_cast<uint64_t>(i)));
    out = builder_->CreateInsertElement(out, builder_->CreateCall(callee, lane),
                                        static_cast<uint64_t>(i));
  }
  return out;
}

// exp(x) = 2^n * exp(r), n = round(x / ln 2), r = x - n ln 2 in [-ln 2 / 2, ln 2 / 2]: ln 2 in two
// parts (the first exact in float, so n * hi has no rounding error for |n| <= 2^9), exp(r) by
// Cephes' degree-6 minimax polynomial for float (relative error about 1e-7, within 2 ulp of
// libm), and 2^n applied as two powers of two of half the exponent each, so that n = 128 (x just
// below the overflow bound) and n down to -150 (results that round to denormals or zero) need no
// special exponent field. x is clamped to [-104, 89] first (exp is 0 below and inf above in
// float); NaN lanes pass through.
llvm::Value* CodeGenLLVM::emit_vector_expf(llvm::Value* x) {
  llvm::Type* ft = x->getType();
  auto* vt = llvm::cast<llvm::FixedVectorType>(ft);
  llvm::Type* it = llvm::FixedVectorType::get(builder_->getInt32Ty(), vt->getNumElements());
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto fma = [&](llvm::Value* a, llvm::Value* b, llvm::Value* d) {
    return builder_->CreateIntrinsic(llvm::Intrinsic::fmuladd, {ft}, {a, b, d});
  };
  llvm::Value* xc = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, c(-104.0));
  xc = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::minnum, xc, c(89.0));
  llvm::Value* n = builder_->CreateUnaryIntrinsic(llvm::Intrinsic::floor,
                                                  fma(xc, c(1.44269504088896341), c(0.5)));
  llvm::Value* r = fma(n, c(-0.693359375), xc);
  r = fma(n, c(2.12194440e-4), r);
  llvm::Value* p = c(1.9875691500e-4);
  for (double k :
       {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1})
    p = fma(p, r, c(k));
  llvm::Value* r2 = builder_->CreateFMul(r, r);
  llvm::Value* y = fma(p, r2, builder_->CreateFAdd(r, c(1.0)));
  // 2^n = 2^h * 2^(n - h), h = n >> 1; both halves in [-75, 64], normal floats.
  llvm::Value* ni = builder_->CreateFPToSI(n, it);
  llvm::Value* h = builder_->CreateAShr(ni, llvm::ConstantInt::get(it, 1));
  auto pow2 = [&](llvm::Value* e) {
    llvm::Value* bits = builder_->CreateShl(builder_->CreateAdd(e, llvm::ConstantInt::get(it, 127)),
                                            llvm::ConstantInt::get(it, 23));
    return builder_->CreateBitCast(bits, ft);
  };
  y = builder_->CreateFMul(builder_->CreateFMul(y, pow2(h)), pow2(builder_->CreateSub(ni, h)));
  return builder_->CreateSelect(builder_->CreateFCmpUNO(x, x), x, y);
}

// erf of float32 vectors (libm's erf would be one call per lane): |x| < 1 by its Taylor series
// to x^21 (truncation below 2e-9), else 1 - t P(t) exp(-x^2), t = 1 / (1 + p |x|), with
// Abramowitz and Stegun's 7.1.26 coefficients (absolute error below 1.5e-7, so relative below
// 2e-7 where erf >= 0.84); |x| clamped to 4 (erf(4) rounds to 1 in float), the sign restored, NaN
// lanes passed through.
llvm::Value* CodeGenLLVM::emit_vector_erff(llvm::Value* x) {
  llvm::Type* ft = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto fma = [&](llvm::Value* a, llvm::Value* b, llvm::Value* d) {
    return builder_->CreateIntrinsic(llvm::Intrinsic::fmuladd, {ft}, {a, b, d});
  };
  llvm::Value* ax = builder_->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  ax = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::minnum, ax, c(4.0));
  llvm::Value* z = builder_->CreateFMul(ax, ax);
  // 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)), n = 0..10, in Horner form in z = x^2.
  const double two_over_sqrt_pi = 1.1283791670955126;
  constexpr int kTerms = 11;
  double coef[kTerms];
  double fact = 1;
  for (int n = 0; n < kTerms; ++n) {
    if (n > 0) fact *= n;
    coef[n] = two_over_sqrt_pi * ((n % 2) ? -1.0 : 1.0) / (fact * (2 * n + 1));
  }
  llvm::Value* ps = c(coef[kTerms - 1]);
  for (int n = kTerms - 2; n >= 0; --n) ps = fma(ps, z, c(coef[n]));
  llvm::Value* small = builder_->CreateFMul(ax, ps);
  llvm::Value* t = builder_->CreateFDiv(c(1.0), fma(ax, c(0.3275911), c(1.0)));
  llvm::Value* pl = c(1.061405429);
  for (double k : {-1.453152027, 1.421413741, -0.284496736, 0.254829592}) pl = fma(pl, t, c(k));
  pl = builder_->CreateFMul(pl, t);
  llvm::Value* e = emit_vector_expf(builder_->CreateFNeg(z));
  llvm::Value* large = builder_->CreateFSub(c(1.0), builder_->CreateFMul(pl, e));
  llvm::Value* r = builder_->CreateSelect(builder_->CreateFCmpOLT(ax, c(1.0)), small, large);
  r = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, r, x);
  return builder_->CreateSelect(builder_->CreateFCmpUNO(x, x), x, r);
}

llvm::Value* CodeGenLLVM::emit_math(const CallNode* op) {
  DataType t = op->dtype;
  MINITVM_USER_CHECK(t.is_floating())
      << "LLVM codegen: " << op->name << " of type " << t << " (needs a float type)";
  // float16 math computes in float32 and rounds once; bfloat16 registers are float32 already.
  DataType ct = t.bits() == 64 ? t : DataType::Float(32, t.lanes());
  std::vector<llvm::Value*> args;
  for (const Expr& a : op->args) {
    MINITVM_ICHECK(a.dtype() == t)
        << "LLVM codegen: " << op->name << " argument of type " << a.dtype();
    args.push_back(emit_cast(t, ct, emit(a)));
  }
  llvm::Type* cty = llvm_type(ct);
  auto unary = [&](llvm::Intrinsic::ID id) {
    return builder_->CreateUnaryIntrinsic(id, args.at(0));
  };
  llvm::Value* one = llvm::ConstantFP::get(cty, 1.0);
  // llvm.exp of a vector becomes one expf call per lane on x86: float32 vectors get their own.
  const bool vector_f32 = ct.is_vector() && ct.bits() == 32;
  llvm::Value* r = nullptr;
  switch (op->op) {
    case Intrinsic::Exp:
      r = vector_f32 ? emit_vector_expf(args.at(0)) : unary(llvm::Intrinsic::exp);
      break;
    case Intrinsic::Exp2:
      r = unary(llvm::Intrinsic::exp2);
      break;
    case Intrinsic::Log:
      r = unary(llvm::Intrinsic::log);
      break;
    case Intrinsic::Log2:
      r = unary(llvm::Intrinsic::log2);
      break;
    case Intrinsic::Sqrt:
      r = unary(llvm::Intrinsic::sqrt);
      break;
    case Intrinsic::Fabs:
      r = unary(llvm::Intrinsic::fabs);
      break;
    case Intrinsic::Floor:
      r = unary(llvm::Intrinsic::floor);
      break;
    case Intrinsic::Ceil:
      r = unary(llvm::Intrinsic::ceil);
      break;
    case Intrinsic::Round:
      r = unary(llvm::Intrinsic::round);
      break;
    case Intrinsic::Trunc:
      r = unary(llvm::Intrinsic::trunc);
      break;
    case Intrinsic::Pow:
      r = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::pow, args.at(0), args.at(1));
      break;
    case Intrinsic::Tanh:
      r = call_libm("tanh", ct, {args.at(0)});
      break;
    case Intrinsic::Erf:
      r = vector_f32 ? emit_vector_erff(args.at(0)) : call_libm("erf", ct, {args.at(0)});
      break;
    case Intrinsic::Rsqrt:
      r = builder_->CreateFDiv(one, unary(llvm::Intrinsic::sqrt));
      break;
    case Intrinsic::Sigmoid: {
      llvm::Value* neg = builder_->CreateFNeg(args.at(0));
      llvm::Value* e = vector_f32 ? emit_vector_expf(neg)
                                  : builder_->CreateUnaryIntrinsic(llvm::Intrinsic::exp, neg);
      r = builder_->CreateFDiv(one, builder_->CreateFAdd(one, e));
      break;
    }
    default:
      MINITVM_INTERNAL_ERROR << "LLVM codegen: " << op->name << " is not a math function";
  }
  return emit_cast(ct, t, r);
}

llvm::Value* CodeGenLLVM::emit_if_then_else(const CallNode* op) {
  MINITVM_ICHECK(op->args.size() == 3) << "LLVM codegen: tvm_if_then_else takes 3 arguments";
  const Expr& c = op->args[0];
  // A scalar condition on vectors wider than a register or of no power-of-two width (48 floats of
  // a split tail that loop_partition peeled) is broadcast: branches joined by a phi of such a
  // vector made LLVM spill it lane by lane (a pooling backward ran 2.3x slower).
  const int64_t lanes = op->dtype.lanes();
  const bool odd_vector =
      lanes > 1 && ((lanes & (lanes - 1)) != 0 || op->dtype.bits() * lanes > 512);
  if (c.dtype().is_vector() || odd_vector) {
    // No per-lane branches: both branches are computed and selected, and the loads of each are
    // masked by the lanes that take it (a lane of the other branch is never read: a concat's
    // second input indexed by a first-input channel lies before its buffer).
    llvm::Value* cond = emit(c);
    if (!c.dtype().is_vector())
      cond = builder_->CreateVectorSplat(static_cast<unsigned>(op->dtype.lanes()), cond);
    llvm::Value* saved = load_mask_;
    auto under = [&](llvm::Value* m, const Expr& e) {
      load_mask_ = saved ? builder_->CreateAnd(saved, m) : m;
      llvm::Value* v = emit(e);
      load_mask_ = saved;
      return v;
    };
    llvm::Value* f = under(builder_->CreateNot(cond), op->args[2]);
    if (auto* load = op->args[1].as<LoadNode>())
      return emit_load(load->dtype, load->buffer_var, load->index, load->predicate, cond, f);
    llvm::Value* t = under(cond, op->args[1]);
    return builder_->CreateSelect(cond, t, f);
  }
  llvm::Value* cond = emit(c);
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "ite_then", function_);
  auto* else_bb = llvm::BasicBlock::Create(ctx_, "ite_else", function_);
  auto* end_bb = llvm::BasicBlock::Create(ctx_, "ite_end", function_);
  builder_->CreateCondBr(cond, then_bb, else_bb);
  builder_->SetInsertPoint(then_bb);
  llvm::Value* tv = emit(op->args[1]);
  llvm::BasicBlock* then_end = builder_->GetInsertBlock();
  builder_->CreateBr(end_bb);
  else_bb->moveAfter(then_end);
  builder_->SetInsertPoint(else_bb);
  llvm::Value* fv = emit(op->args[2]);
  llvm::BasicBlock* else_end = builder_->GetInsertBlock();
  builder_->CreateBr(end_bb);
  end_bb->moveAfter(else_end);
  builder_->SetInsertPoint(end_bb);
  llvm::PHINode* phi = builder_->CreatePHI(tv->getType(), 2);
  phi->addIncoming(tv, then_end);
  phi->addIncoming(fv, else_end);
  return phi;
}

llvm::Value* CodeGenLLVM::emit_extern(const CallNode* op) {
  DataType t = op->dtype;
  MINITVM_USER_CHECK(!t.is_bfloat() && !t.element_of().is_bool())
      << "LLVM codegen: extern call '" << op->name << "' returning " << t << " is not supported";
  std::vector<llvm::Value*> args;
  std::vector<DataType> arg_types;
  for (const Expr& a : op->args) {
    args.push_back(emit(a));
    arg_types.push_back(a.dtype());
  }
  const int lanes = t.is_void() ? 1 : t.lanes();
  // C functions are scalar: a vector call is made once per lane, vector arguments split by lane.
  std::vector<llvm::Type*> ats;
  for (size_t i = 0; i < args.size(); ++i) {
    MINITVM_USER_CHECK(arg_types[i].is_scalar() || arg_types[i].lanes() == lanes)
        << "LLVM codegen: extern call '" << op->name << "': argument " << i << " has "
        << arg_types[i].lanes() << " lanes, the call " << lanes;
    ats.push_back(llvm_type(arg_types[i].element_of()));
  }
  llvm::Type* rt = t.is_void() ? llvm::Type::getVoidTy(ctx_) : llvm_type(t.element_of());
  auto callee = module_.getOrInsertFunction(op->name, llvm::FunctionType::get(rt, ats, false));
  auto call_lane = [&](int lane) {
    std::vector<llvm::Value*> a;
    for (size_t i = 0; i < args.size(); ++i)
      a.push_back(arg_types[i].is_scalar()
                      ? args[i]
                      : builder_->CreateExtractElement(args[i], static_cast<uint64_t>(lane)));
    return builder_->CreateCall(callee, a);
  };
  if (lanes == 1) return call_lane(0);
  llvm::Value* out = llvm::PoisonValue::get(llvm_type(t));
  for (int i = 0; i < lanes; ++i)
    out = builder_->CreateInsertElement(out, call_lane(i), static_cast<uint64_t>(i));
  return out;
}

}  // namespace minitvm::codegen
