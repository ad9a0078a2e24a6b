// CodeGenLLVM: expressions (constants, arithmetic, comparisons, casts, vectors) and memory access.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/PatternMatch.h>

#include <bit>
#include <cstring>
#include <optional>

#include "codegen/llvm/codegen_llvm.h"
#include "minitvm/ir/arith.h"
#include "minitvm/support/error.h"

namespace minitvm::codegen {

using namespace ir;

namespace {
/** Round a float to the nearest bfloat16 (ties to even), as a float; NaN stays NaN. */
float round_to_bf16(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    bits |= 0x00400000u;
  } else {
    bits += 0x7fffu + ((bits >> 16) & 1u);
  }
  return std::bit_cast<float>(bits & 0xffff0000u);
}
}  // namespace

llvm::Value* CodeGenLLVM::emit(const Expr& e) {
  MINITVM_ICHECK(e.defined()) << "LLVM codegen: undefined expression";
  switch (e->kind()) {
#define MINITVM_CASE(N) \
  case NodeKind::N:     \
    return emit_node(static_cast<const N##Node*>(e.get()));
    MINITVM_FOR_EACH_EXPR(MINITVM_CASE)
#undef MINITVM_CASE
    default:
      MINITVM_INTERNAL_ERROR << "LLVM codegen: not an expression";
  }
  return nullptr;
}

// ---- bfloat16 helpers: registers hold float values exactly representable in bfloat16 ----------
llvm::Value* CodeGenLLVM::round_bf16(llvm::Value* f) {
  llvm::Type* it = f->getType()->isVectorTy()
                       ? static_cast<llvm::Type*>(llvm::VectorType::get(
                             i32_, llvm::cast<llvm::VectorType>(f->getType())))
                       : i32_;
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(it, v); };
  llvm::Value* bits = builder_->CreateBitCast(f, it);
  llvm::Value* lsb = builder_->CreateAnd(builder_->CreateLShr(bits, c(16)), c(1));
  llvm::Value* rounded = builder_->CreateAdd(builder_->CreateAdd(bits, c(0x7fff)), lsb);
  llvm::Value* quiet = builder_->CreateOr(bits, c(0x00400000));
  llvm::Value* is_nan = builder_->CreateFCmpUNO(f, f);
  llvm::Value* r =
      builder_->CreateAnd(builder_->CreateSelect(is_nan, quiet, rounded), c(0xffff0000u));
  return builder_->CreateBitCast(r, f->getType());
}

llvm::Value* CodeGenLLVM::bf16_from_bits(llvm::Value* bits16) {
  llvm::Type* it = i32_;
  llvm::Type* ft = llvm::Type::getFloatTy(ctx_);
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(bits16->getType())) {
    it = llvm::VectorType::get(i32_, vt);
    ft = llvm::VectorType::get(ft, vt);
  }
  llvm::Value* w =
      builder_->CreateShl(builder_->CreateZExt(bits16, it), llvm::ConstantInt::get(it, 16));
  return builder_->CreateBitCast(w, ft);
}

llvm::Value* CodeGenLLVM::bf16_to_bits(llvm::Value* f) {
  llvm::Type* it = i32_;
  llvm::Type* ht = llvm::Type::getInt16Ty(ctx_);
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(f->getType())) {
    it = llvm::VectorType::get(i32_, vt);
    ht = llvm::VectorType::get(ht, vt);
  }
  llvm::Value* bits = builder_->CreateBitCast(round_bf16(f), it);
  return builder_->CreateTrunc(builder_->CreateLShr(bits, llvm::ConstantInt::get(it, 16)), ht);
}

llvm::Value* CodeGenLLVM::fix_precision(DataType t, llvm::Value* v) {
  return t.is_bfloat() ? round_bf16(v) : v;
}

llvm::Value* CodeGenLLVM::to_memory(DataType t, llvm::Value* v) {
  if (t.is_bool()) return builder_->CreateZExt(v, storage_type(t));
  if (t.is_bfloat()) return bf16_to_bits(v);
  return v;
}

llvm::Value* CodeGenLLVM::from_memory(DataType t, llvm::Value* v) {
  if (t.is_bool()) return builder_->CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  if (t.is_bfloat()) return bf16_from_bits(v);
  return v;
}

// ---- leaves ------------------------------------------------------------------------------------
llvm::Value* CodeGenLLVM::emit_node(const IntImmNode* op) {
  return const_int(op->dtype, op->value);
}

