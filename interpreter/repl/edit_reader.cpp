// The interactive REPL's line reader over libedit's readline interface: editing keys, history in
// a file, Tab completion, and Ctrl-C (clears the line at the prompt, interrupts a computation).
// libedit's readline state is global, so only one EditReader may exist at a time.
#include <editline/readline.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../eval/interpreter.h"
#include "line_reader.h"

// libedit rings the terminal bell when Tab finds several candidates (a second Tab lists them),
// which only startles. This definition replaces libedit's el_beep: libedit calls it through its
// PLT, and a symbol the executable defines takes precedence there, as a replacement malloc does.
extern "C" void el_beep(struct editline*) {}

namespace weft::repl {
namespace {

volatile sig_atomic_t gAtPrompt = 0;
volatile sig_atomic_t gPromptInterrupted = 0;
pthread_t gReaderThread;

// At the prompt, Ctrl-C must make readline's blocking read() fail with EINTR, which only happens
// in the thread that reads; the kernel may deliver the signal to another thread (`weft` runs the
// REPL on a thread with a large stack), so it is passed on. Otherwise it interrupts the program.
void onSigint(int) {
  if (!gAtPrompt) {
    Interpreter::requestInterrupt();
    // The terminal echoed "^C"; the error that follows goes on a line of its own.
    [[maybe_unused]] ssize_t n = write(STDERR_FILENO, "\n", 1);
    return;
  }
  if (!pthread_equal(pthread_self(), gReaderThread)) {
    pthread_kill(gReaderThread, SIGINT);
    return;
  }
  gPromptInterrupted = 1;
}

Completer gCompleter;
std::vector<std::string> gMatches;

char* nextMatch(const char*, int state) {
  static size_t i = 0;
  if (state == 0) i = 0;
  return i < gMatches.size() ? strdup(gMatches[i++].c_str()) : nullptr;
}

// Byte offset of the `chars`-th character: libedit counts positions in characters.
size_t byteOffset(std::string_view s, int chars) {
  size_t i = 0;
  for (int n = 0; n < chars && i < s.size(); ++n) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return i;
}

char** attemptCompletion(const char* text, int, int end) {
  rl_attempted_completion_over = 1;  // never fall back to libedit's own file name completion
  std::string_view line(rl_line_buffer ? rl_line_buffer : "");
  size_t cursor = end <= 0 ? 0 : byteOffset(line, end);
  Completion c;
  try {
    c = gCompleter(line, cursor);
  } catch (...) {  // an exception must not unwind through libedit's C frames
    return nullptr;
  }
  // libedit replaces its own word (`text`), which may begin before ours (`{"k":x` gives `:x`) or
  // after it (a path is cut at '/'): adapt the candidates to it.
  size_t theirStart = cursor >= std::strlen(text) ? cursor - std::strlen(text) : 0;
  gMatches.clear();
  for (std::string& cand : c.candidates) {
    if (theirStart < c.start) {
      gMatches.push_back(std::string(line.substr(theirStart, c.start - theirStart)) + cand);
    } else if (cand.size() >= theirStart - c.start) {
      gMatches.push_back(cand.substr(theirStart - c.start));
    }
  }
  if (gMatches.empty()) return nullptr;
  return rl_completion_matches(text, nextMatch);
}

class EditReader : public LineReader {
 public:
  EditReader(Completer completer, std::string historyPath) : historyPath_(std::move(historyPath)) {
    gCompleter = std::move(completer);
    gReaderThread = pthread_self();
    rl_readline_name = const_cast<char*>("weft");
    rl_catch_signals = 0;  // our handler decides what Ctrl-C means
    rl_attempted_completion_function = attemptCompletion;
    // Word characters are those of names, '.' for attributes and ':' for commands.
    static char breaks[] = " \t\n\"\\'`@$><=;|&{}()[],+-*/%!^~#?";
    rl_basic_word_break_characters = breaks;
    rl_completer_word_break_characters = breaks;
    rl_completion_append_character = '\0';  // the user types `.`, `(` or a space next
    using_history();
    stifle_history(kHistoryLines);
    if (!historyPath_.empty()) read_history(historyPath_.c_str());  // none yet is fine

    struct sigaction sa {};
    sa.sa_handler = onSigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: readline's read() must return at Ctrl-C
    sigaction(SIGINT, &sa, &oldAction_);
  }

  ~EditReader() override {
    sigaction(SIGINT, &oldAction_, nullptr);
    saveHistory();
    gCompleter = nullptr;
  }

  ReadResult read(const std::string& prompt) override {
    std::fflush(stdout);
    gPromptInterrupted = 0;
    gAtPrompt = 1;
    char* line = readline(prompt.c_str());
    gAtPrompt = 0;
    ReadResult r;
    if (line) {
      r.status = ReadStatus::Line;
      r.text = line;
      std::free(line);
    } else if (gPromptInterrupted) {
      r.status = ReadStatus::Interrupted;
      std::fputs("^C\n", stdout);
    } else {
      std::fputs("\n", stdout);  // so the shell's prompt starts on its own line after Ctrl-D
    }
    std::fflush(stdout);
    return r;
  }

  void remember(const std::string& line) override {
    if (line.find_first_not_of(" \t") == std::string::npos) return;
    HIST_ENTRY* last = history_length > 0 ? history_get(history_base + history_length - 1) : nullptr;
    if (last && last->line && line == last->line) return;
    add_history(line.c_str());
    saveHistory();  // at once, so a killed session keeps its history
  }

 private:
  static constexpr int kHistoryLines = 2000;

  // Failing to write (a read-only home, no home) only loses history: not an error.
  void saveHistory() {
    if (!historyPath_.empty()) write_history(historyPath_.c_str());
  }

  std::string historyPath_;
  struct sigaction oldAction_ {};
};

}  // namespace

std::unique_ptr<LineReader> makeEditReader(Completer completer, std::string historyPath) {
  return std::make_unique<EditReader>(std::move(completer), std::move(historyPath));
}

}  // namespace weft::repl
