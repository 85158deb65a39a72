#include "system/interrupt_timer.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace rdmabench::detail {

namespace {

// A real-time signal no library of ours uses; its only effect is the EINTR.
const int kSignal = SIGRTMIN + 3;
thread_local std::atomic<bool> fired_here{false};

void note_interrupt(int) { fired_here.store(true, std::memory_order_relaxed); }

void install_handler_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = note_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: the interrupted call returns EINTR
    ::sigaction(kSignal, &action, nullptr);
  });
}

}  // namespace

InterruptTimer::InterruptTimer(Milliseconds after) {
  install_handler_once();
  fired_here.store(false, std::memory_order_relaxed);
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = kSignal;
  event._sigev_un._tid = static_cast<pid_t>(::syscall(SYS_gettid));
  if (::timer_create(CLOCK_MONOTONIC, &event, &timer_) != 0) return;  // unbounded, as before
  created_ = true;
  itimerspec when{};
  when.it_value.tv_sec = after.count() / 1000;
  when.it_value.tv_nsec = (after.count() % 1000) * 1000000;
  ::timer_settime(timer_, 0, &when, nullptr);
}

InterruptTimer::~InterruptTimer() {
  if (created_) ::timer_delete(timer_);
}

bool InterruptTimer::fired() const { return fired_here.load(std::memory_order_relaxed); }

}  // namespace rdmabench::detail
