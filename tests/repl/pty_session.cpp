#include "pty_session.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace weft::test {

std::string makeTempDir() {
  std::string templ = (std::filesystem::temp_directory_path() / "weft-repl-XXXXXX").string();
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  return templ;
}

PtySession::PtySession(std::vector<std::string> args, const std::string& home) {
  struct winsize ws {};
  ws.ws_row = 24;
  ws.ws_col = 80;
  pid_ = forkpty(&fd_, nullptr, nullptr, &ws);
  if (pid_ < 0) throw std::runtime_error("forkpty failed");
  if (pid_ == 0) {
    setenv("HOME", home.c_str(), 1);
    setenv("TERM", "vt100", 1);  // few escape sequences in what the tests read back
    std::vector<char*> argv;
    std::string name = "weft";
    argv.push_back(name.data());
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(WEFT_BINARY, argv.data());
    _exit(127);
  }
}

PtySession::~PtySession() {
  if (status_ == -2 && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (fd_ >= 0) close(fd_);
}

void PtySession::send(std::string_view keys) {
  while (!keys.empty()) {
    ssize_t n = write(fd_, keys.data(), keys.size());
    if (n <= 0) return;
    keys.remove_prefix(size_t(n));
  }
}

void PtySession::readSome(int timeoutMs) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, timeoutMs) <= 0) return;
  char buf[4096];
  ssize_t n = read(fd_, buf, sizeof buf);
  if (n > 0)
    out_.append(buf, size_t(n));
  else
    usleep(timeoutMs * 1000);  // EIO once the child has exited: poll no longer waits
}

bool PtySession::waitFor(std::string_view needle, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    size_t at = out_.find(needle, consumed_);
    if (at != std::string::npos) {
      consumed_ = at + needle.size();
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    readSome(50);
  }
}

bool PtySession::waitForPrompt(std::string_view prompt, double seconds) {
  if (!waitFor(prompt, seconds)) return false;
  auto settle = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  while (std::chrono::steady_clock::now() < settle) readSome(20);
  return true;
}

int PtySession::quitWithCtrlD(double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    send("\x04");
    int status = waitExit(1.0);
    if (status != -1) return status;
  }
  return -1;
}

int PtySession::waitExit(double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    readSome(20);  // keep the terminal drained so the child never blocks writing
    int st = 0;
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);  // 1000+N: killed by signal N
      return status_;
    }
  }
  return -1;
}

}  // namespace weft::test
