#pragma once

// The .tpviz scene file: a JSON object holding everything needed to rebuild a scene,
//   {"format": "tpviz-scene", "version": 1, "batch": 2, "in_dim": 8, "features": 12,
//    "tp_size": 3, "seed": 0, "mode": "column", "prng": "partitionable", "x64": false,
//    "bias": "zeros", "data": 1, "step": 0}
// plus "output": "sharded" or "replicated" when the layout is chosen, "block": "mlp" and
// "hidden": H for the MLP block (a file without them is one Linear), "layout": "fsdp" or
// "sequence" when one Linear rests on the mesh in that layout (without it: tensor), "mistake": NAME
// when one is made (see mistakes.h), "backward": true when the backward pass is asked for, and,
// where used, "example": "brief" or "arrays": {"kernel": "w.safetensors:fc.weight", "transpose":
// true, "bias": "b.npy", "x": "x.npy"} with paths relative to the scene file. Keys other than
// "format" and "version" may be left out (their defaults apply); unknown keys are refused.

#include "io/array_source.h"
#include "layer/layer_config.h"
#include "layer/mistakes.h"
#include "layer/scene_source.h"

#include <optional>
#include <string>
#include <vector>

namespace tp {

/// A scene as a .tpviz file holds it.
struct SceneFile {
    LayerConfig config;
    SceneSource source = SceneSource::Nnx;  ///< Brief with "example", Files with "arrays"
    std::int64_t step = 0;                  ///< the step shown, 0 = start
    Mistake mistake = Mistake::None;        ///< the mistake made on purpose, if any
    bool backward = false;                  ///< the backward pass is asked for
    ArrayFiles arrays;  ///< absolute, or relative to the working folder, once read

    bool operator==(const SceneFile&) const = default;
};

struct SceneFileRead {
    std::optional<SceneFile> scene;
    std::vector<std::string> errors;  ///< each names the file and the key; empty when read
    std::vector<std::string> keys;    ///< the known keys the file gives, in its order
};

/// Parses a scene from JSON text; `baseDir` resolves relative array paths, `name` tags messages
/// (usually the file's path). Every problem names the key and the reason; text nested deeper than
/// kMaxJsonDepth is refused before it is parsed.
SceneFileRead parseSceneFile(const std::string& text, const std::string& baseDir,
                             const std::string& name);

/// Reads and parses the .tpviz file at `path` (array paths relative to its folder).
SceneFileRead readSceneFile(const std::string& path);

/// The JSON text of a scene, array paths written relative to `baseDir` where they can be.
std::string sceneFileText(const SceneFile& scene, const std::string& baseDir);

/// Writes the scene to `path` (array paths relative to its folder). Returns "" or the reason.
std::string writeSceneFile(const std::string& path, const SceneFile& scene);

}  // namespace tp
