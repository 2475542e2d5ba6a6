#include "parameter_panel.h"

#include "array_file_inputs.h"
#include "scene/scene_request.h"
#include "wheel_guard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QScrollArea>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace tp {
namespace {

// The most a size box holds: every size the memory budget lets through (a 2 GiB budget holds
// at most 2^29 floats in any one array) fits, so a scene given on the command line or in a file is
// shown as it is, never clamped into another one.
constexpr int kMaxSize = std::numeric_limits<int>::max();

/// The fields whose check depends on the sizes, which files set.
bool sizedByFiles(ConfigField field) {
    return field == ConfigField::Batch || field == ConfigField::InDim ||
           field == ConfigField::Features || field == ConfigField::TpSize ||
           field == ConfigField::Memory || field == ConfigField::Data;
}

QSpinBox* sizeBox(const QString& name, const QString& tip) {
    auto* box = new QSpinBox;
    box->setObjectName(name);
    // 0 is accepted by the box so that validation says why it is refused, rather than the box
    // silently reverting it when the field loses focus.
    box->setRange(0, kMaxSize);
    box->setToolTip(tip);
    box->setAccelerated(true);
    return box;
}

}  // namespace

ParameterPanel::ParameterPanel(QWidget* parent) : QWidget(parent) {
    buildForm();
    takeWheelOnlyWhenFocused(this);
    setConfig(LayerConfig{}, SceneSource::Nnx);
}

