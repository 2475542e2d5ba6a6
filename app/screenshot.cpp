#include "screenshot.h"

#include "devices/devices_view.h"
#include "files/picture_export.h"
#include "files/scene_file_actions.h"
#include "main_window.h"
#include "panels/parameter_panel.h"
#include "picture/layer_panel.h"
#include "scene_session.h"
#include "steps/step_controller.h"

#include <QApplication>
#include <QEventLoop>
#include <QIcon>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

namespace tp {

void initApplication() {
    QApplication::setOrganizationName(QStringLiteral("tpviz"));
    QApplication::setApplicationName(QStringLiteral("tpviz"));
    QApplication::setApplicationVersion(QStringLiteral(TPVIZ_VERSION));
    QIcon icon;
    for (const char* size : {"-16", "-32", "-64", ""})
        icon.addFile(QStringLiteral(":/tpviz/icons/tpviz%1.png").arg(QLatin1String(size)));
    QApplication::setWindowIcon(icon);
}

void showCommandLine(MainWindow& window, const AppCommandLine& line) {
    if (line.sceneFile)
        window.findChild<SceneFileActions*>()->showScene({.config = line.config,
                                                          .source = line.source,
                                                          .step = line.step.value_or(0),
                                                          .mistake = line.run.mistake,
                                                          .backward = line.run.backward,
                                                          .arrays = line.arrays},
                                                         QString::fromStdString(*line.sceneFile),
                                                         line.loaded);
    else if (line.sceneGiven)
        window.showConfig(line.config, line.source, line.run, line.arrays, line.loaded);
    if (line.view == CentreView::Devices)
        window.viewTabs()->setCurrentWidget(window.devicesView());
    window.parameterPanel()->showTpNote(QString::fromStdString(line.tpNote));
}

int runScreenshot(const AppCommandLine& line) {
    const QString file = QString::fromStdString(*line.screenshotFile);
    // Refused before the scene is computed, as other invalid input is.
    if (const QString problem = pictureFileProblem(file); !problem.isEmpty()) {
        std::fprintf(stderr, "tpviz: --screenshot: %s: %s\n", line.screenshotFile->c_str(),
                     qPrintable(problem));
        return 2;
    }
    MainWindow window(MainWindow::Options{.useSettings = false});
    window.resize(kScreenshotSize);
    QEventLoop loop;
    QObject::connect(&window, &MainWindow::sceneShown, &loop, &QEventLoop::quit);
    QString refused;  // why the scene could not be computed (e.g. memory): no picture then
    QObject::connect(window.session(), &SceneSession::sceneRefused, &loop,
                     [&](const QString& reason) {
                         refused = reason;
                         loop.quit();
                     });
    if (line.view == CentreView::Devices)
        window.viewTabs()->setCurrentWidget(window.devicesView());
    window.showConfig(line.config, line.source, line.run, line.arrays, line.loaded);
    window.parameterPanel()->showTpNote(QString::fromStdString(line.tpNote));
    window.show();
    if (!window.scene())
        loop.exec();
    if (!window.scene()) {
        std::fprintf(stderr, "tpviz: %s\n", qPrintable(refused));
        return 2;
    }
    StepController* steps = window.stepController();
    steps->setStep(line.step.value_or(steps->lastStep()));
    if (line.trace)
        window.layerPanel()->traceOutput(line.trace->first, line.trace->second);
    // Let layouts settle and views render at their final size before grabbing.
    QTimer::singleShot(50, &loop, &QEventLoop::quit);
    loop.exec();
    if (QString error; !window.saveScreenshot(file, &error)) {
        std::fprintf(stderr, "tpviz: --screenshot: could not write %s: %s\n",
                     line.screenshotFile->c_str(), qPrintable(error));
        return 2;
    }
    return 0;
}

}  // namespace tp
