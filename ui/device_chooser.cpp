#include "device_chooser.h"

#include <algorithm>
#include <iterator>

#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace {

// A machine with 8 GPUs shows them all; its CPU cores scroll below.
constexpr int kRowsBeforeScrolling = 8;

}  // namespace

DeviceChooser::DeviceChooser(std::vector<dp::DeviceInfo> devices, QWidget* parent)
    : QWidget(parent),
      devices_(std::move(devices)),
      allGpusButton_(new QPushButton(tr("All GPUs"), this)),
      allCpuCoresButton_(new QPushButton(tr("All CPU cores"), this)),
      list_(new QListWidget(this))
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
        auto* item = new QListWidgetItem(
            QStringLiteral("%1 — %2")
                .arg(QString::fromStdString(device.id), QString::fromStdString(device.description)),
            list_);
        item->setData(Qt::UserRole, QString::fromStdString(device.id));
        item->setToolTip(item->text());
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        item->setCheckState(Qt::Unchecked);
    }
    // Measured as the list will draw its rows, in its style.
    list_->ensurePolished();
    const int rowHeight = list_->count() > 0 ? list_->sizeHintForRow(0) : fontMetrics().height() + 4;
    list_->setFixedHeight(rowHeight * std::clamp(list_->count(), 1, kRowsBeforeScrolling)
                          + 2 * list_->frameWidth());

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(allGpusButton_);
    buttons->addWidget(allCpuCoresButton_);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(list_);

    connect(allGpusButton_, &QPushButton::clicked, this,
            [this] { checkAll(dp::DeviceKind::cuda); });
    connect(allCpuCoresButton_, &QPushButton::clicked, this,
            [this] { checkAll(dp::DeviceKind::cpu); });
    connect(list_, &QListWidget::itemChanged, this, &DeviceChooser::checkedChanged);
    setChecked(dp::default_devices(devices_));
}

void DeviceChooser::setCheckedIds(const std::vector<std::string>& ids)
{
    if (ids.empty()) {
        setChecked(dp::default_devices(devices_));
        return;
    }
    std::vector<dp::DeviceInfo> chosen;
    std::copy_if(devices_.begin(), devices_.end(), std::back_inserter(chosen),
                 [&](const dp::DeviceInfo& device) {
                     return std::find(ids.begin(), ids.end(), device.id) != ids.end();
                 });
    setChecked(chosen);
}

std::vector<std::string> DeviceChooser::checkedIds() const
{
    std::vector<std::string> ids;
    for (const dp::DeviceInfo& device : checkedDevices())
        ids.push_back(device.id);
    return ids;
}

std::vector<dp::DeviceInfo> DeviceChooser::checkedDevices() const
{
    std::vector<dp::DeviceInfo> checked;
    for (int row = 0; row < list_->count(); ++row) {
        if (list_->item(row)->checkState() == Qt::Checked)
            checked.push_back(devices_[std::size_t(row)]);
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
