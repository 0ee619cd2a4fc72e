#pragma once

#include <QWidget>

#include <string>
#include <vector>

#include "devices/device.h"

class QListWidget;
class QPushButton;

// The devices a run trains on: a checkable list of the machine's GPUs and
// CPU cores, up to eight rows tall before it scrolls, with "All GPUs" and
// "All CPU cores" above it for the two sets a run can use whole.
class DeviceChooser : public QWidget {
    Q_OBJECT

public:
    explicit DeviceChooser(std::vector<dp::DeviceInfo> devices, QWidget* parent = nullptr);

    // Checks exactly `ids`; none: dp::default_devices (every GPU, else every
    // CPU core), as dp-train without --devices.
    void setCheckedIds(const std::vector<std::string>& ids);
    std::vector<std::string> checkedIds() const;
    std::vector<dp::DeviceInfo> checkedDevices() const;

signals:
    void checkedChanged();

private:
    void checkAll(dp::DeviceKind kind);
    void setChecked(const std::vector<dp::DeviceInfo>& chosen);

    std::vector<dp::DeviceInfo> devices_;
    QPushButton* allGpusButton_;
    QPushButton* allCpuCoresButton_;
    QListWidget* list_;
};
