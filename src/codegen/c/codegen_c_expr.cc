// CodeGenC: expression printing and the default (plain C) target hooks.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "minitvm/codegen/codegen_c.h"

namespace minitvm::codegen {

using namespace ir;

CodeGenC::CodeGenC() = default;
CodeGenC::~CodeGenC() = default;

std::string CodeGenC::print_expr(const Expr& e) {
  std::ostringstream os;
  print_expr(e, os);
  return os.str();
}

void CodeGenC::print_expr(const Expr& e, std::ostream& os) {
  MINITVM_ICHECK(e.defined()) << "printing an undefined expression";
  std::ostream* saved = os_;
  os_ = &os;
  visit_expr(e);
  os_ = saved;
}

const std::string& CodeGenC::var_id(const VarNode* v) const {
  auto it = var_ids_.find(v);
  MINITVM_ICHECK(it != var_ids_.end())
      << "variable '" << v->name_hint << "' is used before it is defined";
  return it->second;
}

std::string CodeGenC::alloc_var_id(const VarNode* v) {
  std::string name = names_.fresh(v->name_hint);
  var_ids_[v] = name;
  return name;
}

void CodeGenC::bind_var_text(const VarNode* v, std::string text) {
  var_ids_[v] = std::move(text);
}

DataType CodeGenC::buffer_elem_type(const VarNode* buf) const {
  auto it = buffer_types_.find(buf);
  if (it != buffer_types_.end()) return it->second;
  MINITVM_ICHECK(!buf->pointee.is_void())
      << "buffer '" << buf->name_hint << "' has no element type";
  return buf->pointee;
}

StorageScope CodeGenC::buffer_scope(const VarNode* buf) const {
  auto it = buffer_scopes_.find(buf);
  return it == buffer_scopes_.end() ? StorageScope::Global : it->second;
}

bool CodeGenC::use_vector_access(DataType t, const Expr& index, const Expr& predicate) const {
  if (!t.is_vector() || !supports_vector_access(t)) return false;
  if (predicate.defined() && !is_one(predicate)) return false;
  auto* ramp = index.as<RampNode>();
  if (!ramp || !is_one(ramp->stride)) return false;
  return is_multiple_of(ramp->base, t.lanes());
}

bool CodeGenC::provably_nonneg(const Expr& e) const {
  if (auto* i = e.as<IntImmNode>()) return i->value >= 0;
  if (auto* v = e.as<VarNode>()) return nonneg_vars_.count(v) != 0;
  if (auto* c = e.as<CastNode>()) {
    return c->dtype.is_integral() && c->value.dtype().is_integral() &&
           c->dtype.bits() >= c->value.dtype().bits() && provably_nonneg(c->value);
  }
#define MINITVM_NONNEG_BOTH(N) \
  if (auto* b = e.as<N##Node>()) return provably_nonneg(b->a) && provably_nonneg(b->b);
  MINITVM_NONNEG_BOTH(Add)
  MINITVM_NONNEG_BOTH(Mul)
  MINITVM_NONNEG_BOTH(Div)
  MINITVM_NONNEG_BOTH(Mod)
  MINITVM_NONNEG_BOTH(FloorDiv)
  MINITVM_NONNEG_BOTH(FloorMod)
  MINITVM_NONNEG_BOTH(Min)
#undef MINITVM_NONNEG_BOTH
  if (auto* m = e.as<MaxNode>()) return provably_nonneg(m->a) || provably_nonneg(m->b);
  if (auto* s = e.as<SelectNode>())
    return provably_nonneg(s->true_value) && provably_nonneg(s->false_value);
  return false;
}

// ---- default hooks -----------------------------------------------------------------------------
void CodeGenC::print_type(DataType t, std::ostream& os) {
  MINITVM_USER_CHECK(t.is_scalar()) << "C backend: vector type " << t << " is not supported";
  if (t.is_handle()) {
    os << "void*";
  } else if (t.is_bool()) {
    os << "bool";
  } else if (t.is_float() && t.bits() == 32) {
    os << "float";
  } else if (t.is_float() && t.bits() == 64) {
    os << "double";
  } else if (t.is_int() || t.is_uint()) {
    MINITVM_USER_CHECK(t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64)
        << "C backend: integer type " << t << " is not supported";
    os << (t.is_uint() ? "uint" : "int") << t.bits() << "_t";
  } else {
    MINITVM_USER_ERROR << "C backend: type " << t << " is not supported";
  }
}

void CodeGenC::print_func_prefix(const PrimFunc&, std::ostream& os) {
  os << "void";
}
void CodeGenC::print_func_attrs(const PrimFunc&, std::ostream&) {}
void CodeGenC::print_storage_scope(StorageScope, std::ostream&) {}

void CodeGenC::bind_thread_index(const IterVar& iv) {
  MINITVM_USER_ERROR << "C backend: thread binding '" << iv.thread_tag() << "' needs a GPU target";
}

void CodeGenC::print_storage_sync(const CallNode*) {
  MINITVM_USER_ERROR << "C backend: tvm_storage_sync needs a GPU target";
}

bool CodeGenC::supports_vector_access(DataType) const {
  return false;
}

void CodeGenC::print_vec_load(const Var& buffer, DataType t, const Expr& base, std::ostream& os) {
  os << "((";
  print_type(t, os);
  os << "*)(" << var_id(buffer.get()) << " + " << print_expr(base) << "))[0]";
}

void CodeGenC::print_vec_store(const Var& buffer, DataType t, const Expr& base,
                               const std::string& value) {
  print_indent();
  stream_ << "((";
  print_type(t, stream_);
  stream_ << "*)(" << var_id(buffer.get()) << " + " << print_expr(base) << "))[0] = " << value
          << ";\n";
}

void CodeGenC::print_vec_construct(DataType t, const std::vector<std::string>& lanes,
                                   std::ostream& os) {
  os << "((";
  print_type(t, os);
  os << "){";
  for (size_t i = 0; i < lanes.size(); ++i) os << (i ? ", " : "") << lanes[i];
  os << "})";
}

void CodeGenC::print_int_const(DataType t, int64_t v, std::ostream& os) {
  if (t.is_bool()) {
    os << (v ? "true" : "false");
  } else if (t.bits() == 64) {
    if (t.is_uint()) {
      os << static_cast<uint64_t>(v) << "ULL";
    } else if (v == std::numeric_limits<int64_t>::min()) {
      os << "(-9223372036854775807LL - 1LL)";
    } else {
      os << v << "LL";
    }
  } else if (t.is_uint()) {
    os << static_cast<uint64_t>(v) << "U";
  } else if (t.bits() == 32) {
    if (v == std::numeric_limits<int32_t>::min())
      os << "(-2147483647 - 1)";
    else
      os << v;
  } else {
    os << "((";
    print_type(t, os);
    os << ")" << v << ")";
  }
}

namespace {
/** Shortest of "%.6e" (TVM's spelling) and round-trip precision that reproduces v exactly. */
std::string float_text(double v, bool single) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6e", v);
  bool exact =
      single ? std::strtof(buf, nullptr) == static_cast<float>(v) : std::strtod(buf, nullptr) == v;
  if (!exact) std::snprintf(buf, sizeof(buf), single ? "%.8e" : "%.16e", v);
  return buf;
}
}  // namespace

void CodeGenC::print_float_const(DataType t, double v, std::ostream& os) {
  bool single = t.bits() == 32;
  if (std::isnan(v)) {
    os << (single ? "NAN" : "(double)NAN");
  } else if (std::isinf(v)) {
    os << (v < 0 ? "-" : "") << (single ? "INFINITY" : "(double)INFINITY");
  } else {
    os << float_text(v, single) << (single ? "f" : "");
  }
}

void CodeGenC::print_min_max(bool is_max, const Expr& a, const Expr& b, std::ostream& os) {
  os << (is_max ? "max(" : "min(") << print_expr(a) << ", " << print_expr(b) << ")";
}

void CodeGenC::print_math_call(const CallNode* op, std::ostream& os) {
  DataType t = op->dtype;
  std::string name = op->name;
  if (op->op == Intrinsic::Sigmoid) {
    const char* one = t.bits() == 32 ? "1.000000e+00f" : "1.0";
    const char* e = t.bits() == 32 ? "expf" : "exp";
    os << "(" << one << " / (" << one << " + " << e << "((-" << print_expr(op->args[0]) << "))))";
    return;
  }
  if (t.bits() == 32 && t.is_float()) name += "f";
  os << name << "(";
  for (size_t i = 0; i < op->args.size(); ++i) os << (i ? ", " : "") << print_expr(op->args[i]);
  os << ")";
}

void CodeGenC::print_cast(DataType to, const Expr& value, std::ostream& os) {
  os << "((";
  print_type(to, os);
  os << ")" << print_expr(value) << ")";
}

void CodeGenC::print_unroll_hint() {}
void CodeGenC::print_alloc_alignment(const AllocateNode*, std::ostream& os) {
  os << "_Alignas(16) ";
}

std::string CodeGenC::preamble() {
  std::string s;
  if (need_floordiv_) {
    s += "static inline int mtvm_floordiv(int a, int b) { int q = a / b; return (q * b != a && ((a "
         "< 0) != (b < 0))) ? q - 1 : q; }\n"
         "static inline int mtvm_floormod(int a, int b) { int r = a % b; return (r != 0 && ((r < "
         "0) != (b < 0))) ? r + b : r; }\n"
         "static inline long long mtvm_floordiv(long long a, long long b) { long long q = a / b; "
         "return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
         "static inline long long mtvm_floormod(long long a, long long b) { long long r = a % b; "
         "return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n";
  }
  return s;
}

// ---- expression visitors -----------------------------------------------------------------------
void CodeGenC::print_binary(const char* op, const Expr& a, const Expr& b) {
  out() << "(" << print_expr(a) << " " << op << " " << print_expr(b) << ")";
}

void CodeGenC::visit(const IntImmNode* op) {
  print_int_const(op->dtype, op->value, out());
}
void CodeGenC::visit(const FloatImmNode* op) {
  print_float_const(op->dtype, op->value, out());
}
void CodeGenC::visit(const StringImmNode* op) {
  out() << "\"" << op->value << "\"";
}
void CodeGenC::visit(const VarNode* op) {
  out() << var_id(op);
}

void CodeGenC::visit(const CastNode* op) {
  if (op->dtype.is_vector()) {
    std::vector<std::string> lanes;
    for (int i = 0; i < op->dtype.lanes(); ++i)
      lanes.push_back(print_expr(extract_lane(Expr(op), i)));
    print_vec_construct(op->dtype, lanes, out());
    return;
  }
  print_cast(op->dtype, op->value, out());
}

namespace {
bool is_vector_node(const ExprNode* n) {
  return n->dtype.is_vector();
}
}  // namespace

#define MINITVM_VECTOR_FALLBACK(op)                           \
  if (is_vector_node(op)) {                                   \
    std::vector<std::string> lanes;                           \
    for (int i = 0; i < op->dtype.lanes(); ++i)               \
      lanes.push_back(print_expr(extract_lane(Expr(op), i))); \
    print_vec_construct(op->dtype, lanes, out());             \
    return;                                                   \
  }

#define MINITVM_PRINT_BINOP(N, TOKEN)       \
  void CodeGenC::visit(const N##Node* op) { \
    MINITVM_VECTOR_FALLBACK(op)             \
    print_binary(TOKEN, op->a, op->b);      \
  }
MINITVM_PRINT_BINOP(Add, "+")
MINITVM_PRINT_BINOP(Sub, "-")
MINITVM_PRINT_BINOP(Mul, "*")
MINITVM_PRINT_BINOP(Div, "/")
MINITVM_PRINT_BINOP(Mod, "%")
MINITVM_PRINT_BINOP(And, "&&")
MINITVM_PRINT_BINOP(Or, "||")
#undef MINITVM_PRINT_BINOP

// Comparisons have a bool (vector) type; their operands decide the lane count.
#define MINITVM_PRINT_CMP(N, TOKEN)         \
  void CodeGenC::visit(const N##Node* op) { \
    MINITVM_VECTOR_FALLBACK(op)             \
    print_binary(TOKEN, op->a, op->b);      \
  }
MINITVM_PRINT_CMP(EQ, "==")
MINITVM_PRINT_CMP(NE, "!=")
MINITVM_PRINT_CMP(LT, "<")
MINITVM_PRINT_CMP(LE, "<=")
MINITVM_PRINT_CMP(GT, ">")
MINITVM_PRINT_CMP(GE, ">=")
#undef MINITVM_PRINT_CMP

void CodeGenC::print_floor_divmod(bool is_div, const Expr& a, const Expr& b) {
  DataType t = a.dtype();
  if (t.is_floating()) {
    // floor(a / b) for floats; floormod as a - floor(a / b) * b
    const char* fl = t.bits() == 64 ? "floor" : "floorf";
    std::string sa = print_expr(a), sb = print_expr(b);
    if (is_div)
      out() << fl << "((" << sa << " / " << sb << "))";
    else
      out() << "(" << sa << " - (" << fl << "((" << sa << " / " << sb << ")) * " << sb << "))";
    return;
  }
  const int64_t* c = as_const_int(b);
  if (c && *c > 0 && (*c & (*c - 1)) == 0 && t.is_int()) {
    // power of two: arithmetic shift / mask are exact floor semantics for two's complement
    int k = 0;
    while ((int64_t{1} << k) < *c) ++k;
    if (is_div) {
      out() << "(" << print_expr(a) << " >> " << k << ")";
    } else {
      out() << "(" << print_expr(a) << " & ";
      print_int_const(t, *c - 1, out());
      out() << ")";
    }
    return;
  }
  if (t.is_uint() || (provably_nonneg(a) && c && *c > 0)) {
    print_binary(is_div ? "/" : "%", a, b);
    return;
  }
  MINITVM_USER_CHECK(t.is_int() && (t.bits() == 32 || t.bits() == 64))
      << "floordiv/floormod of type " << t << " is not supported by the C printer";
  need_floordiv_ = true;
  out() << (is_div ? "mtvm_floordiv(" : "mtvm_floormod(") << print_expr(a) << ", " << print_expr(b)
        << ")";
}

void CodeGenC::visit(const FloorDivNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
  print_floor_divmod(true, op->a, op->b);
}
void CodeGenC::visit(const FloorModNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
  print_floor_divmod(false, op->a, op->b);
}
void CodeGenC::visit(const MinNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
  print_min_max(false, op->a, op->b, out());
}
void CodeGenC::visit(const MaxNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
  print_min_max(true, op->a, op->b, out());
}
void CodeGenC::visit(const NotNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
  out() << "(!" << print_expr(op->a) << ")";
}
void CodeGenC::visit(const SelectNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
  out() << "(" << print_expr(op->condition) << " ? " << print_expr(op->true_value) << " : "
        << print_expr(op->false_value) << ")";
}

void CodeGenC::visit(const LoadNode* op) {
  if (op->dtype.is_vector()) {
    if (use_vector_access(op->dtype, op->index, op->predicate)) {
      print_vec_load(op->buffer_var, op->dtype, op->index.as<RampNode>()->base, out());
      return;
    }
    MINITVM_VECTOR_FALLBACK(op)
  }
  std::string access = var_id(op->buffer_var.get()) + "[" + print_expr(op->index) + "]";
  if (op->predicate.defined() && !is_one(op->predicate)) {
    out() << "(" << print_expr(op->predicate) << " ? " << access << " : ";
    print_expr(make_zero(op->dtype), out());
    out() << ")";
  } else {
    out() << access;
  }
}

void CodeGenC::visit(const RampNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
}
void CodeGenC::visit(const BroadcastNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
}

void CodeGenC::visit(const LetNode* op) {
  // Inline: the variable prints as its parenthesised value.
  std::string value = print_expr(op->value);
  bool nonneg = provably_nonneg(op->value);
  bind_var_text(op->var.get(), "(" + value + ")");
  if (nonneg) nonneg_vars_.insert(op->var.get());
  print_expr(op->body, out());
}

void CodeGenC::visit(const CallNode* op) {
  MINITVM_VECTOR_FALLBACK(op)
  auto& a = op->args;
  auto binop = [&](const char* tok) { print_binary(tok, a.at(0), a.at(1)); };
  switch (op->op) {
    case Intrinsic::Likely:
      print_expr(a.at(0), out());
      return;
    case Intrinsic::IfThenElse:
      out() << "(" << print_expr(a.at(0)) << " ? " << print_expr(a.at(1)) << " : "
            << print_expr(a.at(2)) << ")";
      return;
    case Intrinsic::BitwiseAnd:
      binop("&");
      return;
    case Intrinsic::BitwiseOr:
      binop("|");
      return;
    case Intrinsic::BitwiseXor:
      binop("^");
      return;
    case Intrinsic::ShiftLeft:
      binop("<<");
      return;
    case Intrinsic::ShiftRight:
      binop(">>");
      return;
    case Intrinsic::BitwiseNot:
      out() << "(~" << print_expr(a.at(0)) << ")";
      return;
    case Intrinsic::StorageSync:
      MINITVM_INTERNAL_ERROR
          << "tvm_storage_sync used as a value; it must be an Evaluate statement";
      return;
    case Intrinsic::ThreadAllreduce:
      MINITVM_INTERNAL_ERROR
          << "tvm_thread_allreduce reached code generation (lower_thread_allreduce lowers it)";
      return;
    case Intrinsic::AddressOf:
      out() << "(&" << print_expr(a.at(0)) << ")";
      return;
    case Intrinsic::Prefetch:
      MINITVM_INTERNAL_ERROR << "prefetch used as a value; it must be an Evaluate statement";
      return;
    case Intrinsic::Extern:
      out() << op->name << "(";
      for (size_t i = 0; i < a.size(); ++i) out() << (i ? ", " : "") << print_expr(a[i]);
      out() << ")";
      return;
    default:
      print_math_call(op, out());
      return;
  }
}

void CodeGenC::visit(const ReduceNode*) {
  MINITVM_INTERNAL_ERROR << "Reduce node reached code generation (it must be lowered first)";
}
void CodeGenC::visit(const ProducerLoadNode*) {
  MINITVM_INTERNAL_ERROR
      << "ProducerLoad reached code generation (storage flattening must run first)";
}

#undef MINITVM_VECTOR_FALLBACK

}  // namespace minitvm::codegen
