#include "scene/option_rows.h"

#include "io/file_text.h"
#include "io/hardware_file.h"
#include "layer/float_format.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>

namespace tp {
namespace {

// The help says "(default X)" with X read from LayerConfig{} or Tolerance{}, so the text cannot
// drift from the structs.
template <std::int64_t LayerConfig::*field>
std::string defaultNumber() {
    return std::to_string(LayerConfig{}.*field);
}

template <std::int64_t LayerConfig::*field>
std::string readNumber(const std::string& value, SceneOptions& options) {
    const auto parsed = parseInt64(value);
    if (!parsed)
        return quotedText(value) + " is not a whole number in the int64 range";
    options.config.*field = *parsed;
    return "";
}

// Spelled always: a scene file's value is overridden by the same value.
template <std::int64_t LayerConfig::*field>
std::vector<std::string> spellNumber(const SceneOptions& options) {
    return {std::to_string(options.config.*field)};
}

// The brief's scene fixes its sizes and arrays: --example brief spells them.
template <std::int64_t LayerConfig::*field>
std::vector<std::string> spellUnlessBrief(const SceneOptions& options) {
    if (options.source == SceneSource::Brief)
        return {};
    return spellNumber<field>(options);
}

template <bool SceneOptions::*field>
std::string setFlag(const std::string&, SceneOptions& options) {
    options.*field = true;
    return "";
}

std::vector<std::string> flagIf(bool on) {
    return on ? std::vector<std::string>{""} : std::vector<std::string>{};
}

template <bool SceneOptions::*field>
std::vector<std::string> spellFlag(const SceneOptions& options) {
    return flagIf(options.*field);
}

std::vector<std::string> spellIf(bool given, const std::string& value) {
    return given ? std::vector<std::string>{value} : std::vector<std::string>{};
}

// The options whose value is only a path: an empty one names no file (or folder).
std::string readPath(const std::string& value, std::string& path, const char* what = "file") {
    if (value.empty())
        return std::string("an empty path names no ") + what;
    path = value;
    return "";
}

// A --bias value that names an array file rather than an init.
bool namesArrayFile(const std::string& value) {
    return value.ends_with(".npy") || splitArraySpec(value).tensor.has_value();
}

std::string readBias(const std::string& value, SceneOptions& options) {
    if (namesArrayFile(value)) {
        options.files.bias = value;
        return "";
    }
    constexpr std::string_view normal = "normal:";
    if (const auto bias = parseBiasInit(value))
        options.config.bias = *bias;
    else if (value.starts_with(normal))
        return biasStddevProblem(value.substr(normal.size()));
    else
        return quotedText(value) +
               " is not zeros or normal:STDDEV, nor an array file (FILE.npy or "
               "FILE.safetensors:TENSOR)";
    return "";
}

std::vector<std::string> spellBias(const SceneOptions& options) {
    std::vector<std::string> values;
    if (options.source != SceneSource::Brief)
        values.push_back(toString(options.config.bias));
    if (!options.files.bias.empty())
        values.push_back(options.files.bias);
    return values;
}

std::string readHardware(const std::string& value, SceneOptions& options) {
    if (value == "list") {
        options.listHardware = true;
    } else if (const HardwarePreset* preset = findHardware(value)) {
        options.hardware = preset;
    } else if (value.ends_with(".json")) {
        const HardwareFileRead read = readHardwareFile(value);
        if (!read.preset) {
            std::string problems;
            for (const std::string& problem : read.problems)
                problems += (problems.empty() ? "" : "; ") + problem;
            return problems;
        }
        options.hardwarePath = value;
        options.hardwareFromFile = std::make_shared<const HardwarePreset>(*read.preset);
        options.hardware = options.hardwareFromFile.get();
    } else {
        std::string names;
        for (const HardwarePreset& p : hardwarePresets())
            names += (names.empty() ? "" : ", ") + std::string(p.name);
        return quotedText(value) + " is not a preset; choose one of " + names +
               " (--hardware list shows their figures), or a FILE.json of a preset's figures";
    }
    return "";
}

std::vector<std::string> spellHardware(const SceneOptions& options) {
    std::vector<std::string> values;
    if (options.hardwareFromFile)
        values.push_back(options.hardwarePath);
    else if (options.hardware != &defaultHardware())
        values.emplace_back(options.hardware->name);
    if (options.listHardware)
        values.emplace_back("list");
    return values;
}

// "none, sum-groups, ... or slice-x"
std::string mistakeNames() {
    std::string names = "none";
    const auto& all = allMistakes();
    for (std::size_t i = 0; i < all.size(); ++i)
        names += std::string(i + 1 == all.size() ? " or " : ", ") + std::string(toString(all[i]));
    return names;
}

template <double Tolerance::*field>
std::string readTolerance(const std::string& value, SceneOptions& options) {
    options.toleranceGiven = true;
    std::string why;
    const std::optional<double> tolerance = parseTolerance(value, &why);
    if (!tolerance)
        return quotedText(value) + " " + why;
    options.tolerance.*field = *tolerance;
    return "";
}

// Exact (shortest round-trip form), so that parsing it gives the same bits.
template <double Tolerance::*field>
std::vector<std::string> spellTolerance(const SceneOptions& options) {
    return spellIf(options.toleranceGiven, formatDouble(options.tolerance.*field));
}

const OptionRow kOptionRows[] = {
    {.option = Option::Batch,
     .name = "--batch",
     .valueName = "N",
     .help = "batch size N, rows of x",
     .defaultText = defaultNumber<&LayerConfig::batch>,
     .fixedByBrief = true,
     .parse = readNumber<&LayerConfig::batch>,
     .spell = spellUnlessBrief<&LayerConfig::batch>},
    {.option = Option::InDim,
     .name = "--in-dim",
     .valueName = "D",
     .help = "in_dim, rows of the kernel",
     .defaultText = defaultNumber<&LayerConfig::inDim>,
     .fixedByBrief = true,
     .parse = readNumber<&LayerConfig::inDim>,
     .spell = spellUnlessBrief<&LayerConfig::inDim>},
    {.option = Option::Features,
     .name = "--features",
     .valueName = "F",
     .help = "features, columns of the kernel",
     .defaultText = defaultNumber<&LayerConfig::features>,
     .fixedByBrief = true,
     .parse = readNumber<&LayerConfig::features>,
     .spell = spellUnlessBrief<&LayerConfig::features>},
    {.option = Option::Tp,
     .name = "--tp",
     .valueName = "T",
     .help = "tp_size, the number of groups",
     .defaultText = defaultNumber<&LayerConfig::tpSize>,
     .helpTail = "; must divide the split dimension",
     .parse = readNumber<&LayerConfig::tpSize>,
     .spell = spellNumber<&LayerConfig::tpSize>},
    {.option = Option::Seed,
     .name = "--seed",
     .valueName = "S",
     .help = "nnx.Rngs(seed), any int64",
     .defaultText = defaultNumber<&LayerConfig::seed>,
     .fixedByBrief = true,
     .parse = readNumber<&LayerConfig::seed>,
     .spell = spellUnlessBrief<&LayerConfig::seed>},
    {.option = Option::Mode,
     .name = "--mode",
     .valueName = "column|row",
     .help = "split output columns or input rows",
     .defaultText = [] { return std::string(toString(LayerConfig{}.mode)); },
     .parse = [](const std::string& value, SceneOptions& options) -> std::string {
         const auto mode = parseParallelMode(value);
         if (!mode)
             return quotedText(value) + " is not column or row";
         options.config.mode = *mode;
         return "";
     },
     .spell = [](const SceneOptions& options) -> std::vector<std::string> {
         // The MLP block has no mode: it is split the Megatron way.
         return spellIf(options.config.block == Block::Linear,
                        std::string(toString(options.config.mode)));
     }},
    {.option = Option::Prng,
     .name = "--prng",
     .valueName = "partitionable|legacy",
     .help = "JAX threefry bit layout",
     .defaultText = [] { return std::string(toString(LayerConfig{}.prng)); },
     .fixedByBrief = true,
     .parse = [](const std::string& value, SceneOptions& options) -> std::string {
         const auto layout = parsePrngLayout(value);
         if (!layout)
             return quotedText(value) + " is not partitionable or legacy";
         options.config.prng = *layout;
         return "";
     },
     .spell =
         [](const SceneOptions& options) {
             return spellIf(options.source != SceneSource::Brief,
                            std::string(toString(options.config.prng)));
         }},
    {.option = Option::X64,
     .name = "--x64",
     .help = "seed -> key as with jax_enable_x64",
     .fixedByBrief = true,
     .parse = [](const std::string&, SceneOptions& options) -> std::string {
         options.config.x64 = true;
         return "";
     },
     .spell =
         [](const SceneOptions& options) {
             return flagIf(options.source != SceneSource::Brief && options.config.x64);
         }},
    {.option = Option::Bias,
     .name = "--bias",
     .valueName = "zeros|normal:STDDEV|FILE",
     .help = "bias init",
     .defaultText = [] { return toString(LayerConfig{}.bias); },
     .helpTail = ", or the bias from FILE.npy or FILE.safetensors:TENSOR",
     .fixedByBrief = true,
     .parse = readBias,
     .spell = spellBias},
    {.option = Option::Example,
     .name = "--example",
     .valueName = "brief",
     .help = "use the worked example (x [[1, 2]], a 2x4 kernel, tp 2) instead of an NNX layer",
     .parse = [](const std::string& value, SceneOptions& options) -> std::string {
         if (value != "brief")
             return quotedText(value) + " is not brief";
         options.source = SceneSource::Brief;
         return "";
     },
     .spell =
         [](const SceneOptions& options) {
             return spellIf(options.source == SceneSource::Brief, "brief");
         }},
    {.option = Option::Data,
     .name = "--data",
     .valueName = "D",
     .help = "devices on the mesh's data axis, each with N / D batch rows",
     .defaultText = defaultNumber<&LayerConfig::dataSize>,
     .parse = readNumber<&LayerConfig::dataSize>,
     .spell = spellNumber<&LayerConfig::dataSize>},
    {.option = Option::Output,
     .name = "--output",
     .valueName = "sharded|replicated",
     .help = "output layout over the model axis (default sharded in column mode, replicated in row "
             "mode)",
     .parse = [](const std::string& value, SceneOptions& options) -> std::string {
         const auto layout = parseOutputLayout(value);
         if (!layout)
             return quotedText(value) + " is not sharded or replicated";
         options.config.output = *layout;
         return "";
     },
     .spell =
         [](const SceneOptions& options) {
             const auto& output = options.config.output;
             return spellIf(output.has_value(), output ? std::string(toString(*output)) : "");
         }},
    {.option = Option::Block,
     .name = "--block",
     .valueName = "linear|mlp",
     .help = "what runs: one nnx.Linear, or the Megatron MLP block linear1 -> GeLU -> linear2 "
             "(linear1 column-parallel, linear2 row-parallel over the hidden features, one "
             "all-reduce; its output defaults to in_dim features)",
     .defaultText = [] { return std::string(toString(LayerConfig{}.block)); },
     .fixedByBrief = true,
     .parse = [](const std::string& value, SceneOptions& options) -> std::string {
         const auto block = parseBlock(value);
         if (!block)
             return quotedText(value) + " is not linear or mlp";
         options.config.block = *block;
         return "";
     },
     .spell = [](const SceneOptions& options) -> std::vector<std::string> {
         return spellIf(options.config.block != Block::Linear,
                        std::string(toString(options.config.block)));
     }},
    {.option = Option::Hidden,
     .name = "--hidden",
     .valueName = "H",
     .help = "with --block mlp: the hidden width, linear1's features and linear2's in_dim "
             "(default 4 x in_dim); tp_size (default 4 with the block) must divide it",
     .fixedByBrief = true,
     .parse = readNumber<&LayerConfig::hidden>,
     .spell = [](const SceneOptions& options) -> std::vector<std::string> {
         return spellIf(options.config.block == Block::Mlp, std::to_string(options.config.hidden));
     }},
    {.option = Option::Layout,
     .name = "--layout",
     .valueName = "tensor|fsdp|sequence",
     .help = "where one Linear's arrays rest on the data x model mesh: tensor parallelism alone, "
             "fsdp (each kernel block split again over data and all-gathered before use) or "
             "sequence (the activations split over model along the batch rows); --costs shows "
             "its collectives and each array's bytes at rest and at peak, --python its JAX "
             "script",
     .defaultText = [] { return std::string(toString(LayerConfig{}.layout)); },
     .cliOnly = true,
     .parse = [](const std::string& value, SceneOptions& options) -> std::string {
         const auto layout = parseShardingLayout(value);
         if (!layout)
             return quotedText(value) + " is not tensor, fsdp or sequence";
         options.config.layout = *layout;
         return "";
     },
     .spell = [](const SceneOptions& options) -> std::vector<std::string> {
         // Only beside what reads it: a scene file's layout without --costs or --python is
         // that file's, and stays there.
         return spellIf(
             options.config.layout != ShardingLayout::Tensor && (options.costs || options.python),
             std::string(toString(options.config.layout)));
     }},
    {.option = Option::Costs,
     .name = "--costs",
     .help = "add each device's bytes and FLOPs, the collective and a time estimate",
     .cliOnly = true,
     .parse = setFlag<&SceneOptions::costs>,
     .spell = spellFlag<&SceneOptions::costs>},
    {.option = Option::Hardware,
     .name = "--hardware",
     .valueName = "NAME|FILE.json|list",
     .help = "hardware of the --costs estimate: a preset, a preset's figures in a JSON file "
             "(as tpviz-mpi --calibrate writes), or list to show the presets",
     .cliOnly = true,
     .parse = readHardware,
     .spell = spellHardware},
    {.option = Option::Kernel,
     .name = "--kernel",
     .valueName = "FILE[:TENSOR]",
     .help = "the kernel (in_dim, features) from FILE.npy or FILE.safetensors:TENSOR; its shape "
             "sets in_dim and features",
     .parse = [](const std::string& value,
                 SceneOptions& options) { return readPath(value, options.files.kernel); },
     .spell =
         [](const SceneOptions& options) {
             return spellIf(!options.files.kernel.empty(), options.files.kernel);
         }},
    {.option = Option::Transpose,
     .name = "--transpose",
     .help = "the --kernel tensor is stored (features, in_dim), as PyTorch's Linear weight",
     .parse = [](const std::string&, SceneOptions& options) -> std::string {
         options.files.transpose = true;
         return "";
     },
     .spell = [](const SceneOptions& options) { return flagIf(options.files.transpose); }},
    {.option = Option::X,
     .name = "--x",
     .valueName = "FILE",
     .help = "x (batch, in_dim) from a file (default: drawn from the seed)",
     .parse = [](const std::string& value,
                 SceneOptions& options) { return readPath(value, options.files.x); },
     .spell =
         [](const SceneOptions& options) {
             return spellIf(!options.files.x.empty(), options.files.x);
         }},
    // Read by parseSceneOptions before every other option, and spelled first.
    {.option = Option::Scene,
     .name = "--scene",
     .valueName = "FILE.tpviz",
     .help = "start from a saved scene; other options override it",
     .parse = [](const std::string& value,
                 SceneOptions& options) { return readPath(value, options.sceneFile); },
     .spell =
         [](const SceneOptions& options) {
             return spellIf(!options.sceneFile.empty(), options.sceneFile);
         }},
    {.option = Option::SaveNpy,
     .name = "--save-npy",
     .valueName = "DIR",
     .help = "also write every array of the scene as .npy files into DIR",
     .cliOnly = true,
     .parse = [](const std::string& value,
                 SceneOptions& options) { return readPath(value, options.saveNpyDir, "folder"); },
     .spell =
         [](const SceneOptions& options) {
             return spellIf(!options.saveNpyDir.empty(), options.saveNpyDir);
         }},
    {.option = Option::Mistake,
     .name = "--mistake",
     .valueName = "NAME",
     .help = "make a common mistake, for real",
     .defaultText = [] { return std::string(toString(Mistake::None)); },
     .helpTail = ":",
     .parse = [](const std::string& value, SceneOptions& options) -> std::string {
         const auto mistake = parseMistake(value);
         if (!mistake)
             return quotedText(value) + " is not " + mistakeNames();
         options.mistake = *mistake;
         return "";
     },
     .spell =
         [](const SceneOptions& options) {
             return spellIf(options.mistake != Mistake::None,
                            std::string(toString(options.mistake)));
         }},
    {.option = Option::Rtol,
     .name = "--rtol",
     .valueName = "R",
     .help = "allclose rtol; giving it makes allclose the verdict",
     .defaultText = [] { return formatDouble(Tolerance{}.rtol); },
     .cliOnly = true,
     .parse = readTolerance<&Tolerance::rtol>,
     .spell = spellTolerance<&Tolerance::rtol>},
    {.option = Option::Atol,
     .name = "--atol",
     .valueName = "A",
     .help = "allclose atol; giving it makes allclose the verdict",
     .defaultText = [] { return formatDouble(Tolerance{}.atol); },
     .cliOnly = true,
     .parse = readTolerance<&Tolerance::atol>,
     .spell = spellTolerance<&Tolerance::atol>},
    {.option = Option::Backward,
     .name = "--backward",
     .help = "add the backward pass: dy drawn after x, each group's gradients, the collectives "
             "and their check",
     .parse = setFlag<&SceneOptions::backward>,
     .spell = spellFlag<&SceneOptions::backward>},
    {.option = Option::Json,
     .name = "--json",
     .help = "print one JSON document",
     .cliOnly = true,
     .parse = setFlag<&SceneOptions::json>,
     .spell = spellFlag<&SceneOptions::json>},
    {.option = Option::Summary,
     .name = "--summary",
     .help = "print only the config, the groups and the verification",
     .cliOnly = true,
     .parse = setFlag<&SceneOptions::summary>,
     .spell = spellFlag<&SceneOptions::summary>},
    {.option = Option::Python,
     .name = "--python",
     .help = "print a runnable JAX/Flax script that builds the same scene (and, with "
             "--backward, its backward pass)",
     .cliOnly = true,
     .fixedByBrief = true,
     .parse = setFlag<&SceneOptions::python>,
     .spell = spellFlag<&SceneOptions::python>},
    {.option = Option::Help,
     .name = "--help",
     .alias = "-h",
     .help = "show this help",
     .parse = setFlag<&SceneOptions::help>,
     .spell = spellFlag<&SceneOptions::help>},
};

}  // namespace

std::span<const OptionRow> optionRows() {
    return kOptionRows;
}

const OptionRow& optionRow(Option option) {
    const auto row = std::find_if(std::begin(kOptionRows), std::end(kOptionRows),
                                  [option](const OptionRow& r) { return r.option == option; });
    assert(row != std::end(kOptionRows));
    return *row;
}

std::string optionName(Option option) {
    return std::string(optionRow(option).name);
}

const OptionRow* findOptionRow(std::string_view name) {
    for (const OptionRow& row : kOptionRows)
        if (name == row.name || (!row.alias.empty() && name == row.alias))
            return &row;
    return nullptr;
}

}  // namespace tp
