#include "scene/scene_arguments.h"

#include "scene/option_rows.h"

namespace tp {

std::vector<std::string> sceneArguments(const SceneOptions& options,
                                        const std::vector<ExtraOption>& extras,
                                        ValueSpelling spelling) {
    std::vector<std::string> args;
    auto add = [&](std::string_view name, bool takesValue, const std::string& value) {
        if (!takesValue)
            args.emplace_back(name);
        else if (spelling == ValueSpelling::Inline)
            args.push_back(std::string(name) + "=" + value);
        else
            args.insert(args.end(), {std::string(name), value});
    };
    auto spell = [&](const OptionRow& row) {
        for (const std::string& value : row.spell(options))
            add(row.name, row.takesValue(), value);
    };
    // The scene file first: the parser applies it before every other option anyway.
    spell(optionRow(Option::Scene));
    for (const OptionRow& row : optionRows())
        if (row.option != Option::Scene)
            spell(row);

    for (const ExtraOption& extra : extras) {
        const auto given = options.extras.find(extra.name);
        if (given != options.extras.end())
            add(extra.name, !extra.valueName.empty(), given->second);
    }
    return args;
}

}  // namespace tp
