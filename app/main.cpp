// tpviz: the desktop visualizer. Parses the command line, then either shows the window or writes
// a screenshot of it.

#include "command_line.h"
#include "main_window.h"
#include "screenshot.h"

#include <QApplication>

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
    tp::showCommandLine(window, line);
    window.show();
    return app.exec();
}
