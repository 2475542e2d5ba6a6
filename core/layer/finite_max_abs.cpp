#include "layer/finite_max_abs.h"

namespace tp {

std::optional<float> finiteMaxAbs(const MatrixCRef& m) {
    std::int32_t largestBits = 0;
    const Index rows = m.cols() > 0 ? m.rows() : 0;
    const bool parallel = m.size() > (Index(1) << 16);
#pragma omp parallel for schedule(static) reduction(max : largestBits) if (parallel)
    for (Index r = 0; r < rows; ++r)
        largestBits = maxAbsBits(m.row(r).data(), m.cols(), largestBits);
    return finiteMaxAbsFromBits(largestBits);
}

}  // namespace tp
