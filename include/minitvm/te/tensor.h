/** \file
 * Tensor expressions: tensors, the operations that produce them, and the TE entry points
 * (`placeholder`, `compute`, `reduce_axis`, reductions, `thread_axis`), mirroring TVM's `te`.
 *
 *   te::Tensor A = te::placeholder({n, m}, DataType::Float(32), "A");
 *   te::IterVar k = te::reduce_axis({0, m}, "k");
 *   te::Tensor S = te::compute({n}, [&](Var i) { return te::sum(A(i, k), {k}); }, "S");
 */
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "minitvm/ir/expr.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm {
using ir::Expr;
using ir::IterVar;
using ir::Range;
using ir::Var;
}  // namespace minitvm

namespace minitvm::te {

using ir::Expr;
using ir::IterVar;
using ir::Range;
using ir::Var;

class Tensor;

/** Operation kinds. Every operation node records its kind, so that `Operation::as<ComputeOpNode>()`
 *  is a compare, not RTTI (as the IR's NodeKind; all operations share NodeKind::Operation). */
enum class OpType : uint8_t { Placeholder, Compute };

class BaseOpNode : public ir::OperationNode {
 public:
  explicit BaseOpNode(OpType type) : op_type_(type) {}
  OpType op_type() const { return op_type_; }
  /** The tensors read by this operation. */
  virtual std::vector<Tensor> input_tensors() const = 0;

 private:
  OpType op_type_;
};

/** A handle to an operation (the op of a tensor). */
class Operation : public ir::Ref<ir::OperationNode> {
 public:
  Operation() = default;
  Operation(ir::Ref<ir::OperationNode> r) : ir::Ref<ir::OperationNode>(std::move(r)) {}
  const BaseOpNode* base() const { return static_cast<const BaseOpNode*>(get()); }
  const std::string& name() const { return get()->name; }
  OpType op_type() const { return base()->op_type(); }
  /** Downcast by operation kind: `op.as<ComputeOpNode>()`; nullptr for an undefined operation or
   *  one of another kind. */
  template <typename T>
  const T* as() const {
    if (defined() && base()->op_type() == T::kOpType) return static_cast<const T*>(base());
    return nullptr;
  }
  /** Data-parallel axes of a compute op (empty for a placeholder). */
  const std::vector<IterVar>& axis() const;
  /** Reduction axes of a compute op. */
  const std::vector<IterVar>& reduce_axis() const;
  Tensor output(int i) const;
  int num_outputs() const { return get()->num_outputs(); }
  std::vector<Tensor> input_tensors() const;
};

struct TensorNode : public ir::Object {
  TensorNode() : ir::Object(ir::NodeKind::Tensor) {}
  static constexpr ir::NodeKind kKind = ir::NodeKind::Tensor;
  std::vector<Expr> shape;
  DataType dtype;
  Operation op;
  int value_index = 0;
};

class Tensor : public ir::Ref<TensorNode> {
 public:
  Tensor() = default;
  Tensor(ir::Ref<TensorNode> r) : ir::Ref<TensorNode>(std::move(r)) {}
  static Tensor make(std::vector<Expr> shape, DataType dtype, Operation op, int value_index);

  /** Read an element: A(i, j). Accepts Exprs, Vars, IterVars and integers. */
  template <typename... Args>
  Expr operator()(Args&&... args) const {
    return read({to_expr(std::forward<Args>(args))...});
  }
  Expr read(const std::vector<Expr>& indices) const;
  Operation op() const { return get()->op; }
  const std::vector<Expr>& shape() const { return get()->shape; }
  DataType dtype() const { return get()->dtype; }
  int ndim() const { return static_cast<int>(get()->shape.size()); }
  int value_index() const { return get()->value_index; }
  const std::string& name() const { return get()->op.name(); }

