#include "rdmabench/control/wire.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "rdmabench/control/test_parameters.hpp"
#include "rdmabench/verbs/error.hpp"

namespace rdmabench::wire {

namespace {

/// Appends big-endian fields; the frame length is patched in at the end.
class Writer {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(v); }
  void u16(std::uint16_t v) { put(v, 2); }
  void u32(std::uint32_t v) { put(v, 4); }
  void u64(std::uint64_t v) { put(v, 8); }
  // memcpy, not std::bit_cast: GCC 10 (Debian 11) has no <bit> bit_cast.
  void f64(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void optional_f64(const std::optional<double>& v) {
    u8(v.has_value());
    f64(v.value_or(0));
  }
  void text(const std::string& s) {
    require(s.size() <= kMaxText, "control message text longer than 1024 bytes");
    u16(static_cast<std::uint16_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  void put(std::uint64_t v, int width) {
    for (int i = width - 1; i >= 0; --i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t> bytes_;
};

/// The length of the well-formed UTF-8 sequence `bytes` starts with
/// (1 to 4), or 0 when it starts with none: a stray continuation byte, an
/// overlong form, a surrogate, a code point above U+10FFFF, or a sequence
/// cut short.
std::size_t utf8_sequence_length(std::span<const std::uint8_t> bytes) {
  const std::uint8_t b0 = bytes[0];
  if (b0 < 0x80) return 1;
  std::size_t length = 0;
  std::uint8_t low = 0x80, high = 0xbf;  // the range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) length = 2;
  else if (b0 == 0xe0) length = 3, low = 0xa0;
  else if (b0 == 0xed) length = 3, high = 0x9f;
  else if (b0 >= 0xe1 && b0 <= 0xef) length = 3;
  else if (b0 == 0xf0) length = 4, low = 0x90;
  else if (b0 == 0xf4) length = 4, high = 0x8f;
  else if (b0 >= 0xf1 && b0 <= 0xf3) length = 4;
  else return 0;
  if (bytes.size() < length || bytes[1] < low || bytes[1] > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (bytes[k] < 0x80 || bytes[k] > 0xbf) return 0;
  return length;
}

/// Reads big-endian fields; every read is bounds-checked.
class Reader {
 public:
  Reader(std::span<const std::uint8_t> bytes, const char* what) : bytes_(bytes), what_(what) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(get(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
  std::uint64_t u64() { return get(8); }
  double f64() {
    const std::uint64_t bits = u64();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::optional<double> optional_f64() {
    const bool present = u8() != 0;
    const double v = f64();
    return present ? std::optional<double>(v) : std::nullopt;
  }
  std::string text() {
    const std::size_t n = u16();
    require(n <= kMaxText, fmt::format("{} message: text field of {} bytes (limit {})", what_, n, kMaxText));
    need(n);
    // Text from the peer reaches the user's terminal: control characters
    // (escape sequences) arrive escaped, never raw. Escaping grows a byte
    // to four, so the decoded text is cut back to kMaxText, marked "...":
    // whatever we decoded must still encode (a reply or record quoting it).
    // So are C1 controls (U+0080-U+009F, which terminals also obey) and
    // bytes that are not UTF-8: what we keep is valid UTF-8, which the
    // JSON writer takes as it is.
    constexpr std::string_view kCut = "...";
    std::string s;
    std::size_t cut_at = 0;  // the longest whole-piece prefix that leaves room for kCut
    for (std::size_t i = pos_; i < pos_ + n;) {
      const std::size_t length = utf8_sequence_length(bytes_.subspan(i, pos_ + n - i));
      const auto c = bytes_[i];
      if (length == 0) {
        s += fmt::format("\\x{:02x}", c);  // not UTF-8: escaped, byte by byte
        ++i;
      } else if (length == 1) {
        if (c < 0x20 || c == 0x7f) s += fmt::format("\\x{:02x}", c);
        else s += static_cast<char>(c);
        ++i;
      } else {
        if (c == 0xc2 && bytes_[i + 1] < 0xa0) s += fmt::format("\\u{:04x}", bytes_[i + 1]);  // C1
        else s.append(reinterpret_cast<const char*>(&bytes_[i]), length);
        i += length;
      }
      if (s.size() <= kMaxText - kCut.size()) cut_at = s.size();
    }
    if (s.size() > kMaxText) s.replace(cut_at, std::string::npos, kCut);
    pos_ += n;
    return s;
  }
  void finish() const {
    require(pos_ == bytes_.size(), fmt::format("{} message has {} unexpected trailing bytes", what_,
                                               bytes_.size() - pos_));
  }

 private:
  void need(std::size_t n) const {
    require(bytes_.size() - pos_ >= n,
            fmt::format("{} message truncated: needs {} more bytes at offset {}, has {}", what_, n,
                        pos_, bytes_.size() - pos_));
  }
  std::uint64_t get(std::size_t width) {
    need(width);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < width; ++i) v = (v << 8) | bytes_[pos_ + i];
    pos_ += width;
    return v;
  }
  std::span<const std::uint8_t> bytes_;
  const char* what_;
  std::size_t pos_ = 0;
};

MessageType type_of(const Message& m) {
  return std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Hello>) return MessageType::hello;
        if constexpr (std::is_same_v<T, Reject>) return MessageType::reject;
        if constexpr (std::is_same_v<T, Endpoint>) return MessageType::endpoint;
        if constexpr (std::is_same_v<T, Barrier>) return MessageType::barrier;
        if constexpr (std::is_same_v<T, Abort>) return MessageType::abort;
        if constexpr (std::is_same_v<T, CpuReport>) return MessageType::cpu_report;
        if constexpr (std::is_same_v<T, BandwidthReport>) return MessageType::bandwidth_report;
        if constexpr (std::is_same_v<T, Heartbeat>) return MessageType::heartbeat;
      },
      m);
}

/// One field of the hello, by the type its row in kTestParameters gives it.
template <typename T>
void put_field(Writer& w, const T& value) {
  if constexpr (std::is_same_v<T, bool> || std::is_enum_v<T>) {
    w.u8(static_cast<std::uint8_t>(value));
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    w.u32(value);
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    w.u64(value);
  } else {
    static_assert(std::is_same_v<T, std::vector<std::uint64_t>>, "a hello field of a new type");
    require(value.size() <= kMaxSizes, "more than 64 message sizes in one run");
    w.u16(static_cast<std::uint16_t>(value.size()));
    for (auto v : value) w.u64(v);
  }
}

void write_body(Writer& w, const Hello& m) {
  w.u32(kHelloFingerprint);
  for_each_test_parameter([&](const auto& row) { put_field(w, m.spec.*row.member); });
}
void write_body(Writer& w, const Reject& m) { w.text(m.reason); }
void write_body(Writer& w, const Abort& m) { w.text(m.reason); }
void write_body(Writer& w, const Barrier& m) { w.u32(m.sequence); }
void write_body(Writer& w, const CpuReport& m) {
  const CpuUsage& u = m.usage;
  for (double v : {u.wall_s, u.resolution_s, u.process_cpu_s, u.process_cores,
                   u.process_user_cores, u.process_system_cores})
    w.f64(v);
  w.optional_f64(u.process_cpu_s_per_gb);
  w.u32(static_cast<std::uint32_t>(u.machine_cpus));
  for (double v : {u.machine_cores, u.machine_user_cores, u.machine_nice_cores,
                   u.machine_system_cores, u.machine_irq_cores, u.machine_softirq_cores,
                   u.machine_steal_cores})
    w.f64(v);
  w.optional_f64(u.machine_iowait_cores);
}

void write_body(Writer&, const Heartbeat&) {}

void write_body(Writer& w, const BandwidthReport& m) {
  const BandwidthFigures& b = m.figures;
  for (double v : {b.seconds, b.peak_mb_per_s, b.average_mb_per_s, b.message_rate_mpps}) w.f64(v);
  w.u64(b.messages);
  require(b.per_qp_mb_per_s.size() <= kMaxQueuePairs, "more per-QP figures than queue pairs");
  w.u16(static_cast<std::uint16_t>(b.per_qp_mb_per_s.size()));
  for (double v : b.per_qp_mb_per_s) w.f64(v);
}

/// A figure the peer measured: a finite number, not below zero.
void require_figure(double v, const char* what) {
  require(std::isfinite(v) && v >= 0, fmt::format("{}: a figure of {} (expected a finite number, 0 or more)", what, v));
}

BandwidthReport read_bandwidth_report(Reader& r) {
  BandwidthReport m;
  BandwidthFigures& b = m.figures;
  for (double* v : {&b.seconds, &b.peak_mb_per_s, &b.average_mb_per_s, &b.message_rate_mpps})
    *v = r.f64();
  b.messages = r.u64();
  const std::size_t count = r.u16();
  require(count <= kMaxQueuePairs,
          fmt::format("bandwidth report: {} per-QP figures (at most {})", count, kMaxQueuePairs));
  b.per_qp_mb_per_s.resize(count);
  for (double& v : b.per_qp_mb_per_s) v = r.f64();
  for (double v : {b.seconds, b.peak_mb_per_s, b.average_mb_per_s, b.message_rate_mpps})
    require_figure(v, "bandwidth report");
  for (double v : b.per_qp_mb_per_s) require_figure(v, "bandwidth report (per QP)");
  return m;
}

CpuReport read_cpu_report(Reader& r) {
  CpuReport m;
  CpuUsage& u = m.usage;
  for (double* v : {&u.wall_s, &u.resolution_s, &u.process_cpu_s, &u.process_cores,
                    &u.process_user_cores, &u.process_system_cores})
    *v = r.f64();
  u.process_cpu_s_per_gb = r.optional_f64();
  const std::uint32_t cpus = r.u32();
  require(cpus <= static_cast<std::uint32_t>(std::numeric_limits<int>::max()),
          fmt::format("CPU report: {} CPUs in one machine is no count", cpus));
  u.machine_cpus = static_cast<int>(cpus);
  for (double* v : {&u.machine_cores, &u.machine_user_cores, &u.machine_nice_cores,
                    &u.machine_system_cores, &u.machine_irq_cores, &u.machine_softirq_cores,
                    &u.machine_steal_cores})
    *v = r.f64();
  u.machine_iowait_cores = r.optional_f64();
  for (double v : {u.wall_s, u.resolution_s, u.process_cpu_s, u.process_cores, u.process_user_cores,
                   u.process_system_cores, u.machine_cores, u.machine_user_cores, u.machine_nice_cores,
                   u.machine_system_cores, u.machine_irq_cores, u.machine_softirq_cores, u.machine_steal_cores})
    require_figure(v, "CPU report");
  for (const auto& v : {u.process_cpu_s_per_gb, u.machine_iowait_cores})
    if (v) require_figure(*v, "CPU report");
  return m;
}

void write_body(Writer& w, const Endpoint& m) {
  w.u32(m.qp_number);
  w.u32(m.packet_sequence);
  w.u16(m.lid);
  for (auto b : m.gid) w.u8(b);
  w.u32(m.mtu_bytes);
  w.u8(m.read_responders);
  w.u32(m.rkey);
  w.u64(m.address);
  w.u64(m.length);
  w.text(m.memory);
}

template <typename T>
T get_field(Reader& r, const char* key) {
  if constexpr (std::is_same_v<T, bool>) {
    const auto raw = r.u8();
    require(raw <= 1, fmt::format("hello message: {} flag {} (expected 0 or 1)", key, raw));
    return raw == 1;
  } else if constexpr (std::is_enum_v<T>) {
    const auto raw = r.u8();
    require(raw >= 1 && raw <= EnumNames<T>::names.size(),
            fmt::format("hello message: unknown {} code {}", EnumNames<T>::what, raw));
    return static_cast<T>(raw);
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return r.u32();
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    return r.u64();
  } else {
    const std::size_t count = r.u16();
    require(count >= 1 && count <= kMaxSizes,
            fmt::format("hello message: {} message sizes (expected 1 to {})", count, kMaxSizes));
    T values(count);
    for (auto& v : values) v = r.u64();
    return values;
  }
}

/// Decodes every field, then applies the command line's range rules: a
/// value no client could have been given never reaches the server.
Hello read_hello(Reader& r) {
  const auto fingerprint = r.u32();
  require(fingerprint == kHelloFingerprint,
          fmt::format("hello message: the peer's test parameters (table {:08x}) are not this "
                      "build's ({:08x}); use the same rdmabench version on both sides",
                      fingerprint, kHelloFingerprint));
  Hello h;
  for_each_test_parameter([&](const auto& row) {
    using T = typename std::decay_t<decltype(row)>::Value;
    h.spec.*row.member = get_field<T>(r, row.key);
  });
  if (auto problem = find_out_of_range(h.spec)) throw Error("hello message: " + *problem);
  return h;
}

Endpoint read_endpoint(Reader& r) {
  Endpoint e;
  e.qp_number = r.u32();
  e.packet_sequence = r.u32();
  e.lid = r.u16();
  for (auto& b : e.gid) b = r.u8();
  e.mtu_bytes = r.u32();
  e.read_responders = r.u8();
  e.rkey = r.u32();
  e.address = r.u64();
  e.length = r.u64();
  e.memory = r.text();
  return e;
}

}  // namespace

std::string type_name(const Message& message) {
  switch (type_of(message)) {
    case MessageType::hello: return "hello";
    case MessageType::reject: return "reject";
    case MessageType::endpoint: return "endpoint";
    case MessageType::barrier: return "barrier";
    case MessageType::abort: return "abort";
    case MessageType::cpu_report: return "cpu report";
    case MessageType::bandwidth_report: return "bandwidth report";
    case MessageType::heartbeat: return "heartbeat";
  }
  return "unknown";
}

std::vector<std::uint8_t> encode(const Message& message) {
  Writer body;
  std::visit([&](const auto& m) { write_body(body, m); }, message);
  auto payload = body.take();
  Writer frame;
  frame.u32(kMagic);
  frame.u16(kVersion);
  frame.u16(static_cast<std::uint16_t>(type_of(message)));
  frame.u32(static_cast<std::uint32_t>(payload.size()));
  auto bytes = frame.take();
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

FrameHeader decode_header(std::span<const std::uint8_t> header) {
  Reader r(header, "control");
  const auto magic = r.u32();
  require(magic == kMagic,
          fmt::format("not an rdmabench peer: bad magic 0x{:08x} (expected 0x{:08x} \"RDMB\")",
                      magic, kMagic));
  const auto version = r.u16();
  require(version == kVersion,
          fmt::format("peer speaks control protocol version {}, this build speaks {}; "
                      "use the same rdmabench version on both sides",
                      version, kVersion));
  const auto type = r.u16();
  require(type >= 1 && type <= static_cast<std::uint16_t>(MessageType::heartbeat), fmt::format("unknown control message type {}", type));
  const auto length = r.u32();
  require(length <= kMaxPayload,
          fmt::format("control message of {} bytes exceeds the {}-byte limit", length, kMaxPayload));
  r.finish();
  return {static_cast<MessageType>(type), length};
}

namespace {

/// Reads one message with `read` and insists that it used every byte.
template <typename Read>
Message read_whole(std::span<const std::uint8_t> payload, const char* what, Read read) {
  Reader r(payload, what);
  Message m = read(r);
  r.finish();
  return m;
}

}  // namespace

Message decode_payload(MessageType type, std::span<const std::uint8_t> payload) {
  switch (type) {
    case MessageType::hello: return read_whole(payload, "hello", read_hello);
    case MessageType::reject:
      return read_whole(payload, "reject", [](Reader& r) { return Reject{r.text()}; });
    case MessageType::abort:
      return read_whole(payload, "abort", [](Reader& r) { return Abort{r.text()}; });
    case MessageType::barrier:
      return read_whole(payload, "barrier", [](Reader& r) { return Barrier{r.u32()}; });
    case MessageType::cpu_report: return read_whole(payload, "cpu report", read_cpu_report);
    case MessageType::endpoint: return read_whole(payload, "endpoint", read_endpoint);
    case MessageType::bandwidth_report:
      return read_whole(payload, "bandwidth report", read_bandwidth_report);
    case MessageType::heartbeat:
      return read_whole(payload, "heartbeat", [](Reader&) { return Heartbeat{}; });
  }
  throw Error("unknown control message type");
}

Message decode(std::span<const std::uint8_t> frame) {
  require(frame.size() >= kHeaderSize,
          fmt::format("control frame truncated: {} bytes, header alone is {}", frame.size(),
                      kHeaderSize));
  const auto header = decode_header(frame.first(kHeaderSize));
  const auto payload = frame.subspan(kHeaderSize);
  require(payload.size() == header.payload_length,
          fmt::format("control frame announces {} payload bytes but carries {}",
                      header.payload_length, payload.size()));
  return decode_payload(header.type, payload);
}

}  // namespace rdmabench::wire
