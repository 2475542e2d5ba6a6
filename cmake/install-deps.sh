#!/bin/sh
# Installs the Debian 12 packages tpviz needs to build, run, test, benchmark, check (clang-format)
# and fuzz (clang-14, its sanitizer runtimes, libFuzzer and OpenMP for -DTPVIZ_FUZZ=ON), and to
# run on MPI ranks (Open MPI, for tpviz-mpi), non-interactively.
# Does nothing when all of them are present. Run as root, or as a user with sudo.
set -eu

packages="g++ cmake ninja-build pkg-config libeigen3-dev qt6-base-dev qt6-qpa-plugins libqt6svg6 qt6-svg-dev
fonts-dejavu-core libbenchmark-dev libopenblas-openmp-dev
clang-14 libclang-rt-14-dev libfuzzer-14-dev libomp-14-dev clang-format
help2man dpkg-dev nlohmann-json3-dev python3-numpy
libopenmpi-dev openmpi-bin"

missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "install-deps: missing packages:$missing; run this as root or install sudo" >&2
    exit 1
fi
echo "install-deps: installing$missing"
$as_root apt-get update -qq
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
