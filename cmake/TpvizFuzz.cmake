# The fuzz build (-DTPVIZ_FUZZ=ON): the core instrumented for libFuzzer with AddressSanitizer and
# UndefinedBehaviorSanitizer, and the fuzzers of tests/fuzz/, each run for a bounded time as a
# ctest test labelled `fuzz`. Nothing else builds in it: the app and the Qt tests belong to the
# plain and the sanitizer builds.

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR
    "TPVIZ_FUZZ=ON needs clang, whose libFuzzer the fuzzers link, but the C++ compiler is "
    "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} (${CMAKE_CXX_COMPILER}). Configure a "
    "new build directory with -DCMAKE_CXX_COMPILER=clang++-14 (Debian packages clang-14 and "
    "libfuzzer-14-dev, installed by cmake/install-deps.sh).")
endif()

set(TPVIZ_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzzer runs as a ctest test (ctest -L fuzz)")
if(NOT TPVIZ_FUZZ_SECONDS MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "TPVIZ_FUZZ_SECONDS (${TPVIZ_FUZZ_SECONDS}) must be a whole number of seconds above 0")
endif()

include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]] TPVIZ_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
if(NOT TPVIZ_HAVE_LIBFUZZER)
  message(FATAL_ERROR
    "TPVIZ_FUZZ=ON: ${CMAKE_CXX_COMPILER} cannot link a program with -fsanitize=fuzzer; install "
    "libFuzzer (Debian: libfuzzer-14-dev, with clang-14), e.g. with cmake/install-deps.sh.")
endif()

# Every target (the core included) gets the coverage instrumentation libFuzzer steers by and both
# sanitizers; -fsanitize=fuzzer, which adds libFuzzer's main, goes on the fuzzers only.
# UBSan findings abort, so that libFuzzer sees them as crashes and keeps the input.
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer -g)
add_link_options(-fsanitize=address,undefined)
