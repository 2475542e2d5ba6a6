// Fuzzes the scene's command-line options (tp::parseSceneOptions) with arbitrary argument lists.
//
// Input: the arguments, separated by '\n' (a final '\n' ends the last argument rather than
// starting an empty one; every other byte, NUL included, belongs to an argument). Any parse result
// is fine; a crash, a sanitizer report or a broken invariant is a bug. The invariants:
//   - every error is a non-empty message;
//   - when the arguments parse without errors and without --help or --hardware list (which skip
//     validation), the config is valid (config.validate() is empty), and the options round-trip
//     through their spellings: the arguments tp::sceneArguments rebuilds from the parsed options,
//     every row of the option table, once as separate words and once as --name=value, parse again
//     without errors to the same config and the same spelling, bit for bit.

#include "scene/scene_arguments.h"
#include "scene/scene_options.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
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

// The same options as the rows spell them (sceneArguments: every row's setting, numbers in their
// shortest exact forms, and the extras) and the same config: what a new row parses, it spells,
// so it is compared without an edit here.
bool sameOptions(const tp::SceneOptions& a, const tp::SceneOptions& b) {
    return a.config == b.config && tp::sceneArguments(a, kExtras) == tp::sceneArguments(b, kExtras);
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
    for (const tp::ValueSpelling spelling :
         {tp::ValueSpelling::Separate, tp::ValueSpelling::Inline}) {
        const std::vector<std::string> rebuilt =
            tp::sceneArguments(parse.options, kExtras, spelling);
        const tp::SceneOptionsParse again = tp::parseSceneOptions(rebuilt, kExtras);
        require(again.errors.empty(), "the rebuilt arguments do not parse", args, rebuilt);
        require(sameOptions(again.options, parse.options),
                "the rebuilt arguments parse to other options", args, rebuilt);
    }
    return 0;
}
