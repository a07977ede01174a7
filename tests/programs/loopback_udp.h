// A UDP socket bound to a free port of 127.0.0.1, for the test programs that
// put traffic on loopback.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

// The socket, its address in *at; -1 on failure.
inline int bind_loopback_udp(sockaddr_in* at)
{
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    *at = sockaddr_in{};
    at->sin_family = AF_INET;
    at->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(*at);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(at), sizeof(*at)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(at), &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}
