// The source port of an rdma_cm connection on iWARP. The provider's TCP
// socket binds the port rdma_cm picked, and rdma_cm picks from its own port
// space, blind to the host's TCP sockets: a port that an ordinary socket
// holds made rdma_connect fail with "Address already in use" now and then
// (twice in about six lab runs, on siw0). The client now takes a port that
// TCP itself found free. This case makes the collision likely: the local
// port range shrinks to 32 ports and ordinary listeners hold half of them.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "lab.hpp"

using namespace lab;

namespace {

constexpr const char* kPortRange = "/proc/sys/net/ipv4/ip_local_port_range";
// Above free_port_pair's range (20000 to 50000) and the default local
// range (to 60999), so no other lab case uses these ports.
constexpr int kLowestPort = 61000, kPorts = 32;

/// The guest's local port range narrowed to `first`..`first + count - 1`
/// while it lives, then put back.
class NarrowPortRange {
 public:
  NarrowPortRange(int first, int count) {
    std::ifstream in(kPortRange);
    std::getline(in, saved_);
    REQUIRE(!saved_.empty());
    write(std::to_string(first) + " " + std::to_string(first + count - 1));
  }
  ~NarrowPortRange() { write(saved_); }
  NarrowPortRange(const NarrowPortRange&) = delete;
  NarrowPortRange& operator=(const NarrowPortRange&) = delete;

 private:
  static void write(const std::string& range) {
    std::ofstream out(kPortRange);
    out << range << '\n';
  }
  std::string saved_;
};

/// A TCP socket listening on `port` of every address; -1 if it is taken.
int listen_on(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 1) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

/// The first `kPorts` ports from kLowestPort that TCP holds none of. A
/// run leaves its connections' ports in TIME_WAIT for a minute, so a repeat
/// takes the next block.
int free_block() {
  for (int first = kLowestPort; first + kPorts <= 65536; first += kPorts) {
    bool free = true;
    for (int port = first; free && port < first + kPorts; ++port) {
      const int fd = listen_on(port);
      free = fd >= 0;
      if (free) ::close(fd);
    }
    if (free) return first;
  }
  FAIL("no block of " << kPorts << " free TCP ports above " << kLowestPort);
  return 0;
}

}  // namespace

TEST_CASE("iWARP connections take a source port TCP has free, with half the local ports taken",
          "[lab][guest-wide]") {
  const auto d = iwarp();
  const int first = free_block();
  NarrowPortRange range(first, kPorts);
  std::vector<int> held;
  for (int port = first; port < first + kPorts; port += 2)
    if (const int fd = listen_on(port); fd >= 0) held.push_back(fd);
  INFO(held.size() << " of the " << kPorts << " local ports held by listeners");
  CHECK(held.size() == kPorts / 2);
  // Eight connections: without the fix each picked a held port about half
  // the time, so a run went through about once in 250.
  const Args args{"-d", d.name, "-q", "8", "-n", "200", "-s", "4096"};
  run_pair_ok("rdma_write_bw", args, d.address, args, 60);
  for (const int fd : held) ::close(fd);
}
