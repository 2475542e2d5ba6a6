// The command-line options shared by tpviz-cli and tpviz --screenshot.

#include "io/scene_file.h"
#include "scene/option_rows.h"
#include "scene/scene_options.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace tp;

namespace {

SceneOptionsParse parse(const QStringList& args, const std::vector<ExtraOption>& extras = {}) {
    std::vector<std::string> list;
    for (const QString& a : args)
        list.push_back(a.toStdString());
    return parseSceneOptions(list, extras);
}

QString errorsOf(const SceneOptionsParse& p) {
    QStringList lines;
    for (const auto& e : p.errors)
        lines << QString::fromStdString(e);
    return lines.join('\n');
}

}  // namespace

class TestSceneOptions : public QObject {
    Q_OBJECT

private slots:
    void everyOptionSetsItsField() {
        const auto p = parse({"--batch", "5", "--in-dim=33", "--features", "12", "--tp", "4",
                              "--seed", "-9223372036854775808", "--mode", "column", "--prng",
                              "legacy", "--x64", "--bias", "normal:0.5", "--json", "--summary"});
        QCOMPARE(errorsOf(p), QString());
        const LayerConfig& c = p.options.config;
        QCOMPARE(c.batch, std::int64_t(5));
        QCOMPARE(c.inDim, std::int64_t(33));
        QCOMPARE(c.features, std::int64_t(12));
        QCOMPARE(c.tpSize, std::int64_t(4));
        QCOMPARE(c.seed, std::numeric_limits<std::int64_t>::min());
        QVERIFY(c.prng == PrngLayout::Legacy);
        QVERIFY(c.x64);
        QVERIFY(c.bias == (BiasInit{BiasInit::Kind::Normal, 0.5f}));
        QVERIFY(p.options.json && p.options.summary && !p.options.python);
        QVERIFY(p.options.source == SceneSource::Nnx);
    }

    // "--scene" as another option's value is that value, not a scene file to read.
    void sceneAsAValueIsNotASceneFile() {
        const auto p = parse({"--save-npy", "--scene=nope.tpviz", "--seed", "--scene"});
        QVERIFY(p.options.sceneFile.empty());
        QVERIFY(p.options.saveNpyDir == "--scene=nope.tpviz");
        QCOMPARE(errorsOf(p),
                 QStringLiteral("--seed: '--scene' is not a whole number in the int64 range"));
    }

    void defaultsWithoutArguments() {
        const auto p = parse({});
        QVERIFY(p.errors.empty());
        QVERIFY(p.options.config == LayerConfig());
    }

    void briefExampleFixesTheSizes() {
        const auto p = parse({"--example", "brief", "--mode", "row", "--tp", "1"});
        QCOMPARE(errorsOf(p), QString());
        QVERIFY(p.options.source == SceneSource::Brief);
        QCOMPARE(p.options.config.batch, std::int64_t(1));
        QCOMPARE(p.options.config.inDim, std::int64_t(2));
        QCOMPARE(p.options.config.features, std::int64_t(4));
        QCOMPARE(p.options.config.tpSize, std::int64_t(1));
        QCOMPARE(parse({"--example", "brief"}).options.config.tpSize, std::int64_t(2));
    }

    void extrasArePassedThrough() {
        const std::vector<ExtraOption> extras{{"--screenshot", "FILE", "write a PNG"},
                                              {"--step", "K", "step"}};
        const auto p = parse({"--screenshot", "/tmp/a.png", "--step=3", "--tp", "2"}, extras);
        QCOMPARE(errorsOf(p), QString());
        QCOMPARE(p.options.extras.at("--screenshot"), std::string("/tmp/a.png"));
        QCOMPARE(p.options.extras.at("--step"), std::string("3"));
        QVERIFY(QString::fromStdString(sceneOptionsHelp(extras)).contains("--screenshot FILE"));
        QCOMPARE(
            errorsOf(parse({"--screenshot", "a.png"})),
            QString("unknown option '--screenshot' (see --help)\nunexpected argument 'a.png'"));
    }

