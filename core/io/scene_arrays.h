#pragma once

// A computed scene's arrays written out as .npy files, for numpy and other tools.

#include "scene.h"

#include <string>
#include <vector>

namespace tp {

/// The file names saveSceneArrays writes for a scene, in order: kernel.npy (inDim, features),
/// bias.npy (features,), x.npy (batch, inDim), partial_K.npy for each group K (column:
/// (batch, chunk); row: (batch, features), no bias), running_sum_K.npy in row mode (batch,
/// features), output.npy and reference.npy (batch, features). All float32, C order.
std::vector<std::string> sceneArrayFileNames(const Scene& scene);

/// Writes those files into `dir` (created when missing). Returns "" or the first failure in words.
std::string saveSceneArrays(const Scene& scene, const std::string& dir);

}  // namespace tp
