// The runtime's description of compiled functions (see include/minitvm/codegen/func_info.h).
#include "minitvm/codegen/func_info.h"

#include "minitvm/ir/ir_util.h"
#include "minitvm/support/error.h"

namespace minitvm::codegen {

using namespace ir;

runtime::FunctionSignature signature_of(const PrimFunc& func) {
  runtime::FunctionSignature sig;
  sig.name = func->name;
  for (const Var& p : func->params) {
    runtime::ArgSpec spec;
    spec.name = p.name();
    auto it = func->buffer_map.find(p.get());
    if (it != func->buffer_map.end()) {
      const Buffer& buf = it->second;
      spec.kind = runtime::ArgSpec::Kind::Buffer;
      spec.dtype = buf->dtype;
      if (!buf->name.empty()) spec.name = buf->name;
      for (const Expr& e : buf->shape) {
        const int64_t* v = as_const_int(e);
        MINITVM_USER_CHECK(v) << "codegen: function '" << func->name << "': buffer '" << spec.name
                              << "' has a non-constant shape (" << to_string(e)
                              << "); only static shapes are supported";
        spec.shape.push_back(*v);
      }
    } else {
      MINITVM_USER_CHECK(!p.dtype().is_handle())
          << "codegen: function '" << func->name << "': handle parameter '" << p.name()
          << "' has no buffer";
      spec.kind = runtime::ArgSpec::Kind::Scalar;
      spec.dtype = p.dtype();
    }
    sig.args.push_back(std::move(spec));
  }
  return sig;
}

runtime::CudaFunctionInfo cuda_function_info(const PrimFunc& lowered,
                                             const transform::HostDeviceSplit& split) {
  runtime::CudaFunctionInfo info;
  info.signature = signature_of(lowered);
  for (const transform::DeviceLaunch& l : split.launches) {
    runtime::KernelLaunch k;
    k.kernel = l.kernel;
    k.args = l.args;
    k.grid = l.grid;
    k.block = l.block;
    k.dynamic_shared_bytes = l.dynamic_shared_bytes;
    info.launches.push_back(std::move(k));
  }
  for (const transform::HostTemporary& t : split.temporaries)
    info.temporaries.push_back({t.name, t.dtype, t.elements});
  return info;
}

}  // namespace minitvm::codegen