void ParameterPanel::buildForm() {
    auto* layout = new QVBoxLayout(this);

    auto* layerBox = new QGroupBox(tr("Layer  y = x @ kernel + bias"));
    layerBox->setObjectName(QStringLiteral("layerBox"));
    auto* layer = new QFormLayout(layerBox);
    m_layerForm = layer;
    layer->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_block = new QComboBox;
    m_block->setObjectName(QStringLiteral("blockBox"));
    m_block->addItem(tr("one Linear"), QString::fromUtf8(toString(Block::Linear)));
    m_block->setItemData(0, tr("y = x @ kernel + bias, one nnx.Linear split by columns or rows"),
                         Qt::ToolTipRole);
    m_block->addItem(tr("MLP (Linear -> GeLU -> Linear)"), QString::fromUtf8(toString(Block::Mlp)));
    m_block->setItemData(1,
                         tr("The Megatron MLP block: linear1 column-parallel over the hidden "
                            "features, GeLU on each device's slice, linear2 row-parallel over the "
                            "same features, one all-reduce"),
                         Qt::ToolTipRole);
    m_block->setToolTip(tr("What runs: one Linear, or the MLP block split the Megatron way"));
    layer->addRow(tr("Block"), m_block);
    addProblemRow(layer, ConfigField::Block);
    m_sourceBox = new QComboBox;
    m_sourceBox->setObjectName(QStringLiteral("sourceBox"));
    m_sourceBox->addItem(tr("nnx.Linear, seeded"));
    m_sourceBox->addItem(tr("the worked example (2x4, tp 2)"));
    m_sourceBox->addItem(tr("arrays from files"));
    m_sourceBox->setToolTip(
        tr("Where the arrays come from: nnx.Linear(in_dim, features, "
           "rngs=nnx.Rngs(seed)) and x from the same Rngs, or the worked "
           "example (x [[1, 2]], a 2x4 kernel, a nonzero bias, tp_size 2), or arrays from "
           ".npy and .safetensors files"));
    layer->addRow(tr("Arrays"), m_sourceBox);
    m_files = new ArrayFileInputs;
    m_files->setObjectName(QStringLiteral("arrayFileInputs"));
    layer->addRow(m_files);
    layer->setRowVisible(m_files, false);
    m_batch = sizeBox(QStringLiteral("batchBox"), tr("N: rows of the input x (N, in_dim)"));
    layer->addRow(tr("Batch N"), m_batch);
    addProblemRow(layer, ConfigField::Batch);
    m_inDim =
        sizeBox(QStringLiteral("inDimBox"), tr("in_dim: rows of the kernel (in_dim, features)"));
    layer->addRow(tr("in_dim"), m_inDim);
    addProblemRow(layer, ConfigField::InDim);
    m_hidden = sizeBox(QStringLiteral("hiddenBox"),
                       tr("hidden: linear1's features and linear2's in_dim; tp_size splits it"));
    layer->addRow(tr("hidden"), m_hidden);
    addProblemRow(layer, ConfigField::Hidden);
    m_features =
        sizeBox(QStringLiteral("featuresBox"), tr("features: columns of the kernel and of y"));
    layer->addRow(tr("features"), m_features);
    addProblemRow(layer, ConfigField::Features);
    m_memory = addProblemRow(layer, ConfigField::Memory);
    layout->addWidget(layerBox);

    auto* splitBox = new QGroupBox(tr("Tensor parallelism"));
    auto* split = new QFormLayout(splitBox);
    split->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_mode = new QComboBox;
    m_mode->setObjectName(QStringLiteral("modeBox"));
    m_mode->addItem(tr("column (split features)"), QStringLiteral("column"));
    m_mode->addItem(tr("row (split in_dim)"), QStringLiteral("row"));
    m_mode->setToolTip(tr("Column-parallel splits features; row-parallel splits in_dim"));
    split->addRow(tr("Mode"), m_mode);
    m_tp = new QComboBox;
    m_tp->setObjectName(QStringLiteral("tpBox"));
    m_tp->setEditable(true);
    m_tp->setInsertPolicy(QComboBox::NoInsert);
    m_tp->setToolTip(tr("tp_size: number of groups. Offers the divisors of the split dimension"));
    split->addRow(tr("tp_size"), m_tp);
    addProblemRow(split, ConfigField::TpSize);
    m_tpNote = new QLabel;
    m_tpNote->setObjectName(QStringLiteral("tpNote"));
    m_tpNote->setWordWrap(true);
    m_tpNote->setStyleSheet(QStringLiteral("color: #8a5a00;"));
    split->addRow(QString(), m_tpNote);
    split->setRowVisible(m_tpNote, false);
    m_tpForm = split;
    layout->addWidget(splitBox);
    buildRunBox(layout);
    buildMeshBox(layout);

    auto* initBox = new QGroupBox(tr("Initialisation"));
    auto* init = new QFormLayout(initBox);
    init->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_seed = new QLineEdit;
    m_seed->setObjectName(QStringLiteral("seedEdit"));
    m_seed->setToolTip(tr("nnx.Rngs(seed): any int64"));
    init->addRow(tr("Seed"), m_seed);
    addProblemRow(init, ConfigField::Seed);
    m_prng = new QComboBox;
    m_prng->setObjectName(QStringLiteral("prngBox"));
    m_prng->addItem(tr("partitionable"), QStringLiteral("partitionable"));
    m_prng->addItem(tr("legacy"), QStringLiteral("legacy"));
    m_prng->setToolTip(
        tr("jax_threefry_partitionable: True (partitionable, the default since JAX "
           "0.5.0) or False (legacy)"));
    init->addRow(tr("PRNG layout"), m_prng);
    m_x64 = new QCheckBox(tr("jax_enable_x64"));
    m_x64->setObjectName(QStringLiteral("x64Box"));
    m_x64->setToolTip(tr("Changes how negative seeds and seeds >= 2^32 become keys"));
    init->addRow(QString(), m_x64);
    auto* biasRow = new QWidget;
    auto* biasLayout = new QHBoxLayout(biasRow);
    biasLayout->setContentsMargins(0, 0, 0, 0);
    m_biasKind = new QComboBox;
    m_biasKind->setObjectName(QStringLiteral("biasBox"));
    m_biasKind->addItem(tr("zeros"));
    m_biasKind->addItem(tr("normal, stddev"));
    m_biasStddev = new QLineEdit;
    m_biasStddev->setObjectName(QStringLiteral("biasStddevEdit"));
    m_biasStddev->setToolTip(tr("Standard deviation of nnx.initializers.normal for the bias"));
    biasLayout->addWidget(m_biasKind);
    biasLayout->addWidget(m_biasStddev, 1);
    init->addRow(tr("Bias"), biasRow);
    addProblemRow(init, ConfigField::Bias);
    layout->addWidget(initBox);
    layout->addStretch(1);

    auto edited = [this] { readInputs(); };
    connect(m_sourceBox, &QComboBox::currentIndexChanged, this, [this] {
        if (m_filling)
            return;
        if (m_sourceBox->currentIndex() == 1) {
            // The worked example's arrays fix the sizes; mode and tp_size stay editable. The
            // seeded layer's settings are kept for the way back.
            m_seededConfig = m_config;
            LayerConfig brief = briefExampleConfig();
            brief.mode = m_mode->currentIndex() == 1 ? ParallelMode::Row : ParallelMode::Column;
            brief.tpSize = brief.splitDim() % 2 == 0 ? 2 : 1;
            brief.memoryBudgetBytes = m_config.memoryBudgetBytes;  // the machine's, not the scene's
            setConfig(brief, SceneSource::Brief);
            return;
        }
        const SceneSource source =
            m_sourceBox->currentIndex() == 2 ? SceneSource::Files : SceneSource::Nnx;
        if (m_seededConfig) {
            LayerConfig back = *m_seededConfig;
            m_seededConfig.reset();
            back.mode = m_mode->currentIndex() == 1 ? ParallelMode::Row : ParallelMode::Column;
            moveTpToDivisor(back);
            setConfig(back, source);
            return;
        }
        readInputs();
    });
    for (QSpinBox* box : {m_batch, m_inDim, m_hidden, m_features})
        connect(box, &QSpinBox::valueChanged, this, edited);
    connect(m_block, &QComboBox::currentIndexChanged, this, edited);
    connect(m_mode, &QComboBox::currentIndexChanged, this, edited);
    connect(m_tp, &QComboBox::currentTextChanged, this, edited);
    connect(m_seed, &QLineEdit::textChanged, this, edited);
    connect(m_files, &ArrayFileInputs::edited, this, edited);
    connect(m_prng, &QComboBox::currentIndexChanged, this, edited);
    connect(m_x64, &QCheckBox::toggled, this, edited);
    connect(m_biasKind, &QComboBox::currentIndexChanged, this, edited);
    connect(m_biasStddev, &QLineEdit::textChanged, this, edited);
}

