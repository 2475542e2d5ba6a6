#!/bin/sh
# Installs the build into a temporary prefix and runs the installed programs from there.
# Usage: install_and_run.sh CMAKE BUILD_DIR WITH_APP(0|1) WITH_MPI(0|1) WITH_OPENBLAS(0|1)
set -eu
cmake=$1 build=$2 with_app=$3 with_mpi=$4 with_openblas=$5
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT

fail() {
    echo "install_and_run: $*" >&2
    exit 1
}

"$cmake" --install "$build" --prefix "$prefix" >/dev/null

expect_file() {
    [ -s "$prefix/$1" ] || fail "the install has no $1"
}
expect_file bin/tpviz-cli
expect_file share/man/man1/tpviz-cli.1.gz

# The brief's worked example: y = [[1.5, 1.5, 5, 7]].
"$prefix/bin/tpviz-cli" --example brief --json >"$prefix/brief.json" ||
    fail "installed tpviz-cli --example brief failed"
tr -d ' \n' <"$prefix/brief.json" | grep -q '"output":\[\[1.5,1.5,5,7\]\]' ||
    fail "installed tpviz-cli --example brief printed no output [[1.5, 1.5, 5, 7]]"
"$prefix/bin/tpviz-cli" --version | grep -q '^tpviz-cli [0-9]' ||
    fail "installed tpviz-cli --version printed no version"
# The installed program runs its products of many rows with OpenBLAS's OpenMP build on this CPU's
# fastest path, and says so.
if [ "$with_openblas" = 1 ]; then
    version=$(env -u TPVIZ_SIMD "$prefix/bin/tpviz-cli" --version)
    echo "$version" | grep -q '^products: OpenBLAS .*OpenMP' ||
        fail "installed tpviz-cli --version names no OpenBLAS: $version"
fi
gzip -dc "$prefix/share/man/man1/tpviz-cli.1.gz" | grep -q '^\.TH TPVIZ-CLI' ||
    fail "tpviz-cli.1.gz is no man page"

if [ "$with_app" = 1 ]; then
    expect_file bin/tpviz
    expect_file share/man/man1/tpviz.1.gz
    expect_file share/applications/tpviz.desktop
    for size in 16 32 64 256; do
        expect_file "share/icons/hicolor/${size}x${size}/apps/tpviz.png"
    done
    expect_file share/icons/hicolor/scalable/apps/tpviz.svg
    "$prefix/bin/tpviz" --version | grep -q '^tpviz [0-9]' ||
        fail "installed tpviz --version printed no version"
    QT_QPA_PLATFORM=offscreen "$prefix/bin/tpviz" --screenshot "$prefix/shot.png" --example brief ||
        fail "installed tpviz --screenshot failed"
    # A PNG file starts with the bytes 89 50 4E 47 ("\211PNG").
    [ "$(head -c 4 "$prefix/shot.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] ||
        fail "installed tpviz --screenshot wrote no PNG"
fi
if [ "$with_mpi" = 1 ]; then
    # The app's "Run on MPI ranks" looks for tpviz-mpi beside tpviz, in bin/.
    expect_file bin/tpviz-mpi
    expect_file share/man/man1/tpviz-mpi.1.gz
    "$prefix/bin/tpviz-mpi" --version | grep -q '^tpviz-mpi [0-9]' ||
        fail "installed tpviz-mpi --version printed no version"
fi
echo "install_and_run: the installed programs run from $prefix"
