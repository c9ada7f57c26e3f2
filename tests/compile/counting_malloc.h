// malloc and its kin, counted while `counting` is set, for the tests that check that steady-state
// calls of compiled code allocate nothing (SPEC §9). glibc lets a program replace malloc; these
// count, then call glibc's own. Include it in one source file of a test program.
#ifndef WEFT_TESTS_COUNTING_MALLOC_H
#define WEFT_TESTS_COUNTING_MALLOC_H
#include <cstddef>

namespace {
long allocations = 0;
bool counting = false;
}  // namespace

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
void* malloc(size_t n) {
  if (counting) ++allocations;
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
  if (counting) ++allocations;
  return __libc_calloc(n, m);
}
void* realloc(void* p, size_t n) {
  if (counting) ++allocations;
  return __libc_realloc(p, n);
}
void* aligned_alloc(size_t a, size_t n) {
  if (counting) ++allocations;
  return __libc_memalign(a, n);
}
int posix_memalign(void** p, size_t a, size_t n) {
  if (counting) ++allocations;
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;
}
void* memalign(size_t a, size_t n) {
  if (counting) ++allocations;
  return __libc_memalign(a, n);
}
void free(void* p) { __libc_free(p); }
}

#endif
