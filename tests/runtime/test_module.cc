#include <gtest/gtest.h>

#include "minitvm/runtime/module.h"

using namespace minitvm;
using runtime::ArgSpec;
using runtime::ArgValue;
using runtime::FunctionSignature;
using runtime::NDArray;

namespace {

FunctionSignature fused_sig() {
  DataType f32 = DataType::Float(32);
  return {"fused",
          {{"A", ArgSpec::Kind::Buffer, f32, {1000, 64}},
           {"Bias", ArgSpec::Kind::Buffer, f32, {1000}},
           {"Out", ArgSpec::Kind::Buffer, f32, {1000}}}};
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "(no RuntimeError)";
}

}  // namespace

TEST(CheckArguments, NamesFunctionArgumentAndTypes) {
  auto sig = fused_sig();
  NDArray a = NDArray::empty({1000, 64}, DataType::Float(32));
  NDArray b = NDArray::empty({1000}, DataType::Float(32));
  NDArray wrong = NDArray::empty({1000}, DataType::Float(64));
  EXPECT_NO_THROW(runtime::check_arguments(sig, {a, b, b}, Device::cpu()));
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {a, b, wrong}, Device::cpu());
            }),
            "fused: argument 2 'Out' expects float32[1000] on cpu(0), got float64[1000] on cpu(0)");
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {a, b}, Device::cpu());
            }),
            "fused: expects 3 arguments (A, Bias, Out), got 2");
  EXPECT_EQ(
      error_of([&] {
        runtime::check_arguments(sig, {b, b, b}, Device::cpu());
      }),
      "fused: argument 0 'A' expects float32[1000, 64] on cpu(0), got float32[1000] on cpu(0)");
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {a, int64_t(3), b}, Device::cpu());
            }),
            "fused: argument 1 'Bias' expects float32[1000] on cpu(0), got the integer scalar 3");
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {a, NDArray(), b}, Device::cpu());
            }),
            "fused: argument 1 'Bias' expects float32[1000] on cpu(0), got an undefined NDArray");
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {a, b, b}, Device::cuda(0));
            }),
            "fused: argument 0 'A' expects float32[1000, 64] on cuda(0), got float32[1000, 64] on "
            "cpu(0)");
}

TEST(CheckArguments, Scalars) {
  FunctionSignature sig{"f",
                        {{"n", ArgSpec::Kind::Scalar, DataType::Int(32), {}},
                         {"alpha", ArgSpec::Kind::Scalar, DataType::Float(32), {}}}};
  EXPECT_NO_THROW(runtime::check_arguments(sig, {int64_t(5), 2.5}, Device::cpu()));
  EXPECT_NO_THROW(runtime::check_arguments(sig, {int64_t(5), int64_t(2)}, Device::cpu()));
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {2.5, 2.5}, Device::cpu());
            }),
            "f: argument 0 'n' expects a scalar int32, got the float scalar 2.5");
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {int64_t(1) << 40, 1.0}, Device::cpu());
            }),
            "f: argument 0 'n' expects a scalar int32, got the integer scalar 1099511627776 (out "
            "of range)");
  NDArray x = NDArray::empty({2}, DataType::Int(32));
  EXPECT_EQ(error_of([&] {
              runtime::check_arguments(sig, {x, 1.0}, Device::cpu());
            }),
            "f: argument 0 'n' expects a scalar int32, got int32[2] on cpu(0)");
}

TEST(EncodeScalar, StoresExactlyTheArgumentDtype) {
  alignas(8) unsigned char buf[8];
  runtime::encode_scalar({"x", ArgSpec::Kind::Scalar, DataType::Float(32), {}}, ArgValue(0.1), buf);
  float f;
  std::memcpy(&f, buf, 4);
  EXPECT_EQ(f, 0.1f);
  runtime::encode_scalar({"x", ArgSpec::Kind::Scalar, DataType::Float(64), {}},
                         ArgValue(int64_t(3)), buf);
  double d;
  std::memcpy(&d, buf, 8);
  EXPECT_EQ(d, 3.0);
  runtime::encode_scalar({"x", ArgSpec::Kind::Scalar, DataType::Int(32), {}}, ArgValue(int64_t(-7)),
                         buf);
  int32_t i;
  std::memcpy(&i, buf, 4);
  EXPECT_EQ(i, -7);
  runtime::encode_scalar({"x", ArgSpec::Kind::Scalar, DataType::Int(16), {}}, ArgValue(int64_t(-2)),
                         buf);
  int16_t s;
  std::memcpy(&s, buf, 2);
  EXPECT_EQ(s, -2);
}

namespace {
// A module whose one function adds its scalar argument to a float32 buffer, written in C++.
class AddScalarNode : public runtime::ModuleNode {
 public:
  std::string type_key() const override { return "test"; }
  runtime::PackedFunc get_function(const std::string& name) override {
    if (name != "add_scalar") return {};
    FunctionSignature sig{"add_scalar",
                          {{"X", ArgSpec::Kind::Buffer, DataType::Float(32), {3}},
                           {"c", ArgSpec::Kind::Scalar, DataType::Float(32), {}}}};
    return runtime::PackedFunc(
        [sig](const std::vector<ArgValue>& args) {
          runtime::check_arguments(sig, args, Device::cpu());
          float c;
          runtime::encode_scalar(sig.args[1], args[1], &c);
          auto* x = static_cast<float*>(std::get<NDArray>(args[0]).data());
          for (int i = 0; i < 3; ++i) x[i] += c;
        },
        sig);
  }
  std::string get_source(const std::string&) const override { return "// c++"; }
  std::vector<std::string> function_names() const override { return {"add_scalar"}; }
};
}  // namespace

TEST(Module, GetFunctionCallsAndReportsMissingNames) {
  runtime::Module m(std::make_shared<AddScalarNode>());
  NDArray x = NDArray::from_vector(std::vector<float>{1, 2, 3}, {3});
  m.get_function("add_scalar")(x, 0.5f);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1.5f, 2.5f, 3.5f}));
  m.get_function("add_scalar")(x, 2);  // int literal converted to float32
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{3.5f, 4.5f, 5.5f}));
  EXPECT_EQ(error_of([&] { m.get_function("nope"); }),
            "module (test) has no function 'nope'; it has: add_scalar");
  EXPECT_EQ(error_of([&] { m.save("/tmp/x"); }),
            "module of type 'test' cannot be saved (to /tmp/x)");
  EXPECT_EQ(error_of([&] { runtime::Module().get_function("f"); }),
            "get_function('f') on an empty Module");
  EXPECT_EQ(error_of([&] { m.get_function("add_scalar")(x); }),
            "add_scalar: expects 2 arguments (X, c), got 1");
}
