// saveSceneArrays: each array through a temporary renamed into place (a link at a name is
// replaced, never written through), a folder left holding one scene's arrays, files tpviz did not
// write refused, and a write that fails midway leaving the folder as it was.

#include "io/npy.h"
#include "io/staged_file.h"
#include "scene/scene.h"
#include "scene/scene_arrays.h"
#include "scene/scene_request.h"

#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace tp;

namespace {

Scene sceneOf(std::int64_t batch, std::int64_t inDim, std::int64_t features, std::int64_t tp,
              ParallelMode mode = ParallelMode::Column) {
    LayerConfig config;
    config.batch = batch;
    config.inDim = inDim;
    config.features = features;
    config.tpSize = tp;
    config.mode = mode;
    return *computeScene({config, SceneSource::Nnx});
}

std::set<std::string> namesIn(const std::string& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
        names.insert(entry.path().filename().string());
    return names;
}

std::set<std::string> namesOf(const Scene& scene) {
    const std::vector<std::string> names = sceneArrayFileNames(scene);
    return {names.begin(), names.end()};
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// Files larger than `bytes` cannot be written while it lives (write() fails with EFBIG rather than
// the process being stopped by SIGXFSZ): a disk that fills up midway, without mounting one.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        m_handler = std::signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &m_saved);
        rlimit limit = m_saved;
        limit.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit() {
        setrlimit(RLIMIT_FSIZE, &m_saved);
        std::signal(SIGXFSZ, m_handler);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;

private:
    rlimit m_saved{};
    void (*m_handler)(int) = nullptr;
};

}  // namespace

class TestSceneArrays : public QObject {
    Q_OBJECT

private slots:
    void namesTpvizWrites_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("ours");
        QTest::newRow("kernel") << "kernel.npy" << true;
        QTest::newRow("reference") << "reference.npy" << true;
        QTest::newRow("partial_0") << "partial_0.npy" << true;
        QTest::newRow("partial_12") << "partial_12.npy" << true;
        QTest::newRow("running_sum_3") << "running_sum_3.npy" << true;
        QTest::newRow("dkernel") << "dkernel.npy" << true;
        QTest::newRow("dbias") << "dbias.npy" << true;
        QTest::newRow("partial_07") << "partial_07.npy" << false;
        QTest::newRow("partial_") << "partial_.npy" << false;
        QTest::newRow("partial_x") << "partial_1x.npy" << false;
        QTest::newRow("kernel.npz") << "kernel.npz" << false;
        QTest::newRow("notes") << "notes.txt" << false;
        QTest::newRow("temporary") << ".kernel.npy.tpviz-0123456789abcdef" << false;
    }

    void namesTpvizWrites() {
        QFETCH(QString, name);
        QFETCH(bool, ours);
        QCOMPARE(isSceneArrayFileName(name.toStdString()), ours);
        for (const Scene& scene : {sceneOf(2, 4, 8, 4), sceneOf(2, 4, 8, 2, ParallelMode::Row)})
            for (const std::string& written : sceneArrayFileNames(scene))
                QVERIFY2(isSceneArrayFileName(written), written.c_str());
    }

