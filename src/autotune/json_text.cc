// Python-compatible text of JSON values (json.dumps and repr), see json_text.h.
#include "minitvm/autotune/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace minitvm::autotune {

std::string py_float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  // s looks like "-1.2345e-05" or "5e+16": split sign, digits, exponent.
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s = s.substr(1);
  }
  size_t epos = s.find('e');
  std::string mant = s.substr(0, epos);
  int exp = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string out;
  if (exp >= -5 + 1 && exp <= 15) {  // Python: fixed notation iff -4 <= exponent <= 15
    if (exp >= 0) {
      std::string ip = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
      while ((int)ip.size() < exp + 1) ip += '0';
      std::string fp = digits.size() > (size_t)exp + 1 ? digits.substr(exp + 1) : "0";
      out = ip + "." + fp;
    } else {
      out = "0." + std::string(-exp - 1, '0') + digits;
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof(eb), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  }
  return sign + out;
}

namespace {

// Decode one UTF-8 code point starting at s[i]; returns -1 for an invalid byte (consumes 1).
long decode_utf8(const std::string& s, size_t& i) {
  unsigned char c = s[i];
  int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
  if (n < 0 || i + n >= s.size()) {
    ++i;
    return -1;
  }
  long cp = n == 0 ? c : (c & (0x3f >> n));
  for (int k = 1; k <= n; ++k) {
    unsigned char d = s[i + k];
    if ((d >> 6) != 2) {
      ++i;
      return -1;
    }
    cp = (cp << 6) | (d & 0x3f);
  }
  i += n + 1;
  return cp;
}

void dump_string(const std::string& s, std::string& out) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof(b), "\\u%04x", c);
            out += b;
          } else {
            out += static_cast<char>(c);
          }
      }
      continue;
    }
    long cp = decode_utf8(s, i);
    if (cp < 0) cp = 0xfffd;
    char b[32];
    if (cp >= 0x10000) {
      long v = cp - 0x10000;
      std::snprintf(b, sizeof(b), "\\u%04lx\\u%04lx", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
    } else {
      std::snprintf(b, sizeof(b), "\\u%04lx", cp);
    }
    out += b;
  }
  out += '"';
}

void dump(const Json& v, std::string& out) {
  switch (v.type()) {
    case Json::value_t::null:
      out += "null";
      break;
    case Json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      break;
    case Json::value_t::number_integer:
      out += std::to_string(v.get<int64_t>());
      break;
    case Json::value_t::number_unsigned:
      out += std::to_string(v.get<uint64_t>());
      break;
    case Json::value_t::number_float: {
      double d = v.get<double>();
      if (std::isnan(d))
        out += "NaN";
      else if (std::isinf(d))
        out += d < 0 ? "-Infinity" : "Infinity";
      else
        out += py_float_repr(d);
      break;
    }
    case Json::value_t::string:
      dump_string(v.get_ref<const std::string&>(), out);
      break;
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ", ";
        first = false;
        dump(e, out);
      }
      out += ']';
      break;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, e] : v.items()) {
        if (!first) out += ", ";
        first = false;
        dump_string(k, out);
        out += ": ";
        dump(e, out);
      }
      out += '}';
      break;
    }
    default:
      out += "null";
      break;  // binary / discarded: never produced by our parser
  }
}

void repr_string(const std::string& s, std::string& out) {
  bool has_sq = s.find('\'') != std::string::npos, has_dq = s.find('"') != std::string::npos;
  char q = (has_sq && !has_dq) ? '"' : '\'';
  out += q;
  for (unsigned char c : s) {
    if (c == q || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof(b), "\\x%02x", c);
      out += b;
    } else
      out += static_cast<char>(c);
  }
  out += q;
}

void repr(const Json& v, bool tuples, std::string& out) {
  switch (v.type()) {
    case Json::value_t::null:
      out += "None";
      break;
    case Json::value_t::boolean:
      out += v.get<bool>() ? "True" : "False";
      break;
    case Json::value_t::number_integer:
      out += std::to_string(v.get<int64_t>());
      break;
    case Json::value_t::number_unsigned:
      out += std::to_string(v.get<uint64_t>());
      break;
    case Json::value_t::number_float:
      out += py_float_repr(v.get<double>());
      break;
    case Json::value_t::string:
      repr_string(v.get_ref<const std::string&>(), out);
      break;
    case Json::value_t::array: {
      out += tuples ? '(' : '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ", ";
        first = false;
        repr(e, tuples, out);
      }
      if (tuples && v.size() == 1) out += ',';
      out += tuples ? ')' : ']';
      break;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, e] : v.items()) {
        if (!first) out += ", ";
        first = false;
        repr_string(k, out);
        out += ": ";
        repr(e, tuples, out);
      }
      out += '}';
      break;
    }
    default:
      out += "None";
      break;
  }
}

}  // namespace

std::string py_json_dumps(const Json& v) {
  std::string out;
  dump(v, out);
  return out;
}

std::string py_repr(const Json& v, bool arrays_as_tuples) {
  std::string out;
  repr(v, arrays_as_tuples, out);
  return out;
}

}  // namespace minitvm::autotune
