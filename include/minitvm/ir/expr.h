/** \file
 * Expression nodes of the minitvm IR (most originate from Halide, via TVM v0.6).
 *
 * Every node is an immutable struct with public fields, built through its static `make`, which
 * checks the operands' types (a failed check is an InternalError). Handles: `Expr` (any
 * expression), `Var`, `IterVar`, `Range`. Variables are identified by address; `name_hint` is used
 * only for printing and code generation.
 *
 * Semantics worth stating:
 * - `Div`/`Mod` are truncating on integers (C semantics) and ordinary division on floats;
 *   `FloorDiv`/`FloorMod` round toward negative infinity (the index arithmetic of schedules).
 * - `Load(buffer_var, index, predicate)` reads element `index` of a flat buffer; vector loads have
 * a Ramp index. Before storage flattening tensors are read with `ProducerLoad(op, indices)`.
 * - `Reduce` is a commutative reduction: `combiner` over `source`, across `axis`, under
 *   `condition`; `value_index` selects one output of a multi-value reducer (argmax).
 */
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "minitvm/ir/dtype.h"
#include "minitvm/ir/object.h"
#include "minitvm/support/error.h"

namespace minitvm::ir {

class ExprNode : public Object {
 public:
  ExprNode(NodeKind k, DataType t) : Object(k), dtype(t) {}
  DataType dtype;
};

class StmtNode : public Object {
 public:
  explicit StmtNode(NodeKind k) : Object(k) {}
};

/** Handle to any expression. Constructible from C++ int and float literals (int32 / float32). */
class Expr : public Ref<ExprNode> {
 public:
  Expr() = default;
  Expr(std::nullptr_t) {}
  explicit Expr(const ExprNode* p) : Ref<ExprNode>(p) {}
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<ExprNode, U> &&
                                                    !std::is_same_v<ExprNode, U>>>
  Expr(const Ref<U>& r) : Ref<ExprNode>(r.get()) {}
  Expr(int v);
  Expr(int64_t v);
  Expr(float v);
  Expr(double v);
  DataType dtype() const { return get()->dtype; }
};

class Stmt : public Ref<StmtNode> {
 public:
  Stmt() = default;
  Stmt(std::nullptr_t) {}
  explicit Stmt(const StmtNode* p) : Ref<StmtNode>(p) {}
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<StmtNode, U> &&
                                                    !std::is_same_v<StmtNode, U>>>
  Stmt(const Ref<U>& r) : Ref<StmtNode>(r.get()) {}
};

// ---- leaves ------------------------------------------------------------------------------------
struct IntImmNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::IntImm;
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  int64_t value;
  static Expr make(DataType t, int64_t value);
};

struct FloatImmNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::FloatImm;
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
  double value;
  static Expr make(DataType t, double value);
};

struct StringImmNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::StringImm;
  explicit StringImmNode(std::string v)
      : ExprNode(kKind, DataType::Handle()), value(std::move(v)) {}
  std::string value;
  static Expr make(std::string value);
};

struct VarNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Var;
  VarNode(std::string name, DataType t, DataType pointee)
      : ExprNode(kKind, t), name_hint(std::move(name)), pointee(pointee) {}
  std::string name_hint;
  /** For buffer (handle) variables: the element type pointed to. */
  DataType pointee;
};

/** A variable handle. Default: int32 index variable. */
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType t = DataType::Int(32));
  Var(Ref<VarNode> r) : Expr(r) {}
  /** A handle variable naming a buffer of `elem` elements. */
  static Var buffer(std::string name, DataType elem);
  const VarNode* get() const { return static_cast<const VarNode*>(Expr::get()); }
  const VarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name_hint; }
};

// ---- casts and binary operators ----------------------------------------------------------------
struct CastNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Cast;
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  Expr value;
  static Expr make(DataType t, Expr value);
};

/** Shared layout of the binary nodes; `Kind` is the NodeKind of the concrete node. */
template <NodeKind K>
struct BinaryNode : public ExprNode {
  static constexpr NodeKind kKind = K;
  BinaryNode(DataType t, Expr a, Expr b) : ExprNode(K, t), a(std::move(a)), b(std::move(b)) {}
  Expr a, b;
  /** Builds the node; operands must already have matching types (see the operators below). */
  static Expr make(Expr a, Expr b);
};

