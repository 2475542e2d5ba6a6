// What tpviz remembers between runs: the scene's parameters saved to and read back from QSettings.

#include "app_settings.h"

#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace tp;

class TestAppSettings : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString iniPath(const char* name) const { return m_dir.filePath(QLatin1String(name)); }

private slots:
    // Every parameter a scene file holds comes back, the mesh's data size and output layout too.
    void sceneRoundTrip() {
        LayerConfig config{.batch = 6,
                           .inDim = 10,
                           .features = 20,
                           .tpSize = 5,
                           .seed = -7,
                           .mode = ParallelMode::Row,
                           .prng = PrngLayout::Legacy,
                           .x64 = true,
                           .bias = BiasInit{BiasInit::Kind::Normal, 0.25f},
                           .dataSize = 3,
                           .output = OutputLayout::Sharded};
        QVERIFY(config.validate().empty());
        {
            QSettings settings(iniPath("round.ini"), QSettings::IniFormat);
            saveSceneSettings(settings, config, SceneSource::Nnx);
        }
        const QSettings settings(iniPath("round.ini"), QSettings::IniFormat);
        const auto [read, source] = loadSceneSettings(settings);
        QVERIFY(read == config);
        QCOMPARE(source, SceneSource::Nnx);
    }

    void exampleIsKept() {
        {
            QSettings settings(iniPath("example.ini"), QSettings::IniFormat);
            saveSceneSettings(settings,
                              LayerConfig{.batch = 2, .inDim = 4, .features = 2, .tpSize = 2},
                              SceneSource::Brief);
        }
        const QSettings settings(iniPath("example.ini"), QSettings::IniFormat);
        QCOMPARE(loadSceneSettings(settings).second, SceneSource::Brief);
    }

    // Nothing saved, text that does not parse, or a config that does not validate: the defaults.
    void badSettingsGiveDefaults_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("nothing saved") << QString();
        QTest::newRow("not json") << QStringLiteral("{batch: 3");
        QTest::newRow("wrong type")
            << QStringLiteral(R"({"format": "tpviz-scene", "version": 1, "batch": "three"})");
        QTest::newRow("invalid config") << QStringLiteral(
            R"({"format": "tpviz-scene", "version": 1, "features": 12, "tp_size": 5})");
    }
    void badSettingsGiveDefaults() {
        QFETCH(QString, text);
        const QString path = iniPath(QTest::currentDataTag());
        {
            QSettings settings(path, QSettings::IniFormat);
            if (!text.isEmpty())
                settings.setValue(QStringLiteral("scene/file"), text);
        }
        const QSettings settings(path, QSettings::IniFormat);
        const auto [read, source] = loadSceneSettings(settings);
        QVERIFY(read == LayerConfig{});
        QCOMPARE(source, SceneSource::Nnx);
    }
};

QTEST_GUILESS_MAIN(TestAppSettings)
#include "tst_app_settings.moc"
