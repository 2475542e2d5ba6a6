// tpviz-cli with arrays from files: --kernel (.npy, .safetensors with --transpose), --bias FILE,
// --x FILE, --scene, --save-npy, and every refused combination with its reason.

#include "io/npy.h"
#include "io/safetensors.h"
#include "io/scene_file.h"
#include "matrix_bits.h"
#include "python_numpy.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>
#include <fstream>

using namespace tp;
using tp::test::sameBits;

namespace {

using test::pythonPresent;
using test::pythonWithNumpy;
using Run = test::ProcessRun;

Run runCli(const QStringList& args, const QString& workingDir = {}) {
    return test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args, {.workingDirectory = workingDir});
}

QJsonObject jsonOf(const Run& run) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << error.errorString() << run.err;
    return doc.object();
}

// A JSON array of rows (or one row) as a float32 matrix: the report prints the shortest text that
// reads back to the same float32.
Matrix matrixOf(const QJsonValue& value) {
    const QJsonArray outer = value.toArray();
    if (outer.isEmpty() || !outer[0].isArray()) {
        Matrix row(1, outer.size());
        for (int j = 0; j < outer.size(); ++j)
            row(0, j) = float(outer[j].toDouble());
        return row;
    }
    Matrix m(outer.size(), outer[0].toArray().size());
    for (int i = 0; i < outer.size(); ++i)
        for (int j = 0; j < m.cols(); ++j)
            m(i, j) = float(outer[i].toArray()[j].toDouble());
    return m;
}

// Values with mixed signs and magnitudes, distinct per position.
Matrix pattern(Index rows, Index cols, float scale) {
    Matrix m(rows, cols);
    for (Index i = 0; i < m.size(); ++i)
        m.data()[i] = scale * float((i * 37) % 11 - 5) / 7.f;
    return m;
}

// A float64 .npy file written from the specification.
void writeFloat64Npy(const std::string& path, const Matrix& m) {
    std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                       std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "), }";
    while ((10 + dict.size() + 1) % 64)
        dict += ' ';
    dict += '\n';
    std::ofstream out(path, std::ios::binary);
    out << "\x93NUMPY" << char(1) << char(0) << char(dict.size() & 0xff) << char(dict.size() >> 8)
        << dict;
    for (Index i = 0; i < m.size(); ++i) {
        const double value = m.data()[i];
        out.write(reinterpret_cast<const char*>(&value), 8);
    }
}

}  // namespace