#define MINITVM_DECLARE_BINARY(Name) using Name##Node = BinaryNode<NodeKind::Name>;
MINITVM_FOR_EACH_BINARY(MINITVM_DECLARE_BINARY)
#undef MINITVM_DECLARE_BINARY

struct NotNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Not;
  explicit NotNode(Expr a) : ExprNode(kKind, a.dtype()), a(std::move(a)) {}
  Expr a;
  static Expr make(Expr a);
};

struct SelectNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Select;
  SelectNode(Expr c, Expr t, Expr f)
      : ExprNode(kKind, t.dtype()),
        condition(std::move(c)),
        true_value(std::move(t)),
        false_value(std::move(f)) {}
  Expr condition, true_value, false_value;
  static Expr make(Expr c, Expr t, Expr f);
};

// ---- memory and vectors ------------------------------------------------------------------------
struct LoadNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Load;
  LoadNode(DataType t, Var buf, Expr idx, Expr pred)
      : ExprNode(kKind, t),
        buffer_var(std::move(buf)),
        index(std::move(idx)),
        predicate(std::move(pred)) {}
  Var buffer_var;
  Expr index;
  Expr predicate;  ///< all-true (const 1) when unconditional
  static Expr make(DataType t, Var buffer_var, Expr index, Expr predicate = Expr());
};

struct RampNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Ramp;
  RampNode(Expr base, Expr stride, int lanes)
      : ExprNode(kKind, base.dtype().with_lanes(lanes)),
        base(std::move(base)),
        stride(std::move(stride)),
        lanes(lanes) {}
  Expr base, stride;
  int lanes;
  static Expr make(Expr base, Expr stride, int lanes);
};

struct BroadcastNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Broadcast;
  BroadcastNode(Expr v, int lanes)
      : ExprNode(kKind, v.dtype().with_lanes(lanes)), value(std::move(v)), lanes(lanes) {}
  Expr value;
  int lanes;
  static Expr make(Expr value, int lanes);
};

struct LetNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Let;
  LetNode(Var v, Expr value, Expr body)
      : ExprNode(kKind, body.dtype()),
        var(std::move(v)),
        value(std::move(value)),
        body(std::move(body)) {}
  Var var;
  Expr value, body;
  static Expr make(Var var, Expr value, Expr body);
};

/** Built-in functions and intrinsics. `Extern` calls a function by name (C math library etc.). */
enum class Intrinsic : uint8_t {
  Extern,
  Likely,      ///< likely(cond): a branch hint on bound guards
  IfThenElse,  ///< tvm_if_then_else(c, t, f): evaluates only the taken branch
  Exp,
  Log,
  Sqrt,
  Tanh,
  Fabs,
  Floor,
  Ceil,
  Round,
  Trunc,
  Pow,
  Erf,
  Sigmoid,
  Exp2,
  Log2,
  Rsqrt,
  IsNan,
  IsInf,
  Reinterpret,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  BitwiseNot,
  ShiftLeft,
  ShiftRight,
  StorageSync,  ///< tvm_storage_sync("shared"): __syncthreads()
  /** tvm_thread_allreduce(size, values..., cond, result_bufs..., reduce_thread_vars...), under an
   *  AttrStmt reduce_scope naming the combiner: a reduction of each value across the listed
   *  threads, every thread receiving the result in result_bufs[i][0]. Made by schedule_to_stmt for
   *  reduce axes bound to threadIdx; lowered to shared memory by lower_thread_allreduce. */
  ThreadAllreduce,
  /** address_of(load): the address of the element a scalar Load reads (a handle); the load itself
   *  is not performed. */
  AddressOf,
  /** prefetch(address_of(A[i]), rw, locality, cache_type): a cache hint (TVM's tir.prefetch; LLVM's
   *  llvm.prefetch operands). A statement (Evaluate); never removed as dead code. */
  Prefetch,
};

/** The printed name of an intrinsic (TVM's spelling, e.g. "tvm_if_then_else", "exp"). */
const char* intrinsic_name(Intrinsic op);

