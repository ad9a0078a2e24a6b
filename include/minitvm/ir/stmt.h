/** \file
 * Statement nodes of the minitvm IR, and PrimFunc / Buffer.
 *
 * Loop form is fixed: `For(loop_var, min, extent, kind, body)` iterates loop_var over
 * [min, min + extent). Thread bindings are not loops: they are `AttrStmt(iter_var, ThreadExtent,
 * extent)`. Before storage flattening tensors are written by `Provide` and scoped by `Realize`;
 * afterwards buffers are flat: `Allocate` + `Store`/`Load` with a single index.
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include "minitvm/ir/expr.h"

namespace minitvm::ir {

/** Where a buffer lives. */
enum class StorageScope : uint8_t { Global, Shared, Local, Warp };
const char* storage_scope_name(StorageScope s);
/** Parse "global", "shared", "local", "warp"; throws CompileError otherwise. */
StorageScope parse_storage_scope(const std::string& s);

/** Kinds of AttrStmt (typed, not strings; `Pragma` carries its key in `pragma_key`). */
enum class AttrKind : uint8_t {
  ThreadExtent,             ///< node = IterVar bound to a thread tag; value = extent
  VirtualThread,            ///< node = IterVar with tag vthread; value = extent
  RealizeScope,             ///< node = Operation; value = StringImm scope
  PragmaAutoUnrollMaxStep,  ///< node = IterVar; value = max step
  PragmaUnrollExplicit,     ///< node = IterVar; value = 0/1
  Pragma,                   ///< node = IterVar; other pragma keys
  LoopScope,
  ReduceScope,        ///< node = CommReducer of the tvm_thread_allreduce call in the body
  DoubleBufferScope,  ///< node = Operation (schedule_ops), buffer Var (after storage_flatten); body
                      ///< = producer
  DoubleBufferWrite,  ///< node = buffer Var; body = prefetch of the next iteration
                      ///< (inject_double_buffer)
  /** Stage::prefetch, directly inside the loop it names: node = Operation of the tensor,
   *  pragma_key = its value_index (decimal), value = iteration offset. storage_flatten replaces it
   * by prefetch(address_of(...)) calls over the region the body reads at loop var + offset. */
  PrefetchScope,
};
/** Printed key ("thread_extent", "pragma_auto_unroll_max_step", ...). */
std::string attr_key_name(AttrKind k, const std::string& pragma_key);

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled };
const char* for_kind_name(ForKind k);

struct LetStmtNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::LetStmt;
  LetStmtNode() : StmtNode(kKind) {}
  Var var;
  Expr value;
  Stmt body;
  static Stmt make(Var var, Expr value, Stmt body);
};

struct AttrStmtNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::AttrStmt;
  AttrStmtNode() : StmtNode(kKind) {}
  Ref<Object> node;
  AttrKind attr_kind;
  std::string pragma_key;
  Expr value;
  Stmt body;
  static Stmt make(Ref<Object> node, AttrKind kind, Expr value, Stmt body,
                   std::string pragma_key = "");
};

struct AssertStmtNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::AssertStmt;
  AssertStmtNode() : StmtNode(kKind) {}
  Expr condition;
  std::string message;
  Stmt body;
  static Stmt make(Expr condition, std::string message, Stmt body);
};

struct StoreNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::Store;
  StoreNode() : StmtNode(kKind) {}
  Var buffer_var;
  Expr value;
  Expr index;
  Expr predicate;
  static Stmt make(Var buffer_var, Expr value, Expr index, Expr predicate = Expr());
};

struct ProvideNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::Provide;
  ProvideNode() : StmtNode(kKind) {}
  FunctionRef op;
  int value_index = 0;
  Expr value;
  std::vector<Expr> args;
  static Stmt make(FunctionRef op, int value_index, Expr value, std::vector<Expr> args);
};

struct AllocateNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::Allocate;
  AllocateNode() : StmtNode(kKind) {}
  Var buffer_var;
  DataType dtype;
  std::vector<Expr> extents;
  StorageScope scope = StorageScope::Global;
  Expr condition;
  Stmt body;
  static Stmt make(Var buffer_var, DataType dtype, std::vector<Expr> extents, StorageScope scope,
                   Expr condition, Stmt body);
  /** Product of the extents when all are constant, else -1. */
  int64_t constant_size() const;
};

