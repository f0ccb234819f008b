// The one place rdmaconf includes Boost.Asio.
//
// Boost 1.74's asio/awaitable.hpp uses std::exchange without including
// <utility>; under C++20 with libstdc++ 12 nothing else pulls it in first.
// Include this header instead of <boost/asio.hpp>.
#pragma once

#include <utility>

#include <boost/asio.hpp>

namespace rdmaconf::endpoint {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
}  // namespace rdmaconf::endpoint
