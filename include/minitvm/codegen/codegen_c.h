/** \file
 * CodeGenC: the C-like source printer shared by the CUDA backend (and usable by a plain C one).
 *
 * It walks lowered, flattened IR (Store/Load with one index, Allocate, For, IfThenElse, AttrStmt
 * thread_extent, Let/LetStmt, Select, Cast, Call intrinsics) and prints one C function per
 * PrimFunc, in the TVM v0.6 text style: binary operators fully parenthesised `(a + b)`, casts
 * `((float)x)`, selects `(c ? a : b)`, loops `for (int i = 0; i < N; ++i) {`, two-space indent.
 * Expressions are printed inline (no SSA temporaries); `Let` expressions are inlined by
 * substituting the printed value.
 *
 * Vector expressions: a load or store whose index is a stride-1 Ramp of a lane count the target
 * supports, with a provably aligned base, goes through `print_vec_load` / `print_vec_store`
 * (CUDA: `((float4*)(A + i))[0]`). Every other vector store is split into one scalar store per
 * lane, and other vector values are built lane by lane (`make_float4(a0, a1, a2, a3)`).
 *
 * Subclasses customise the target through the virtual hooks (`print_type`, `print_func_prefix`,
 * `print_storage_scope`, `bind_thread_index`, `print_storage_sync`, `print_vec_load`,
 * `print_vec_store`, constants, min/max, math intrinsics, casts).
 */
#pragma once

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/ir/functor.h"
#include "minitvm/ir/stmt.h"

namespace minitvm::codegen {

/**
 * Makes identifiers unique and C-valid: characters outside [A-Za-z0-9_] become '_'
 * ("pad_temp.shared" -> "pad_temp_shared"), a leading digit gets a '_' prefix, C/CUDA keywords and
 * reserved names get a suffix, and a repeated name gets a numeric suffix ("vthread_s",
 * "vthread_s1", ...).
 */
class NameAllocator {
 public:
  /** A fresh identifier derived from `hint`. */
  std::string fresh(const std::string& hint);
  /** Mark `name` as taken (function names, helper functions). */
  void reserve(const std::string& name);
  void clear();

 private:
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, int> next_suffix_;
};

/** Sanitise a name into a C identifier without making it unique. */
std::string c_identifier(const std::string& hint);

/** Print lowered IR as C-like source. One instance prints one translation unit. */
class CodeGenC : public ir::IRVisitor {
 public:
  CodeGenC();
  ~CodeGenC() override;

  /** Print `f` as one function. Handle parameters take their element type from the buffer map. */
  virtual void add_function(const ir::PrimFunc& f);
  /** The whole translation unit: the on-demand preamble, then every added function. */
  virtual std::string finish();

  /** Print `__restrict__` on pointer parameters (default true, TVM's restricted_func). */
  void set_restrict(bool on) { restrict_params_ = on; }

  /** Print an expression to a string / a stream with the current variable bindings. */
  std::string print_expr(const ir::Expr& e);
  void print_expr(const ir::Expr& e, std::ostream& os);
  /** Print a statement at the current indentation into the function stream. */
  void print_stmt(const ir::Stmt& s);

 protected:
  // ---- target hooks ----------------------------------------------------------------------------
  /** The C spelling of a (scalar or vector) type. Base: stdint names, `float`, `double`. */
  virtual void print_type(DataType t, std::ostream& os);
  /** Everything before the function name, e.g. "void" or `extern "C" __global__ void`. */
  virtual void print_func_prefix(const ir::PrimFunc& f, std::ostream& os);
  /** The storage-scope qualifier of an allocation or pointer parameter ("" for global/local). */
  virtual void print_storage_scope(ir::StorageScope scope, std::ostream& os);
  /** Bind the variable of a thread IterVar at its first thread_extent (CUDA: `((int)threadIdx.x)`).
   */
  virtual void bind_thread_index(const ir::IterVar& iv);
  /** Print `tvm_storage_sync(scope)` as a statement. */
  virtual void print_storage_sync(const ir::CallNode* op);
  /** Print a full-width aligned vector load of `t` from `buffer` at element `base`. */
  virtual void print_vec_load(const ir::Var& buffer, DataType t, const ir::Expr& base,
                              std::ostream& os);
  /** Print a full-width aligned vector store statement of `value` (already printed). */
  virtual void print_vec_store(const ir::Var& buffer, DataType t, const ir::Expr& base,
                               const std::string& value);
  /** Whether `t` (a vector type) can be loaded/stored as one access (e.g. float2/float4). */
  virtual bool supports_vector_access(DataType t) const;
  /** Print a vector value from its lanes (each already printed). */
  virtual void print_vec_construct(DataType t, const std::vector<std::string>& lanes,
                                   std::ostream& os);
  /** Literals. */
  virtual void print_int_const(DataType t, int64_t v, std::ostream& os);
  virtual void print_float_const(DataType t, double v, std::ostream& os);
  /** min/max of two scalars (base: `min(a, b)` / `max(a, b)`). */
  virtual void print_min_max(bool is_max, const ir::Expr& a, const ir::Expr& b, std::ostream& os);
  /** A math intrinsic call (exp, sqrt, ...); base prints the libm name with an `f` suffix for
   * float32. */
  virtual void print_math_call(const ir::CallNode* op, std::ostream& os);
  /** `((T)x)`; subclasses handle types without C conversions (half). */
  virtual void print_cast(DataType to, const ir::Expr& value, std::ostream& os);
  /** Alignment qualifier of an allocation whose buffer is accessed with vector loads/stores. */
  virtual void print_alloc_alignment(const ir::AllocateNode* op, std::ostream& os);
  /** Line(s) printed before an Unrolled loop (CUDA: `#pragma unroll`). */
  virtual void print_unroll_hint();
  /** Extra text after the function prefix and before the name (CUDA: __launch_bounds__). */
  virtual void print_func_attrs(const ir::PrimFunc& f, std::ostream& os);
  /** The preamble (includes and helper functions) required by what was printed. */
  virtual std::string preamble();