    // With the backward pass, the cotangent and the split pass's gradients are written too; a
    // forward-only scene written into the same folder then removes them.
    void theBackwardsArraysAreWrittenWithIt() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("out").toStdString();
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            const Scene scene = sceneOf(3, 4, 8, 2, mode);
            const SceneBackward backward = computeBackward(scene);
            QCOMPARE(QString::fromStdString(saveSceneArrays(scene, dir, &backward)), QString());
            const std::vector<std::string> names = sceneArrayFileNames(scene, &backward);
            QCOMPARE(namesIn(dir), std::set<std::string>(names.begin(), names.end()));
            const Gradients& g = backward.result.gradients;
            QCOMPARE(readText(dir + "/dy.npy"), npyBytes(backward.dy));
            QCOMPARE(readText(dir + "/dx.npy"), npyBytes(g.dx));
            QCOMPARE(readText(dir + "/dkernel.npy"), npyBytes(g.dkernel));
            QCOMPARE(readText(dir + "/dbias.npy"), npyBytes(g.dbias, true));
            for (const std::string& written : names)
                QVERIFY2(isSceneArrayFileName(written), written.c_str());
        }
        const Scene forward = sceneOf(3, 4, 8, 2);
        QCOMPARE(QString::fromStdString(saveSceneArrays(forward, dir)), QString());
        QCOMPARE(namesIn(dir), namesOf(forward));
    }

    // A link planted at kernel.npy is replaced by the new file; the file it pointed to keeps its
    // bytes.
    void linkAtANameIsReplacedNotFollowed() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("out").toStdString();
        const std::string target = tmp.filePath("elsewhere").toStdString();
        fs::create_directory(dir);
        writeText(target, "keep me");
        fs::create_symlink(target, dir + "/kernel.npy");

        const Scene scene = sceneOf(2, 4, 8, 2);
        QCOMPARE(QString::fromStdString(saveSceneArrays(scene, dir)), QString());
        QCOMPARE(readText(target), std::string("keep me"));
        QVERIFY(!fs::is_symlink(dir + "/kernel.npy"));
        QCOMPARE(readText(dir + "/kernel.npy"), npyBytes(scene.params.kernel));
        QCOMPARE(namesIn(dir), namesOf(scene));
    }

    // writeNpy alone (the app's other writers go through the same StagedFile) replaces a link too.
    void writeNpyReplacesALink() {
        QTemporaryDir tmp;
        const std::string target = tmp.filePath("elsewhere").toStdString();
        const std::string path = tmp.filePath("k.npy").toStdString();
        writeText(target, "keep me");
        fs::create_symlink(target, path);
        QCOMPARE(writeNpy(path, Matrix::Ones(2, 3)), std::string());
        QCOMPARE(readText(target), std::string("keep me"));
        QCOMPARE(readText(path), npyBytes(Matrix::Ones(2, 3)));
    }

    // A second run with a smaller tp (and then row mode's running sums, then column mode again)
    // leaves only its own arrays: the first run's extra partials are gone.
    void folderHoldsOneScene() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("out").toStdString();
        for (const Scene& scene : {sceneOf(2, 4, 8, 8), sceneOf(2, 4, 8, 2),
                                   sceneOf(2, 4, 8, 4, ParallelMode::Row), sceneOf(2, 4, 8, 1)}) {
            QCOMPARE(QString::fromStdString(saveSceneArrays(scene, dir)), QString());
            QCOMPARE(namesIn(dir), namesOf(scene));
            QCOMPARE(readText(dir + "/output.npy"), npyBytes(scene.result.output));
        }
    }

    void foldersItRefuses_data() {
        QTest::addColumn<QString>("planted");  // "name" a file, "name/" a folder
        QTest::addColumn<QString>("words");
        QTest::newRow("another file") << "notes.txt"
                                      << "holds notes.txt, which is not arrays tpviz writes";
        QTest::newRow("a folder called output.npy")
            << "output.npy/"
            << "output.npy is not a file, and --save-npy writes a file of that name";
        QTest::newRow("a subfolder") << "sub/"
                                     << "holds sub, which is not arrays tpviz writes";
        QTest::newRow("a leftover temporary")
            << ".kernel.npy.tpviz-0123456789abcdef"
            << "holds .kernel.npy.tpviz-0123456789abcdef, which is not arrays";
    }

    // Refused before anything is written: the folder keeps exactly what it held.
    void foldersItRefuses() {
        QFETCH(QString, planted);
        QFETCH(QString, words);
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("out").toStdString();
        const Scene earlier = sceneOf(2, 4, 8, 4);
        QCOMPARE(saveSceneArrays(earlier, dir), std::string());
        const fs::path path = fs::path(dir) / planted.toStdString();
        if (planted.endsWith('/')) {
            fs::remove(path.parent_path());  // the earlier output.npy, where its folder goes
            fs::create_directory(path);
        } else {
            writeText(path.string(), "mine");
        }
        const std::set<std::string> before = namesIn(dir);

        const std::string error = saveSceneArrays(sceneOf(2, 4, 8, 2), dir);
        QVERIFY2(QString::fromStdString(error).startsWith(QString::fromStdString(dir) + ": "),
                 error.c_str());
        QVERIFY2(QString::fromStdString(error).contains(words), error.c_str());
        QCOMPARE(QString::fromStdString(sceneArrayFolderProblem(dir)),
                 QString::fromStdString(error));
        QCOMPARE(namesIn(dir), before);
        QCOMPARE(readText(dir + "/kernel.npy"), npyBytes(earlier.params.kernel));
    }

    // A link where the folder goes, to nothing: refused in those words, and nothing is created
    // at its target (create_directories said only "File exists").
    void aLinkToNowhereIsRefused() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("out").toStdString();
        const std::string target = tmp.filePath("missing").toStdString();
        fs::create_symlink(target, dir);
        const std::string error = saveSceneArrays(sceneOf(2, 4, 8, 2), dir);
        QCOMPARE(error, dir + ": is a link to " + target +
                            ", which does not exist; --save-npy writes into a folder, never "
                            "through a link that leads nowhere: remove the link or choose "
                            "another folder");
        QVERIFY(!fs::exists(target));
    }

    void manyForeignFilesAreCounted() {
        QTemporaryDir tmp;
        for (int i = 0; i < 5; ++i)
            writeText(tmp.filePath(QStringLiteral("f%1").arg(i)).toStdString(), "");
        QVERIFY2(sceneArrayFolderProblem(tmp.path().toStdString())
                         .find(": holds f0, f1, f2 and 2 more, which are not arrays") !=
                     std::string::npos,
                 sceneArrayFolderProblem(tmp.path().toStdString()).c_str());
    }

    // The disk fills up at the partials: the earlier run's arrays stay as they were, no temporary
    // is left, and a folder this run created is removed again.
    void failedWriteLeavesTheFolderAsItWas() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("out").toStdString();
        const Scene earlier = sceneOf(2, 4, 64, 8);
        QCOMPARE(saveSceneArrays(earlier, dir), std::string());
        const std::set<std::string> before = namesIn(dir);

        // kernel (4, 64) and x fit in 2 KiB; output (64, 64) does not.
        const Scene bigger = sceneOf(64, 4, 64, 2);
        std::string error;
        {
            const FileSizeLimit limit(2048);
            error = saveSceneArrays(bigger, dir);
        }
        QVERIFY2(
            error.find("File too large; nothing in " + dir + " was changed") != std::string::npos,
            error.c_str());
        QCOMPARE(namesIn(dir), before);
        QCOMPARE(readText(dir + "/kernel.npy"), npyBytes(earlier.params.kernel));

        const std::string fresh = tmp.filePath("fresh").toStdString();
        {
            const FileSizeLimit limit(2048);
            error = saveSceneArrays(bigger, fresh);
        }
        QVERIFY(!error.empty());
        QVERIFY(!fs::exists(fresh));
    }

    // A staged file that is never committed leaves nothing behind; one committed replaces the
    // path's old bytes whole.
    void stagedFileIsAllOrNothing() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("f").toStdString();
        writeText(path, "old");
        {
            StagedFile file(path);
            QCOMPARE(file.write({"new ", "bytes"}), std::string());
            QVERIFY(fs::exists(file.temporaryPath()));
            QCOMPARE(readText(path), std::string("old"));
        }
        QCOMPARE(namesIn(tmp.path().toStdString()), std::set<std::string>{"f"});
        StagedFile file(path);
        QCOMPARE(file.write({"new ", "bytes"}), std::string());
        QCOMPARE(file.commit(), std::string());
        QCOMPARE(readText(path), std::string("new bytes"));
        QCOMPARE(namesIn(tmp.path().toStdString()), std::set<std::string>{"f"});
    }
};

QTEST_GUILESS_MAIN(TestSceneArrays)
#include "tst_scene_arrays.moc"
