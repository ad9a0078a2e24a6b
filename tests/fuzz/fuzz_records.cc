// libFuzzer target: the tuning-record loader and the target-string parser must never crash, hang
// or allocate without bound, and every record they accept must re-encode stably.
#include <cstddef>
#include <cstdint>
#include <string>

#include "minitvm/autotune/record.h"
#include "minitvm/support/error.h"
#include "minitvm/support/logging.h"

using namespace minitvm;
using namespace minitvm::autotune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool init = [] {
    set_warning_sink([](const std::string&) {});
    return true;
  }();
  (void)init;
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse_target(text.substr(0, text.find('\n')));
  } catch (const CompileError&) {
  }
  LoadReport rep;
  std::vector<Record> recs;
  try {
    recs = load_records_from_string(text, "fuzz", {}, &rep);
  } catch (const CompileError&) {
    __builtin_trap();  // non-strict loading never throws
  }
  if (static_cast<int>(recs.size() + rep.skipped.size()) + rep.comments + rep.blank != rep.lines)
    __builtin_trap();
  for (const auto& r : recs) {
    std::string once = encode_record(r);
    std::string twice;
    try {
      twice = encode_record(decode_record(once));
    } catch (const CompileError&) {
      __builtin_trap();  // what we accepted and wrote must be readable again
    }
    if (once != twice) __builtin_trap();
  }
  return 0;
}
