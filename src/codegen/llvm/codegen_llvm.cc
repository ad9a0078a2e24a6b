// CodeGenLLVM: types, function entry points, and statements. Expressions are in codegen_expr.cc,
// calls in codegen_intrin.cc, parallel loops in codegen_parallel.cc.
#include "codegen/llvm/codegen_llvm.h"

#include <llvm/IR/Function.h>

#include "minitvm/support/error.h"

namespace minitvm::codegen {

using namespace ir;

namespace {
/** Stack allocations above this many bytes go to the heap. */
constexpr int64_t kMaxStackAllocBytes = 64 * 1024;
/** Alignment of Allocate'd buffers (stack and heap), enough for any vector load. */
constexpr unsigned kAllocAlign = 64;
}  // namespace

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext& ctx, llvm::Module& module)
    : ctx_(ctx), module_(module), builder_(std::make_unique<llvm::IRBuilder<>>(ctx)) {
  i8_ = llvm::Type::getInt8Ty(ctx);
  i32_ = llvm::Type::getInt32Ty(ctx);
  i64_ = llvm::Type::getInt64Ty(ctx);
  ptr_ = llvm::PointerType::get(ctx, 0);
}

CodeGenLLVM::ScopedBind::ScopedBind(CodeGenLLVM* cg, const VarNode* v, llvm::Value* val)
    : cg_(cg), v_(v) {
  auto it = cg->vars_.find(v);
  had_ = it != cg->vars_.end();
  old_ = had_ ? it->second : nullptr;
  cg->vars_[v] = val;
}
CodeGenLLVM::ScopedBind::~ScopedBind() {
  if (had_)
    cg_->vars_[v_] = old_;
  else
    cg_->vars_.erase(v_);
}

// ---- types -------------------------------------------------------------------------------------
llvm::Type* CodeGenLLVM::llvm_type(DataType t) {
  if (t.is_void()) return llvm::Type::getVoidTy(ctx_);
  if (t.is_vector()) return llvm::FixedVectorType::get(llvm_type(t.element_of()), t.lanes());
  if (t.is_handle()) return ptr_;
  if (t.is_bool()) return llvm::Type::getInt1Ty(ctx_);
  if (t.is_integral()) return llvm::Type::getIntNTy(ctx_, t.bits());
  if (t.is_bfloat()) {
    MINITVM_USER_CHECK(t.bits() == 16) << "LLVM codegen: unsupported type " << t;
    return llvm::Type::getFloatTy(ctx_);
  }
  switch (t.bits()) {
    case 16:
      return llvm::Type::getHalfTy(ctx_);
    case 32:
      return llvm::Type::getFloatTy(ctx_);
    case 64:
      return llvm::Type::getDoubleTy(ctx_);
    default:
      break;
  }
  MINITVM_USER_ERROR << "LLVM codegen: unsupported type " << t;
  return nullptr;
}

llvm::Type* CodeGenLLVM::storage_type(DataType t) {
  llvm::Type* elem = t.element_of().is_bool()     ? i8_
                     : t.element_of().is_bfloat() ? llvm::Type::getInt16Ty(ctx_)
                                                  : llvm_type(t.element_of());
  if (t.is_vector()) return llvm::FixedVectorType::get(elem, t.lanes());
  return elem;
}

llvm::Value* CodeGenLLVM::const_int(DataType t, int64_t v) {
  // A constant outside its type would be truncated silently (e.g. a buffer size folded in int32).
  if (t.element_of().is_int() && t.bits() < 64) {
    const int64_t hi = (int64_t{1} << (t.bits() - 1)) - 1;
    MINITVM_USER_CHECK(v >= -hi - 1 && v <= hi)
        << "LLVM codegen: function '" << func_name_ << "': integer constant " << v
        << " does not fit " << t.element_of();
  }
  return llvm::ConstantInt::get(llvm_type(t), static_cast<uint64_t>(v), /*isSigned=*/true);
}

