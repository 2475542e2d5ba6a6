#include "io/scene_file.h"

#include "io/binary_file.h"
#include "io/file_text.h"
#include "io/json_document.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <new>

namespace tp {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFormat = "tpviz-scene";
constexpr int kVersion = 1;

// One key of the file: how to read its value into a SceneFile. Returns the reason it cannot, or
// "". New keys are new rows of kSceneKeys.
using KeyReader = std::string (*)(const json& value, SceneFile& scene, const fs::path& baseDir);

std::string readInt(const json& value, std::int64_t& field) {
    if (!value.is_number_integer())
        return "is not a whole number";
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
        return "is out of the int64 range";
    field = value.get<std::int64_t>();
    return "";
}

std::string readString(const json& value, std::string& text) {
    if (!value.is_string())
        return "is not a string";
    text = value.get<std::string>();
    return "";
}

std::string resolved(const std::string& spec, const fs::path& baseDir) {
    ArraySpec split = splitArraySpec(spec);
    const fs::path file(split.file);
    // Normal form ("//a/./b" is "/a/b"), so that the path written back relative reads the same.
    if (file.is_relative() && !baseDir.empty())
        split.file = (baseDir / file).lexically_normal().string();
    else if (file.is_absolute())
        split.file = file.lexically_normal().string();
    return joinArraySpec(split);
}

std::string readArrays(const json& value, SceneFile& scene, const fs::path& baseDir) {
    if (!value.is_object())
        return "is not an object like {\"kernel\": \"w.npy\"}";
    ArrayFiles& arrays = scene.arrays;
    for (const auto& [key, item] : value.items()) {
        std::string* path = key == "kernel" ? &arrays.kernel
                            : key == "bias" ? &arrays.bias
                            : key == "x"    ? &arrays.x
                                            : nullptr;
        if (key == "transpose") {
            if (!item.is_boolean())
                return "has 'transpose' that is not true or false";
            arrays.transpose = item.get<bool>();
        } else if (!path) {
            return "has the unknown key " + quotedText(key) +
                   " (known: kernel, transpose, bias, x)";
        } else if (!item.is_string()) {
            return "has '" + key + "' that is not a file path";
        } else if (item.get<std::string>().empty()) {
            return "has '" + key + "' that is empty; it must name a file";
        } else if (item.get<std::string>().find('\0') != std::string::npos) {
            return "has '" + key + "' " + quotedText(item.get<std::string>()) +
                   " that holds a NUL character, which no file name can";
        } else {
            *path = resolved(item.get<std::string>(), baseDir);
        }
    }
    if (!arrays.any())
        return "names no array file";
    scene.source = SceneSource::Files;
    return "";
}

struct SceneKey {
    const char* name;
    KeyReader read;
};

const SceneKey kSceneKeys[] = {
    {"format",
     [](const json& v, SceneFile&, const fs::path&) -> std::string {
         return v == kFormat ? "" : "is not \"tpviz-scene\"";
     }},
    {"version",
     [](const json& v, SceneFile&, const fs::path&) -> std::string {
         return v.is_number_integer() && v.get<std::int64_t>() == kVersion
                    ? ""
                    : "is not 1, the version this program reads";
     }},
    {"batch",
     [](const json& v, SceneFile& s, const fs::path&) { return readInt(v, s.config.batch); }},
    {"in_dim",
     [](const json& v, SceneFile& s, const fs::path&) { return readInt(v, s.config.inDim); }},
    {"features",
     [](const json& v, SceneFile& s, const fs::path&) { return readInt(v, s.config.features); }},
    {"tp_size",
     [](const json& v, SceneFile& s, const fs::path&) { return readInt(v, s.config.tpSize); }},
    {"seed",
     [](const json& v, SceneFile& s, const fs::path&) { return readInt(v, s.config.seed); }},
    {"mode",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         std::string text;
         if (auto reason = readString(v, text); !reason.empty())
             return reason;
         const auto mode = parseParallelMode(text);
         if (!mode)
             return quotedText(text) + " is not column or row";
         s.config.mode = *mode;
         return "";
     }},
    {"prng",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         std::string text;
         if (auto reason = readString(v, text); !reason.empty())
             return reason;
         const auto layout = parsePrngLayout(text);
         if (!layout)
             return quotedText(text) + " is not partitionable or legacy";
         s.config.prng = *layout;
         return "";
     }},
    {"x64",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         if (!v.is_boolean())
             return "is not true or false";
         s.config.x64 = v.get<bool>();
         return "";
     }},
    {"bias",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         std::string text;
         if (auto reason = readString(v, text); !reason.empty())
             return reason;
         const auto bias = parseBiasInit(text);
         if (!bias)
             return quotedText(text) +
                    " is not zeros or normal:STDDEV with a finite STDDEV above 0";
         s.config.bias = *bias;
         return "";
     }},
    {"data",
     [](const json& v, SceneFile& s, const fs::path&) { return readInt(v, s.config.dataSize); }},
    {"output",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         std::string text;
         if (auto reason = readString(v, text); !reason.empty())
             return reason;
         const auto layout = parseOutputLayout(text);
         if (!layout)
             return quotedText(text) + " is not sharded or replicated";
         s.config.output = *layout;
         return "";
     }},
    {"block",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         std::string text;
         if (auto reason = readString(v, text); !reason.empty())
             return reason;
         const auto block = parseBlock(text);
         if (!block)
             return quotedText(text) + " is not linear or mlp";
         s.config.block = *block;
         return "";
     }},
    {"hidden",
     [](const json& v, SceneFile& s, const fs::path&) { return readInt(v, s.config.hidden); }},
    {"layout",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         std::string text;
         if (auto reason = readString(v, text); !reason.empty())
             return reason;
         const auto layout = parseShardingLayout(text);
         if (!layout)
             return quotedText(text) + " is not tensor, fsdp or sequence";
         s.config.layout = *layout;
         return "";
     }},
    {"mistake",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         std::string text;
         if (auto reason = readString(v, text); !reason.empty())
             return reason;
         const auto mistake = parseMistake(text);
         if (!mistake)
             return quotedText(text) + " is not a mistake tpviz makes (see tpviz-cli --help)";
         s.mistake = *mistake;
         return "";
     }},
    {"backward",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         if (!v.is_boolean())
             return "is not true or false";
         s.backward = v.get<bool>();
         return "";
     }},
    {"step",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         if (auto reason = readInt(v, s.step); !reason.empty())
             return reason;
         return s.step < 0 ? "is negative" : "";
     }},
    {"example",
     [](const json& v, SceneFile& s, const fs::path&) -> std::string {
         if (v != "brief")
             return "is not \"brief\"";
         s.source = SceneSource::Brief;
         return "";
     }},
    {"arrays", readArrays},
};

