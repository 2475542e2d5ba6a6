#pragma once

// The command-line options that describe a scene, shared by tpviz-cli and tpviz --screenshot.

#include "array_source.h"
#include "hardware.h"
#include "layer_config.h"
#include "scene.h"
#include "scene_request.h"

#include <map>
#include <string>
#include <vector>

namespace tp {

/// An option a particular program adds to the shared ones (e.g. tpviz's --screenshot FILE).
struct ExtraOption {
    std::string name;       ///< with dashes, e.g. "--screenshot"
    std::string valueName;  ///< e.g. "FILE"; empty for a flag
    std::string help;
};

/// Which program's options: tpviz-cli has them all; tpviz leaves out the report and tolerance
/// options (--rtol, --atol, --json, --summary, --python), which only tpviz-cli takes.
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
    const HardwarePreset* hardware = &defaultHardware();  ///< --hardware NAME
    bool listHardware = false;                            ///< --hardware list
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

/// Parses arguments (without the program name):
///   --batch N --in-dim D --features F --tp T --seed S --mode column|row
///   --prng partitionable|legacy --x64 --bias zeros|normal:STDDEV --example brief
///   --rtol R --atol A --mistake NAME --json --summary --python --help, the mesh options --data D
///   --output sharded|replicated --costs --hardware NAME|list, and the given extras. "--name=value"
///   also works. Arrays from files: --kernel FILE.npy|FILE.safetensors:TENSOR [--transpose],
///   --bias FILE, --x FILE (read here, their shapes set the sizes), --scene FILE.tpviz (applied
///   before every other option), --save-npy DIR.
/// Validates the resulting config (unless --help or --hardware list) and reports each problem in
/// words.
SceneOptionsParse parseSceneOptions(const std::vector<std::string>& args,
                                    const std::vector<ExtraOption>& extras = {});

/// --hardware list: one line per preset with its figures, the default marked.
std::string hardwareListText();

/// The options' help text, one line each, extras included; for OptionsFor::App without the options
/// only tpviz-cli takes. Defaults are read from LayerConfig{} and Tolerance{}.
std::string sceneOptionsHelp(const std::vector<ExtraOption>& extras = {},
                             OptionsFor program = OptionsFor::Cli);

/// The names of the options only tpviz-cli takes, in help order.
std::vector<std::string> cliOnlyOptions();

/// The names of every shared option (extras aside), in help order.
std::vector<std::string> sceneOptionNames();

}  // namespace tp
