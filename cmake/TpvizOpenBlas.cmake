# OpenBLAS for the core's products of many rows (core/layer/products.cpp): the OpenMP build of
# Debian's libopenblas (libopenblas0-openmp; its header from libopenblas-openmp-dev). The core loads
# it at run time by its full path, /usr/lib/<arch>/openblas-openmp/libopenblas.so.0, so that the
# alternatives system, whose libopenblas.so.0 is the pthreads build by default, cannot swap it; and
# only when a product first needs it, so that a run that never does (a capped SIMD path, a scene of
# few rows, an address-space limit under which OpenBLAS hangs instead of failing) never loads it.
# The OpenMP build shares the core's OpenMP runtime (GCC's libgomp): inside the core's parallel
# regions it runs on the calling thread, outside them on OpenMP's threads, so the two never run
# thread pools of their own side by side. A compiler with another OpenMP runtime (clang's libomp,
# the fuzz build) would load two runtimes, so only GCC builds use it.
#
# Sets TPVIZ_OPENBLAS_FOUND and, when found, the targets tpviz_openblas_header (cblas.h and the
# library's path, TPVIZ_OPENBLAS_PATH, for the core) and tpviz_openblas (the library linked, for
# the tests and benchmarks that call it directly). Without it the products run Eigen's kernels.

option(TPVIZ_OPENBLAS "Run the products of many rows with OpenBLAS (the OpenMP build of Debian's libopenblas) where it is found; without it Eigen's kernels run them" ON)

set(TPVIZ_OPENBLAS_FOUND FALSE)
if(TPVIZ_OPENBLAS AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(STATUS "OpenBLAS not used: its OpenMP build needs GCC's OpenMP runtime, and the compiler is ${CMAKE_CXX_COMPILER_ID}")
elseif(TPVIZ_OPENBLAS)
  set(tpviz_openblas_dir /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp)
  find_library(TPVIZ_OPENBLAS_LIBRARY NAMES openblas PATHS ${tpviz_openblas_dir} NO_DEFAULT_PATH)
  find_path(TPVIZ_OPENBLAS_INCLUDE_DIR cblas.h
            PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp NO_DEFAULT_PATH)
  if(TPVIZ_OPENBLAS_LIBRARY AND TPVIZ_OPENBLAS_INCLUDE_DIR AND EXISTS ${tpviz_openblas_dir}/libopenblas.so.0)
    set(TPVIZ_OPENBLAS_FOUND TRUE)
    add_library(tpviz_openblas_header INTERFACE)
    target_include_directories(tpviz_openblas_header SYSTEM INTERFACE ${TPVIZ_OPENBLAS_INCLUDE_DIR})
    target_compile_definitions(tpviz_openblas_header INTERFACE TPVIZ_HAVE_OPENBLAS
                               TPVIZ_OPENBLAS_PATH="${tpviz_openblas_dir}/libopenblas.so.0")
    target_link_libraries(tpviz_openblas_header INTERFACE ${CMAKE_DL_LIBS})
    add_library(tpviz_openblas INTERFACE)
    target_link_libraries(tpviz_openblas INTERFACE tpviz_openblas_header ${TPVIZ_OPENBLAS_LIBRARY})
    message(STATUS "OpenBLAS (OpenMP build), loaded when needed: ${tpviz_openblas_dir}/libopenblas.so.0")
  else()
    message(STATUS "OpenBLAS's OpenMP build not found in ${tpviz_openblas_dir} (Debian package libopenblas-openmp-dev): the products run Eigen's kernels alone")
  endif()
endif()