std::string knownKeys() {
    std::string names;
    for (const SceneKey& key : kSceneKeys)
        names += (names.empty() ? "" : ", ") + std::string(key.name);
    return names;
}

}  // namespace

SceneFileRead parseSceneFile(const std::string& text, const std::string& baseDir,
                             const std::string& name) {
    SceneFileRead read;
    const std::string shownName = printablePath(name);
    if (const std::string nesting = jsonNestingProblem(text); !nesting.empty()) {
        read.errors.push_back(shownName + ": " + nesting + "; a scene file is 2 levels deep");
        return read;
    }
    if (const std::string memory = jsonMemoryProblem(text); !memory.empty()) {
        read.errors.push_back(shownName + ": " + memory);
        return read;
    }
    JsonDocumentRead parsed = parseJsonDocument(text);
    if (!parsed.ok()) {
        read.errors.push_back(shownName + (!parsed.invalid.empty()
                                               ? ": not valid JSON: " + parsed.invalid
                                               : ": the key " + parsed.repeatedKey +
                                                     " is given twice in one object"));
        return read;
    }
    const json document = std::move(parsed.document);
    if (!document.is_object()) {
        read.errors.push_back(shownName + ": not a JSON object");
        return read;
    }
    for (const char* required : {"format", "version"})
        if (!document.contains(required))
            read.errors.push_back(shownName + ": the key '" + required +
                                  "' is missing; a scene file starts with {\"format\": "
                                  "\"tpviz-scene\", \"version\": 1");
    SceneFile scene;
    std::vector<std::string> unknownKeys;
    for (const auto& item : document.items()) {
        const std::string& key = item.key();
        const auto& value = item.value();
        const auto entry = std::find_if(std::begin(kSceneKeys), std::end(kSceneKeys),
                                        [&](const SceneKey& k) { return key == k.name; });
        if (entry == std::end(kSceneKeys)) {
            unknownKeys.push_back(key);
            continue;
        }
        read.keys.push_back(key);
        if (const std::string reason = entry->read(value, scene, fs::path(baseDir));
            !reason.empty())
            read.errors.push_back(shownName + ": '" + key + "' " + reason);
    }
    // One sentence for all of them, however many: the first few name the mistake.
    if (!unknownKeys.empty())
        read.errors.push_back(shownName + ": unknown key" + (unknownKeys.size() > 1 ? "s " : " ") +
                              listedNames(unknownKeys, true) + " (known keys: " + knownKeys() +
                              ")");
    if (document.contains("hidden") && scene.config.block != Block::Mlp)
        read.errors.push_back(shownName +
                              ": 'hidden' is the MLP block's hidden width, and without "
                              "\"block\": \"mlp\" the scene is one Linear");
    if (scene.source == SceneSource::Brief && document.contains("arrays"))
        read.errors.push_back(shownName + ": 'example' and 'arrays' cannot both be given");
    if (read.errors.empty())
        read.scene = scene;
    return read;
}

