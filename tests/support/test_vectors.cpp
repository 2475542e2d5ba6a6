#include "test_vectors.h"

#include "layer/float_format.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace tp::test {
namespace {

const QString kFile = QStringLiteral(TPVIZ_TEST_DATA_DIR "/nnx_scenes.json");

[[noreturn]] void fail(const QString& where, const QString& what) {
    qFatal("%s: %s: %s", qPrintable(kFile), qPrintable(where), qPrintable(what));
}

std::uint32_t hexWord(const QJsonValue& value, const QString& where) {
    bool ok = false;
    const uint word = value.toString().toUInt(&ok, 16);
    if (!ok || value.toString().size() != 8)
        fail(where, QStringLiteral("'%1' is not an 8-digit hex word").arg(value.toString()));
    return std::uint32_t(word);
}

std::array<std::uint32_t, 2> hexPair(const QJsonValue& value, const QString& where) {
    const QJsonArray words = value.toArray();
    if (words.size() != 2)
        fail(where, QStringLiteral("needs two hex words"));
    return {hexWord(words[0], where), hexWord(words[1], where)};
}

std::vector<std::uint32_t> hexList(const QJsonValue& value, const QString& where) {
    std::vector<std::uint32_t> words;
    for (const QString& word : value.toString().split(QLatin1Char(' '), Qt::SkipEmptyParts))
        words.push_back(hexWord(word, where));
    return words;
}

std::int64_t wholeNumber(const QJsonValue& value, const QString& where) {
    if (!value.isDouble())
        fail(where, QStringLiteral("needs a number"));
    return value.toInteger();
}

NnxSceneVector sceneVector(const QJsonObject& s, const QString& where) {
    NnxSceneVector v;
    v.config.batch = wholeNumber(s["batch"], where + ".batch");
    v.config.inDim = wholeNumber(s["in_dim"], where + ".in_dim");
    v.config.features = wholeNumber(s["features"], where + ".features");
    v.config.tpSize = 1;
    v.config.seed = wholeNumber(s["seed"], where + ".seed");
    const auto prng = parsePrngLayout(s["prng"].toString().toStdString());
    if (!prng)
        fail(where + ".prng", s["prng"].toString() + " is not partitionable or legacy");
    v.config.prng = *prng;
    v.config.x64 = s["x64"].toBool();
    const auto bias = parseBiasInit(s["bias_init"].toString().toStdString());
    if (!bias)
        fail(where + ".bias_init", s["bias_init"].toString() + " is not a bias init");
    v.config.bias = *bias;
    v.kernelBits = hexList(s["kernel_bits"], where + ".kernel_bits");
    v.biasBits = hexList(s["bias_bits"], where + ".bias_bits");
    v.xBits = hexList(s["x_bits"], where + ".x_bits");
    const LayerConfig& c = v.config;
    if (Index(v.kernelBits.size()) != c.inDim * c.features ||
        Index(v.biasBits.size()) != c.features || Index(v.xBits.size()) != c.batch * c.inDim)
        fail(where, QStringLiteral("array lengths do not match the sizes"));
    v.name = QStringLiteral("%1x%2 batch%3 seed%4 %5%6 bias %7")
                 .arg(c.inDim)
                 .arg(c.features)
                 .arg(c.batch)
                 .arg(c.seed)
                 .arg(s["prng"].toString(), c.x64 ? QStringLiteral(" x64") : QString(),
                      s["bias_init"].toString());
    return v;
}

TestVectors load() {
    QFile file(kFile);
    if (!file.open(QIODevice::ReadOnly))
        fail(QStringLiteral("file"), file.errorString());
    QJsonParseError error;
    const QJsonObject root = QJsonDocument::fromJson(file.readAll(), &error).object();
    if (error.error != QJsonParseError::NoError)
        fail(QStringLiteral("offset %1").arg(error.offset), error.errorString());

    TestVectors vectors;
    const QJsonArray threefry = root["threefry2x32"].toArray();
    for (qsizetype i = 0; i < threefry.size(); ++i) {
        const QString where = QStringLiteral("threefry2x32[%1]").arg(i);
        const QJsonObject c = threefry[i].toObject();
        vectors.threefry.push_back({hexPair(c["key"], where + ".key"),
                                    hexPair(c["counter"], where + ".counter"),
                                    hexPair(c["out"], where + ".out")});
    }
    vectors.foldInKey0With4 = hexPair(root["fold_in_key0_4"], QStringLiteral("fold_in_key0_4"));
    const QJsonArray scenes = root["scenes"].toArray();
    for (qsizetype i = 0; i < scenes.size(); ++i)
        vectors.scenes.push_back(
            sceneVector(scenes[i].toObject(), QStringLiteral("scenes[%1]").arg(i)));
    return vectors;
}

}  // namespace

const TestVectors& testVectors() {
    static const TestVectors vectors = load();
    return vectors;
}

std::vector<std::uint32_t> floatBits(const float* values, Index count) {
    std::vector<std::uint32_t> bits(std::size_t(count > 0 ? count : 0));
    for (Index i = 0; i < count; ++i)
        bits[std::size_t(i)] = bitsOfFloat(values[i]);
    return bits;
}

QString hexWords(const std::vector<std::uint32_t>& words) {
    QStringList text;
    for (std::uint32_t word : words)
        text << QString::asprintf("%08x", word);
    return text.join(QLatin1Char(' '));
}

}  // namespace tp::test
