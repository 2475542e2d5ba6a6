# OpenBLAS for the core's products of many rows (core/layer/products.cpp): the OpenMP build of
# Debian's libopenblas (libopenblas-openmp-dev), linked by its own path and found there at run time
# through the programs' RUNPATH, so that the alternatives system, whose default is the pthreads
# build, cannot swap it. The OpenMP build shares the core's OpenMP runtime (GCC's libgomp): inside
# the core's parallel regions it runs on the calling thread, outside them on OpenMP's threads, so
# the two never run thread pools of their own side by side. A compiler with another OpenMP runtime
# (clang's libomp, the fuzz build) would load two runtimes, so only GCC builds use it.
#
# Sets TPVIZ_OPENBLAS_FOUND and, when found, the target tpviz_openblas (cblas.h, the library,
# TPVIZ_HAVE_OPENBLAS) and TPVIZ_OPENBLAS_RUNPATH, the folder the installed programs look in.
# Without it the products run Eigen's kernels alone.

option(TPVIZ_OPENBLAS "Run the products of many rows with OpenBLAS (the OpenMP build of Debian's libopenblas) where it is found; without it Eigen's kernels run them" ON)

set(TPVIZ_OPENBLAS_FOUND FALSE)
if(TPVIZ_OPENBLAS AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(STATUS "OpenBLAS not used: its OpenMP build needs GCC's OpenMP runtime, and the compiler is ${CMAKE_CXX_COMPILER_ID}")
elseif(TPVIZ_OPENBLAS)
  set(tpviz_openblas_dir /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp)
  find_library(TPVIZ_OPENBLAS_LIBRARY NAMES openblas PATHS ${tpviz_openblas_dir} NO_DEFAULT_PATH)
  find_path(TPVIZ_OPENBLAS_INCLUDE_DIR cblas.h
            PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp NO_DEFAULT_PATH)
  if(TPVIZ_OPENBLAS_LIBRARY AND TPVIZ_OPENBLAS_INCLUDE_DIR)
    set(TPVIZ_OPENBLAS_FOUND TRUE)
    get_filename_component(TPVIZ_OPENBLAS_RUNPATH ${TPVIZ_OPENBLAS_LIBRARY} DIRECTORY)
    add_library(tpviz_openblas INTERFACE)
    target_include_directories(tpviz_openblas SYSTEM INTERFACE ${TPVIZ_OPENBLAS_INCLUDE_DIR})
    target_link_libraries(tpviz_openblas INTERFACE ${TPVIZ_OPENBLAS_LIBRARY})
    target_compile_definitions(tpviz_openblas INTERFACE TPVIZ_HAVE_OPENBLAS)
    message(STATUS "OpenBLAS (OpenMP build): ${TPVIZ_OPENBLAS_LIBRARY}")
  else()
    message(STATUS "OpenBLAS's OpenMP build not found in ${tpviz_openblas_dir} (Debian package libopenblas-openmp-dev): the products run Eigen's kernels alone")
  endif()
endif()

# tpviz_openblas_runpath(<target>): the installed program finds the OpenMP build of OpenBLAS in its
# own folder, not the one the alternatives system points libopenblas.so.0 at.
function(tpviz_openblas_runpath target)
  if(TPVIZ_OPENBLAS_FOUND)
    set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH ${TPVIZ_OPENBLAS_RUNPATH})
  endif()
endfunction()
