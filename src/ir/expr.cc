#include "minitvm/ir/expr.h"

#include <cmath>
#include <limits>

namespace minitvm::ir {

// ---- leaves and handles ------------------------------------------------------------------------
Expr IntImmNode::make(DataType t, int64_t v) {
  MINITVM_ICHECK(t.is_integral() && t.is_scalar()) << "IntImm of type " << t;
  if (t.is_bool()) v = v != 0;
  return make_object<IntImmNode>(t, v);
}
Expr FloatImmNode::make(DataType t, double v) {
  MINITVM_ICHECK(t.is_floating() && t.is_scalar()) << "FloatImm of type " << t;
  return make_object<FloatImmNode>(t, v);
}
Expr StringImmNode::make(std::string v) {
  return make_object<StringImmNode>(std::move(v));
}

Expr::Expr(int v) : Expr(IntImmNode::make(DataType::Int(32), v)) {}
Expr::Expr(int64_t v) : Expr(IntImmNode::make(DataType::Int(64), v)) {}
Expr::Expr(float v) : Expr(FloatImmNode::make(DataType::Float(32), v)) {}
Expr::Expr(double v) : Expr(FloatImmNode::make(DataType::Float(32), v)) {}

Var::Var(std::string name, DataType t)
    : Expr(make_object<VarNode>(std::move(name), t, DataType::Void())) {}
Var Var::buffer(std::string name, DataType elem) {
  return Var(make_object<VarNode>(std::move(name), DataType::Handle(), elem));
}

Range::Range(Expr min, Expr extent)
    : Ref<RangeNode>(make_object<RangeNode>(std::move(min), std::move(extent))) {}
Range::Range(std::initializer_list<Expr> be) {
  MINITVM_USER_CHECK(be.size() == 2) << "Range{begin, end} takes two values, got " << be.size();
  Expr b = *be.begin(), e = *(be.begin() + 1);
  *this = Range(b, e - b);
}

IterVar::IterVar(Range dom, Var var, IterVarType t, std::string tag)
    : Ref<IterVarNode>(
          make_object<IterVarNode>(std::move(dom), std::move(var), t, std::move(tag))) {}

// ---- constants ---------------------------------------------------------------------------------
Expr make_const(DataType t, double v) {
  if (t.is_vector()) return BroadcastNode::make(make_const(t.element_of(), v), t.lanes());
  if (t.is_floating()) return FloatImmNode::make(t, v);
  return IntImmNode::make(t, static_cast<int64_t>(v));
}
Expr make_const(DataType t, int64_t v) {
  if (t.is_vector()) return BroadcastNode::make(make_const(t.element_of(), v), t.lanes());
  if (t.is_floating()) return FloatImmNode::make(t, static_cast<double>(v));
  return IntImmNode::make(t, v);
}
Expr make_zero(DataType t) {
  return make_const(t, int64_t{0});
}

Expr min_value(DataType t) {
  if (t.is_floating()) return make_const(t, -std::numeric_limits<double>::infinity());
  if (t.is_int()) {
    if (t.bits() == 64) return make_const(t, std::numeric_limits<int64_t>::min());
    return make_const(t, -(int64_t{1} << (t.bits() - 1)));
  }
  return make_const(t, int64_t{0});
}
Expr max_value(DataType t) {
  if (t.is_floating()) return make_const(t, std::numeric_limits<double>::infinity());
  if (t.is_int()) {
    if (t.bits() == 64) return make_const(t, std::numeric_limits<int64_t>::max());
    return make_const(t, (int64_t{1} << (t.bits() - 1)) - 1);
  }
  if (t.is_bool()) return make_const(t, int64_t{1});
  if (t.bits() == 64) return make_const(t, int64_t(-1));
  return make_const(t, static_cast<int64_t>((uint64_t{1} << t.bits()) - 1));
}

const int64_t* as_const_int(const Expr& e) {
  if (!e.defined()) return nullptr;
  if (auto* p = e.as<IntImmNode>()) return &p->value;
  return nullptr;
}
bool is_const_int(const Expr& e, int64_t v) {
  const int64_t* p = as_const_int(e);
  if (p) return *p == v;
  if (auto* b = e.as<BroadcastNode>()) return is_const_int(b->value, v);
  return false;
}
bool is_const(const Expr& e) {
  return e.as<IntImmNode>() || e.as<FloatImmNode>();
}

static int64_t wrap_int(DataType t, int64_t v) {
  if (t.is_bool()) return v != 0;
  if (t.bits() >= 64) return v;
  uint64_t mask = (uint64_t{1} << t.bits()) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits() - 1))) u |= ~mask;
  return static_cast<int64_t>(u);
}