QLabel* ParameterPanel::addProblemRow(QFormLayout* form, ConfigField field) {
    auto* label = new QLabel;
    label->setObjectName(QStringLiteral("problem%1").arg(int(field)));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: #c62828;"));
    form->addRow(QString(), label);
    form->setRowVisible(label, false);
    m_problemLabels[field] = {form, label};
    return label;
}

void ParameterPanel::setConfig(const LayerConfig& config, SceneSource source) {
    m_filling = true;
    m_sourceBox->setCurrentIndex(source == SceneSource::Brief   ? 1
                                 : source == SceneSource::Files ? 2
                                                                : 0);
    m_batch->setValue(int(std::clamp<std::int64_t>(config.batch, 1, kMaxSize)));
    m_inDim->setValue(int(std::clamp<std::int64_t>(config.inDim, 1, kMaxSize)));
    m_features->setValue(int(std::clamp<std::int64_t>(config.features, 1, kMaxSize)));
    m_hidden->setValue(int(std::clamp<std::int64_t>(config.hidden, 1, kMaxSize)));
    m_block->setCurrentIndex(config.block == Block::Mlp ? 1 : 0);
    fillMistakes(config.block);
    showBlockInputs(config.block);
    m_mode->setCurrentIndex(config.mode == ParallelMode::Row ? 1 : 0);
    m_seed->setText(QString::number(config.seed));
    m_prng->setCurrentIndex(config.prng == PrngLayout::Legacy ? 1 : 0);
    m_x64->setChecked(config.x64);
    m_biasKind->setCurrentIndex(config.bias.kind == BiasInit::Kind::Normal ? 1 : 0);
    m_biasStddev->setText(config.bias.kind == BiasInit::Kind::Normal
                              ? QString::number(double(config.bias.stddev))
                              : QStringLiteral("0.02"));
    m_config = config;
    fillTpChoices();
    m_tp->setCurrentText(QString::number(config.tpSize));
    showMeshInputs(config);
    m_filling = false;
    readInputs();
}

void ParameterPanel::setRun(const SceneRun& run) {
    m_filling = true;
    showRunInputs(run);
    m_filling = false;
    readInputs();
}

void ParameterPanel::fillTpChoices() {
    const std::int64_t splitDim = m_block->currentIndex() == 1  ? m_hidden->value()
                                  : m_mode->currentIndex() == 1 ? std::int64_t(m_inDim->value())
                                                                : m_features->value();
    const QString text = m_tp->currentText();
    const QSignalBlocker block(m_tp);
    m_tp->clear();
    for (std::int64_t d : divisors(splitDim))
        m_tp->addItem(QString::number(d));
    m_tp->setEditText(text);
    m_tp->lineEdit()->setPlaceholderText(tr("a divisor of %1").arg(splitDim));
}

