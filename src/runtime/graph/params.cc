// TVM v0.6 params serialisation (src/relay/backend/param_dict.cc, NDArray::Save/Load): a list of
// names and a list of CPU DLTensors, little-endian. TVM v0.6 SaveParamDict layout
// (docs/RUNTIME.md).
#include <cstring>
#include <map>
#include <string>

#include "minitvm/runtime/graph_executor.h"
#include "minitvm/support/error.h"

namespace minitvm::runtime {

namespace {

constexpr uint64_t kTVMNDArrayListMagic = 0xF7E58D4F05049CB7ULL;
constexpr uint64_t kTVMNDArrayMagic = 0xDD5E40F096B4A13FULL;

template <typename T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // the host is little-endian (x86-64, aarch64)
  out.append(b, sizeof(T));
}

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, s_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string bytes(uint64_t n, const char* what) {
    need(n, what);
    std::string r = s_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return r;
  }
  size_t pos() const { return pos_; }
  size_t left() const { return s_.size() - pos_; }

 private:
  void need(uint64_t n, const char* what) {
    MINITVM_RUNTIME_CHECK(n <= left())
        << "params: truncated at byte " << pos_ << " reading " << what << " (" << n
        << " bytes needed, " << left() << " left)";
  }
  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

std::string save_param_dict(const std::map<std::string, NDArray>& params) {
  std::string out;
  put<uint64_t>(out, kTVMNDArrayListMagic);
  put<uint64_t>(out, 0);
  put<uint64_t>(out, params.size());
  for (const auto& [name, a] : params) {
    put<uint64_t>(out, name.size());
    out += name;
  }
  put<uint64_t>(out, params.size());
  for (const auto& [name, arr] : params) {
    MINITVM_RUNTIME_CHECK(arr.defined())
        << "save_param_dict: parameter '" << name << "' is undefined";
    const NDArray a = arr.device().is_cpu() ? arr.contiguous() : arr.copy_to(Device::cpu());
    put<uint64_t>(out, kTVMNDArrayMagic);
    put<uint64_t>(out, 0);
    put<int32_t>(out, 1);  // DLContext: kDLCPU, 0 (arrays are always saved as CPU tensors)
    put<int32_t>(out, 0);
    put<int32_t>(out, a.ndim());
    // DLDataType as TVM v0.6 writes it: bool is {kDLUInt, 1, 1}.
    put<uint8_t>(out, static_cast<uint8_t>(a.dtype().code()));
    put<uint8_t>(out, static_cast<uint8_t>(a.dtype().bits()));
    put<uint16_t>(out, static_cast<uint16_t>(a.dtype().lanes()));
    for (int64_t d : a.shape()) put<int64_t>(out, d);
    put<int64_t>(out, a.nbytes());
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(a.nbytes()));
    a.copy_to_bytes(out.data() + at, static_cast<size_t>(a.nbytes()));
  }
  return out;
}

std::map<std::string, NDArray> load_param_dict(const std::string& bytes) {
  Reader r(bytes);
  const uint64_t magic = r.get<uint64_t>("the list magic");
  MINITVM_RUNTIME_CHECK(magic == kTVMNDArrayListMagic)
      << "params: not a TVM params blob (magic 0x" << std::hex << magic << ", expected 0x"
      << kTVMNDArrayListMagic << ")";
  r.get<uint64_t>("the reserved word");
  const uint64_t n_names = r.get<uint64_t>("the name count");
  MINITVM_RUNTIME_CHECK(n_names <= r.left() / 8)
      << "params: name count " << n_names << " exceeds the data";
  std::vector<std::string> names;
  for (uint64_t i = 0; i < n_names; ++i) {
    const uint64_t len = r.get<uint64_t>("a name length");
    names.push_back(r.bytes(len, "a name"));
  }
  const uint64_t n_arrays = r.get<uint64_t>("the array count");
  MINITVM_RUNTIME_CHECK(n_arrays == n_names)
      << "params: " << n_names << " names but " << n_arrays << " arrays";
  std::map<std::string, NDArray> out;
  for (uint64_t i = 0; i < n_arrays; ++i) {
    const std::string& name = names[static_cast<size_t>(i)];
    const size_t start = r.pos();
    const uint64_t m = r.get<uint64_t>("an array magic");
    MINITVM_RUNTIME_CHECK(m == kTVMNDArrayMagic)
        << "params: array '" << name << "' at byte " << start << " has a bad magic (0x" << std::hex
        << m << ")";
    r.get<uint64_t>("the reserved word");
    const int32_t dev_type = r.get<int32_t>("the device type");
    r.get<int32_t>("the device id");
    MINITVM_RUNTIME_CHECK(dev_type == 1) << "params: array '" << name << "' has device type "
                                         << dev_type << " (only CPU tensors, 1, are saved)";
    const int32_t ndim = r.get<int32_t>("ndim");
    MINITVM_RUNTIME_CHECK(ndim >= 0 && ndim <= 32)
        << "params: array '" << name << "' has ndim " << ndim;
    const uint8_t code = r.get<uint8_t>("the dtype code");
    const uint8_t bits = r.get<uint8_t>("the dtype bits");
    const uint16_t lanes = r.get<uint16_t>("the dtype lanes");
    MINITVM_RUNTIME_CHECK((code <= 2 || code == 4) && bits > 0 && lanes > 0)
        << "params: array '" << name << "' has an unsupported dtype (code " << int(code)
        << ", bits " << int(bits) << ", lanes " << lanes << ")";
    const DataType dtype(static_cast<DataType::Code>(code), bits, lanes);
    std::vector<int64_t> shape;
    int64_t elems = 1;
    for (int32_t d = 0; d < ndim; ++d) {
      const int64_t s = r.get<int64_t>("a dimension");
      MINITVM_RUNTIME_CHECK(s >= 0 && (s == 0 || elems <= (int64_t(1) << 40) / s))
          << "params: array '" << name << "' has an invalid dimension " << s;
      shape.push_back(s);
      elems *= s;
    }
    const int64_t nbytes = r.get<int64_t>("the byte count");
    MINITVM_RUNTIME_CHECK(nbytes == elems * dtype.bytes())
        << "params: array '" << name << "' (" << dtype << ", " << elems << " elements) declares "
        << nbytes << " bytes, expected " << elems * dtype.bytes();
    const std::string data = r.bytes(static_cast<uint64_t>(nbytes), "array data");
    NDArray a = NDArray::empty(shape, dtype, Device::cpu());
    a.copy_from_bytes(data.data(), data.size());
    MINITVM_RUNTIME_CHECK(out.emplace(name, a).second) << "params: duplicate name '" << name << "'";
  }
  MINITVM_RUNTIME_CHECK(r.left() == 0)
      << "params: " << r.left() << " trailing bytes after the last array";
  return out;
}

}  // namespace minitvm::runtime
