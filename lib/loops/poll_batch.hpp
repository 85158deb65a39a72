#pragma once
// How many completions one ibv_poll_cq call of a timed loop takes: enough
// that a burst of completions costs one call, few enough that the array
// lives on the stack and a latency loop reacts to the first completion
// without waiting for more (the call returns what is there).
namespace rdmabench::detail {

inline constexpr int kPollBatch = 16;

}  // namespace rdmabench::detail