void ParameterPanel::showBlockInputs(Block block) {
    const bool mlp = block == Block::Mlp;
    m_layerForm->setRowVisible(m_hidden, mlp);
    m_mode->setEnabled(!mlp);
    m_mode->setToolTip(mlp ? tr("The MLP block is split the Megatron way: linear1 by its columns, "
                                "linear2 by its rows, both over the hidden features")
                           : tr("Column-parallel splits features; row-parallel splits in_dim"));
    static_cast<QGroupBox*>(m_block->parentWidget())
        ->setTitle(mlp ? tr("MLP block  Linear -> GeLU -> Linear")
                       : tr("Layer  y = x @ kernel + bias"));
}

QString ParameterPanel::problemText(ConfigField field) const {
    const auto it = m_problemLabels.find(field);
    return it == m_problemLabels.end() ? QString() : it->second.second->text();
}

QString ParameterPanel::tpNoteText() const {
    return m_tpNote->text();
}

void ParameterPanel::showTpNote(const QString& note) {
    m_tpNote->setText(note);
    m_tpForm->setRowVisible(m_tpNote, !note.isEmpty());
}

void ParameterPanel::chooseBias(const BiasInit& bias) {
    m_filling = true;
    m_biasKind->setCurrentIndex(bias.kind == BiasInit::Kind::Normal ? 1 : 0);
    if (bias.kind == BiasInit::Kind::Normal)
        m_biasStddev->setText(QString::number(double(bias.stddev)));
    m_filling = false;
    readInputs();
}

void ParameterPanel::readInputs() {
    if (m_filling)
        return;
    const bool mode = m_mode->currentIndex() == 1;
    const std::int64_t oldSplit = m_config.splitDim();
    const ParallelMode oldMode = m_config.mode;
    const Block oldBlock = m_config.block;

    LayerConfig config = m_config;
    const int sourceIndex = m_sourceBox->currentIndex();
    m_source = sourceIndex == 1   ? SceneSource::Brief
               : sourceIndex == 2 ? SceneSource::Files
                                  : SceneSource::Nnx;
    config.batch = m_batch->value();
    config.inDim = m_inDim->value();
    config.features = m_features->value();
    config.mode = mode ? ParallelMode::Row : ParallelMode::Column;
    config.block = m_block->currentIndex() == 1 ? Block::Mlp : Block::Linear;
    config.hidden = m_hidden->value();
    if (config.block != oldBlock) {
        fillMistakes(config.block);
        showBlockInputs(config.block);
    }
    config.prng = m_prng->currentIndex() == 1 ? PrngLayout::Legacy : PrngLayout::Partitionable;
    config.x64 = m_x64->isChecked();
    readMeshInputs(config);
    const bool switched = config.mode != oldMode || config.block != oldBlock;
    if (config.splitDim() != oldSplit || switched)
        fillTpChoices();
    QString tpNote;
    if (switched) {
        // A mode or block switch keeps a valid scene: tp_size moves to the nearest divisor of the
        // new split dimension, and says so.
        if (const auto typed = parseInt64(m_tp->currentText().trimmed().toStdString())) {
            LayerConfig moved = config;
            moved.tpSize = *typed;
            tpNote = QString::fromStdString(moveTpToDivisor(moved));
            if (!tpNote.isEmpty()) {
                const QSignalBlocker block(m_tp);
                m_tp->setEditText(QString::number(moved.tpSize));
            }
        }
    }
    if (!tpNote.isEmpty() || switched || config.splitDim() != oldSplit) {
        m_tpNote->setText(tpNote);
        m_tpForm->setRowVisible(m_tpNote, !tpNote.isEmpty());
    }

    std::vector<ConfigProblem> parseProblems;
    const std::string tpText = m_tp->currentText().trimmed().toStdString();
    if (const auto tp = parseInt64(tpText))
        config.tpSize = *tp;
    else
        parseProblems.push_back(
            {ConfigField::TpSize, tr("tp_size \"%1\" is not a whole number; choose a divisor of %2")
                                      .arg(QString::fromStdString(tpText))
                                      .arg(config.splitDim())
                                      .toStdString()});
    const std::string seedText = m_seed->text().trimmed().toStdString();
    if (const auto seed = parseInt64(seedText))
        config.seed = *seed;
    else
        parseProblems.push_back(
            {ConfigField::Seed, tr("seed \"%1\" is not a whole number from -9223372036854775808 to "
                                   "9223372036854775807 (int64)")
                                    .arg(QString::fromStdString(seedText))
                                    .toStdString()});
    m_biasStddev->setEnabled(m_biasKind->currentIndex() == 1 && m_source != SceneSource::Brief);
    if (m_biasKind->currentIndex() == 0) {
        config.bias = BiasInit{};
    } else {
        const QString text = m_biasStddev->text().trimmed();
        if (const auto bias = parseBiasInit("normal:" + text.toStdString()))
            config.bias = *bias;
        else
            parseProblems.push_back({ConfigField::Bias, biasStddevProblem(text.toStdString())});
    }

    m_config = config;
    m_problems = parseProblems;
    m_run = readRunInputs(m_problems);
    const bool files = m_source == SceneSource::Files;
    for (ConfigProblem& problem : sceneProblems({config, m_source, m_run})) {
        const bool alreadyParsed =
            std::any_of(parseProblems.begin(), parseProblems.end(),
                        [&](const ConfigProblem& p) { return p.field == problem.field; });
        // From files, the sizes are the files' and the mistake is checked with them, once the
        // files are read.
        const bool checkedWithFiles =
            files && (sizedByFiles(problem.field) || problem.field == ConfigField::Mistake ||
                      problem.field == ConfigField::Backward);
        if (!alreadyParsed && !checkedWithFiles)
            m_problems.push_back(std::move(problem));
    }
    m_arrayProblems = files ? m_files->inputProblems() : QStringList();
    m_files->showProblems(m_arrayProblems);
    updateEnabled();
    showProblems();
    if (m_problems.empty() && m_arrayProblems.isEmpty())
        emit configEdited(m_config, m_source, m_run);
    else
        emit configRefused();
}