SceneFileRead readSceneFile(const std::string& path) {
    InputFile file(path);
    if (!file.isOpen())
        return {std::nullopt, {file.error()}, {}};
    constexpr std::int64_t kMaxSceneBytes = 16 << 20;  // a scene is a short JSON text
    if (file.size() > kMaxSceneBytes)
        return {std::nullopt,
                {printablePath(path) + ": is " + formatBytes(file.size()) +
                 ", too large for a scene file"},
                {}};
    try {
        std::string text(std::size_t(file.size()), '\0');
        if (!file.readAt(0, text.data(), file.size()))
            return {std::nullopt, {file.error()}, {}};
        return parseSceneFile(text, fs::path(path).parent_path().string(), path);
    } catch (const std::bad_alloc&) {  // a 16 MB document can take ten times that in memory
        return {std::nullopt,
                {printablePath(path) + ": not enough memory to read it: an allocation failed"},
                {}};
    }
}

std::string sceneFileText(const SceneFile& scene, const std::string& baseDir) {
    const LayerConfig& c = scene.config;
    json document = {{"format", kFormat}, {"version", kVersion},      {"batch", c.batch},
                     {"in_dim", c.inDim}, {"features", c.features},   {"tp_size", c.tpSize},
                     {"seed", c.seed},    {"mode", toString(c.mode)}, {"prng", toString(c.prng)},
                     {"x64", c.x64},      {"bias", toString(c.bias)}, {"data", c.dataSize},
                     {"step", scene.step}};
    if (c.output)
        document["output"] = toString(*c.output);
    if (c.block == Block::Mlp) {
        document["block"] = toString(c.block);
        document["hidden"] = c.hidden;
    }
    if (c.layout != ShardingLayout::Tensor)
        document["layout"] = toString(c.layout);
    if (scene.mistake != Mistake::None)
        document["mistake"] = toString(scene.mistake);
    if (scene.backward)
        document["backward"] = true;
    if (scene.source == SceneSource::Brief)
        document["example"] = "brief";
    if (scene.arrays.any()) {
        // Relative to the scene file where that reads back as the same path ("/dir" relative to
        // "/dir" is ".", which reads as "/dir/"), else absolute.
        auto relative = [&](const std::string& spec) {
            ArraySpec split = splitArraySpec(spec);
            const fs::path file = fs::absolute(split.file).lexically_normal();
            const fs::path base = fs::absolute(baseDir.empty() ? "." : baseDir).lexically_normal();
            const fs::path rel = file.lexically_relative(base);
            split.file = file.string();
            const std::string absolute = joinArraySpec(split);
            if (rel.empty())
                return absolute;
            split.file = rel.string();
            const std::string written = joinArraySpec(split);
            return resolved(written, base) == resolved(absolute, base) ? written : absolute;
        };
        json arrays = json::object();
        if (!scene.arrays.kernel.empty())
            arrays["kernel"] = relative(scene.arrays.kernel);
        if (scene.arrays.transpose)
            arrays["transpose"] = true;
        if (!scene.arrays.bias.empty())
            arrays["bias"] = relative(scene.arrays.bias);
        if (!scene.arrays.x.empty())
            arrays["x"] = relative(scene.arrays.x);
        document["arrays"] = arrays;
    }
    return document.dump(2) + "\n";
}

std::string writeSceneFile(const std::string& path, const SceneFile& scene) {
    const std::string text = sceneFileText(scene, fs::path(path).parent_path().string());
    return writeWholeFile(path, {text});
}

}  // namespace tp
