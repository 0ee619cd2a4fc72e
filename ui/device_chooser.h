#pragma once

#include <QWidget>

#include <string>
#include <vector>

#include "config/device_choice.h"

class QListWidget;
class QPushButton;
class QSpinBox;

// The devices a run trains on: a checkable list of the machine's GPUs and
// CPU cores, up to eight rows tall before it scrolls, with "All GPUs" and
// "All CPU cores" above it for the two sets a run can use whole, and the
// replicas to run on each checked device (two replicas of one GPU show data
// parallelism on a machine with one). A GPU's row shows its whole name and
// memory on two lines, never behind a scroll bar.
class DeviceChooser : public QWidget {
    Q_OBJECT

public:
    explicit DeviceChooser(std::vector<dp::DeviceInfo> devices, QWidget* parent = nullptr);

    // Checks exactly `ids` ("cuda:0x2" checks cuda:0 with 2 replicas); none:
    // dp::default_devices (every GPU, else every CPU core), as dp-train
    // without --devices.
    void setCheckedIds(const std::vector<std::string>& ids);
    // The --devices entries: "cuda:0", or "cuda:0x2" with replicas.
    std::vector<std::string> checkedIds() const;
    // Every replica the run will have (dp::select_devices of checkedIds()).
    std::vector<dp::DeviceInfo> checkedDevices() const;
    // Every device of this machine the list offers.
    const std::vector<dp::DeviceInfo>& availableDevices() const { return devices_; }

signals:
    void checkedChanged();

private:
    void checkAll(dp::DeviceKind kind);
    void setChecked(const std::vector<dp::DeviceInfo>& chosen);

    std::vector<dp::DeviceInfo> devices_;
    QPushButton* allGpusButton_;
    QPushButton* allCpuCoresButton_;
    QListWidget* list_;
    QSpinBox* replicas_;
};
