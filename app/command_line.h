#pragma once

// tpviz's command line: the scene options shared with tpviz-cli, plus --screenshot and --step.

#include "layer_config.h"
#include "scene.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tp {

struct AppCommandLine {
    bool help = false;
    bool sceneGiven = false;  ///< some scene option was given: it overrides the saved settings
    LayerConfig config;
    SceneSource source = SceneSource::Nnx;
    std::optional<std::string> screenshotFile;  ///< --screenshot FILE
    std::optional<int> step;                    ///< --step K, in [0, stepCount(config) - 1]
    std::optional<std::pair<int, int>> trace;   ///< --trace ROW,COL: the output cell traced
    std::vector<std::string> errors;            ///< every problem; empty when usable
};

/// Parses the arguments (without the program name) through tp::parseSceneOptions with the extras
/// --screenshot FILE and --step K. The options only tpviz-cli takes (see tp::cliOnlyOptions) are
/// refused, one problem each.
AppCommandLine parseAppCommandLine(const std::vector<std::string>& args);

/// The --help text: usage, the shared options and the extras.
std::string appHelp();

}  // namespace tp