llvm::Value* CodeGenLLVM::emit_node(const FloatImmNode* op) {
  if (op->dtype.is_bfloat())
    return llvm::ConstantFP::get(llvm_type(op->dtype),
                                 round_to_bf16(static_cast<float>(op->value)));
  return llvm::ConstantFP::get(llvm_type(op->dtype), op->value);
}

llvm::Value* CodeGenLLVM::emit_node(const StringImmNode* op) {
  return builder_->CreateGlobalString(op->value, ".str", 0, &module_);
}

llvm::Value* CodeGenLLVM::emit_node(const VarNode* op) {
  auto it = vars_.find(op);
  MINITVM_ICHECK(it != vars_.end()) << "LLVM codegen: variable '" << op->name_hint << "' used in '"
                                    << func_name_ << "' is not defined there";
  return it->second;
}

llvm::Value* CodeGenLLVM::emit_node(const CastNode* op) {
  return emit_cast(op->value.dtype(), op->dtype, emit(op->value));
}

llvm::Value* CodeGenLLVM::emit_cast(DataType from, DataType to, llvm::Value* v) {
  if (from == to) return v;
  if (from.lanes() != to.lanes()) {
    MINITVM_ICHECK(from.is_scalar()) << "cast " << from << " -> " << to;
    return builder_->CreateVectorSplat(to.lanes(), emit_cast(from, to.element_of(), v));
  }
  llvm::Type* dst = llvm_type(to);
  if (to.is_bool()) {
    if (from.is_floating())
      return builder_->CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    if (from.is_handle()) return builder_->CreateIsNotNull(v);
    return builder_->CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (from.is_handle() || to.is_handle()) {
    if (from.is_handle() && to.is_integral()) return builder_->CreatePtrToInt(v, dst);
    if (to.is_handle() && from.is_integral()) return builder_->CreateIntToPtr(v, dst);
    MINITVM_USER_ERROR << "LLVM codegen: cannot cast " << from << " to " << to;
  }
  if (from.is_integral()) {
    const bool is_signed = from.is_int();  // bool and uint extend with zeros
    if (to.is_integral()) return builder_->CreateIntCast(v, dst, is_signed);
    llvm::Value* f = is_signed ? builder_->CreateSIToFP(v, dst) : builder_->CreateUIToFP(v, dst);
    return fix_precision(to, f);
  }
  // from a float type
  if (to.is_integral())
    return to.is_int() ? builder_->CreateFPToSI(v, dst) : builder_->CreateFPToUI(v, dst);
  llvm::Value* f = builder_->CreateFPCast(v, dst);
  return fix_precision(to, f);
}

// ---- arithmetic --------------------------------------------------------------------------------
llvm::Value* CodeGenLLVM::emit_node(const AddNode* op) {
  llvm::Value *a = emit(op->a), *b = emit(op->b);
  if (op->dtype.is_floating()) return fix_precision(op->dtype, builder_->CreateFAdd(a, b));
  return builder_->CreateAdd(a, b, "", false, op->dtype.is_int());
}
llvm::Value* CodeGenLLVM::emit_node(const SubNode* op) {
  llvm::Value *a = emit(op->a), *b = emit(op->b);
  if (op->dtype.is_floating()) return fix_precision(op->dtype, builder_->CreateFSub(a, b));
  return builder_->CreateSub(a, b, "", false, op->dtype.is_int());
}
llvm::Value* CodeGenLLVM::emit_node(const MulNode* op) {
  llvm::Value *a = emit(op->a), *b = emit(op->b);
  if (op->dtype.is_floating()) return fix_precision(op->dtype, builder_->CreateFMul(a, b));
  return builder_->CreateMul(a, b, "", false, op->dtype.is_int());
}
llvm::Value* CodeGenLLVM::emit_node(const DivNode* op) {
  llvm::Value *a = emit(op->a), *b = emit(op->b);
  if (op->dtype.is_floating()) return fix_precision(op->dtype, builder_->CreateFDiv(a, b));
  return op->dtype.is_int() ? builder_->CreateSDiv(a, b) : builder_->CreateUDiv(a, b);
}
llvm::Value* CodeGenLLVM::emit_node(const ModNode* op) {
  llvm::Value *a = emit(op->a), *b = emit(op->b);
  if (op->dtype.is_floating()) return fix_precision(op->dtype, builder_->CreateFRem(a, b));
  return op->dtype.is_int() ? builder_->CreateSRem(a, b) : builder_->CreateURem(a, b);
}
llvm::Value* CodeGenLLVM::emit_node(const FloorDivNode* op) {
  return emit_floordiv(op->dtype, emit(op->a), emit(op->b), false);
}
llvm::Value* CodeGenLLVM::emit_node(const FloorModNode* op) {
  return emit_floordiv(op->dtype, emit(op->a), emit(op->b), true);
}

llvm::Value* CodeGenLLVM::emit_floordiv(DataType t, llvm::Value* a, llvm::Value* b, bool want_mod) {
  if (t.is_floating()) {
    llvm::Value* q = fix_precision(t, builder_->CreateFDiv(a, b));
    q = builder_->CreateUnaryIntrinsic(llvm::Intrinsic::floor, q);
    if (!want_mod) return q;
    return fix_precision(t, builder_->CreateFSub(a, fix_precision(t, builder_->CreateFMul(q, b))));
  }
  if (!t.is_int()) return want_mod ? builder_->CreateURem(a, b) : builder_->CreateUDiv(a, b);
  // Truncating quotient and remainder, then step down by one when the remainder is non-zero and
  // its sign differs from the divisor's.
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* r = builder_->CreateSRem(a, b);
  llvm::Value* adjust = builder_->CreateAnd(
      builder_->CreateICmpNE(r, zero), builder_->CreateICmpSLT(builder_->CreateXor(r, b), zero));
  if (want_mod) return builder_->CreateSelect(adjust, builder_->CreateAdd(r, b), r);
  llvm::Value* q = builder_->CreateSDiv(a, b);
  return builder_->CreateAdd(q, builder_->CreateSExt(adjust, q->getType()));
}

llvm::Value* CodeGenLLVM::emit_node(const MinNode* op) {
  llvm::Value *a = emit(op->a), *b = emit(op->b);
  return builder_->CreateSelect(emit_compare(NodeKind::LT, op->a.dtype(), a, b), a, b);
}
llvm::Value* CodeGenLLVM::emit_node(const MaxNode* op) {
  llvm::Value *a = emit(op->a), *b = emit(op->b);
  return builder_->CreateSelect(emit_compare(NodeKind::GT, op->a.dtype(), a, b), a, b);
}

// ---- comparisons and logic ---------------------------------------------------------------------
llvm::Value* CodeGenLLVM::emit_compare(NodeKind k, DataType t, llvm::Value* a, llvm::Value* b) {
  using P = llvm::CmpInst::Predicate;
  if (t.is_floating()) {
    P p = k == NodeKind::EQ   ? P::FCMP_OEQ
          : k == NodeKind::NE ? P::FCMP_UNE
          : k == NodeKind::LT ? P::FCMP_OLT
          : k == NodeKind::LE ? P::FCMP_OLE
          : k == NodeKind::GT ? P::FCMP_OGT
                              : P::FCMP_OGE;
    return builder_->CreateFCmp(p, a, b);
  }
  const bool s = t.is_int();
  P p = k == NodeKind::EQ   ? P::ICMP_EQ
        : k == NodeKind::NE ? P::ICMP_NE
        : k == NodeKind::LT ? (s ? P::ICMP_SLT : P::ICMP_ULT)
        : k == NodeKind::LE ? (s ? P::ICMP_SLE : P::ICMP_ULE)
        : k == NodeKind::GT ? (s ? P::ICMP_SGT : P::ICMP_UGT)
                            : (s ? P::ICMP_SGE : P::ICMP_UGE);
  return builder_->CreateICmp(p, a, b);
}

#define MINITVM_CMP(N)                                                         \
  llvm::Value* CodeGenLLVM::emit_node(const N##Node* op) {                     \
    return emit_compare(NodeKind::N, op->a.dtype(), emit(op->a), emit(op->b)); \
  }
MINITVM_CMP(EQ)
MINITVM_CMP(NE)
MINITVM_CMP(LT)
MINITVM_CMP(LE)
MINITVM_CMP(GT)
MINITVM_CMP(GE)
#undef MINITVM_CMP

llvm::Value* CodeGenLLVM::emit_node(const AndNode* op) {
  return builder_->CreateAnd(emit(op->a), emit(op->b));
}
llvm::Value* CodeGenLLVM::emit_node(const OrNode* op) {
  return builder_->CreateOr(emit(op->a), emit(op->b));
}
llvm::Value* CodeGenLLVM::emit_node(const NotNode* op) {
  return builder_->CreateNot(emit(op->a));
}

llvm::Value* CodeGenLLVM::emit_node(const SelectNode* op) {
  // A float min/max operand is frozen: otherwise InstCombine merges `select(c, x, max(x, y))`
  // into one select on `c || x > y`, and x86 loses its minps/maxps (max pooling's NaN-aware
  // combine `isnan(x) ? x : max(x, y)` becomes two compares, a mask or and a blend instead of
  // one compare, a maxps and a blend). Freeze is the identity on these values.
  auto operand = [&](const Expr& e) {
    llvm::Value* v = emit(e);
    bool minmax = e->kind() == NodeKind::Max || e->kind() == NodeKind::Min;
    return minmax && e.dtype().is_floating() ? builder_->CreateFreeze(v) : v;
  };
  llvm::Value* c = emit(op->condition);
  llvm::Value* t = operand(op->true_value);
  llvm::Value* f = operand(op->false_value);
  return builder_->CreateSelect(c, t, f);
}

llvm::Value* CodeGenLLVM::emit_node(const LetNode* op) {
  llvm::Value* v = emit(op->value);
  ScopedBind bind(this, op->var.get(), v);
  return emit(op->body);
}

// ---- vectors -----------------------------------------------------------------------------------
llvm::Value* CodeGenLLVM::emit_node(const RampNode* op) {
  DataType et = op->base.dtype();
  std::vector<llvm::Constant*> steps;
  for (int i = 0; i < op->lanes; ++i) {
    if (et.is_floating())
      steps.push_back(llvm::ConstantFP::get(llvm_type(et), i));
    else
      steps.push_back(llvm::ConstantInt::get(llvm_type(et), i));
  }
  llvm::Value* iota = llvm::ConstantVector::get(steps);
  llvm::Value* base = builder_->CreateVectorSplat(op->lanes, emit(op->base));
  llvm::Value* stride = builder_->CreateVectorSplat(op->lanes, emit(op->stride));
  if (et.is_floating()) return builder_->CreateFAdd(base, builder_->CreateFMul(stride, iota));
  return builder_->CreateAdd(base, builder_->CreateMul(stride, iota, "", false, et.is_int()), "",
                             false, et.is_int());
}

llvm::Value* CodeGenLLVM::emit_node(const BroadcastNode* op) {
  return builder_->CreateVectorSplat(op->lanes, emit(op->value));
}

// ---- memory ------------------------------------------------------------------------------------
llvm::Value* CodeGenLLVM::buffer_ptr(const Var& buffer_var) {
  llvm::Value* p = emit_node(buffer_var.get());
  MINITVM_ICHECK(p->getType()->isPointerTy()) << "LLVM codegen: '" << buffer_var->name_hint
                                              << "' in '" << func_name_ << "' is not a buffer";
  return p;
}

llvm::Value* CodeGenLLVM::element_address(llvm::Value* base, DataType elem, const Expr& index) {
  llvm::Value* idx = emit(index);
  DataType it = index.dtype();
  MINITVM_ICHECK(it.is_integral()) << "LLVM codegen: index of type " << it;
  llvm::Type* i64 = it.is_vector()
                        ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(i64_, it.lanes()))
                        : i64_;
  if (it.bits() != 64) idx = builder_->CreateIntCast(idx, i64, it.is_int());
  return builder_->CreateInBoundsGEP(storage_type(elem), base, idx);
}

