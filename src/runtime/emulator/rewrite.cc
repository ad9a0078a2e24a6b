// Declaration rewrite of CUDA C for host compilation (see docs/EMULATOR.md, "What is rewritten").
//
// Only three kinds of declarations change; everything else is compiled exactly as emitted:
//   kernel pointer parameter   `T* __restrict__ A`        -> `__emu_gptr<T> A`
//   shared array               `__shared__ T S[N];`       -> `__emu_sptr<T> S =
//   __emu_shared_decl<T>(id, N, "S");` local array                `T L[N];`                  ->
//   `__emu_local<T, N> L("L");`
// The rewrite keeps every line where it was, so compiler messages and __LINE__ match the source.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "minitvm/runtime/cuda_emulator.h"

namespace minitvm::runtime::emulator {
namespace {

/** The source with comments, string/char literals and preprocessor lines blanked out (same size).
 */
std::string mask_source(const std::string& s) {
  std::string m = s;
  const size_t n = s.size();
  size_t i = 0;
  bool line_start = true;
  while (i < n) {
    const char c = s[i];
    if (line_start && (c == ' ' || c == '\t')) {
      ++i;
      continue;
    }
    if (line_start && c == '#') {  // preprocessor line (with continuations)
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
          m[i] = ' ';
          i += 2;
          continue;
        }
        m[i++] = ' ';
      }
      continue;
    }
    line_start = false;
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') m[i++] = ' ';
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      m[i] = m[i + 1] = ' ';
      i += 2;
      while (i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/')) {
        if (s[i] != '\n') m[i] = ' ';
        ++i;
      }
      if (i < n) {
        m[i] = m[i + 1] = ' ';
        i += 2;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n) {
          m[i] = ' ';
          ++i;
        }
        m[i++] = ' ';
      }
      ++i;
      continue;
    }
    ++i;
  }
  return m;
}

struct Token {
  size_t begin = 0, end = 0;
  std::string text;
  bool ident() const {
    return !text.empty() && (std::isalpha((unsigned char)text[0]) || text[0] == '_');
  }
  bool number() const { return !text.empty() && std::isdigit((unsigned char)text[0]); }
};

std::vector<Token> tokenize(const std::string& m, size_t begin, size_t end) {
  std::vector<Token> out;
  size_t i = begin;
  while (i < end) {
    const char c = m[i];
    if (std::isspace((unsigned char)c)) {
      ++i;
      continue;
    }
    Token t;
    t.begin = i;
    if (std::isalnum((unsigned char)c) || c == '_') {
      while (i < end && (std::isalnum((unsigned char)m[i]) || m[i] == '_' || m[i] == '.')) {
        if (m[i] == '.' && !std::isdigit((unsigned char)c)) break;  // '.' only inside numbers
        ++i;
      }
    } else {
      ++i;
    }
    t.end = i;
    t.text = m.substr(t.begin, t.end - t.begin);
    out.push_back(std::move(t));
  }
  return out;
}

int line_of(const std::string& s, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i) line += s[i] == '\n';
  return line;
}

std::string line_text(const std::string& s, size_t pos) {
  size_t b = s.rfind('\n', pos);
  b = b == std::string::npos ? 0 : b + 1;
  size_t e = s.find('\n', pos);
  if (e == std::string::npos) e = s.size();
  return s.substr(b, e - b);
}

[[noreturn]] void fail_at(const std::string& src, size_t pos, const std::string& what) {
  throw EmulatorError("CUDA emulator: " + what + " (line " + std::to_string(line_of(src, pos)) +
                      ": `" + line_text(src, pos) + "`)");
}

struct Edit {
  size_t begin, end;
  std::string text;
};

/** Appends the newlines of the replaced range so that lines do not move. */
std::string keep_lines(const std::string& src, size_t b, size_t e, std::string text) {
  for (size_t i = b; i < e; ++i)
    if (src[i] == '\n') text += '\n';
  return text;
}

std::string join(const std::vector<Token>& toks, size_t b, size_t e) {
  std::string r;
  for (size_t i = b; i < e; ++i) {
    if (!r.empty()) r += ' ';
    r += toks[i].text;
  }
  return r;
}

size_t match_close(const std::string& m, size_t open, char o, char c) {
  int depth = 0;
  for (size_t i = open; i < m.size(); ++i) {
    if (m[i] == o)
      ++depth;
    else if (m[i] == c && --depth == 0)
      return i;
  }
  return std::string::npos;
}

