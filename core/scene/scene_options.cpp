#include "scene/scene_options.h"

#include "devices/duration_text.h"
#include "io/file_text.h"
#include "layer/product_kernel.h"
#include "scene/file_options.h"
#include "scene/option_rows.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <string_view>

namespace tp {
namespace {

// --- The command line as options and their values ---------------------------------------------

// One option as given: its name (an alias spelled as the row's name, "-h" as "--help"), its value
// ("" for a flag), and its row (nullptr for one of the program's extras); or, with `error` set, an
// argument that is not a well-formed option.
struct GivenOption {
    std::string name;
    std::string value;
    const OptionRow* row = nullptr;
    std::string error;
};

// Splits the arguments into options and their values ("--name value" or "--name=value"), in
// order. Unknown options, stray arguments and missing or unexpected values come as errors, in
// their place.
std::vector<GivenOption> splitOptions(const std::vector<std::string>& args,
                                      const std::vector<ExtraOption>& extras) {
    std::vector<GivenOption> split;
    auto refuse = [&split](std::string why) {
        GivenOption refused;
        refused.error = std::move(why);
        split.push_back(std::move(refused));
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::optional<std::string> inlineValue;
        if (const auto eq = name.find('='); name.starts_with("--") && eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name.resize(eq);
        }
        const OptionRow* row = findOptionRow(name);
        if (row)
            name = row->name;
        const auto extra = std::find_if(extras.begin(), extras.end(),
                                        [&](const ExtraOption& e) { return e.name == name; });
        if (!row && extra == extras.end()) {
            refuse(name.starts_with('-') ? "unknown option " + quotedText(args[i]) + " (see --help)"
                                         : "unexpected argument " + quotedText(args[i]));
            continue;
        }
        const bool takesValue = row ? row->takesValue() : !extra->valueName.empty();
        std::string value;
        if (takesValue) {
            if (inlineValue) {
                value = *inlineValue;
            } else if (i + 1 < args.size()) {
                value = args[++i];
            } else {
                refuse(name + " needs a value");
                continue;
            }
        } else if (inlineValue) {
            refuse(name + " takes no value");
            continue;
        }
        split.push_back({std::move(name), std::move(value), row, std::string()});
    }
    return split;
}

}  // namespace

SceneRun sceneRun(const SceneOptions& options) {
    return {options.mistake,
            {options.toleranceGiven ? CheckRule::Allclose : CheckRule::RoundingBound,
             options.tolerance},
            options.backward};
}

SceneRequest sceneRequest(const SceneOptions& options) {
    return {options.config, options.source, sceneRun(options), options.files, {}};
}

SceneOptionsParse parseSceneOptions(const std::vector<std::string>& args,
                                    const std::vector<ExtraOption>& extras) {
    SceneOptionsParse parse;
    SceneOptions& options = parse.options;
    LayerConfig& config = options.config;
    std::vector<std::string>& errors = parse.errors;
    // The shared options given and taken, by name, to check combinations. A refused value sets
    // nothing: its option is not given, and its problem is the only one it causes.
    std::vector<std::string> given;
    const std::vector<GivenOption> givenOptions = splitOptions(args, extras);
    // The scene file first, so that the other options override it. Found among the parsed
    // options, so that "--scene" as another option's value is that option's value.
    std::string sceneFile;
    for (const GivenOption& option : givenOptions)
        if (option.error.empty() && option.row && option.row->option == Option::Scene)
            sceneFile = option.value;
    const SceneOrigin scene = applySceneFile(sceneFile, options, errors);

    for (const GivenOption& option : givenOptions) {
        if (!option.error.empty()) {
            errors.push_back(option.error);
            continue;
        }
        if (!option.row) {
            options.extras[option.name] = option.value;
            continue;
        }
        if (option.row->cliOnly)
            options.cliOnlyGiven.push_back(option.name);
        if (const std::string problem = option.row->parse(option.value, options); !problem.empty())
            errors.push_back(option.name + ": " + problem);
        else
            given.push_back(option.name);
    }
    if (options.help || options.listHardware)
        return parse;

    auto wasGiven = [&](Option option) {
        return std::find(given.begin(), given.end(), optionName(option)) != given.end();
    };
    if (options.source == SceneSource::Brief) {
        for (const OptionRow& row : optionRows())
            if (row.fixedByBrief && wasGiven(row.option))
                errors.push_back(
                    std::string(row.name) +
                    " does not apply to --example brief: the worked example's arrays are fixed "
                    "(only --tp and --mode can change)");
        const LayerConfig brief = briefExampleConfig();
        config.batch = brief.batch;
        config.inDim = brief.inDim;
        config.features = brief.features;
        if (!wasGiven(Option::Tp))
            config.tpSize = brief.tpSize;
    }
    // Set by an option or by the scene file: the block's defaults leave it alone.
    auto isSet = [&](Option option, const char* key) {
        return wasGiven(option) ||
               std::find(scene.keys.begin(), scene.keys.end(), key) != scene.keys.end();
    };
    if (config.block == Block::Mlp) {
        // The block's own defaults: a hidden width of 4 x in_dim, an output of in_dim features.
        if (!isSet(Option::Hidden, "hidden"))
            config.hidden = config.inDim > std::numeric_limits<std::int64_t>::max() / 4
                                ? std::numeric_limits<std::int64_t>::max()  // refused: its memory
                                : 4 * config.inDim;
        if (!isSet(Option::Features, "features"))
            config.features = config.inDim;
        if (!isSet(Option::Tp, "tp_size") && config.hidden > 0)
            config.tpSize = nearestDivisor(config.hidden, 4);
        if (wasGiven(Option::Mode))
            errors.push_back(
                "--mode splits one Linear; the MLP block is split the Megatron way, "
                "linear1 by its columns and linear2 by its rows");
    } else if (wasGiven(Option::Hidden)) {
        errors.push_back("--hidden sets the MLP block's hidden width; add --block mlp");
    }
    if (options.python && (options.json || options.summary))
        errors.push_back(
            "--python prints a script; it cannot be combined with --json or --summary");

    if (wasGiven(Option::Layout) && !options.costs && !options.python)
        errors.push_back(
            "--layout sets where the arrays rest on the mesh; add --costs to see its "
            "collectives and memory, or --python for its JAX script");
    if (options.python && config.layout != ShardingLayout::Tensor &&
        options.mistake != Mistake::None)
        errors.push_back("--python writes the " + std::string(toString(config.layout)) +
                         " layout's script for the correct split; it cannot show a mistake "
                         "(the mistakes' scripts are the tensor layout's)");
    if (wasGiven(Option::Hardware) && !options.costs)
        errors.push_back("--hardware sets the hardware of the --costs estimate; add --costs");
    if (options.costs && options.python)
        errors.push_back("--costs adds to a report; it cannot be combined with --python");
    // One Linear's costs are the correct split's devices; the block's show what a mistake costs.
    if (options.costs && options.mistake != Mistake::None && config.block == Block::Linear)
        errors.push_back(
            "--costs shows the devices of a correct split; it cannot be combined "
            "with --mistake");

    // Sizes from files that could not be read are unknown: judging the config would mislead.
    if (!loadFiles(options, given, scene, errors))
        return parse;
    const bool sizedByFiles = options.files.any();
    for (ConfigProblem& problem : sceneProblems(sceneRequest(options))) {
        problem.message = problemText(problem, scene, given, sizedByFiles);
        if (problem.field == ConfigField::Backward)
            problem.message = optionName(Option::Backward) + ": " + problem.message;
        errors.push_back(problem.message);
        parse.problems.push_back(std::move(problem));
    }
    return parse;
}

const ExtraOption& versionOption() {
    static const ExtraOption version{"--version", "",
                                     "print the version and the SIMD path in use, then exit"};
    return version;
}

std::string hardwareListText() {
    std::string text;
    for (const HardwarePreset& p : hardwarePresets()) {
        char figures[96];
        std::snprintf(figures, sizeof figures, "%.4g TFLOP/s, memory %.4g GB/s, launch %s",
                      p.achievableFlops / 1e12, p.memoryBytesPerSecond / 1e9,
                      durationText(p.launchSeconds).c_str());
        std::string device = figures;
        if (p.inOrderFlops > 0) {
            std::snprintf(figures, sizeof figures,
                          ", %.4g TFLOP/s summed in order (at most %d rows)", p.inOrderFlops / 1e12,
                          int(products::kFewRows));
            device += figures;
        }
        text += std::string(p.name) + (&p == &defaultHardware() ? " (default)" : "") + ": " +
                linkWords(p.link) + ", " + device + ". " + std::string(p.description) + "\n";
        for (const auto& [kind, link] : p.ownLinks)
            text += "  its " + std::string(toString(kind)) + ": " + linkWords(link) + "\n";
    }
    return text;
}

std::string sceneOptionsHelp(const std::vector<ExtraOption>& extras, OptionsFor program) {
    std::vector<std::pair<std::string, std::string>> lines;
    for (const OptionRow& row : optionRows()) {
        if (!row.takenBy(program))
            continue;
        std::string help(row.help);
        if (row.defaultText)
            help += " (default " + row.defaultText() + ")";
        help += row.helpTail;
        std::string left(row.name);
        if (row.takesValue())
            left += " " + std::string(row.valueName);
        lines.emplace_back(std::move(left), std::move(help));
        // The mistakes, one line each, under --mistake.
        if (row.option == Option::Mistake)
            for (const Mistake m : allMistakes())
                lines.emplace_back("    " + std::string(toString(m)), mistakeDescription(m));
    }
    for (const ExtraOption& e : extras)
        lines.emplace_back(e.name + (e.valueName.empty() ? "" : " " + e.valueName), e.help);
    std::size_t width = 0;
    for (const auto& line : lines)
        width = std::max(width, line.first.size());
    std::string text;
    for (const auto& [left, right] : lines)
        text += "  " + left + std::string(width - left.size() + 2, ' ') + right + "\n";
    return text;
}

std::vector<std::string> cliOnlyOptions() {
    std::vector<std::string> names;
    for (const OptionRow& row : optionRows())
        if (row.cliOnly)
            names.emplace_back(row.name);
    return names;
}

std::vector<std::string> sceneOptionNames() {
    std::vector<std::string> names;
    for (const OptionRow& row : optionRows())
        names.emplace_back(row.name);
    return names;
}

}  // namespace tp