namespace {
/** A vector index as base + stride * lane, when it is one (Ramp, Broadcast and their sums and
 *  products with broadcasts, e.g. `ramp(x, 1, 8) + broadcast(y, 8)`). */
struct RampForm {
  Expr base, stride;
};
std::optional<RampForm> ramp_form(const Expr& e) {
  if (auto* r = e.as<RampNode>()) return RampForm{r->base, r->stride};
  if (auto* b = e.as<BroadcastNode>()) return RampForm{b->value, make_zero(b->value.dtype())};
  auto both = [](const Expr& x, const Expr& y) -> std::optional<std::pair<RampForm, RampForm>> {
    auto fx = ramp_form(x);
    if (!fx) return std::nullopt;
    auto fy = ramp_form(y);
    if (!fy) return std::nullopt;
    return std::make_pair(*fx, *fy);
  };
  if (auto* a = e.as<AddNode>()) {
    if (auto p = both(a->a, a->b))
      return RampForm{p->first.base + p->second.base, p->first.stride + p->second.stride};
  } else if (auto* s = e.as<SubNode>()) {
    if (auto p = both(s->a, s->b))
      return RampForm{p->first.base - p->second.base, p->first.stride - p->second.stride};
  } else if (auto* m = e.as<MulNode>()) {
    auto* bx = m->b.as<BroadcastNode>();
    const Expr* other = &m->a;
    if (!bx) {
      bx = m->a.as<BroadcastNode>();
      other = &m->b;
    }
    if (bx) {
      if (auto f = ramp_form(*other)) return RampForm{f->base * bx->value, f->stride * bx->value};
    }
  }
  return std::nullopt;
}

/** The base of a dense (stride 1) vector index, or an undefined Expr. */
Expr dense_base(const Expr& index) {
  if (!index.dtype().is_vector()) return Expr();
  auto f = ramp_form(index);
  return f && is_one(f->stride) ? f->base : Expr();
}
bool always_true(const Expr& pred) {
  return !pred.defined() || is_one(pred);
}

/** Lane offsets of a vector index that one dense access of at most 4 elements per lane covers
 *  (strides up to 4, reversed or repeated lanes): cheaper as a wide load/store plus a shuffle than
 *  as a gather/scatter. */
std::optional<LaneOffsets> short_span(const Expr& index) {
  if (!index.dtype().is_vector()) return std::nullopt;
  auto lo = lane_offsets(index);
  if (!lo || lo->span() > 4 * static_cast<int64_t>(lo->offsets.size())) return std::nullopt;
  return lo;
}

/** A lane mask that is an AND of constant lane patterns and splats of scalar conditions (a split
 *  tail's `lane < c` with a tile's `row < r` of a tvm_if_then_else): the scalars, and `on` ANDed
 *  with the pattern. False for any other form. */
bool split_lane_mask(llvm::Value* m, std::vector<llvm::Value*>& scalars, std::vector<bool>& on) {
  if (auto* c = llvm::dyn_cast<llvm::Constant>(m)) {
    for (size_t i = 0; i < on.size(); ++i) {
      llvm::Constant* e = c->getAggregateElement(static_cast<unsigned>(i));
      if (!e || (!e->isOneValue() && !e->isNullValue())) return false;
      if (e->isNullValue()) on[i] = false;
    }
    return true;
  }
  if (auto* b = llvm::dyn_cast<llvm::BinaryOperator>(m);
      b && b->getOpcode() == llvm::Instruction::And)
    return split_lane_mask(b->getOperand(0), scalars, on) &&
           split_lane_mask(b->getOperand(1), scalars, on);
  // IRBuilder's splat: a shuffle of an insertelement at lane 0 with an all-zero mask
  namespace pm = llvm::PatternMatch;
  llvm::Value* s = nullptr;
  if (pm::match(m, pm::m_Shuffle(pm::m_InsertElt(pm::m_Value(), pm::m_Value(s), pm::m_ZeroInt()),
                                 pm::m_Value(), pm::m_ZeroMask()))) {
    scalars.push_back(s);
    return true;
  }
  return false;
}
}  // namespace

