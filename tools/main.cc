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
  os << "usage: minitvm <command> [args...]\n"
        "       minitvm <command> --help      (or: minitvm help <command>)\n\ncommands:\n";
  for (auto& c : cmds)
    os << "  " << c.name << std::string(c.name.size() < 18 ? 18 - c.name.size() : 1, ' ') << c.help
       << "\n";
}

static const minitvm::tools::Command* find_command(const std::string& name) {
  for (auto& c : minitvm::tools::command_registry())
    if (c.name == name) return &c;
  return nullptr;
}

static int run(const minitvm::tools::Command& c, const std::vector<std::string>& args) {
  try {
    return c.fn(args);
  } catch (const std::exception& e) {
    std::cerr << "minitvm " << c.name << ": error: " << e.what() << "\n";
    return 1;
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || (name == "help" && argc == 2)) {
    usage(std::cout);
    return 0;
  }
  if (name == "help") {  // minitvm help SUB [...]: SUB's usage, as `minitvm SUB [...] --help`
    const auto* c = find_command(argv[2]);
    if (!c) {
      std::cerr << "minitvm help: unknown command '" << argv[2] << "'\n";
      usage(std::cerr);
      return 2;
    }
    std::vector<std::string> args(argv + 3, argv + argc);
    args.push_back("--help");
    return run(*c, args);
  }
  if (const auto* c = find_command(name))
    return run(*c, std::vector<std::string>(argv + 2, argv + argc));
  std::cerr << "minitvm: unknown command '" << name << "'\n";
  usage(std::cerr);
  return 2;
}
