// WEFT_ASAN is defined in a build under AddressSanitizer: GCC says so with __SANITIZE_ADDRESS__,
// Clang through __has_feature. Its larger frames and its quarantine change what a stack or memory
// bound may assume.
#pragma once
#if defined(__SANITIZE_ADDRESS__)
#define WEFT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_ASAN 1
#endif
#endif
