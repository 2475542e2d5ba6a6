#pragma once

// The command-line options that describe a scene, shared by tpviz-cli and tpviz --screenshot.

#include "layer_config.h"
#include "scene.h"

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
    std::map<std::string, std::string>
        extras;  ///< given ExtraOptions: name -> value ("" for flags)
};

/// How the options ask the scene to run: the mistake, and the check (the rounding bound, or
/// allclose with the given tolerances when --rtol or --atol was given).
SceneRun sceneRun(const SceneOptions& options);

struct SceneOptionsParse {
    SceneOptions options;
    std::vector<std::string> errors;  ///< every problem, parsing and validation; empty when usable
};

/// Parses arguments (without the program name):
///   --batch N --in-dim D --features F --tp T --seed S --mode column|row
///   --prng partitionable|legacy --x64 --bias zeros|normal:STDDEV --example brief
///   --rtol R --atol A --mistake NAME --json --summary --python --help, and the given extras.
///   "--name=value" also works.
/// Validates the resulting config (unless --help) and reports each problem in words.
SceneOptionsParse parseSceneOptions(const std::vector<std::string>& args,
                                    const std::vector<ExtraOption>& extras = {});

/// The options' help text, one line each, extras included.
std::string sceneOptionsHelp(const std::vector<ExtraOption>& extras = {});

}  // namespace tp