    void everyProblemIsReported() {
        const auto p = parse({"--batch", "x", "--tp", "5", "--json", "--python", "--x64=1"});
        QCOMPARE(
            errorsOf(p),
            QString("--batch: 'x' is not a whole number in the int64 range\n"
                    "--x64 takes no value\n"
                    "--python prints a script; it cannot be combined with --json or --summary\n"
                    "features (12) is not divisible by tp_size (5): each group needs the same "
                    "number of kernel columns. Valid tp sizes: 1, 2, 3, 4, 6, 12."));
    }

    void helpSkipsValidation() {
        const auto p = parse({"--tp", "5", "-h"});
        QVERIFY(p.options.help);
        QVERIFY(p.errors.empty());
    }

    // Every default the help states is the default of LayerConfig{} or Tolerance{}.
    void helpShowsTheStructDefaults() {
        const QStringList lines = QString::fromStdString(sceneOptionsHelp()).split('\n');
        auto line = [&](const QString& option) {
            for (const QString& l : lines)
                if (l.startsWith("  " + option + " "))
                    return l;
            return QString();
        };
        const LayerConfig c;
        const Tolerance t;
        QVERIFY(line("--batch").endsWith(QString("(default %1)").arg(c.batch)));
        QVERIFY(line("--in-dim").endsWith(QString("(default %1)").arg(c.inDim)));
        QVERIFY(line("--features").endsWith(QString("(default %1)").arg(c.features)));
        QVERIFY(line("--tp").contains(QString("(default %1); must divide").arg(c.tpSize)));
        QVERIFY(line("--seed").endsWith(QString("(default %1)").arg(c.seed)));
        QVERIFY(line("--mode").endsWith("(default column)"));
        QVERIFY(line("--prng").endsWith("(default partitionable)"));
        QVERIFY(line("--bias").contains("(default zeros)"));
        // The tolerances, as the reports print them, and as parsing reads them back.
        QVERIFY2(line("--rtol").endsWith("(default 1e-05)"), qPrintable(line("--rtol")));
        QVERIFY(line("--atol").endsWith("(default 1e-06)"));
        const QString rtol = line("--rtol").section("(default ", 1).chopped(1);
        const QString atol = line("--atol").section("(default ", 1).chopped(1);
        const auto p = parse({"--rtol", rtol, "--atol", atol});
        QCOMPARE(p.options.tolerance.rtol, t.rtol);
        QCOMPARE(p.options.tolerance.atol, t.atol);
    }

    // tpviz-cli's own options are marked as such: the app's help leaves exactly them out, and a
    // parse records which of them were given.
    void cliOnlyOptionsAreMarked() {
        const std::vector<std::string> cliOnly = cliOnlyOptions();
        QCOMPARE(cliOnly,
                 (std::vector<std::string>{"--layout", "--costs", "--hardware", "--save-npy",
                                           "--rtol", "--atol", "--json", "--summary", "--python"}));
        const QString cli = QString::fromStdString(sceneOptionsHelp());
        const QString app = QString::fromStdString(sceneOptionsHelp({}, OptionsFor::App));
        for (const std::string& name : cliOnly) {
            QVERIFY(cli.contains(QString::fromStdString("  " + name + " ")));
            QVERIFY(!app.contains(QString::fromStdString(name)));
        }
        QCOMPARE(app.count('\n') + qsizetype(cliOnly.size()), cli.count('\n'));
        // The lines both programs show are the same text, aligned the same.
        for (const QString& l : app.split('\n'))
            QVERIFY2(cli.contains(l), qPrintable(l));

        const auto p = parse({"--json", "--tp", "4", "--rtol", "0.1"});
        QCOMPARE(p.options.cliOnlyGiven, (std::vector<std::string>{"--json", "--rtol"}));
        QVERIFY(parse({"--rtol", "1e-05"}).options.cliOnlyGiven.size() == 1);
        QVERIFY(parse({"--tp", "4"}).options.cliOnlyGiven.empty());
    }

