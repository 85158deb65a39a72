#pragma once
/// @file
/// Which end of a run this side is.

namespace rdmabench {

enum class Role { server, client };

}  // namespace rdmabench
