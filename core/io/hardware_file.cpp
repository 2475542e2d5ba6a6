#include "io/hardware_file.h"

#include "io/binary_file.h"
#include "io/file_text.h"
#include "io/json_document.h"
#include "layer/layer_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace tp {
namespace {

using json = nlohmann::ordered_json;

// One row per number of the file: its key, its field in `Figures`, whether 0 is allowed and
// whether the key may be left out (then the field is 0, and hardwareJson leaves a 0 out).
template <class Figures>
struct NumberKey {
    const char* key;
    double Figures::*field;
    bool zeroAllowed;
    bool optional = false;
};

// The link's figures: at the top level (the shared ones) and in each kind's object.
constexpr NumberKey<LinkFigures> kLinkNumbers[] = {
    {"alpha_s", &LinkFigures::alphaSeconds, false},
    {"beta_bytes_per_s", &LinkFigures::busBytesPerSecond, false},
    {"knee_bytes", &LinkFigures::kneeBytes, true, true},
    {"beta_large_bytes_per_s", &LinkFigures::largeBusBytesPerSecond, true, true},
    {"reduce_bytes_per_s", &LinkFigures::reduceBytesPerSecond, true, true},
    {"eager_bytes", &LinkFigures::eagerBytes, true, true},
    {"beta_eager_bytes_per_s", &LinkFigures::eagerBusBytesPerSecond, true, true},
    {"rendezvous_s", &LinkFigures::rendezvousSeconds, true, true},
};

constexpr NumberKey<HardwarePreset> kDeviceNumbers[] = {
    {"achievable_flops_per_s", &HardwarePreset::achievableFlops, false},
    {"memory_bytes_per_s", &HardwarePreset::memoryBytesPerSecond, false},
    {"launch_s", &HardwarePreset::launchSeconds, true},
    {"in_order_flops_per_s", &HardwarePreset::inOrderFlops, true, true},
};

// A kind's object key: "all_reduce", "all_gather", "reduce_scatter".
std::string kindKey(CollectiveKind kind) {
    std::string key(toString(kind));
    std::replace(key.begin(), key.end(), '-', '_');
    return key;
}

// Reads `rows` of `object` into `into`; `prefix` is put before each key in the problems
// ("reduce_scatter." in a kind's object).
template <class Figures, std::size_t N>
void readNumbers(const json& object, const NumberKey<Figures> (&rows)[N], Figures& into,
                 const std::string& where, const std::string& prefix,
                 std::vector<std::string>& problems) {
    for (const NumberKey<Figures>& n : rows) {
        const std::string key = n.key, named = "'" + prefix + key + "'";
        if (!object.contains(key)) {
            if (!n.optional)
                problems.push_back(where + named + " is missing");
            continue;
        }
        const json& value = object[key];
        if (!value.is_number()) {
            problems.push_back(where + named + " is not a number: " + printableText(value.dump()));
            continue;
        }
        const double number = value.get<double>();
        if (!std::isfinite(number) || number < 0 || (number == 0 && !n.zeroAllowed))
            problems.push_back(
                where + named + " is " + printableText(value.dump()) +
                (n.zeroAllowed ? "; it must be 0 or more" : "; it must be more than 0"));
        else
            into.*n.field = number;
    }
}

// The link's figures of `object` (the top level, or a kind's object with `prefix`).
LinkFigures readLink(const json& object, const std::string& where, const std::string& prefix,
                     std::vector<std::string>& problems) {
    LinkFigures link;
    const std::size_t before = problems.size();
    readNumbers(object, kLinkNumbers, link, where, prefix, problems);
    if (problems.size() == before && (link.kneeBytes > 0) != (link.largeBusBytesPerSecond > 0))
        problems.push_back(where + "'" + prefix + "knee_bytes' and '" + prefix +
                           "beta_large_bytes_per_s' go together: give both (more than 0) or "
                           "neither");
    if (problems.size() == before && (link.eagerBytes > 0) != (link.eagerBusBytesPerSecond > 0))
        problems.push_back(where + "'" + prefix + "eager_bytes' and '" + prefix +
                           "beta_eager_bytes_per_s' go together: give both (more than 0) or "
                           "neither");
    if (problems.size() == before && link.eagerBytes == 0 && link.rendezvousSeconds > 0)
        problems.push_back(where + "'" + prefix + "rendezvous_s' needs '" + prefix +
                           "eager_bytes': the handshake is paid past the eager limit");
    if (problems.size() == before && link.kneeBytes > 0 && link.kneeBytes <= link.eagerBytes)
        problems.push_back(where + "'" + prefix + "knee_bytes' must be more than '" + prefix +
                           "eager_bytes': the knee is on the rendezvous side");
    return link;
}

template <class Figures, std::size_t N>
void writeNumbers(json& object, const NumberKey<Figures> (&rows)[N], const Figures& from) {
    for (const NumberKey<Figures>& n : rows)
        if (!n.optional || from.*n.field != 0)
            object[n.key] = from.*n.field;
}

}  // namespace

HardwareFileRead parseHardwareJson(std::string_view text, std::string_view source) {
    const std::string where = printablePath(source) + ": ";
    if (const std::string nesting = jsonNestingProblem(text); !nesting.empty())
        return {std::nullopt, {where + "not a hardware file: " + nesting}};
    JsonDocumentRead parsed = parseJsonDocument(text);
    if (!parsed.invalid.empty())
        return {std::nullopt, {where + "not JSON: a hardware file is one JSON object"}};
    if (!parsed.repeatedKey.empty())
        return {std::nullopt, {where + "the key " + parsed.repeatedKey + " is given twice"}};
    const json document = std::move(parsed.document);
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
        else  // shown in reports and the app: a terminal never obeys an escape from the file
            preset.*field = printableText(document[key].get<std::string>());
    }
    if (read.problems.empty() && preset.name.empty())
        read.problems.push_back(where + "'name' is empty");
    preset.link = readLink(document, where, "", read.problems);
    readNumbers(document, kDeviceNumbers, preset, where, "", read.problems);
    for (const CollectiveKind kind : kLinkKinds) {
        const std::string key = kindKey(kind);
        if (!document.contains(key))
            continue;
        if (!document[key].is_object())
            read.problems.push_back(where + "'" + key + "' is not an object of " +
                                    std::string(toString(kind)) +
                                    "'s own link figures: " + printableText(document[key].dump()));
        else
            preset.ownLinks[kind] = readLink(document[key], where, key + ".", read.problems);
    }
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
    writeNumbers(document, kLinkNumbers, preset.link);
    writeNumbers(document, kDeviceNumbers, preset);
    for (const CollectiveKind kind : kLinkKinds)
        if (const auto own = preset.ownLinks.find(kind); own != preset.ownLinks.end()) {
            json object = json::object();
            writeNumbers(object, kLinkNumbers, own->second);
            document[kindKey(kind)] = object;
        }
    return document.dump(2) + "\n";
}

}  // namespace tp