// ---- functions ---------------------------------------------------------------------------------
llvm::Function* CodeGenLLVM::emit_body_function(const std::string& name,
                                                const std::vector<Param>& params,
                                                const Stmt& body) {
  std::vector<llvm::Type*> types;
  for (const Param& p : params) types.push_back(p.type);
  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), types, false);
  auto* fn = llvm::Function::Create(fty, llvm::Function::InternalLinkage, name, &module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].noalias) fn->addParamAttr(i, llvm::Attribute::NoAlias);
    if (params[i].align > 1)
      fn->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(params[i].align)));
    if (!params[i].vars.empty()) fn->getArg(i)->setName(params[i].vars.front()->name_hint);
  }

  // The body sees only its parameters: values of another function are not usable here.
  auto saved_vars = std::move(vars_);
  vars_.clear();
  llvm::Function* saved_fn = function_;
  llvm::BasicBlock* saved_bb = builder_->GetInsertBlock();
  llvm::BasicBlock::iterator saved_pt;
  if (saved_bb) saved_pt = builder_->GetInsertPoint();

  function_ = fn;
  builder_->SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
  for (size_t i = 0; i < params.size(); ++i)
    for (const VarNode* v : params[i].vars) vars_[v] = fn->getArg(i);
  emit(body);
  builder_->CreateRetVoid();

  vars_ = std::move(saved_vars);
  function_ = saved_fn;
  if (saved_bb) builder_->SetInsertPoint(saved_bb, saved_pt);
  return fn;
}

void CodeGenLLVM::add_function(const PrimFunc& func) {
  MINITVM_USER_CHECK(func.defined() && func->body.defined()) << "LLVM codegen: undefined function";
  func_name_ = func->name;
  parallel_count_ = 0;
  MINITVM_USER_CHECK(!module_.getFunction(func->name))
      << "LLVM codegen: two functions are named '" << func->name << "'";

  // The body function takes typed parameters: buffers as noalias pointers, scalars by value.
  std::vector<Param> params;
  std::vector<DataType> scalar_types;
  for (const Var& p : func->params) {
    Param prm;
    prm.vars.push_back(p.get());
    auto it = func->buffer_map.find(p.get());
    if (it != func->buffer_map.end()) {
      const Buffer& buf = it->second;
      if (buf->data.defined() && buf->data.get() != p.get()) prm.vars.push_back(buf->data.get());
      prm.type = ptr_;
      prm.noalias = true;
      // NDArrays are 64-byte aligned, but DLPack views need not be: state only element alignment.
      prm.align = static_cast<unsigned>(std::max(1, buf->dtype.element_of().bytes()));
      scalar_types.push_back(DataType::Handle());
    } else {
      MINITVM_USER_CHECK(!p.dtype().is_handle())
          << "LLVM codegen: function '" << func->name << "': handle parameter '" << p.name()
          << "' has no buffer in buffer_map";
      prm.type = llvm_type(p.dtype());
      scalar_types.push_back(p.dtype());
    }
    params.push_back(std::move(prm));
  }
  llvm::Function* body_fn = emit_body_function(func->name + "_compute", params, func->body);

  // The entry point: void NAME(void* const* args), unpacking args for the body function.
  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_}, false);
  auto* fn = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, func->name, &module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addParamAttr(0, llvm::Attribute::NoAlias);
  fn->addParamAttr(0, llvm::Attribute::ReadOnly);
  fn->addParamAttr(0, llvm::Attribute::NoCapture);
  fn->getArg(0)->setName("args");
  function_ = fn;
  builder_->SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
  std::vector<llvm::Value*> call_args;
  for (size_t i = 0; i < params.size(); ++i) {
    llvm::Value* slot = builder_->CreateConstInBoundsGEP1_64(ptr_, fn->getArg(0), i);
    llvm::Value* p =
        builder_->CreateAlignedLoad(ptr_, slot, llvm::Align(8), params[i].vars.front()->name_hint);
    if (scalar_types[i].is_handle()) {
      call_args.push_back(p);
      continue;
    }
    DataType t = scalar_types[i];
    call_args.push_back(from_memory(t, builder_->CreateLoad(storage_type(t), p)));
  }
  builder_->CreateCall(body_fn, call_args);
  builder_->CreateRetVoid();
  builder_->ClearInsertionPoint();
  function_ = nullptr;
}

llvm::Value* CodeGenLLVM::entry_alloca(llvm::Type* t, uint64_t count, unsigned align) {
  llvm::BasicBlock& entry = function_->getEntryBlock();
  llvm::IRBuilder<> b(&entry, entry.getFirstInsertionPt());
  auto* a = b.CreateAlloca(t, llvm::ConstantInt::get(i64_, count));
  a->setAlignment(llvm::Align(align));
  return a;
}

