#include "scene_options.h"

#include "file_options.h"
#include "file_text.h"
#include "float_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

namespace tp {
namespace {

// A scene option every program shares. The help says "(default X)" with X read from LayerConfig{}
// or Tolerance{}, so the text cannot drift from the structs.
struct SharedOption {
    const char* name;
    const char* valueName = nullptr;  // nullptr for a flag
    const char* help = "";
    std::string (*defaultText)() = nullptr;  // nullptr: no default shown
    const char* helpTail = "";               // after "(default X)"
    bool cliOnly = false;                    // tpviz-cli's report and tolerance options
};

std::string defaultNumber(std::int64_t LayerConfig::*field) {
    return std::to_string(LayerConfig{}.*field);
}

const SharedOption kSharedOptions[] = {
    {.name = "--batch",
     .valueName = "N",
     .help = "batch size N, rows of x",
     .defaultText = [] { return defaultNumber(&LayerConfig::batch); }},
    {.name = "--in-dim",
     .valueName = "D",
     .help = "in_dim, rows of the kernel",
     .defaultText = [] { return defaultNumber(&LayerConfig::inDim); }},
    {.name = "--features",
     .valueName = "F",
     .help = "features, columns of the kernel",
     .defaultText = [] { return defaultNumber(&LayerConfig::features); }},
    {.name = "--tp",
     .valueName = "T",
     .help = "tp_size, the number of groups",
     .defaultText = [] { return defaultNumber(&LayerConfig::tpSize); },
     .helpTail = "; must divide the split dimension"},
    {.name = "--seed",
     .valueName = "S",
     .help = "nnx.Rngs(seed), any int64",
     .defaultText = [] { return defaultNumber(&LayerConfig::seed); }},
    {.name = "--mode",
     .valueName = "column|row",
     .help = "split output columns or input rows",
     .defaultText = [] { return std::string(toString(LayerConfig{}.mode)); }},
    {.name = "--prng",
     .valueName = "partitionable|legacy",
     .help = "JAX threefry bit layout",
     .defaultText = [] { return std::string(toString(LayerConfig{}.prng)); }},
    {.name = "--x64", .help = "seed -> key as with jax_enable_x64"},
    {.name = "--bias",
     .valueName = "zeros|normal:STDDEV|FILE",
     .help = "bias init",
     .defaultText = [] { return toString(LayerConfig{}.bias); },
     .helpTail = ", or the bias from FILE.npy or FILE.safetensors:TENSOR"},
    {.name = "--example",
     .valueName = "brief",
     .help = "use the brief's worked example instead of an NNX layer"},
    {.name = "--data",
     .valueName = "D",
     .help = "devices on the mesh's data axis, each with N / D batch rows",
     .defaultText = [] { return defaultNumber(&LayerConfig::dataSize); }},
    {.name = "--output",
     .valueName = "sharded|replicated",
     .help = "output layout over the model axis (default sharded in column mode, replicated in row "
             "mode)"},
    {.name = "--costs",
     .help = "add each device's bytes and FLOPs, the collective and a time estimate",
     .cliOnly = true},
    {.name = "--hardware",
     .valueName = "NAME|list",
     .help = "hardware of the --costs estimate; list shows the presets",
     .cliOnly = true},
    {.name = "--kernel",
     .valueName = "FILE[:TENSOR]",
     .help = "the kernel (in_dim, features) from FILE.npy or FILE.safetensors:TENSOR; its shape "
             "sets in_dim and features"},
    {.name = "--transpose",
     .help = "the --kernel tensor is stored (features, in_dim), as PyTorch's Linear weight"},
    {.name = "--x",
     .valueName = "FILE",
     .help = "x (batch, in_dim) from a file (default: drawn from the seed)"},
    {.name = "--scene",
     .valueName = "FILE.tpviz",
     .help = "start from a saved scene; other options override it"},
    {.name = "--save-npy",
     .valueName = "DIR",
     .help = "also write every array of the scene as .npy files into DIR",
     .cliOnly = true},
    {.name = "--mistake",
     .valueName = "NAME",
     .help = "make a mistake the brief warns about, for real",
     .defaultText = [] { return std::string(toString(Mistake::None)); },
     .helpTail = ":"},
    {.name = "--rtol",
     .valueName = "R",
     .help = "allclose rtol; giving it makes allclose the verdict",
     .defaultText = [] { return formatDouble(Tolerance{}.rtol); },
     .cliOnly = true},
    {.name = "--atol",
     .valueName = "A",
     .help = "allclose atol; giving it makes allclose the verdict",
     .defaultText = [] { return formatDouble(Tolerance{}.atol); },
     .cliOnly = true},
    {.name = "--backward",
     .help = "add the backward pass: dy drawn after x, each group's gradients, the collectives "
             "and their check",
     .cliOnly = true},
    {.name = "--json", .help = "print one JSON document", .cliOnly = true},
    {.name = "--summary",
     .help = "print only the config, the groups and the verification",
     .cliOnly = true},
    {.name = "--python",
     .help = "print a runnable JAX/Flax script that builds the same scene",
     .cliOnly = true},
    {.name = "--help", .help = "show this help"},
};

const SharedOption* findShared(std::string_view name) {
    for (const SharedOption& option : kSharedOptions)
        if (name == option.name)
            return &option;
    return nullptr;
}

std::string quoted(std::string_view text) {
    return quotedText(text);
}

// The mesh options: --data, --output, --costs, --hardware. Returns false for any other option.
bool parseMeshOption(const std::string& name, const std::string& value, SceneOptions& options,
                     std::vector<std::string>& errors) {
    if (name == "--data") {
        if (const auto data = parseInt64(value))
            options.config.dataSize = *data;
        else
            errors.push_back("--data: " + quoted(value) +
                             " is not a whole number in the int64 range");
    } else if (name == "--output") {
        if (const auto layout = parseOutputLayout(value))
            options.config.output = *layout;
        else
            errors.push_back("--output: " + quoted(value) + " is not sharded or replicated");
    } else if (name == "--costs") {
        options.costs = true;
    } else if (name == "--hardware") {
        if (value == "list") {
            options.listHardware = true;
        } else if (const HardwarePreset* preset = findHardware(value)) {
            options.hardware = preset;
        } else {
            std::string names;
            for (const HardwarePreset& p : hardwarePresets())
                names += (names.empty() ? "" : ", ") + std::string(p.name);
            errors.push_back("--hardware: " + quoted(value) + " is not a preset; choose one of " +
                             names + " (--hardware list shows their figures)");
        }
    } else {
        return false;
    }
    return true;
}

// --- The command line as options and their values ---------------------------------------------

// One option as given: its name (after "-h" -> "--help"), its value ("" for a flag), and which
// table it is in (shared, or one of the program's extras); or, with `error` set, an argument that
// is not a well-formed option.
struct GivenOption {
    std::string name;
    std::string value;
    const SharedOption* shared = nullptr;
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
        if (name == "-h")
            name = "--help";