llvm::Value* CodeGenLLVM::emit_span_load(DataType t, llvm::Value* base, const LaneOffsets& lo,
                                         llvm::Value* mask) {
  // One load of the elements [base + min, base + max] (masked: only the elements some active lane
  // reads), then a shuffle that picks each lane's element. Elements between the lanes lie inside
  // the range the lanes themselves read, so an unmasked wide load stays in bounds.
  DataType elem = t.element_of();
  int lanes = t.lanes();
  int64_t lo_off = lo.min_offset(), span = lo.span();
  llvm::Type* st = llvm::FixedVectorType::get(storage_type(elem), static_cast<unsigned>(span));
  llvm::Align align(std::max(1, elem.bytes()));
  Expr start = lo.base + make_const(lo.base.dtype(), lo_off);
  llvm::Value* addr = element_address(base, elem, start);
  std::vector<int> pick(lanes);
  for (int i = 0; i < lanes; ++i) pick[i] = static_cast<int>(lo.offsets[i] - lo_off);
  llvm::Value* wide;
  bool shared = false;  // some element is read by several lanes
  // A mask of a constant lane pattern and scalar conditions whose pattern's lanes read one run of
  // elements [a, b]: a plain load of the run, under a branch on the scalars. A masked load would be
  // scalarized where the target has no masked load of the type (bytes, or odd counts on AVX2): a
  // max pool backward's one-byte taps and gradients, 1.9x the kernel's time on Zen 3.
  std::vector<llvm::Value*> scalars;
  std::vector<bool> on(lanes, true);
  int64_t a = 0, b = span - 1;
  bool as_run = false;
  if (mask && split_lane_mask(mask, scalars, on)) {
    std::vector<bool> need(span, false);
    for (int i = 0; i < lanes; ++i)
      if (on[i]) need[pick[i]] = true;
    while (a < span && !need[a]) ++a;
    while (b >= a && !need[b]) --b;
    as_run = true;
    for (int64_t j = a; j <= b; ++j) as_run = as_run && need[j];
  }
  if (!mask) {
    wide = builder_->CreateAlignedLoad(st, addr, align);
  } else if (as_run) {
    shared = true;  // lanes off in the pattern may read an element of the run: select below
    llvm::Value* zero = llvm::Constant::getNullValue(st);
    if (a > b) {
      wide = zero;
    } else {
      auto load_run = [&]() {
        const int64_t n = b - a + 1;
        llvm::Type* rt = llvm::FixedVectorType::get(storage_type(elem), static_cast<unsigned>(n));
        llvm::Value* part = builder_->CreateAlignedLoad(
            rt, element_address(base, elem, start + make_const(lo.base.dtype(), a)), align);
        std::vector<int> place(span);
        for (int64_t j = 0; j < span; ++j)
          place[j] = static_cast<int>(j >= a && j <= b ? j - a : n);
        return builder_->CreateShuffleVector(part, llvm::Constant::getNullValue(rt), place);
      };
      if (scalars.empty()) {
        wide = load_run();
      } else {
        llvm::Value* cond = scalars[0];
        for (size_t i = 1; i < scalars.size(); ++i) cond = builder_->CreateAnd(cond, scalars[i]);
        llvm::BasicBlock* pre = builder_->GetInsertBlock();
        auto* yes = llvm::BasicBlock::Create(ctx_, "span_yes", function_);
        auto* done = llvm::BasicBlock::Create(ctx_, "span_done", function_);
        builder_->CreateCondBr(cond, yes, done);
        builder_->SetInsertPoint(yes);
        llvm::Value* v = load_run();
        llvm::BasicBlock* from = builder_->GetInsertBlock();
        builder_->CreateBr(done);
        builder_->SetInsertPoint(done);
        auto* phi = builder_->CreatePHI(st, 2);
        phi->addIncoming(v, from);
        phi->addIncoming(zero, pre);
        wide = phi;
      }
    }
  } else {
    // element j is read when any active lane reads it: OR of one shuffle of the lane mask per
    // lane reading the same element (lanes beyond `lanes` in the shuffle index the false vector)
    std::vector<std::vector<int>> readers(span);
    for (int i = 0; i < lanes; ++i) readers[pick[i]].push_back(i);
    size_t copies = 0;
    for (auto& r : readers) copies = std::max(copies, r.size());
    shared = copies > 1;
    // (shuffled as bytes: x86 shuffles i1 vectors bit by bit)
    llvm::Value* bytes =
        builder_->CreateSExt(mask, llvm::FixedVectorType::get(builder_->getInt8Ty(), lanes));
    llvm::Value* none = llvm::Constant::getNullValue(bytes->getType());
    llvm::Value* emask = nullptr;
    for (size_t c = 0; c < copies; ++c) {
      std::vector<int> sel(span);
      for (int64_t j = 0; j < span; ++j) sel[j] = c < readers[j].size() ? readers[j][c] : lanes;
      llvm::Value* m = builder_->CreateShuffleVector(bytes, none, sel);
      emask = emask ? builder_->CreateOr(emask, m) : m;
    }
    emask = builder_->CreateICmpNE(emask, llvm::Constant::getNullValue(emask->getType()));
    wide = builder_->CreateMaskedLoad(st, addr, align, emask, llvm::Constant::getNullValue(st));
  }
  llvm::Value* v = builder_->CreateShuffleVector(wide, pick);
  // a masked-off lane may share its element with an active lane: it still reads as zero
  if (shared) v = builder_->CreateSelect(mask, v, llvm::Constant::getNullValue(v->getType()));
  return v;
}

