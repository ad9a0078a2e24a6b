// ONNX external data: see onnx_external_data.h.
#include "frontend/onnx_external_data.h"

#ifdef MINITVM_HAVE_ONNX

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "minitvm/support/error.h"

namespace minitvm::frontend {

namespace fs = std::filesystem;

bool is_external(const ::onnx::TensorProto& t) {
  return t.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL;
}

std::string external_location(const ::onnx::TensorProto& t) {
  for (const auto& kv : t.external_data())
    if (kv.key() == "location") return kv.value();
  return "";
}

namespace {

int64_t parse_count(const std::string& v, const std::string& what) {
  size_t used = 0;
  int64_t x = -1;
  try {
    x = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  MINITVM_USER_CHECK(used == v.size() && !v.empty() && x >= 0)
      << what << " is '" << v << "', not a non-negative integer";
  return x;
}

class Reader {
 public:
  explicit Reader(fs::path base) : base_(std::move(base)) {}

  void load(::onnx::TensorProto& t, const std::string& what) {
    if (!is_external(t)) return;
    std::string loc;
    int64_t offset = 0, length = -1;
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location")
        loc = kv.value();
      else if (kv.key() == "offset")
        offset = parse_count(kv.value(), what + ": external_data 'offset'");
      else if (kv.key() == "length")
        length = parse_count(kv.value(), what + ": external_data 'length'");
    }
    MINITVM_USER_CHECK(!loc.empty()) << what << " is stored externally but names no 'location'";
    fs::path rel(loc);
    bool escapes = rel.is_absolute() || rel.has_root_name();
    for (const auto& part : rel) escapes = escapes || part == "..";
    MINITVM_USER_CHECK(!escapes) << what << ": external data location '" << loc
                                 << "' must be a relative path inside the model's directory";
    fs::path file = base_ / rel;
    auto it = files_.find(file.string());
    if (it == files_.end()) {
      auto f = std::make_unique<std::ifstream>(file, std::ios::binary);
      MINITVM_USER_CHECK(f->good())
          << what << ": cannot open its external data file " << file.string();
      std::error_code ec;
      auto size = fs::file_size(file, ec);
      MINITVM_USER_CHECK(!ec) << what << ": cannot read the size of " << file.string();
      it = files_.emplace(file.string(), Open{std::move(f), int64_t(size)}).first;
    }
    Open& o = it->second;
    MINITVM_USER_CHECK(offset <= o.size)
        << what << ": offset " << offset << " is past the end of " << file.string() << " ("
        << o.size << " bytes)";
    if (length < 0) length = o.size - offset;
    MINITVM_USER_CHECK(length <= o.size - offset)
        << what << ": bytes [" << offset << ", " << offset + length << ") are outside "
        << file.string() << " (" << o.size << " bytes)";
    std::string buf(size_t(length), '\0');
    o.f->clear();
    o.f->seekg(offset);
    o.f->read(buf.data(), length);
    MINITVM_USER_CHECK(o.f->good() || length == 0)
        << what << ": reading " << length << " bytes at " << offset << " of " << file.string()
        << " failed";
    t.set_raw_data(std::move(buf));
    t.clear_external_data();
    t.set_data_location(::onnx::TensorProto_DataLocation_DEFAULT);
  }

 private:
  struct Open {
    std::unique_ptr<std::ifstream> f;
    int64_t size = 0;
  };
  fs::path base_;
  std::map<std::string, Open> files_;
};

}  // namespace

void load_external_data(::onnx::ModelProto& m, const std::string& model_path) {
  Reader r(fs::path(model_path).parent_path());
  auto* g = m.mutable_graph();
  for (auto& t : *g->mutable_initializer()) r.load(t, "initializer '" + t.name() + "'");
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      std::string what = "attribute '" + a.name() + "' of node '" + n.name() + "'";
      if (a.has_t()) r.load(*a.mutable_t(), what);
      for (auto& t : *a.mutable_tensors()) r.load(t, what);
    }
}

}  // namespace minitvm::frontend

#endif  // MINITVM_HAVE_ONNX
