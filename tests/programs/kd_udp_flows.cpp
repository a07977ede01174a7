// Sends one UDP datagram to each of COUNT destination ports of DST_IP, each a
// new flow for an Open vSwitch datapath (with megaflows off, one upcall each).
//
//   kd_udp_flows DST_IP COUNT [FIRST_PORT [PER_SECOND]]
//                FIRST_PORT default 10000; PER_SECOND 0 (default): a burst.
//                Ports wrap within 1024-65535. Prints "sent N".
#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: kd_udp_flows DST_IP COUNT [FIRST_PORT [PER_SECOND]]\n");
        return 64;
    }
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    if (inet_pton(AF_INET, argv[1], &dst.sin_addr) != 1) {
        fprintf(stderr, "kd_udp_flows: bad address %s\n", argv[1]);
        return 64;
    }
    const long count = strtol(argv[2], nullptr, 10);
    const long first = argc > 3 ? strtol(argv[3], nullptr, 10) : 10000;
    const long rate = argc > 4 ? strtol(argv[4], nullptr, 10) : 0;
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("socket");
        return 71;
    }
    const timespec gap{0, rate > 0 ? 1000000000L / rate : 0};
    const char payload[] = "kdelay";
    long sent = 0;
    for (long i = 0; i < count; ++i) {
        dst.sin_port = htons(static_cast<uint16_t>(1024 + (first - 1024 + i) % (65536 - 1024)));
        // A full socket buffer would drop the packet before the datapath sees it.
        while (sendto(fd, payload, sizeof payload, 0, reinterpret_cast<sockaddr*>(&dst), sizeof dst) < 0) {
            if (errno != ENOBUFS && errno != EAGAIN) {
                perror("sendto");
                return 74;
            }
            usleep(100);
        }
        ++sent;
        if (rate > 0)
            nanosleep(&gap, nullptr);
    }
    printf("sent %ld\n", sent);
    return 0;
}
