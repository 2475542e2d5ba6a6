#pragma once

// Scene options spelled back as command-line arguments, the inverse of parseSceneOptions: how the
// app starts tpviz-mpi on the scene on screen, and how the options fuzzer rebuilds what it parsed.

#include "scene_options.h"

#include <optional>
#include <string>
#include <vector>

namespace tp {

/// One option as parseSceneOptions reads it: "--batch" with "2", or a flag such as "--json".
struct SpelledOption {
    std::string name;                  ///< with dashes
    std::optional<std::string> value;  ///< absent for a flag
    bool operator==(const SpelledOption&) const = default;
};

/// The options that parse back to `options`, each setting once, in the order of the help: the
/// sizes, seed, prng, x64 and bias (only --example brief for the brief, which fixes them), --tp,
/// --mode, --data, --output when set, --mistake unless none, --rtol and --atol when given, the
/// report flags (--json, --summary, --python, --costs) that are on, and --hardware unless it is
/// the default preset. Array files, --scene, --save-npy and extras are not spelled: a scene read
/// from files is spelled by its sizes and seed only.
std::vector<SpelledOption> spellSceneOptions(const SceneOptions& options);

/// The same as separate words, e.g. {"--batch", "2", "--in-dim", "8", ..., "--json"}.
std::vector<std::string> sceneArguments(const SceneOptions& options);

}  // namespace tp
