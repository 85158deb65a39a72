#include "engine/peer_figures.hpp"

#include <fmt/format.h>

#include "rdmabench/control/wire.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::detail {

void exchange_bandwidth_figures(Session& s, SizeResult& result) {
  if (s.role == Role::server) {
    if (result.bandwidth) s.peer->send(wire::BandwidthReport{*result.bandwidth});
  } else {
    result.server_bandwidth =
        s.peer->receive_expected<wire::BandwidthReport>(s.timeout, "the server's bandwidth figures")
            .figures;
    // One figure per agreed QP, or none for a single QP (as our own side).
    const std::size_t per_qp = result.server_bandwidth->per_qp_mb_per_s.size();
    const std::size_t expected = s.spec.queue_pairs > 1 ? s.spec.queue_pairs : 0;
    require(per_qp == expected,
            fmt::format("protocol error: the server's bandwidth report has {} per-QP "
                        "figures; the run agreed on -q {}",
                        per_qp, s.spec.queue_pairs));
  }
}

}  // namespace rdmabench::detail
