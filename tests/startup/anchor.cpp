// The start-up anchor of tests/startup/startup_ratio.cpp: a C++ main with Weft's core libraries
// linked in whole (tests/CMakeLists.txt), so that it loads, relocates and initialises what `weft`
// does before it runs a program, and prints 1.
#include <cstdio>

int main() { std::puts("1"); }
