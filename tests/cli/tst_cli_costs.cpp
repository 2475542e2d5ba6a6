// tpviz-cli --costs end to end: the JSON costs object, the text table, --hardware list, refusals,
// and the layouts' scripts (--python --layout).

#include "devices/hardware.h"
#include "process_run.h"
#include "scene/python_snippet.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

using Run = tp::test::ProcessRun;

Run runCli(const QStringList& args) {
    return tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args);
}

// Column mode, tp 8, data 2, replicated: Nd = 2 rows per device.
const QStringList kScene{"--batch",  "4",          "--in-dim", "64",         "--features",
                         "96",       "--tp",       "8",        "--data",     "2",
                         "--output", "replicated", "--costs",  "--hardware", "a100-pcie"};

}  // namespace

class TestCliCosts : public QObject {
    Q_OBJECT

private slots:
    void jsonCostsObject() {
        const Run run = runCli(kScene + QStringList{"--json", "--summary"});
        QCOMPARE(run.exitCode, 0);
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        // kernel 64*12*4, bias 12*4, x 2*64*4, output 2*96*4 after the gather, flops 2*2*64*12;
        // all-gather: 7/8 * 768 bytes in 7 steps.
        const QJsonObject expected = QJsonDocument::fromJson(R"({
            "mesh": {"data": 2, "model": 8}, "devices": 16, "output_layout": "replicated",
            "per_device": {"kernel_bytes": 3072, "bias_bytes": 48, "x_bytes": 512,
                           "partial_bytes": 0, "output_bytes": 768, "flops": 3072,
                           "kernel_bytes_at_rest": 3072, "kernel_bytes_peak": 3072,
                           "bias_bytes_at_rest": 48, "bias_bytes_peak": 48,
                           "x_bytes_at_rest": 512, "x_bytes_peak": 512,
                           "output_bytes_at_rest": 768, "output_bytes_peak": 768,
                           "bytes_at_rest": 3632, "bytes_peak": 4400},
            "collective": {"name": "all-gather", "axis": "model", "bytes_sent_per_device": 672,
                           "ring_steps": 7},
            "estimate": {},
            "layout": "tensor",
            "collectives": [{"name": "all-gather", "phase": "forward", "axis": "model",
                             "of": "output", "bytes_sent_per_device": 672, "ring_steps": 7}]})")
                                         .object();
        QJsonObject costs = doc["costs"].toObject();
        const QJsonObject estimate = costs.take("estimate").toObject();
        costs["estimate"] = QJsonObject();
        const QJsonArray layouts = costs.take("layouts").toArray();
        QJsonArray collectives = costs.take("collectives").toArray();
        QJsonObject gather = collectives[0].toObject();
        const double gatherSeconds = gather.take("time_s").toDouble();
        collectives[0] = gather;
        costs["collectives"] = collectives;
        QCOMPARE(costs, expected);
        QCOMPARE(doc.object().keys(), (QStringList{"config", "costs", "groups", "verification"}));

        // Each term in seconds or its unit in the key. The product reads and writes kernel,
        // bias, x and its 2*12*4 block, 3728 bytes; the all-gather sends 7 chunks of 96 bytes.
        const tp::HardwarePreset& a100 = *tp::findHardware("a100-pcie");
        QCOMPARE(estimate.keys(), (QStringList{"bound", "collective", "communication_s",
                                               "compute_s", "hardware", "product", "total_s"}));
        QCOMPARE(estimate["hardware"].toString(), QString("a100-pcie"));
        QCOMPARE(estimate["bound"].toString(), QString("communication"));
        const QJsonObject product = estimate["product"].toObject();
        QCOMPARE(product["flops"].toInteger(), 3072);
        QCOMPARE(product["bytes_moved"].toInteger(), 3728);
        QCOMPARE(product["math_s"].toDouble(), 3072 / a100.achievableFlops);
        QCOMPARE(product["memory_s"].toDouble(), 3728 / a100.memoryBytesPerSecond);
        QCOMPARE(product["launch_s"].toDouble(), a100.launchSeconds);
        QCOMPARE(product["intensity_flops_per_byte"].toDouble(), 3072.0 / 3728);
        QCOMPARE(product["bound"].toString(), QString("memory"));
        QCOMPARE(estimate["compute_s"].toDouble(),
                 3728 / a100.memoryBytesPerSecond + a100.launchSeconds);
        const QJsonObject collective = estimate["collective"].toObject();
        QCOMPARE(collective["steps"].toInteger(), 7);
        QCOMPARE(collective["chunk_bytes"].toInteger(), 96);
        QCOMPARE(collective["latency_s"].toDouble(), 7 * a100.link.alphaSeconds);
        QCOMPARE(collective["bandwidth_s"].toDouble(), 672 / a100.link.busBytesPerSecond);
        QCOMPARE(collective["bound"].toString(), QString("latency"));
        QCOMPARE(estimate["communication_s"].toDouble(),
                 7 * a100.link.alphaSeconds + 672 / a100.link.busBytesPerSecond);
        QCOMPARE(gatherSeconds, estimate["communication_s"].toDouble());

