/** \file
 * Internal: CodeGenLLVM, the translator from minitvm IR to LLVM IR used by build_llvm.
 *
 * One instance fills one llvm::Module. Expressions are translated by `emit(const Expr&)`, which
 * dispatches on the node kind (generated from node_list.h, so a new node fails to compile here
 * until it is handled); statements by `emit(const Stmt&)`. Variables map to llvm::Values by node
 * address; handle variables map to data pointers. Files: codegen_llvm.cc (functions, statements),
 * codegen_expr.cc (arithmetic, casts, memory), codegen_intrin.cc (calls), codegen_parallel.cc
 * (outlining of parallel loops).
 */
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::codegen {

class CodeGenLLVM {
 public:
  CodeGenLLVM(llvm::LLVMContext& ctx, llvm::Module& module);

  /** Dense vector loads and stores whose lane count is not a power of two (14, 13, 7 lanes: a
   *  row of a 14x14 map) as one masked access of the next power of two, instead of the pieces
   *  LLVM splits them into (8 + 4 + 2 loads and inserts). For targets with AVX-512. */
  void set_masked_tails(bool on) { masked_tails_ = on; }

  /** Add `void NAME(void* const* args)` and its internal body function for `func`. */
  void add_function(const ir::PrimFunc& func);

  // ---- expression and statement translation (public for the helpers in other files) ----
  llvm::Value* emit(const ir::Expr& e);
  void emit(const ir::Stmt& s);

 private:
  // types
  /** Register type of a value of dtype `t` (bool -> i1, bfloat16 -> float). */
  llvm::Type* llvm_type(DataType t);
  /** Memory type of one element of dtype `t` (bool -> i8, bfloat16 -> i16). */
  llvm::Type* storage_type(DataType t);
  llvm::Value* const_int(DataType t, int64_t v);

  // expressions (codegen_expr.cc)
#define MINITVM_EMIT_DECL(N) llvm::Value* emit_node(const ir::N##Node* op);
  MINITVM_FOR_EACH_EXPR(MINITVM_EMIT_DECL)
#undef MINITVM_EMIT_DECL
  llvm::Value* emit_cast(DataType from, DataType to, llvm::Value* v);
  llvm::Value* emit_floordiv(DataType t, llvm::Value* a, llvm::Value* b, bool want_mod);
  llvm::Value* round_bf16(llvm::Value* f);
  llvm::Value* bf16_from_bits(llvm::Value* bits16);
  llvm::Value* bf16_to_bits(llvm::Value* f);
  /** Round a float result to the dtype's precision where registers are wider (bfloat16). */
  llvm::Value* fix_precision(DataType t, llvm::Value* v);
  llvm::Value* buffer_ptr(const ir::Var& buffer_var);
  /** Address(es) of element `index` in units of `elem`: a pointer, or a vector of pointers. */
  llvm::Value* element_address(llvm::Value* base, DataType elem, const ir::Expr& index);
  llvm::Value* emit_load(DataType t, const ir::Var& buf, const ir::Expr& index,
                         const ir::Expr& predicate, llvm::Value* extra_mask, llvm::Value* passthru);
  llvm::Value* emit_span_load(DataType t, llvm::Value* base, const ir::LaneOffsets& lo,
                              llvm::Value* mask);
  void emit_store(const ir::StoreNode* op);
  llvm::Value* to_memory(DataType t, llvm::Value* v);
  llvm::Value* from_memory(DataType t, llvm::Value* v);
  llvm::Value* emit_compare(ir::NodeKind k, DataType t, llvm::Value* a, llvm::Value* b);

  // calls (codegen_intrin.cc)
  llvm::Value* emit_math(const ir::CallNode* op);
  llvm::Value* emit_if_then_else(const ir::CallNode* op);
  llvm::Value* emit_extern(const ir::CallNode* op);
  llvm::Value* call_libm(const std::string& name, DataType t, std::vector<llvm::Value*> args);
  /** exp of a float32 vector in vector instructions (libm's expf would run once per lane). */
  llvm::Value* emit_vector_expf(llvm::Value* x);
  llvm::Value* emit_vector_erff(llvm::Value* x);

  // statements (codegen_llvm.cc)
#define MINITVM_EMIT_DECL(N) void emit_node(const ir::N##Node* op);
  MINITVM_FOR_EACH_STMT(MINITVM_EMIT_DECL)
#undef MINITVM_EMIT_DECL
  void emit_serial_loop(const ir::ForNode* op);
  /** A serial loop that stores the columns of a small matrix read with a lane stride (a layout
   *  transform's tile): rows loaded densely and transposed by shuffles (codegen_transpose.cc).
   *  False, and nothing emitted, when the loop is not of that form. */
  bool emit_transposed_copy(const ir::ForNode* op);
  /** Stack slot in the current function's entry block. */
  llvm::Value* entry_alloca(llvm::Type* t, uint64_t count, unsigned align);

  // parallel loops (codegen_parallel.cc)
  void emit_parallel_loop(const ir::ForNode* op);

  /** Create internal function `name(params...)` and emit `body` into it with the vars bound. */
  struct Param {
    std::vector<const ir::VarNode*> vars;  ///< variables bound to this parameter
    llvm::Type* type;
    bool noalias = false;
    unsigned align = 0;  ///< pointee alignment of a pointer parameter (0: none stated)
  };
  llvm::Function* emit_body_function(const std::string& name, const std::vector<Param>& params,
                                     const ir::Stmt& body);

  /** Bind a variable for the duration of a scope, restoring the previous binding after. */
  class ScopedBind {
   public:
    ScopedBind(CodeGenLLVM* cg, const ir::VarNode* v, llvm::Value* val);
    ~ScopedBind();

   private:
    CodeGenLLVM* cg_;
    const ir::VarNode* v_;
    llvm::Value* old_;
    bool had_;
  };

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  std::unique_ptr<llvm::IRBuilder<>> builder_;
  llvm::Function* function_ = nullptr;  ///< function being filled
  std::string func_name_;               ///< PrimFunc being compiled, for names and messages
  /** Inside a branch of a vector tvm_if_then_else: the lanes that take it, which mask every vector
   *  load there (lanes of the other branch are not read; a scalar load is read when any lane takes
   *  the branch). */
  llvm::Value* load_mask_ = nullptr;
  bool masked_tails_ = false;
  /** Buffers allocated in the function being emitted (their accesses stay plain: LLVM promotes
   *  plain loads and stores of an accumulator to registers, never masked ones). */
  std::unordered_set<const ir::VarNode*> allocated_;
  /** The padded lane count of a dense access of `t` to `buf` under set_masked_tails, or 0. */
  int padded_lanes(DataType t, const ir::Var& buf) const;
  std::unordered_map<const ir::VarNode*, llvm::Value*> vars_;
  int parallel_depth_ = 0;
  int parallel_count_ = 0;
  /** Inside a "nontemporal_store" pragma (Stage::pragma): dense unmasked vector stores of a
   *  power-of-two size that find their address aligned to that size at run time bypass the caches
   *  (!nontemporal); nontemporal_stores_ counts those emitted, for the closing fence (at the end
   *  of the region, or of each parallel task). */
  int nontemporal_depth_ = 0;
  int nontemporal_stores_ = 0;
  /** Loop variables of the loops an "unroll_disable" pragma names: their loops carry
   *  llvm.loop.unroll.disable (a register-tile loop, whose full unrolling would turn the tiles'
   *  accumulator buffer into SSA values live across all tiles, and spill them). */
  std::unordered_set<const ir::VarNode*> unroll_disabled_;
  void emit_nontemporal_store(llvm::Value* value, llvm::Value* addr, llvm::Align align, int bytes);
  llvm::Type* i8_;
  llvm::Type* i32_;
  llvm::Type* i64_;
  llvm::Type* ptr_;
};

}  // namespace minitvm::codegen
