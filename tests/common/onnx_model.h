/** \file
 * Small ONNX models written in C++ with libonnx's protobuf classes, for tests (include only where
 * MINITVM_HAVE_ONNX is defined).
 *
 *   minitvm::testutil::OnnxModel m(13);
 *   m.input("x", {1, 3, 8, 8});
 *   m.init("w", {4, 3, 3, 3}, -1, 1, 7);
 *   aints(m.node("Conv", {"x", "w"}, {"y"}), "pads", {1, 1, 1, 1});
 *   m.output("y");
 *   std::string bytes = m.bytes();
 */
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/relay/testing.h"

namespace minitvm::testutil {

struct OnnxModel {
  ::onnx::ModelProto m;
  explicit OnnxModel(int64_t opset = 13) {
    m.set_ir_version(7);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  ::onnx::GraphProto* g() { return m.mutable_graph(); }
  void input(const std::string& name, const std::vector<int64_t>& shape,
             const std::string& dyn = "") {
    auto* v = g()->add_input();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(::onnx::TensorProto_DataType_FLOAT);
    for (size_t k = 0; k < shape.size(); ++k) {
      auto* d = tt->mutable_shape()->add_dim();
      if (k == 0 && !dyn.empty())
        d->set_dim_param(dyn);
      else
        d->set_dim_value(shape[k]);
    }
  }
  void output(const std::string& name) { g()->add_output()->set_name(name); }
  void init(const std::string& name, const std::vector<int64_t>& shape, float lo, float hi,
            uint64_t seed) {
    auto a = relay::testing::random_uniform(shape, lo, hi, seed).to_vector<float>();
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto_DataType_FLOAT);
    for (auto d : shape) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(a.data()), a.size() * sizeof(float)));
  }
  void init_f32(const std::string& name, const std::vector<int64_t>& shape,
                const std::vector<float>& v) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto_DataType_FLOAT);
    for (auto d : shape) t->add_dims(d);
    for (auto x : v) t->add_float_data(x);
  }
  void init_i64(const std::string& name, const std::vector<int64_t>& shape,
                const std::vector<int64_t>& v) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto_DataType_INT64);
    for (auto d : shape) t->add_dims(d);
    for (auto x : v) t->add_int64_data(x);
  }
  ::onnx::NodeProto* node(const std::string& op, std::vector<std::string> ins,
                          std::vector<std::string> outs, const std::string& name = "") {
    auto* n = g()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? outs[0] : name);
    for (auto& i : ins) n->add_input(i);
    for (auto& o : outs) n->add_output(o);
    return n;
  }
  std::string bytes() const { return m.SerializeAsString(); }
};

inline void ai(::onnx::NodeProto* n, const std::string& k, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(k);
  a->set_type(::onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}
inline void af(::onnx::NodeProto* n, const std::string& k, float v) {
  auto* a = n->add_attribute();
  a->set_name(k);
  a->set_type(::onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(v);
}
inline void as(::onnx::NodeProto* n, const std::string& k, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(k);
  a->set_type(::onnx::AttributeProto_AttributeType_STRING);
  a->set_s(v);
}
inline void aints(::onnx::NodeProto* n, const std::string& k, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(k);
  a->set_type(::onnx::AttributeProto_AttributeType_INTS);
  for (auto x : v) a->add_ints(x);
}

}  // namespace minitvm::testutil
