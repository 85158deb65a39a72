#include "rdmabench/verbs/qp_type.hpp"

namespace rdmabench {

std::string to_string(QpType type) {
  return type == QpType::uc ? "UC" : type == QpType::ud ? "UD" : "RC";
}

}  // namespace rdmabench
