#include "scene_arguments.h"

#include "float_format.h"

namespace tp {

std::vector<SpelledOption> spellSceneOptions(const SceneOptions& options) {
    const LayerConfig& config = options.config;
    std::vector<SpelledOption> spelled;
    const auto number = [&](const char* name, std::int64_t value) {
        spelled.push_back({name, std::to_string(value)});
    };
    if (options.source == SceneSource::Brief) {
        spelled.push_back({"--example", "brief"});
    } else {
        number("--batch", config.batch);
        number("--in-dim", config.inDim);
        number("--features", config.features);
        number("--seed", config.seed);
        spelled.push_back({"--prng", std::string(toString(config.prng))});
        if (config.x64)
            spelled.push_back({"--x64", std::nullopt});
        spelled.push_back({"--bias", toString(config.bias)});
    }
    number("--tp", config.tpSize);
    spelled.push_back({"--mode", std::string(toString(config.mode))});
    number("--data", config.dataSize);
    if (config.output)
        spelled.push_back({"--output", std::string(toString(*config.output))});
    if (options.mistake != Mistake::None)
        spelled.push_back({"--mistake", std::string(toString(options.mistake))});
    if (options.toleranceGiven) {
        spelled.push_back({"--rtol", formatDouble(options.tolerance.rtol)});
        spelled.push_back({"--atol", formatDouble(options.tolerance.atol)});
    }
    for (const auto& [flag, on] :
         {std::pair{"--json", options.json}, std::pair{"--summary", options.summary},
          std::pair{"--python", options.python}, std::pair{"--costs", options.costs}})
        if (on)
            spelled.push_back({flag, std::nullopt});
    if (options.hardware && options.hardware != &defaultHardware())
        spelled.push_back({"--hardware", std::string(options.hardware->name)});
    return spelled;
}

std::vector<std::string> sceneArguments(const SceneOptions& options) {
    std::vector<std::string> args;
    for (const SpelledOption& option : spellSceneOptions(options)) {
        args.push_back(option.name);
        if (option.value)
            args.push_back(*option.value);
    }
    return args;
}

}  // namespace tp
