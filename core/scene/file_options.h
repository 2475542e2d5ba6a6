#pragma once

// The scene options that read files: the scene file read before every other option, the array
// files read after them all, and the words that say which file gave a refused value
// (parseSceneOptions's part for them; see scene_options.h).

#include "layer/layer_config.h"
#include "scene/scene_options.h"

#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// The scene file the options read and the keys it gave, so that a value it gave and no option
/// replaced is refused naming the file and the key.
struct SceneOrigin {
    std::string file;               ///< "" without --scene
    std::vector<std::string> keys;  ///< the known keys the file gives

    /// "--scene: FILE: 'key' " when the file gave `key` and `option` is not among `given`;
    /// else "".
    std::string tag(std::string_view key, std::string_view option,
                    const std::vector<std::string>& given) const;
};

/// Reads the scene file `path` into `options` (config, source, arrays, mistake; the other options
/// are applied after it, so that they override it). Each problem goes to `errors` as
/// "--scene: ...". Nothing is read for an empty path (refused by the option's row).
SceneOrigin applySceneFile(const std::string& path, SceneOptions& options,
                           std::vector<std::string>& errors);

/// Reads the array files once every option is known (`given`: the shared options given, by name);
/// true when they could all be used. A problem with an array the scene file named is tagged
/// with the file.
bool loadFiles(SceneOptions& options, const std::vector<std::string>& given,
               const SceneOrigin& scene, std::vector<std::string>& errors);

/// A validation problem's words, naming the scene file and its key when the value came from there
/// (and no option replaced it). Sizes that array files set (`sizedByFiles`) are the files'.
std::string problemText(const ConfigProblem& problem, const SceneOrigin& scene,
                        const std::vector<std::string>& given, bool sizedByFiles);

}  // namespace tp
