// Module/PackedFunc plumbing and argument checking shared by all module kinds.
#include "minitvm/runtime/module.h"

#include <cstring>
#include <sstream>

#include "minitvm/support/error.h"

namespace minitvm::runtime {

namespace {

std::string describe_buffer(DataType dtype, const std::vector<int64_t>& shape, Device dev) {
  std::ostringstream os;
  os << dtype << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "] on " << dev;
  return os.str();
}

std::string describe_value(const ArgValue& v) {
  if (const auto* a = std::get_if<NDArray>(&v)) {
    if (!a->defined()) return "an undefined NDArray";
    return describe_buffer(a->dtype(), a->shape(), a->device());
  }
  if (const auto* i = std::get_if<int64_t>(&v)) return "the integer scalar " + std::to_string(*i);
  std::ostringstream os;
  os << "the float scalar " << std::get<double>(v);
  return os.str();
}

}  // namespace

void check_arguments(const FunctionSignature& sig, const std::vector<ArgValue>& args,
                     Device expected_device) {
  if (args.size() != sig.args.size()) {
    std::ostringstream os;
    os << sig.name << ": expects " << sig.args.size() << " argument"
       << (sig.args.size() == 1 ? "" : "s") << " (";
    for (size_t i = 0; i < sig.args.size(); ++i) os << (i ? ", " : "") << sig.args[i].name;
    os << "), got " << args.size();
    throw RuntimeError(os.str());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& spec = sig.args[i];
    const ArgValue& v = args[i];
    auto prefix = [&] {
      return sig.name + ": argument " + std::to_string(i) + " '" + spec.name + "' expects ";
    };
    if (spec.kind == ArgSpec::Kind::Buffer) {
      const std::string want = describe_buffer(spec.dtype, spec.shape, expected_device);
      const auto* a = std::get_if<NDArray>(&v);
      MINITVM_RUNTIME_CHECK(a && a->defined()) << prefix() << want << ", got " << describe_value(v);
      MINITVM_RUNTIME_CHECK(a->dtype() == spec.dtype && a->shape() == spec.shape &&
                            a->device() == expected_device)
          << prefix() << want << ", got " << describe_value(v);
      MINITVM_RUNTIME_CHECK(a->is_contiguous())
          << prefix() << "a contiguous array, got a strided view " << describe_value(v)
          << " (call .contiguous() first)";
    } else {
      MINITVM_RUNTIME_CHECK(!std::holds_alternative<NDArray>(v))
          << prefix() << "a scalar " << spec.dtype << ", got " << describe_value(v);
      if (spec.dtype.is_integral()) {
        MINITVM_RUNTIME_CHECK(std::holds_alternative<int64_t>(v))
            << prefix() << "a scalar " << spec.dtype << ", got " << describe_value(v);
        const int64_t x = std::get<int64_t>(v);
        const int bits = spec.dtype.bits();
        bool fits = true;
        if (spec.dtype.is_bool())
          fits = x == 0 || x == 1;
        else if (bits < 64 && spec.dtype.is_int())
          fits = x >= -(int64_t(1) << (bits - 1)) && x < (int64_t(1) << (bits - 1));
        else if (bits < 64)
          fits = x >= 0 && x < (int64_t(1) << bits);
        else if (spec.dtype.is_uint())
          fits = x >= 0;
        MINITVM_RUNTIME_CHECK(fits) << prefix() << "a scalar " << spec.dtype << ", got "
                                    << describe_value(v) << " (out of range)";
      } else {
        MINITVM_RUNTIME_CHECK(spec.dtype.is_float() &&
                              (spec.dtype.bits() == 32 || spec.dtype.bits() == 64))
            << prefix() << "a scalar " << spec.dtype
            << ", which the runtime cannot pass (scalars must be int/uint/bool, float32 or "
               "float64)";
      }
    }
  }
}

void encode_scalar(const ArgSpec& spec, const ArgValue& v, void* out) {
  const double d = std::holds_alternative<double>(v) ? std::get<double>(v)
                                                     : static_cast<double>(std::get<int64_t>(v));
  const int64_t i = std::holds_alternative<int64_t>(v) ? std::get<int64_t>(v) : 0;
  const DataType t = spec.dtype;
  if (t.is_float()) {
    if (t.bits() == 32) {
      float f = static_cast<float>(d);
      std::memcpy(out, &f, 4);
    } else {
      std::memcpy(out, &d, 8);
    }
    return;
  }
  // Integers: little-endian truncation to the argument's width (range was checked).
  const int nbytes = t.is_bool() ? 1 : t.bits() / 8;
  std::memcpy(out, &i, static_cast<size_t>(nbytes));
}

void PackedFunc::call(const std::vector<ArgValue>& args) const {
  MINITVM_RUNTIME_CHECK(body_) << "calling an empty PackedFunc";
  body_(args);
}

void ModuleNode::save(const std::string& path) const {
  throw RuntimeError("module of type '" + type_key() + "' cannot be saved (to " + path + ")");
}

PackedFunc Module::get_function(const std::string& name) const {
  MINITVM_RUNTIME_CHECK(node_) << "get_function('" << name << "') on an empty Module";
  PackedFunc f = node_->get_function(name);
  if (!f) {
    std::ostringstream os;
    os << "module (" << node_->type_key() << ") has no function '" << name << "'; it has: ";
    auto names = node_->function_names();
    if (names.empty()) os << "(none)";
    for (size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i];
    throw RuntimeError(os.str());
  }
  return f;
}

std::string Module::get_source(const std::string& format) const {
  MINITVM_RUNTIME_CHECK(node_) << "get_source on an empty Module";
  return node_->get_source(format);
}

std::string Module::type_key() const {
  MINITVM_RUNTIME_CHECK(node_) << "type_key on an empty Module";
  return node_->type_key();
}

std::vector<std::string> Module::function_names() const {
  MINITVM_RUNTIME_CHECK(node_) << "function_names on an empty Module";
  return node_->function_names();
}

void Module::save(const std::string& path) const {
  MINITVM_RUNTIME_CHECK(node_) << "save on an empty Module";
  node_->save(path);
}

}  // namespace minitvm::runtime
