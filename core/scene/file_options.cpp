#include "file_options.h"

#include "file_text.h"
#include "scene_file.h"

#include <algorithm>
#include <utility>

namespace tp {
namespace {

// A --bias value that names an array file rather than an init.
bool namesArrayFile(const std::string& value) {
    return value.ends_with(".npy") || splitArraySpec(value).tensor.has_value();
}

// The options whose value is only a path: an empty one names no file. (An empty --bias is
// refused as neither an init nor an array file.)
bool takesPath(const std::string& name) {
    return name == "--kernel" || name == "--x" || name == "--scene" || name == "--save-npy";
}

// The scene file's key and the option of each setting a problem can belong to.
struct FieldKey {
    ConfigField field;
    const char* key;
    const char* option;
};
constexpr FieldKey kFieldKeys[] = {
    {ConfigField::Batch, "batch", "--batch"},
    {ConfigField::InDim, "in_dim", "--in-dim"},
    {ConfigField::Features, "features", "--features"},
    {ConfigField::TpSize, "tp_size", "--tp"},
    {ConfigField::Seed, "seed", "--seed"},
    {ConfigField::Bias, "bias", "--bias"},
    {ConfigField::Data, "data", "--data"},
    {ConfigField::Output, "output", "--output"},
    {ConfigField::Mistake, "mistake", "--mistake"},
};

}  // namespace

std::string SceneOrigin::tag(std::string_view key, std::string_view option,
                             const std::vector<std::string>& given) const {
    if (std::find(keys.begin(), keys.end(), key) == keys.end() ||
        std::find(given.begin(), given.end(), option) != given.end())
        return "";
    return "--scene: " + printablePath(file) + ": '" + std::string(key) + "' ";
}

SceneOrigin applySceneFile(const std::string& path, SceneOptions& options,
                           std::vector<std::string>& errors) {
    options.sceneFile = path;
    if (path.empty())
        return {};
    const SceneFileRead read = readSceneFile(path);
    for (const std::string& error : read.errors)
        errors.push_back("--scene: " + error);
    if (!read.scene)
        return {path, {}};
    options.config = read.scene->config;
    options.source = read.scene->source;
    options.files = read.scene->arrays;
    options.mistake = read.scene->mistake;
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
            const std::string tag = scene.tag(entry.key, entry.option, given);
            return tag.empty() ? problem.message : tag + "is refused: " + problem.message;
        }
    return problem.message;
}

bool parseFileOption(const std::string& name, const std::string& value, SceneOptions& options,
                     std::vector<std::string>& errors) {
    if (value.empty() && takesPath(name)) {
        errors.push_back(name + ": an empty path names no " +
                         (name == "--save-npy" ? "folder" : "file"));
        return true;
    }
    if (name == "--kernel")
        options.files.kernel = value;
    else if (name == "--transpose")
        options.files.transpose = true;
    else if (name == "--x")
        options.files.x = value;
    else if (name == "--bias" && namesArrayFile(value))
        options.files.bias = value;
    else if (name == "--save-npy")
        options.saveNpyDir = value;
    else if (name != "--scene")  // applied by applySceneFile
        return false;
    return true;
}

bool loadFiles(SceneOptions& options, const std::vector<std::string>& given,
               const SceneOrigin& scene, std::vector<std::string>& errors) {
    auto wasGiven = [&](std::string_view name) {
        return std::find(given.begin(), given.end(), name) != given.end();
    };
    if (!options.saveNpyDir.empty() && options.python)
        errors.push_back(
            "--save-npy writes the scene's arrays; it cannot be combined with --python");
    if (!options.files.any()) {
        if (options.files.transpose)
            errors.push_back("--transpose applies to --kernel FILE.safetensors:TENSOR");
        return true;
    }
    if (options.source == SceneSource::Brief && wasGiven("--example")) {
        errors.push_back(
            "--example brief has its own arrays; it cannot be combined with "
            "--kernel, --bias FILE or --x");
        return false;
    }
    if (options.python)
        errors.push_back("--python builds the layer from the seed; it cannot use array files");
    options.source = SceneSource::Files;
    LoadedArraysRead read = loadArrayFiles(options.files, options.config,
                                           {.batch = wasGiven("--batch"),
                                            .inDim = wasGiven("--in-dim"),
                                            .features = wasGiven("--features")});
    // An array the scene file named, and no option replaced, is the file's: say so.
    for (const std::string& error : read.errors) {
        std::string tag;
        for (const auto& [array, option] : {std::pair{"kernel: ", "--kernel"},
                                            std::pair{"x: ", "--x"}, std::pair{"bias: ", "--bias"}})
            if (error.starts_with(array))
                tag = scene.tag("arrays", option, given);
        errors.push_back(tag + error);
    }
    options.arrays = std::move(read.arrays);
    return read.errors.empty();
}

}  // namespace tp