    // A bad bias stddev reads the same from every input that sets it.
    // An empty path names no file: it is refused, not taken as "no file" and ignored.
    void emptyPathsAreRefused_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("--kernel ''")
            << QStringList{"--kernel", ""} << "--kernel: an empty path names no file";
        QTest::newRow("--kernel=")
            << QStringList{"--kernel="} << "--kernel: an empty path names no file";
        QTest::newRow("--x ''") << QStringList{"--x", ""} << "--x: an empty path names no file";
        QTest::newRow("--scene ''")
            << QStringList{"--scene", ""} << "--scene: an empty path names no file";
        QTest::newRow("--scene=") << QStringList{"--scene="}
                                  << "--scene: an empty path names no file";
        QTest::newRow("--save-npy ''")
            << QStringList{"--save-npy", ""} << "--save-npy: an empty path names no folder";
        QTest::newRow("--bias ''") << QStringList{"--bias", ""}
                                   << "--bias: '' is not zeros or normal:STDDEV, nor an array "
                                      "file (FILE.npy or FILE.safetensors:TENSOR)";
    }
    void emptyPathsAreRefused() {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        QCOMPARE(errorsOf(parse(args)), error);
    }

    // The block's defaults (hidden 4 x in_dim, features in_dim, tp 4) fill only what neither an
    // option nor the scene file gave.
    void aSceneFilesBlockKeepsItsSizes() {
        QTemporaryDir dir;
        QFile file(dir.filePath("block.tpviz"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "tpviz-scene", "version": 1, "block": "mlp", "hidden": 48,
                       "features": 12, "tp_size": 6})");
        file.close();
        const auto p = parse({"--scene", file.fileName()});
        QCOMPARE(errorsOf(p), QString());
        const LayerConfig& c = p.options.config;
        QVERIFY(c.block == Block::Mlp);
        QCOMPARE(c.hidden, std::int64_t(48));
        QCOMPARE(c.features, std::int64_t(12));
        QCOMPARE(c.tpSize, std::int64_t(6));
        const auto hidden = parse({"--scene", file.fileName(), "--hidden", "24"});
        QCOMPARE(hidden.options.config.hidden, std::int64_t(24));
        const LayerConfig defaults = parse({"--block", "mlp"}).options.config;
        QCOMPARE(defaults.hidden, 4 * defaults.inDim);
        QCOMPARE(defaults.features, defaults.inDim);
        QCOMPARE(defaults.tpSize, std::int64_t(4));
        // 4 x in_dim past int64 is the largest width, refused for its memory, not a negative one.
        const LayerConfig huge =
            parse({"--block", "mlp", "--in-dim", "2305843009213693952"}).options.config;
        QCOMPARE(huge.hidden, INT64_MAX);
        const auto problems = huge.validate();
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY(problems.front().field == ConfigField::Memory);
    }

    // A value the scene file gave, and no option replaced, is refused naming the file and key.
    void sceneValuesAreRefusedNamingTheFileAndKey() {
        QTemporaryDir dir;
        auto sceneFile = [&](const char* name, const QByteArray& keys) {
            QFile file(dir.filePath(name));
            if (!file.open(QIODevice::WriteOnly))
                return QString();
            file.write(R"({"format": "tpviz-scene", "version": 1, )" + keys + "}");
            return file.fileName();
        };
        const QString sizes = sceneFile("sizes.tpviz", R"("features": 12, "tp_size": 5)");
        const QString divisible =
            "features (12) is not divisible by tp_size (5): each group needs the same number of "
            "kernel columns.";
        const QString fromFile = errorsOf(parse({"--scene", sizes}));
        QVERIFY2(fromFile.startsWith("--scene: " + sizes + ": 'tp_size' is refused: " + divisible),
                 qPrintable(fromFile));
        // The same value given as an option is the option's.
        const QString fromOption = errorsOf(parse({"--scene", sizes, "--tp", "5"}));
        QVERIFY2(fromOption.startsWith(divisible), qPrintable(fromOption));

        const QString arrays = sceneFile("arrays.tpviz", R"("arrays": {"x": "missing.npy"})");
        QCOMPARE(errorsOf(parse({"--scene", arrays})),
                 "--scene: " + arrays + ": 'arrays' x: " + dir.filePath("missing.npy") +
                     ": cannot be opened: No such file or directory");
        QCOMPARE(errorsOf(parse({"--scene", arrays, "--x", dir.filePath("y.npy")})),
                 "x: " + dir.filePath("y.npy") + ": cannot be opened: No such file or directory");
    }

    // Every row refuses a bad value with exactly one problem, which names the row's option: an
    // empty value for an option that takes one (no number, name or path is empty), any value for
    // a flag.
    void everyRowRefusesABadValueOnce_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("args");
        for (const OptionRow& row : optionRows()) {
            const QString name = QString::fromUtf8(row.name.data(), qsizetype(row.name.size()));
            if (row.takesValue()) {
                QTest::addRow("%s ''", qPrintable(name)) << name << QStringList{name, ""};
                QTest::addRow("%s=", qPrintable(name)) << name << QStringList{name + "="};
            } else {
                QTest::addRow("%s=x", qPrintable(name)) << name << QStringList{name + "=x"};
            }
        }
    }
    void everyRowRefusesABadValueOnce() {
        QFETCH(QString, name);
        QFETCH(QStringList, args);
        const QString errors = errorsOf(parse(args));
        QVERIFY2(!errors.isEmpty() && !errors.contains('\n'), qPrintable(errors));
        QVERIFY2(errors.startsWith(name + ": ") || errors == name + " takes no value",
                 qPrintable(errors));
    }

    // The help has one line for each row a program takes, with the row's words, and none for
    // the others.
    void helpListsEveryRowOnce() {
        for (const OptionsFor program : {OptionsFor::Cli, OptionsFor::App}) {
            const QStringList lines =
                QString::fromStdString(sceneOptionsHelp({}, program)).split('\n');
            for (const OptionRow& row : optionRows()) {
                const QString name = QString::fromUtf8(row.name.data(), qsizetype(row.name.size()));
                const QString help = QString::fromUtf8(row.help.data(), qsizetype(row.help.size()));
                const QStringList own = lines.filter(
                    QRegularExpression("^  " + QRegularExpression::escape(name) + "( |$)"));
                QCOMPARE(own.size(), qsizetype(row.takenBy(program) ? 1 : 0));
                if (!own.isEmpty())
                    QVERIFY2(own.front().contains(help), qPrintable(own.front()));
            }
        }
    }

    // Each row is found by its own name and its option, and no two rows share a name.
    void rowsAreFoundByNameAndOption() {
        std::set<std::string_view> names;
        for (const OptionRow& row : optionRows()) {
            QVERIFY(row.name.starts_with("--"));
            QVERIFY2(names.insert(row.name).second, row.name.data());
            QCOMPARE(findOptionRow(row.name), &row);
            QCOMPARE(&optionRow(row.option), &row);
            QVERIFY(row.parse && row.spell);
        }
        QCOMPARE(findOptionRow("-h"), &optionRow(Option::Help));
        QCOMPARE(findOptionRow("--nope"), nullptr);
    }

    void biasProblemWordedOnce() {
        QCOMPARE(errorsOf(parse({"--bias", "normal:-2"})),
                 QString("--bias: bias stddev (-2) must be a finite number above 0"));
        QCOMPARE(errorsOf(parse({"--bias", "normal:nan"})),
                 QString("--bias: bias stddev (nan) must be a finite number above 0"));
        QCOMPARE(errorsOf(parse({"--bias", "uniform"})),
                 QString("--bias: 'uniform' is not zeros or normal:STDDEV, nor an array file "
                         "(FILE.npy or FILE.safetensors:TENSOR)"));
        LayerConfig c;
        c.bias = BiasInit{BiasInit::Kind::Normal, -2.0f};
        QCOMPARE(c.validate().at(0).message, biasStddevProblem("-2"));
    }
};

QTEST_APPLESS_MAIN(TestSceneOptions)
#include "tst_scene_options.moc"
