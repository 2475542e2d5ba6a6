// tpviz-cli: the command-line face of the core, for scripting and for checking the app's numbers.

#include "io/standard_output.h"
#include "layer/verification.h"
#include "nnx/jax_random.h"
#include "scene/mlp_report.h"
#include "scene/option_rows.h"
#include "scene/python_snippet.h"
#include "scene/report.h"
#include "scene/scene.h"
#include "scene/scene_arrays.h"
#include "scene/scene_backward.h"
#include "scene/scene_options.h"
#include "scene/scene_request.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace {

// Prints the finished output (a text, or what a writer streams); a failure to write it (a full
// disk, a closed pipe) is exit 2 with the reason, never success.
template <typename Output>
int print(const Output& output, int status) {
    std::string error = tp::writeStandardOutput(output);
    if (error.empty())
        error = tp::finishStandardOutput();
    if (error.empty())
        return status;
    std::cerr << "tpviz-cli: " << error << '\n';
    return 2;
}

// The MLP block's arrays when asked, and its report; the exit status.
int reportMlp(const tp::Scene& scene, const tp::SceneOptions& options) {
    if (!options.saveNpyDir.empty())
        if (const std::string error = tp::saveSceneArrays(scene, options.saveNpyDir, nullptr);
            !error.empty()) {
            std::cerr << "tpviz-cli: --save-npy: " << error << '\n';
            return 2;
        }
    const int status = scene.passed() ? 0 : 1;
    if (options.json)
        return print(
            [&](std::ostream& out) {
                tp::writeMlpJsonReport(out, scene, options.summary, options.costs);
            },
            status);
    return print(tp::mlpTextReport(scene, options.summary, options.costs), status);
}

// Computes the scene the options describe, writes its arrays when asked and prints its report;
// the exit status.
int computeAndReport(tp::SceneOptions& options) {
    tp::SceneRequest request = tp::sceneRequest(options);
    request.arrays = std::move(options.arrays);
    const std::optional<tp::Scene> scene = tp::computeScene(std::move(request));
    std::optional<tp::SceneCosts> costs;
    if (options.costs && !scene->mlp) {
        try {
            costs = tp::computeSceneCosts(*scene, *options.hardware, tp::sceneRun(options).check);
        } catch (const std::bad_alloc&) {
            const std::int64_t ring = tp::ringRunBytes(options.config);
            std::cerr << "tpviz-cli: not enough memory for the costs of this scene: the ring's "
                         "run on the devices' buffers needs "
                      << tp::formatBytes(ring) << " (" << ring
                      << " bytes) beside the scene and an allocation failed; leave out --costs "
                         "or choose smaller sizes\n";
            return 2;
        }
    }
    const tp::SceneCosts* shownCosts = costs ? &*costs : nullptr;
    const bool collectiveOk = !costs || costs->ringsPassed();
    const tp::SceneBackward* shownBackward = scene->backward.get();
    if (scene->mlp)
        return reportMlp(*scene, options);
    if (!options.saveNpyDir.empty()) {
        if (const std::string error =
                tp::saveSceneArrays(*scene, options.saveNpyDir, shownBackward);
            !error.empty()) {
            std::cerr << "tpviz-cli: --save-npy: " << error << '\n';
            return 2;
        }
    }
    const bool backwardOk = !shownBackward || shownBackward->passed();
    const int status = scene->verification.passed() && collectiveOk && backwardOk ? 0 : 1;
    if (options.json)
        return print(
            [&](std::ostream& out) {
                tp::writeJsonReport(out, *scene, options.summary, shownCosts, {}, shownBackward);
            },
            status);
    return print(tp::textReport(*scene, options.summary, shownCosts, shownBackward), status);
}

}  // namespace

int main(int argc, char** argv) {
    if (const std::string problem = tp::standardOutputProblem(); !problem.empty()) {
        std::cerr << "tpviz-cli: " << problem << '\n';
        return 2;
    }
    const std::vector<std::string> args(argv + 1, argv + argc);
    const std::vector<tp::ExtraOption> extras = {tp::versionOption()};
    if (std::find(args.begin(), args.end(), extras.front().name) != args.end())
        return print(std::string("tpviz-cli ") + TPVIZ_VERSION + '\n' + tp::simdPathLine() + '\n',
                     0);
    tp::SceneOptionsParse parse = tp::parseSceneOptions(args, extras);
    tp::SceneOptions& options = parse.options;

    if (options.help)
        return print(
            "Usage: tpviz-cli [options]\n"
            "Splits nnx.Linear(in_dim, features) across tp_size groups, computes each "
            "group's part and checks the result against x @ kernel + bias.\n\n" +
                tp::sceneOptionsHelp(extras) + "\n" + tp::checkRuleHelp(),
            0);
    if (options.listHardware)
        return print(tp::hardwareListText(), 0);
    if (!options.saveNpyDir.empty())
        if (std::string problem = tp::sceneArrayFolderProblem(options.saveNpyDir); !problem.empty())
            parse.errors.push_back(tp::optionName(tp::Option::SaveNpy) + ": " + problem);
    if (!parse.errors.empty()) {
        for (const std::string& error : parse.errors)
            std::cerr << "tpviz-cli: " << error << '\n';
        return 2;
    }

    if (options.python)
        return print(tp::pythonSnippet(options.config, options.mistake, tp::sceneRun(options).check,
                                       options.backward ? tp::SnippetPasses::ForwardAndBackward
                                                        : tp::SnippetPasses::Forward),
                     0);
    for (const std::string& notice : options.arrays.notices)
        std::cerr << "tpviz-cli: note: " << notice << '\n';
    // Every step allocates: the scene, the arrays written, the costs and the report. An allocation
    // that fails in any of them is the budget's sentence, not an abort.
    try {
        return computeAndReport(options);
    } catch (const std::bad_alloc&) {
        std::cerr << "tpviz-cli: " << tp::allocationFailureMessage(options.config, options.backward)
                  << '\n';
        return 2;
    }
}
