// DLPack (v0.6 ABI, DLManagedTensor) export and import of NDArrays.
#include <dlpack/dlpack.h>

#include "minitvm/runtime/ndarray.h"
#include "minitvm/support/checked_math.h"
#include "runtime/ndarray_internal.h"

namespace minitvm::runtime {

namespace {

// kDLBool was added to DLPackDataTypeCode after v0.6; its value is fixed by the standard.
constexpr uint8_t kBoolCode = 6;

DLDataType to_dl(DataType t) {
  DLDataType d;
  d.lanes = static_cast<uint16_t>(t.lanes());
  if (t.is_bool()) {
    d.code = kBoolCode;
    d.bits = 8;  // one byte per element, as stored
    return d;
  }
  d.code = static_cast<uint8_t>(t.code());  // DataType codes are DLPack's
  d.bits = static_cast<uint8_t>(t.bits());
  return d;
}

DataType from_dl(DLDataType d) {
  const int lanes = d.lanes == 0 ? 1 : d.lanes;
  if (d.code == kBoolCode || (d.code == kDLUInt && d.bits == 1)) return DataType::Bool(lanes);
  switch (d.code) {
    case kDLInt:
      return DataType::Int(d.bits, lanes);
    case kDLUInt:
      return DataType::UInt(d.bits, lanes);
    case kDLFloat:
      return DataType::Float(d.bits, lanes);
    case kDLBfloat:
      return DataType::BFloat(d.bits, lanes);
    default:
      break;
  }
  MINITVM_USER_ERROR << "NDArray::from_dlpack: unsupported DLPack dtype (code " << int(d.code)
                     << ", bits " << int(d.bits) << ", lanes " << d.lanes << ")";
  return {};
}

// What an exported DLManagedTensor owns: a reference to the array and the arrays DLTensor points
// at.
struct ExportContext {
  std::shared_ptr<NDArray::Container> array;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor tensor;
};

void delete_export(DLManagedTensor* t) {
  delete static_cast<ExportContext*>(t->manager_ctx);
}

}  // namespace

DLManagedTensor* NDArray::to_dlpack() const {
  MINITVM_USER_CHECK(defined()) << "NDArray::to_dlpack: undefined array";
  auto* ctx = new ExportContext();
  ctx->array = c_;
  ctx->shape = c_->shape;
  ctx->strides = c_->strides;
  DLTensor& t = ctx->tensor.dl_tensor;
  t.data = c_->data;
  t.device.device_type = c_->device.is_cpu() ? kDLCPU : kDLCUDA;
  t.device.device_id = c_->device.id;
  t.ndim = static_cast<int32_t>(ctx->shape.size());
  t.dtype = to_dl(c_->dtype);
  t.shape = ctx->shape.data();
  t.strides = ctx->strides.data();
  t.byte_offset = 0;
  ctx->tensor.manager_ctx = ctx;
  ctx->tensor.deleter = delete_export;
  return &ctx->tensor;
}

NDArray NDArray::from_dlpack(DLManagedTensor* t) {
  MINITVM_USER_CHECK(t != nullptr) << "NDArray::from_dlpack: null tensor";
  // Take ownership first so that a rejected tensor is still released.
  auto c = std::make_shared<Container>();
  c->deleter = [t] {
    if (t->deleter) t->deleter(t);
  };
  const DLTensor& dl = t->dl_tensor;
  if (dl.device.device_type == kDLCPU || dl.device.device_type == kDLCUDAHost) {
    c->device = Device::cpu(0);
  } else if (dl.device.device_type == kDLCUDA) {
    c->device = Device::cuda(dl.device.device_id);
  } else {
    MINITVM_USER_ERROR << "NDArray::from_dlpack: unsupported device type "
                       << int(dl.device.device_type) << " (only CPU and CUDA)";
  }
  MINITVM_USER_CHECK(dl.ndim >= 0) << "NDArray::from_dlpack: negative ndim " << dl.ndim;
  c->dtype = from_dl(dl.dtype);
  c->shape.assign(dl.shape, dl.shape + dl.ndim);
  for (int64_t d : c->shape)
    MINITVM_USER_CHECK(d >= 0) << "NDArray::from_dlpack: negative dimension " << d;
  std::optional<int64_t> numel = checked_product(c->shape);
  MINITVM_USER_CHECK(numel && checked_mul(*numel, c->dtype.bytes()))
      << "NDArray::from_dlpack: the element or byte count of the " << dl.ndim
      << "-d shape overflows int64";
  if (dl.strides) {
    c->strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {
    c->strides.resize(c->shape.size());
    int64_t acc = 1;
    for (size_t i = c->shape.size(); i-- > 0;) {
      c->strides[i] = acc;
      acc =
          checked_mul(acc, c->shape[i]).value_or(INT64_MAX);  // only an empty array's can overflow
    }
  }
  c->data = static_cast<char*>(dl.data) + dl.byte_offset;
  return NDArray(std::move(c));
}

}  // namespace minitvm::runtime
