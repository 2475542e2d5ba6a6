#pragma once

// A computed scene's arrays written out as .npy files, for numpy and other tools.

#include "scene/scene.h"
#include "scene/scene_backward.h"

#include <string>
#include <vector>

namespace tp {

/// The file names saveSceneArrays writes for a scene, in order: kernel.npy (inDim, features),
/// bias.npy (features,), x.npy (batch, inDim), partial_K.npy for each group K (column:
/// (batch, chunk); row: (batch, features), no bias), running_sum_K.npy where the partials are added
/// (row mode: (batch, features); sum-groups: (batch, chunk)), output.npy and reference.npy (batch,
/// features); with its backward pass, dy.npy (batch, features), dx.npy (batch, inDim), dkernel.npy
/// (inDim, features) and dbias.npy (features,), the split pass's gradients. All float32, C order.
std::vector<std::string> sceneArrayFileNames(const Scene& scene,
                                             const SceneBackward* backward = nullptr);

/// Whether `name` is one that saveSceneArrays writes for some scene: kernel.npy, bias.npy, x.npy,
/// output.npy, reference.npy, dy.npy, dx.npy, dkernel.npy, dbias.npy, partial_K.npy or
/// running_sum_K.npy (K a group index: digits, no leading zero).
bool isSceneArrayFileName(const std::string& name);

/// Why saveSceneArrays would refuse `dir` before writing anything, in words naming it, or "". The
/// folder must be missing (it is then created), or hold only names that isSceneArrayFileName
/// accepts, each a file or a symbolic link: anything else in it (another file, a folder called
/// output.npy, a temporary an interrupted run left) is refused, as tpviz cannot tell whether it
/// belongs to the arrays it replaces.
std::string sceneArrayFolderProblem(const std::string& dir);

/// Writes those files (the backward's too when `backward` is given) into `dir`, which then holds
/// this scene's arrays and nothing else: each array is written to a new temporary in `dir`
/// (StagedFile) and all are renamed into place once all are whole (a link at a name is replaced,
/// its target untouched); then the arrays of the names an earlier scene had and this one has not
/// (e.g. partial_3.npy after a larger tp) are removed. When a write fails, the temporaries are
/// removed and `dir` is as it was; when putting the files in place fails, those already put are
/// removed too. Refuses what sceneArrayFolderProblem refuses. Returns "" or the failure in words.
std::string saveSceneArrays(const Scene& scene, const std::string& dir,
                            const SceneBackward* backward = nullptr);

}  // namespace tp
