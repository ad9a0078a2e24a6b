/** \file
 * Warnings and debug output. Warnings go to a replaceable sink (stderr by default) so that tests
 * can capture them and tools can count them.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace minitvm {

using WarningSink = std::function<void(const std::string&)>;

/** Emit a warning through the current sink. */
void log_warning(const std::string& msg);
/** Replace the warning sink; returns the previous one. An empty sink restores stderr. */
WarningSink set_warning_sink(WarningSink sink);

/** RAII capture of warnings, for tests and for tools that summarise them. */
class WarningCapture {
 public:
  WarningCapture();
  ~WarningCapture();
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
  WarningSink previous_;
};

/** Debug level from MINITVM_DEBUG (read once). 0 when unset. */
int debug_level();

}  // namespace minitvm
