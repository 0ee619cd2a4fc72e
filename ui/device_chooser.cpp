#include "device_chooser.h"

#include <algorithm>
#include <iterator>

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/error.h"

namespace {

// A machine with 8 GPUs shows them all; its CPU cores scroll below.
constexpr int kRowsBeforeScrolling = 8;

// "cuda:0 — NVIDIA H100 80GB HBM3" over "79.2 GiB, 132 SMs": a GPU's name
// and its memory each on a line of its own, so a narrow panel shows both.
QString rowText(const dp::DeviceInfo& device)
{
    const QString id = QString::fromStdString(device.id);
    QString description = QString::fromStdString(device.description);
    const qsizetype firstComma = description.indexOf(QStringLiteral(", "));
    if (device.kind == dp::DeviceKind::cuda && firstComma > 0)
        description.replace(firstComma, 2, QStringLiteral("\n"));
    return QStringLiteral("%1 — %2").arg(id, description);
}

}  // namespace

DeviceChooser::DeviceChooser(std::vector<dp::DeviceInfo> devices, QWidget* parent)
    : QWidget(parent),
      devices_(std::move(devices)),
      allGpusButton_(new QPushButton(tr("All GPUs"), this)),
      allCpuCoresButton_(new QPushButton(tr("All CPU cores"), this)),
      list_(new QListWidget(this)),
      replicas_(new QSpinBox(this))
{
    allGpusButton_->setObjectName(QStringLiteral("allGpusButton"));
    allGpusButton_->setToolTip(tr("Train on every GPU (a run uses GPUs or CPU cores, not both)"));
    allCpuCoresButton_->setObjectName(QStringLiteral("allCpuCoresButton"));
    allCpuCoresButton_->setToolTip(
        tr("Train on every CPU core (a run uses GPUs or CPU cores, not both)"));
    const bool hasGpus = std::any_of(devices_.begin(), devices_.end(), [](const auto& device) {
        return device.kind == dp::DeviceKind::cuda;
    });
    allGpusButton_->setVisible(hasGpus);

    list_->setObjectName(QStringLiteral("deviceList"));
    list_->setToolTip(tr("The global batch is split across the checked devices."));
    for (const dp::DeviceInfo& device : devices_) {
        auto* item = new QListWidgetItem(rowText(device), list_);
        item->setData(Qt::UserRole, QString::fromStdString(device.id));
        item->setToolTip(QStringLiteral("%1 — %2").arg(QString::fromStdString(device.id),
                                                          QString::fromStdString(device.description)));
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        item->setCheckState(Qt::Unchecked);
    }
    // Measured as the list will draw its rows, in its style: the first rows
    // (GPU rows are two lines tall) up to kRowsBeforeScrolling.
    list_->ensurePolished();
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    int rowsHeight = 0;
    for (int row = 0; row < std::min(list_->count(), kRowsBeforeScrolling); ++row)
        rowsHeight += list_->sizeHintForRow(row);
    if (list_->count() == 0)
        rowsHeight = fontMetrics().height() + 4;
    list_->setFixedHeight(rowsHeight + 2 * list_->frameWidth());

    replicas_->setObjectName(QStringLiteral("replicasPerDevice"));
    replicas_->setRange(1, dp::kMaxReplicasPerDevice);
    replicas_->setToolTip(
        tr("Replicas on each checked device, each with its own thread, streams and memory: "
           "2 replicas of one GPU split the batch and all-reduce their gradients on the GPU, "
           "so one GPU shows data parallelism (slower than one replica: they share the GPU)"));
    auto* replicasLabel = new QLabel(tr("Replicas per device"), this);
    replicasLabel->setBuddy(replicas_);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(allGpusButton_);
    buttons->addWidget(allCpuCoresButton_);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(list_);
    auto* replicasRow = new QHBoxLayout;
    replicasRow->addWidget(replicasLabel);
    replicasRow->addWidget(replicas_);
    replicasRow->addStretch();
    layout->addLayout(replicasRow);

    connect(allGpusButton_, &QPushButton::clicked, this,
            [this] { checkAll(dp::DeviceKind::cuda); });
    connect(allCpuCoresButton_, &QPushButton::clicked, this,
            [this] { checkAll(dp::DeviceKind::cpu); });
    connect(list_, &QListWidget::itemChanged, this, &DeviceChooser::checkedChanged);
    connect(replicas_, &QSpinBox::valueChanged, this, &DeviceChooser::checkedChanged);
    setChecked(dp::default_devices(devices_));
}

void DeviceChooser::setCheckedIds(const std::vector<std::string>& ids)
{
    if (ids.empty()) {
        setChecked(dp::default_devices(devices_));
        return;
    }
    std::vector<std::string> named;
    int replicas = 1;
    for (const std::string& id : ids) {
        try {
            const dp::ReplicatedDevice entry = dp::split_replicas(id);
            named.push_back(entry.device);
            replicas = std::max(replicas, entry.replicas);
        } catch (const dp::Error&) {
            // A count out of range names no device this list can check.
        }
    }
    std::vector<dp::DeviceInfo> chosen;
    std::copy_if(devices_.begin(), devices_.end(), std::back_inserter(chosen),
                 [&](const dp::DeviceInfo& device) {
                     return std::find(named.begin(), named.end(), device.id) != named.end();
                 });
    {
        const QSignalBlocker blocker(replicas_);
        replicas_->setValue(replicas);
    }
    setChecked(chosen);
}

std::vector<std::string> DeviceChooser::checkedIds() const
{
    std::vector<std::string> ids;
    for (int row = 0; row < list_->count(); ++row) {
        if (list_->item(row)->checkState() == Qt::Checked)
            ids.push_back(dp::replicated_id(devices_[std::size_t(row)].id, replicas_->value()));
    }
    return ids;
}

std::vector<dp::DeviceInfo> DeviceChooser::checkedDevices() const
{
    std::vector<dp::DeviceInfo> checked;
    for (int row = 0; row < list_->count(); ++row) {
        if (list_->item(row)->checkState() == Qt::Checked) {
            const auto replicas = dp::replicas_of(devices_[std::size_t(row)], replicas_->value());
            checked.insert(checked.end(), replicas.begin(), replicas.end());
        }
    }
    return checked;
}

void DeviceChooser::checkAll(dp::DeviceKind kind)
{
    std::vector<dp::DeviceInfo> chosen;
    std::copy_if(devices_.begin(), devices_.end(), std::back_inserter(chosen),
                 [kind](const dp::DeviceInfo& device) { return device.kind == kind; });
    setChecked(chosen);
}

// One checkedChanged for the whole change, not one per row.
void DeviceChooser::setChecked(const std::vector<dp::DeviceInfo>& chosen)
{
    {
        const QSignalBlocker blocker(list_);
        for (int row = 0; row < list_->count(); ++row) {
            const std::string& id = devices_[std::size_t(row)].id;
            const bool checked = std::any_of(chosen.begin(), chosen.end(),
                                             [&](const dp::DeviceInfo& device) { return device.id == id; });
            list_->item(row)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
        }
    }
    emit checkedChanged();
}
