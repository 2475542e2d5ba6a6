#pragma once

// tpviz's command line: the scene options shared with tpviz-cli, plus --screenshot and --step.

#include "io/array_source.h"
#include "layer/layer_config.h"
#include "scene/scene.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tp {

/// The view the centre of the window shows: the layer and its outputs, or the device mesh.
enum class CentreView { Layer, Devices };

struct AppCommandLine {
    bool help = false;
    bool version = false;     ///< --version: print appVersion() and exit
    bool sceneGiven = false;  ///< some scene option was given: it overrides the saved settings
    LayerConfig config;
    SceneSource source = SceneSource::Nnx;
    ArrayFiles arrays;  ///< --kernel, --transpose, --bias FILE, --x or the scene file's "arrays"
    /// The arrays `arrays` names, read once while parsing: the first scene computes from them
    /// (null without array files).
    std::shared_ptr<LoadedArrays> loaded;
    SceneRun run;                               ///< --mistake NAME (the check: the default rule)
    std::optional<std::string> screenshotFile;  ///< --screenshot FILE
    std::optional<std::string> sceneFile;  ///< FILE.tpviz or --scene FILE.tpviz, read into config
    /// --step K, else the scene file's step: a step of the view's timeline (loopTimeline, or
    /// meshProgram with --view devices)
    std::optional<int> step;
    CentreView view = CentreView::Layer;       ///< --view layer|devices
    std::optional<std::pair<int, int>> trace;  ///< --trace ROW,COL: the output cell traced
    /// --mode without --tp moved tp_size to a divisor of the split dimension: the note saying so
    /// (moveTpToDivisor), shown under tp_size; else "".
    std::string tpNote;
    std::vector<std::string> errors;  ///< every problem; empty when usable
};

/// Parses the arguments (without the program name) through tp::parseSceneOptions with the extras
/// --screenshot FILE, --step K and --view layer|devices. A first argument that is not an option
/// is a scene file, read as --scene FILE (the other options override it; its step is the step
/// unless --step is given). The options only tpviz-cli takes (see tp::cliOnlyOptions) are
/// refused, one problem each. Arrays from files are read as tpviz-cli reads them; their problems
/// are errors.
AppCommandLine parseAppCommandLine(const std::vector<std::string>& args);

/// The --help text: usage, the shared options and the extras.
std::string appHelp();

/// The --version text: "tpviz VERSION" and the SIMD path in use (tp::simdPathLine).
std::string appVersion();

}  // namespace tp
