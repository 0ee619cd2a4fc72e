#pragma once

#include <functional>
#include <map>

namespace dp {

// Plans (oneDNN primitives, cuDNN descriptors and algorithm choices) cached
// by op shape: built on the first call with a shape, reused on every later
// one, so the step loop builds nothing after its first batch of each size.
template <typename Shape, typename Plan>
class PlanCache {
public:
    template <typename Build>
    Plan& get(const Shape& shape, Build&& build) {
        auto it = plans_.find(shape);
        if (it == plans_.end()) it = plans_.emplace(shape, build(shape)).first;
        return it->second;
    }


private:
    std::map<Shape, Plan> plans_;
};

}  // namespace dp