namespace {
/** <p x i1> with the first `lanes` lanes on: the mask of a padded odd-lane access. */
llvm::Constant* prefix_mask(llvm::IRBuilder<>& b, int p, int lanes) {
  std::vector<llvm::Constant*> on(p);
  for (int i = 0; i < p; ++i) on[i] = b.getInt1(i < lanes);
  return llvm::ConstantVector::get(on);
}
}  // namespace

int CodeGenLLVM::padded_lanes(DataType t, const Var& buf) const {
  if (!masked_tails_ || !t.is_vector() || allocated_.count(buf.get())) return 0;
  const int lanes = t.lanes(), bytes = t.element_of().bytes();
  if (lanes < 3 || (lanes & (lanes - 1)) == 0) return 0;
  if (t.element_of().is_bool() || (bytes != 4 && bytes != 8)) return 0;
  int p = 1;
  while (p < lanes) p *= 2;
  return p * bytes <= 256 ? p : 0;  // at most four 512-bit registers
}

llvm::Value* CodeGenLLVM::emit_load(DataType t, const Var& buf, const Expr& index,
                                    const Expr& predicate, llvm::Value* extra_mask,
                                    llvm::Value* passthru) {
  DataType elem = t.element_of();
  llvm::Value* base = buffer_ptr(buf);
  llvm::Align align(std::max(1, elem.bytes()));
  llvm::Value* mask = extra_mask;
  if (load_mask_ && t.is_vector()) {
    MINITVM_ICHECK(llvm::cast<llvm::FixedVectorType>(load_mask_->getType())->getNumElements() ==
                   static_cast<unsigned>(t.lanes()))
        << "LLVM codegen: " << t << " load under a tvm_if_then_else of another lane count";
    mask = mask ? builder_->CreateAnd(mask, load_mask_) : load_mask_;
  } else if (load_mask_) {
    // A scalar (broadcast) load under a vector select is read when some lane takes its branch.
    llvm::Value* any = builder_->CreateOrReduce(load_mask_);
    mask = mask ? builder_->CreateAnd(mask, any) : any;
  }
  if (!always_true(predicate)) {
    llvm::Value* p = emit(predicate);
    mask = mask ? builder_->CreateAnd(mask, p) : p;
  }
  llvm::Type* st = storage_type(t);
  llvm::Value* raw;
  if (t.is_scalar()) {
    llvm::Value* addr = element_address(base, elem, index);
    if (!mask) {
      raw = builder_->CreateAlignedLoad(st, addr, align);
    } else {
      // Branch around the access so that a false predicate never touches memory.
      llvm::BasicBlock* pre = builder_->GetInsertBlock();
      auto* yes = llvm::BasicBlock::Create(ctx_, "load_yes", function_);
      auto* done = llvm::BasicBlock::Create(ctx_, "load_done", function_);
      builder_->CreateCondBr(mask, yes, done);
      builder_->SetInsertPoint(yes);
      llvm::Value* v = builder_->CreateAlignedLoad(st, addr, align);
      builder_->CreateBr(done);
      builder_->SetInsertPoint(done);
      auto* phi = builder_->CreatePHI(st, 2);
      phi->addIncoming(v, yes);
      phi->addIncoming(llvm::Constant::getNullValue(st), pre);
      raw = phi;
    }
  } else if (Expr dense = dense_base(index); dense.defined()) {
    llvm::Value* addr = element_address(base, elem, dense);
    if (mask) {
      raw = builder_->CreateMaskedLoad(st, addr, align, mask, llvm::Constant::getNullValue(st));
    } else if (int p = padded_lanes(t, buf); p > 0) {
      // The first t.lanes() of p lanes, under a constant mask: one masked load per register.
      llvm::Type* pt = llvm::FixedVectorType::get(storage_type(elem), static_cast<unsigned>(p));
      std::vector<int> first(t.lanes());
      for (int i = 0; i < t.lanes(); ++i) first[i] = i;
      llvm::Value* wide = builder_->CreateMaskedLoad(
          pt, addr, align, prefix_mask(*builder_, p, t.lanes()), llvm::PoisonValue::get(pt));
      raw = builder_->CreateShuffleVector(wide, first);
    } else {
      raw = builder_->CreateAlignedLoad(st, addr, align);
    }
  } else if (auto f = ramp_form(index); f && is_zero(f->stride) && !mask) {
    // Every lane reads the same element: one scalar load, broadcast.
    llvm::Value* addr = element_address(base, elem, f->base);
    raw = builder_->CreateVectorSplat(t.lanes(),
                                      builder_->CreateAlignedLoad(storage_type(elem), addr, align));
  } else if (auto lo = short_span(index)) {
    raw = emit_span_load(t, base, *lo, mask);
  } else {
    llvm::Value* ptrs = element_address(base, elem, index);
    raw = builder_->CreateMaskedGather(st, ptrs, align, mask, llvm::Constant::getNullValue(st));
  }
  llvm::Value* v = from_memory(t, raw);
  if (passthru && mask) v = builder_->CreateSelect(mask, v, passthru);
  return v;
}

