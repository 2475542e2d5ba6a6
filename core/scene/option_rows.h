#pragma once

// The scene's command-line options as a table: one row per option with its name, its help, the
// programs that take it, how its value is read into SceneOptions and how SceneOptions spell it
// back. parseSceneOptions, sceneOptionsHelp, sceneOptionNames, cliOnlyOptions and sceneArguments
// all read these rows; a new option is a new row.

#include "scene/scene_options.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// Each shared option, to name a row in code (the rules that combine options, the scene file's
/// keys) without writing its name again.
enum class Option {
    Batch,
    InDim,
    Features,
    Tp,
    Seed,
    Mode,
    Prng,
    X64,
    Bias,
    Example,
    Data,
    Output,
    Block,
    Hidden,
    Layout,
    Costs,
    Hardware,
    Kernel,
    Transpose,
    X,
    Scene,
    SaveNpy,
    Mistake,
    Rtol,
    Atol,
    Backward,
    Json,
    Summary,
    Python,
    Help,
};

/// Reads an option's value ("" for a flag) into the options. Returns "" or the problem in words
/// that follow "NAME: ", e.g. "'x' is not a whole number in the int64 range".
using OptionParse = std::string (*)(const std::string& value, SceneOptions& options);

/// The values that spell the options' setting of this option, each one "NAME VALUE" (one "" for
/// a flag that is on); none when the setting is the default and the scene does not need it.
using OptionSpell = std::vector<std::string> (*)(const SceneOptions& options);

struct OptionRow {
    Option option;
    std::string_view name;            ///< with dashes, e.g. "--batch"
    std::string_view alias = {};      ///< another spelling, e.g. "-h"; empty for none
    std::string_view valueName = {};  ///< e.g. "N"; empty for a flag
    std::string_view help = {};
    std::string (*defaultText)() = nullptr;  ///< "(default X)" after the help; nullptr for none
    std::string_view helpTail = {};          ///< after "(default X)"
    bool cliOnly = false;  ///< only tpviz-cli (and tpviz-mpi) take it: the report and tolerances
    bool fixedByBrief = false;  ///< refused with --example brief, whose arrays are fixed
    OptionParse parse = nullptr;
    OptionSpell spell = nullptr;

    bool takesValue() const { return !valueName.empty(); }
    bool takenBy(OptionsFor program) const { return program == OptionsFor::Cli || !cliOnly; }
};

/// Every shared option, in help order.
std::span<const OptionRow> optionRows();

/// The row of `option`.
const OptionRow& optionRow(Option option);

/// The name of `option`, e.g. "--batch".
std::string optionName(Option option);

/// The row whose name or alias is `name`; nullptr for none.
const OptionRow* findOptionRow(std::string_view name);

}  // namespace tp