void ParameterPanel::showProblems() {
    QLabel* appeared = nullptr;  // the first refusal that appeared or changed
    for (auto& [field, place] : m_problemLabels) {
        QStringList messages;
        for (const ConfigProblem& problem : m_problems)
            if (problem.field == field)
                messages << QString::fromStdString(problem.message);
        const QString text = messages.join(QLatin1Char('\n'));
        QLabel* label = place.second;
        if (!appeared && !text.isEmpty() && (text != label->text() || label->isHidden()))
            appeared = label;
        label->setText(text);
        place.first->setRowVisible(label, !messages.isEmpty());
    }
    if (appeared)
        scrollIntoView(appeared);
}

void ParameterPanel::scrollIntoView(QWidget* widget) {
    QScrollArea* scroll = nullptr;
    for (QWidget* up = parentWidget(); up && !scroll; up = up->parentWidget())
        scroll = qobject_cast<QScrollArea*>(up);
    if (!scroll)
        return;
    // Once the row just shown has its place in the laid-out panel.
    QTimer::singleShot(0, scroll, [scroll, widget = QPointer<QWidget>(widget)] {
        if (widget && widget->isVisible())
            scroll->ensureWidgetVisible(widget);
    });
}

void ParameterPanel::updateEnabled() {
    const bool seeded = m_source != SceneSource::Brief;
    const bool files = m_source == SceneSource::Files;
    for (QWidget* input : std::initializer_list<QWidget*>{m_seed, m_prng, m_x64, m_biasKind})
        input->setEnabled(seeded);
    // From files, the kernel's shape sets in_dim and features, x's the batch.
    m_inDim->setEnabled(seeded && !files);
    m_features->setEnabled(seeded && !files);
    m_batch->setEnabled(seeded && !(files && !m_files->files().x.empty()));
    const auto row = static_cast<QFormLayout*>(m_sourceBox->parentWidget()->layout());
    row->setRowVisible(m_files, files);
}

ArrayFiles ParameterPanel::arrayFiles() const {
    return m_files->files();
}

void ParameterPanel::setArrayFiles(const ArrayFiles& files) {
    m_files->setFiles(files);
}

void ParameterPanel::showArrayProblems(const QStringList& problems) {
    m_files->showProblems(problems);
}

QString ParameterPanel::arrayProblemText(const QString& input) const {
    return m_files->problemText(input);
}