Expr cast(DataType t, Expr v) {
  if (v.dtype() == t) return v;
  if (t.lanes() != v.dtype().lanes()) {
    MINITVM_ICHECK(v.dtype().is_scalar()) << "cast " << v.dtype() << " to " << t;
    return BroadcastNode::make(cast(t.element_of(), v), t.lanes());
  }
  if (auto* i = v.as<IntImmNode>()) {
    if (t.is_floating()) return FloatImmNode::make(t, static_cast<double>(i->value));
    if (t.is_integral()) return IntImmNode::make(t, wrap_int(t, i->value));
  }
  if (auto* f = v.as<FloatImmNode>()) {
    if (t.is_floating()) return FloatImmNode::make(t, f->value);
    if (t.is_integral() && std::isfinite(f->value))
      return IntImmNode::make(t, wrap_int(t, static_cast<int64_t>(f->value)));
  }
  if (auto* b = v.as<BroadcastNode>())
    return BroadcastNode::make(cast(t.element_of(), b->value), t.lanes());
  return CastNode::make(t, v);
}

Expr CastNode::make(DataType t, Expr v) {
  MINITVM_ICHECK(t.lanes() == v.dtype().lanes())
      << "cast changes lanes: " << v.dtype() << " -> " << t;
  return make_object<CastNode>(t, std::move(v));
}

// ---- binary nodes ------------------------------------------------------------------------------
static bool is_compare(NodeKind k) {
  return k == NodeKind::EQ || k == NodeKind::NE || k == NodeKind::LT || k == NodeKind::LE ||
         k == NodeKind::GT || k == NodeKind::GE;
}
static bool is_logical(NodeKind k) {
  return k == NodeKind::And || k == NodeKind::Or;
}

template <NodeKind K>
Expr BinaryNode<K>::make(Expr a, Expr b) {
  MINITVM_ICHECK(a.defined() && b.defined()) << "undefined operand";
  MINITVM_ICHECK(a.dtype() == b.dtype())
      << "operand types differ: " << a.dtype() << " vs " << b.dtype();
  DataType t = a.dtype();
  if (is_compare(K)) t = DataType::Bool(a.dtype().lanes());
  if (is_logical(K)) {
    MINITVM_ICHECK(a.dtype().is_bool()) << "logical op on " << a.dtype();
  }
  return make_object<BinaryNode<K>>(t, std::move(a), std::move(b));
}
#define MINITVM_INSTANTIATE(N) template struct BinaryNode<NodeKind::N>;
MINITVM_FOR_EACH_BINARY(MINITVM_INSTANTIATE)
#undef MINITVM_INSTANTIATE

Expr NotNode::make(Expr a) {
  MINITVM_ICHECK(a.dtype().is_bool()) << "! of " << a.dtype();
  return make_object<NotNode>(std::move(a));
}
Expr SelectNode::make(Expr c, Expr t, Expr f) {
  MINITVM_ICHECK(c.dtype().is_bool()) << "select condition of type " << c.dtype();
  MINITVM_ICHECK(t.dtype() == f.dtype())
      << "select branches differ: " << t.dtype() << " vs " << f.dtype();
  return make_object<SelectNode>(std::move(c), std::move(t), std::move(f));
}
Expr LoadNode::make(DataType t, Var buf, Expr idx, Expr pred) {
  MINITVM_ICHECK(idx.dtype().lanes() == t.lanes()) << "load lanes mismatch";
  if (!pred.defined()) pred = make_const(DataType::Bool(t.lanes()), int64_t{1});
  return make_object<LoadNode>(t, std::move(buf), std::move(idx), std::move(pred));
}
Expr RampNode::make(Expr base, Expr stride, int lanes) {
  MINITVM_ICHECK(base.dtype().is_scalar() && base.dtype() == stride.dtype() && lanes > 1)
      << "bad ramp";
  return make_object<RampNode>(std::move(base), std::move(stride), lanes);
}
Expr BroadcastNode::make(Expr v, int lanes) {
  MINITVM_ICHECK(v.dtype().is_scalar() && lanes > 1) << "bad broadcast";
  return make_object<BroadcastNode>(std::move(v), lanes);
}
Expr LetNode::make(Var var, Expr value, Expr body) {
  return make_object<LetNode>(std::move(var), std::move(value), std::move(body));
}

