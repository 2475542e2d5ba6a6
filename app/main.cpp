// tpviz: the desktop visualizer. Parses the command line, then either shows the window or writes
// a screenshot of it.

#include "command_line.h"
#include "devices/devices_view.h"
#include "files/scene_file_actions.h"
#include "main_window.h"
#include "panels/parameter_panel.h"
#include "screenshot.h"

#include <QApplication>
#include <QTabWidget>

#include <cstdio>
#include <cstdlib>

int main(int argc, char* argv[]) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const tp::AppCommandLine line = tp::parseAppCommandLine(args);
    if (line.help) {
        std::fputs(tp::appHelp().c_str(), stdout);
        return 0;
    }
    if (line.version) {
        std::fputs(tp::appVersion().c_str(), stdout);
        return 0;
    }
    if (!line.errors.empty()) {
        for (const std::string& error : line.errors)
            std::fprintf(stderr, "tpviz: %s\n", error.c_str());
        std::fputs("Try 'tpviz --help'.\n", stderr);
        return 2;
    }
    // A screenshot needs no display.
    if (line.screenshotFile && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    tp::initApplication();
    if (line.screenshotFile)
        return tp::runScreenshot(line);

    tp::MainWindow window;
    if (line.sceneFile)
        window.findChild<tp::SceneFileActions*>()->showScene(
            {.config = line.config,
             .source = line.source,
             .step = line.step.value_or(0),
             .mistake = line.run.mistake,
             .arrays = line.arrays},
            QString::fromStdString(*line.sceneFile), line.loaded);
    else if (line.sceneGiven)
        window.showConfig(line.config, line.source, line.run, line.arrays, line.loaded);
    if (line.view == tp::CentreView::Devices)
        window.viewTabs()->setCurrentWidget(window.devicesView());
    window.parameterPanel()->showTpNote(QString::fromStdString(line.tpNote));
    window.show();
    return app.exec();
}
