// Fuzzes the scene's command-line options (tp::parseSceneOptions) with arbitrary argument lists.
//
// Input: the arguments, separated by '\n' (a final '\n' ends the last argument rather than
// starting an empty one; every other byte, NUL included, belongs to an argument). Any parse result
// is fine; a crash, a sanitizer report or a broken invariant is a bug. The invariants:
//   - every error is a non-empty message;
//   - when the arguments parse without errors and without --help (which skips validation), the
//     config is valid (config.validate() is empty), and the options round-trip through their
//     spellings: the arguments rebuilt from the parsed options, once as separate words and once as
//     --name=value, parse again without errors to the same options, bit for bit.

#include "scene_arguments.h"
#include "scene_options.h"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

// Extras as a program adds them (tpviz adds --screenshot FILE and --step K): one that takes a value
// and one flag, so that both paths through the parser are fuzzed.
const std::vector<tp::ExtraOption> kExtras = {
    {"--screenshot", "FILE", "render and save a picture"},
    {"--quiet", "", "print nothing"},
};

std::vector<std::string> splitArguments(std::string_view input) {
    std::vector<std::string> args;
    while (!input.empty()) {
        const auto newline = input.find('\n');
        args.emplace_back(input.substr(0, newline));
        if (newline == std::string_view::npos)
            break;
        input.remove_prefix(newline + 1);
    }
    return args;
}

void printArguments(const char* label, const std::vector<std::string>& args) {
    std::fprintf(stderr, "  %s:", label);
    for (const std::string& arg : args)
        std::fprintf(stderr, " '%s'", arg.c_str());
    std::fprintf(stderr, "\n");
}

void require(bool holds, const char* what, const std::vector<std::string>& args,
             const std::vector<std::string>& rebuilt = {}) {
    if (holds)
        return;
    std::fprintf(stderr, "fuzz_scene_options: %s\n", what);
    printArguments("arguments", args);
    if (!rebuilt.empty())
        printArguments("rebuilt arguments", rebuilt);
    std::abort();
}

// The options as the core spells them back (tp::spellSceneOptions), then the extras given.
std::vector<tp::SpelledOption> spell(const tp::SceneOptions& options) {
    std::vector<tp::SpelledOption> spelled = tp::spellSceneOptions(options);
    for (const tp::ExtraOption& extra : kExtras) {
        const auto given = options.extras.find(extra.name);
        if (given == options.extras.end())
            continue;
        if (extra.valueName.empty())
            spelled.push_back({extra.name, std::nullopt});
        else
            spelled.push_back({extra.name, given->second});
    }
    return spelled;
}

std::vector<std::string> arguments(const tp::SceneOptions& options, bool inlineValues) {
    std::vector<std::string> args;
    for (const auto& [name, value] : spell(options)) {
        if (!value) {
            args.push_back(name);
        } else if (inlineValues) {
            args.push_back(name + "=" + *value);
        } else {
            args.push_back(name);
            args.push_back(*value);
        }
    }
    return args;
}

bool sameOptions(const tp::SceneOptions& a, const tp::SceneOptions& b) {
    return a.config == b.config && a.source == b.source && a.json == b.json &&
           a.summary == b.summary && a.python == b.python && a.help == b.help &&
           std::bit_cast<std::uint64_t>(a.tolerance.rtol) ==
               std::bit_cast<std::uint64_t>(b.tolerance.rtol) &&
           std::bit_cast<std::uint64_t>(a.tolerance.atol) ==
               std::bit_cast<std::uint64_t>(b.tolerance.atol) &&
           a.toleranceGiven == b.toleranceGiven && a.mistake == b.mistake && a.costs == b.costs &&
           a.hardware == b.hardware && a.extras == b.extras;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::string> args =
        splitArguments({reinterpret_cast<const char*>(data), size});
    const tp::SceneOptionsParse parse = tp::parseSceneOptions(args, kExtras);
    for (const std::string& error : parse.errors)
        require(!error.empty(), "an error message is empty", args);
    if (!parse.errors.empty() || parse.options.help || parse.options.listHardware)
        return 0;

    require(parse.options.config.validate().empty(),
            "parsed without errors, but the config does not validate", args);
    // The rebuilt arguments spell the layer, mesh, check and report options; the file options are
    // not rebuilt (a scene read from files is spelled by its sizes), so a run that gives one of
    // them stops at validation.
    for (const std::string& arg : args)
        for (const char* later : {"--kernel", "--transpose", "--x", "--scene", "--save-npy"})
            if (arg == later || arg.starts_with(std::string(later) + "="))
                return 0;
    for (const bool inlineValues : {false, true}) {
        const std::vector<std::string> rebuilt = arguments(parse.options, inlineValues);
        const tp::SceneOptionsParse again = tp::parseSceneOptions(rebuilt, kExtras);
        require(again.errors.empty(), "the rebuilt arguments do not parse", args, rebuilt);
        require(sameOptions(again.options, parse.options),
                "the rebuilt arguments parse to other options", args, rebuilt);
    }
    return 0;
}