struct CallNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Call;
  CallNode(DataType t, Intrinsic op, std::string name, std::vector<Expr> args)
      : ExprNode(kKind, t), op(op), name(std::move(name)), args(std::move(args)) {}
  Intrinsic op;
  std::string name;  ///< for Extern; otherwise intrinsic_name(op)
  std::vector<Expr> args;
  static Expr make(DataType t, Intrinsic op, std::vector<Expr> args);
  static Expr make_extern(DataType t, std::string name, std::vector<Expr> args);
};

// ---- ranges, iteration variables, reducers -----------------------------------------------------
struct RangeNode : public Object {
  static constexpr NodeKind kKind = NodeKind::Range;
  RangeNode(Expr min, Expr extent)
      : Object(kKind), min(std::move(min)), extent(std::move(extent)) {}
  Expr min, extent;
};

/** [min, min + extent) */
class Range : public Ref<RangeNode> {
 public:
  Range() = default;
  Range(Ref<RangeNode> r) : Ref<RangeNode>(std::move(r)) {}
  Range(Expr min, Expr extent);
  /** `{0, n}` style construction as in te::reduce_axis({0, m}). */
  Range(std::initializer_list<Expr> begin_end);
  const Expr& min() const { return get()->min; }
  const Expr& extent() const { return get()->extent; }
};

/** What an IterVar iterates over (TVM's IterVarType). */
enum class IterVarType : uint8_t {
  DataPar,      ///< data-parallel axis of a compute
  ThreadIndex,  ///< bound to a GPU thread/block index (or vthread)
  CommReduce,   ///< reduction axis
  Ordered,
  Opaque,
  Unrolled,
  Vectorized,
  Parallelized,
};

struct IterVarNode : public Object {
  static constexpr NodeKind kKind = NodeKind::IterVar;
  IterVarNode(Range dom, Var var, IterVarType t, std::string tag)
      : Object(kKind),
        dom(std::move(dom)),
        var(std::move(var)),
        iter_type(t),
        thread_tag(std::move(tag)) {}
  Range dom;  ///< may be undefined (thread axes before binding)
  Var var;
  IterVarType iter_type;
  std::string thread_tag;  ///< "blockIdx.x", "threadIdx.y", "vthread", ... or empty
};

/** An iteration variable: a Var with a domain and a type. Converts to its Var implicitly. */
class IterVar : public Ref<IterVarNode> {
 public:
  IterVar() = default;
  IterVar(Ref<IterVarNode> r) : Ref<IterVarNode>(std::move(r)) {}
  IterVar(Range dom, Var var, IterVarType t, std::string thread_tag = "");
  operator Expr() const { return get()->var; }
  operator Var() const { return get()->var; }
  const Var& var() const { return get()->var; }
  const Range& dom() const { return get()->dom; }
  IterVarType iter_type() const { return get()->iter_type; }
  const std::string& thread_tag() const { return get()->thread_tag; }
};

struct CommReducerNode : public Object {
  static constexpr NodeKind kKind = NodeKind::CommReducer;
  CommReducerNode() : Object(kKind) {}
  std::vector<Var> lhs, rhs;
  std::vector<Expr> result;
  std::vector<Expr> identity;
  std::string name;  ///< "sum", "max", "min", "prod", or user-defined
  /** Apply the combiner to concrete operands. */
  std::vector<Expr> combine(const std::vector<Expr>& a, const std::vector<Expr>& b) const;
};
using CommReducer = Ref<CommReducerNode>;

struct ReduceNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::Reduce;
  ReduceNode(DataType t) : ExprNode(kKind, t) {}
  CommReducer combiner;
  std::vector<Expr> source;
  std::vector<IterVar> axis;
  Expr condition;
  int value_index = 0;
  static Expr make(CommReducer combiner, std::vector<Expr> source, std::vector<IterVar> axis,
                   Expr condition, int value_index);
};

/** The producer of a tensor (te::Operation). Defined here so that IR can reference it. */
class OperationNode : public Object {
 public:
  OperationNode() : Object(NodeKind::Operation) {}
  static constexpr NodeKind kKind = NodeKind::Operation;
  std::string name;
  std::string tag;
  virtual int num_outputs() const = 0;
  virtual DataType output_dtype(int i) const = 0;
  virtual std::vector<Expr> output_shape(int i) const = 0;
};
using FunctionRef = Ref<OperationNode>;

