// Scene options spelled back as arguments (sceneArguments): every option of the table, both
// spellings, read back by parseSceneOptions to the same options.

#include "io/npy.h"
#include "io/safetensors.h"
#include "io/scene_file.h"
#include "scene/option_rows.h"
#include "scene/scene_arguments.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using namespace tp;

Q_DECLARE_METATYPE(std::vector<std::string>)

namespace {

// tpviz's own extras: one with a value, one flag.
const std::vector<ExtraOption> kExtras = {{"--screenshot", "FILE", "save a picture"},
                                          {"--quiet", "", "print nothing"}};

QString joined(const std::vector<std::string>& args) {
    QStringList words;
    for (const std::string& arg : args)
        words << QString::fromStdString(arg);
    return words.join(' ');
}

QString errorsOf(const SceneOptionsParse& parse) {
    QStringList lines;
    for (const std::string& error : parse.errors)
        lines << QString::fromStdString(error);
    return lines.join('\n');
}

}  // namespace

class TestSceneArguments : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

    // Named argument lists that parse without errors; together they give every option.
    std::vector<std::pair<const char*, std::vector<std::string>>> cases() const {
        return {
            {"defaults", {}},
            {"layer", {"--batch", "6",          "--in-dim", "32",     "--features",
                       "12",      "--tp",       "4",        "--seed", "-9223372036854775808",
                       "--mode",  "row",        "--prng",   "legacy", "--x64",
                       "--bias",  "normal:0.1", "--data",   "3",      "--output",
                       "sharded"}},
            {"brief", {"--example", "brief", "--mode", "row", "--tp", "2", "--output=replicated"}},
            {"mistake", {"--mistake", "sum-groups", "--tp", "4"}},
            {"costs", {"--costs", "--hardware", "tpu-v4", "--json"}},
            {"tolerance", {"--rtol", "1e-300", "--summary"}},
            {"backward", {"--backward", "--mode", "row", "--tp", "4", "--json"}},
            {"mlp block", {"--block", "mlp", "--hidden", "48", "--tp", "6", "--backward"}},
            {"layout", {"--layout", "sequence", "--costs", "--tp", "2", "--mode", "row"}},
            {"python", {"--python", "--seed", "4294967296", "--x64"}},
            {"python layout",
             {"--python", "--layout", "fsdp", "--data", "2", "--batch", "4", "--backward"}},
            // A scene file's layout without --costs or --python stays the file's.
            {"scene file layout", {"--scene", path("layout.tpviz")}},
            {"extras", {"--screenshot", "a b.png", "--quiet"}},
            {"help", {"--tp", "0", "-h"}},
            {"hardware list", {"--hardware=list"}},
            {"files",
             {"--scene", path("s.tpviz"), "--kernel", path("w.safetensors") + ":fc.weight",
              "--transpose", "--bias", path("b.npy"), "--x", path("x.npy"), "--save-npy",
              path("out"), "--tp", "2"}},
        };
    }

    // For each option, argument lists that give it a value other than its default (the fewest other
    // options that value needs). Every row of the table must have one: a new option without one
    // fails everyRowReadsBack.
    std::vector<std::pair<std::string, std::vector<std::string>>> rowSamples() const {
        return {
            {"--batch", {"--batch", "6"}},
            {"--in-dim", {"--in-dim", "32"}},
            {"--features", {"--features", "6"}},
            {"--tp", {"--tp", "4"}},
            {"--seed", {"--seed", "-9223372036854775808"}},
            {"--mode", {"--mode", "row", "--tp", "4"}},
            {"--prng", {"--prng", "legacy"}},
            {"--x64", {"--x64"}},
            {"--bias", {"--bias", "normal:0.1"}},
            {"--bias", {"--bias", path("b.npy"), "--features", "6"}},
            {"--example", {"--example", "brief"}},
            {"--data", {"--data", "2"}},
            {"--output", {"--output", "replicated"}},
            {"--block", {"--block", "mlp"}},
            {"--hidden", {"--block", "mlp", "--hidden", "16"}},
            {"--layout", {"--layout", "fsdp", "--costs"}},
            {"--costs", {"--costs"}},
            {"--hardware", {"--costs", "--hardware", "tpu-v4"}},
            {"--hardware", {"--hardware", "list"}},
            {"--kernel", {"--kernel", path("k.npy")}},
            {"--transpose", {"--kernel", path("w.safetensors") + ":fc.weight", "--transpose"}},
            {"--x", {"--x", path("x.npy")}},
            {"--scene", {"--scene", path("s.tpviz")}},
            {"--save-npy", {"--save-npy", path("out")}},
            {"--mistake", {"--mistake", "sum-groups"}},
            {"--rtol", {"--rtol", "1e-300"}},
            {"--atol", {"--atol", "0.5"}},
            {"--backward", {"--backward"}},
            {"--json", {"--json"}},
            {"--summary", {"--summary"}},
            {"--python", {"--python"}},
            {"--help", {"--help"}},
        };
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // A kernel stored (features 6, in_dim 4) as PyTorch does, bias (6,), x (3, 4), and a scene
        // file whose seed the arguments keep.
        const std::string written =
            writeSafetensors(path("w.safetensors"), {{"fc.weight", {6, 4}, Matrix::Ones(6, 4)}}) +
            writeNpy(path("b.npy"), Matrix::Zero(1, 6), true) +
            writeNpy(path("x.npy"), Matrix::Ones(3, 4)) +
            writeNpy(path("k.npy"), Matrix::Ones(4, 6));
        QCOMPARE(QString::fromStdString(written), QString());
        SceneFile scene;
        scene.config.seed = 77;
        QCOMPARE(QString::fromStdString(writeSceneFile(path("s.tpviz"), scene)), QString());
        SceneFile layout;
        layout.config.layout = ShardingLayout::Sequence;
        layout.config.batch = 6;
        QCOMPARE(QString::fromStdString(writeSceneFile(path("layout.tpviz"), layout)), QString());
    }

    void readBackToTheSameOptions_data() {
        QTest::addColumn<std::vector<std::string>>("args");
        for (const auto& [name, args] : cases())
            QTest::newRow(name) << args;
    }

    void readBackToTheSameOptions() {
        QFETCH(std::vector<std::string>, args);
        const SceneOptionsParse parse = parseSceneOptions(args, kExtras);
        QCOMPARE(errorsOf(parse), QString());
        const std::vector<std::string> spelled = sceneArguments(parse.options, kExtras);
        for (const ValueSpelling spelling : {ValueSpelling::Separate, ValueSpelling::Inline}) {
            const std::vector<std::string> rebuilt =
                sceneArguments(parse.options, kExtras, spelling);
            const SceneOptionsParse again = parseSceneOptions(rebuilt, kExtras);
            QCOMPARE(errorsOf(again), QString());
            const SceneOptions& a = parse.options;
            const SceneOptions& b = again.options;
            QVERIFY2(a.config == b.config, qPrintable(joined(rebuilt)));
            QVERIFY(a.source == b.source && a.mistake == b.mistake && a.files == b.files);
            QVERIFY(a.hardware == b.hardware && a.costs == b.costs);
            QVERIFY(a.listHardware == b.listHardware && a.help == b.help);
            QVERIFY(a.json == b.json && a.summary == b.summary && a.python == b.python);
            QVERIFY(a.backward == b.backward);
            QCOMPARE(b.toleranceGiven, a.toleranceGiven);
            QCOMPARE(b.tolerance.rtol, a.tolerance.rtol);
            QCOMPARE(b.tolerance.atol, a.tolerance.atol);
            QCOMPARE(b.sceneFile, a.sceneFile);
            QCOMPARE(b.saveNpyDir, a.saveNpyDir);
            QVERIFY(a.extras == b.extras);
            // Spelled again, the options give the same words: nothing is lost on the way.
            QCOMPARE(joined(sceneArguments(b, kExtras)), joined(spelled));
        }
    }

    // Each row, given a value other than its default, spells it (its spelling differs from the
    // default's) and reads back from its spelling to the same options.
    void everyRowReadsBack_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<std::vector<std::string>>("args");
        for (const OptionRow& row : optionRows()) {
            const std::string name(row.name);
            int count = 0;
            for (const auto& [option, args] : rowSamples())
                if (option == name)
                    QTest::addRow("%s %d", name.c_str(), ++count)
                        << QString::fromStdString(name) << args;
            if (count == 0)
                QTest::addRow("%s without a sample", name.c_str())
                    << QString::fromStdString(name) << std::vector<std::string>{};
        }
    }

    void everyRowReadsBack() {
        QFETCH(QString, name);
        QFETCH(std::vector<std::string>, args);
        QVERIFY2(!args.empty(), "add a sample of the option to rowSamples()");
        const OptionRow* row = findOptionRow(name.toStdString());
        QVERIFY(row);
        const SceneOptionsParse parse = parseSceneOptions(args);
        QCOMPARE(errorsOf(parse), QString());
        const std::vector<std::string> values = row->spell(parse.options);
        QVERIFY(!values.empty());
        QVERIFY(values != row->spell(SceneOptions{}));
        for (const ValueSpelling spelling : {ValueSpelling::Separate, ValueSpelling::Inline}) {
            const std::vector<std::string> rebuilt = sceneArguments(parse.options, {}, spelling);
            const SceneOptionsParse again = parseSceneOptions(rebuilt);
            QCOMPARE(errorsOf(again), QString());
            QVERIFY2(again.options.config == parse.options.config, qPrintable(joined(rebuilt)));
            QVERIFY(row->spell(again.options) == values);
            QCOMPARE(joined(sceneArguments(again.options)), joined(sceneArguments(parse.options)));
        }
    }

    void inlineValuesJoinNameAndValue() {
        const SceneOptionsParse parse = parseSceneOptions({"--tp", "4", "--x64", "--mode", "row"});
        QCOMPARE(errorsOf(parse), QString());
        QCOMPARE(joined(sceneArguments(parse.options, {}, ValueSpelling::Inline)),
                 QString("--batch=2 --in-dim=8 --features=12 --tp=4 --seed=0 --mode=row "
                         "--prng=partitionable --x64 --bias=zeros --data=1"));
    }

    // The cases above spell every option of the table at least once, extras included.
    void everyOptionOfTheTableIsSpelled() {
        std::set<std::string> spelled;
        for (const auto& [name, args] : cases()) {
            const SceneOptionsParse parse = parseSceneOptions(args, kExtras);
            for (const std::string& arg : sceneArguments(parse.options, kExtras))
                if (arg.starts_with("--"))
                    spelled.insert(arg);
        }
        std::vector<std::string> names = sceneOptionNames();
        for (const ExtraOption& extra : kExtras)
            names.push_back(extra.name);
        QStringList missing;
        for (const std::string& name : names)
            if (!spelled.contains(name))
                missing << QString::fromStdString(name);
        QCOMPARE(missing.join(' '), QString());
    }
};

QTEST_APPLESS_MAIN(TestSceneArguments)
#include "tst_scene_arguments.moc"
