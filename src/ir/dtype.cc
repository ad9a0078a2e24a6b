#include "minitvm/ir/dtype.h"

#include <cctype>

#include "minitvm/support/error.h"

namespace minitvm {

std::string DataType::str() const {
  if (is_void()) return "void";
  if (is_handle()) return "handle";
  std::string s;
  if (is_bool()) {
    s = "bool";
  } else {
    switch (code_) {
      case Code::Int:
        s = "int";
        break;
      case Code::UInt:
        s = "uint";
        break;
      case Code::Float:
        s = "float";
        break;
      case Code::BFloat:
        s = "bfloat";
        break;
      case Code::Handle:
        s = "handle";
        break;
    }
    s += std::to_string(bits_);
  }
  if (lanes_ > 1) s += "x" + std::to_string(lanes_);
  return s;
}

DataType DataType::parse(const std::string& text) {
  std::string s = text;
  int lanes = 1;
  auto xpos = s.find('x');
  if (xpos != std::string::npos && xpos + 1 < s.size() &&
      std::isdigit(static_cast<unsigned char>(s[xpos + 1]))) {
    lanes = std::stoi(s.substr(xpos + 1));
    s = s.substr(0, xpos);
  }
  if (s == "bool") return Bool(lanes);
  if (s == "handle") return Handle();
  if (s == "void") return Void();
  auto with_bits = [&](const std::string& prefix, Code code) -> bool {
    if (s.rfind(prefix, 0) != 0) return false;
    std::string rest = s.substr(prefix.size());
    if (rest.empty()) return false;
    for (char c : rest)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  for (auto [prefix, code] : {std::pair{"uint", Code::UInt}, std::pair{"int", Code::Int},
                              std::pair{"float", Code::Float}, std::pair{"bfloat", Code::BFloat}}) {
    if (with_bits(prefix, code)) {
      int bits = std::stoi(s.substr(std::string(prefix).size()));
      MINITVM_USER_CHECK(bits > 0 && bits <= 64)
          << "unsupported bit width in dtype '" << text << "'";
      return DataType(code, bits, lanes);
    }
  }
  MINITVM_USER_ERROR << "unknown dtype '" << text << "'";
  return {};
}

std::ostream& operator<<(std::ostream& os, const DataType& t) {
  return os << t.str();
}

std::string Device::str() const {
  return (type == Type::CPU ? "cpu(" : "cuda(") + std::to_string(id) + ")";
}
std::ostream& operator<<(std::ostream& os, const Device& d) {
  return os << d.str();
}

}  // namespace minitvm
