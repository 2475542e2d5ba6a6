#pragma once

// Which SIMD implementation the core's vectorised loops use: chosen once per process at run time
// from what the CPU supports, so one portable binary runs its fastest path everywhere.

#include <string>
#include <vector>

namespace tp {

/// Which implementation of a vectorised loop to use; all give identical bits. Scalar is the
/// reference the vectorised paths are tested against; Avx2 needs AVX2 + FMA, eight float lanes
/// per vector; Avx512 needs AVX-512 F, BW, DQ and VL, sixteen lanes per vector. Best is the path
/// in use: the fastest this CPU runs, capped by the environment variable TPVIZ_SIMD (scalar, avx2
/// or avx512; for tests). A call never runs a path above the one in use: it runs the one in use
/// instead. The paths are ordered, slowest first.
enum class SimdPath { Scalar, Avx2, Avx512, Best };

/// The path a call asking for `path` runs: Best is the path in use, and nothing runs above it.
SimdPath resolveSimdPath(SimdPath path);

/// The name ("scalar", "avx2" or "avx512") of the path a call with `path` runs; by default the
/// path in use.
const char* simdPathName(SimdPath path = SimdPath::Best);

/// What --version and the About box say: "SIMD path: avx2 (kernel generation, products,
/// heatmap downsampling)", the path in use and what runs on it, then what runs the products
/// (productsLine() of layer/products.h) on a line of its own.
std::string simdPathLine();

/// The fastest path this CPU runs, whatever TPVIZ_SIMD says: the path in use unless capped below
/// it.
SimdPath fastestCpuPath();

/// Every path this process can run (those the CPU supports, up to TPVIZ_SIMD), slowest first.
std::vector<SimdPath> availableSimdPaths();

}  // namespace tp
