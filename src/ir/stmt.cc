#include "minitvm/ir/stmt.h"

namespace minitvm::ir {

const char* storage_scope_name(StorageScope s) {
  switch (s) {
    case StorageScope::Global:
      return "global";
    case StorageScope::Shared:
      return "shared";
    case StorageScope::Local:
      return "local";
    case StorageScope::Warp:
      return "warp";
  }
  return "?";
}
StorageScope parse_storage_scope(const std::string& s) {
  if (s == "global") return StorageScope::Global;
  if (s == "shared") return StorageScope::Shared;
  if (s == "local") return StorageScope::Local;
  if (s == "warp") return StorageScope::Warp;
  MINITVM_USER_ERROR << "unknown storage scope '" << s
                     << "' (expected global, shared, local or warp)";
  return StorageScope::Global;
}

std::string attr_key_name(AttrKind k, const std::string& pragma_key) {
  switch (k) {
    case AttrKind::ThreadExtent:
      return "thread_extent";
    case AttrKind::VirtualThread:
      return "virtual_thread";
    case AttrKind::RealizeScope:
      return "realize_scope";
    case AttrKind::PragmaAutoUnrollMaxStep:
      return "pragma_auto_unroll_max_step";
    case AttrKind::PragmaUnrollExplicit:
      return "pragma_unroll_explicit";
    case AttrKind::Pragma:
      return "pragma_" + pragma_key;
    case AttrKind::LoopScope:
      return "loop_scope";
    case AttrKind::ReduceScope:
      return "reduce_scope";
    case AttrKind::DoubleBufferScope:
      return "double_buffer_scope";
    case AttrKind::DoubleBufferWrite:
      return "double_buffer_write";
    case AttrKind::PrefetchScope:
      return "prefetch_scope";
  }
  return "?";
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::Serial:
      return "for";
    case ForKind::Parallel:
      return "parallel";
    case ForKind::Vectorized:
      return "vectorized";
    case ForKind::Unrolled:
      return "unrolled";
  }
  return "?";
}

template <typename T>
static T* mut(const Ref<T>& r) {
  return const_cast<T*>(r.get());
}

Stmt LetStmtNode::make(Var var, Expr value, Stmt body) {
  auto n = make_object<LetStmtNode>();
  mut(n)->var = std::move(var);
  mut(n)->value = std::move(value);
  mut(n)->body = std::move(body);
  return n;
}
Stmt AttrStmtNode::make(Ref<Object> node, AttrKind kind, Expr value, Stmt body,
                        std::string pragma_key) {
  auto n = make_object<AttrStmtNode>();
  mut(n)->node = std::move(node);
  mut(n)->attr_kind = kind;
  mut(n)->pragma_key = std::move(pragma_key);
  mut(n)->value = std::move(value);
  mut(n)->body = std::move(body);
  return n;
}
Stmt AssertStmtNode::make(Expr c, std::string msg, Stmt body) {
  auto n = make_object<AssertStmtNode>();
  mut(n)->condition = std::move(c);
  mut(n)->message = std::move(msg);
  mut(n)->body = std::move(body);
  return n;
}
Stmt StoreNode::make(Var buf, Expr value, Expr index, Expr pred) {
  MINITVM_ICHECK(value.dtype().lanes() == index.dtype().lanes()) << "store lanes mismatch";
  auto n = make_object<StoreNode>();
  mut(n)->buffer_var = std::move(buf);
  mut(n)->value = std::move(value);
  mut(n)->predicate =
      pred.defined() ? pred : make_const(DataType::Bool(index.dtype().lanes()), int64_t{1});
  mut(n)->index = std::move(index);
  return n;
}
Stmt ProvideNode::make(FunctionRef op, int vi, Expr value, std::vector<Expr> args) {
  auto n = make_object<ProvideNode>();
  mut(n)->op = std::move(op);
  mut(n)->value_index = vi;
  mut(n)->value = std::move(value);
  mut(n)->args = std::move(args);
  return n;
}
Stmt AllocateNode::make(Var buf, DataType dtype, std::vector<Expr> extents, StorageScope scope,
                        Expr condition, Stmt body) {
  auto n = make_object<AllocateNode>();
  mut(n)->buffer_var = std::move(buf);
  mut(n)->dtype = dtype;
  mut(n)->extents = std::move(extents);
  mut(n)->scope = scope;
  mut(n)->condition = condition.defined() ? condition : make_const(DataType::Bool(), int64_t{1});
  mut(n)->body = std::move(body);
  return n;
}
int64_t AllocateNode::constant_size() const {
  int64_t s = 1;
  for (auto& e : extents) {
    auto* c = as_const_int(e);
    if (!c) return -1;
    s *= *c;
  }
  return s;
}
Stmt RealizeNode::make(FunctionRef op, int vi, DataType dtype, std::vector<Range> bounds,
                       StorageScope scope, Expr condition, Stmt body) {
  auto n = make_object<RealizeNode>();
  mut(n)->op = std::move(op);
  mut(n)->value_index = vi;
  mut(n)->dtype = dtype;
  mut(n)->bounds = std::move(bounds);
  mut(n)->scope = scope;
  mut(n)->condition = condition.defined() ? condition : make_const(DataType::Bool(), int64_t{1});
  mut(n)->body = std::move(body);
  return n;
}
Stmt ProducerConsumerNode::make(FunctionRef op, bool is_producer, Stmt body) {
  auto n = make_object<ProducerConsumerNode>();
  mut(n)->op = std::move(op);
  mut(n)->is_producer = is_producer;
  mut(n)->body = std::move(body);
  return n;
}
Stmt BlockNode::make(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s.defined()) continue;
    if (auto* b = s.as<BlockNode>()) {
      for (auto& x : b->stmts) flat.push_back(x);
    } else {
      flat.push_back(s);
    }
  }
  if (flat.empty()) return make_nop();
  if (flat.size() == 1) return flat[0];
  auto n = make_object<BlockNode>();
  mut(n)->stmts = std::move(flat);
  return n;
}
Stmt IfThenElseNode::make(Expr c, Stmt t, Stmt e) {
  auto n = make_object<IfThenElseNode>();
  mut(n)->condition = std::move(c);
  mut(n)->then_case = std::move(t);
  mut(n)->else_case = std::move(e);
  return n;
}
Stmt EvaluateNode::make(Expr v) {
  auto n = make_object<EvaluateNode>();
  mut(n)->value = std::move(v);
  return n;
}
Stmt ForNode::make(Var v, Expr min, Expr extent, ForKind kind, Stmt body) {
  MINITVM_ICHECK(min.defined() && extent.defined()) << "For with undefined bounds";
  MINITVM_ICHECK(min.dtype().is_integral() && extent.dtype().is_integral())
      << "For bounds must be integers";
  auto n = make_object<ForNode>();
  mut(n)->loop_var = std::move(v);
  mut(n)->min = std::move(min);
  mut(n)->extent = std::move(extent);
  mut(n)->for_kind = kind;
  mut(n)->body = std::move(body);
  return n;
}

