// CodeGenLLVM: parallel loops. The loop body is outlined into a task function called by the
// runtime thread pool (minitvm_parallel_for); the values it uses travel in a closure struct.
#include <algorithm>
#include <unordered_set>

#include "codegen/llvm/codegen_llvm.h"
#include "minitvm/support/error.h"

namespace minitvm::codegen {

using namespace ir;

void CodeGenLLVM::emit_parallel_loop(const ForNode* op) {
  DataType lt = op->loop_var.dtype();
  MINITVM_ICHECK(lt.is_integral() && lt.is_scalar()) << "loop variable of type " << lt;

  // Captured: every variable bound here that the body uses, grouped by value (a buffer parameter
  // and its data variable are one pointer), in order of first use so the output is deterministic.
  std::vector<llvm::Value*> values;
  std::vector<std::vector<const VarNode*>> groups;
  std::unordered_set<const VarNode*> seen;
  post_order_visit(op->body, [&](const Ref<Object>& n) {
    if (n->kind() != NodeKind::Var) return;
    auto* v = static_cast<const VarNode*>(n.get());
    if (v == op->loop_var.get() || !seen.insert(v).second) return;
    auto it = vars_.find(v);
    if (it == vars_.end()) return;  // defined inside the body
    auto pos = std::find(values.begin(), values.end(), it->second);
    if (pos == values.end()) {
      values.push_back(it->second);
      groups.push_back({v});
    } else {
      groups[pos - values.begin()].push_back(v);
    }
  });

  // The closure: captured values, then the loop minimum.
  llvm::Value* min = emit_cast(op->min.dtype(), lt, emit(op->min));
  llvm::Value* extent = emit_cast(op->extent.dtype(), DataType::Int(64), emit(op->extent));
  std::vector<llvm::Type*> field_types;
  for (llvm::Value* v : values) field_types.push_back(v->getType());
  field_types.push_back(min->getType());
  auto* closure_ty = llvm::StructType::get(ctx_, field_types);
  llvm::Value* closure = entry_alloca(closure_ty, 1, 8);
  for (size_t i = 0; i < field_types.size(); ++i) {
    llvm::Value* v = i < values.size() ? values[i] : min;
    builder_->CreateStore(v,
                          builder_->CreateStructGEP(closure_ty, closure, static_cast<unsigned>(i)));
  }

  // The body function: captured values and the loop variable as parameters, pointers noalias
  // (distinct buffers). It is internal and called once, so the O3 inliner folds it into the task
  // function and turns noalias into alias scopes.
  const std::string base = func_name_ + "_parallel" + std::to_string(parallel_count_++);
  std::vector<Param> params;
  for (size_t i = 0; i < values.size(); ++i) {
    Param p;
    p.vars = groups[i];
    p.type = values[i]->getType();
    p.noalias = p.type->isPointerTy();
    params.push_back(std::move(p));
  }
  Param iv;
  iv.vars = {op->loop_var.get()};
  iv.type = llvm_type(lt);
  params.push_back(iv);
  ++parallel_depth_;
  const int nontemporal_before = nontemporal_stores_;
  llvm::Function* body_fn = emit_body_function(base + "_body", params, op->body);
  const bool fence = nontemporal_stores_ > nontemporal_before;
  --parallel_depth_;

  // The task function: void task(int64_t task, void* closure).
  auto* task_ty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {i64_, ptr_}, false);
  auto* task_fn = llvm::Function::Create(task_ty, llvm::Function::InternalLinkage, base, &module_);
  task_fn->addFnAttr(llvm::Attribute::NoUnwind);
  task_fn->addParamAttr(1, llvm::Attribute::NoAlias);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", task_fn));
    llvm::Value* cl = task_fn->getArg(1);
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < values.size(); ++i)
      args.push_back(b.CreateLoad(field_types[i],
                                  b.CreateStructGEP(closure_ty, cl, static_cast<unsigned>(i))));
    llvm::Value* m = b.CreateLoad(
        min->getType(), b.CreateStructGEP(closure_ty, cl, static_cast<unsigned>(values.size())));
    llvm::Value* task = b.CreateIntCast(task_fn->getArg(0), min->getType(), true);
    args.push_back(b.CreateAdd(m, task, op->loop_var->name_hint, false, lt.is_int()));
    b.CreateCall(body_fn, args);
    // A task that wrote with non-temporal stores ends with a fence (they are weakly ordered; the
    // thread pool's join must not see the task done before they are), once per task: schedules
    // that stream give each task many of them (pool_schedule.cc).
    if (fence) b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    b.CreateRetVoid();
  }

  auto pfor = module_.getOrInsertFunction("minitvm_parallel_for",
                                          llvm::FunctionType::get(i32_, {i64_, ptr_, ptr_}, false));
  builder_->CreateCall(pfor, {extent, task_fn, closure});
}

}  // namespace minitvm::codegen
