#pragma once

// What a scene is asked to be, in one value: its layer, where its arrays come from, how it runs,
// and the files it reads. Every entrance (the app's inputs and scene files, tpviz-cli's and
// tpviz-mpi's options) translates its input into a SceneRequest; sceneProblems says whether the
// request can be computed, and computeScene computes it.

#include "io/array_source.h"
#include "layer/layer_config.h"
#include "scene/scene.h"

#include <optional>
#include <utility>
#include <vector>

namespace tp {

struct SceneRequest {
    SceneRequest() = default;
    /// A request as entrances write it, e.g. `computeScene({config, SceneSource::Nnx})`.
    SceneRequest(LayerConfig config, SceneSource source = SceneSource::Nnx, SceneRun run = {},
                 ArrayFiles files = {}, LoadedArrays arrays = {})
        : config(std::move(config)),
          source(source),
          run(run),
          files(std::move(files)),
          arrays(std::move(arrays)) {}

    LayerConfig config;
    SceneSource source = SceneSource::Nnx;
    SceneRun run;  ///< the mistake made on purpose, and the check's rule
    /// SceneSource::Files: the files named (kept with the scene: saved, and spelled back as
    /// options) and the arrays read from them, whose shapes the config must have. What no array
    /// gives is drawn from the seed (completeLayerParams). Unused by the other sources.
    ArrayFiles files;
    LoadedArrays arrays;
    // The output layout lives in config.output today; a layout of the mesh that is more than
    // that would be a member here, checked by sceneProblems.
};

/// Every reason `request` cannot be computed, in words, each tagged with what it belongs to: a
/// config field (LayerConfig::validate), the mistake (mistakeProblems: a mistake of the other
/// mode, init-per-group without a seeded layer, the memory the mistake needs), the backward pass
/// (backwardProblems), or an array read from a file whose shape disagrees with the config
/// (ConfigField::KernelFile, BiasFile, XFile). Empty when computeScene can compute it.
std::vector<ConfigProblem> sceneProblems(const SceneRequest& request);

/// Why the backward pass `run` asks for cannot be computed, tagged ConfigField::Backward: with a
/// mistake (the backward differentiates the correct split), or when the scene's bytes and
/// backwardBytesNeeded together pass config.memoryBudgetBytes. Empty without run.backward, and
/// for a config that is refused already.
std::vector<ConfigProblem> backwardProblems(const LayerConfig& config, const SceneRun& run);

/// Computes the scene `request` asks for (sceneProblems(request) must be empty): the parameters
/// (nnx.Linear's from the seed, the brief's example, or the arrays read from files completed from
/// the seed), the split forward pass with run.mistake made for real (forwardWithMistake), the
/// reference x @ kernel + bias, and the check with run.check (by default the rounding bound; see
/// verification.h), and with run.backward the backward pass (computeBackward, checked with
/// run.check) in Scene::backward. The request is taken by value so that its arrays move into the
/// scene. With progress: sets the total to sceneWorkUnits and advances while generating and per
/// group; returns nullopt when cancelled.
std::optional<Scene> computeScene(SceneRequest request, Progress* progress = nullptr);

}  // namespace tp
