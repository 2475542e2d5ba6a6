# The Debian package: `cpack -G DEB` in the build folder makes tpviz_<version>_<arch>.deb of
# everything `cmake --install` installs, with /usr as its prefix. Its run-time dependencies come
# from dpkg-shlibdeps (Debian package dpkg-dev) on the installed programs (Qt 6 Widgets, OpenMP,
# the C++ runtime), plus Qt's platform plugins, which Qt loads at run time, and OpenBLAS's OpenMP
# build when the products run it.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tpviz)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "tpviz maintainers")
set(CPACK_PACKAGE_CONTACT "tpviz maintainers <maintainers@users.noreply.a-seed-5e995844.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "tensor-parallel linear layer visualizer")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "tensor-parallel linear layer visualizer
 tpviz shows how one linear layer, y = x @ kernel + bias, is split across
 tensor-parallel devices: column-parallel groups compute different output
 columns that are concatenated, row-parallel groups compute partial sums that
 are added. The parameters are those Flax NNX's nnx.Linear initialises, bit for
 bit. The desktop app (tpviz) steps through the groups; tpviz-cli prints the
 same numbers as text or JSON.")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(tpviz_deb_depends "")
if(TPVIZ_BUILD_APP)
  list(APPEND tpviz_deb_depends "qt6-qpa-plugins")
endif()
# The programs load OpenBLAS's OpenMP build by its path when a product needs it
# (cmake/TpvizOpenBlas.cmake), which dpkg-shlibdeps cannot see; without it they run Eigen's
# kernels, slower.
if(TPVIZ_OPENBLAS_FOUND)
  list(APPEND tpviz_deb_depends "libopenblas0-openmp")
endif()
# tpviz-mpi is started by Open MPI's mpirun (its libraries come through the shlib dependencies).
if(TARGET tpviz-mpi)
  list(APPEND tpviz_deb_depends "openmpi-bin")
endif()
list(JOIN tpviz_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
include(CPack)
