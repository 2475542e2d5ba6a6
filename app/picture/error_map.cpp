#include "error_map.h"

#include "scene/mlp_scene.h"

namespace tp {

std::shared_ptr<const Matrix> errorMap(const Scene& scene) {
    const Matrix& y = scene.mlp ? scene.mlp->split.output : scene.result.output;
    const Matrix& reference = scene.mlp ? scene.mlp->reference.output : scene.reference;
    if (y.rows() != reference.rows() || y.cols() != reference.cols())
        return nullptr;
    // In double, then rounded once: the largest element is float(verification.maxAbsError).
    return std::make_shared<const Matrix>(
        (y.cast<double>() - reference.cast<double>()).cwiseAbs().cast<float>());
}

}  // namespace tp
