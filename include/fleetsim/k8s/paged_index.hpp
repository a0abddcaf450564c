// A flat id → address table for ids handed out in order (the cluster's pods by id).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace fleetsim {

// Id → address. Ids are handed out in order and pods go in roughly that order, so the table is
// kept in pages of ids, each freed when its last pod goes: memory follows the live pods.
template <typename Id, typename T>
class PagedIndex {
 public:
  T* find(Id id) const {
    const std::size_t page = static_cast<std::size_t>(id) / kPage;
    if (page >= pages_.size() || pages_[page] == nullptr) return nullptr;
    return pages_[page]->slots[static_cast<std::size_t>(id) % kPage];
  }
  // `id` must not be held.
  void add(Id id, T* value) {
    const std::size_t page = static_cast<std::size_t>(id) / kPage;
    if (page >= pages_.size()) pages_.resize(page + 1);
    if (pages_[page] == nullptr) pages_[page] = std::make_unique<Page>();
    pages_[page]->slots[static_cast<std::size_t>(id) % kPage] = value;
    ++pages_[page]->count;
  }
  // No-op for an id not held.
  void erase(Id id) {
    const std::size_t page = static_cast<std::size_t>(id) / kPage;
    if (page >= pages_.size() || pages_[page] == nullptr) return;
    T*& slot = pages_[page]->slots[static_cast<std::size_t>(id) % kPage];
    if (slot == nullptr) return;
    slot = nullptr;
    if (--pages_[page]->count == 0) pages_[page].reset();
  }

 private:
  static constexpr std::size_t kPage = 1024;
  struct Page {
    std::array<T*, kPage> slots{};
    std::size_t count = 0;
  };
  std::vector<std::unique_ptr<Page>> pages_;
};

}  // namespace fleetsim
