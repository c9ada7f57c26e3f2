// The subcommands of `weft` (SPEC §9).
#pragma once
#include <string>
#include <vector>

namespace weft::cli {

int dispatch(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
int checkCommand(const std::vector<std::string>& args);
int replCommand(const std::vector<std::string>& args);   // repl_command.cpp
int graphCommand(const std::vector<std::string>& args);  // graph_command.cpp
int compileCommand(const std::vector<std::string>& args);  // compile_command.cpp
int showCommand(const std::vector<std::string>& args);   // show_command.cpp
int importCommand(const std::vector<std::string>& args);  // onnx_commands.cpp
int exportOnnxCommand(const std::vector<std::string>& args);  // onnx_commands.cpp

// Whether `pass` (of --dump-after=PASS) names a pass; if not, says so, with the closest name.
bool knownPass(const std::string& command, const std::string& pass, const char* usage);

}  // namespace weft::cli