 private:
  static Expr to_expr(const Expr& e) { return e; }
  static Expr to_expr(const IterVar& iv) { return iv->var; }
  static Expr to_expr(int v) { return Expr(v); }
  static Expr to_expr(int64_t v) { return Expr(v); }
};

class PlaceholderOpNode : public BaseOpNode {
 public:
  static constexpr OpType kOpType = OpType::Placeholder;
  PlaceholderOpNode() : BaseOpNode(kOpType) {}
  std::vector<Expr> shape;
  DataType dtype;
  int num_outputs() const override { return 1; }
  DataType output_dtype(int) const override { return dtype; }
  std::vector<Expr> output_shape(int) const override { return shape; }
  std::vector<Tensor> input_tensors() const override { return {}; }
};

class ComputeOpNode : public BaseOpNode {
 public:
  static constexpr OpType kOpType = OpType::Compute;
  ComputeOpNode() : BaseOpNode(kOpType) {}
  std::vector<IterVar> axis;
  std::vector<IterVar> reduce_axis;
  /** One expression per output; for reductions each is a Reduce with its value_index. */
  std::vector<Expr> body;
  int num_outputs() const override { return static_cast<int>(body.size()); }
  DataType output_dtype(int i) const override { return body[i].dtype(); }
  std::vector<Expr> output_shape(int) const override;
  std::vector<Tensor> input_tensors() const override;
};

/** Make a compute op directly from axes and bodies (used by schedule transformations). */
Operation make_compute_op(std::string name, std::string tag, std::vector<IterVar> axis,
                          std::vector<Expr> body);

// ---- user entry points -------------------------------------------------------------------------

/** One dimension of a shape: an integer expression (Expr, Var, IterVar) or an integer of any C++
 *  type (int, int64_t, size_t, ...), which becomes an int32 constant, or an int64 one when it does
 *  not fit int32 (as TVM converts Python ints). `placeholder`/`compute` reject negative constants
 * and values beyond int64 with a CompileError naming the tensor and the dimension. */
class Dim {
 public:
  Dim(Expr e) : expr_(std::move(e)) {}
  Dim(const IterVar& iv) : expr_(iv->var) {}
  template <std::integral T>
  requires(!std::is_same_v<T, bool>) Dim(T v) {
    if constexpr (std::is_signed_v<T>) {
      set(static_cast<int64_t>(v));
    } else if (static_cast<uint64_t>(v) <= static_cast<uint64_t>(INT64_MAX)) {
      set(static_cast<int64_t>(v));
    } else {
      overflow_ = std::to_string(static_cast<uint64_t>(v));
    }
  }
  /** The dimension as an expression; undefined when the integer did not fit int64. */
  const Expr& expr() const { return expr_; }
  /** The decimal text of an integer too large for int64 (else empty). */
  const std::string& overflow() const { return overflow_; }

 private:
  void set(int64_t v);
  Expr expr_;
  std::string overflow_;
};

/** A tensor shape: `{n, m}` with any mix of integers and integer expressions, a
 *  std::vector<Expr>, or a std::vector of integers. */
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<Dim> dims) : dims_(dims) {}
  Shape(const std::vector<Expr>& dims) : dims_(dims.begin(), dims.end()) {}
  template <std::integral T>
  Shape(const std::vector<T>& dims) : dims_(dims.begin(), dims.end()) {}
  size_t size() const { return dims_.size(); }
  const std::vector<Dim>& dims() const { return dims_; }
  /** The dimensions as expressions, each checked (integer type, not a negative constant, fits
   *  int64); `what` and `name` name the tensor in the CompileError ("placeholder A: dimension 0 is
   * -4"). */
  std::vector<Expr> checked(const char* what, const std::string& name) const;

 private:
  std::vector<Dim> dims_;
};

/** A variable (TVM's te.var), e.g. a symbolic shape dimension `te::var("n")`. */
inline Var var(std::string name = "tindex", DataType dtype = DataType::Int(32)) {
  return Var(std::move(name), dtype);
}

Tensor placeholder(Shape shape, DataType dtype = DataType::Float(32),
                   std::string name = "placeholder");

using FCompute = std::function<Expr(const std::vector<Var>&)>;
/** compute(shape, f(vector<Var>)) for any rank. */
Tensor compute(Shape shape, FCompute f, std::string name = "compute", std::string tag = "");
/** Multi-output compute (e.g. argmax pairs): every body shares the axes. */
std::vector<Tensor> compute_multi(Shape shape,
                                  std::function<std::vector<Expr>(const std::vector<Var>&)> f,
                                  std::string name = "compute", std::string tag = "");
Tensor compute(Shape shape, std::function<Expr(Var)> f, std::string name = "compute",
               std::string tag = "");
Tensor compute(Shape shape, std::function<Expr(Var, Var)> f, std::string name = "compute",
               std::string tag = "");
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var)> f, std::string name = "compute",
               std::string tag = "");
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var, Var)> f, std::string name = "compute",
               std::string tag = "");
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var, Var, Var)> f,
               std::string name = "compute", std::string tag = "");
Tensor compute(Shape shape, std::function<Expr(Var, Var, Var, Var, Var, Var)> f,
               std::string name = "compute", std::string tag = "");

