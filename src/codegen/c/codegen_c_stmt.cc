// CodeGenC: functions and statements.
#include "minitvm/codegen/codegen_c.h"

namespace minitvm::codegen {

using namespace ir;

void CodeGenC::print_indent() {
  for (int i = 0; i < indent_; ++i) stream_ << ' ';
}

void CodeGenC::print_stmt(const Stmt& s) {
  MINITVM_ICHECK(s.defined()) << "printing an undefined statement";
  visit_stmt(s);
}

void CodeGenC::collect_vector_accesses(const Stmt& body) {
  post_order_visit(body, [this](const Ref<Object>& n) {
    if (auto* l = n.as<LoadNode>()) {
      if (use_vector_access(l->dtype, l->index, l->predicate))
        vector_accessed_.insert(l->buffer_var.get());
    } else if (auto* s = n.as<StoreNode>()) {
      if (use_vector_access(s->value.dtype(), s->index, s->predicate))
        vector_accessed_.insert(s->buffer_var.get());
    }
  });
}

void CodeGenC::add_function(const PrimFunc& f) {
  // Per-function state; the function name itself stays reserved for the translation unit.
  var_ids_.clear();
  buffer_types_.clear();
  buffer_scopes_.clear();
  nonneg_vars_.clear();
  vector_accessed_.clear();
  // Names are unique per function; function and helper names stay reserved in all of them.
  global_names_.push_back(f.name());
  names_.clear();
  for (const auto& g : global_names_) names_.reserve(g);

  std::ostringstream head;
  print_func_prefix(f, head);
  print_func_attrs(f, head);
  head << " " << f.name() << "(";
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Var& p = f->params[i];
    if (i) head << ", ";
    std::string name = alloc_var_id(p.get());
    if (p.dtype().is_handle()) {
      DataType elem = p->pointee;
      auto it = f->buffer_map.find(p.get());
      if (it != f->buffer_map.end()) elem = it->second->dtype;
      MINITVM_USER_CHECK(!elem.is_void()) << "parameter '" << p.name() << "' of " << f.name()
                                          << " is a handle without an element type";
      buffer_types_[p.get()] = elem;
      buffer_scopes_[p.get()] = StorageScope::Global;
      print_storage_scope(StorageScope::Global, head);
      head << " ";
      print_type(elem, head);
      head << "*";
      if (restrict_params_) head << " __restrict__";
      head << " " << name;
    } else {
      print_type(p.dtype(), head);
      head << " " << name;
    }
  }
  head << ") {\n";
  collect_vector_accesses(f->body);
  // Print the body first: it decides which preamble helpers are needed.
  std::ostringstream saved;
  saved << stream_.str();
  stream_.str("");
  stream_ << head.str();
  indent_ += 2;
  print_stmt(f->body);
  indent_ -= 2;
  stream_ << "}\n\n";
  std::string func = stream_.str();
  stream_.str("");
  stream_ << saved.str() << func;
}

std::string CodeGenC::finish() {
  return preamble() + stream_.str();
}

// ---- statements --------------------------------------------------------------------------------
void CodeGenC::visit(const LetStmtNode* op) {
  std::string value = print_expr(op->value);
  print_indent();
  if (op->var.dtype().is_handle()) {
    // A handle alias of another buffer: keep its element type.
    if (auto* src = op->value.as<VarNode>()) {
      buffer_types_[op->var.get()] = buffer_elem_type(src);
      buffer_scopes_[op->var.get()] = buffer_scope(src);
    }
    print_type(buffer_elem_type(op->var.get()), stream_);
    stream_ << "* ";
  } else {
    print_type(op->var.dtype(), stream_);
    stream_ << " ";
  }
  if (provably_nonneg(op->value)) nonneg_vars_.insert(op->var.get());
  stream_ << alloc_var_id(op->var.get()) << " = " << value << ";\n";
  print_stmt(op->body);
}

void CodeGenC::visit(const AttrStmtNode* op) {
  if (op->attr_kind == AttrKind::ThreadExtent) {
    auto* ivn = op->node.as<IterVarNode>();
    MINITVM_ICHECK(ivn) << "thread_extent attribute without an IterVar";
    IterVar iv{Ref<IterVarNode>(ivn)};
    if (!is_bound(iv.var().get())) {
      bind_thread_index(iv);
      nonneg_vars_.insert(iv.var().get());
    }
  } else if (op->attr_kind == AttrKind::VirtualThread) {
    MINITVM_INTERNAL_ERROR
        << "virtual_thread attribute reached code generation (vthreads must be injected first)";
  }
  print_stmt(op->body);
}

void CodeGenC::visit(const AssertStmtNode* op) {
  // Device code cannot report; host asserts are the host backend's job. Keep the body.
  print_indent();
  stream_ << "// assert " << print_expr(op->condition) << " : " << op->message << "\n";
  print_stmt(op->body);
}

