#pragma once

#include "nn/layer.h"

namespace dp {

// What average and max pooling share: a window geometry and the shapes it gives.
class Pool2dLayer : public Layer {
public:
    Pool2dLayer(int kernel, int stride, int pad);

    SampleShape output_shape(const SampleShape& input) const override;
    void build(ParameterStore& store, const SampleShape& input) override;

protected:
    // The geometry for a batch of `batch` samples.
    Pool2dShape shape(int batch) const;

private:
    Pool2dShape geometry_;
};

}  // namespace dp
