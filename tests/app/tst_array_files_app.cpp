// Arrays from files in the real window: the third Arrays choice, its kernel, tensor, transpose,
// bias and x inputs, the arrays read off the UI thread into the scene bit for bit, every problem
// under its input with the last good picture kept, and tpviz --kernel FILE.

#include "command_line.h"
#include "compute/scene_computer.h"
#include "files/export_actions.h"
#include "files/scene_file_actions.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "main_window.h"
#include "matrix_bits.h"
#include "panels/array_file_inputs.h"
#include "panels/parameter_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cstring>

using namespace tp;
using tp::test::sameBits;

namespace {

/// Values that are not round in binary, so that a conversion would show.
Matrix values(Index rows, Index cols, float offset) {
    Matrix m(rows, cols);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c)
            m(r, c) = offset + 0.1f * float(r) - 0.37f * float(c) + 1e-7f * float(r * cols + c);
    return m;
}

struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    ParameterPanel* panel() const { return window.parameterPanel(); }
    QLineEdit* edit(const char* name) const { return window.findChild<QLineEdit*>(name); }
    void chooseFiles() const { window.findChild<QComboBox*>("sourceBox")->setCurrentIndex(2); }
    bool showsFiles() const {
        return window.scene() && window.scene()->source == SceneSource::Files &&
               !window.computer()->isBusy() && !window.computer()->hasPendingRequest();
    }
};

}  // namespace

class TestArrayFilesApp : public QObject {
    Q_OBJECT

private slots:
    void arraysFromFilesAreComputedAsEveryRequestIs() {
        // The worker reads the files, then hands the request they make to the one compute
        // function, as it does for a seeded scene; tp_size 3 moves to 2, a divisor of the
        // kernel's 8 features.
        QTemporaryDir dir;
        const Matrix kernel = values(6, 8, 0.3f);
        const std::string kernelPath = dir.filePath("w.npy").toStdString();
        QCOMPARE(writeNpy(kernelPath, kernel), std::string());
        SceneComputer computer;
        std::atomic<int> fromFiles = 0;
        computer.setComputeFunction([&fromFiles](SceneRequest request, Progress* progress) {
            if (request.source == SceneSource::Files && request.arrays.kernel)
                ++fromFiles;
            return computeScene(std::move(request), progress);
        });
        ArrayFiles files;
        files.kernel = kernelPath;
        QSignalSpy ready(&computer, &SceneComputer::sceneReady);
        computer.computeNow(LayerConfig{}, SceneSource::Files, {}, files);
        QVERIFY(ready.wait(10000));
        QCOMPARE(fromFiles.load(), 1);
        const ScenePtr scene = ready.first().at(0).value<ScenePtr>();
        QCOMPARE(scene->config.tpSize, 2);
        QVERIFY(sameBits(scene->params.kernel, kernel));
    }

    void npyKernelAndBiasBitForBit() {
        QTemporaryDir dir;
        const Matrix kernel = values(6, 8, 0.3f);
        const Matrix bias = values(1, 8, -2.0f);
        const std::string kernelPath = dir.filePath("w.npy").toStdString();
        const std::string biasPath = dir.filePath("b.npy").toStdString();
        QCOMPARE(writeNpy(kernelPath, kernel), std::string());
        QCOMPARE(writeNpy(biasPath, bias, true), std::string());
        Window w;
        QTRY_VERIFY(w.window.scene());
        w.chooseFiles();
        w.edit("kernelFileEdit")->setText(QString::fromStdString(kernelPath));
        w.edit("biasFileEdit")->setText(QString::fromStdString(biasPath));
        QTRY_VERIFY2(w.showsFiles(), qPrintable(w.panel()->arrayProblemText("kernel") + "|" +
                                                w.panel()->arrayProblemText("bias") + "|" +
                                                w.window.statusBar()->currentMessage()));
        const ScenePtr scene = w.window.scene();
        QVERIFY(sameBits(scene->params.kernel, kernel));
        QVERIFY(sameBits(scene->params.bias, bias));
        QCOMPARE(scene->config.inDim, 6);
        QCOMPARE(scene->config.features, 8);
        // The kernel's shape is in the size inputs, which the files fix.
        QCOMPARE(w.window.findChild<QSpinBox*>("inDimBox")->value(), 6);
        QCOMPARE(w.window.findChild<QSpinBox*>("featuresBox")->value(), 8);
        // tp_size 3 (the default) does not divide 8: the nearest divisor, 2 or 4, is used.
        QVERIFY(8 % scene->config.tpSize == 0);
        QCOMPARE(w.window.findChild<QComboBox*>("tpBox")->currentText().toLongLong(),
                 scene->config.tpSize);
        QVERIFY(!w.window.findChild<QSpinBox*>("featuresBox")->isEnabled());
        QVERIFY(w.panel()->arrayProblemText("kernel").isEmpty());
        // Edit > Copy command line names the files, so tpviz-cli computes the same scene.
        const std::vector<std::string> args =
            w.window.findChild<ExportActions*>()->commandLineArguments();
        const auto kernelArg = std::find(args.begin(), args.end(), "--kernel");
        QVERIFY(kernelArg != args.end() && kernelArg + 1 != args.end());
        QCOMPARE(kernelArg[1], kernelPath);
        QVERIFY(std::find(args.begin(), args.end(), biasPath) != args.end());
    }

