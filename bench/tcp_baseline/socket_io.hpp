#pragma once
// Byte-level I/O on a connected socket, every wait bounded by a timeout.

#include <cstddef>

#include "rdmabench/control/bootstrap.hpp"

namespace rdmabench::tcp {

/// Sends all `length` bytes; throws Error when the peer does not take them
/// within `timeout` of the last progress, or the connection fails.
void send_all(int fd, const void* data, std::size_t length, Milliseconds timeout);

/// Reads up to `length` bytes; returns how many (0 only at end of stream).
std::size_t receive_some(int fd, void* data, std::size_t length, Milliseconds timeout);

/// Reads exactly `length` bytes; an end of stream before them is an Error.
void receive_all(int fd, void* data, std::size_t length, Milliseconds timeout);

}  // namespace rdmabench::tcp
