#include "io/hardware_file.h"

#include "io/binary_file.h"
#include "io/file_text.h"
#include "layer/layer_config.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace tp {
namespace {

using json = nlohmann::ordered_json;

// One row per number of the file: its key, its field, whether 0 is allowed and whether the key
// may be left out (then the field is 0, and hardwareJson leaves a 0 out).
struct NumberKey {
    const char* key;
    double HardwarePreset::*field;
    bool zeroAllowed;
    bool optional = false;
};

constexpr NumberKey kNumbers[] = {
    {"alpha_s", &HardwarePreset::alphaSeconds, false},
    {"beta_bytes_per_s", &HardwarePreset::busBytesPerSecond, false},
    {"achievable_flops_per_s", &HardwarePreset::achievableFlops, false},
    {"memory_bytes_per_s", &HardwarePreset::memoryBytesPerSecond, false},
    {"launch_s", &HardwarePreset::launchSeconds, true},
    {"knee_bytes", &HardwarePreset::kneeBytes, true, true},
    {"beta_large_bytes_per_s", &HardwarePreset::largeBusBytesPerSecond, true, true},
    {"reduce_bytes_per_s", &HardwarePreset::reduceBytesPerSecond, true, true},
};

}  // namespace

HardwareFileRead parseHardwareJson(std::string_view text, std::string_view source) {
    const std::string where = printablePath(source) + ": ";
    if (const std::string nesting = jsonNestingProblem(text); !nesting.empty())
        return {std::nullopt, {where + "not a hardware file: " + nesting}};
    const json document = json::parse(text, nullptr, false);
    if (document.is_discarded())
        return {std::nullopt, {where + "not JSON: a hardware file is one JSON object"}};
    if (!document.is_object())
        return {std::nullopt,
                {where + "not a JSON object: a hardware file is one object of "
                         "the preset's figures"}};
    HardwareFileRead read;
    HardwarePreset preset;
    for (const auto& [key, field] : {std::pair{"name", &HardwarePreset::name},
                                     std::pair{"description", &HardwarePreset::description}}) {
        if (!document.contains(key))
            read.problems.push_back(where + "'" + key + "' is missing");
        else if (!document[key].is_string())
            read.problems.push_back(where + "'" + key + "' is not a string");
        else
            preset.*field = document[key].get<std::string>();
    }
    if (read.problems.empty() && preset.name.empty())
        read.problems.push_back(where + "'name' is empty");
    for (const NumberKey& n : kNumbers) {
        const std::string key = n.key;
        if (!document.contains(key)) {
            if (!n.optional)
                read.problems.push_back(where + "'" + key + "' is missing");
            continue;
        }
        const json& value = document[key];
        if (!value.is_number()) {
            read.problems.push_back(where + "'" + key +
                                    "' is not a number: " + printableText(value.dump()));
            continue;
        }
        const double number = value.get<double>();
        if (!std::isfinite(number) || number < 0 || (number == 0 && !n.zeroAllowed))
            read.problems.push_back(
                where + "'" + key + "' is " + printableText(value.dump()) +
                (n.zeroAllowed ? "; it must be 0 or more" : "; it must be more than 0"));
        else
            preset.*n.field = number;
    }
    if (read.problems.empty() && (preset.kneeBytes > 0) != (preset.largeBusBytesPerSecond > 0))
        read.problems.push_back(where +
                                "'knee_bytes' and 'beta_large_bytes_per_s' go together: give both "
                                "(more than 0) or neither");
    if (read.problems.empty())
        read.preset = preset;
    return read;
}

HardwareFileRead readHardwareFile(const std::string& path) {
    InputFile file(path);
    if (!file.isOpen())
        return {std::nullopt, {file.error()}};
    constexpr std::int64_t kMaxHardwareBytes = 1 << 20;  // a preset is a few lines
    if (file.size() > kMaxHardwareBytes)
        return {std::nullopt,
                {printablePath(path) + ": is " + formatBytes(file.size()) +
                 ", too large for a hardware file"}};
    std::string text(std::size_t(file.size()), '\0');
    if (!file.readAt(0, text.data(), file.size()))
        return {std::nullopt, {file.error()}};
    return parseHardwareJson(text, path);
}

std::string hardwareJson(const HardwarePreset& preset) {
    json document = {{"name", preset.name}, {"description", preset.description}};
    for (const NumberKey& n : kNumbers)
        if (!n.optional || preset.*n.field != 0)
            document[n.key] = preset.*n.field;
    return document.dump(2) + "\n";
}

}  // namespace tp
