// Drives the built `weft` binary through a pseudo-terminal, as a user at a terminal would. Every
// wait has a timeout, so a REPL that stops answering fails the test instead of hanging it.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace weft::test {

// A fresh directory under the system's temp directory (removed by the caller if it cares).
std::string makeTempDir();

class PtySession {
 public:
  // Runs `weft ARGS...` with HOME set to `home` (so history goes there) on an 80x24 terminal.
  PtySession(std::vector<std::string> args, const std::string& home);
  ~PtySession();  // kills the process if it is still running

  void send(std::string_view keys);
  // Reads until `needle` appears after what earlier waits consumed; then consumes through it.
  bool waitFor(std::string_view needle, double seconds = 30);
  // Waits for the prompt `prompt`, then a moment: libedit draws the prompt just *before* it puts
  // the terminal in raw mode, and a control key (Ctrl-C, Ctrl-D) that reaches the terminal
  // driver in between is taken by the driver, not by libedit.
  bool waitForPrompt(std::string_view prompt = ">>> ", double seconds = 30);
  // Sends Ctrl-D until the process ends (see waitForPrompt for why once may not do).
  int quitWithCtrlD(double seconds = 30);
  // Waits for the process to end; its exit status, 1000 + N when signal N ended it, -1 on timeout.
  int waitExit(double seconds = 30);
  // Everything the terminal showed so far (for failure messages).
  const std::string& output() const { return out_; }

 private:
  void readSome(int timeoutMs);

  pid_t pid_ = -1;
  int fd_ = -1;
  std::string out_;
  size_t consumed_ = 0;
  int status_ = -2;
};

}  // namespace weft::test
