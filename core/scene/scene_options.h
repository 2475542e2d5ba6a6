#pragma once

// The command-line options that describe a scene, shared by tpviz-cli and tpviz --screenshot.

#include "devices/hardware.h"
#include "io/array_source.h"
#include "layer/layer_config.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tp {

/// An option a particular program adds to the shared ones (e.g. tpviz's --screenshot FILE).
struct ExtraOption {
    std::string name;       ///< with dashes, e.g. "--screenshot"
    std::string valueName;  ///< e.g. "FILE"; empty for a flag
    std::string help;
};

/// --version, which every program answers before it reads any other option; each adds it to its
/// extras so that its help lists it aligned with the rest.
const ExtraOption& versionOption();

/// Which program's options: tpviz-cli (and tpviz-mpi) have them all; tpviz leaves out the report,
/// costs and tolerance options, which only tpviz-cli takes (the rows marked cliOnly).
enum class OptionsFor { Cli, App };

struct SceneOptions {
    LayerConfig config;
    SceneSource source = SceneSource::Nnx;  ///< Brief with --example brief
    bool json = false;                      ///< --json
    bool summary = false;                   ///< --summary
    bool python = false;                    ///< --python
    Tolerance tolerance;                    ///< --rtol, --atol
    bool toleranceGiven = false;            ///< --rtol or --atol given: allclose is the verdict
    Mistake mistake = Mistake::None;        ///< --mistake NAME
    bool help = false;                      ///< --help or -h
    bool costs = false;                     ///< --costs: the devices' costs and the estimate
    bool backward = false;                  ///< --backward: the gradients for a cotangent dy
    const HardwarePreset* hardware = &defaultHardware();  ///< --hardware NAME or FILE.json
    bool listHardware = false;                            ///< --hardware list
    /// --hardware FILE.json: the file as given and the preset read from it, which `hardware`
    /// points to (shared, so that a copy of the options points to the same preset).
    std::string hardwarePath;
    std::shared_ptr<const HardwarePreset> hardwareFromFile;
    std::map<std::string, std::string>
        extras;                             ///< given ExtraOptions: name -> value ("" for flags)
    std::vector<std::string> cliOnlyGiven;  ///< the given options only tpviz-cli takes, in order

    // Arrays from files and out. With any array file, source is Files and `arrays` holds what
    // was read (completed from the seed by computeScene).
    ArrayFiles files;        ///< --kernel, --transpose, --bias FILE, --x (and the scene's arrays)
    std::string sceneFile;   ///< --scene FILE.tpviz, read first; explicit options override it
    std::string saveNpyDir;  ///< --save-npy DIR
    LoadedArrays arrays;     ///< the arrays read from `files`
};

/// How the options ask the scene to run: the mistake, and the check (the rounding bound, or
/// allclose with the given tolerances when --rtol or --atol was given).
SceneRun sceneRun(const SceneOptions& options);

/// The request the options make: config, source, sceneRun and the files named. The arrays read
/// stay in options.arrays: move them into the request to compute it.
SceneRequest sceneRequest(const SceneOptions& options);

struct SceneOptionsParse {
    SceneOptions options;
    std::vector<std::string> errors;  ///< every problem, parsing and validation; empty when usable
    /// The scene's problems (sceneProblems of the options' request), each tagged with what it
    /// belongs to, in the words `errors` ends with.
    std::vector<ConfigProblem> problems;
};

/// Parses arguments (without the program name): the options of the rows (option_rows.h; each
/// row reads its own value, and a refused value is one problem named by its option) and the
/// given extras, as "--name value" or "--name=value". --scene FILE.tpviz is applied before every
/// other option; the array files (--kernel, --bias FILE, --x) are read once all are known, and
/// their shapes set the sizes. Validates the resulting config (unless --help or --hardware list)
/// and reports each problem in words.
SceneOptionsParse parseSceneOptions(const std::vector<std::string>& args,
                                    const std::vector<ExtraOption>& extras = {});

/// --hardware list: one line per preset with its figures, the default marked, and under it an
/// indented line per collective kind with its own link figures ("  its reduce-scatter: alpha ...").
std::string hardwareListText();

/// The options' help text, one line for each row the program takes (in the rows' order, the
/// mistakes under --mistake) and then one for each extra. Defaults are read from LayerConfig{} and
/// Tolerance{}.
std::string sceneOptionsHelp(const std::vector<ExtraOption>& extras = {},
                             OptionsFor program = OptionsFor::Cli);

/// The names of the options only tpviz-cli takes, in help order.
std::vector<std::string> cliOnlyOptions();

/// The names of every shared option (extras aside), in help order.
std::vector<std::string> sceneOptionNames();

}  // namespace tp
