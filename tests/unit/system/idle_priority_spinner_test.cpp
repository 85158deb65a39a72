// The passive server's CPU keeper runs at the lowest scheduling class, so it
// can never delay another thread, and it stops when asked.

#include "system/idle_priority_spinner.hpp"

#include <pthread.h>
#include <sched.h>

#include "catch2_compat.hpp"

TEST_CASE("idle spinner: runs at SCHED_IDLE until destroyed", "[spinner]") {
  // The class this test was started in: CI runs some lanes at SCHED_IDLE.
  const int caller_policy = ::sched_getscheduler(0);
  rdmabench::detail::IdlePrioritySpinner spinner;
  int policy = -1;
  sched_param param{};
  REQUIRE(::pthread_getschedparam(spinner.native_handle(), &policy, &param) == 0);
  CHECK(policy == SCHED_IDLE);
  // The calling thread keeps its own class: only the spinner was lowered.
  CHECK(::sched_getscheduler(0) == caller_policy);
}  // the destructor joins; a spinner that ignored its stop flag would hang here
