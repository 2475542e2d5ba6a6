#include "scene_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

namespace tp {
namespace {

struct SharedOption {
    const char* name;
    const char* valueName;  // nullptr for a flag
    const char* help;
};

constexpr SharedOption kSharedOptions[] = {
    {"--batch", "N", "batch size N, rows of x (default 2)"},
    {"--in-dim", "D", "in_dim, rows of the kernel (default 8)"},
    {"--features", "F", "features, columns of the kernel (default 12)"},
    {"--tp", "T", "tp_size, the number of groups (default 3); must divide the split dimension"},
    {"--seed", "S", "nnx.Rngs(seed), any int64 (default 0)"},
    {"--mode", "column|row", "split output columns or input rows (default column)"},
    {"--prng", "partitionable|legacy", "JAX threefry bit layout (default partitionable)"},
    {"--x64", nullptr, "seed -> key as with jax_enable_x64"},
    {"--bias", "zeros|normal:STDDEV", "bias init (default zeros)"},
    {"--example", "brief", "use the brief's worked example instead of an NNX layer"},
    {"--rtol", "R", "allclose rtol; giving it makes allclose the verdict (default 1e-05)"},
    {"--atol", "A", "allclose atol; giving it makes allclose the verdict (default 1e-06)"},
    {"--mistake", "NAME", "make a mistake the brief warns about, for real (default none):"},
    {"--json", nullptr, "print one JSON document"},
    {"--summary", nullptr, "print only the config, the groups and the verification"},
    {"--python", nullptr, "print a runnable JAX/Flax script that builds the same scene"},
    {"--help", nullptr, "show this help"},
};

const SharedOption* findShared(std::string_view name) {
    for (const SharedOption& option : kSharedOptions)
        if (name == option.name)
            return &option;
    return nullptr;
}

std::string quoted(std::string_view text) {
    return "'" + std::string(text) + "'";
}

// "none, sum-groups, ... or slice-x"
std::string mistakeNames() {
    std::string names = "none";
    const auto& all = allMistakes();
    for (std::size_t i = 0; i < all.size(); ++i)
        names += std::string(i + 1 == all.size() ? " or " : ", ") + std::string(toString(all[i]));
    return names;
}

}  // namespace

SceneRun sceneRun(const SceneOptions& options) {
    return {options.mistake,
            {options.toleranceGiven ? CheckRule::Allclose : CheckRule::RoundingBound,
             options.tolerance}};
}

SceneOptionsParse parseSceneOptions(const std::vector<std::string>& args,
                                    const std::vector<ExtraOption>& extras) {
    SceneOptionsParse parse;
    SceneOptions& options = parse.options;
    LayerConfig& config = options.config;
    std::vector<std::string>& errors = parse.errors;
    std::vector<std::string> given;  // shared option names seen, to check combinations

    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::optional<std::string> inlineValue;
        if (const auto eq = name.find('='); name.starts_with("--") && eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name.resize(eq);
        }
        if (name == "-h")
            name = "--help";

        const SharedOption* shared = findShared(name);
        const auto extra = std::find_if(extras.begin(), extras.end(),
                                        [&](const ExtraOption& e) { return e.name == name; });
        if (!shared && extra == extras.end()) {
            errors.push_back(name.starts_with('-')
                                 ? "unknown option " + quoted(args[i]) + " (see --help)"
                                 : "unexpected argument " + quoted(args[i]));
            continue;
        }
        const bool takesValue = shared ? shared->valueName != nullptr : !extra->valueName.empty();
        std::string value;
        if (takesValue) {
            if (inlineValue) {
                value = *inlineValue;
            } else if (i + 1 < args.size()) {
                value = args[++i];
            } else {
                errors.push_back(name + " needs a value");
                continue;
            }
        } else if (inlineValue) {
            errors.push_back(name + " takes no value");
            continue;
        }
        if (!shared) {
            options.extras[name] = value;
            continue;
        }
        given.push_back(name);

        auto integer = [&](std::int64_t& field) {
            if (const auto parsed = parseInt64(value))
                field = *parsed;
            else
                errors.push_back(name + ": " + quoted(value) +
                                 " is not a whole number in the int64 range");
        };
        if (name == "--batch")
            integer(config.batch);
        else if (name == "--in-dim")
            integer(config.inDim);
        else if (name == "--features")
            integer(config.features);
        else if (name == "--tp")
            integer(config.tpSize);
        else if (name == "--seed")
            integer(config.seed);
        else if (name == "--mode") {
            if (const auto mode = parseParallelMode(value))
                config.mode = *mode;
            else
                errors.push_back("--mode: " + quoted(value) + " is not column or row");
        } else if (name == "--prng") {
            if (const auto layout = parsePrngLayout(value))
                config.prng = *layout;
            else
                errors.push_back("--prng: " + quoted(value) + " is not partitionable or legacy");
        } else if (name == "--x64")
            config.x64 = true;
        else if (name == "--bias") {
            if (const auto bias = parseBiasInit(value))
                config.bias = *bias;
            else
                errors.push_back("--bias: " + quoted(value) +
                                 " is not zeros or normal:STDDEV with a finite STDDEV above 0");
        } else if (name == "--example") {
            if (value == "brief")
                options.source = SceneSource::Brief;
            else
                errors.push_back("--example: " + quoted(value) + " is not brief");
        } else if (name == "--mistake") {
            if (const auto mistake = parseMistake(value))
                options.mistake = *mistake;
            else
                errors.push_back("--mistake: " + quoted(value) + " is not " + mistakeNames());
        } else if (name == "--json")
            options.json = true;
        else if (name == "--rtol" || name == "--atol") {
            double& field = name == "--rtol" ? options.tolerance.rtol : options.tolerance.atol;
            options.toleranceGiven = true;
            const auto [end, ec] =
                std::from_chars(value.data(), value.data() + value.size(), field);
            if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(field) ||
                field < 0)
                errors.push_back(name + ": " + quoted(value) + " is not a number >= 0");
        } else if (name == "--summary")
            options.summary = true;
        else if (name == "--python")
            options.python = true;
        else if (name == "--help")
            options.help = true;
    }
    if (options.help)
        return parse;

    auto wasGiven = [&](std::string_view name) {
        return std::find(given.begin(), given.end(), name) != given.end();
    };
    if (options.source == SceneSource::Brief) {
        for (const char* fixed : {"--batch", "--in-dim", "--features", "--seed", "--prng", "--x64",
                                  "--bias", "--python"})
            if (wasGiven(fixed))
                errors.push_back(std::string(fixed) +
                                 " does not apply to --example brief: the brief's arrays are fixed "
                                 "(only --tp and --mode can change)");
        const LayerConfig brief = briefExampleConfig();
        config.batch = brief.batch;
        config.inDim = brief.inDim;
        config.features = brief.features;
        if (!wasGiven("--tp"))
            config.tpSize = brief.tpSize;
    }
    if (options.python && (options.json || options.summary))
        errors.push_back(
            "--python prints a script; it cannot be combined with --json or --summary");

    for (const ConfigProblem& problem : config.validate())
        errors.push_back(problem.message);
    for (const ConfigProblem& problem :
         mistakeProblems(config, options.mistake, options.source == SceneSource::Nnx))
        errors.push_back(problem.message);
    return parse;
}

std::string sceneOptionsHelp(const std::vector<ExtraOption>& extras) {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const SharedOption& o : kSharedOptions)
        rows.emplace_back(std::string(o.name) + (o.valueName ? std::string(" ") + o.valueName : ""),
                          o.help);
    for (const ExtraOption& e : extras)
        rows.emplace_back(e.name + (e.valueName.empty() ? "" : " " + e.valueName), e.help);
    // The mistakes, one line each, under --mistake.
    const auto mistakeRow = std::find_if(
        rows.begin(), rows.end(), [](const auto& r) { return r.first.starts_with("--mistake"); });
    std::vector<std::pair<std::string, std::string>> mistakes;
    for (const Mistake m : allMistakes())
        mistakes.emplace_back("    " + std::string(toString(m)), mistakeDescription(m));
    rows.insert(mistakeRow + 1, mistakes.begin(), mistakes.end());
    std::size_t width = 0;
    for (const auto& row : rows)
        width = std::max(width, row.first.size());
    std::string text;
    for (const auto& [left, right] : rows) {
        text += "  " + left + std::string(width - left.size() + 2, ' ') + right + "\n";
    }
    return text;
}

}  // namespace tp
