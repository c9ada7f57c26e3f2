// Real interactive sessions of `weft repl` on a pseudo-terminal: echo, multi-line input, errors,
// completion, :load, history and Ctrl-C / Ctrl-D.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "pty_session.h"

using weft::test::makeTempDir;
using weft::test::PtySession;

namespace {

struct Fixture {
  std::string home = makeTempDir();
  ~Fixture() { std::filesystem::remove_all(home); }
};

// Checks a wait, showing the whole terminal transcript when it fails.
#define EXPECT_SHOWS(session, text) CHECK_MESSAGE((session).waitFor(text), "terminal so far:\n" << (session).output())
#define EXPECT_PROMPT(session, prompt) \
  CHECK_MESSAGE((session).waitForPrompt(prompt), "terminal so far:\n" << (session).output())
#define EXPECT_CTRL_D_EXITS(session)                                                   \
  do {                                                                                 \
    EXPECT_PROMPT(session, ">>> ");                                                    \
    CHECK_MESSAGE((session).quitWithCtrlD() == 0, "terminal:\n" << (session).output()); \
  } while (0)

}  // namespace

TEST_CASE_FIXTURE(Fixture, "pty: prompt, echo with type, Ctrl-D exits with status 0") {
  PtySession s({"repl"}, home);
  EXPECT_SHOWS(s, ">>> ");
  s.send("1.0 + 5.0\r");
  EXPECT_SHOWS(s, "f32[] 6.0");
  s.send("ones([2, 2]) * 2.0\r");
  EXPECT_SHOWS(s, "f32[2, 2] [[2.0, 2.0], [2.0, 2.0]]");
  s.send("x = 3\r");  // an assignment echoes nothing
  EXPECT_SHOWS(s, ">>> ");
  s.send("x * 2\r");
  EXPECT_SHOWS(s, "i32[] 6");
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE_FIXTURE(Fixture, "pty: `weft` with no arguments is the REPL") {
  PtySession s({}, home);
  EXPECT_SHOWS(s, ">>> ");
  s.send("2 + 2\r");
  EXPECT_SHOWS(s, "i32[] 4");
  s.send(":quit\r");
  CHECK(s.waitExit() == 0);
}

TEST_CASE_FIXTURE(Fixture, "pty: a multi-line module continues with '... '") {
  PtySession s({"repl"}, home);
  EXPECT_SHOWS(s, ">>> ");
  s.send("module Counter(start: f32[] = 0.0) {\r");
  EXPECT_SHOWS(s, "... ");
  s.send("  count = Variable(start)\r");
  EXPECT_SHOWS(s, "... ");
  s.send("  fn bump() { count += 1.0; return count }\r");
  EXPECT_SHOWS(s, "... ");
  s.send("}\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("c = Counter(start=2.0)\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("c.bump()\r");
  EXPECT_SHOWS(s, "3.0");
  s.send(":type c\r");
  EXPECT_SHOWS(s, "Counter");
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE_FIXTURE(Fixture, "pty: an error leaves the session and its variables intact") {
  PtySession s({"repl"}, home);
  EXPECT_SHOWS(s, ">>> ");
  s.send("kept = 40\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("kept + no_such_name\r");
  EXPECT_SHOWS(s, "error");
  EXPECT_SHOWS(s, "no_such_name");
  EXPECT_SHOWS(s, ">>> ");
  s.send("ones([2]) + ones([3])\r");  // a runtime error this time
  EXPECT_SHOWS(s, "error");
  EXPECT_SHOWS(s, ">>> ");
  s.send("kept + 2\r");
  EXPECT_SHOWS(s, "i32[] 42");
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE_FIXTURE(Fixture, "pty: Tab completes names, attributes and commands") {
  PtySession s({"repl"}, home);
  EXPECT_SHOWS(s, ">>> ");
  s.send("my_long_variable = 5\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("my_long_v\t");
  EXPECT_SHOWS(s, "ariable");
  s.send("\r");
  EXPECT_SHOWS(s, "i32[] 5");

  s.send("module Box() {\r  inner = Variable(ones([2, 3]))\r}\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("b = Box()\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("b.inn\t");  // a module attribute
  EXPECT_SHOWS(s, "er");
  s.send(".shap\t");  // then a variable's ("sha" is also "shard")
  EXPECT_SHOWS(s, "e");
  s.send("\r");
  EXPECT_SHOWS(s, "[2, 3]");
  EXPECT_SHOWS(s, ">>> ");  // keys sent before libedit reads again would reach the terminal driver
  s.send(":ty\t");
  EXPECT_SHOWS(s, "pe");
  s.send(" my_long_variable\r");
  EXPECT_SHOWS(s, "i32[]");
  EXPECT_SHOWS(s, ">>> ");
  s.send("ones\t");  // several candidates (ones, ones_like): no terminal bell
  EXPECT_SHOWS(s, "ones");
  s.send("_like(ones([1]))\r");
  EXPECT_SHOWS(s, "f32[1] [1.0]");
  CHECK(s.output().find('\a') == std::string::npos);
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE_FIXTURE(Fixture, "pty: :load runs a file into the session") {
  std::string file = home + "/defs.model";
  std::ofstream(file) << "fn triple(x) { return x * 3 }\nloaded = triple(14)\n";
  PtySession s({"repl"}, home);
  EXPECT_SHOWS(s, ">>> ");
  s.send(":load " + home + "/de\t");  // file names complete after :load
  EXPECT_SHOWS(s, "fs.model");
  s.send("\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("loaded\r");
  EXPECT_SHOWS(s, "i32[] 42");
  s.send("triple(2.0)\r");
  EXPECT_SHOWS(s, "f32[] 6.0");
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE_FIXTURE(Fixture, "pty: Ctrl-C interrupts a running loop and the session goes on") {
  PtySession s({"repl"}, home);
  EXPECT_SHOWS(s, ">>> ");
  s.send("before = 7\r");
  EXPECT_SHOWS(s, ">>> ");
  s.send("while true { }\r");
  // Give the loop time to start; the interrupt must stop it wherever it is.
  s.waitFor("never printed", 0.5);
  s.send("\x03");
  EXPECT_SHOWS(s, "interrupted");
  EXPECT_SHOWS(s, ">>> ");
  s.send("before + 1\r");
  EXPECT_SHOWS(s, "i32[] 8");
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE_FIXTURE(Fixture, "pty: Ctrl-C at the prompt clears the line; Ctrl-C inside a block drops it") {
  PtySession s({"repl"}, home);
  EXPECT_PROMPT(s, ">>> ");
  s.send("garbage that would not parse");
  s.waitFor("parse", 5);
  s.send("\x03");
  EXPECT_SHOWS(s, "^C");
  EXPECT_SHOWS(s, ">>> ");
  s.send("if true {\r");
  EXPECT_PROMPT(s, "... ");
  s.send("\x03");
  EXPECT_SHOWS(s, ">>> ");
  s.send("1 + 2\r");
  EXPECT_SHOWS(s, "i32[] 3");
  CHECK(s.output().find("error") == std::string::npos);
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE_FIXTURE(Fixture, "pty: history is kept in ~/.weft_history and recalled with Up") {
  {
    PtySession s({"repl"}, home);
    EXPECT_SHOWS(s, ">>> ");
    s.send("40 + 2\r");
    EXPECT_SHOWS(s, "i32[] 42");
    EXPECT_CTRL_D_EXITS(s);
  }
  std::ifstream hist(home + "/.weft_history");
  std::string text((std::istreambuf_iterator<char>(hist)), std::istreambuf_iterator<char>());
  CHECK(text.find("40") != std::string::npos);
  PtySession s({"repl"}, home);  // a new session recalls the last one's line
  EXPECT_PROMPT(s, ">>> ");
  s.send("\x1b[A\r");
  EXPECT_SHOWS(s, "i32[] 42");
  EXPECT_CTRL_D_EXITS(s);
}

TEST_CASE("pty: an unwritable home loses history but is no error") {
  PtySession s({"repl"}, "/nonexistent/weft-home");
  REQUIRE(s.waitFor(">>> "));
  s.send("1\r");
  EXPECT_SHOWS(s, "i32[] 1");
  EXPECT_CTRL_D_EXITS(s);
  CHECK(s.output().find("error") == std::string::npos);
}
