// The CPU a figure or a measured choice belongs to, as /proc/cpuinfo names it: its model name and
// its family, model and stepping. A virtual machine's model name can be as bare as "AMD EPYC" for
// several generations (Zen 3, 4 and 5 alike), whose best GEMM libraries differ, so the name alone
// neither tells figures apart nor keys a cached GEMM choice.
#ifndef WEFT_RT_CPU_NAME_H
#define WEFT_RT_CPU_NAME_H
#include <fstream>
#include <string>

namespace weft::rt {

// "AMD EPYC (family 26, model 2, stepping 1)"; "unknown CPU" when /proc/cpuinfo says nothing.
inline std::string cpuName() {
  std::ifstream f("/proc/cpuinfo");
  std::string name, family, model, stepping;
  for (std::string line; std::getline(f, line) && !line.empty();) {  // the first processor's block
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon), value = line.substr(colon + 1);
    key.erase(key.find_last_not_of(" \t") + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "model name") name = value;
    else if (key == "cpu family") family = value;
    else if (key == "model") model = value;
    else if (key == "stepping") stepping = value;
  }
  std::string out = name.empty() ? "unknown CPU" : name;
  if (!family.empty()) out += " (family " + family + ", model " + model + ", stepping " + stepping + ")";
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return out;
}

}  // namespace weft::rt

#endif  // WEFT_RT_CPU_NAME_H