const char* intrinsic_name(Intrinsic op) {
  switch (op) {
    case Intrinsic::Extern:
      return "extern";
    case Intrinsic::Likely:
      return "likely";
    case Intrinsic::IfThenElse:
      return "tvm_if_then_else";
    case Intrinsic::Exp:
      return "exp";
    case Intrinsic::Log:
      return "log";
    case Intrinsic::Sqrt:
      return "sqrt";
    case Intrinsic::Tanh:
      return "tanh";
    case Intrinsic::Fabs:
      return "fabs";
    case Intrinsic::Floor:
      return "floor";
    case Intrinsic::Ceil:
      return "ceil";
    case Intrinsic::Round:
      return "round";
    case Intrinsic::Trunc:
      return "trunc";
    case Intrinsic::Pow:
      return "pow";
    case Intrinsic::Erf:
      return "erf";
    case Intrinsic::Sigmoid:
      return "sigmoid";
    case Intrinsic::Exp2:
      return "exp2";
    case Intrinsic::Log2:
      return "log2";
    case Intrinsic::Rsqrt:
      return "rsqrt";
    case Intrinsic::IsNan:
      return "isnan";
    case Intrinsic::IsInf:
      return "isinf";
    case Intrinsic::Reinterpret:
      return "reinterpret";
    case Intrinsic::BitwiseAnd:
      return "bitwise_and";
    case Intrinsic::BitwiseOr:
      return "bitwise_or";
    case Intrinsic::BitwiseXor:
      return "bitwise_xor";
    case Intrinsic::BitwiseNot:
      return "bitwise_not";
    case Intrinsic::ShiftLeft:
      return "shift_left";
    case Intrinsic::ShiftRight:
      return "shift_right";
    case Intrinsic::StorageSync:
      return "tvm_storage_sync";
    case Intrinsic::ThreadAllreduce:
      return "tvm_thread_allreduce";
    case Intrinsic::AddressOf:
      return "address_of";
    case Intrinsic::Prefetch:
      return "prefetch";
  }
  return "?";
}

Expr CallNode::make(DataType t, Intrinsic op, std::vector<Expr> args) {
  return make_object<CallNode>(t, op, intrinsic_name(op), std::move(args));
}
Expr CallNode::make_extern(DataType t, std::string name, std::vector<Expr> args) {
  return make_object<CallNode>(t, Intrinsic::Extern, std::move(name), std::move(args));
}

Expr ReduceNode::make(CommReducer combiner, std::vector<Expr> source, std::vector<IterVar> axis,
                      Expr condition, int value_index) {
  MINITVM_ICHECK(value_index >= 0 && value_index < static_cast<int>(source.size()))
      << "reduce value_index";
  auto n = make_object<ReduceNode>(source[value_index].dtype());
  auto* m = const_cast<ReduceNode*>(n.get());
  m->combiner = std::move(combiner);
  m->source = std::move(source);
  m->axis = std::move(axis);
  m->condition = condition.defined() ? condition : make_const(DataType::Bool(), int64_t{1});
  m->value_index = value_index;
  return n;
}

Expr ProducerLoadNode::make(DataType t, FunctionRef op, int vi, std::vector<Expr> idx) {
  return make_object<ProducerLoadNode>(t, std::move(op), vi, std::move(idx));
}

}  // namespace minitvm::ir
