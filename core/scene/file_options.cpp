#include "scene/file_options.h"

#include "io/file_text.h"
#include "io/scene_file.h"
#include "scene/option_rows.h"

#include <algorithm>
#include <utility>

namespace tp {
namespace {

// The scene file's key and the option of each setting a problem can belong to.
struct FieldKey {
    ConfigField field;
    const char* key;
    Option option;
};
constexpr FieldKey kFieldKeys[] = {
    {ConfigField::Batch, "batch", Option::Batch},
    {ConfigField::InDim, "in_dim", Option::InDim},
    {ConfigField::Features, "features", Option::Features},
    {ConfigField::TpSize, "tp_size", Option::Tp},
    {ConfigField::Seed, "seed", Option::Seed},
    {ConfigField::Bias, "bias", Option::Bias},
    {ConfigField::Data, "data", Option::Data},
    {ConfigField::Output, "output", Option::Output},
    {ConfigField::Mistake, "mistake", Option::Mistake},
    {ConfigField::Block, "block", Option::Block},
    {ConfigField::Hidden, "hidden", Option::Hidden},
    {ConfigField::Layout, "layout", Option::Layout},
};

}  // namespace

std::string SceneOrigin::tag(std::string_view key, std::string_view option,
                             const std::vector<std::string>& given) const {
    if (std::find(keys.begin(), keys.end(), key) == keys.end() ||
        std::find(given.begin(), given.end(), option) != given.end())
        return "";
    return optionName(Option::Scene) + ": " + printablePath(file) + ": '" + std::string(key) + "' ";
}

SceneOrigin applySceneFile(const std::string& path, SceneOptions& options,
                           std::vector<std::string>& errors) {
    options.sceneFile = path;
    if (path.empty())
        return {};
    const SceneFileRead read = readSceneFile(path);
    for (const std::string& error : read.errors)
        errors.push_back(optionName(Option::Scene) + ": " + error);
    if (!read.scene)
        return {path, {}};
    options.config = read.scene->config;
    options.source = read.scene->source;
    options.files = read.scene->arrays;
    options.mistake = read.scene->mistake;
    options.backward = read.scene->backward;
    return {path, read.keys};
}

std::string problemText(const ConfigProblem& problem, const SceneOrigin& scene,
                        const std::vector<std::string>& given, bool sizedByFiles) {
    for (const FieldKey& entry : kFieldKeys)
        if (entry.field == problem.field) {
            const bool size = entry.field == ConfigField::Batch ||
                              entry.field == ConfigField::InDim ||
                              entry.field == ConfigField::Features;
            if (size && sizedByFiles)
                break;
            const std::string tag = scene.tag(entry.key, optionName(entry.option), given);
            return tag.empty() ? problem.message : tag + "is refused: " + problem.message;
        }
    return problem.message;
}

bool loadFiles(SceneOptions& options, const std::vector<std::string>& given,
               const SceneOrigin& scene, std::vector<std::string>& errors) {
    auto wasGiven = [&](Option option) {
        return std::find(given.begin(), given.end(), optionName(option)) != given.end();
    };
    if (!options.saveNpyDir.empty() && options.python)
        errors.push_back(
            "--save-npy writes the scene's arrays; it cannot be combined with --python");
    if (!options.files.any()) {
        if (options.files.transpose)
            errors.push_back("--transpose applies to --kernel FILE.safetensors:TENSOR");
        return true;
    }
    if (options.source == SceneSource::Brief && wasGiven(Option::Example)) {
        errors.push_back(
            "--example brief has its own arrays; it cannot be combined with "
            "--kernel, --bias FILE or --x");
        return false;
    }
    if (options.python)
        errors.push_back("--python builds the layer from the seed; it cannot use array files");
    options.source = SceneSource::Files;
    LoadedArraysRead read = loadArrayFiles(options.files, options.config,
                                           {.batch = wasGiven(Option::Batch),
                                            .inDim = wasGiven(Option::InDim),
                                            .features = wasGiven(Option::Features)});
    // An array the scene file named, and no option replaced, is the file's: say so.
    for (const std::string& error : read.errors) {
        std::string tag;
        for (const auto& [array, option] :
             {std::pair{"kernel: ", Option::Kernel}, std::pair{"x: ", Option::X},
              std::pair{"bias: ", Option::Bias}})
            if (error.starts_with(array))
                tag = scene.tag("arrays", optionName(option), given);
        errors.push_back(tag + error);
    }
    options.arrays = std::move(read.arrays);
    return read.errors.empty();
}

}  // namespace tp
