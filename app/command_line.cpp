#include "command_line.h"

#include "io/file_text.h"
#include "io/scene_file.h"
#include "nnx/jax_random.h"
#include "scene/option_rows.h"
#include "scene/scene_options.h"
#include "scene/timeline.h"

namespace tp {
namespace {

const std::vector<ExtraOption>& extraOptions() {
    static const std::vector<ExtraOption> extras = {
        {"--screenshot", "FILE",
         "render the window offscreen (no display needed) at --step K and save it as PNG (SVG "
         "when FILE ends in .svg), then exit"},
        {"--step", "K",
         "with --screenshot: the step of the view's timeline to show, 0 (start) to the last "
         "(default: the last, where the output is complete)"},
        {"--view", "layer|devices",
         "the view to show: the layer and its outputs, stepping one group at a time (default), or "
         "the devices of the mesh, computing at once and then stepping through the collective's "
         "ring steps"},
        versionOption(),
        {"--trace", "ROW,COL",
         "with --screenshot: trace y[ROW, COL] as hovering that output cell does"},
    };
    return extras;
}

// The steps --step and a scene file's step count: those of the view's timeline.
Timeline viewTimeline(const AppCommandLine& line) {
    return line.view == CentreView::Devices
               ? meshProgram(line.config, line.run.mistake, line.run.backward)
               : loopTimeline(line.config, line.run.mistake, line.run.backward);
}

}  // namespace

AppCommandLine parseAppCommandLine(const std::vector<std::string>& given) {
    // `tpviz FILE.tpviz [options]`: the file first, read as --scene FILE.
    std::vector<std::string> args = given;
    if (!args.empty() && !args.front().empty() && !args.front().starts_with('-'))
        args.insert(args.begin(), optionName(Option::Scene));
    SceneOptionsParse parse = parseSceneOptions(args, extraOptions());
    AppCommandLine line;
    // --mode without --tp switches the mode as the Mode box does: tp_size moves to the nearest
    // divisor of the split dimension, with the note (tpviz-cli refuses instead).
    const auto wasGiven = [&](const std::string& name) {
        return std::any_of(args.begin(), args.end(), [&](const std::string& arg) {
            return arg == name || arg.starts_with(name + "=");
        });
    };
    if (wasGiven(optionName(Option::Mode)) && !wasGiven(optionName(Option::Tp))) {
        LayerConfig moved = parse.options.config;
        line.tpNote = moveTpToDivisor(moved);
        if (!line.tpNote.empty()) {
            args.insert(args.end(), {optionName(Option::Tp), std::to_string(moved.tpSize)});
            parse = parseSceneOptions(args, extraOptions());
        }
    }
    line.help = parse.options.help;
    line.config = parse.options.config;
    line.source = parse.options.source;
    line.run = sceneRun(parse.options);
    line.arrays = parse.options.files;
    if (line.source == SceneSource::Files)
        line.loaded = std::make_shared<LoadedArrays>(std::move(parse.options.arrays));
    line.errors = parse.errors;
    line.version = parse.options.extras.contains(versionOption().name);
    if (line.help || line.version)
        return line;
    for (const std::string& name : parse.options.cliOnlyGiven)
        line.errors.push_back(name + " is an option of tpviz-cli; tpviz does not take it");
    std::int64_t sceneStep = 0;
    if (!parse.options.sceneFile.empty()) {
        line.sceneFile = parse.options.sceneFile;
        // parseSceneOptions has read the file and reported its problems; only its step is left.
        if (const SceneFileRead read = readSceneFile(*line.sceneFile); read.scene)
            sceneStep = read.scene->step;
    }

    const auto& extras = parse.options.extras;
    line.sceneGiven = false;
    for (const std::string& arg : args)
        if (arg.starts_with("--") && !arg.starts_with("--screenshot") &&
            !arg.starts_with("--step") && !arg.starts_with("--view") && !arg.starts_with("--trace"))
            line.sceneGiven = true;
    if (const auto it = extras.find("--screenshot"); it != extras.end()) {
        if (it->second.empty())
            line.errors.push_back("--screenshot needs a file name");
        else
            line.screenshotFile = it->second;
    }
    if (const auto it = extras.find("--view"); it != extras.end()) {
        if (it->second == "devices")
            line.view = CentreView::Devices;
        else if (it->second != "layer")
            line.errors.push_back("--view: '" + it->second +
                                  "' is not a view; the views are layer and devices");
    }
    if (const auto it = extras.find("--step"); it != extras.end()) {
        const auto step = parseInt64(it->second);
        if (!line.screenshotFile)
            line.errors.push_back("--step applies to --screenshot only");
        if (!step) {
            line.errors.push_back("--step: '" + it->second + "' is not a whole number");
        } else if (line.config.validate().empty()) {
            const int last = viewTimeline(line).lastStep();
            if (*step < 0 || *step > last)
                line.errors.push_back("--step " + it->second +
                                      " is out of range: this scene has "
                                      "steps 0 to " +
                                      std::to_string(last));
            else
                line.step = int(*step);
        }
    } else if (line.sceneFile && line.errors.empty()) {
        const int last = viewTimeline(line).lastStep();
        if (sceneStep > last)
            line.errors.push_back(
                optionName(Option::Scene) + ": " + printablePath(*line.sceneFile) + ": 'step' " +
                std::to_string(sceneStep) + " is out of range: this scene has steps 0 to " +
                std::to_string(last));
        else
            line.step = int(sceneStep);
    }
    if (const auto it = extras.find("--trace"); it != extras.end()) {
        const std::size_t comma = it->second.find(',');
        const std::optional<std::int64_t> row = parseInt64(it->second.substr(0, comma));
        std::optional<std::int64_t> col;
        if (comma != std::string::npos)
            col = parseInt64(it->second.substr(comma + 1));
        if (!line.screenshotFile)
            line.errors.push_back("--trace applies to --screenshot only");
        if (line.config.block == Block::Mlp)
            line.errors.push_back(
                "--trace traces an output cell of one Linear; leave out --block mlp");
        if (!row || !col || *row < 0 || *col < 0 || *row >= line.config.batch ||
            *col >= line.config.features)
            line.errors.push_back("--trace: '" + it->second +
                                  "' is not ROW,COL of an output cell (rows 0 to batch - 1, "
                                  "columns 0 to features - 1)");
        else
            line.trace = std::pair{int(*row), int(*col)};
    }
    return line;
}

std::string appHelp() {
    // tpviz shows the scene; the report and tolerance options of tpviz-cli do not apply.
    const std::string options = sceneOptionsHelp(extraOptions(), OptionsFor::App);
    return "Usage: tpviz [FILE.tpviz] [options]\n"
           "Shows how tensor parallelism splits one linear layer y = x @ kernel + bias across "
           "groups,\nstep by step. Scene options override the saved parameters.\n\nOptions:\n" +
           options +
           "\nExamples:\n"
           "  tpviz --features 16 --tp 4\n"
           "  tpviz scene.tpviz\n"
           "  tpviz --screenshot scene.svg --scene scene.tpviz\n"
           "  tpviz --screenshot shot.png --example brief --step 1\n"
           "  tpviz --screenshot wrong.png --mistake sum-groups --bias normal:0.5\n"
           "  tpviz --screenshot mesh.png --view devices --tp 4 --data 2 --output replicated\n"
           "  tpviz --block mlp --hidden 32 --tp 4\n";
}

std::string appVersion() {
    return std::string("tpviz ") + TPVIZ_VERSION + "\n" + simdPathLine() + "\n";
}

}  // namespace tp