void CodeGenC::visit(const StoreNode* op) {
  DataType t = op->value.dtype();
  const VarNode* buf = op->buffer_var.get();
  if (t.is_vector()) {
    if (use_vector_access(t, op->index, op->predicate)) {
      std::string value = print_expr(op->value);
      print_vec_store(op->buffer_var, t, op->index.as<RampNode>()->base, value);
    } else {
      print_scalarized_store(op);
    }
    return;
  }
  std::string value = print_expr(op->value);
  std::string index = print_expr(op->index);
  bool predicated = op->predicate.defined() && !is_one(op->predicate);
  if (predicated) {
    print_indent();
    stream_ << "if (" << print_expr(op->predicate) << ") {\n";
    indent_ += 2;
  }
  print_indent();
  stream_ << var_id(buf) << "[" << index << "] = " << value << ";\n";
  if (predicated) {
    indent_ -= 2;
    print_indent();
    stream_ << "}\n";
  }
}

void CodeGenC::print_scalarized_store(const StoreNode* op) {
  int lanes = op->value.dtype().lanes();
  MINITVM_ICHECK(op->index.dtype().lanes() == lanes) << "store lanes mismatch";
  for (int i = 0; i < lanes; ++i) {
    Expr pred = op->predicate.defined() ? extract_lane(op->predicate, i) : Expr();
    print_stmt(StoreNode::make(op->buffer_var, extract_lane(op->value, i),
                               extract_lane(op->index, i), pred));
  }
}

void CodeGenC::visit(const ProvideNode*) {
  MINITVM_INTERNAL_ERROR << "Provide reached code generation (storage flattening must run first)";
}
void CodeGenC::visit(const RealizeNode*) {
  MINITVM_INTERNAL_ERROR << "Realize reached code generation (storage flattening must run first)";
}
void CodeGenC::visit(const ProducerConsumerNode* op) {
  print_stmt(op->body);
}

void CodeGenC::visit(const AllocateNode* op) {
  int64_t size = op->constant_size();
  MINITVM_USER_CHECK(size > 0) << "allocation '" << op->buffer_var.name()
                               << "' must have a constant positive size in device code";
  MINITVM_USER_CHECK(op->dtype.is_scalar())
      << "allocation '" << op->buffer_var.name() << "' of vector type " << op->dtype
      << " is not supported";
  const VarNode* v = op->buffer_var.get();
  buffer_types_[v] = op->dtype;
  buffer_scopes_[v] = op->scope;
  std::string name = alloc_var_id(v);
  print_indent();
  print_storage_scope(op->scope, stream_);
  stream_ << " ";
  if (vector_accessed_.count(v)) print_alloc_alignment(op, stream_);
  print_type(op->dtype, stream_);
  stream_ << " " << name << "[" << size << "];\n";
  print_stmt(op->body);
}

void CodeGenC::visit(const BlockNode* op) {
  for (auto& s : op->stmts) print_stmt(s);
}

void CodeGenC::visit(const IfThenElseNode* op) {
  std::string cond = print_expr(op->condition);
  print_indent();
  // A printed condition that is already parenthesised is not wrapped again: `if (x < 4) {`.
  if (cond.size() >= 2 && cond.front() == '(' && cond.back() == ')')
    stream_ << "if " << cond << " {\n";
  else
    stream_ << "if (" << cond << ") {\n";
  indent_ += 2;
  print_stmt(op->then_case);
  indent_ -= 2;
  if (op->else_case.defined() && !is_nop(op->else_case)) {
    print_indent();
    stream_ << "} else {\n";
    indent_ += 2;
    print_stmt(op->else_case);
    indent_ -= 2;
  }
  print_indent();
  stream_ << "}\n";
}

void CodeGenC::visit(const EvaluateNode* op) {
  if (is_const(op->value)) return;  // no-op
  if (auto* call = op->value.as<CallNode>()) {
    if (call->op == Intrinsic::StorageSync) {
      print_storage_sync(call);
      return;
    }
    if (call->op == Intrinsic::Prefetch) return;  // a CPU cache hint (Stage::prefetch): no GPU code
  }
  std::string v = print_expr(op->value);
  print_indent();
  stream_ << v << ";\n";
}

void CodeGenC::visit(const ForNode* op) {
  std::string extent = print_expr(op->extent);
  std::string min = print_expr(op->min);
  if (op->for_kind == ForKind::Unrolled) print_unroll_hint();
  const VarNode* v = op->loop_var.get();
  std::string name = alloc_var_id(v);
  if (provably_nonneg(op->min)) nonneg_vars_.insert(v);
  print_indent();
  stream_ << "for (";
  print_type(op->loop_var.dtype(), stream_);
  stream_ << " " << name << " = " << min << "; " << name << " < ";
  if (is_zero(op->min))
    stream_ << extent;
  else
    stream_ << "(" << min << " + " << extent << ")";
  stream_ << "; ++" << name << ") {\n";
  indent_ += 2;
  print_stmt(op->body);
  indent_ -= 2;
  print_indent();
  stream_ << "}\n";
}

}  // namespace minitvm::codegen