llvm::Value* CodeGenLLVM::emit_node(const LoadNode* op) {
  return emit_load(op->dtype, op->buffer_var, op->index, op->predicate, nullptr, nullptr);
}

void CodeGenLLVM::emit_store(const StoreNode* op) {
  DataType t = op->value.dtype();
  DataType elem = t.element_of();
  MINITVM_ICHECK(op->index.dtype().lanes() == t.lanes())
      << "LLVM codegen: store of " << t << " with index of type " << op->index.dtype();
  llvm::Value* base = buffer_ptr(op->buffer_var);
  llvm::Value* value = to_memory(t, emit(op->value));
  llvm::Align align(std::max(1, elem.bytes()));
  llvm::Value* mask = always_true(op->predicate) ? nullptr : emit(op->predicate);
  if (t.is_scalar()) {
    llvm::Value* addr = element_address(base, elem, op->index);
    if (!mask) {
      builder_->CreateAlignedStore(value, addr, align);
      return;
    }
    auto* yes = llvm::BasicBlock::Create(ctx_, "store_yes", function_);
    auto* done = llvm::BasicBlock::Create(ctx_, "store_done", function_);
    builder_->CreateCondBr(mask, yes, done);
    builder_->SetInsertPoint(yes);
    builder_->CreateAlignedStore(value, addr, align);
    builder_->CreateBr(done);
    builder_->SetInsertPoint(done);
  } else if (Expr dense = dense_base(op->index); dense.defined()) {
    llvm::Value* addr = element_address(base, elem, dense);
    if (mask) {
      builder_->CreateMaskedStore(value, addr, align, mask);
    } else if (int p = padded_lanes(t, op->buffer_var); p > 0) {
      std::vector<int> widen(p);
      for (int i = 0; i < p; ++i) widen[i] = i < t.lanes() ? i : -1;  // poison lanes, not stored
      builder_->CreateMaskedStore(builder_->CreateShuffleVector(value, widen), addr, align,
                                  prefix_mask(*builder_, p, t.lanes()));
    } else if (int bytes = t.lanes() * elem.bytes();
               nontemporal_depth_ > 0 && bytes >= 16 && (bytes & (bytes - 1)) == 0) {
      emit_nontemporal_store(value, addr, align, bytes);
    } else {
      builder_->CreateAlignedStore(value, addr, align);
    }
  } else {
    llvm::Value* ptrs = element_address(base, elem, op->index);
    builder_->CreateMaskedScatter(value, ptrs, align, mask);
  }
}

