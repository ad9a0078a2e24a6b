// NumPy .npy reading and writing (include/minitvm/runtime/npy.h). Format: the 6-byte magic
// "\x93NUMPY", major and minor version bytes, a little-endian header length (u16 for 1.0, u32 for
// 2.0/3.0), then the header — a Python dict literal with 'descr', 'fortran_order' and 'shape' —
// padded with spaces and a newline so that the data starts at a multiple of 64 bytes.
#include "minitvm/runtime/npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "minitvm/support/error.h"

namespace minitvm::runtime {
namespace {

[[noreturn]] void bad(const std::string& what, const std::string& why) {
  throw RuntimeError(what + ": not a valid .npy file: " + why);
}

// A cursor over the header dict literal.
struct HeaderParser {
  const std::string& s;
  const std::string& what;
  size_t i = 0;

  void ws() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c))
      bad(what,
          std::string("header: expected '") + c + "' at offset " + std::to_string(i) + " of " + s);
  }
  std::string str() {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"'))
      bad(what, "header: expected a string at offset " + std::to_string(i));
    char q = s[i++];
    size_t e = s.find(q, i);
    if (e == std::string::npos) bad(what, "header: unterminated string");
    std::string r = s.substr(i, e - i);
    i = e + 1;
    return r;
  }
  bool boolean() {
    ws();
    if (s.compare(i, 4, "True") == 0) return i += 4, true;
    if (s.compare(i, 5, "False") == 0) return i += 5, false;
    bad(what, "header: expected True or False at offset " + std::to_string(i));
  }
  std::vector<int64_t> tuple() {
    expect('(');
    std::vector<int64_t> r;
    while (!eat(')')) {
      ws();
      size_t st = i;
      int64_t v = 0;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        int d = s[i++] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - d) / 10)
          bad(what, "header: shape dimension overflows int64");
        v = v * 10 + d;
      }
      if (i == st)
        bad(what, "header: expected a non-negative dimension at offset " + std::to_string(i));
      if (i < s.size() && s[i] == 'L') ++i;  // Python 2 longs
      r.push_back(v);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return r;
  }
};

struct DescrType {
  const char* descr;
  DataType type;
};
const DescrType kTypes[] = {
    {"<f2", DataType::Float(16)}, {"<f4", DataType::Float(32)}, {"<f8", DataType::Float(64)},
    {"|i1", DataType::Int(8)},    {"<i2", DataType::Int(16)},   {"<i4", DataType::Int(32)},
    {"<i8", DataType::Int(64)},   {"|u1", DataType::UInt(8)},   {"<u2", DataType::UInt(16)},
    {"<u4", DataType::UInt(32)},  {"<u8", DataType::UInt(64)},  {"|b1", DataType::Bool()},
};

DataType type_of_descr(std::string d, const std::string& what) {
  // numpy writes '|' for one-byte types and '<' on little-endian hosts; '=' is native order too.
  if (d.size() == 3 && (d[0] == '=' || d[0] == '<' || d[0] == '|')) {
    for (const auto& t : kTypes)
      if (d.compare(1, 2, t.descr + 1) == 0) return t.type;
  }
  bad(what, "unsupported dtype '" + d +
                "' (supported: little-endian float16/32/64, int8-64, uint8-64, bool)");
}

}  // namespace

std::string npy_descr(DataType t) {
  for (const auto& d : kTypes)
    if (d.type == t) return d.descr;
  throw RuntimeError("save_npy: dtype " + t.str() + " has no .npy equivalent");
}

NDArray load_npy_bytes(const std::string& b, const std::string& what) {
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0)
    bad(what, "missing the \\x93NUMPY magic");
  int major = static_cast<unsigned char>(b[6]);
  size_t hlen = 0, start = 0;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (size_t(static_cast<unsigned char>(b[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) bad(what, "truncated header length");
    for (int k = 0; k < 4; ++k) hlen |= size_t(static_cast<unsigned char>(b[8 + k])) << (8 * k);
    start = 12;
  } else {
    bad(what, "format version " + std::to_string(major) + " (supported: 1, 2, 3)");
  }
  if (hlen > b.size() - start)
    bad(what, "the header length " + std::to_string(hlen) + " exceeds the file");
  std::string header = b.substr(start, hlen);
  HeaderParser p{header, what};
  p.expect('{');
  std::string descr;
  bool fortran = false, have_descr = false, have_shape = false;
  std::vector<int64_t> shape;
  while (!p.eat('}')) {
    std::string key = p.str();
    p.expect(':');
    if (key == "descr")
      descr = p.str(), have_descr = true;
    else if (key == "fortran_order")
      fortran = p.boolean();
    else if (key == "shape")
      shape = p.tuple(), have_shape = true;
    else
      bad(what, "header: unknown key '" + key + "'");
    if (!p.eat(',')) {
      p.expect('}');
      break;
    }
  }
  if (!have_descr || !have_shape) bad(what, "header lacks 'descr' or 'shape'");
  if (fortran) bad(what, "fortran_order True is not supported (save a C-contiguous array)");
  DataType t = type_of_descr(descr, what);
  size_t data_bytes = b.size() - start - hlen;
  // The element count, checked against the bytes present before anything is allocated.
  uint64_t n = 1;
  for (auto d : shape) {
    if (d != 0 && n > std::numeric_limits<uint64_t>::max() / uint64_t(d))
      bad(what, "the shape's element count overflows");
    n *= uint64_t(d);
  }
  uint64_t esize = uint64_t(t.bytes());
  if (n > data_bytes / esize || n * esize != data_bytes)
    bad(
        what, "shape " +
                  [&] {
                    std::ostringstream os;
                    os << "(";
                    for (size_t k = 0; k < shape.size(); ++k) os << (k ? ", " : "") << shape[k];
                    return os.str() + ")";
                  }() +
                  " of " + descr + " needs " + std::to_string(n) + " x " + std::to_string(esize) +
                  " bytes, the file has " + std::to_string(data_bytes));
  NDArray a = NDArray::empty(shape, t);
  if (data_bytes) std::memcpy(a.data(), b.data() + start + hlen, data_bytes);
  return a;
}

NDArray load_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw RuntimeError("load_npy: cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return load_npy_bytes(ss.str(), path);
}

std::string save_npy_bytes(const NDArray& a) {
  std::string descr = npy_descr(a.dtype());
  std::ostringstream h;
  h << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t k = 0; k < a.shape().size(); ++k) h << (k ? ", " : "") << a.shape()[k];
  h << (a.shape().size() == 1 ? ",), }" : "), }");
  std::string header = h.str();
  size_t pre = 10;
  int major = 1;
  if (header.size() + 1 + pre > 65535) major = 2, pre = 12;
  size_t total = pre + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  size_t hl = header.size();
  for (size_t k = 0; k < (major == 1 ? 2u : 4u); ++k) out += char((hl >> (8 * k)) & 0xff);
  out += header;
  size_t off = out.size();
  out.resize(off + size_t(a.nbytes()));
  if (a.nbytes()) a.copy_to_bytes(out.data() + off, size_t(a.nbytes()));
  return out;
}

void save_npy(const std::string& path, const NDArray& a) {
  std::string bytes = save_npy_bytes(a);
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  if (!f) throw RuntimeError("save_npy: cannot write " + path);
}

}  // namespace minitvm::runtime
