// The open-loop echo's client bookkeeping (lib/loops/echo_window.hpp): what
// may be posted while messages wait for their answers and their own
// completions, and the check of the index an answer carries back.

#include "catch2_compat.hpp"

#include "loops/echo_window.hpp"
#include "test_helpers.hpp"

using rdmabench::Error;
using rdmabench::detail::check_answer_index;
using rdmabench::detail::EchoWindow;
using rdmabench::test::MessageContains;

TEST_CASE("echo window: -t messages in flight until their answers arrive", "[echo]") {
  EchoWindow w{4, 16};
  CHECK(w.room(0) == 4);
  CHECK(w.settled(0));
  CHECK(w.room(3) == 1);
  CHECK(w.room(4) == 0);
  CHECK(w.waiting(4));
  w.sent = 4;  // acked, but no answer yet: still in flight
  CHECK(w.room(4) == 0);
  w.answered = 1;
  CHECK(w.room(4) == 1);
  w.answered = 4;
  CHECK(w.room(4) == 4);
  CHECK(w.settled(4));
}

TEST_CASE("echo window: an answer that overtakes its ack still holds a send queue slot", "[echo]") {
  // The send queue has room for 4; -t allows 8. Answers arrive before the
  // sends' own completions are reaped: the queue, not -t, is the bound.
  EchoWindow w{8, 4};
  w.answered = 4;
  CHECK(w.room(4) == 0);
  CHECK_FALSE(w.settled(4));  // their completions are still owed
  CHECK(w.waiting(4));
  w.sent = 2;
  CHECK(w.room(4) == 2);
  w.sent = 4;
  CHECK(w.room(4) == 4);
  CHECK(w.settled(4));
}

TEST_CASE("echo answers: the index carried back must be the oldest message's", "[echo]") {
  CHECK_NOTHROW(check_answer_index(7, 7));
  // The immediate data carries 32 bits: the index wraps with them.
  CHECK_NOTHROW(check_answer_index(3, (std::uint64_t{1} << 32) + 3));
  REQUIRE_THROWS_MATCHES(check_answer_index(8, 7), Error,
                         MessageContains("protocol error: the answer expected for message 7 carried index 8"));
}
