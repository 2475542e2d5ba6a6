// The window's files: scenes saved and opened (File > Open scene, Save scene, Open Recent), a
// broken scene refused with its reason while the scene on screen stays, every export read back
// (PNG, SVG, .npy, JSON) and Edit > Copy command line parsed back to the same scene. The actions
// that ask for a path are tested through the functions that take it.

#include "cell_text.h"
#include "command_line.h"
#include "files/export_actions.h"
#include "files/scene_file_actions.h"
#include "io/npy.h"
#include "io/scene_file.h"
#include "layer_panel.h"
#include "main_window.h"
#include "matrix_bits.h"
#include "matrix_view.h"
#include "parameter_panel.h"
#include "scene/scene_arrays.h"
#include "scene/scene_backward.h"
#include "scene/scene_options.h"
#include "scene_session.h"
#include "screenshot.h"
#include "step_controller.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QSignalSpy>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <cstring>

using namespace tp;
using tp::test::sameBits;

namespace {

// A window without saved settings, showing `config` once its scene has arrived.
struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    explicit Window(const LayerConfig& config = LayerConfig{},
                    SceneSource source = SceneSource::Nnx, const SceneRun& run = {}) {
        window.resize(1400, 900);
        window.showConfig(config, source, run);
        window.show();
    }
    SceneFileActions* files() const { return window.findChild<SceneFileActions*>(); }
    ExportActions* exports() const { return window.findChild<ExportActions*>(); }
    bool shows(const LayerConfig& config, SceneSource source) const {
        return window.scene() && window.scene()->config == config &&
               window.scene()->source == source && !window.computer()->isBusy();
    }
};

