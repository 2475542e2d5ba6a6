#pragma once

// Whether this test was built with AddressSanitizer (-DTPVIZ_SANITIZE=ON or the fuzz build): the
// tests that run many actions or scenes do fewer of them there, as every step is several times
// slower, and the ones that limit the address space skip.

namespace tp::test {

#if defined(__SANITIZE_ADDRESS__)  // GCC
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace tp::test