/** Reading element `indices` of output `value_index` of `op`, before storage flattening. */
struct ProducerLoadNode : public ExprNode {
  static constexpr NodeKind kKind = NodeKind::ProducerLoad;
  ProducerLoadNode(DataType t, FunctionRef op, int vi, std::vector<Expr> idx)
      : ExprNode(kKind, t), op(std::move(op)), value_index(vi), indices(std::move(idx)) {}
  FunctionRef op;
  int value_index;
  std::vector<Expr> indices;
  static Expr make(DataType t, FunctionRef op, int value_index, std::vector<Expr> indices);
};

// ---- construction helpers (type-promoting, constant-folding) ----------------------------------

Expr make_const(DataType t, double value);
Expr make_const(DataType t, int64_t value);
inline Expr make_const(DataType t, int value) {
  return make_const(t, static_cast<int64_t>(value));
}
Expr make_zero(DataType t);
/** Smallest/largest value of a type; -inf/+inf for floats. */
Expr min_value(DataType t);
Expr max_value(DataType t);
/** Cast with constant folding; identity when the type already matches. */
Expr cast(DataType t, Expr v);

/** Constant queries. */
const int64_t* as_const_int(const Expr& e);
bool is_const_int(const Expr& e, int64_t v);
inline bool is_zero(const Expr& e) {
  return is_const_int(e, 0);
}
inline bool is_one(const Expr& e) {
  return is_const_int(e, 1);
}
bool is_const(const Expr& e);

// Arithmetic with TVM's type rules: int + float casts the int; narrower ints widen; a C++ literal
// takes the type of the other operand. Constant operands are folded.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
/** Float division, or truncating integer division (C semantics) for ints, as in TVM v0.6. */
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);
Expr truncdiv(Expr a, Expr b);
Expr truncmod(Expr a, Expr b);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr select(Expr cond, Expr t, Expr f);
Expr if_then_else(Expr cond, Expr t, Expr f);
Expr likely(Expr cond);
Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr tanh(Expr x);
Expr fabs(Expr x);
Expr abs(Expr x);
Expr floor(Expr x);
Expr ceil(Expr x);
Expr round(Expr x);
Expr trunc(Expr x);
Expr pow(Expr x, Expr y);
Expr erf(Expr x);
Expr sigmoid(Expr x);
Expr isnan(Expr x);
Expr isinf(Expr x);

// Literal overloads: the literal takes the other operand's type (a float literal with an int
// expression makes a float32 constant and promotes the expression, as TVM does).
#define MINITVM_LITERAL_OPS(OP) \
  Expr OP(Expr a, int b);       \
  Expr OP(int a, Expr b);       \
  Expr OP(Expr a, int64_t b);   \
  Expr OP(int64_t a, Expr b);   \
  Expr OP(Expr a, float b);     \
  Expr OP(float a, Expr b);     \
  Expr OP(Expr a, double b);    \
  Expr OP(double a, Expr b);
MINITVM_LITERAL_OPS(operator+)
MINITVM_LITERAL_OPS(operator-)
MINITVM_LITERAL_OPS(operator*)
MINITVM_LITERAL_OPS(operator/)
MINITVM_LITERAL_OPS(operator%)
MINITVM_LITERAL_OPS(operator<)
MINITVM_LITERAL_OPS(operator<=)
MINITVM_LITERAL_OPS(operator>)
MINITVM_LITERAL_OPS(operator>=)
MINITVM_LITERAL_OPS(operator==)
MINITVM_LITERAL_OPS(operator!=)
MINITVM_LITERAL_OPS(min)
MINITVM_LITERAL_OPS(max)
MINITVM_LITERAL_OPS(floordiv)
MINITVM_LITERAL_OPS(floormod)
MINITVM_LITERAL_OPS(truncdiv)
MINITVM_LITERAL_OPS(truncmod)
#undef MINITVM_LITERAL_OPS

/** Make `b` the type of `a` if b is a constant, else promote both to a common type. */
void match_types(Expr& a, Expr& b);

/** Built-in reducers. */
CommReducer sum_reducer(DataType t);
CommReducer max_reducer(DataType t);
CommReducer min_reducer(DataType t);
CommReducer prod_reducer(DataType t);

}  // namespace minitvm::ir
