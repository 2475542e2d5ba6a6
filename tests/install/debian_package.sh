#!/bin/sh
# Builds the Debian package of the build folder and checks its files and dependencies.
# Usage: debian_package.sh CPACK BUILD_DIR VERSION WITH_APP(0|1) WITH_MPI(0|1) WITH_OPENBLAS(0|1)
set -eu
cpack=$1 build=$2 version=$3 with_app=$4 with_mpi=$5 with_openblas=$6
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail() {
    echo "debian_package: $*" >&2
    exit 1
}

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 || {
    cat "$out/cpack.log" >&2
    fail "cpack -G DEB failed"
}
deb=$(ls "$out"/tpviz_"$version"_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack made no tpviz_${version}_*.deb in $out"

dpkg-deb -c "$deb" | awk '{print $NF}' >"$out/files"
expect_path() {
    grep -qx "./usr/$1" "$out/files" || fail "the package has no /usr/$1"
}
expect_path bin/tpviz-cli
expect_path share/man/man1/tpviz-cli.1.gz
field() {
    dpkg-deb -f "$deb" "$1"
}
[ "$(field Package)" = tpviz ] || fail "Package is '$(field Package)', not tpviz"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', not $version"
[ -n "$(field Maintainer)" ] || fail "the package names no maintainer"
[ "$(field Section)" = science ] || fail "Section is '$(field Section)', not science"
depends=$(field Depends)
for library in libc6 libstdc++6 libgomp1; do
    echo "$depends" | grep -q "$library" || fail "Depends ($depends) lacks $library"
done
# The OpenMP build of OpenBLAS, which the programs load by its path (dpkg-shlibdeps cannot see it).
if [ "$with_openblas" = 1 ]; then
    echo "$depends" | grep -q "libopenblas0-openmp" || fail "Depends ($depends) lacks libopenblas0-openmp"
fi
if [ "$with_app" = 1 ]; then
    expect_path bin/tpviz
    expect_path share/man/man1/tpviz.1.gz
    expect_path share/applications/tpviz.desktop
    expect_path share/icons/hicolor/64x64/apps/tpviz.png
    expect_path share/icons/hicolor/scalable/apps/tpviz.svg
    for package in libqt6widgets6 libqt6gui6 libqt6core6 qt6-qpa-plugins; do
        echo "$depends" | grep -q "$package" || fail "Depends ($depends) lacks $package"
    done
fi
if [ "$with_mpi" = 1 ]; then
    expect_path bin/tpviz-mpi
    expect_path share/man/man1/tpviz-mpi.1.gz
fi
echo "debian_package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB, Depends: $depends"
