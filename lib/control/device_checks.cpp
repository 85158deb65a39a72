// Checks of the agreed test against this side's device, port and options,
// made before any queue exists, so that a test the device cannot run is
// refused with the option and the limit named.
#include <fmt/format.h>

#include "rdmabench/verbs/error.hpp"
#include "control/session_internal.hpp"

namespace rdmabench::detail {

void settle_connect_method(TestSpec& spec, const Transport& transport, const std::string& device,
                           const Notice& notice) {
  if (transport.requires_rdma_cm && spec.connect != ConnectMethod::rdma_cm) {
    notice(fmt::format("{} is {}: connecting with rdma_cm, which {} requires", device,
                       to_string(transport.kind), to_string(transport.kind)));
    spec.connect = ConnectMethod::rdma_cm;
  }
}

void check_device_can_run(const TestSpec& spec, ibv_context* context) {
  // Capabilities come from the device, never from its name. iWARP defines
  // only reliable connections (RFC 5040), so its devices offer RC alone.
  const char* name = ibv_get_device_name(context->device);
  require(!spec.multicast_receivers || context->device->transport_type != IBV_TRANSPORT_IWARP,
          fmt::format("{} is iWARP: no UD, so no multicast (-g/--mcg); use rxe/RoCE or InfiniBand", name));
  require(spec.qp_type == QpType::rc || context->device->transport_type != IBV_TRANSPORT_IWARP,
          fmt::format("{} is iWARP, which offers only RC queue pairs: -c/--connection {} cannot "
                      "run on it",
                      name, to_string(spec.qp_type)),
          "use -c RC here, or a RoCE or InfiniBand device for UC and UD");
  // RDMAP (RFC 5040) has no immediate data, so iWARP devices have no
  // RDMA write with immediate.
  require(!spec.write_with_imm || context->device->transport_type != IBV_TRANSPORT_IWARP,
          fmt::format("{} is iWARP, which has no RDMA write with immediate data: --write-with-imm "
                      "cannot run on it",
                      name),
          "drop --write-with-imm here (rdma_send_* also measure completion-driven transfers)");
  // An open-loop write server sees each message only by its immediate data.
  require(!writes_with_immediate(spec) || context->device->transport_type != IBV_TRANSPORT_IWARP,
          fmt::format("{} is iWARP, which has no RDMA write with immediate data: rdma_write_lat --rate "
                      "needs it, since its server answers each write when its completion arrives",
                      name),
          "run rdma_send_lat --rate here for open-loop latency (or rdma_write_lat without --rate)");
  if (spec.operation != Operation::atomic) return;
  ibv_device_attr device{};
  if (int rc = ibv_query_device(context, &device); rc != 0) throw_system_error("ibv_query_device", rc);
  require(device.atomic_cap != IBV_ATOMIC_NONE,
          fmt::format("{} cannot run atomics: its atomic_cap is ATOMIC_NONE", name),
          "run rdma_atomic_* on a device that supports them (ibv_devinfo -v shows atomic_cap)");
}

void check_qp_options(const QpOptions& options, const PortAttributes& port, ConnectMethod method,
                      const Notice& notice) {
  if (options.mtu_bytes)
    require(*options.mtu_bytes <= port.active_mtu_bytes,
            fmt::format("-m/--mtu {} exceeds the active MTU of {} port {}, {} bytes",
                        *options.mtu_bytes, port.device, port.port, port.active_mtu_bytes),
            "give a smaller -m, or none to use the active MTU");
  // An iWARP device may have no P_Key table at all; index 0 then means "none".
  require(options.pkey_index == 0 || options.pkey_index < port.pkey_table_length,
          fmt::format("--pkey-index {} does not exist on {} port {}: its P_Key table holds {} "
                      "entr{} (valid indexes 0-{})",
                      options.pkey_index, port.device, port.port, port.pkey_table_length,
                      port.pkey_table_length == 1 ? "y" : "ies",
                      port.pkey_table_length ? port.pkey_table_length - 1 : 0),
          "give a smaller --pkey-index, or none for index 0");
  if (method == ConnectMethod::rdma_cm && (options.mtu_bytes || options.service_level))
    notice("-m/--mtu and --sl are ignored with rdma_cm, which takes them from the route");
  if (method == ConnectMethod::rdma_cm && options.pkey_index)
    notice("--pkey-index is ignored with rdma_cm, which takes the P_Key from the route");
}

void check_sizes_fit(const TestSpec& spec, const PortAttributes& port) {
  for (auto size : spec.sizes) {
    require(size >= 1, "message size 0 is invalid; give -s/--size between 1 and " +
                           std::to_string(port.max_message_bytes) + " bytes");
    require(size <= port.max_message_bytes,
            fmt::format("message size {} exceeds the largest message {} port {} can carry, "
                        "{} bytes",
                        size, port.device, port.port, port.max_message_bytes),
            "use a smaller -s/--size");
  }
  if (spec.load_queue_pairs)
    require(spec.load_size <= port.max_message_bytes,
            fmt::format("--load-size {} exceeds the largest message {} port {} can carry, {} bytes",
                        spec.load_size, port.device, port.port, port.max_message_bytes),
            "use a smaller --load-size");
}

void check_datagram_sizes(const TestSpec& spec, std::uint32_t mtu_bytes, const std::string& device) {
  if (spec.qp_type != QpType::ud) return;
  for (auto size : spec.sizes)
    require(size <= mtu_bytes,
            fmt::format("message size {} exceeds the path MTU of {} bytes on {}: a UD message "
                        "travels in one packet",
                        size, mtu_bytes, device),
            fmt::format("use -s/--size {} or less with -c UD, or -c RC/UC for larger messages",
                        mtu_bytes));
}

}  // namespace rdmabench::detail
