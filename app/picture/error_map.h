#pragma once

// The check's error map: how far the split's output is from the reference, element by element.

#include "scene/scene.h"

#include <memory>

namespace tp {

/// |output - reference| per element of a computed scene, (N, features) (the MLP block's output
/// against its reference's), computed in double and
/// rounded to float32 once; null when
/// the output's shape is not the reference's (Verification::shapeMismatch): there is nothing to
/// subtract. The largest element, float(verification.maxAbsError), is at (verification.worstRow,
/// verification.worstCol).
std::shared_ptr<const Matrix> errorMap(const Scene& scene);

}  // namespace tp
