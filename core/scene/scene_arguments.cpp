#include "scene_arguments.h"

#include "float_format.h"
#include "mistakes.h"

#include <optional>
#include <utility>

namespace tp {

std::vector<std::string> sceneArguments(const SceneOptions& options,
                                        const std::vector<ExtraOption>& extras,
                                        ValueSpelling spelling) {
    std::vector<std::string> args;
    auto add = [&](const std::string& name, const std::optional<std::string>& value) {
        if (!value)
            args.push_back(name);
        else if (spelling == ValueSpelling::Inline)
            args.push_back(name + "=" + *value);
        else
            args.insert(args.end(), {name, *value});
    };
    auto flag = [&](const char* name, bool on) {
        if (on)
            add(name, std::nullopt);
    };
    const LayerConfig& config = options.config;

    // The scene file first: the parser applies it before every other option anyway.
    if (!options.sceneFile.empty())
        add("--scene", options.sceneFile);
    // The brief fixes its sizes and arrays; every other scene spells them, even at their defaults,
    // so that a scene file's values are overridden by the same values.
    if (options.source == SceneSource::Brief) {
        add("--example", "brief");
    } else {
        add("--batch", std::to_string(config.batch));
        add("--in-dim", std::to_string(config.inDim));
        add("--features", std::to_string(config.features));
        add("--seed", std::to_string(config.seed));
        add("--prng", std::string(toString(config.prng)));
        flag("--x64", config.x64);
        add("--bias", toString(config.bias));
    }
    add("--tp", std::to_string(config.tpSize));
    add("--mode", std::string(toString(config.mode)));
    add("--data", std::to_string(config.dataSize));
    if (config.output)
        add("--output", std::string(toString(*config.output)));
    if (options.mistake != Mistake::None)
        add("--mistake", std::string(toString(options.mistake)));

    if (!options.files.kernel.empty())
        add("--kernel", options.files.kernel);
    flag("--transpose", options.files.transpose);
    if (!options.files.bias.empty())
        add("--bias", options.files.bias);
    if (!options.files.x.empty())
        add("--x", options.files.x);
    if (!options.saveNpyDir.empty())
        add("--save-npy", options.saveNpyDir);

    flag("--costs", options.costs);
    if (options.hardware != &defaultHardware())
        add("--hardware", std::string(options.hardware->name));
    if (options.listHardware)
        add("--hardware", "list");
    if (options.toleranceGiven) {
        add("--rtol", formatDouble(options.tolerance.rtol));
        add("--atol", formatDouble(options.tolerance.atol));
    }
    flag("--backward", options.backward);
    flag("--json", options.json);
    flag("--summary", options.summary);
    flag("--python", options.python);
    flag("--help", options.help);

    for (const ExtraOption& extra : extras) {
        const auto given = options.extras.find(extra.name);
        if (given == options.extras.end())
            continue;
        add(extra.name, extra.valueName.empty() ? std::nullopt : std::optional(given->second));
    }
    return args;
}

}  // namespace tp
