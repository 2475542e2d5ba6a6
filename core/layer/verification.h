#pragma once

// How close a split forward pass is to the reference, as numpy.testing.assert_allclose judges it.

#include "eigen_types.h"

namespace tp {

/// allclose: |actual - reference| <= atol + rtol * |reference| for every element.
/// float32 sums of inDim products differ in their last bits between a sliced and a full product,
/// so exact equality is not expected (the brief says so).
struct Tolerance {
    double rtol = 1e-5;
    double atol = 1e-6;
};

struct Verification {
    double maxAbsError = 0.0;  ///< max |actual - reference|
    double maxRelError = 0.0;  ///< max |actual - reference| / |reference| over nonzero references
    Index worstRow = 0;        ///< where the largest absolute error is
    Index worstCol = 0;
    bool allclose = true;
    Tolerance tolerance;
};

/// Compares two arrays of the same shape. Any NaN or infinity in either makes allclose false.
Verification verify(const MatrixCRef& actual, const MatrixCRef& reference,
                    Tolerance tolerance = {});

}  // namespace tp
