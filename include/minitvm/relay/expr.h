/** \file
 * The graph IR (TVM Relay's dataflow subset): a function of typed expressions over tensors.
 *
 * Nodes are immutable and shared (`Expr` = shared_ptr<const ExprNode>); identity is the address.
 * A Var is a function input (parameters that are bound later through a Params map are Vars too),
 * a Constant holds an NDArray, a Call applies a registered operator (op.h) to arguments with
 * attributes (a JSON object, Relay's attr names), a Tuple groups values and TupleGetItem projects
 * one field. Every node carries its checked type: one TensorType, or one per field for tuple-typed
 * nodes. Types are inferred when a node is made (op.h `call`): an ill-typed call throws
 * CompileError naming the operator, the argument and the mismatch.
 *
 *   auto x = relay::var("data", {{1, 3, 224, 224}});
 *   auto w = relay::var("w", {{64, 3, 7, 7}});
 *   auto y = relay::nn::relu(relay::nn::conv2d(x, w, {.strides = {2, 2}, .padding = {3, 3, 3,
 * 3}})); relay::Function f({x, w}, y); std::cout << f;     // Relay-like text, one `%k = op(...)`
 * line per call, its type in a trailing comment
 */
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "minitvm/autotune/space.h"
#include "minitvm/ir/dtype.h"
#include "minitvm/runtime/ndarray.h"

namespace minitvm::relay {

using Json = autotune::Json;

/** Tensor type: a static shape and a dtype. */
struct TensorType {
  std::vector<int64_t> shape;
  DataType dtype = DataType::Float(32);
  int64_t numel() const;
  int64_t nbytes() const;
  /** "Tensor[(1, 64, 56, 56), float32]" */
  std::string str() const;
  bool operator==(const TensorType& o) const { return shape == o.shape && dtype == o.dtype; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};

enum class ExprKind { Var, Constant, Call, Tuple, TupleGetItem };

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind = ExprKind::Var;
  std::string name;               ///< Var: its name; Call: the operator name ("nn.conv2d")
  std::vector<Expr> args;         ///< Call: arguments; Tuple: fields; TupleGetItem: {tuple}
  Json attrs = Json::object();    ///< Call attributes
  int index = 0;                  ///< TupleGetItem field
  runtime::NDArray data;          ///< Constant value (CPU)
  std::vector<TensorType> types;  ///< checked type: 1 entry for a tensor, one per field for a tuple
  bool tuple_typed = false;

  bool is_call(const std::string& op) const { return kind == ExprKind::Call && name == op; }
  /** The tensor type (CompileError for a tuple-typed node). */
  const TensorType& type() const;
};

/** Constructors (types inferred; see op.h for calls). */
Expr var(const std::string& name, const TensorType& type);
Expr constant(const runtime::NDArray& value);
Expr tuple(const std::vector<Expr>& fields);
Expr tuple_get_item(const Expr& tuple, int index);

/** A function: inputs and body. */
struct Function {
  std::vector<Expr> params;
  Expr body;
  Function() = default;
  Function(std::vector<Expr> p, Expr b) : params(std::move(p)), body(std::move(b)) {}
  /** The Var of a parameter by name, or nullptr. */
  Expr param(const std::string& name) const;
};

/** Named parameter values (Relay's params dict). */
using Params = std::map<std::string, runtime::NDArray>;

/** Nodes reachable from `body` in post-DFS order (operands before users, each once). */
std::vector<Expr> post_order(const Expr& body);

/** Relay-like text (see the file comment). */
std::string to_text(const Function& f);
std::ostream& operator<<(std::ostream& os, const Function& f);

}  // namespace minitvm::relay
