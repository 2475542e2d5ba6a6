#include "verification.h"

#include <cassert>
#include <cmath>

namespace tp {

Verification verify(const MatrixCRef& actual, const MatrixCRef& reference, Tolerance tolerance) {
    assert(actual.rows() == reference.rows() && actual.cols() == reference.cols());
    Verification v;
    v.tolerance = tolerance;
    for (Index r = 0; r < actual.rows(); ++r) {
        for (Index c = 0; c < actual.cols(); ++c) {
            const double a = actual(r, c);
            const double b = reference(r, c);
            if (std::isnan(a) || std::isnan(b)) {
                v.allclose = false;
                continue;
            }
            if (std::isinf(a) || std::isinf(b))
                v.allclose = false;  // an overflow is never a pass, not even inf against inf
            const double error = std::abs(a - b);
            if (error > v.maxAbsError) {
                v.maxAbsError = error;
                v.worstRow = r;
                v.worstCol = c;
            }
            if (b != 0.0)
                v.maxRelError = std::max(v.maxRelError, error / std::abs(b));
            if (error > tolerance.atol + tolerance.rtol * std::abs(b))
                v.allclose = false;
        }
    }
    return v;
}

}  // namespace tp