        const SharedOption* shared = findShared(name);
        const auto extra = std::find_if(extras.begin(), extras.end(),
                                        [&](const ExtraOption& e) { return e.name == name; });
        if (!shared && extra == extras.end()) {
            refuse(name.starts_with('-') ? "unknown option " + quoted(args[i]) + " (see --help)"
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
                refuse(name + " needs a value");
                continue;
            }
        } else if (inlineValue) {
            refuse(name + " takes no value");
            continue;
        }
        split.push_back({std::move(name), std::move(value), shared, std::string()});
    }
    return split;
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

SceneRequest sceneRequest(const SceneOptions& options) {
    return {options.config, options.source, sceneRun(options), options.files, {}};
}

SceneOptionsParse parseSceneOptions(const std::vector<std::string>& args,
                                    const std::vector<ExtraOption>& extras) {
    SceneOptionsParse parse;
    SceneOptions& options = parse.options;
    LayerConfig& config = options.config;
    std::vector<std::string>& errors = parse.errors;
    std::vector<std::string> given;  // shared option names seen, to check combinations
    const std::vector<GivenOption> givenOptions = splitOptions(args, extras);
    // The scene file first, so that the other options override it. Found among the parsed
    // options, so that "--scene" as another option's value is that option's value.
    std::string sceneFile;
    for (const GivenOption& option : givenOptions)
        if (option.error.empty() && option.name == "--scene")
            sceneFile = option.value;
    const SceneOrigin scene = applySceneFile(sceneFile, options, errors);

    for (const GivenOption& option : givenOptions) {
        if (!option.error.empty()) {
            errors.push_back(option.error);
            continue;
        }
        const std::string& name = option.name;
        const std::string& value = option.value;
        const SharedOption* shared = option.shared;
        if (!shared) {
            options.extras[name] = value;
            continue;
        }
        given.push_back(name);
        if (shared->cliOnly)
            options.cliOnlyGiven.push_back(name);
        if (parseMeshOption(name, value, options, errors))
            continue;

        auto integer = [&](std::int64_t& field) {
            if (const auto parsed = parseInt64(value))
                field = *parsed;
            else
                errors.push_back(name + ": " + quoted(value) +
                                 " is not a whole number in the int64 range");
        };
        if (parseFileOption(name, value, options, errors))
            continue;
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
            constexpr std::string_view normal = "normal:";
            if (const auto bias = parseBiasInit(value))
                config.bias = *bias;
            else if (value.starts_with(normal))
                errors.push_back("--bias: " + biasStddevProblem(value.substr(normal.size())));
            else
                errors.push_back("--bias: " + quoted(value) +
                                 " is not zeros or normal:STDDEV, nor an array file (FILE.npy or "
                                 "FILE.safetensors:TENSOR)");
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
        else if (name == "--backward")
            options.backward = true;
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
    if (options.help || options.listHardware)
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

    if (wasGiven("--hardware") && !options.costs)
        errors.push_back("--hardware sets the hardware of the --costs estimate; add --costs");
    if (options.costs && options.python)
        errors.push_back("--costs adds to a report; it cannot be combined with --python");
    if (options.backward && (options.python || options.mistake != Mistake::None))
        errors.push_back(options.python ? "--backward adds to a report; it cannot be combined with "
                                          "--python"
                                        : "--backward differentiates a correct split; the mistakes "
                                          "are the forward pass's and cannot be combined with it");
    if (options.costs && options.mistake != Mistake::None)
        errors.push_back(
            "--costs shows the devices of a correct split; it cannot be combined "
            "with --mistake");

    // Sizes from files that could not be read are unknown: judging the config would mislead.
    if (!loadFiles(options, given, scene, errors))
        return parse;
    const bool sizedByFiles = options.files.any();
    for (ConfigProblem& problem : sceneProblems(sceneRequest(options))) {
        problem.message = problemText(problem, scene, given, sizedByFiles);
        errors.push_back(problem.message);
        parse.problems.push_back(std::move(problem));
    }
    return parse;
}

std::string hardwareListText() {
    std::string text;
    for (const HardwarePreset& p : hardwarePresets()) {
        char figures[96];
        std::snprintf(figures, sizeof figures, "%.4g TFLOP/s, %.4g GB/s", p.peakFlops / 1e12,
                      p.linkBytesPerSecond / 1e9);
        text += std::string(p.name) + (&p == &defaultHardware() ? " (default)" : "") + ": " +
                figures + ". " + std::string(p.description) + "\n";
    }
    return text;
}

std::string sceneOptionsHelp(const std::vector<ExtraOption>& extras, OptionsFor program) {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const SharedOption& o : kSharedOptions) {
        if (o.cliOnly && program != OptionsFor::Cli)
            continue;
        std::string help = o.help;
        if (o.defaultText)
            help += " (default " + o.defaultText() + ")";
        help += o.helpTail;
        rows.emplace_back(std::string(o.name) + (o.valueName ? std::string(" ") + o.valueName : ""),
                          help);
    }
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

std::vector<std::string> cliOnlyOptions() {
    std::vector<std::string> names;
    for (const SharedOption& o : kSharedOptions)
        if (o.cliOnly)
            names.push_back(o.name);
    return names;
}

std::vector<std::string> sceneOptionNames() {
    std::vector<std::string> names;
    for (const SharedOption& o : kSharedOptions)
        names.push_back(o.name);
    return names;
}

}  // namespace tp