  // ---- visitors
  // ----------------------------------------------------------------------------------
#define MINITVM_CODEGEN_VISIT(N) void visit(const ir::N##Node* op) override;
  MINITVM_FOR_EACH_EXPR(MINITVM_CODEGEN_VISIT)
  MINITVM_FOR_EACH_STMT(MINITVM_CODEGEN_VISIT)
#undef MINITVM_CODEGEN_VISIT

  // ---- helpers for subclasses
  // --------------------------------------------------------------------
  /** The printed name of a bound variable (InternalError when unbound). */
  const std::string& var_id(const ir::VarNode* v) const;
  /** Give `v` a fresh unique name and bind it. */
  std::string alloc_var_id(const ir::VarNode* v);
  /** Bind `v` to an arbitrary printed text (thread indices, inlined lets). */
  void bind_var_text(const ir::VarNode* v, std::string text);
  bool is_bound(const ir::VarNode* v) const {
    return var_ids_.count(v) != 0;
  }
  /** Element type of a buffer variable (parameter dtype or allocation dtype). */
  DataType buffer_elem_type(const ir::VarNode* buf) const;
  /** Scope of a buffer variable (Global for parameters). */
  ir::StorageScope buffer_scope(const ir::VarNode* buf) const;
  /** Whether the index of a vector access qualifies for print_vec_load/store. */
  bool use_vector_access(DataType t, const ir::Expr& index, const ir::Expr& predicate) const;
  /** Whether e is provably >= 0 (constants, thread indices, loop variables from 0, ...). */
  bool provably_nonneg(const ir::Expr& e) const;
  void print_indent();
  /** The current expression output stream. */
  std::ostream& out() {
    return *os_;
  }
  void print_binary(const char* op, const ir::Expr& a, const ir::Expr& b);

  std::ostringstream stream_;  ///< function bodies
  int indent_ = 0;
  NameAllocator names_;
  /** Names reserved in every function (function names, preamble helpers). */
  std::vector<std::string> global_names_;
  bool restrict_params_ = true;
  /** Buffers accessed with vector loads/stores in the current function (for alignment). */
  std::unordered_set<const ir::VarNode*> vector_accessed_;
  /** Set when a helper from the preamble is used. */
  bool need_floordiv_ = false;
  bool need_nan_minmax_ = false;

 private:
  void print_scalarized_store(const ir::StoreNode* op);
  void print_floor_divmod(bool is_div, const ir::Expr& a, const ir::Expr& b);
  void collect_vector_accesses(const ir::Stmt& body);

  std::ostream* os_ = nullptr;
  std::unordered_map<const ir::VarNode*, std::string> var_ids_;
  std::unordered_map<const ir::VarNode*, DataType> buffer_types_;
  std::unordered_map<const ir::VarNode*, ir::StorageScope> buffer_scopes_;
  std::unordered_set<const ir::VarNode*> nonneg_vars_;
};

/** Scalar expression of lane `lane` of a vector expression (scalars are returned unchanged). */
ir::Expr extract_lane(const ir::Expr& e, int lane);

/** Whether `base` is provably a multiple of `lanes` (a simple linear congruence analysis). */
bool is_multiple_of(const ir::Expr& base, int64_t lanes);

}  // namespace minitvm::codegen
