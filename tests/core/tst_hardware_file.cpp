// A preset's figures in a JSON file, with each kind's own link figures: read, written back the
// same, this-machine's file equal to the built-in preset, and refused in words when bad.

#include "io/hardware_file.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <vector>

using namespace tp;

namespace {

const char* kGood = R"({"name": "lab", "description": "two hosts over 1 Gbit/s",
    "alpha_s": 5e-05, "beta_bytes_per_s": 1.2e8, "achievable_flops_per_s": 2e10,
    "memory_bytes_per_s": 1e10, "launch_s": 0})";

}  // namespace

class TestHardwareFile : public QObject {
    Q_OBJECT

private slots:
    void readsEveryField() {
        const HardwareFileRead read = parseHardwareJson(kGood, "lab.json");
        QVERIFY(read.problems.empty());
        QVERIFY(read.preset);
        const HardwarePreset& p = *read.preset;
        QCOMPARE(p.name, std::string("lab"));
        QCOMPARE(p.description, std::string("two hosts over 1 Gbit/s"));
        QCOMPARE(p.link.alphaSeconds, 5e-5);
        QCOMPARE(p.link.busBytesPerSecond, 1.2e8);
        QCOMPARE(p.achievableFlops, 2e10);
        QCOMPARE(p.memoryBytesPerSecond, 1e10);
        QCOMPARE(p.launchSeconds, 0.0);
    }

    // A key given twice is refused, as in a scene file (JSON allows it; the last one won).
    void aKeyGivenTwiceIsRefused() {
        std::string text = kGood;
        text.replace(text.find("\"launch_s\": 0"), 13, "\"launch_s\": 0, \"launch_s\": 1");
        const HardwareFileRead read = parseHardwareJson(text, "lab.json");
        QVERIFY(!read.preset);
        QCOMPARE(read.problems,
                 std::vector<std::string>{"lab.json: the key 'launch_s' is given twice"});
    }

    // The name and description are shown as text, never obeyed: a control character in them is
    // escaped as the other files' texts are.
    void controlCharactersAreEscaped() {
        std::string text = kGood;
        text.replace(text.find("\"lab\""), 5, "\"\\u001b[31mred\"");
        text.replace(text.find("two hosts"), 3, "\\u0007wo");
        const HardwareFileRead read = parseHardwareJson(text, "lab.json");
        QVERIFY(read.preset);
        QCOMPARE(read.preset->name, std::string("\\u001b[31mred"));
        QCOMPARE(read.preset->description, std::string("\\u0007wo hosts over 1 Gbit/s"));
    }