/** Parses and rewrites the parameter list (lp, rp) exclusive. */
std::vector<KernelParam> rewrite_params(const std::string& src, const std::string& m, size_t lp,
                                        size_t rp, std::vector<Edit>& edits) {
  std::vector<KernelParam> params;
  std::vector<std::pair<size_t, size_t>> pieces;
  size_t start = lp + 1;
  int depth = 0;
  for (size_t i = lp + 1; i <= rp; ++i) {
    if (i == rp || (m[i] == ',' && depth == 0)) {
      pieces.emplace_back(start, i);
      start = i + 1;
    } else if (m[i] == '(' || m[i] == '<') {
      ++depth;
    } else if (m[i] == ')' || m[i] == '>') {
      --depth;
    }
  }
  for (auto [b, e] : pieces) {
    std::vector<Token> toks = tokenize(m, b, e);
    if (toks.empty() || (toks.size() == 1 && toks[0].text == "void" && pieces.size() == 1))
      continue;
    KernelParam p;
    if (!toks.back().ident())
      fail_at(src, b, "cannot parse kernel parameter `" + join(toks, 0, toks.size()) + "`");
    p.name = toks.back().text;
    std::vector<std::string> type;
    int stars = 0;
    for (size_t k = 0; k + 1 < toks.size(); ++k) {
      const std::string& t = toks[k].text;
      if (t == "*") {
        ++stars;
        continue;
      }
      if (t == "__restrict__" || t == "__restrict" || t == "restrict") continue;
      if (t == "&" || t == "[" || t == "]")
        fail_at(src, b, "unsupported kernel parameter `" + join(toks, 0, toks.size()) + "`");
      if (stars > 0 && t != "const" && t != "volatile")
        fail_at(src, b, "unsupported kernel parameter `" + join(toks, 0, toks.size()) + "`");
      if (stars == 0) type.push_back(t);
    }
    if (stars > 1)
      fail_at(src, b, "pointer-to-pointer kernel parameter `" + p.name + "` is not supported");
    for (const auto& t : type) p.c_type += (p.c_type.empty() ? "" : " ") + t;
    if (p.c_type.empty()) fail_at(src, b, "kernel parameter `" + p.name + "` has no type");
    p.is_pointer = stars == 1;
    if (p.is_pointer) {
      edits.push_back({toks.front().begin, toks.back().end,
                       keep_lines(src, toks.front().begin, toks.back().end,
                                  "__emu_gptr<" + p.c_type + " > " + p.name)});
    }
    params.push_back(std::move(p));
  }
  return params;
}

const std::set<std::string>& non_type_keywords() {
  static const std::set<std::string> k = {
      "return",  "else",   "case",       "goto", "do",    "throw", "delete", "new",   "sizeof",
      "typedef", "extern", "__shared__", "if",   "while", "for",   "switch", "using", "static"};
  return k;
}

int64_t parse_int(const std::string& t) {
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 0);
  while (end && (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')) ++end;
  return (end && *end == '\0') ? static_cast<int64_t>(v) : -1;
}

/** Rewrites __shared__ and local array declarations of one kernel body [b, e). */
void rewrite_body(const std::string& src, const std::string& m, size_t b, size_t e, KernelInfo& ki,
                  std::vector<Edit>& edits) {
  std::vector<Token> toks = tokenize(m, b, e);
  for (size_t k = 0; k < toks.size(); ++k) {
    if (toks[k].text != "__shared__") continue;
    size_t first = k;
    bool dynamic = false;
    while (first > 0 && (toks[first - 1].text == "volatile" || toks[first - 1].text == "extern")) {
      dynamic |= toks[first - 1].text == "extern";
      --first;
    }
    size_t j = k + 1;
    if (j < toks.size() && toks[j].text == "__align__") {
      if (j + 3 < toks.size() && toks[j + 1].text == "(" && toks[j + 3].text == ")") j += 4;
    }
    size_t tb = j;
    while (j < toks.size() && toks[j].ident()) ++j;
    if (j < toks.size() && toks[j].text == "*")
      continue;  // a cast such as (volatile __shared__ float*)
    // expect: TYPE... NAME [ N ] ;
    if (j - tb < 2 || j >= toks.size() || toks[j].text != "[")
      fail_at(src, toks[k].begin,
              "cannot emulate this __shared__ declaration (expected `__shared__ T name[N];`)");
    SharedDecl d;
    d.c_type = join(toks, tb, j - 1);
    d.name = toks[j - 1].text;
    size_t close = j + 1;
    if (close < toks.size() && toks[close].text == "]") {
      if (!dynamic) fail_at(src, toks[k].begin, "__shared__ array `" + d.name + "` has no size");
      d.count = -1;
    } else {
      if (close + 1 >= toks.size() || toks[close + 1].text != "]" ||
          parse_int(toks[close].text) < 0)
        fail_at(src, toks[k].begin, "__shared__ array `" + d.name + "` must have a constant size");
      d.count = parse_int(toks[close].text);
      ++close;
    }
    if (close + 1 >= toks.size() || toks[close + 1].text != ";")
      fail_at(src, toks[k].begin,
              "cannot emulate this __shared__ declaration of `" + d.name +
                  "` (multi-dimensional or initialised)");
    const size_t semi = close + 1;
    const int id = static_cast<int>(ki.shared.size());
    std::string text = "__emu_sptr<" + d.c_type + " > " + d.name + " = __emu_shared_decl<" +
                       d.c_type + " >(" + std::to_string(id) + ", " + std::to_string(d.count) +
                       ", \"" + d.name + "\");";
    edits.push_back({toks[first].begin, toks[semi].end,
                     keep_lines(src, toks[first].begin, toks[semi].end, text)});
    ki.shared.push_back(std::move(d));
    k = semi;
  }
  // Local arrays: at a statement start, `T... NAME [ N ] ;`.
  for (size_t k = 0; k < toks.size(); ++k) {
    const bool stmt_start =
        k == 0 || toks[k - 1].text == ";" || toks[k - 1].text == "{" || toks[k - 1].text == "}";
    if (!stmt_start || !toks[k].ident()) continue;
    size_t j = k;
    bool keyword = false;
    while (j < toks.size() && toks[j].ident())
      keyword |= non_type_keywords().count(toks[j++].text) > 0;
    if (keyword || j - k < 2 || j + 3 >= toks.size()) continue;
    if (toks[j].text != "[" || toks[j + 2].text != "]" || toks[j + 3].text != ";") continue;
    const int64_t n = parse_int(toks[j + 1].text);
    if (n <= 0) continue;
    const std::string type = join(toks, k, j - 1), name = toks[j - 1].text;
    std::string text =
        "__emu_local<" + type + ", " + std::to_string(n) + "> " + name + "(\"" + name + "\");";
    edits.push_back(
        {toks[k].begin, toks[j + 3].end, keep_lines(src, toks[k].begin, toks[j + 3].end, text)});
    k = j + 3;
  }
}

}  // namespace