struct RealizeNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::Realize;
  RealizeNode() : StmtNode(kKind) {}
  FunctionRef op;
  int value_index = 0;
  DataType dtype;
  std::vector<Range> bounds;
  StorageScope scope = StorageScope::Global;
  Expr condition;
  Stmt body;
  static Stmt make(FunctionRef op, int value_index, DataType dtype, std::vector<Range> bounds,
                   StorageScope scope, Expr condition, Stmt body);
};

struct ProducerConsumerNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::ProducerConsumer;
  ProducerConsumerNode() : StmtNode(kKind) {}
  FunctionRef op;
  bool is_producer = true;
  Stmt body;
  static Stmt make(FunctionRef op, bool is_producer, Stmt body);
};

/** A sequence of statements (TVM's Block / SeqStmt). Never nested directly: make() flattens. */
struct BlockNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::Block;
  BlockNode() : StmtNode(kKind) {}
  std::vector<Stmt> stmts;
  /** Flattens nested blocks, drops undefined entries; a single statement is returned as is. */
  static Stmt make(std::vector<Stmt> stmts);
};

struct IfThenElseNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::IfThenElse;
  IfThenElseNode() : StmtNode(kKind) {}
  Expr condition;
  Stmt then_case;
  Stmt else_case;  ///< may be undefined
  static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
};

struct EvaluateNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::Evaluate;
  EvaluateNode() : StmtNode(kKind) {}
  Expr value;
  static Stmt make(Expr value);
};

struct ForNode : public StmtNode {
  static constexpr NodeKind kKind = NodeKind::For;
  ForNode() : StmtNode(kKind) {}
  Var loop_var;
  Expr min;
  Expr extent;
  ForKind for_kind = ForKind::Serial;
  Stmt body;
  static Stmt make(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body);
};

/** A no-op statement (Evaluate(0)). */
Stmt make_nop();
bool is_nop(const Stmt& s);

// ---- buffers and functions ---------------------------------------------------------------------

struct BufferNode : public Object {
  static constexpr NodeKind kKind = NodeKind::Buffer;
  BufferNode() : Object(kKind) {}
  Var data;  ///< handle variable
  DataType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> strides;  ///< empty = compact row-major
  std::string name;
  StorageScope scope = StorageScope::Global;
};

class Buffer : public Ref<BufferNode> {
 public:
  Buffer() = default;
  Buffer(Ref<BufferNode> r) : Ref<BufferNode>(std::move(r)) {}
  /** A compact row-major buffer with a fresh data variable named `name`. */
  static Buffer make(std::string name, DataType dtype, std::vector<Expr> shape,
                     StorageScope scope = StorageScope::Global);
  /** Flat element offset of `indices` (row-major or by strides). */
  Expr offset_of(const std::vector<Expr>& indices) const;
};

/** A lowered function: parameters, their buffers, and the body. */
struct PrimFuncNode : public Object {
  static constexpr NodeKind kKind = NodeKind::PrimFunc;
  PrimFuncNode() : Object(kKind) {}
  std::string name;
  std::vector<Var> params;
  std::map<const VarNode*, Buffer> buffer_map;  ///< param -> buffer, for tensor arguments
  Stmt body;
  /** For device kernels produced by split_host_device: the thread axes in order. */
  std::vector<IterVar> thread_axes;
};

class PrimFunc : public Ref<PrimFuncNode> {
 public:
  PrimFunc() = default;
  PrimFunc(Ref<PrimFuncNode> r) : Ref<PrimFuncNode>(std::move(r)) {}
  static PrimFunc make(std::string name, std::vector<Var> params,
                       std::map<const VarNode*, Buffer> buffer_map, Stmt body);
  const std::string& name() const { return get()->name; }
  const Stmt& body() const { return get()->body; }
  /** Same function with another body. */
  PrimFunc with_body(Stmt body) const;
};

}  // namespace minitvm::ir