namespace detail {
/** compute with explicit axis names; `arity` is the lambda's number of index variables (-1: it
 *  takes the vector). */
Tensor compute_named(Shape shape, FCompute f, int arity, std::string name,
                     std::vector<std::string> axis_names, std::string tag);
template <typename F, size_t... I>
FCompute spread(F&& f, std::index_sequence<I...>) {
  return [f = std::forward<F>(f)](const std::vector<Var>& v) -> Expr { return f(v[I]...); };
}
template <typename F, size_t N = 1>
constexpr int index_arity() {
  if constexpr (N > 6) {
    return 0;
  } else {
    constexpr bool ok = []<size_t... I>(std::index_sequence<I...>) {
      return std::is_invocable_r_v<Expr, F, decltype((void)I, Var())...>;
    }
    (std::make_index_sequence<N>());
    if constexpr (ok)
      return static_cast<int>(N);
    else
      return index_arity<F, N + 1>();
  }
}
template <typename F>
Tensor compute_with_names(Shape shape, F&& f, std::string name, std::vector<std::string> axis_names,
                          std::string tag) {
  using D = std::decay_t<F>;
  if constexpr (std::is_invocable_r_v<Expr, D, const std::vector<Var>&>) {
    return compute_named(std::move(shape), FCompute(std::forward<F>(f)), -1, std::move(name),
                         std::move(axis_names), std::move(tag));
  } else {
    constexpr int n = index_arity<D>();
    static_assert(
        n > 0,
        "te::compute: the function must take 1 to 6 Var indices (or a const std::vector<Var>&) "
        "and return an Expr");
    return compute_named(std::move(shape),
                         spread(std::forward<F>(f), std::make_index_sequence<n>()), n,
                         std::move(name), std::move(axis_names), std::move(tag));
  }
}
}  // namespace detail

/** compute with named axes, as TVM names them after the lambda's parameters:
 *
 *   te::compute({N, K, H, W}, [&](Var n, Var k, Var y, Var x) { ... }, "C", {"n", "k", "y", "x"});
 *
 * The axes (and so the loops, the lowered IR and error messages) are called `n, k, y, x` instead of
 * `i0 ... i3`. One name per dimension, non-empty and distinct. */
template <typename F>
Tensor compute(Shape shape, F&& f, std::string name, std::initializer_list<std::string> axis_names,
               std::string tag = "") {
  return detail::compute_with_names(std::move(shape), std::forward<F>(f), std::move(name),
                                    std::vector<std::string>(axis_names), std::move(tag));
}
template <typename F>
Tensor compute(Shape shape, F&& f, std::string name, const std::vector<std::string>& axis_names,
               std::string tag = "") {
  return detail::compute_with_names(std::move(shape), std::forward<F>(f), std::move(name),
                                    axis_names, std::move(tag));
}

/** A reduction axis over `dom` ({begin, end} or Range(min, extent)). */
IterVar reduce_axis(Range dom, std::string name = "rv");
/** A thread axis, e.g. thread_axis("blockIdx.x"), thread_axis("vthread"); dom optional. */
IterVar thread_axis(std::string tag, Range dom = Range());
IterVar thread_axis(Range dom, std::string tag);

Expr sum(Expr source, std::vector<IterVar> axis, Expr where = Expr());
Expr max(Expr source, std::vector<IterVar> axis, Expr where = Expr());
Expr min(Expr source, std::vector<IterVar> axis, Expr where = Expr());
Expr prod(Expr source, std::vector<IterVar> axis, Expr where = Expr());
/** Binary max/min (te::max(x, 0.0f)); literals take the other operand's type. */
template <typename A, typename B>
requires(!std::is_same_v<std::decay_t<B>, std::vector<IterVar>> &&
         !std::is_same_v<std::decay_t<B>, std::initializer_list<IterVar>>) Expr max(A&& a, B&& b) {
  return ir::max(std::forward<A>(a), std::forward<B>(b));
}
template <typename A, typename B>
requires(!std::is_same_v<std::decay_t<B>, std::vector<IterVar>> &&
         !std::is_same_v<std::decay_t<B>, std::initializer_list<IterVar>>) Expr min(A&& a, B&& b) {
  return ir::min(std::forward<A>(a), std::forward<B>(b));
}
/** A general commutative reduction: combiner with identity over axis. */
Expr reduce(ir::CommReducer combiner, Expr source, std::vector<IterVar> axis, Expr where = Expr());
/** Multi-value reduction (e.g. argmax): returns one Reduce per value. */
std::vector<Expr> reduce_multi(ir::CommReducer combiner, std::vector<Expr> sources,
                               std::vector<IterVar> axis, Expr where = Expr());
/** Build a reducer from a combining function and identity values. */
ir::CommReducer comm_reducer(
    std::function<std::vector<Expr>(const std::vector<Var>&, const std::vector<Var>&)> f,
    std::vector<Expr> identity, std::string name = "reducer");

using ir::abs;
using ir::cast;
using ir::ceil;
using ir::erf;
using ir::exp;
using ir::fabs;
using ir::floor;
using ir::floordiv;
using ir::floormod;
using ir::if_then_else;
using ir::isinf;
using ir::isnan;
using ir::log;
using ir::pow;
using ir::round;
using ir::select;
using ir::sigmoid;
using ir::sqrt;
using ir::tanh;
using ir::truncdiv;
using ir::truncmod;

}  // namespace minitvm::te
