// Resource vectors: CPU, memory, pods, storage and extended resources in fixed slots.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

// Slot of a resource in a Resources vector. The well-known ones are fixed; a scenario may
// register further extended resources (e.g. MIG profiles) into the remaining slots.
using ResourceIndex = std::uint8_t;

namespace resource {
inline constexpr ResourceIndex kCpu = 0;               // millicores
inline constexpr ResourceIndex kMemory = 1;            // bytes
inline constexpr ResourceIndex kPods = 2;              // count
inline constexpr ResourceIndex kEphemeralStorage = 3;  // bytes
inline constexpr ResourceIndex kNvidiaGpu = 4;         // nvidia.com/gpu
inline constexpr ResourceIndex kAmdGpu = 5;            // amd.com/gpu
inline constexpr ResourceIndex kNeuron = 6;            // aws.amazon.com/neuron
inline constexpr ResourceIndex kNeuronCore = 7;        // aws.amazon.com/neuroncore
inline constexpr ResourceIndex kEfa = 8;               // vpc.amazonaws.com/efa
inline constexpr ResourceIndex kGaudi = 9;             // habana.ai/gaudi
inline constexpr ResourceIndex kWellKnownCount = 10;
inline constexpr ResourceIndex kMaxResources = 16;
}  // namespace resource

class Resources {
 public:
  constexpr Resources() = default;

  constexpr std::int64_t operator[](ResourceIndex i) const { return v_[i]; }
  constexpr std::int64_t& operator[](ResourceIndex i) { return v_[i]; }

  constexpr std::int64_t cpu_millis() const { return v_[resource::kCpu]; }
  constexpr std::int64_t memory_bytes() const { return v_[resource::kMemory]; }
  constexpr std::int64_t pods() const { return v_[resource::kPods]; }
  // All accelerators a workload may ask for: NVIDIA, AMD, Neuron devices and Gaudi.
  constexpr std::int64_t gpus() const {
    return v_[resource::kNvidiaGpu] + v_[resource::kAmdGpu] + v_[resource::kNeuron] +
           v_[resource::kGaudi];
  }

  constexpr Resources& operator+=(const Resources& o) {
    for (std::size_t i = 0; i < v_.size(); ++i) v_[i] += o.v_[i];
    return *this;
  }
  constexpr Resources& operator-=(const Resources& o) {
    for (std::size_t i = 0; i < v_.size(); ++i) v_[i] -= o.v_[i];
    return *this;
  }
  friend constexpr Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend constexpr Resources operator-(Resources a, const Resources& b) { return a -= b; }
  friend constexpr bool operator==(const Resources&, const Resources&) = default;

  // True when every component of *this is at most the same component of `limit`.
  constexpr bool fits_in(const Resources& limit) const {
    bool ok = true;
    for (std::size_t i = 0; i < v_.size(); ++i) ok &= v_[i] <= limit.v_[i];
    return ok;
  }
  constexpr bool is_zero() const {
    for (auto x : v_)
      if (x != 0) return false;
    return true;
  }
  // Component-wise maximum and minimum.
  static constexpr Resources max(const Resources& a, const Resources& b) {
    Resources r;
    for (std::size_t i = 0; i < r.v_.size(); ++i) r.v_[i] = a.v_[i] > b.v_[i] ? a.v_[i] : b.v_[i];
    return r;
  }
  static constexpr Resources min(const Resources& a, const Resources& b) {
    Resources r;
    for (std::size_t i = 0; i < r.v_.size(); ++i) r.v_[i] = a.v_[i] < b.v_[i] ? a.v_[i] : b.v_[i];
    return r;
  }

 private:
  std::array<std::int64_t, resource::kMaxResources> v_{};
};

// Maps resource names to slots. Owned by a scenario (no global state).
class ResourceRegistry {
 public:
  ResourceRegistry();
  // The slot of a known name, or nullopt.
  std::optional<ResourceIndex> find(std::string_view name) const;
  // The slot of a name, registering an extended resource if needed; nullopt when slots run out.
  std::optional<ResourceIndex> intern(std::string_view name);
  const std::string& name(ResourceIndex i) const { return names_[i]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
};

// Whether a quantity of this resource is measured in bytes (memory, storage, hugepages).
bool is_byte_resource(std::string_view name);

}  // namespace fleetsim