Stmt make_nop() {
  return EvaluateNode::make(make_const(DataType::Int(32), int64_t{0}));
}
bool is_nop(const Stmt& s) {
  if (!s.defined()) return true;
  if (auto* e = s.as<EvaluateNode>()) return is_const(e->value);
  return false;
}

Buffer Buffer::make(std::string name, DataType dtype, std::vector<Expr> shape, StorageScope scope) {
  auto n = make_object<BufferNode>();
  mut(n)->data = Var::buffer(name, dtype);
  mut(n)->dtype = dtype;
  mut(n)->shape = std::move(shape);
  mut(n)->name = std::move(name);
  mut(n)->scope = scope;
  return Buffer(n);
}
Expr Buffer::offset_of(const std::vector<Expr>& idx) const {
  auto* b = get();
  MINITVM_ICHECK(idx.size() == b->shape.size() || b->shape.empty())
      << "buffer " << b->name << " indexed with " << idx.size() << " indices, has "
      << b->shape.size() << " dims";
  if (idx.empty()) return make_const(DataType::Int(32), int64_t{0});
  Expr off;
  if (!b->strides.empty()) {
    for (size_t i = 0; i < idx.size(); ++i) {
      Expr t = idx[i] * b->strides[i];
      off = off.defined() ? off + t : t;
    }
    return off;
  }
  off = idx[0];
  for (size_t i = 1; i < idx.size(); ++i) off = off * b->shape[i] + idx[i];
  return off;
}

PrimFunc PrimFunc::make(std::string name, std::vector<Var> params,
                        std::map<const VarNode*, Buffer> bm, Stmt body) {
  auto n = make_object<PrimFuncNode>();
  mut(n)->name = std::move(name);
  mut(n)->params = std::move(params);
  mut(n)->buffer_map = std::move(bm);
  mut(n)->body = std::move(body);
  return PrimFunc(n);
}
PrimFunc PrimFunc::with_body(Stmt body) const {
  auto n = make_object<PrimFuncNode>();
  auto* m = mut(n);
  m->name = get()->name;
  m->params = get()->params;
  m->buffer_map = get()->buffer_map;
  m->thread_axes = get()->thread_axes;
  m->body = std::move(body);
  return PrimFunc(n);
}

}  // namespace minitvm::ir
