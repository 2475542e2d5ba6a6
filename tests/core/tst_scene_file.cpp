// The .tpviz scene file: a round trip, a file written by hand, array paths relative to the file,
// and every malformed file naming the key and the reason.

#include "io/scene_file.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace tp;

namespace {

QString errorsOf(const SceneFileRead& read) {
    QStringList lines;
    for (const std::string& e : read.errors)
        lines << QString::fromStdString(e);
    return lines.join('\n');
}

SceneFileRead parse(const std::string& text) {
    return parseSceneFile(text, "/scenes", "s.tpviz");
}

}  // namespace

class TestSceneFile : public QObject {
    Q_OBJECT

private slots:
    void handWrittenFileReads() {
        const SceneFileRead read = parse(R"({"format": "tpviz-scene", "version": 1,
            "batch": 5, "in_dim": 6, "features": 16, "tp_size": 4, "seed": -7, "mode": "row",
            "prng": "legacy", "x64": true, "bias": "normal:0.25", "step": 3})");
        QCOMPARE(errorsOf(read), QString());
        const SceneFile& s = *read.scene;
        const LayerConfig expected{.batch = 5,
                                   .inDim = 6,
                                   .features = 16,
                                   .tpSize = 4,
                                   .seed = -7,
                                   .mode = ParallelMode::Row,
                                   .prng = PrngLayout::Legacy,
                                   .x64 = true,
                                   .bias = {BiasInit::Kind::Normal, 0.25f}};
        QVERIFY(s.config == expected);
        QCOMPARE(s.step, std::int64_t(3));
        QVERIFY(s.source == SceneSource::Nnx);
        QVERIFY(!s.arrays.any());
    }

    void meshLayoutAndMistakeRead() {
        const SceneFileRead read = parse(R"({"format": "tpviz-scene", "version": 1,
            "batch": 4, "mode": "row", "data": 2, "output": "sharded",
            "mistake": "bias-per-partial"})");
        QCOMPARE(errorsOf(read), QString());
        QCOMPARE(read.scene->config.dataSize, std::int64_t(2));
        QVERIFY(read.scene->config.output == OutputLayout::Sharded);
        QVERIFY(read.scene->mistake == Mistake::BiasPerPartial);
        // Left out: one data row of devices, the mode's own layout, no mistake.
        const SceneFileRead plain = parse(R"({"format": "tpviz-scene", "version": 1})");
        QCOMPARE(plain.scene->config.dataSize, std::int64_t(1));
        QVERIFY(!plain.scene->config.output);
        QVERIFY(plain.scene->mistake == Mistake::None);
    }

    // The MLP block's keys: written for the block only, read back; a file without them is one
    // Linear, as every file written before the block was.
    void theBlockAndItsHiddenWidthRoundTrip() {
        SceneFile scene;
        scene.config.block = Block::Mlp;
        scene.config.hidden = 48;
        scene.config.features = 8;
        scene.config.tpSize = 4;
        scene.mistake = Mistake::RowThenColumn;
        scene.step = 5;
        const std::string text = sceneFileText(scene, "/scenes");
        QVERIFY(QString::fromStdString(text).contains(QStringLiteral("\"block\": \"mlp\"")));
        QVERIFY(QString::fromStdString(text).contains(QStringLiteral("\"hidden\": 48")));
        const SceneFileRead read = parse(text);
        QCOMPARE(errorsOf(read), QString());
        QVERIFY(*read.scene == scene);
        const std::string linear = sceneFileText(SceneFile{}, "/scenes");
        QVERIFY(!QString::fromStdString(linear).contains(QStringLiteral("block")));
        QVERIFY(!QString::fromStdString(linear).contains(QStringLiteral("hidden")));
        QVERIFY(parse(linear).scene->config.block == Block::Linear);
        const SceneFileRead bad =
            parse(R"({"format": "tpviz-scene", "version": 1, "block": "mlp2", "hidden": 1.5})");
        QVERIFY(errorsOf(bad).contains(QStringLiteral("'block' 'mlp2' is not linear or mlp")));
        QVERIFY(errorsOf(bad).contains(QStringLiteral("'hidden' is not a whole number")));
    }

    // The sharding layout: written when it is not tensor, read back, refused in words when it is
    // not one of the three; a file without it is the tensor layout.
    void theLayoutRoundTrips_data() {
        QTest::addColumn<int>("layout");
        QTest::newRow("fsdp") << int(ShardingLayout::Fsdp);
        QTest::newRow("sequence") << int(ShardingLayout::Sequence);
    }
    void theLayoutRoundTrips() {
        QFETCH(int, layout);
        SceneFile scene;
        scene.config.layout = ShardingLayout(layout);
        scene.config.batch = 4;
        scene.config.dataSize = 2;
        scene.backward = true;
        const std::string text = sceneFileText(scene, "/scenes");
        const QString name = QString::fromUtf8(toString(scene.config.layout));
        QVERIFY2(QString::fromStdString(text).contains("\"layout\": \"" + name + "\""),
                 text.c_str());
        const SceneFileRead read = parse(text);
        QCOMPARE(errorsOf(read), QString());
        QVERIFY(read.scene->config.layout == scene.config.layout);
        QVERIFY(*read.scene == scene);
    }
    void theLayoutIsTensorWithoutItAndRefusedInWords() {
        const std::string tensor = sceneFileText(SceneFile{}, "/scenes");
        QVERIFY(!QString::fromStdString(tensor).contains(QStringLiteral("layout")));
        QVERIFY(parse(tensor).scene->config.layout == ShardingLayout::Tensor);
        const SceneFileRead bad =
            parse(R"({"format": "tpviz-scene", "version": 1, "layout": "zero3"})");
        QVERIFY(!bad.scene);
        QVERIFY2(errorsOf(bad).contains(
                     QStringLiteral("'layout' 'zero3' is not tensor, fsdp or sequence")),
                 qPrintable(errorsOf(bad)));
        const SceneFileRead number =
            parse(R"({"format": "tpviz-scene", "version": 1, "layout": 2})");
        QVERIFY(errorsOf(number).contains(QStringLiteral("'layout' is not a string")));
    }

    void missingKeysKeepTheirDefaults() {
        const SceneFileRead read = parse(R"({"format": "tpviz-scene", "version": 1})");
        QCOMPARE(errorsOf(read), QString());
        QVERIFY(read.scene->config == LayerConfig());
        QCOMPARE(read.scene->step, std::int64_t(0));
    }

    void arrayPathsAreRelativeToTheFile() {
        const SceneFileRead read = parse(R"({"format": "tpviz-scene", "version": 1,
            "arrays": {"kernel": "../w/model.safetensors:fc.weight", "transpose": true,
                       "bias": "b.npy", "x": "/data/x.npy"}})");
        QCOMPARE(errorsOf(read), QString());
        const ArrayFiles& a = read.scene->arrays;
        QCOMPARE(a.kernel, std::string("/w/model.safetensors:fc.weight"));
        QVERIFY(a.transpose);
        QCOMPARE(a.bias, std::string("/scenes/b.npy"));
        QCOMPARE(a.x, std::string("/data/x.npy"));
        QVERIFY(read.scene->source == SceneSource::Files);
    }

    // Every path a file may name reads back the same after it is written again: the scene file's
    // own folder ("/scenes" relative to "/scenes" is ".", which would read as "/scenes/"), the
    // root, a trailing slash, repeated slashes and dot segments.
    void oddPathsSurviveARoundTrip_data() {
        QTest::addColumn<QString>("written");
        QTest::newRow("the file's folder") << "/scenes";
        QTest::newRow("the folder, relative") << ".";
        QTest::newRow("the root") << "/";
        QTest::newRow("above the root") << "../../..";
        QTest::newRow("trailing slash") << "w/";
        QTest::newRow("repeated slashes") << "///a//./b/../c.npy";
        QTest::newRow("a tensor of the folder") << "/scenes/.safetensors:t";
    }
    void oddPathsSurviveARoundTrip() {
        QFETCH(QString, written);
        const std::string text =
            "{\"format\": \"tpviz-scene\", \"version\": 1, "
            "\"arrays\": {\"kernel\": \"" +
            written.toStdString() + "\"}}";
        const SceneFileRead read = parse(text);
        QCOMPARE(errorsOf(read), QString());
        const SceneFileRead again = parse(sceneFileText(*read.scene, "/scenes"));
        QCOMPARE(errorsOf(again), QString());
        QCOMPARE(again.scene->arrays.kernel, read.scene->arrays.kernel);
    }

    void roundTripThroughAFile() {
        QTemporaryDir dir;
        SceneFile scene;
        scene.config = {.batch = 3,
                        .inDim = 4,
                        .features = 6,
                        .tpSize = 2,
                        .seed = 1234567890123,
                        .mode = ParallelMode::Column,
                        .prng = PrngLayout::Legacy,
                        .x64 = true,
                        .bias = {BiasInit::Kind::Normal, 0.1f}};
        scene.step = 2;
        scene.source = SceneSource::Files;
        scene.arrays = {.kernel = dir.filePath("w/k.safetensors:layer.0").toStdString(),
                        .transpose = true,
                        .bias = dir.filePath("b.npy").toStdString(),
                        .x = "/elsewhere/x.npy"};
        const std::string file = dir.filePath("scene.tpviz").toStdString();
        QCOMPARE(writeSceneFile(file, scene), std::string());
        const SceneFileRead read = readSceneFile(file);
        QCOMPARE(errorsOf(read), QString());
        QVERIFY(*read.scene == scene);

        // Written relative to the scene file, so the folder can move.
        const std::string text = sceneFileText(scene, dir.path().toStdString());
        QVERIFY(QString::fromStdString(text).contains(R"("kernel": "w/k.safetensors:layer.0")"));
        QVERIFY(QString::fromStdString(text).contains(R"("bias": "b.npy")"));

        SceneFile mesh;
        mesh.config.batch = 4;
        mesh.config.dataSize = 2;
        mesh.config.output = OutputLayout::Replicated;
        mesh.mistake = Mistake::SumGroups;
        QCOMPARE(writeSceneFile(file, mesh), std::string());
        QVERIFY(*readSceneFile(file).scene == mesh);

        SceneFile backward;
        backward.backward = true;
        QCOMPARE(writeSceneFile(file, backward), std::string());
        QVERIFY(readSceneFile(file).scene->backward);
        QVERIFY(!readSceneFile(file).scene->config.output);

        SceneFile brief;
        brief.source = SceneSource::Brief;
        QCOMPARE(writeSceneFile(file, brief), std::string());
        QVERIFY(*readSceneFile(file).scene == brief);
    }

    void malformedFilesNameTheKey_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        auto add = [](const char* name, const std::string& body, const char* message) {
            QTest::newRow(name) << QString::fromStdString(body) << QString(message);
        };
        add("not JSON", R"({"format": )", "s.tpviz: not valid JSON");
        add("not an object", "[1, 2]", "s.tpviz: not a JSON object");
        // Found by fuzz_scene_file: a number past a double's range threw out of the parser.
        add("number past a double", R"({"format": "tpviz-scene", "in_dim": 1e400})",
            "s.tpviz: not valid JSON");
        // JSON allows a key twice and the last one won: a scene says one value for each.
        add("a key twice", R"({"format": "tpviz-scene", "version": 1, "batch": 2, "batch": 6})",
            "s.tpviz: the key 'batch' is given twice in one object");
        add("a key twice in arrays",
            R"({"format": "tpviz-scene", "version": 1, "arrays": {"x": "a.npy", "x": "b.npy"}})",
            "s.tpviz: the key 'x' is given twice in one object");
        // The command line refuses --hidden without --block mlp; the file says the same.
        add("hidden in a Linear", R"({"format": "tpviz-scene", "version": 1, "hidden": 32})",
            "s.tpviz: 'hidden' is the MLP block's hidden width, and without \"block\": \"mlp\" "
            "the scene is one Linear");
        add("no format", R"({"version": 1})", "s.tpviz: the key 'format' is missing");
        add("wrong format", R"({"format": "png", "version": 1})",
            "s.tpviz: 'format' is not \"tpviz-scene\"");
        add("version 2", R"({"format": "tpviz-scene", "version": 2})",
            "s.tpviz: 'version' is not 1, the version this program reads");
        add("batch a string", R"({"format": "tpviz-scene", "version": 1, "batch": "4"})",
            "s.tpviz: 'batch' is not a whole number");
        add("in_dim a fraction", R"({"format": "tpviz-scene", "version": 1, "in_dim": 2.5})",
            "s.tpviz: 'in_dim' is not a whole number");
        add("seed past int64",
            R"({"format": "tpviz-scene", "version": 1, "seed": 18446744073709551615})",
            "s.tpviz: 'seed' is out of the int64 range");
        add("mode unknown", R"({"format": "tpviz-scene", "version": 1, "mode": "diagonal"})",
            "s.tpviz: 'mode' 'diagonal' is not column or row");
        add("prng a number", R"({"format": "tpviz-scene", "version": 1, "prng": 1})",
            "s.tpviz: 'prng' is not a string");
        add("x64 a string", R"({"format": "tpviz-scene", "version": 1, "x64": "yes"})",
            "s.tpviz: 'x64' is not true or false");
        add("backward a number", R"({"format": "tpviz-scene", "version": 1, "backward": 1})",
            "s.tpviz: 'backward' is not true or false");
        add("bias bad", R"({"format": "tpviz-scene", "version": 1, "bias": "normal:-1"})",
            "s.tpviz: 'bias' 'normal:-1' is not zeros or normal:STDDEV");
        add("step negative", R"({"format": "tpviz-scene", "version": 1, "step": -1})",
            "s.tpviz: 'step' is negative");
        add("data a string", R"({"format": "tpviz-scene", "version": 1, "data": "2"})",
            "s.tpviz: 'data' is not a whole number");
        add("output unknown", R"({"format": "tpviz-scene", "version": 1, "output": "gathered"})",
            "s.tpviz: 'output' 'gathered' is not sharded or replicated");
        add("mistake unknown", R"({"format": "tpviz-scene", "version": 1, "mistake": "typo"})",
            "s.tpviz: 'mistake' 'typo' is not a mistake tpviz makes");
        add("unknown key", R"({"format": "tpviz-scene", "version": 1, "colour": "red"})",
            "s.tpviz: unknown key 'colour' (known keys: format, version, batch");
        add("arrays not object", R"({"format": "tpviz-scene", "version": 1, "arrays": "k.npy"})",
            "s.tpviz: 'arrays' is not an object");
        add("arrays unknown key",
            R"({"format": "tpviz-scene", "version": 1, "arrays": {"weights": "k.npy"}})",
            "s.tpviz: 'arrays' has the unknown key 'weights'");
        add("arrays path a number",
            R"({"format": "tpviz-scene", "version": 1, "arrays": {"kernel": 3}})",
            "s.tpviz: 'arrays' has 'kernel' that is not a file path");
        add("arrays path empty", R"({"format": "tpviz-scene", "version": 1, "arrays": {"x": ""}})",
            "s.tpviz: 'arrays' has 'x' that is empty; it must name a file");
        // std::string keeps the NUL; the operating system would read "k.npy".
        add("arrays path with a NUL",
            "{\"format\": \"tpviz-scene\", \"version\": 1, \"arrays\": {\"kernel\": "
            "\"k.npy\\u0000junk\"}}",
            "s.tpviz: 'arrays' has 'kernel' 'k.npy\\u0000junk' that holds a NUL character, which "
            "no file name can");
        // Escape sequences from the file are shown, not obeyed, by the terminal.
        add("control characters in a key",
            "{\"format\": \"tpviz-scene\", \"version\": 1, \"\\u001b]0;x\\u0007\\u001b[2J\": 1}",
            "s.tpviz: unknown key '\\u001b]0;x\\u0007\\u001b[2J' (known keys:");
        add("control characters in a value",
            "{\"format\": \"tpviz-scene\", \"version\": 1, \"mode\": \"\\u001b[2J\"}",
            "s.tpviz: 'mode' '\\u001b[2J' is not column or row");
        add("nested 100,000 deep",
            "{\"format\": \"tpviz-scene\", \"version\": 1, \"batch\": " +
                std::string(100'000, '[') + std::string(100'000, ']') + "}",
            "s.tpviz: nested deeper than 64 levels (at byte 112); a scene file is 2 levels deep");
        add("example and arrays",
            R"({"format": "tpviz-scene", "version": 1, "example": "brief",
                "arrays": {"kernel": "k.npy"}})",
            "s.tpviz: 'example' and 'arrays' cannot both be given");
    }
    void malformedFilesNameTheKey() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const SceneFileRead read = parse(text.toStdString());
        QVERIFY(!read.scene);
        QVERIFY2(errorsOf(read).contains(message), qPrintable(errorsOf(read)));
    }

    // A million unknown keys are one sentence naming the first ten, not a million lines.
    void unknownKeysAreCapped() {
        std::string text = "{\"format\": \"tpviz-scene\", \"version\": 1";
        for (int i = 0; i < 1'000'000; ++i)
            text += ", \"k" + std::to_string(1'000'000 + i) + "\": 0";
        text += "}";
        const SceneFileRead read = parse(text);
        QCOMPARE(read.errors.size(), std::size_t(1));
        QVERIFY2(read.errors.front().starts_with(
                     "s.tpviz: unknown keys 'k1000000', 'k1000001', 'k1000002', 'k1000003', "
                     "'k1000004', 'k1000005', 'k1000006', 'k1000007', 'k1000008', 'k1000009' and "
                     "999990 more (known keys: format, version,"),
                 read.errors.front().c_str());
        QVERIFY(read.errors.front().size() < 400);
    }

    void everyProblemIsReported() {
        const SceneFileRead read =
            parse(R"({"format": "tpviz-scene", "version": 1, "batch": "2", "tp": 3})");
        QCOMPARE(read.errors.size(), std::size_t(2));
    }

    void missingFileIsRefused() {
        const SceneFileRead read = readSceneFile("/nonexistent/s.tpviz");
        QCOMPARE(errorsOf(read),
                 QString("/nonexistent/s.tpviz: cannot be opened: No such file or directory"));
    }
};

QTEST_APPLESS_MAIN(TestSceneFile)
#include "tst_scene_file.moc"
