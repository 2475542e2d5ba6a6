// tpviz-cli: the command-line face of the core, for scripting and for checking the app's numbers.

#include "python_snippet.h"
#include "report.h"
#include "scene.h"
#include "scene_options.h"

#include <cstdio>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const tp::SceneOptionsParse parse = tp::parseSceneOptions(args);
    const tp::SceneOptions& options = parse.options;

    if (options.help) {
        std::cout << "Usage: tpviz-cli [options]\n"
                     "Splits nnx.Linear(in_dim, features) across tp_size groups, computes each "
                     "group's part and checks the result against x @ kernel + bias.\n\n"
                  << tp::sceneOptionsHelp();
        return 0;
    }
    if (!parse.errors.empty()) {
        for (const std::string& error : parse.errors)
            std::cerr << "tpviz-cli: " << error << '\n';
        return 2;
    }

    if (options.python) {
        std::cout << tp::pythonSnippet(options.config, options.tolerance);
        return 0;
    }
    std::optional<tp::Scene> scene;
    try {
        scene = tp::computeScene(options.config, options.source, nullptr, options.tolerance);
    } catch (const std::bad_alloc&) {
        std::cerr << "tpviz-cli: " << tp::allocationFailureMessage(options.config) << '\n';
        return 2;
    }
    std::cout << (options.json ? tp::jsonReport(*scene, options.summary)
                               : tp::textReport(*scene, options.summary));
    return scene->verification.allclose ? 0 : 1;
}
