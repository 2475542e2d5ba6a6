#pragma once

// The correct split pass and the reference from one read of the kernel: what computeScene runs
// when no mistake is made, so that a big kernel streams from memory once, not twice. The same
// read finds the kernel's colour scale (Scene::kernelMaxAbs): a pass of its own over a
// (4096, 16384) kernel costs about a tenth of its scene.

#include "layer/forward.h"

#include <optional>

namespace tp {

/// The correct split pass and the reference, computed together.
struct ForwardAndReference {
    ForwardResult split;                ///< forwardParallel(x, kernel, bias, plan)
    Matrix reference;                   ///< forwardReference(x, kernel, bias), (N, features)
    std::optional<float> kernelMaxAbs;  ///< finiteMaxAbs(kernel)
};

/// forwardParallel, forwardReference and finiteMaxAbs(kernel), bit for bit, from one read of the
/// kernel in column mode with at most kFewRows rows in x (the memory-bound case): while each
/// column block of the kernel passes, the group that owns it adds it through its own view
/// (kernelSlice) into its partial's sums, and the reference adds the same columns of the full
/// kernel into separate sums of its own (it never reads a partial), both summed in order over k,
/// and the reference's rows go through maxAbsBits. Otherwise the three run one after the other.
/// With progress: one unit per group; stops early when cancelled (discard the result then).
ForwardAndReference forwardWithReference(const MatrixCRef& x, const MatrixCRef& kernel,
                                         const RowVectorCRef& bias, const ShardingPlan& plan,
                                         Progress* progress = nullptr);

}  // namespace tp
