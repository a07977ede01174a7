#include "loader/map_io.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace kdelay {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& map)
{
    throw Error(Exit::software, "cannot " + what + " the BPF map " + map + ": " + std::strerror(errno));
}

}  // namespace

int MapIo::fd(const std::string& map)
{
    auto it = fds_.find(map);
    if (it == fds_.end())
        it = fds_.emplace(map, fd_of_(map)).first;
    return it->second;
}

int64_t MapIo::value_size(const std::string& map)
{
    auto it = value_sizes_.find(map);
    if (it == value_sizes_.end()) {
        bpf_map_info info{};
        uint32_t len = sizeof(info);
        const bool known = bpf_obj_get_info_by_fd(fd(map), &info, &len) == 0;
        it = value_sizes_.emplace(map, known ? int64_t{info.value_size} : -1).first;
    }
    return it->second;
}

void MapIo::lookup(const std::string& map, uint32_t index, void* value, size_t size)
{
    if (value_size(map) != static_cast<int64_t>(size))
        fail("read (value size) of", map);
    if (bpf_map_lookup_elem(fd(map), &index, value) != 0)
        fail("read", map);
}

bool MapIo::find_key(const std::string& map, const void* key, void* value, size_t size)
{
    if (value_size(map) != static_cast<int64_t>(size))
        fail("read (value size) of", map);
    return bpf_map_lookup_elem(fd(map), key, value) == 0;
}

void MapIo::update(const std::string& map, uint32_t index, const void* value, size_t size)
{
    if (value_size(map) != static_cast<int64_t>(size))
        fail("write (value size) of", map);
    if (bpf_map_update_elem(fd(map), &index, value, BPF_ANY) != 0)
        fail("write", map);
}

void MapIo::update_key(const std::string& map, const void* key, const void* value, size_t size)
{
    if (value_size(map) != static_cast<int64_t>(size))
        fail("write (value size) of", map);
    if (bpf_map_update_elem(fd(map), key, value, BPF_ANY) != 0)
        fail("write", map);
}

std::vector<uint32_t> MapIo::keys32(const std::string& map)
{
    const int map_fd = fd(map);
    std::vector<uint32_t> keys;
    uint32_t key = 0;
    const void* previous = nullptr;  // null: the first key
    while (bpf_map_get_next_key(map_fd, previous, &key) == 0) {
        keys.push_back(key);
        previous = &keys.back();
    }
    return keys;
}

void MapIo::erase_key(const std::string& map, const void* key)
{
    if (bpf_map_delete_elem(fd(map), key) != 0 && errno != ENOENT)
        fail("delete from", map);
}

void MapIo::per_cpu_lookup(const std::string& map, uint32_t index, size_t size,
                           const std::function<void(const void*)>& each)
{
    const int cpus = libbpf_num_possible_cpus();
    if (cpus <= 0)
        fail("count the CPUs for", map);
    const size_t stride = (size + 7) & ~size_t{7};  // the kernel's per-CPU layout
    std::vector<unsigned char> values(stride * static_cast<size_t>(cpus));
    if (bpf_map_lookup_elem(fd(map), &index, values.data()) != 0)
        fail("read", map);
    for (int cpu = 0; cpu < cpus; ++cpu)
        each(&values[stride * static_cast<size_t>(cpu)]);
}

uint64_t MapIo::per_cpu_sum(const std::string& map, uint32_t index)
{
    uint64_t sum = 0;
    for (uint64_t n : per_cpu<uint64_t>(map, index))
        sum += n;
    return sum;
}

std::vector<uint64_t> MapIo::stack(const std::string& map, int id)
{
    const int64_t size = id < 0 ? -1 : value_size(map);
    if (size < 0)
        return {};
    std::vector<uint64_t> frames(static_cast<size_t>(size) / sizeof(uint64_t));
    const uint32_t key = static_cast<uint32_t>(id);
    if (bpf_map_lookup_elem(fd(map), &key, frames.data()) != 0)
        return {};
    size_t n = 0;
    while (n < frames.size() && frames[n])
        ++n;
    frames.resize(n);
    return frames;
}

}  // namespace kdelay