// ---- statements --------------------------------------------------------------------------------
void CodeGenLLVM::emit(const Stmt& s) {
  MINITVM_ICHECK(s.defined()) << "LLVM codegen: undefined statement";
  switch (s->kind()) {
#define MINITVM_CASE(N) \
  case NodeKind::N:     \
    return emit_node(static_cast<const N##Node*>(s.get()));
    MINITVM_FOR_EACH_STMT(MINITVM_CASE)
#undef MINITVM_CASE
    default:
      MINITVM_INTERNAL_ERROR << "LLVM codegen: not a statement";
  }
}

void CodeGenLLVM::emit_node(const LetStmtNode* op) {
  llvm::Value* v = emit(op->value);
  v->setName(op->var->name_hint);
  ScopedBind bind(this, op->var.get(), v);
  emit(op->body);
}

// Thread and pragma annotations mean nothing to the CPU backend, but for two pragmas.
// "unroll_disable": the loops of the axis stay loops in LLVM too (emit_serial_loop).
// "nontemporal_store": the vector stores under it may bypass the caches (emit_store), and a
// sequentially consistent fence closes the region (mfence on x86, which drains the write-combining
// buffers), so that those weakly ordered stores are visible before whatever follows reads them.
void CodeGenLLVM::emit_node(const AttrStmtNode* op) {
  if (op->attr_kind == AttrKind::Pragma && op->pragma_key == "unroll_disable") {
    // The loops of the pragma's axis (one, or a main part and a tail after loop partitioning).
    const auto* iv = op->node.as<IterVarNode>();
    const VarNode* v = iv ? iv->var.get() : nullptr;
    if (v) unroll_disabled_.insert(v);
    emit(op->body);
    if (v) unroll_disabled_.erase(v);
    return;
  }
  if (op->attr_kind != AttrKind::Pragma || op->pragma_key != "nontemporal_store") {
    emit(op->body);
    return;
  }
  const int before = nontemporal_stores_;
  ++nontemporal_depth_;
  emit(op->body);
  --nontemporal_depth_;
  // Inside a parallel loop the fence ends each task instead (codegen_parallel.cc).
  if (nontemporal_stores_ > before && parallel_depth_ == 0)
    builder_->CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
}

// Assertions are not checked: the C calling convention has no error channel (see header).
void CodeGenLLVM::emit_node(const AssertStmtNode* op) {
  emit(op->body);
}

void CodeGenLLVM::emit_node(const StoreNode* op) {
  emit_store(op);
}

void CodeGenLLVM::emit_node(const ProvideNode*) {
  MINITVM_INTERNAL_ERROR << "LLVM codegen: Provide in '" << func_name_
                         << "': storage was not flattened";
}
void CodeGenLLVM::emit_node(const RealizeNode*) {
  MINITVM_INTERNAL_ERROR << "LLVM codegen: Realize in '" << func_name_
                         << "': storage was not flattened";
}
void CodeGenLLVM::emit_node(const ProducerConsumerNode* op) {
  emit(op->body);
}

void CodeGenLLVM::emit_node(const AllocateNode* op) {
  DataType elem = op->dtype.element_of();
  llvm::Type* st = storage_type(elem);
  const int64_t count = op->constant_size();
  // Sizes are int32 (as TVM's): a larger buffer cannot be indexed and its size would wrap.
  for (const Expr& e : op->extents) {
    if (const int64_t* c = as_const_int(e)) {
      MINITVM_USER_CHECK(*c >= 0 && *c <= INT32_MAX)
          << "LLVM codegen: function '" << func_name_ << "': buffer '" << op->buffer_var->name_hint
          << "' has " << *c << " elements, more than int32 can index";
    }
  }
  MINITVM_USER_CHECK(count <= INT32_MAX)
      << "LLVM codegen: function '" << func_name_ << "': buffer '" << op->buffer_var->name_hint
      << "' has " << count << " elements, more than int32 can index";
  const int64_t elem_bytes = std::max(1, elem.bytes()) * op->dtype.lanes();
  if (count >= 0 && count * elem_bytes <= kMaxStackAllocBytes) {
    llvm::Value* a = entry_alloca(
        st, static_cast<uint64_t>(std::max<int64_t>(count, 1) * op->dtype.lanes()), kAllocAlign);
    a->setName(op->buffer_var->name_hint);
    ScopedBind bind(this, op->buffer_var.get(), a);
    allocated_.insert(op->buffer_var.get());
    emit(op->body);
    allocated_.erase(op->buffer_var.get());
    return;
  }
  // Heap: the runtime's workspace (64-byte aligned blocks a thread reuses from call to call,
  // runtime/workspace.h), freed after the body.
  llvm::Value* bytes = llvm::ConstantInt::get(i64_, elem_bytes);
  for (const Expr& e : op->extents)
    bytes = builder_->CreateMul(bytes, emit_cast(e.dtype(), DataType::Int(64), emit(e)));
  auto alloc_fn = module_.getOrInsertFunction("minitvm_workspace_alloc",
                                              llvm::FunctionType::get(ptr_, {i64_}, false));
  auto free_fn = module_.getOrInsertFunction(
      "minitvm_workspace_free",
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr_}, false));
  llvm::Value* p = builder_->CreateCall(alloc_fn, {bytes}, op->buffer_var->name_hint);
  {
    ScopedBind bind(this, op->buffer_var.get(), p);
    allocated_.insert(op->buffer_var.get());
    emit(op->body);
    allocated_.erase(op->buffer_var.get());
  }
  builder_->CreateCall(free_fn, {p});
}