class TestCliFiles : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    std::string spath(const QString& name) const { return path(name).toStdString(); }

    const Matrix m_kernel = pattern(3, 4, 1.f);  // (in_dim 3, features 4)
    const RowVector m_bias = RowVector{{0.5f, -0.25f, 1.f, 2.f}};
    const Matrix m_x = pattern(5, 3, 2.f);  // (batch 5, in_dim 3)

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QCOMPARE(writeNpy(spath("k.npy"), m_kernel), std::string());
        QCOMPARE(writeNpy(spath("b.npy"), m_bias, true), std::string());
        QCOMPARE(writeNpy(spath("x.npy"), m_x), std::string());
        QCOMPARE(writeNpy(spath("b2d.npy"), Matrix(m_bias)), std::string());
        QCOMPARE(writeNpy(spath("b5.npy"), RowVector::Ones(5), true), std::string());
        QCOMPARE(writeNpy(spath("x4.npy"), pattern(2, 4, 1.f)), std::string());
        QCOMPARE(writeNpy(spath("v.npy"), RowVector::Ones(3), true), std::string());
        // PyTorch's layout: weight (out 4, in 3).
        QCOMPARE(
            writeSafetensors(spath("m.safetensors"), {{"fc.weight", {4, 3}, m_kernel.transpose()},
                                                      {"fc.bias", {4}, Matrix(m_bias)}}),
            std::string());
    }

    void kernelFromNpyBiasZerosXFromTheSeed() {
        const Run run = runCli(
            {"--kernel", path("k.npy"), "--tp", "2", "--seed", "7", "--batch", "2", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = jsonOf(run);
        QCOMPARE(doc["config"]["in_dim"].toInt(), 3);
        QCOMPARE(doc["config"]["features"].toInt(), 4);
        QCOMPARE(doc["config"]["source"].toString(), QString("files"));
        QVERIFY(sameBits(matrixOf(doc["kernel"]), m_kernel));
        QVERIFY(sameBits(matrixOf(doc["bias"]), Matrix::Zero(1, 4)));
        // x is drawn exactly as for nnx.Linear(3, 4, rngs=nnx.Rngs(7)).
        const LayerConfig seeded{.batch = 2, .inDim = 3, .features = 4, .tpSize = 2, .seed = 7};
        QVERIFY(sameBits(matrixOf(doc["x"]), initLayer(seeded).x));
    }

    void everyArrayFromFilesInRowMode() {
        const Run run = runCli({"--kernel", path("k.npy"), "--bias", path("b.npy"), "--x",
                                path("x.npy"), "--mode", "row", "--tp", "3", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = jsonOf(run);
        QCOMPARE(doc["config"]["batch"].toInt(), 5);
        QVERIFY(sameBits(matrixOf(doc["kernel"]), m_kernel));
        QVERIFY(sameBits(matrixOf(doc["bias"]), Matrix(m_bias)));
        QVERIFY(sameBits(matrixOf(doc["x"]), m_x));
        QVERIFY(run.err.isEmpty());
    }

    void safetensorsWeightTransposed() {
        const Run run =
            runCli({"--kernel", path("m.safetensors") + ":fc.weight", "--transpose", "--bias",
                    path("m.safetensors") + ":fc.bias", "--tp", "4", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = jsonOf(run);
        QVERIFY(sameBits(matrixOf(doc["kernel"]), m_kernel));
        QVERIFY(sameBits(matrixOf(doc["bias"]), Matrix(m_bias)));
        QVERIFY(run.err.contains("transposed from (4, 3) (out, in) to (3, 4) (in, out)"));
    }

    void float64KernelIsConvertedWithANotice() {
        writeFloat64Npy(spath("k64.npy"), m_kernel);
        const Run run = runCli({"--kernel", path("k64.npy"), "--tp", "2", "--json"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(sameBits(matrixOf(jsonOf(run)["kernel"]), m_kernel));
        QVERIFY2(run.err.contains("tpviz-cli: note: kernel: " + path("k64.npy").toUtf8() +
                                  ": converted from float64 to float32"),
                 run.err.constData());
    }

    void refusedWithTheReason_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString k = path("k.npy");
        QTest::newRow("missing kernel")
            << QStringList{"--kernel", path("nope.npy")}
            << "kernel: " + path("nope.npy") + ": cannot be opened: No such file or directory";
        QTest::newRow("bias of 5 for 4 features")
            << QStringList{"--kernel", k, "--tp", "2", "--bias", path("b5.npy")}
            << "bias: features (4) does not match the bias's shape (5,), (features,)";
        QTest::newRow("2-D bias") << QStringList{"--kernel", k,        "--tp",
                                                 "2",        "--bias", path("b2d.npy")}
                                  << "has shape (1, 4); a bias is 1-D, (features,)";
        QTest::newRow("x of in_dim 4")
            << QStringList{"--kernel", k, "--tp", "2", "--x", path("x4.npy")}
            << "x: in_dim (3) does not match x's shape (2, 4), (batch, in_dim)";
        QTest::newRow("1-D kernel") << QStringList{"--kernel", path("v.npy")}
                                    << "has shape (3,); a kernel is 2-D, (in_dim, features)";
        QTest::newRow("--in-dim disagrees")
            << QStringList{"--kernel", k, "--in-dim", "8", "--tp", "2"}
            << "kernel: in_dim (8) does not match the kernel's shape (3, 4), (in_dim, features)";
        QTest::newRow("--batch disagrees with x")
            << QStringList{"--kernel", k, "--x", path("x.npy"), "--batch", "2", "--tp", "2"}
            << "x: batch (2) does not match x's shape (5, 3)";
        QTest::newRow("tp does not divide") << QStringList{"--kernel", k, "--tp", "3"}
                                            << "features (4) is not divisible by tp_size (3)";
        QTest::newRow("transpose of an npy")
            << QStringList{"--kernel", k, "--transpose"}
            << "transposing applies to a kernel from a .safetensors file";
        QTest::newRow("transpose alone")
            << QStringList{"--transpose"}
            << "--transpose applies to --kernel FILE.safetensors:TENSOR";
        QTest::newRow("safetensors without a name")
            << QStringList{"--kernel", path("m.safetensors")}
            << "name the tensor to read as FILE.safetensors:TENSOR_NAME (its 2-D tensors: "
               "fc.weight)";
        QTest::newRow("no such tensor")
            << QStringList{"--kernel", path("m.safetensors") + ":fc.wieght"}
            << "no tensor named 'fc.wieght' (its 2-D tensors: fc.weight)";
        QTest::newRow("brief with a kernel")
            << QStringList{"--example", "brief", "--kernel", k}
            << "--example brief has its own arrays; it cannot be combined with --kernel";
        QTest::newRow("python with a kernel")
            << QStringList{"--python", "--kernel", k, "--tp", "2"}
            << "--python builds the layer from the seed; it cannot use array files";
        QTest::newRow("save-npy with python") << QStringList{"--python", "--save-npy", path("o")}
                                              << "--save-npy writes the scene's arrays";
        QTest::newRow("missing scene")
            << QStringList{"--scene", path("nope.tpviz")}
            << "--scene: " + path("nope.tpviz") + ": cannot be opened: No such file or directory";
        QTest::newRow("save-npy into a file")
            << QStringList{"--save-npy", k + "/out"} << "--save-npy: " + k + "/out";
    }
    void refusedWithTheReason() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(err.startsWith("tpviz-cli: ") && err.contains(message), run.err.constData());
    }

    void sceneFileWithOverrides() {
        SceneFile scene;
        scene.config = {.batch = 3, .inDim = 4, .features = 6, .tpSize = 2, .seed = 9};
        QCOMPARE(writeSceneFile(spath("s.tpviz"), scene), std::string());
        const QJsonObject doc = jsonOf(runCli({"--scene", path("s.tpviz"), "--json"}));
        QCOMPARE(doc["config"]["batch"].toInt(), 3);
        QCOMPARE(doc["config"]["features"].toInt(), 6);
        QCOMPARE(doc["config"]["tp_size"].toInt(), 2);
        const Run same = runCli({"--batch", "3", "--in-dim", "4", "--features", "6", "--tp", "2",
                                 "--seed", "9", "--json"});
        QCOMPARE(doc, jsonOf(same));

        const QJsonObject over =
            jsonOf(runCli({"--tp", "3", "--scene", path("s.tpviz"), "--json"}));
        QCOMPARE(over["config"]["tp_size"].toInt(), 3);
        QCOMPARE(over["config"]["seed"].toInt(), 9);
    }

    // A scene saved with the backward pass asked for prints it, as --backward does.
    void sceneFileKeepsTheBackward() {
        SceneFile scene;
        scene.config = {.batch = 3, .inDim = 4, .features = 6, .tpSize = 2, .seed = 9};
        scene.backward = true;
        QCOMPARE(writeSceneFile(spath("b.tpviz"), scene), std::string());
        const QJsonObject doc = jsonOf(runCli({"--scene", path("b.tpviz"), "--json"}));
        QVERIFY(doc.contains("backward"));
        const Run same = runCli({"--batch", "3", "--in-dim", "4", "--features", "6", "--tp", "2",
                                 "--seed", "9", "--backward", "--json"});
        QCOMPARE(doc, jsonOf(same));
    }

    void sceneFileArraysAreRelativeToIt() {
        QVERIFY(QDir(m_dir.path()).mkpath("scenes"));
        QFile file(path("scenes/rel.tpviz"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "tpviz-scene", "version": 1, "tp_size": 2,
                       "arrays": {"kernel": "../k.npy", "bias": "../b.npy"}})");
        file.close();
        const Run run = runCli({"--scene", path("scenes/rel.tpviz"), "--json"}, QDir::rootPath());
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = jsonOf(run);
        QVERIFY(sameBits(matrixOf(doc["kernel"]), m_kernel));
        QVERIFY(sameBits(matrixOf(doc["bias"]), Matrix(m_bias)));

        const Run bad = runCli({"--scene", path("scenes/rel.tpviz"), "--kernel", path("v.npy")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("a kernel is 2-D"));
    }

    void saveNpyMatchesJsonBitForBit_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("files, column, tp 2")
            << QStringList{"--kernel", path("k.npy"), "--bias", path("b.npy"), "--tp", "2"};
        QTest::newRow("files, row, tp 3") << QStringList{
            "--kernel", path("k.npy"), "--x", path("x.npy"), "--mode", "row", "--tp", "3"};
        QTest::newRow("nnx, column, tp 4, bias normal")
            << QStringList{"--batch", "3", "--in-dim", "5",          "--features", "8",
                           "--tp",    "4", "--bias",   "normal:0.5", "--seed",     "42"};
    }
    void saveNpyMatchesJsonBitForBit() {
        QFETCH(QStringList, args);
        const QString out = path(QString("save-%1").arg(QTest::currentDataTag()).replace(' ', '_'));
        const Run run = runCli(args + QStringList{"--json", "--save-npy", out});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = jsonOf(run);

        // Each file against the JSON document's array of the same name.
        QMap<QString, QJsonValue> expected = {{"kernel", doc["kernel"]},
                                              {"bias", doc["bias"]},
                                              {"x", doc["x"]},
                                              {"output", doc["output"]},
                                              {"reference", doc["reference"]}};
        const QJsonArray groups = doc["groups"].toArray();
        for (int k = 0; k < groups.size(); ++k) {
            expected[QString("partial_%1").arg(k)] = groups[k]["partial"];
            if (groups[k].toObject().contains("running_sum"))
                expected[QString("running_sum_%1").arg(k)] = groups[k]["running_sum"];
        }
        QStringList files = QDir(out).entryList({"*.npy"}, QDir::Files);
        QCOMPARE(files.size(), expected.size());
        QString hexes;
        for (auto it = expected.begin(); it != expected.end(); ++it) {
            const FloatArrayRead read =
                readNpy((out + "/" + it.key() + ".npy").toStdString(), std::int64_t(1) << 30);
            QVERIFY2(read.array, read.error.c_str());
            QVERIFY2(sameBits(read.array->values, matrixOf(it.value())), qPrintable(it.key()));
            QCOMPARE(read.array->shape.size(), std::size_t(it.key() == "bias" ? 1 : 2));
            const Matrix& v = read.array->values;
            hexes +=
                it.key() + " " +
                QByteArray(reinterpret_cast<const char*>(v.data()), int(v.size() * 4)).toHex() +
                "\n";
        }

        // numpy loads every file as float32 with the same bits.
        if (!pythonPresent())
            QSKIP("python3 is not installed (cmake/install-deps.sh installs python3-numpy)");
        QVERIFY2(!pythonWithNumpy().isEmpty(),
                 "python3 cannot import numpy: install python3-numpy (cmake/install-deps.sh)");
        const QString script =
            "import sys, os, numpy as np\n"
            "for name in sys.argv[2:]:\n"
            "    a = np.load(os.path.join(sys.argv[1], name + '.npy'))\n"
            "    assert a.dtype == np.float32, a.dtype\n"
            "    print(name, a.tobytes().hex())";
        const test::ProcessRun numpy = test::runNumpy(script, QStringList{out} + expected.keys());
        QVERIFY2(numpy.finished, qPrintable(numpy.errText()));
        QCOMPARE(numpy.errText(), QString());
        QCOMPARE(numpy.outText(), hexes);
    }
};

QTEST_APPLESS_MAIN(TestCliFiles)
#include "tst_cli_files.moc"
