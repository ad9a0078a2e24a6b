/** \file
 * Helpers for the LLVM codegen tests: building PrimFuncs by hand and running them.
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include "minitvm/codegen/codegen_llvm.h"
#include "minitvm/ir/ir_util.h"
#include "minitvm/runtime/module.h"

namespace minitvm::codegen::test {

/** Collects parameters (buffers and scalars) of a PrimFunc under construction. */
struct FuncBuilder {
  std::vector<ir::Var> params;
  std::map<const ir::VarNode*, ir::Buffer> buffer_map;

  /** A buffer parameter; returns its data variable (for Load/Store). */
  ir::Var buffer(const std::string& name, DataType dtype, std::vector<int64_t> shape) {
    std::vector<ir::Expr> s;
    for (int64_t d : shape) s.push_back(ir::make_const(DataType::Int(32), d));
    ir::Buffer b = ir::Buffer::make(name, dtype, s);
    params.push_back(b->data);
    buffer_map[b->data.get()] = b;
    return b->data;
  }
  /** A scalar parameter. */
  ir::Var scalar(const std::string& name, DataType dtype) {
    ir::Var v(name, dtype);
    params.push_back(v);
    return v;
  }
  ir::PrimFunc make(const std::string& name, ir::Stmt body) const {
    return ir::PrimFunc::make(name, params, buffer_map, std::move(body));
  }
};

/** Build one function and return it as a PackedFunc (the module is kept alive by it). */
inline runtime::PackedFunc build_one(const ir::PrimFunc& f) {
  runtime::Module m = build_llvm({f});
  return m.get_function(f->name);
}

/** for (v = 0; v < extent; ++v) body */
inline ir::Stmt loop(const ir::Var& v, int64_t extent, ir::Stmt body,
                     ir::ForKind kind = ir::ForKind::Serial) {
  return ir::ForNode::make(v, ir::make_const(v.dtype(), int64_t{0}),
                           ir::make_const(v.dtype(), extent), kind, std::move(body));
}

inline ir::Expr load(DataType t, const ir::Var& buf, ir::Expr index) {
  return ir::LoadNode::make(t, buf, std::move(index));
}
inline ir::Stmt store(const ir::Var& buf, ir::Expr value, ir::Expr index) {
  return ir::StoreNode::make(buf, std::move(value), std::move(index));
}

/** Bitwise float equality that treats all NaNs as equal. */
inline bool same_float(double a, double b) {
  return (a != a && b != b) || a == b;
}

}  // namespace minitvm::codegen::test