LayerConfig rowScene() {
    LayerConfig c;
    c.batch = 3;
    c.inDim = 8;
    c.features = 6;
    c.tpSize = 4;
    c.seed = -7;
    c.mode = ParallelMode::Row;
    c.prng = PrngLayout::Legacy;
    c.x64 = true;
    c.bias = BiasInit{BiasInit::Kind::Normal, 0.5f};
    return c;
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class TestSceneFilesApp : public QObject {
    Q_OBJECT

private slots:
    void saveThenOpenRoundTrips_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("row 8x6 tp4 legacy x64 bias normal") << 0;
        QTest::newRow("the worked example, row tp 1") << 1;
        QTest::newRow("data 3, replicated output, bias-per-partial") << 2;
        QTest::newRow("with the backward pass") << 3;
        QTest::newRow("the MLP block, hidden 16, row-then-column") << 4;
    }

    void saveThenOpenRoundTrips() {
        QFETCH(int, which);
        LayerConfig config = rowScene();
        SceneSource source = SceneSource::Nnx;
        if (which == 1) {
            config = briefExampleConfig();
            config.mode = ParallelMode::Row;
            config.tpSize = 1;
            source = SceneSource::Brief;
        }
        SceneRun run;
        if (which == 2) {
            config.dataSize = 3;
            config.output = OutputLayout::Replicated;
            run.mistake = Mistake::BiasPerPartial;
        }
        run.backward = which == 3;
        if (which == 4) {
            config = LayerConfig{};
            config.block = Block::Mlp;
            config.hidden = 16;
            config.features = 8;
            config.tpSize = 4;
            run.mistake = Mistake::RowThenColumn;
        }
        QTemporaryDir dir;
        const QString path = dir.filePath("scene.tpviz");
        {
            Window w(config, source, run);
            QTRY_VERIFY(w.shows(config, source));
            QVERIFY(w.window.scene()->mistake == run.mistake);
            w.window.stepController()->setStep(2);
            QCOMPARE(w.files()->saveScene(path), QString());
            QCOMPARE(w.files()->currentFile(), path);
            QCOMPARE(w.files()->recentFiles(), QStringList{QFileInfo(path).absoluteFilePath()});
        }
        Window w;  // the default scene, until the file is opened
        QTRY_VERIFY(w.shows(LayerConfig{}, SceneSource::Nnx));
        QCOMPARE(w.files()->openScene(path), QString());
        QTRY_VERIFY(w.shows(config, source));
        QTRY_COMPARE(w.window.stepController()->step(), 2);
        QCOMPARE(w.window.parameterPanel()->config(), config);
        QCOMPARE(w.window.parameterPanel()->source(), source);
        QVERIFY(w.window.scene()->mistake == run.mistake);
        QVERIFY(w.window.parameterPanel()->run().mistake == run.mistake);
        QCOMPARE(w.window.parameterPanel()->run().backward, run.backward);
        QCOMPARE(bool(w.window.scene()->backward), run.backward);
        QCOMPARE(w.files()->currentFile(), path);
    }

    void brokenFileKeepsTheScene_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << QByteArray("{\"format\": ") << "not valid JSON";
        QTest::newRow("wrong type") << QByteArray(R"({"format": "tpviz-scene", "version": 1,)"
                                                  R"( "batch": "two"})")
                                    << "'batch' is not a whole number";
        QTest::newRow("tp does not divide")
            << QByteArray(
                   R"({"format": "tpviz-scene", "version": 1, "features": 10, "tp_size": 4})")
            << "not divisible by tp_size (4)";
        // Every problem, the mistake's too, although the config already has one.
        QTest::newRow("tp does not divide, and a row mistake in column mode")
            << QByteArray(R"({"format": "tpviz-scene", "version": 1, "features": 10, )"
                          R"("tp_size": 4, "mistake": "concat-partials"})")
            << "'mistake' concat-partials is a row-parallel mistake";
        QTest::newRow("arrays and the example")
            << QByteArray(R"({"format": "tpviz-scene", "version": 1, "example": "brief", )"
                          R"("arrays": {"kernel": "w.npy"}})")
            << "cannot both be given";
    }

    void brokenFileKeepsTheScene() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.tpviz");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
        file.close();
        Window w(rowScene());
        QTRY_VERIFY(w.shows(rowScene(), SceneSource::Nnx));
        const ScenePtr before = w.window.scene();
        const QString message = w.files()->openScene(path);
        QVERIFY2(message.contains(path), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY(w.window.statusBar()->currentMessage().contains("broken.tpviz"));
        QVERIFY(!w.window.computer()->isBusy());
        QVERIFY(!w.window.computer()->hasPendingRequest());
        QCOMPARE(w.window.scene(), before);
        QCOMPARE(w.window.parameterPanel()->config(), rowScene());
        QVERIFY(w.files()->recentFiles().isEmpty());
        QVERIFY(w.files()->openScene(dir.filePath("missing.tpviz")).contains("missing.tpviz"));
    }

    void theActionsWorkThroughTheSession() {
        Window w(rowScene());
        QTRY_VERIFY(w.shows(rowScene(), SceneSource::Nnx));
        SceneSession* session = w.window.session();
        QCOMPARE(w.files()->parent(), session);
        QCOMPARE(w.exports()->parent(), session);
        // A request shown through the session is what the actions save and spell back.
        LayerConfig next = rowScene();
        next.seed = 11;
        QSignalSpy shown(session, &SceneSession::sceneShown);
        session->show({next, SceneSource::Nnx, {Mistake::BiasPerPartial, {}}});
        QTRY_VERIFY(!shown.isEmpty());
        QCOMPARE(session->scene(), w.window.scene());
        QCOMPARE(session->scene()->config, next);
        QVERIFY(session->request().run.mistake == Mistake::BiasPerPartial);
        QTemporaryDir dir;
        const QString path = dir.filePath("next.tpviz");
        QCOMPARE(w.files()->saveScene(path), QString());
        const SceneFileRead read = readSceneFile(path.toStdString());
        QVERIFY(read.scene);
        QCOMPARE(read.scene->config.seed, next.seed);
        QVERIFY(read.scene->mistake == Mistake::BiasPerPartial);
        const SceneOptionsParse parse = parseSceneOptions(w.exports()->commandLineArguments());
        QVERIFY(parse.errors.empty());
        QCOMPARE(parse.options.config.seed, next.seed);
        QVERIFY(parse.options.mistake == Mistake::BiasPerPartial);
        QCOMPARE(session->pictureName(), w.window.screenshotName());
    }

    void recentFilesKeepTheLastEight() {
        QTemporaryDir dir;
        Window w;
        QTRY_VERIFY(w.window.scene());
        for (int i = 0; i < 10; ++i)
            QCOMPARE(w.files()->saveScene(dir.filePath(QString("s%1.tpviz").arg(i))), QString());
        QCOMPARE(w.files()->saveScene(dir.filePath("s3.tpviz")), QString());
        const QStringList recent = w.files()->recentFiles();
        QCOMPARE(recent.size(), SceneFileActions::kMaxRecent);
        QCOMPARE(QFileInfo(recent.first()).fileName(), QString("s3.tpviz"));
        QCOMPARE(QFileInfo(recent[1]).fileName(), QString("s9.tpviz"));
        QCOMPARE(recent.count(recent.first()), 1);
        auto* menu = w.window.findChild<QMenu*>("recentScenesMenu");
        QVERIFY(menu);
        QTRY_COMPARE(menu->actions().size(),
                     SceneFileActions::kMaxRecent + 2);  // + separator, clear
        QCOMPARE(menu->actions().first()->toolTip(), recent.first());
    }

    void exportPictures() {
        QTemporaryDir dir;
        Window w;
        QTRY_VERIFY(w.window.scene());
        const QString png = dir.filePath("picture.png");
        QCOMPARE(w.exports()->exportPicture(png), QString());
        const QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size() / image.devicePixelRatio(), w.window.size());

        const QString svg = dir.filePath("picture.svg");
        QCOMPARE(w.exports()->exportPicture(svg), QString());
        const QByteArray text = readAll(svg);
        QXmlStreamReader xml(text);
        QStringList texts;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == u"text")
                texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        // The numbers in the cells are text: every value of the kernel and of the output.
        const Scene& scene = *w.window.scene();
        QVERIFY(w.window.layerPanel()->kernelView()->cellNumbersShown());
        for (const Matrix* matrix : {&scene.params.kernel, &scene.result.output})
            for (Index r = 0; r < matrix->rows(); ++r)
                for (Index c = 0; c < matrix->cols(); ++c)
                    QVERIFY2(texts.contains(cellText((*matrix)(r, c))),
                             qPrintable(cellText((*matrix)(r, c))));
        QVERIFY(text.contains("tpviz"));
        QSvgRenderer renderer(text);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.viewBox(), w.window.rect());

        // Drawn, the SVG shows x's title as the window does: the selected "Layer" tab stays in
        // its bar (it fills past it, which only a clip hides) and the menu bar's words are there.
        QImage drawn(w.window.size(), QImage::Format_ARGB32);
        drawn.fill(Qt::white);
        {
            QPainter painter(&drawn);
            renderer.render(&painter);
        }
        const QImage grabbed = w.window.grab().toImage().scaled(w.window.size());
        const auto darkPixels = [](const QImage& image, QRect rect) {
            int dark = 0;
            for (int y = rect.top(); y <= rect.bottom(); ++y)
                for (int x = rect.left(); x <= rect.right(); ++x)
                    dark += qGray(image.pixel(x, y)) < 110;
            return dark;
        };
        MatrixView* x = w.window.layerPanel()->inputView();
        const QRect xTitle(x->mapTo(&w.window, QPoint(0, 0)), QSize(x->width() / 2, 20));
        QVERIFY(darkPixels(grabbed, xTitle) > 20);
        QVERIFY2(darkPixels(drawn, xTitle) > darkPixels(grabbed, xTitle) / 2,
                 qPrintable(QString::number(darkPixels(drawn, xTitle))));
        QMenuBar* menu = w.window.menuBar();
        const QRect menuWords(menu->mapTo(&w.window, QPoint(0, 0)), QSize(200, menu->height()));
        QVERIFY(darkPixels(drawn, menuWords) > darkPixels(grabbed, menuWords) / 2);

        const QString error = w.exports()->exportPicture("/proc/nope/x.svg");
        QVERIFY2(error.contains("/proc/nope/x.svg") && error.size() > 30, qPrintable(error));
        // A PNG that cannot be written says why too: here, that its folder is missing.
        const QString pngError = w.exports()->exportPicture("/proc/nope/x.png");
        QVERIFY2(pngError.startsWith("Could not write /proc/nope/x.png: ") &&
                     pngError.contains("its folder /proc/nope does not exist"),
                 qPrintable(pngError));
    }

    void exportArraysReadBackBitIdentical() {
        QTemporaryDir dir;
        Window w(rowScene());
        QTRY_VERIFY(w.shows(rowScene(), SceneSource::Nnx));
        const Scene& scene = *w.window.scene();
        const QString folder = dir.filePath("arrays");
        QCOMPARE(w.exports()->exportArrays(folder), QString());
        auto read = [&](const char* name) {
            FloatArrayRead array = readNpy(QDir(folder).filePath(name).toStdString(), 1 << 20);
            if (!array.array)
                qWarning("%s", array.error.c_str());
            return array;
        };
        const std::pair<const char*, const Matrix*> matrices[] = {
            {"kernel.npy", &scene.params.kernel},
            {"x.npy", &scene.params.x},
            {"output.npy", &scene.result.output},
            {"reference.npy", &scene.reference},
            {"partial_3.npy", &scene.result.partials[3]}};
        for (const auto& [name, matrix] : matrices) {
            const FloatArrayRead array = read(name);
            QVERIFY2(array.array, name);
            QCOMPARE(array.array->shape,
                     (std::vector<std::int64_t>{matrix->rows(), matrix->cols()}));
            QVERIFY2(sameBits(array.array->values, *matrix), name);
        }
        const FloatArrayRead bias = read("bias.npy");
        QVERIFY(bias.array);
        QCOMPARE(bias.array->shape, (std::vector<std::int64_t>{scene.config.features}));
        QVERIFY(sameBits(bias.array->values, scene.params.bias));
        QVERIFY(scene.params.bias.cwiseAbs().maxCoeff() >
                0);  // normal(0.5): the bits say something
        for (const std::string& name : sceneArrayFileNames(scene))
            QVERIFY2(QFileInfo::exists(QDir(folder).filePath(QString::fromStdString(name))),
                     name.c_str());
    }

    // With the backward pass on, the exports carry it: the gradients' arrays, and the report's
    // "backward" member with its verdict.
    void exportsCarryTheBackward() {
        QTemporaryDir dir;
        SceneRun run;
        run.backward = true;
        Window w(rowScene(), SceneSource::Nnx, run);
        QTRY_VERIFY(w.shows(rowScene(), SceneSource::Nnx));
        QTRY_VERIFY(w.window.scene()->backward);
        const SceneBackward& backward = *w.window.scene()->backward;
        const QString folder = dir.filePath("arrays");
        QCOMPARE(w.exports()->exportArrays(folder), QString());
        const FloatArrayRead dkernel =
            readNpy(QDir(folder).filePath("dkernel.npy").toStdString(), 1 << 20);
        QVERIFY2(dkernel.array, dkernel.error.c_str());
        QVERIFY(sameBits(dkernel.array->values, backward.result.gradients.dkernel));
        const QString path = dir.filePath("report.json");
        QCOMPARE(w.exports()->exportReport(path), QString());
        const QJsonObject report = QJsonDocument::fromJson(readAll(path)).object();
        QVERIFY(report["backward"]["verification"]["passed"].toBool());
        QCOMPARE(report["backward"]["dbias"].toArray().size(), qsizetype(rowScene().features));
    }

    void exportReportMatchesTheScene() {
        QTemporaryDir dir;
        Window w(rowScene());
        QTRY_VERIFY(w.shows(rowScene(), SceneSource::Nnx));
        const QString path = dir.filePath("report.json");
        QCOMPARE(w.exports()->exportReport(path), QString());
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(readAll(path), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QJsonObject config = document.object()["config"].toObject();
        const LayerConfig c = rowScene();
        QCOMPARE(config["batch"].toInteger(), c.batch);
        QCOMPARE(config["in_dim"].toInteger(), c.inDim);
        QCOMPARE(config["features"].toInteger(), c.features);
        QCOMPARE(config["tp_size"].toInteger(), c.tpSize);
        QCOMPARE(config["seed"].toInteger(), c.seed);
        QCOMPARE(config["mode"].toString(), QString("row"));
        QCOMPARE(config["prng"].toString(), QString("legacy"));
        QCOMPARE(config["x64"].toBool(), true);
        // The output's first value is the scene's float32, printed so that it reads back the same.
        const double first = document.object()["output"].toArray()[0].toArray()[0].toDouble();
        QCOMPARE(float(first), w.window.scene()->result.output(0, 0));
        QVERIFY(document.object()["verification"].toObject()["passed"].toBool());
    }

    void copyCommandLineParsesBack_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("row 8x6 tp4 legacy x64 bias normal") << 0;
        QTest::newRow("the worked example, row tp 1") << 1;
        QTest::newRow("default") << 2;
    }

    void copyCommandLineParsesBack() {
        QFETCH(int, which);
        LayerConfig config = which == 0 ? rowScene() : LayerConfig{};
        SceneSource source = SceneSource::Nnx;
        if (which == 1) {
            config = briefExampleConfig();
            config.mode = ParallelMode::Row;
            config.tpSize = 1;
            source = SceneSource::Brief;
        }
        Window w(config, source);
        QTRY_VERIFY(w.shows(config, source));
        auto* action = w.window.findChild<QAction*>("copyCommandLineAction");
        QVERIFY(action);
        QVERIFY(w.window.menuBar()->actions()[1]->menu()->actions().contains(action));
        action->trigger();
        const QString text = QApplication::clipboard()->text();
        QCOMPARE(text, w.exports()->commandLine());
        QVERIFY(text.startsWith("tpviz-cli "));
        // No value of these scenes needs quoting: the words are the arguments.
        QStringList words = text.split(' ');
        words.removeFirst();
        std::vector<std::string> args;
        for (const QString& word : words)
            args.push_back(word.toStdString());
        QCOMPARE(args, w.exports()->commandLineArguments());
        const SceneOptionsParse parse = parseSceneOptions(args);
        QVERIFY2(parse.errors.empty(), parse.errors.empty() ? "" : parse.errors.front().c_str());
        QCOMPARE(parse.options.config, config);
        QCOMPARE(parse.options.source, source);
    }

    void commandLineOpensASceneFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("scene.tpviz");
        {
            Window w(rowScene());
            QTRY_VERIFY(w.shows(rowScene(), SceneSource::Nnx));
            w.window.stepController()->setStep(3);
            QCOMPARE(w.files()->saveScene(path), QString());
        }
        AppCommandLine line = parseAppCommandLine({path.toStdString()});
        QVERIFY(line.errors.empty());
        QCOMPARE(line.config, rowScene());
        QCOMPARE(line.step, std::optional<int>(3));
        QCOMPARE(line.sceneFile, std::optional<std::string>(path.toStdString()));
        // Explicit options override the file.
        line = parseAppCommandLine({path.toStdString(), "--tp", "2"});
        QVERIFY(line.errors.empty());
        QCOMPARE(line.config.tpSize, 2);
        line = parseAppCommandLine({"--scene", path.toStdString(), "--screenshot", "a.svg"});
        QVERIFY(line.errors.empty());
        QCOMPARE(line.step, std::optional<int>(3));
        line = parseAppCommandLine({dir.filePath("missing.tpviz").toStdString()});
        QCOMPARE(line.errors.size(), std::size_t(1));
        QVERIFY(line.errors.front().find("missing.tpviz") != std::string::npos);
    }

    void commandLineShowsTheFileAsSaved_data() {
        QTest::addColumn<bool>("saved");     // the file's "backward"
        QTest::addColumn<bool>("asked");     // --backward beside the file
        QTest::addColumn<bool>("expected");  // the window's backward pass
        QTest::newRow("saved with the backward") << true << false << true;
        QTest::newRow("saved forward only") << false << false << false;
        QTest::newRow("saved forward only, --backward") << false << true << true;
    }

    // `tpviz FILE.tpviz` opens the scene as the file saved it, as File > Open scene does, with the
    // options beside it over it: the backward pass too.
    void commandLineShowsTheFileAsSaved() {
        QFETCH(bool, saved);
        QFETCH(bool, asked);
        QFETCH(bool, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("scene.tpviz");
        SceneFile file;
        file.config = rowScene();
        file.backward = saved;
        QCOMPARE(writeSceneFile(path.toStdString(), file), std::string());
        std::vector<std::string> args{path.toStdString()};
        if (asked)
            args.push_back("--backward");
        const AppCommandLine line = parseAppCommandLine(args);
        QVERIFY(line.errors.empty());
        MainWindow window{MainWindow::Options{.useSettings = false}};
        showCommandLine(window, line);
        window.show();
        QTRY_VERIFY(window.scene() && window.scene()->config == rowScene() &&
                    !window.computer()->isBusy());
        QCOMPARE(window.parameterPanel()->run().backward, expected);
        QCOMPARE(bool(window.scene()->backward), expected);
        QCOMPARE(window.findChild<SceneFileActions*>()->currentFile(), path);
    }
};

QTEST_MAIN(TestSceneFilesApp)
#include "tst_scene_files_app.moc"
