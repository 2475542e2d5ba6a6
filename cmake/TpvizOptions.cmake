# Compiler settings shared by every tpviz target.

option(TPVIZ_WERROR "Stop the build on any warning in tpviz's own targets (-Werror)" OFF)

if(TPVIZ_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

if(TPVIZ_NATIVE)
  add_compile_options(-march=native)
endif()

# Warnings for our own targets only (not for Eigen or Qt headers, which are system includes).
# With TPVIZ_WERROR every warning stops the build (CI turns it on).
function(tpviz_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(TPVIZ_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 warns falsely on `"literal" + std::string` at -O2 (GCC bug 105651).
    target_compile_options(${target} PRIVATE -Wno-restrict)
    # GCC 12's own AVX-512 intrinsics (`__m512 __Y = __Y;` in avx512fintrin.h) warn as "may be
    # used uninitialized" once Eigen's products inline them into our code (GCC bug 105593).
    if(TPVIZ_NATIVE)
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
    endif()
  endif()
endfunction()

# Bit-exact float code (the JAX PRNG path): the compiler must neither add nor remove a fused
# multiply-add, so every fusion is an explicit std::fma in the source. Call it from the directory
# that defines the target (paths relative to it).
function(tpviz_exact_float_sources)
  set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
                              PROPERTIES COMPILE_OPTIONS "-ffp-contract=off;-fno-fast-math")
endfunction()

# tpviz_instruction_set_sources(<source> <flags...>): compile one source for an instruction set
# beyond the baseline (e.g. -mavx2 -mfma). Its code runs only after a run-time check of the CPU,
# so the flags go on that file alone. Call it after tpviz_exact_float_sources, from the directory
# that defines the target.
function(tpviz_instruction_set_sources source)
  set_property(SOURCE ${source} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} APPEND PROPERTY COMPILE_OPTIONS ${ARGN})
endfunction()
