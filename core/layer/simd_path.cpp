#include "layer/simd_path.h"

#include "layer/products.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tp {

namespace {

const char* pathName(SimdPath path) {
    switch (path) {
        case SimdPath::Avx512:
            return "avx512";
        case SimdPath::Avx2:
            return "avx2";
        case SimdPath::Scalar:
            return "scalar";
        default:
            return "best";
    }
}

// The fastest path this CPU runs (fastestCpuPath reads it once).
SimdPath fastestSupportedPath() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return SimdPath::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return SimdPath::Avx2;
    return SimdPath::Scalar;
}

// The cap TPVIZ_SIMD puts on the path (Avx512, i.e. none, when unset). A value that names no
// path is reported on stderr and ignored.
SimdPath environmentCap() {
    const char* value = std::getenv("TPVIZ_SIMD");
    if (value == nullptr || *value == '\0')
        return SimdPath::Avx512;
    for (const SimdPath path : {SimdPath::Scalar, SimdPath::Avx2, SimdPath::Avx512}) {
        if (std::strcmp(value, pathName(path)) == 0)
            return path;
    }
    std::fprintf(stderr,
                 "TPVIZ_SIMD=%s is not one of scalar, avx2, avx512: using the fastest path the "
                 "CPU runs\n",
                 value);
    return SimdPath::Avx512;
}

// Best resolved once: the fastest supported path, capped by TPVIZ_SIMD.
SimdPath pathInUse() {
    static const SimdPath path = std::min(fastestCpuPath(), environmentCap());
    return path;
}

}  // namespace

SimdPath fastestCpuPath() {
    static const SimdPath path = fastestSupportedPath();
    return path;
}

SimdPath resolveSimdPath(SimdPath path) {
    return path == SimdPath::Best ? pathInUse() : std::min(path, pathInUse());
}

const char* simdPathName(SimdPath path) {
    return pathName(resolveSimdPath(path));
}

std::string simdPathLine() {
    return std::string("SIMD path: ") + simdPathName() +
           " (kernel generation, products, heatmap downsampling)\n" + productsLine();
}

std::vector<SimdPath> availableSimdPaths() {
    std::vector<SimdPath> paths;
    for (const SimdPath path : {SimdPath::Scalar, SimdPath::Avx2, SimdPath::Avx512}) {
        if (path <= pathInUse())
            paths.push_back(path);
    }
    return paths;
}

}  // namespace tp