    // The link's optional figures: absent is 0; given, they are read and written back.
    void optionalLinkFigures() {
        QCOMPARE(parseHardwareJson(kGood, "lab.json").preset->link.kneeBytes, 0.0);
        QVERIFY(hardwareJson(*parseHardwareJson(kGood, "lab.json").preset).find("knee") ==
                std::string::npos);
        QString kneed = kGood;
        kneed.replace(R"("launch_s": 0})", R"("launch_s": 0, "knee_bytes": 1048576,
            "beta_large_bytes_per_s": 4e8, "reduce_bytes_per_s": 4e9})");
        const HardwareFileRead read = parseHardwareJson(kneed.toStdString(), "lab.json");
        QVERIFY(read.preset);
        QCOMPARE(read.preset->link.kneeBytes, 1048576.0);
        QCOMPARE(read.preset->link.largeBusBytesPerSecond, 4e8);
        QCOMPARE(read.preset->link.reduceBytesPerSecond, 4e9);
        const HardwareFileRead back = parseHardwareJson(hardwareJson(*read.preset), "back.json");
        QVERIFY(back.preset);
        QCOMPARE(back.preset->link.kneeBytes, 1048576.0);
        QCOMPARE(back.preset->link.largeBusBytesPerSecond, 4e8);
        QCOMPARE(back.preset->link.reduceBytesPerSecond, 4e9);
    }

    // The rate of products summed in order: absent is 0 (one rate for every product); given, it is
    // read and written back.
    void inOrderRate() {
        QCOMPARE(parseHardwareJson(kGood, "lab.json").preset->inOrderFlops, 0.0);
        QVERIFY(hardwareJson(*parseHardwareJson(kGood, "lab.json").preset).find("in_order") ==
                std::string::npos);
        QString rated = kGood;
        rated.replace(R"("launch_s": 0})", R"("launch_s": 0, "in_order_flops_per_s": 4.5e10})");
        const HardwareFileRead read = parseHardwareJson(rated.toStdString(), "lab.json");
        QVERIFY(read.preset);
        QCOMPARE(read.preset->inOrderFlops, 4.5e10);
        const HardwareFileRead back = parseHardwareJson(hardwareJson(*read.preset), "back.json");
        QVERIFY(back.preset);
        QCOMPARE(*back.preset, *read.preset);
    }

    // An eager limit: read, written back, and named in words.
    void eagerLimit() {
        QString eager = kGood;
        eager.replace(R"("launch_s": 0})", R"("launch_s": 0, "eager_bytes": 2048,
            "beta_eager_bytes_per_s": 1.5e9, "rendezvous_s": 3e-6})");
        const HardwareFileRead read = parseHardwareJson(eager.toStdString(), "lab.json");
        QVERIFY(read.preset);
        QCOMPARE(read.preset->link.eagerBytes, 2048.0);
        QCOMPARE(read.preset->link.eagerBusBytesPerSecond, 1.5e9);
        QCOMPARE(read.preset->link.rendezvousSeconds, 3e-6);
        const HardwareFileRead back = parseHardwareJson(hardwareJson(*read.preset), "back.json");
        QVERIFY(back.preset);
        QCOMPARE(back.preset->link, read.preset->link);
        QVERIFY(
            linkWords(read.preset->link)
                .find(", eagerly up to 2.0 KiB a step 1.5 GB/s, past it a handshake of 3.00 µs") !=
            std::string::npos);
    }

    // A kind's object: its own link figures, the others' absent.
    void kindsOwnFigures() {
        QString own = kGood;
        own.replace(R"("launch_s": 0})", R"("launch_s": 0, "reduce_scatter": {"alpha_s": 2e-06,
            "beta_bytes_per_s": 2.6e9, "knee_bytes": 1048576, "beta_large_bytes_per_s": 1e9}})");
        const HardwareFileRead read = parseHardwareJson(own.toStdString(), "lab.json");
        QVERIFY2(read.preset, read.problems.empty() ? "" : read.problems[0].c_str());
        QCOMPARE(read.preset->ownLinks.size(), std::size_t(1));
        QVERIFY(read.preset->ownLinks.at(CollectiveKind::ReduceScatter) ==
                LinkFigures(2e-6, 2.6e9, 1048576, 1e9));
        QVERIFY(linkFor(*read.preset, CollectiveKind::AllReduce) == read.preset->link);
        QVERIFY(hardwareJson(*parseHardwareJson(kGood, "lab.json").preset).find("reduce_scatter") ==
                std::string::npos);
    }

    // Every preset written as JSON reads back the same, and so does one with every kind's own
    // figures.
    void roundTrip() {
        std::vector<HardwarePreset> presets(hardwarePresets().begin(), hardwarePresets().end());
        HardwarePreset own = presets.front();
        own.name = "own";
        own.ownLinks[CollectiveKind::AllReduce] = {1e-6, 3e9, 4096, 1e9, 2e9};
        own.ownLinks[CollectiveKind::AllGather] = {0.5e-6, 5e9};
        own.ownLinks[CollectiveKind::ReduceScatter] = {2e-6, 2.6e9, 0, 0, 3.9e9};
        presets.push_back(own);
        for (const HardwarePreset& preset : presets) {
            const HardwareFileRead read = parseHardwareJson(hardwareJson(preset), "p.json");
            QVERIFY2(read.preset, preset.name.c_str());
            QVERIFY2(*read.preset == preset, hardwareJson(preset).c_str());
        }
    }

    // this-machine is its file, read by CMake into devices/this_machine.h: the file read here
    // gives the same preset.
    void thisMachineIsItsFile() {
        const HardwareFileRead read = readHardwareFile(TPVIZ_THIS_MACHINE_JSON);
        QVERIFY2(read.preset, read.problems.empty() ? "" : read.problems[0].c_str());
        QVERIFY2(
            *read.preset == *findHardware("this-machine"),
            (hardwareJson(*read.preset) + hardwareJson(*findHardware("this-machine"))).c_str());
    }

    void refusals_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("problem");
        QString good = kGood;
        QTest::newRow("not JSON") << "alpha = 1"
                                  << "lab.json: not JSON";
        QTest::newRow("an array") << "[1, 2]"
                                  << "lab.json: not a JSON object";
        QTest::newRow("missing alpha") << QString(good).replace(R"("alpha_s": 5e-05,)", "")
                                       << "lab.json: 'alpha_s' is missing";
        QTest::newRow("negative beta")
            << QString(good).replace("1.2e8", "-1.2e8")
            << "lab.json: 'beta_bytes_per_s' is -120000000.0; it must be more than 0";
        QTest::newRow("zero memory")
            << QString(good).replace("1e10,", "0,")
            << "lab.json: 'memory_bytes_per_s' is 0; it must be more than 0";
        QTest::newRow("negative launch")
            << QString(good).replace(R"("launch_s": 0)", R"("launch_s": -1)")
            << "lab.json: 'launch_s' is -1; it must be 0 or more";
        QTest::newRow("flops a string")
            << QString(good).replace("2e10", R"("fast")")
            << R"(lab.json: 'achievable_flops_per_s' is not a number: "fast")";
        QTest::newRow("name a number")
            << QString(good).replace(R"("lab")", "7") << "lab.json: 'name' is not a string";
        QTest::newRow("a knee without its bandwidth")
            << QString(good).replace(R"("launch_s": 0})", R"("launch_s": 0, "knee_bytes": 4096})")
            << "lab.json: 'knee_bytes' and 'beta_large_bytes_per_s' go together";
        QTest::newRow("an eager limit without its bandwidth")
            << QString(good).replace(R"("launch_s": 0})", R"("launch_s": 0, "eager_bytes": 4096})")
            << "lab.json: 'eager_bytes' and 'beta_eager_bytes_per_s' go together";
        QTest::newRow("a handshake without an eager limit")
            << QString(good).replace(R"("launch_s": 0})", R"("launch_s": 0, "rendezvous_s": 3e-6})")
            << "lab.json: 'rendezvous_s' needs 'eager_bytes'";
        QTest::newRow("a knee below the eager limit")
            << QString(good).replace(R"("launch_s": 0})", R"("launch_s": 0, "eager_bytes": 4096,
                "beta_eager_bytes_per_s": 1e9, "knee_bytes": 2048, "beta_large_bytes_per_s": 1e9})")
            << "lab.json: 'knee_bytes' must be more than 'eager_bytes'";
        QTest::newRow("negative sums")
            << QString(good).replace(R"("launch_s": 0})",
                                     R"("launch_s": 0, "reduce_bytes_per_s": -1})")
            << "lab.json: 'reduce_bytes_per_s' is -1; it must be 0 or more";
        QTest::newRow("in-order rate not a number")
            << QString(good).replace(R"("launch_s": 0})",
                                     R"("launch_s": 0, "in_order_flops_per_s": "fast"})")
            << "lab.json: 'in_order_flops_per_s' is not a number: \"fast\"";
        // A kind's object has the top level's keys and checks, named under the kind.
        const auto withKind = [&](const char* kind) {
            return QString(good).replace(R"("launch_s": 0})",
                                         QString(R"("launch_s": 0, %1})").arg(kind));
        };
        QTest::newRow("a kind not an object") << withKind(R"("reduce_scatter": 5)")
                                              << "lab.json: 'reduce_scatter' is not an object of "
                                                 "reduce-scatter's own link figures: 5";
        QTest::newRow("a kind without beta")
            << withKind(R"("all_gather": {"alpha_s": 1e-06})")
            << "lab.json: 'all_gather.beta_bytes_per_s' is missing";
        QTest::newRow("a kind's alpha 0")
            << withKind(R"("all_reduce": {"alpha_s": 0, "beta_bytes_per_s": 1e9})")
            << "lab.json: 'all_reduce.alpha_s' is 0; it must be more than 0";
        QTest::newRow("a kind's sums a string")
            << withKind(R"("reduce_scatter": {"alpha_s": 1e-06, "beta_bytes_per_s": 1e9,
                "reduce_bytes_per_s": "fast"})")
            << R"(lab.json: 'reduce_scatter.reduce_bytes_per_s' is not a number: "fast")";
        QTest::newRow("a kind's knee without its bandwidth")
            << withKind(R"("reduce_scatter": {"alpha_s": 1e-06, "beta_bytes_per_s": 1e9,
                "knee_bytes": 4096})")
            << "lab.json: 'reduce_scatter.knee_bytes' and 'reduce_scatter.beta_large_bytes_per_s' "
               "go together";
    }

    void refusals() {
        QFETCH(QString, text);
        QFETCH(QString, problem);
        const HardwareFileRead read = parseHardwareJson(text.toStdString(), "lab.json");
        QVERIFY(!read.preset);
        QCOMPARE(read.problems.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(read.problems[0]).startsWith(problem),
                 read.problems[0].c_str());
    }

    // Several problems are all said, and a file that does not exist is named.
    void files() {
        const HardwareFileRead empty = parseHardwareJson("{}", "e.json");
        QCOMPARE(empty.problems.size(), std::size_t(7));
        QTemporaryDir dir;
        const std::string path = dir.filePath("lab.json").toStdString();
        QVERIFY(!readHardwareFile(path).preset);
        QVERIFY(readHardwareFile(path).problems[0].find("lab.json") != std::string::npos);
        std::ofstream(path) << kGood;
        const HardwareFileRead read = readHardwareFile(path);
        QVERIFY(read.preset);
        QCOMPARE(read.preset->name, std::string("lab"));
    }
};

QTEST_APPLESS_MAIN(TestHardwareFile)
#include "tst_hardware_file.moc"
