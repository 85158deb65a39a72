#pragma once
// Whether a waiting control connection's first frame (its hello) has
// arrived whole: the server reads a hello only then, so a client that
// trickles its hello a byte at a time waits beside the silent ones instead
// of holding the server in a blocking read for the hello deadline.

namespace rdmabench::detail {

/// True when `fd` holds its whole first frame unread (peeked, not read), or
/// when reading it would fail at once (the peer closed, or its header is
/// not ours): the caller then reads it without waiting. Otherwise false,
/// with SO_RCVLOWAT set so that poll() reports `fd` readable only once the
/// bytes the frame needs are there (or the peer closes). SO_RCVLOWAT is 1
/// again whenever it returns true.
bool first_frame_arrived(int fd);

}  // namespace rdmabench::detail
