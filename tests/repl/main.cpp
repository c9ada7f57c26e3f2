#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "interpreter/builtins/builtins.h"

int main(int argc, char** argv) {
  weft::installBuiltins();  // as the weft command's main does
  doctest::Context context(argc, argv);
  return context.run();
}