void ParameterPanel::showArraySizes(const LayerConfig& config,
                                    const std::vector<std::string>& notices) {
    m_filling = true;
    m_batch->setValue(int(std::clamp<std::int64_t>(config.batch, 1, kMaxSize)));
    m_inDim->setValue(int(std::clamp<std::int64_t>(config.inDim, 1, kMaxSize)));
    m_features->setValue(int(std::clamp<std::int64_t>(config.features, 1, kMaxSize)));
    fillTpChoices();
    m_tp->setEditText(QString::number(config.tpSize));
    m_filling = false;
    m_config.tpSize = config.tpSize;
    m_config.batch = config.batch;
    m_config.inDim = config.inDim;
    m_config.features = config.features;
    m_files->showShapes(config, notices);
    m_files->showProblems({});
}

// The device mesh ------------------------------------------------------------------------------

void ParameterPanel::buildMeshBox(QVBoxLayout* layout) {
    auto* meshBox = new QGroupBox(tr("Device mesh"));
    auto* mesh = new QFormLayout(meshBox);
    mesh->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_data = sizeBox(QStringLiteral("dataBox"),
                     tr("D: devices on the mesh's data axis; each holds N / D batch rows"));
    mesh->addRow(tr("Data D"), m_data);
    addProblemRow(mesh, ConfigField::Data);
    m_output = new QComboBox;
    m_output->setObjectName(QStringLiteral("outputBox"));
    m_output->addItem(tr("the mode's default"));
    m_output->addItem(tr("sharded"), QStringLiteral("sharded"));
    m_output->addItem(tr("replicated"), QStringLiteral("replicated"));
    m_output->setToolTip(
        tr("Where the output lives across the model axis. Column: sharded needs "
           "no communication, replicated an all-gather. Row: replicated needs "
           "an all-reduce, sharded a reduce-scatter. Default: column sharded, "
           "row replicated"));
    mesh->addRow(tr("Output"), m_output);
    addProblemRow(mesh, ConfigField::Output);
    m_layout = new QComboBox;
    m_layout->setObjectName(QStringLiteral("layoutBox"));
    const std::pair<ShardingLayout, QString> layouts[] = {
        {ShardingLayout::Tensor, tr("Tensor parallelism alone: each device keeps its model shard "
                                    "of kernel and bias and its batch rows of x")},
        {ShardingLayout::Fsdp,
         tr("FSDP (ZeRO-3): each kernel and bias block split again over 'data', all-gathered "
            "just before use and freed; the gradients reduce-scattered over 'data'")},
        {ShardingLayout::Sequence,
         tr("Sequence parallelism: the activations split over 'model' along the batch rows; an "
            "all-gather before the column layer, a reduce-scatter after the row layer")}};
    for (const auto& [value, tip] : layouts) {
        m_layout->addItem(QString::fromUtf8(toString(value)), int(value));
        m_layout->setItemData(m_layout->count() - 1, tip, Qt::ToolTipRole);
    }
    m_layout->setToolTip(
        tr("Where one Linear's arrays rest on the data x model mesh; the "
           "Devices tab runs the layout's collectives and compares the three"));
    mesh->addRow(tr("Layout"), m_layout);
    addProblemRow(mesh, ConfigField::Layout);
    layout->addWidget(meshBox);
    connect(m_data, &QSpinBox::valueChanged, this, [this] { readInputs(); });
    connect(m_output, &QComboBox::currentIndexChanged, this, [this] { readInputs(); });
    connect(m_layout, &QComboBox::currentIndexChanged, this, [this] { readInputs(); });
}

void ParameterPanel::showMeshInputs(const LayerConfig& config) {
    m_data->setValue(int(std::clamp<std::int64_t>(config.dataSize, 1, kMaxSize)));
    m_output->setCurrentIndex(!config.output ? 0 : *config.output == OutputLayout::Sharded ? 1 : 2);
    m_layout->setCurrentIndex(std::max(0, m_layout->findData(int(config.layout))));
}

void ParameterPanel::readMeshInputs(LayerConfig& config) const {
    config.dataSize = m_data->value();
    const int output = m_output->currentIndex();
    config.output = output == 0   ? std::nullopt
                    : output == 1 ? std::optional(OutputLayout::Sharded)
                                  : std::optional(OutputLayout::Replicated);
    config.layout = ShardingLayout(m_layout->currentData().toInt());
}

}  // namespace tp