    // What reading a file did to its values shows under the shapes, as tpviz-cli's notes say it:
    // a float64 kernel beyond float32's range says its values became infinite.
    void conversionNotesShowUnderTheShapes() {
        QTemporaryDir dir;
        const std::string kernelPath = dir.filePath("w64.npy").toStdString();
        const double values[] = {1e300, 0.5, -0.25, 2.0, 1.0, -1.0};
        std::string bytes("\x93NUMPY\x01\x00", 8);
        std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
        const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;  // npy 1.0 aligns
        header.append(total - 10 - header.size() - 1, ' ').push_back('\n');
        bytes += char(header.size() & 0xff) + std::string(1, char(header.size() >> 8)) + header;
        bytes.append(reinterpret_cast<const char*>(values), sizeof values);
        QFile file(QString::fromStdString(kernelPath));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes.data(), qint64(bytes.size()));
        file.close();
        Window w;
        QTRY_VERIFY(w.window.scene());
        w.chooseFiles();
        w.edit("kernelFileEdit")->setText(QString::fromStdString(kernelPath));
        QTRY_VERIFY2(w.showsFiles(), qPrintable(w.panel()->arrayProblemText("kernel") + "|" +
                                                w.window.statusBar()->currentMessage()));
        auto* notes = w.window.findChild<QLabel*>("arrayNotices");
        QVERIFY(notes && notes->isVisibleTo(w.panel()));
        QCOMPARE(notes->text(),
                 QString("note: kernel: %1: converted from float64 to float32 (rounded to the "
                         "nearest float32); 1 of its values is beyond float32's range and became "
                         "infinite")
                     .arg(QString::fromStdString(kernelPath)));
    }

    void safetensorsTensorTransposed() {
        QTemporaryDir dir;
        const Matrix weight = values(8, 4, 1.0f);  // PyTorch's (out, in)
        const std::string path = dir.filePath("model.safetensors").toStdString();
        QCOMPARE(writeSafetensors(path, {{"fc.bias", {8}, values(1, 8, 0.0f)},
                                         {"fc.weight", {8, 4}, weight},
                                         {"head.weight", {3, 8}, values(3, 8, 5.0f)}}),
                 std::string());
        Window w;
        QTRY_VERIFY(w.window.scene());
        w.chooseFiles();
        w.edit("kernelFileEdit")->setText(QString::fromStdString(path));
        auto* tensors = w.window.findChild<QComboBox*>("kernelTensorBox");
        QCOMPARE(tensors->count(), 2);  // the 2-D tensors only
        QCOMPARE(tensors->itemData(0).toString(), QString("fc.weight"));
        tensors->setCurrentIndex(0);
        w.window.findChild<QCheckBox*>("transposeBox")->setChecked(true);
        QCOMPARE(w.panel()->arrayFiles().kernel, path + ":fc.weight");
        QTRY_VERIFY(w.showsFiles() && w.window.scene()->config.inDim == 4);
        const Matrix expected = weight.transpose();
        QVERIFY(sameBits(w.window.scene()->params.kernel, expected));
        QCOMPARE(w.window.scene()->config.features, 8);
    }

    void noFileChosenIsAProblemNotAScene() {
        Window w;
        QTRY_VERIFY(w.window.scene());
        const ScenePtr before = w.window.scene();
        w.chooseFiles();
        QVERIFY(w.panel()->arrayProblemText("kernel").contains("choose a kernel file"));
        QVERIFY(!w.window.computer()->hasPendingRequest());
        QCOMPARE(w.window.scene(), before);
    }

    void missingFileAndShapeMismatchKeepThePicture() {
        QTemporaryDir dir;
        const std::string kernelPath = dir.filePath("w.npy").toStdString();
        QCOMPARE(writeNpy(kernelPath, values(6, 8, 0.0f)), std::string());
        Window w;
        QTRY_VERIFY(w.window.scene());
        w.chooseFiles();
        w.edit("kernelFileEdit")->setText(QString::fromStdString(kernelPath));
        QTRY_VERIFY(w.showsFiles());
        const ScenePtr good = w.window.scene();

        w.edit("kernelFileEdit")->setText(dir.filePath("missing.npy"));
        QTRY_VERIFY(w.panel()->arrayProblemText("kernel").contains("No such file"));
        QVERIFY(w.panel()->arrayProblemText("kernel").contains("missing.npy"));
        QCOMPARE(w.window.scene(), good);

        const std::string biasPath = dir.filePath("b.npy").toStdString();
        QCOMPARE(writeNpy(biasPath, values(1, 5, 0.0f), true), std::string());
        w.edit("kernelFileEdit")->setText(QString::fromStdString(kernelPath));
        w.edit("biasFileEdit")->setText(QString::fromStdString(biasPath));
        // Each problem under its input, tagged with it as the core words it.
        QTRY_VERIFY(w.panel()->arrayProblemText("bias").contains("the bias's shape (5,)"));
        QVERIFY2(
            w.panel()->arrayProblemText("bias").startsWith("bias: features (8) does not match"),
            qPrintable(w.panel()->arrayProblemText("bias")));
        QVERIFY(w.panel()->arrayProblemText("kernel").isEmpty());
        QVERIFY(!w.window.computer()->isBusy());
        QCOMPARE(w.window.scene(), good);

        const std::string xPath = dir.filePath("x.npy").toStdString();
        QCOMPARE(writeNpy(xPath, values(2, 5, 0.0f)), std::string());
        w.edit("biasFileEdit")->clear();
        w.edit("xFileEdit")->setText(QString::fromStdString(xPath));
        QTRY_VERIFY2(w.panel()->arrayProblemText("x").startsWith(
                         "x: in_dim (6) does not match x's shape (2, 5)"),
                     qPrintable(w.panel()->arrayProblemText("x")));
        QVERIFY(w.panel()->arrayProblemText("kernel").isEmpty());
        QVERIFY(w.panel()->arrayProblemText("bias").isEmpty());
        QCOMPARE(w.window.scene(), good);
        w.edit("xFileEdit")->clear();

        // The mesh's data axis D must divide the batch x gives (2): 3 is refused under the kernel.
        w.window.findChild<QSpinBox*>("dataBox")->setValue(3);
        QTRY_VERIFY(w.panel()->arrayProblemText("kernel").contains("with the files' shapes"));
        QCOMPARE(w.window.scene(), good);
    }

    void sceneFileKeepsTheFiles() {
        QTemporaryDir dir;
        const Matrix weight = values(8, 4, 1.0f);
        const std::string path = dir.filePath("model.safetensors").toStdString();
        QCOMPARE(writeSafetensors(path, {{"fc.weight", {8, 4}, weight}}), std::string());
        const QString scenePath = dir.filePath("layer.tpviz");
        {
            Window w;
            QTRY_VERIFY(w.window.scene());
            w.chooseFiles();
            w.edit("kernelFileEdit")->setText(QString::fromStdString(path));
            w.window.findChild<QCheckBox*>("transposeBox")->setChecked(true);
            QTRY_VERIFY(w.showsFiles() && w.window.scene()->config.inDim == 4);
            QCOMPARE(w.window.findChild<SceneFileActions*>()->saveScene(scenePath), QString());
        }
        Window w;
        QTRY_VERIFY(w.window.scene());
        QCOMPARE(w.window.findChild<SceneFileActions*>()->openScene(scenePath), QString());
        QTRY_VERIFY(w.showsFiles());
        QCOMPARE(w.panel()->source(), SceneSource::Files);
        QVERIFY(w.panel()->arrayFiles().transpose);
        const Matrix expected = weight.transpose();
        QVERIFY(sameBits(w.window.scene()->params.kernel, expected));
    }

    void shapesShowWholeInTheDock() {
        // The window as it opens on a 1600x1000 screen: the shapes under the file inputs get all
        // their lines, not the height the form would squeeze them to.
        QTemporaryDir dir;
        const std::string kernelPath = dir.filePath("w.npy").toStdString();
        QCOMPARE(writeNpy(kernelPath, values(8, 12, 0.5f)), std::string());
        Window w;
        w.window.openOn({1600, 1000 - 40});
        w.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        w.chooseFiles();
        w.edit("kernelFileEdit")->setText(QString::fromStdString(kernelPath));
        QTRY_VERIFY(w.showsFiles());
        auto* shapes = w.window.findChild<QLabel*>("arrayShapes");
        QVERIFY(shapes);
        QCOMPARE(shapes->text().count(QLatin1Char('\n')), 2);
        QTRY_VERIFY2(shapes->height() >= shapes->sizeHint().height(),
                     qPrintable(QStringLiteral("%1 of %2 px")
                                    .arg(shapes->height())
                                    .arg(shapes->sizeHint().height())));
        // A problem under the bias takes room in the same form: the shapes keep theirs.
        w.edit("biasFileEdit")->setText(dir.filePath("missing-bias.npy"));
        QTRY_VERIFY(!w.panel()->arrayProblemText("bias").isEmpty());
        QTRY_VERIFY(shapes->height() >= shapes->sizeHint().height());
    }

    void commandLineKernel() {
        QTemporaryDir dir;
        const std::string kernelPath = dir.filePath("w.npy").toStdString();
        QCOMPARE(writeNpy(kernelPath, values(3, 4, 0.0f)), std::string());
        const AppCommandLine line = parseAppCommandLine({"--kernel", kernelPath, "--tp", "2"});
        QVERIFY2(line.errors.empty(), line.errors.empty() ? "" : line.errors.front().c_str());
        QVERIFY(line.source == SceneSource::Files);
        QCOMPARE(line.arrays.kernel, kernelPath);
        QCOMPARE(line.config.inDim, 3);
        QCOMPARE(line.config.features, 4);
        const AppCommandLine missing = parseAppCommandLine({"--kernel", "no/such.npy"});
        QVERIFY(!missing.errors.empty());
        QVERIFY(QString::fromStdString(missing.errors.front()).contains("no/such.npy"));
    }

    // `tpviz --kernel FILE` reads the file once, while parsing: the first scene computes from
    // those arrays, even when the file has gone by the time the window computes.
    void commandLineReadsTheFilesOnce() {
        QTemporaryDir dir;
        const std::string kernelPath = dir.filePath("w.npy").toStdString();
        const std::string xPath = dir.filePath("x.npy").toStdString();
        const Matrix kernel = values(3, 4, 0.5f);
        const Matrix x = values(5, 3, -1.0f);
        QCOMPARE(writeNpy(kernelPath, kernel), std::string());
        QCOMPARE(writeNpy(xPath, x), std::string());
        const AppCommandLine line =
            parseAppCommandLine({"--kernel", kernelPath, "--x", xPath, "--tp", "2"});
        QVERIFY2(line.errors.empty(), line.errors.empty() ? "" : line.errors.front().c_str());
        QVERIFY(line.loaded && line.loaded->kernel && line.loaded->x);
        QVERIFY(QFile::remove(QString::fromStdString(kernelPath)));
        QVERIFY(QFile::remove(QString::fromStdString(xPath)));
        Window w;
        QSignalSpy refused(w.window.computer(), &SceneComputer::arraysRefused);
        w.window.showConfig(line.config, line.source, line.run, line.arrays, line.loaded);
        QTRY_VERIFY(w.showsFiles());
        QCOMPARE(refused.count(), 0);
        QVERIFY(sameBits(w.window.scene()->params.kernel, kernel));
        QVERIFY(sameBits(w.window.scene()->params.x, x));
        QCOMPARE(w.window.scene()->config.batch, 5);
        QCOMPARE(w.window.scene()->config.tpSize, 2);
        QVERIFY(!w.window.scene()->kernelDrawn);
        // A later edit reads the files again: gone now, refused beside the kernel.
        w.window.findChild<QLineEdit*>("seedEdit")->setText("7");
        QTRY_VERIFY(w.panel()->arrayProblemText("kernel").contains("w.npy"));
    }
};

QTEST_MAIN(TestArrayFilesApp)
#include "tst_array_files_app.moc"