RewrittenSource rewrite_cuda_source(const std::string& src) {
  RewrittenSource out;
  const std::string m = mask_source(src);
  std::vector<Token> toks = tokenize(m, 0, m.size());
  std::vector<Edit> edits;
  for (const Token& t : toks) {
    if (t.text == "__syncthreads") out.uses_barrier = true;
  }
  for (size_t k = 0; k < toks.size(); ++k) {
    if (toks[k].text != "__global__") continue;
    KernelInfo ki;
    ki.first_line = line_of(src, toks[k].begin);
    size_t j = k + 1;
    if (j >= toks.size() || toks[j].text != "void")
      fail_at(src, toks[k].begin, "a __global__ function must return void");
    ++j;
    if (j < toks.size() && toks[j].text == "__launch_bounds__") {
      if (j + 2 >= toks.size() || toks[j + 1].text != "(")
        fail_at(src, toks[j].begin, "cannot parse __launch_bounds__");
      ki.launch_bounds = parse_int(toks[j + 2].text);
      if (ki.launch_bounds <= 0)
        fail_at(src, toks[j].begin, "__launch_bounds__ must be a positive constant");
      size_t close = match_close(m, toks[j + 1].begin, '(', ')');
      while (j < toks.size() && toks[j].begin <= close) ++j;
    }
    if (j + 1 >= toks.size() || !toks[j].ident() || toks[j + 1].text != "(")
      fail_at(src, toks[k].begin, "cannot parse the kernel signature");
    ki.name = toks[j].text;
    const size_t lp = toks[j + 1].begin;
    const size_t rp = match_close(m, lp, '(', ')');
    if (rp == std::string::npos)
      fail_at(src, lp, "unbalanced parentheses in the signature of " + ki.name);
    ki.params = rewrite_params(src, m, lp, rp, edits);
    while (k < toks.size() && toks[k].begin <= rp) ++k;
    if (k < toks.size() && toks[k].text == ";") continue;  // a prototype
    if (k >= toks.size() || toks[k].text != "{")
      fail_at(src, rp, "expected the body of kernel " + ki.name);
    const size_t lb = toks[k].begin;
    const size_t rb = match_close(m, lb, '{', '}');
    if (rb == std::string::npos) fail_at(src, lb, "unbalanced braces in kernel " + ki.name);
    rewrite_body(src, m, lb + 1, rb, ki, edits);
    for (const KernelInfo& other : out.kernels)
      if (other.name == ki.name) fail_at(src, lb, "kernel " + ki.name + " is defined twice");
    out.kernels.push_back(std::move(ki));
    while (k < toks.size() && toks[k].begin < rb) ++k;
  }
  // Apply edits back to front (they do not overlap: parameters, then body declarations in order).
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string text = src;
  for (size_t i = edits.size(); i-- > 0;)
    text.replace(edits[i].begin, edits[i].end - edits[i].begin, edits[i].text);
  out.text = std::move(text);
  return out;
}

}  // namespace minitvm::runtime::emulator