// A store that bypasses the caches where its address is aligned to its size (a streaming store
// needs that alignment; LLVM emits one only for a store it knows to be aligned), an ordinary store
// elsewhere: the check is made at run time, so a misaligned buffer (an offset view) stays correct.
void CodeGenLLVM::emit_nontemporal_store(llvm::Value* value, llvm::Value* addr, llvm::Align align,
                                         int bytes) {
  llvm::Value* low = builder_->CreateAnd(builder_->CreatePtrToInt(addr, i64_),
                                         llvm::ConstantInt::get(i64_, bytes - 1));
  llvm::Value* aligned = builder_->CreateICmpEQ(low, llvm::ConstantInt::get(i64_, 0));
  auto* yes = llvm::BasicBlock::Create(ctx_, "nt_store", function_);
  auto* no = llvm::BasicBlock::Create(ctx_, "plain_store", function_);
  auto* done = llvm::BasicBlock::Create(ctx_, "store_done", function_);
  builder_->CreateCondBr(aligned, yes, no);
  builder_->SetInsertPoint(yes);
  llvm::StoreInst* st = builder_->CreateAlignedStore(value, addr, llvm::Align(bytes));
  st->setMetadata(llvm::LLVMContext::MD_nontemporal,
                  llvm::MDNode::get(ctx_, {llvm::ConstantAsMetadata::get(builder_->getInt32(1))}));
  builder_->CreateBr(done);
  builder_->SetInsertPoint(no);
  builder_->CreateAlignedStore(value, addr, align);
  builder_->CreateBr(done);
  builder_->SetInsertPoint(done);
  ++nontemporal_stores_;
}

// Tensor-level nodes must be gone before code generation.
llvm::Value* CodeGenLLVM::emit_node(const ReduceNode*) {
  MINITVM_INTERNAL_ERROR << "LLVM codegen: Reduce in '" << func_name_ << "' was not lowered";
  return nullptr;
}
llvm::Value* CodeGenLLVM::emit_node(const ProducerLoadNode*) {
  MINITVM_INTERNAL_ERROR << "LLVM codegen: ProducerLoad in '" << func_name_
                         << "': storage was not flattened";
  return nullptr;
}

}  // namespace minitvm::codegen