void CodeGenLLVM::emit_node(const BlockNode* op) {
  for (const Stmt& s : op->stmts) emit(s);
}

void CodeGenLLVM::emit_node(const IfThenElseNode* op) {
  llvm::Value* cond = emit(op->condition);
  MINITVM_ICHECK(op->condition.dtype() == DataType::Bool())
      << "IfThenElse condition of type " << op->condition.dtype();
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "if_then", function_);
  auto* end_bb = llvm::BasicBlock::Create(ctx_, "if_end", function_);
  auto* else_bb = op->else_case.defined()
                      ? llvm::BasicBlock::Create(ctx_, "if_else", function_, end_bb)
                      : end_bb;
  builder_->CreateCondBr(cond, then_bb, else_bb);
  builder_->SetInsertPoint(then_bb);
  emit(op->then_case);
  builder_->CreateBr(end_bb);
  if (op->else_case.defined()) {
    builder_->SetInsertPoint(else_bb);
    emit(op->else_case);
    builder_->CreateBr(end_bb);
  }
  end_bb->moveAfter(builder_->GetInsertBlock());
  builder_->SetInsertPoint(end_bb);
}

void CodeGenLLVM::emit_node(const EvaluateNode* op) {
  if (is_const(op->value)) return;
  emit(op->value);
}

void CodeGenLLVM::emit_node(const ForNode* op) {
  if (op->for_kind == ForKind::Parallel && parallel_depth_ == 0) {
    emit_parallel_loop(op);
  } else if (op->for_kind != ForKind::Serial || !emit_transposed_copy(op)) {
    emit_serial_loop(op);
  }
}

void CodeGenLLVM::emit_serial_loop(const ForNode* op) {
  DataType t = op->loop_var.dtype();
  MINITVM_ICHECK(t.is_integral() && t.is_scalar()) << "loop variable of type " << t;
  llvm::Value* begin = emit_cast(op->min.dtype(), t, emit(op->min));
  llvm::Value* extent = emit_cast(op->extent.dtype(), t, emit(op->extent));
  llvm::Value* end = builder_->CreateAdd(begin, extent, "", false, t.is_int());
  llvm::BasicBlock* pre = builder_->GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(ctx_, "for_head", function_);
  auto* body = llvm::BasicBlock::Create(ctx_, "for_body", function_);
  auto* exit = llvm::BasicBlock::Create(ctx_, "for_end", function_);
  builder_->CreateBr(head);
  builder_->SetInsertPoint(head);
  llvm::PHINode* iv = builder_->CreatePHI(llvm_type(t), 2, op->loop_var->name_hint);
  iv->addIncoming(begin, pre);
  llvm::Value* cond =
      t.is_int() ? builder_->CreateICmpSLT(iv, end) : builder_->CreateICmpULT(iv, end);
  builder_->CreateCondBr(cond, body, exit);
  builder_->SetInsertPoint(body);
  {
    ScopedBind bind(this, op->loop_var.get(), iv);
    emit(op->body);
  }
  llvm::Value* next =
      builder_->CreateAdd(iv, llvm::ConstantInt::get(llvm_type(t), 1), "", false, t.is_int());
  iv->addIncoming(next, builder_->GetInsertBlock());
  llvm::BranchInst* back = builder_->CreateBr(head);
  // Loops the schedule asked to unroll or vectorize (and that reached us as loops) carry the
  // request to LLVM as loop metadata; LLVM may still decline (e.g. unknown trip count).
  const bool no_unroll =
      op->for_kind == ForKind::Serial && unroll_disabled_.count(op->loop_var.get()) > 0;
  if (op->for_kind == ForKind::Unrolled || op->for_kind == ForKind::Vectorized || no_unroll) {
    llvm::Metadata* hint =
        op->for_kind == ForKind::Unrolled
            ? llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")})
        : no_unroll
            ? llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.disable")})
            : llvm::MDNode::get(ctx_,
                                {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                 llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(ctx_))});
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, {nullptr, hint});
    loop_id->replaceOperandWith(0, loop_id);
    back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
  exit->moveAfter(builder_->GetInsertBlock());
  builder_->SetInsertPoint(exit);
}

}  // namespace minitvm::codegen
