// A first-in first-out queue in one contiguous array, for the queues the
// stream machines fill and drain while a connection runs (an RDMAP stream's
// outgoing segments, completions and outstanding requests; DDP's posted
// buffers and delivered messages).
//
// std::deque, which those queues were, allocates its block map and a first
// block when it is constructed, and with elements as large as an outgoing
// segment (its header octets and payload views) one block per element: every
// push and pop went through malloc and free. A Ring allocates nothing until
// its first push, grows by doubling when full (moving its elements, so
// references into it are invalidated by a push, as they would be by a
// vector's), and keeps its array when drained or cleared, so a machine that
// runs for a while stops allocating once its queues reached their depth.
// Elements leave by being moved out; the slot left behind is reset to T{},
// so a drained queue holds no views into memory it was given.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace rdmaconf::wire {

template <typename T>
class Ring {
 public:
  Ring() = default;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

  // i = 0 is the front (the oldest element); i must be below size().
  T& operator[](std::size_t i) { return slots_[index(i)]; }
  const T& operator[](std::size_t i) const { return slots_[index(i)]; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(T value) {
    if (size_ == slots_.size()) grow();
    slots_[index(size_)] = std::move(value);
    ++size_;
  }

  // Moves the front element out; the queue must not be empty.
  T take_front() {
    T out = std::move(slots_[head_]);
    slots_[head_] = T{};
    head_ = head_ + 1 == slots_.size() ? 0 : head_ + 1;
    --size_;
    return out;
  }
  void pop_front() { (void)take_front(); }

  // Empties the queue and keeps its array.
  void clear() {
    for (std::size_t i = 0; i < size_; ++i) slots_[index(i)] = T{};
    head_ = 0;
    size_ = 0;
  }

  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < size_; ++i) f(slots_[index(i)]);
  }

 private:
  std::size_t index(std::size_t i) const {
    const std::size_t k = head_ + i;
    return k < slots_.size() ? k : k - slots_.size();
  }

  void grow() {
    std::vector<T> bigger(slots_.empty() ? 4 : slots_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[index(i)]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace rdmaconf::wire
