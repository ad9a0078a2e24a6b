// The `minitvm` command. Subcommands live in tools/cmd_*.cc and register through commands.h.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>

#include "commands.h"

namespace minitvm::tools {
std::vector<Command>& command_registry() {
  static std::vector<Command> r;
  return r;
}
}  // namespace minitvm::tools

static void usage(std::ostream& os) {
  auto cmds = minitvm::tools::command_registry();
  std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
  os << "usage: minitvm <command> [args...]\n\ncommands:\n";
  for (auto& c : cmds) os << "  " << c.name << std::string(c.name.size() < 18 ? 18 - c.name.size() : 1, ' ') << c.help << "\n";
}

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  std::string name = argv[1];
  for (auto& c : minitvm::tools::command_registry()) {
    if (c.name != name) continue;
    std::vector<std::string> args(argv + 2, argv + argc);
    try {
      return c.fn(args);
    } catch (const std::exception& e) {
      std::cerr << "minitvm " << name << ": error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "minitvm: unknown command '" << name << "'\n";
  usage(std::cerr);
  return 2;
}
