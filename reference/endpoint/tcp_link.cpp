#include "endpoint/tcp_link.hpp"

#include <algorithm>
#include <cstring>

namespace rdmaconf::endpoint {

namespace {
constexpr std::size_t kReadChunk = 64 * 1024;
}

TcpLink::TcpLink(tcp::socket socket, std::size_t receive_limit)
    : socket_(std::move(socket)), receive_limit_(receive_limit) {
  boost::system::error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
}

void TcpLink::start(OnReceive on_receive, OnClosed on_closed) {
  on_receive_ = std::move(on_receive);
  on_closed_ = std::move(on_closed);
  read_more();
}

void TcpLink::read_more() {
  if (!open_) return;
  // Keep unconsumed octets at the front so the parser sees one contiguous
  // view; move them only when the free tail gets short.
  if (rx_.size() - rx_end_ < kReadChunk) {
    std::size_t pending = rx_end_ - rx_begin_;
    if (rx_begin_ > 0) {
      std::memmove(rx_.data(), rx_.data() + rx_begin_, pending);
      rx_begin_ = 0;
      rx_end_ = pending;
    }
    if (rx_.size() - rx_end_ < kReadChunk) rx_.resize(rx_end_ + kReadChunk);
  }
  socket_.async_read_some(
      asio::buffer(rx_.data() + rx_end_, rx_.size() - rx_end_),
      [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
        if (ec) {
          self->finish(ec == asio::error::eof ? std::string{} : ec.message());
          return;
        }
        self->octets_received_ += n;
        self->rx_end_ += n;
        // Offer the unconsumed octets until the parser stops consuming.
        while (self->open_ && self->rx_end_ > self->rx_begin_) {
          wire::Bytes view(self->rx_.data() + self->rx_begin_, self->rx_end_ - self->rx_begin_);
          std::size_t used = self->on_receive_(view);
          self->rx_begin_ += std::min(used, view.size());
          if (used == 0) break;
        }
        if (self->rx_begin_ == self->rx_end_) self->rx_begin_ = self->rx_end_ = 0;
        // An endpoint that never consumes would otherwise buffer without
        // bound: the receive limit turns that into a reported failure.
        if (self->rx_end_ - self->rx_begin_ > self->receive_limit_) {
          self->abort("receive buffer limit exceeded without a complete frame");
          return;
        }
        self->read_more();
      });
}

void TcpLink::send(std::vector<std::uint8_t> octets) {
  if (octets.empty()) return;
  asio::dispatch(socket_.get_executor(),
                 [self = shared_from_this(), o = std::move(octets)]() mutable { self->do_send(std::move(o)); });
}

void TcpLink::do_send(std::vector<std::uint8_t> octets) {
  if (!open_) return;
  tx_.push_back(std::move(octets));
  if (!writing_) write_next();
}

void TcpLink::write_next() {
  if (tx_.empty()) {
    writing_ = false;
    if (close_when_flushed_ && open_) {
      boost::system::error_code ignored;
      socket_.shutdown(tcp::socket::shutdown_send, ignored);
    }
    return;
  }
  writing_ = true;
  asio::async_write(socket_, asio::buffer(tx_.front()),
                    [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                      // The front buffer was this write's; abort() leaves it
                      // in place while the write is in flight.
                      self->tx_.pop_front();
                      if (ec) {
                        self->finish(ec.message());
                        return;
                      }
                      self->octets_sent_ += n;
                      if (!self->open_) {
                        self->writing_ = false;
                        return;
                      }
                      self->write_next();
                    });
}

void TcpLink::close_after_flush() {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->do_close_after_flush(); });
}

void TcpLink::do_close_after_flush() {
  close_when_flushed_ = true;
  if (!writing_) write_next();
}

void TcpLink::abort(const std::string& reason) {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this(), reason] {
    // Drop what is queued, but not the buffer a write in flight still uses:
    // its completion handler releases it (freeing it here was a double free
    // when that handler ran).
    if (self->writing_ && !self->tx_.empty()) self->tx_.erase(self->tx_.begin() + 1, self->tx_.end());
    else self->tx_.clear();
    self->finish(reason.empty() ? "aborted" : reason);
  });
}

void TcpLink::finish(const std::string& reason) {
  if (!open_) return;
  open_ = false;
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  if (on_closed_) on_closed_(reason);
}

}  // namespace rdmaconf::endpoint