        // The three layouts side by side: tensor is this scene; fsdp keeps 1/2 of the kernel
        // and bias blocks at rest and gathers them over "data" in the forward (1 step of 1536
        // and 24 bytes); sequence refuses 4 batch rows on 16 devices.
        QCOMPARE(layouts.size(), 3);
        QCOMPARE(layouts[0]["layout"].toString(), QString("tensor"));
        QCOMPARE(layouts[0]["bytes_at_rest"].toInteger(), 3632);
        QCOMPARE(layouts[0]["forward_bytes_sent"].toInteger(), 672);
        QCOMPARE(layouts[0]["forward_s"].toDouble(), estimate["total_s"].toDouble());
        QCOMPARE(layouts[1]["bytes_at_rest"].toInteger(), 3632 - (3072 + 48) / 2);
        QCOMPARE(layouts[1]["forward_bytes_sent"].toInteger(), 672 + 1536 + 24);
        QCOMPARE(layouts[1]["forward_s"].toDouble(), estimate["total_s"].toDouble() +
                                                         2 * a100.link.alphaSeconds +
                                                         (1536 + 24) / a100.link.busBytesPerSecond);
        QVERIFY(!layouts[1].toObject().contains("backward_s"));
        QCOMPARE(layouts[2]["layout"].toString(), QString("sequence"));
        QVERIFY(layouts[2]["refusal"].toString().contains("not divisible by data x tp_size (16)"));
    }

    void textTable() {
        const Run run = runCli(kScene + QStringList{"--summary"});
        QCOMPARE(run.exitCode, 0);
        const QString text = QString::fromUtf8(run.out);
        QVERIFY2(text.contains("devices: mesh data 2 x model 8 = 16 devices"), qPrintable(text));
        QVERIFY(text.contains(
            QRegularExpression(R"(\n  kernel +3072 bytes \(3\.0 KiB\) +P\(None, 'model'\)\n)")));
        QVERIFY(
            text.contains("collective: all-gather over the model axis, a ring of 8: 672 bytes "
                          "sent per device in 7 steps"));
        // 2 data rows x 8 devices x 2 rows x 96 features, every bit moved intact.
        QVERIFY(text.contains("run on the devices' buffers: 3072 of 3072 elements bit-identical"));
        QVERIFY2(text.contains("estimate on a100-pcie: compute 4.00 µs + communication 39.9 µs = "
                               "43.9 µs (no overlap), communication-bound\n"
                               "  product: max(math 0.0281 ns, memory 2.14 ns) + launch 4.00 µs = "
                               "4.00 µs; this product reads and writes 3.6 KiB to do 3.07 kFLOP, "
                               "0.824 FLOPs per byte against the machine's balance of 62.5: "
                               "memory-bound\n"
                               "  all-gather: 7 steps of 96 bytes: latency 39.9 µs + bandwidth "
                               "28.0 ns, latency-bound\n"),
                 qPrintable(text));
    }

    // One of a thing is said in the singular: a row per device, a ring of 2 in 1 step.
    void countsOfOneAreSingular() {
        const Run run = runCli({"--batch", "2", "--in-dim", "8", "--features", "12", "--tp", "2",
                                "--data", "2", "--output", "replicated", "--costs", "--summary"});
        QCOMPARE(run.exitCode, 0);
        const QString text = QString::fromUtf8(run.out);
        QVERIFY2(text.contains("holds batch rows block d (1 row) and"), qPrintable(text));
        QVERIFY2(text.contains(" sent per device in 1 step\n"), qPrintable(text));
        QVERIFY2(!text.contains("1 rows") && !text.contains("1 steps"), qPrintable(text));
    }

    void withoutCostsNothingChanges() {
        const Run run = runCli({"--json", "--summary"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(!QJsonDocument::fromJson(run.out).object().contains("costs"));
    }

    void hardwareList() {
        const Run run = runCli({"--hardware", "list"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(
            run.out.startsWith("h100-nvlink (default): alpha 3.40 µs per ring step, beta 370 "
                               "GB/s, 346.3 TFLOP/s, memory 3015 GB/s, launch 4.00 µs."));
        qsizetype lines = 0;  // one per preset and one per kind with its own figures
        for (const tp::HardwarePreset& preset : tp::hardwarePresets())
            lines += 1 + qsizetype(preset.ownLinks.size());
        QCOMPARE(run.out.count('\n'), lines);
    }

    // --hardware FILE.json: the estimate on the file's figures, and a bad file refused in words.
    void hardwareFile() {
        QTemporaryDir dir;
        const QString good = dir.filePath("lab.json");
        QFile file(good);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"name": "lab", "description": "two hosts", "alpha_s": 1e-4,
            "beta_bytes_per_s": 1e8, "achievable_flops_per_s": 1e10,
            "memory_bytes_per_s": 1e10, "launch_s": 0})");
        file.close();
        QStringList scene = kScene;
        scene.last() = good;
        const Run run = runCli(scene + QStringList{"--json", "--summary"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject estimate =
            QJsonDocument::fromJson(run.out)["costs"]["estimate"].toObject();
        QCOMPARE(estimate["hardware"].toString(), QString("lab"));
        // 7 steps of 100 us and 672 bytes at 1e8 bytes/s.
        QCOMPARE(estimate["communication_s"].toDouble(), 7e-4 + 672 / 1e8);

        const QString bad = dir.filePath("bad.json");
        QFile badFile(bad);
        QVERIFY(badFile.open(QIODevice::WriteOnly));
        badFile.write(R"({"name": "lab", "description": "two hosts", "alpha_s": -1})");
        badFile.close();
        scene.last() = bad;
        const Run refused = runCli(scene);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("bad.json: 'alpha_s' is -1; it must be more than 0"),
                 refused.err.constData());
        QVERIFY(refused.err.contains("bad.json: 'beta_bytes_per_s' is missing"));
        scene.last() = dir.filePath("none.json");
        QCOMPARE(runCli(scene).exitCode, 2);
    }

    void refusals() {
        const Run run = runCli({"--batch", "6", "--data", "4", "--costs"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("batch N (6) is not divisible by data (4)"));
        QVERIFY(run.out.isEmpty());
        const Run sharded = runCli(
            {"--mode", "row", "--tp", "4", "--features", "10", "--output", "sharded", "--costs"});
        QCOMPARE(sharded.exitCode, 2);
        QVERIFY(sharded.err.contains("a sharded row-parallel output is a reduce-scatter"));
    }

    // --layout fsdp with the backward: the program in order with its phases, and the memory at
    // rest a quarter of the kernel block on each of 4 data devices. Column, (8, 64, 96), tp 2,
    // D 4: the kernel block 64 x 48 (12288 bytes), the bias block 48 values (192 bytes).
    void layoutProgramAndMemory() {
        const Run run =
            runCli({"--batch", "8", "--in-dim", "64", "--features", "96", "--tp", "2", "--data",
                    "4", "--layout", "fsdp", "--costs", "--backward", "--json", "--summary"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject costs = QJsonDocument::fromJson(run.out)["costs"].toObject();
        QCOMPARE(costs["layout"].toString(), QString("fsdp"));
        QStringList program;
        for (const QJsonValue step : costs["collectives"].toArray())
            program << QString("%1 %2 %3 %4 %5 %6")
                           .arg(step["phase"].toString(), step["name"].toString(),
                                step["of"].toString(), step["axis"].toString())
                           .arg(step["bytes_sent_per_device"].toInteger())
                           .arg(step["ring_steps"].toInteger());
        QCOMPARE(program,
                 (QStringList{
                     "forward all-gather kernel data 9216 3", "forward all-gather bias data 144 3",
                     "backward all-gather kernel data 9216 3", "backward all-reduce dx model 512 2",
                     "backward reduce-scatter dkernel data 9216 3",
                     "backward reduce-scatter dbias data 144 3"}));
        // Each layout collective ran on the devices' buffers: the gathers bit for bit, the
        // reduce-scatters within their bound; dx's all-reduce is the tensor layout's own run.
        const QJsonArray steps = costs["collectives"].toArray();
        for (const int i : {0, 1, 2, 4, 5})
            QCOMPARE(steps[i]["run"]["verdict"].toString(), QString("passed"));
        QCOMPARE(steps[0]["run"]["bit_identical"].toInteger(), 4 * 2 * 64 * 48);
        QCOMPARE(steps[0]["run"]["elements"].toInteger(), 4 * 2 * 64 * 48);
        QVERIFY(steps[3]["run"]["note"].toString().contains("tensor layout"));
        const QJsonObject perDevice = costs["per_device"].toObject();
        QCOMPARE(perDevice["kernel_bytes_at_rest"].toInteger(), 3072);
        QCOMPARE(perDevice["kernel_bytes_peak"].toInteger(), 12288);
        QCOMPARE(perDevice["dkernel_bytes_at_rest"].toInteger(), 3072);

        const Run text =
            runCli({"--batch", "8", "--in-dim", "64", "--features", "96", "--tp", "2", "--data",
                    "2", "--layout", "sequence", "--mode", "row", "--costs", "--summary"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("layout sequence: "), text.out.constData());
        QVERIFY(
            text.out.contains("  forward: reduce-scatter of output over \"model\", 768 bytes "
                              "sent per device in 1 ring step, "));
        QVERIFY(text.out.contains("the three layouts of this config, per device, on "));
    }

    void layoutRefusals() {
        const QStringList scene{"--batch", "8", "--in-dim", "64", "--features", "96", "--tp", "2"};
        const Run alone = runCli(scene + QStringList{"--layout", "fsdp"});
        QCOMPARE(alone.exitCode, 2);
        QVERIFY(alone.err.contains("--layout sets where the arrays rest on the mesh; add --costs"));
        const Run unknown = runCli(scene + QStringList{"--layout", "zero3", "--costs"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("'zero3' is not tensor, fsdp or sequence"));
        const Run rows =
            runCli(scene + QStringList{"--layout", "sequence", "--data", "8", "--costs"});
        QCOMPARE(rows.exitCode, 2);
        QVERIFY2(rows.err.contains("batch N (8) is not divisible by data x tp_size (16)"),
                 rows.err.constData());
        const Run python = runCli(scene + QStringList{"--layout", "fsdp", "--python", "--mode",
                                                      "row", "--mistake", "bias-per-partial"});
        QCOMPARE(python.exitCode, 2);
        QVERIFY2(python.err.contains("--python writes the fsdp layout's script for the correct "
                                     "split; it cannot show a mistake"),
                 python.err.constData());
    }

    // --python --layout prints the layout's script, the one the core writes for that scene; a
    // scene file's "layout" key gives the same script, and a bad one is refused naming the key.
    void layoutPython() {
        tp::LayerConfig c;
        c.batch = 8;
        c.inDim = 8;
        c.features = 12;
        c.tpSize = 2;
        c.dataSize = 2;
        c.mode = tp::ParallelMode::Row;
        c.layout = tp::ShardingLayout::Sequence;
        const QString expected = QString::fromStdString(
            tp::pythonSnippet(c, tp::Mistake::None, {}, tp::SnippetPasses::ForwardAndBackward));
        const QStringList scene{"--batch", "8", "--in-dim", "8", "--features", "12",
                                "--tp",    "2", "--data",   "2", "--mode",     "row"};
        const Run run =
            runCli(scene + QStringList{"--layout", "sequence", "--python", "--backward"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.outText(), expected);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath("sequence.tpviz");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(R"({"format": "tpviz-scene", "version": 1, "batch": 8, "in_dim": 8,
            "features": 12, "tp_size": 2, "data": 2, "mode": "row", "layout": "sequence",
            "backward": true})");
        out.close();
        const Run fromFile = runCli({"--scene", file, "--python"});
        QCOMPARE(fromFile.exitCode, 0);
        QCOMPARE(fromFile.outText(), expected);

        QFile bad(dir.filePath("bad.tpviz"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"format": "tpviz-scene", "version": 1, "layout": "zero3"})");
        bad.close();
        const Run refused = runCli({"--scene", dir.filePath("bad.tpviz"), "--python"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("'layout' 'zero3' is not tensor, fsdp or sequence"),
                 refused.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCosts)
#include "tst_cli_costs.moc"
